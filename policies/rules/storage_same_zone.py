"""storage-same-zone: the parallel filesystem sits in the GPU nodes' zone, the bucket in their region.

Lustre/CPFS traffic that crosses zones pays inter-zone latency and (on AWS and GCP) per-GB
transfer on every read; EFA traffic does not cross a subnet at all. Zones are read per cloud
(cloud-map §1.3, §2.3, §3.3, §4.3): AWS through the subnet, GCP `location`/`zone`, Azure `zones`
(with `location`), Alibaba `zoneId` or the vSwitch's.
"""
from __future__ import annotations

import base64
import binascii
import gzip
import re
from typing import Any, Mapping, Optional

from trainstack_policies import links
from trainstack_policies.inventory import (
    Bucket,
    Filesystem,
    NodeGroup,
    buckets,
    cpu_groups,
    filesystems,
    gpu_groups,
)
from trainstack_policies.inventory.values import AZ_ID, aws_subnet_zone
from trainstack_policies.model import (
    UNKNOWN,
    OutsideStack,
    Resource,
    UnknownValue,
    Violation,
    violation,
)

NAME = "storage-same-zone"
DESCRIPTION = ("Every parallel filesystem the GPU nodes mount is in their zone, and the bucket in "
               "their region (no cross-zone or cross-region traffic); only GPU capacity is "
               "compared.")
ENFORCEMENT_LEVEL = "mandatory"
KIND = "stack"
SEVERITY = "high"
REMEDIATION = (
    "Create the parallel filesystem in the GPU nodes' zone (AWS: the node group's subnet; "
    "GCP: location = the nodes' zone; Azure: zones and location of the scale set; Alibaba: "
    'zone_id / vSwitch), keep all GPU node groups in one zone, and create the bucket in their '
    "region. With trainstack: set location.zone / the cloud's zone in cluster.yaml and let "
    'the component place the filesystem.'
)
SCOPE = (
    'GPU capacity only: node groups, fleets, node pools, scale sets and instances whose type '
    'the catalog lists with GPUs, whose type is in a GPU instance family, or that declare '
    'accelerators (GCP guestAccelerators); compared with the parallel filesystems of the same '
    'cloud (FSx for Lustre, Managed Lustre, Parallelstore, Filestore, Azure Managed Lustre, '
    'CPFS), each matched to the GPU compute that mounts it (else shares its subnet or '
    "network, else its region), and the buckets of that cloud that a GPU cluster reads. "
    'Non-GPU compute is never judged. '
)

# A `zones` config value written as an AWS AZ ID: a region code, "-az", digits (use1-az4,
# usw2-az1, apne1-az4; a Local Zone's adds its own code: usw2-lax1-az1), as AWS writes AZ IDs
# (docs.aws.amazon.com/ram/latest/userguide/working-with-az-ids.html), or a Wavelength Zone's ID
# (use1-wl1-bos-wlz1, the zone us-east-1-wl1-bos-wlz-1: AWS Wavelength developer guide, "Available
# Wavelength Zones"). It is read as an AZ ID, not a zone name: which name an AZ ID has differs
# from one AWS account to another.
_AZ_ID_FORM = r"[a-z]{2,}[0-9]+(?:-[a-z]+[0-9]+)?-az[0-9]+|[a-z]{2,}[0-9]+-wl[0-9]+-[a-z]+-wlz[0-9]+"
# A zone name as the providers write it: AWS and Alibaba Cloud a region and a letter (us-east-1a,
# us-gov-west-1a, a Local Zone us-west-2-lax-1a; ap-southeast-1a, cn-shanghai-finance-1z), an AWS
# Wavelength Zone (us-east-1-wl1-bos-wlz-1), GCP a region and a zone letter (us-central1-a; an
# AI zone's suffix may hold digits), Alibaba Cloud's Chinese regions a city and a letter
# (cn-hangzhou-h), Azure a zone number (1, 2, 3: the pack reads an Azure `zones` entry so).
# Lowercase, as the APIs write them; plain RE2 syntax, as the CLI's gojsonschema runs it too.
_ZONE_NAME_FORM = (r"[a-z]{2}(?:-[a-z0-9]+)*-[0-9]+[a-z]"
                   r"|[a-z]{2}(?:-[a-z0-9]+)*-[0-9]+-wl[0-9]+-[a-z]+-wlz-[0-9]+"
                   r"|[a-z]+-[a-z]+[0-9]+-[a-z][a-z0-9]*"
                   r"|[a-z]{2}-[a-z]+-[a-z]"
                   r"|[1-3]")
