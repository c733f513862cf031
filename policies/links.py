"""Who uses what, read from property dependencies: the GPU compute that mounts a filesystem or
reads a bucket, and the subnets and networks compute and storage share.

Pulumi records, per input, the resources it was computed from: a launch template's user data
built from an FSx's DNS and mount names depends on that FSx, an instance template's metadata on
the Lustre instance whose mount point it names, a scale set's custom data on the AmlFilesystem,
an FSx data repository association on the bucket it imports. storage-same-zone matches storage
to the compute that uses it by these, before it falls back to shared subnets, networks or the
region (policies/rules/storage_same_zone.py).
"""
from __future__ import annotations

from typing import Any, Iterable, Optional

from trainstack_policies.inventory import Filesystem, NodeGroup
from trainstack_policies.model import Resource, last_segment

# What stands between compute and a filesystem: user data names the mount target's address.
MOUNT_HOPS = frozenset({
    "aws:efs/mountTarget:MountTarget", "aws:efs/accessPoint:AccessPoint",
    "alicloud:nas/mountTarget:MountTarget",
    "alicloud:nas/protocolMountTarget:ProtocolMountTarget",
    "alicloud:nas/accessPoint:AccessPoint",
})
# A bucket's parts (an Azure blob container, an S3 object or policy): using one uses the bucket.
BUCKET_PART_PREFIXES = ("aws:s3/", "gcp:storage/", "azure-native:storage:", "azure:storage/",
                        "alicloud:oss/")

# Zonal or regional subnets: two resources in one of these share a network segment.
SUBNETS = frozenset({
    "aws:ec2/subnet:Subnet", "alicloud:vpc/switch:Switch", "azure-native:network:Subnet",
    "azure:network/subnet:Subnet", "gcp:compute/subnetwork:Subnetwork",
})
# VPC networks (GCP's are global, the others regional): shared only within a region.
NETWORKS = frozenset({
    "gcp:compute/network:Network", "azure-native:network:VirtualNetwork",
    "azure:network/virtualNetwork:VirtualNetwork", "aws:ec2/vpc:Vpc",
    "alicloud:vpc/network:Network",
})
# Network interfaces stand between a VM and its subnet.
NICS = frozenset({"azure-native:network:NetworkInterface",
                  "azure:network/networkInterface:NetworkInterface",
                  "aws:ec2/networkInterface:NetworkInterface"})


def _deps(r: Resource) -> Iterable[Resource]:
    for deps in r.deps.values():
        yield from deps


def _depends_on(r: Resource, ids: set[int]) -> bool:
    """Whether any of `r`'s dependencies is one of `ids` (every resource of a stack is asked:
    plain loops, not a generator of generators)."""
    for deps in r.deps.values():
        for d in deps:
            if id(d) in ids:
                return True
    return False


def parts(g: NodeGroup) -> list[Resource]:
    """The resources that describe a group's nodes: the group and its launch template /
    instance template / scaling configuration."""
    return [g.resource] + ([g.template] if g.template is not None and
                           g.template is not g.resource else [])


def used(r: Resource) -> set[int]:
    """The ids of the resources `r` depends on, through mount targets and bucket parts."""
    out: set[int] = set()
    add = out.add
    for deps in r.deps.values():   # _deps(r), as plain loops: asked for every group part
        for d in deps:
            add(id(d))
            if d.type in MOUNT_HOPS or d.type.startswith(BUCKET_PART_PREFIXES):
                for through in d.deps.values():
                    for x in through:
                        add(id(x))
    return out