ZONE_FORM = f"^(?:{_AZ_ID_FORM}|{_ZONE_NAME_FORM})$"

CONFIG_SCHEMA = {
    "zones": {
        "type": "object",
        "additionalProperties": {
            "type": "string", "pattern": ZONE_FORM,
            # pack_config.schema_errors says a value the pattern refuses as "<value> is not"
            # this, so the refusal names the forms, not the pattern.
            "description": "a zone name or AWS AZ ID as the provider writes it (AWS us-east-1a, "
                           "a Local Zone us-west-2-lax-1a, a Wavelength Zone "
                           "us-east-1-wl1-bos-wlz-1, an AZ ID use1-az4; GCP us-central1-a; "
                           "Azure 1, 2 or 3; Alibaba Cloud cn-hangzhou-h or ap-southeast-1a)",
        },
        "description": "The zone of each subnet / vSwitch id, and of each FSx file system id "
                       "the nodes' user data mounts, that the program names literally (one the "
                       "stack does not create), e.g. {\"subnet-0abc\": \"us-east-1a\", "
                       "\"fs-0123456789abcdef0\": \"us-east-1a\"}; a zone name, or an AWS AZ ID "
                       "(use1-az4), compared with AZ IDs only; a value of neither form is "
                       "refused. Without it such a placement is 'cannot decide' (at "
                       "cannotDecide's level).",
    },
}

# Inputs that place compute or a filesystem in a subnet / vSwitch, by id; an AWS Batch compute
# environment's computeResources.subnets as an Auto Scaling group's vpcZoneIdentifiers.
_PLACING = ("vpcZoneIdentifiers", "subnetIds", "subnetId", "vswitchId", "vswitchIds",
            "computeResources.subnets")


def _placing_deps(r: Resource, key: str) -> list[Resource]:
    """The resources of the stack behind a placing input: its dependencies, or for a nested
    input (computeResources.subnets) the subnets among those of its top-level input (the
    engine records dependencies per top-level input: a compute environment's computeResources
    also depends on its launch template and security groups)."""
    top, dot, _ = key.partition(".")
    deps = r.deps.get(top, [])
    return [d for d in deps if d.type in _AWS_SUBNETS] if dot else deps

# An FSx file system's DNS name, as a Lustre mount names it (FSx for Lustre user guide, "Mounting
# the file system": fs-<id>.fsx.<region>.amazonaws.com@tcp:/<mountname>). EFS names end in
# .efs.<region>.amazonaws.com: EFS (regional) is mountable from every zone, so it is not matched.
_FSX_DNS = re.compile(r"\b(fs-[0-9a-f]{8,17})\.fsx\.[a-z0-9-]+\.amazonaws\.com")
# Inputs that carry user data (launch templates take it base64-encoded, instances as text).
_USER_DATA = ("userData", "userDataBase64")

# Cloud Storage locations that are not a single region (GCS docs "Bucket locations").
GCS_MULTI_REGIONS = {"US", "EU", "ASIA"}
GCS_DUAL_REGIONS = {"NAM4", "EUR4", "EUR5", "EUR7", "EUR8", "ASIA1", "ASIA2"}

_FS_FIX = {
    "aws": "create the FSx file system in the node group's subnet (subnet_ids = that subnet)",
    "gcp": "set the instance's location to the node group's zone",
    "azure": "set zones=[<the nodes' zone>] and the nodes' location on the AmlFilesystem",
    "alicloud": "set zone_id (and a vSwitch) in the nodes' zone on the CPFS file system",
}
_NODE_ZONE_FIX = {
    "aws": "place the node group in one subnet of this stack (vpc_zone_identifiers=[subnet.id])",
    "gcp": "use a zonal instance group manager (zone=...) or an instance with zone set",
    "azure": "set zones=[\"1\"] (one zone) on the scale set",
    "alicloud": "place the nodes in one vSwitch of this stack, or set zone_id",
}


_AZ_ID = re.compile(_AZ_ID_FORM)


def _told(value: str) -> str:
    """A zone the config tells (one of ZONE_FORM: the schema refuses any other), as the pack
    compares it: AZ_ID + an AZ ID, else the name."""
    return AZ_ID + value if _AZ_ID.fullmatch(value) else value


def _known(r: Resource, value: Any, path: str) -> Any:
    if value is UNKNOWN:
        raise UnknownValue(r, path)
    return value


def _literal_ids(r: Resource) -> list[str]:
    """Subnet / vSwitch ids the resource names as literals, with no resource of the stack
    behind them (a subnet made elsewhere)."""
    out: list[str] = []
    for key in _PLACING:
        if _placing_deps(r, key):
            continue
        value = r.get(key)
        for v in (value if isinstance(value, list) else [value]):
            if isinstance(v, str) and v and v is not UNKNOWN:
                out.append(v)
    # EC2 Fleet / Spot Fleet name subnets inside their configs (overrides[].subnetId,
    # launchSpecifications[].subnetId, comma-separated there); literal where no subnet of the
    # stack is behind the config.
    for key, dep_key in _NESTED_PLACING:
        if any(d.type in _AWS_SUBNETS for d in r.deps.get(dep_key, [])):
            continue
        for conf in _as_list(r.get(key)):
            entries = [conf] + (_as_list(conf.get("overrides")) if isinstance(conf, dict) else [])
            for entry in entries:
                v = entry.get("subnetId") if isinstance(entry, dict) else None
                if isinstance(v, str) and v:
                    out += [part.strip() for part in v.split(",") if part.strip()]
    return out


# (input, the input its dependencies are recorded under). A launch template's network
# interfaces name subnets too (aws: networkInterfaces, one object or a list; aws-native: under
# launchTemplateData, whose dependencies the engine records for launchTemplateData as a whole;
# EC2 API RequestLaunchTemplateData.NetworkInterfaces[].SubnetId), and so do an aws-native
# instance's (CloudFormation AWS::EC2::Instance NetworkInterfaces[].SubnetId): a literal id
# there is a subnet made elsewhere, as a literal subnetId on the instance is.
_NESTED_PLACING = (("launchTemplateConfigs", "launchTemplateConfigs"),
                   ("launchTemplateConfig", "launchTemplateConfig"),
                   ("launchSpecifications", "launchSpecifications"),
                   ("networkInterfaces", "networkInterfaces"),
                   ("launchTemplateData.networkInterfaces", "launchTemplateData"))
_AWS_SUBNETS = ("aws:ec2/subnet:Subnet", "aws-native:ec2:Subnet")


def _as_list(value: Any) -> list:
    return value if isinstance(value, list) else [value] if isinstance(value, dict) else []


def _mixed_literal_zones(r: Resource, config: Mapping[str, Any]) -> list[str]:
    """Zones of subnet / vSwitch ids a list input names beside the stack's own (more entries
    than subnets of the stack it depends on): those ids are made elsewhere. Which entries they
    are is not known (on an update preview the stack's own ids are text too), so the config
    must tell at least as many of the named ids as there are extra entries; else "cannot
    decide" (OutsideStack), as for a placement named by literal ids alone."""
    out: list[str] = []
    told = config.get("zones") or {}
    for key in _PLACING:
        deps = _placing_deps(r, key)
        if not deps:
            continue   # (the input read only where it has dependencies: most keys have none)
        value = r.get(key)
        if not isinstance(value, list) or len(value) <= len(deps):
            continue
        named = [v for v in value if isinstance(v, str) and v and v is not UNKNOWN]
        known = [_told(told[v]) for v in named if isinstance(told.get(v), str) and told.get(v)]
        if len(known) < len(value) - len(deps):
            untold = [v for v in named if v not in told] or ["(an id unknown until apply)"]
            raise OutsideStack(r, f"{key} names {len(value) - len(deps)} subnet(s) beside the "
                                  f"stack's own, among {', '.join(untold)} (made elsewhere, so "
                                  "their zone is not in the program; tell the pack with "
                                  f"storage-same-zone's zones config: {{\"{untold[0]}\": "
                                  "\"<zone>\"}})")
        out += known
    return out


# A stand-in for the zone of ONE subnet the stack names by a literal id and the config does not
# place: a subnet is in exactly one zone (VPC User Guide, "Subnets for your VPC"; an Alibaba
# vSwitch likewise), so nodes and a filesystem on the same literal subnet share a zone, whatever
# it is. Any comparison with another zone is still undecided (_literal_zone).
_LITERAL = "the zone of literal subnet "