class Usage:
    """Which GPU groups mount which filesystem and read which bucket, indexed once per stack."""

    def __init__(self, groups: list[NodeGroup], resources: list[Resource],
                 storage: Iterable[Resource]):
        self.groups = groups
        storage_ids = {id(s) for s in storage}
        self.uses = {id(g): set().union(*(used(p) for p in parts(g))) for g in groups}
        self.mounts_any = {id(g) for g in groups if self.uses[id(g)] & storage_ids}
        # Resources that depend on a filesystem and a bucket (an FSx data repository
        # association, an Alibaba data flow, an import command): the filesystem reads the bucket.
        self.linked: dict[int, set[int]] = {}
        self._by_used: Optional[dict[int, list[NodeGroup]]] = None
        compute = {id(p) for g in groups for p in parts(g)}
        hops = storage_ids | {id(r) for r in resources if r.type in MOUNT_HOPS}
        for r in resources:
            if not r.deps or id(r) in storage_ids or id(r) in compute or \
                    not _depends_on(r, hops):
                continue
            ids = used(r)
            for s in ids & storage_ids:
                self.linked.setdefault(s, set()).update(ids)

    def mounting(self, fs: Filesystem) -> list[NodeGroup]:
        return self._users().get(id(fs.resource), [])

    def reading(self, bucket: Resource) -> list[NodeGroup]:
        return self._users().get(id(bucket), [])

    def _users(self) -> dict[int, list[NodeGroup]]:
        """Resource id -> the groups that use it, built on first use."""
        if self._by_used is None:
            self._by_used = {}
            for g in self.groups:
                for used_id in self.uses[id(g)]:
                    self._by_used.setdefault(used_id, []).append(g)
        return self._by_used

    def fs_reads(self, fs: Filesystem) -> set[int]:
        """What the filesystem imports from: its own dependencies (importPath, an HSM
        container's account) and those of resources tied to it (an association)."""
        return used(fs.resource) | self.linked.get(id(fs.resource), set())

    def unmounting(self, groups: list[NodeGroup]) -> list[NodeGroup]:
        """`groups` whose mounts cannot be seen, else all of them: a group whose user data
        names its filesystems is matched to those, not to every other one nearby."""
        return [g for g in groups if id(g) not in self.mounts_any] or groups


# ------------------------------------------------------------------------- subnets and networks

def _dicts(value: Any) -> list[dict]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def _azure_subnet_ids(r: Resource) -> list[str]:
    """Subnet ids named in a scale set's or filesystem's inputs (an existing vnet: no
    dependency to follow). An id unknown at preview names nothing to compare."""
    out = [r.get("filesystemSubnet")]
    for nic in _dicts(r.get("virtualMachineProfile.networkProfile."
                            "networkInterfaceConfigurations")):
        for ip in _dicts(nic.get("ipConfigurations")):
            subnet = ip.get("subnet")
            out.append(subnet.get("id") if isinstance(subnet, dict) else None)
    for nic in _dicts(r.get("networkInterfaces")):     # Azure classic scale sets
        out += [ip.get("subnetId") for ip in _dicts(nic.get("ipConfigurations"))]
    return [s for s in out if isinstance(s, str) and s]


def _gcp_network_names(r: Resource) -> list[str]:
    values: list[Any] = [r.get("network")]
    for key in ("networkInterfaces", "networks"):
        values += [i.get("network") for i in _dicts(r.get(key))]
    return [last_segment(v) for v in values if isinstance(v, str) and v]


def segments(r: Resource) -> tuple[set, set]:
    """(subnet keys, network keys) of one resource: the subnets/vSwitches and VPC networks it
    depends on (through a NIC, and a subnet's own network), and those it names by id or name
    where no resource of the stack stands for them."""
    subnets: set = set()
    networks: set = set()
    queue = list(_deps(r))
    seen: set[int] = set()
    while queue:
        d = queue.pop()
        if id(d) in seen:
            continue
        seen.add(id(d))
        if d.type in SUBNETS:
            subnets.add(id(d))
            queue.extend(x for x in _deps(d) if x.type in NETWORKS)
        elif d.type in NETWORKS:
            networks.add(id(d))
            name = d.get("name") or d.get("virtualNetworkName")
            if d.cloud == "gcp" and isinstance(name, str) and name:
                networks.add(("gcp", name))
        elif d.type in NICS:
            queue.extend(_deps(d))
    if r.cloud == "gcp":
        networks.update(("gcp", n) for n in _gcp_network_names(r))
    elif r.cloud == "azure":
        for sid in _azure_subnet_ids(r):
            subnets.add(("azure", sid.lower()))
            head, sep, _ = sid.lower().partition("/subnets/")
            if sep:
                networks.add(("azure", head))
    return subnets, networks