def _told_zones(r: Resource, config: Mapping[str, Any], literal: bool = False) -> list[str]:
    """The zones the pack config's `zones` gives for the resource's literal subnet ids; raises
    "cannot decide" when it names such ids and the config does not tell all their zones
    (with `literal`, one untold id alone stands for its own zone: see _LITERAL)."""
    ids = _literal_ids(r)
    if not ids:
        return []
    told = config.get("zones") or {}
    missing = [i for i in ids if not isinstance(told.get(i), str) or not told.get(i)]
    if missing and literal and len(set(ids)) == 1:
        return [_LITERAL + ids[0]]
    if missing:
        raise OutsideStack(r, f"{', '.join(missing)} (a subnet this stack does not create, so "
                              "its zone is not in the program; tell the pack with "
                              f"storage-same-zone's zones config: {{\"{missing[0]}\": "
                              "\"<zone>\"}})")
    return sorted({_told(told[i]) for i in ids})


def _user_data_text(value: Any) -> str:
    """User data as the node reads it: base64 decoded where it is base64, gunzipped where
    cloud-init would gunzip it; "" where it is no text (unknown at preview)."""
    if not isinstance(value, str) or not value:
        return ""
    try:
        raw = base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        return value
    if raw[:2] == b"\x1f\x8b":
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError):
            return value
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return value


def _outside_filesystems(g: NodeGroup) -> list[str]:
    """The FSx file system ids the group's user data mounts by a literal DNS name: file systems
    the stack does not create (one it creates is named through its dnsName output, a value the
    program does not hold as text)."""
    ids: set[str] = set()
    for part in links.parts(g):
        named: set[str] = set()
        for key in _USER_DATA:
            named.update(m.group(1) for m in _FSX_DNS.finditer(_user_data_text(part.get(key))))
        # On an update preview the DNS name of an FSx the stack creates is known, so the user
        # data built from it names it literally, and depends on it: as many names as such
        # dependencies may all be the stack's own (matched through the dependency instead).
        # (Counted only where a name was found: most user data names none.)
        if named and len(named) > sum(len(part.dep(key, "aws:fsx/")) for key in _USER_DATA):
            ids.update(named)
    return sorted(ids)


def _literal_zone(zone: str, r: Resource) -> OutsideStack:
    """The "cannot decide" for GPU nodes placed on an untold literal subnet (a _LITERAL zone),
    compared with `r`, a filesystem somewhere else."""
    subnet = zone[len(_LITERAL):]
    return OutsideStack(r, f"the GPU nodes' {subnet} (a subnet this stack does not "
                        "create, so its zone is not in the program; tell the pack with "
                        f"storage-same-zone's zones config: {{\"{subnet}\": \"<zone>\"}})")


def _check_outside(fs_id: str, mounting: Resource, zone: str,
                   config: Mapping[str, Any]) -> list[Violation]:
    """A file system made outside the stack, mounted by GPU nodes in `zone`: compared with the
    zone the pack config's `zones` tells for it, else "cannot decide"."""
    if zone.startswith(_LITERAL):
        raise _literal_zone(zone, mounting)
    told = (config.get("zones") or {}).get(fs_id)
    if not isinstance(told, str) or not told:
        raise OutsideStack(mounting, f"userData mounts {fs_id} (a file system this stack does "
                           "not create, so its zone is not in the program; tell the pack with "
                           f"storage-same-zone's zones config: {{\"{fs_id}\": \"<zone>\"}})")
    compared = _told(told)
    if compared == zone:
        return []
    if compared.startswith(AZ_ID) != zone.startswith(AZ_ID):
        # A zone name against an AZ ID: undecidable from the program.
        raise _name_and_id(mounting, compared, zone)
    return [violation(mounting, f"the filesystem {fs_id} the GPU nodes mount is not in the GPU "
                      "nodes' zone", f"{told} (told in the pack config's zones)", zone,
                      "mount a file system in the nodes' zone, or place the nodes in "
                      f"{fs_id}'s zone ({told})")]


def _id_only_zones(g: NodeGroup) -> list[str]:
    """The zones, as AZ_ID + the AZ ID, of the AWS subnets of the stack a group's nodes are on
    (directly or through a network interface) that give an availabilityZoneId and no
    availabilityZone (aws.ec2.Subnet takes either)."""
    if g.cloud != "aws":
        return []
    out: list[str] = []
    for part in links.parts(g):
        for deps in part.deps.values():
            for d in deps:
                hops = [d] + ([x for xs in d.deps.values() for x in xs]
                              if d.type in links.NICS else [])
                for sn in hops:
                    if sn.type in _AWS_SUBNETS:
                        zone = aws_subnet_zone(sn)
                        if isinstance(zone, str) and zone.startswith(AZ_ID) and zone not in out:
                            out.append(zone)
    return out


class _NameAndId(OutsideStack):
    """A zone name compared with an AZ ID: which name an AZ ID has differs per AWS account."""

    FOUND = "a zone named by name on one side and by AZ ID on the other"
    EXPECTED = "both sides named the same way (zone names, or AZ IDs)"
    FIX = ("give the subnets (and the storage's subnets) availabilityZone names, or "
           "availabilityZoneId on all of them")


def _name_and_id(r: Resource, one: str, other: str) -> _NameAndId:
    """"Cannot decide" for a zone name against an AZ ID (AZ_ID + the id), given in either order."""
    name, zone_id = sorted((one, other), key=lambda z: z.startswith(AZ_ID))
    return _NameAndId(r, f"{name} and {zone_id}: which zone name an AZ ID has differs from "
                      "one AWS account to another (docs.aws.amazon.com/ram/latest/userguide/"
                      "working-with-az-ids.html), and the program does not say which account")


def _node_placement(groups: list[NodeGroup], out: list[Violation],
                    config: Optional[Mapping[str, Any]] = None) -> tuple[str, str]:
    config = config or {}
    zones: dict[str, NodeGroup] = {}
    unknown = [g for g in groups if UNKNOWN in g.zones]
    for g in groups:
        known = [z for z in g.zones if z and z is not UNKNOWN]
        if not known and g in unknown:
            continue
        by_id = _id_only_zones(g)
        if not known:
            known = by_id or _told_zones(g.resource, config, literal=True) or (
                _told_zones(g.template, config, literal=True) if g.template is not None
                else [])
        else:
            known += [z for z in _mixed_literal_zones(g.resource, config) + by_id
                      if z not in known]
        if not known:
            out.append(violation(g.resource, "the GPU nodes' zone cannot be read", None,
                                 "one zone named on the group or its subnet/vSwitch",
                                 _NODE_ZONE_FIX.get(g.cloud, "place the nodes in one zone")))
        for zone in known:
            zones.setdefault(zone, g)
    names = [z for z in zones if not z.startswith(AZ_ID)]
    ids = [z for z in zones if z.startswith(AZ_ID)]
    if len(names) == 1 and len(ids) == 1:
        # One zone by name, one by AZ ID: the same zone in some accounts, not in others.
        raise _name_and_id(zones[ids[0]].resource, names[0], ids[0])
    if len(zones) > 1:
        for zone, g in zones.items():
            if zone.startswith(_LITERAL):   # another zone beside an untold one: undecided
                _told_zones(g.resource, config)
                if g.template is not None:
                    _told_zones(g.template, config)
        first = next(iter(zones.values()))
        out.append(violation(first.resource, "the GPU nodes span more than one zone",
                             ", ".join(sorted(zones)), "a single zone",
                             "put every node group in one zone, so the filesystem can be in it "
                             "too"))
        return "", ""
    if unknown:
        # One zone known so far: whether the rest match is known only after apply.
        _known(unknown[0].resource, UNKNOWN, "zone")
    zone = next(iter(zones), "")
    region = next((g.region for g in groups if isinstance(g.region, str) and g.region), "")
    return zone, region


def _check_filesystem(fs: Filesystem, zone: str, region: str,
                      zone_ids: tuple = (), config: Optional[Mapping[str, Any]] = None
                      ) -> list[Violation]:
    r = fs.resource
    _known(r, fs.region, "location" if r.cloud == "azure" else "region")
    if fs.regional:
        # Reachable from every zone of its region (Filestore REGIONAL/ENTERPRISE).
        if region and fs.region and fs.region != region:
            return [violation(r, "the filesystem is not in the GPU nodes' region", fs.region,
                              region, _FS_FIX.get(r.cloud, "create it in the nodes' region"))]
        return []
    _known(r, fs.zone, "zones" if r.cloud == "azure" else "location" if r.cloud == "gcp"
           else "zoneId" if r.cloud == "alicloud" else "subnetIds")
    fix = _FS_FIX.get(r.cloud, "create it in the nodes' zone")
    found = str(fs.zone)
    if fs.zone_id:
        # S3 Express One Zone names an AZ ID (use1-az4): compare with the subnets' AZ IDs.
        ids = sorted({str(i) for i in zone_ids if i} |
                     ({zone[len(AZ_ID):]} if zone.startswith(AZ_ID) else set()))
        if not ids:
            raise UnknownValue(r, "location.name (an AZ ID; the nodes' subnets name no "
                               "availabilityZoneId to compare it with)")
        if ids != [fs.zone_id]:
            return [violation(r, "the directory bucket is not in the GPU nodes' zone",
                              fs.zone_id, ", ".join(ids), "create it in the AZ ID of the "
                              "nodes' subnet")]
        return []
    if r.cloud == "azure" and fs.region:
        found = f"zone {fs.zone or '(none)'} in {fs.region}"
        expected = f"zone {zone} in {region}"
        ok = fs.zone == zone and (not region or fs.region == region)
    else:
        expected = zone
        ok = str(fs.zone) == zone
    if isinstance(fs.zone, str) and fs.zone and not zone.startswith(_LITERAL) and \
            fs.zone.startswith(AZ_ID) != zone.startswith(AZ_ID):
        # A zone name against an AZ ID: undecidable from the program.
        raise _name_and_id(r, fs.zone, zone)
    if zone.startswith(_LITERAL) and (fs.zone or _told_zones(r, config or {}, literal=True)
                                      != [zone]):
        # Nodes on an untold literal subnet: only a filesystem on that same subnet is decided.
        raise _literal_zone(zone, r)
    if not fs.zone:
        told = _told_zones(r, config or {}, literal=True)
        if told == [zone]:
            return []
        if told and told[0].startswith(_LITERAL):
            _told_zones(r, config or {})   # its own literal subnet, untold: undecided
        if len(told) == 1 and told[0].startswith(AZ_ID) != zone.startswith(AZ_ID):
            # A zone name against an AZ ID told for the filesystem's literal subnet.
            raise _name_and_id(r, told[0], zone)
        if len(told) == 1:
            return [] if told[0] == zone else [violation(
                r, "the filesystem is not in the GPU nodes' zone", f"{told[0]} (told in the "
                "pack config's zones)", expected, fix)]
        return [violation(r, "the filesystem's zone cannot be read", None, expected, fix)]
    if not ok:
        return [violation(r, "the filesystem is not in the GPU nodes' zone", found, expected,
                          fix)]
    return []


def _check_bucket(bucket: Bucket, region: str, readers: list[str]) -> list[Violation]:
    r = bucket.resource
    _known(r, bucket.region, "location" if r.cloud in ("gcp", "azure") else "region")
    if not bucket.region or not region:
        # No region of its own: the bucket goes to its (default) provider's region, the region
        # trainstack checks the stack's provider config against before it builds anything.
        return []
    found = str(bucket.region)
    if r.cloud == "gcp":
        if found.lower() == region.lower():
            return []
        kind = ("a multi-region" if found.upper() in GCS_MULTI_REGIONS or
                r.get("customPlacementConfig") else
                "a dual-region" if found.upper() in GCS_DUAL_REGIONS else "another region")
        return [violation(r, f"the bucket is in {kind}, not the region of the GPU cluster "
                          f"that reads it ({', '.join(readers)} in {region})", found,
                          region.upper(), f"set location=\"{region.upper()}\" (a single region)")]
    if found == region:
        return []
    fix = {"alicloud": "create the bucket with a provider for the cluster's region",
           "azure": f"set location=\"{region}\" on the storage account"}.get(
        r.cloud, f"set region=\"{region}\" on the bucket")
    return [violation(r, "the bucket is not in the region of the GPU cluster that reads it "
                      f"({', '.join(readers)} in {region})", found, region, fix)]


def _clusters(groups: list[NodeGroup], unknown_unread: bool = False) -> dict[str, list[NodeGroup]]:
    """GPU groups by region: two clusters in two regions are two clusters, not one spanning
    zones. A group whose region cannot be read joins the only cluster there is, if one; so
    does one whose region is unknown at preview where `unknown_unread` (else it is raised)."""
    out: dict[str, list[NodeGroup]] = {}
    for g in groups:
        if g.region is UNKNOWN and unknown_unread:
            out.setdefault("", []).append(g)
            continue
        if g.region is UNKNOWN:
            raise UnknownValue(g.resource, "location" if g.cloud == "azure" else "region")
        out.setdefault(str(g.region or ""), []).append(g)
    if "" in out and len(out) == 2:
        lone = out.pop("")
        next(iter(out.values())).extend(lone)
    return out


class _Mounts:
    """Which GPU groups mount a filesystem: those whose compute depends on it (user data naming
    its DNS name, mount point or mount target); else those sharing its subnet/vSwitch; else
    those on its VPC network in its region (GCP network, Azure vnet); else the cluster of its
    region; else (no cluster there) every GPU group of its cloud: a filesystem the stack's GPUs
    cannot reach in-region is still theirs, in the wrong place. Past the first step, groups
    whose own mounts are visible are left to those mounts where others remain."""

    def __init__(self, clusters: dict[str, list[NodeGroup]], usage: links.Usage):
        self.clusters = clusters
        self.usage = usage
        self.every = [g for gs in clusters.values() for g in gs]
        self.by_subnet: dict[Any, list[NodeGroup]] = {}
        self.by_network: dict[Any, list[NodeGroup]] = {}
        for g in self.every:
            for part in links.parts(g):
                subnets, networks = links.segments(part)
                for key in subnets:
                    self.by_subnet.setdefault(key, []).append(g)
                for key in networks:
                    self.by_network.setdefault(key, []).append(g)

    @staticmethod
    def _sharing(keys: set, index: dict[Any, list[NodeGroup]]) -> list[NodeGroup]:
        found: dict[int, NodeGroup] = {}
        for key in keys:
            for g in index.get(key, []):
                found.setdefault(id(g), g)
        return list(found.values())

    def of(self, fs: Filesystem) -> list[NodeGroup]:
        return self.of_with_evidence(fs)[0]

    def of_with_evidence(self, fs: Filesystem) -> tuple[list[NodeGroup], bool]:
        """The groups, and whether they are known to use it (they mount it or share its
        subnet) rather than only being near it (its network, region or cloud)."""
        mounting = self.usage.mounting(fs)
        if mounting:
            return mounting, True
        subnets, networks = links.segments(fs.resource)
        sharing = self._sharing(subnets, self.by_subnet)
        if sharing:
            return self.usage.unmounting(sharing), True
        on_network = [g for g in self._sharing(networks, self.by_network)
                      if fs.region and g.region == fs.region]
        if on_network:
            return self.usage.unmounting(on_network), False
        if fs.region and fs.region in self.clusters:
            return self.usage.unmounting(self.clusters[fs.region]), False
        return self.every, False


def _nearby_verdict(fs: Filesystem, groups: list[NodeGroup]) -> Optional[list[Violation]]:
    """A zonal filesystem that no GPU group is seen to use, judged against GPU groups that are
    only near it (its network or region): those may be separate clusters (two training
    clusters in one network, an inference group spread over zones for availability), not one
    cluster spanning zones. It is theirs if it is in the zone of one of them; otherwise it is
    in the wrong zone for all. None: not this case (zones unknown or in another region), the
    placement check decides."""
    if not isinstance(fs.zone, str) or not fs.zone or fs.regional or fs.zone_id or \
            fs.zone.startswith(AZ_ID):
        return None
    if any(UNKNOWN in g.zones or g.region != fs.region for g in groups):
        return None
    zones = {z for g in groups for z in g.zones if z}
    if len(zones) < 2 or any(not [z for z in g.zones if z] for g in groups):
        return None   # one zone near it: the placement check compares it, as before
    if fs.zone in zones:
        return []
    shown = ", ".join(sorted(zones))
    if fs.resource.cloud == "azure":
        found, expected = f"zone {fs.zone} in {fs.region}", f"one of zones {shown} in {fs.region}"
    else:
        found, expected = fs.zone, f"one of {shown}"
    return [violation(fs.resource, "the filesystem is not in the GPU nodes' zone", found,
                      expected, _FS_FIX.get(fs.resource.cloud, "create it in the nodes' zone"))]


def _fs_readers(usage: links.Usage, matched: list[tuple[Filesystem, list[NodeGroup]]]
                ) -> dict[int, dict[int, NodeGroup]]:
    """Resource id -> the GPU groups that read it through a filesystem they mount."""
    out: dict[int, dict[int, NodeGroup]] = {}
    for fs, groups in matched:
        for rid in usage.fs_reads(fs):
            out.setdefault(rid, {}).update((id(g), g) for g in groups)
    return out


def check(resources: list[Resource], config: Mapping[str, Any]) -> list[Violation]:
    out: list[Violation] = []
    unknown: Optional[UnknownValue] = None
    every = gpu_groups(resources)
    if not every:
        return out
    every_fs, every_bucket = filesystems(resources), buckets(resources)
    usage = links.Usage(every, resources, [fs.resource for fs in every_fs])
    # A filesystem only CPU compute mounts (a login node's home, a CPU preprocessing fleet's
    # scratch) is not the GPUs' storage: where it sits costs the GPUs nothing.
    cpu_mounted = {i for g in cpu_groups(resources)
                   for part in links.parts(g) for i in links.used(part)}
    by_cloud: dict[str, list[NodeGroup]] = {}
    for g in every:
        by_cloud.setdefault(g.cloud, []).append(g)
    fs_by_cloud: dict[str, list[Filesystem]] = {}
    for fs in every_fs:
        fs_by_cloud.setdefault(fs.resource.cloud, []).append(fs)
    for cloud in sorted(by_cloud):
        mounted = fs_by_cloud.get(cloud, [])
        try:
            clusters = _clusters(by_cloud[cloud])
        except UnknownValue as err:
            # A GPU group whose region is unknown at preview: asked about only where storage
            # of its cloud could be compared with it (a filesystem GPU compute may mount, one
            # its user data names, a bucket a GPU group reads); never for another cloud.
            if any(id(fs.resource) not in cpu_mounted or usage.mounting(fs) for fs in mounted) \
                    or any(_outside_filesystems(g) for g in by_cloud[cloud]) \
                    or any(b.resource.cloud == cloud and usage.reading(b.resource)
                           for b in every_bucket):
                unknown = unknown or err
            else:
                continue
            # The question must not hide what is known whatever the region (a regional MIG
            # naming no zone): compared as a group whose region is unread, which skips every
            # region comparison and keeps the zone ones.
            clusters = _clusters(by_cloud[cloud], unknown_unread=True)
        placed: dict[tuple, tuple[str, str]] = {}
        mounts = _Mounts(clusters, usage)
        matched = []
        for fs in mounted:
            if id(fs.resource) in cpu_mounted and not usage.mounting(fs):
                continue
            groups, used = mounts.of_with_evidence(fs)
            matched.append((fs, groups))
            nearby = None if used else _nearby_verdict(fs, groups)
            if nearby is not None:
                out.extend(nearby)
                continue
            # The groups themselves, whatever their number: two lists that only share their
            # length and ends are different clusters with different zones.
            key = tuple(sorted(id(g) for g in groups))
            try:
                if key not in placed:
                    placed[key] = ("", "")
                    placed[key] = _node_placement(groups, out, config)
                zone, region = placed[key]
                if zone or (fs.regional and region) or fs.zone_id:
                    ids = tuple(s.get("availabilityZoneId") for g in groups
                                for s in g.resource.dep("vpcZoneIdentifiers") + g.resource.dep(
                                    "subnetIds") + g.resource.dep("subnetId")) \
                        if fs.zone_id else ()
                    out.extend(_check_filesystem(fs, zone, region, ids, config))
            except UnknownValue as err:
                unknown = unknown or err
        # File systems made outside the stack, named in the nodes' user data.
        outside: dict[str, list[NodeGroup]] = {}
        for gs in clusters.values():
            for g in gs:
                for fs_id in _outside_filesystems(g):
                    outside.setdefault(fs_id, []).append(g)
        for fs_id, groups in sorted(outside.items()):
            key = tuple(sorted(id(g) for g in groups))
            try:
                if key not in placed:
                    placed[key] = ("", "")
                    placed[key] = _node_placement(groups, out, config)
                zone = placed[key][0]
                if zone:
                    out.extend(_check_outside(fs_id, groups[0].resource, zone, config))
            except UnknownValue as err:
                unknown = unknown or err
        through_fs = _fs_readers(usage, matched)
        for bucket in every_bucket:
            if bucket.resource.cloud != cloud:
                continue
            # Only a bucket a cluster reads is that cluster's: a DR copy, a log or a website
            # bucket in another region costs the GPUs nothing.
            readers = {id(g): g for g in usage.reading(bucket.resource)}
            readers.update(through_fs.get(id(bucket.resource), {}))
            by_region: dict[str, list[str]] = {}
            for g in readers.values():
                if isinstance(g.region, str) and g.region:   # unknown at preview: asked above
                    by_region.setdefault(g.region, []).append(g.resource.name)
            for region in sorted(by_region):
                names = sorted(set(by_region[region]))
                shown = names[:5] + ([f"{len(names) - 5} more"] if len(names) > 5 else [])
                try:
                    out.extend(_check_bucket(bucket, region, shown))
                except UnknownValue as err:
                    unknown = unknown or err
    if unknown is not None and not out:
        # Undecided only where nothing else fails: one unknown must not hide a known violation.
        raise unknown
    return out
