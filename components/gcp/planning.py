"""Pure GCP planning: labels, zone facts, NIC/VPC layout, Managed Lustre sizes, budget amounts.

Everything here is a plain function of the spec and the catalog, tested without mocks
(tests/gcp/test_gcp_planning.py). Facts about zones live in components/catalog/zones.csv; the
sizing and layout rules below cite their source inline.
"""
from __future__ import annotations

import csv
import hashlib
import ipaddress
import math
import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Optional, overload

from trainstack_components import catalog
from trainstack_components.catalog import InstanceType
from trainstack_components.errors import SpecError
from trainstack_components.spec import ClusterSpec
from trainstack_components.tags import CLUSTER_TAG, OWN_TAGS, RETAIN_TAG

# -- labels ------------------------------------------------------------------------------------
# GCP label rules (Resource Manager "Requirements for labels"; the API docs give the patterns
# `\p{Ll}\p{Lo}{0,62}` for keys and `[\p{Ll}\p{Lo}\p{N}_-]{0,63}` for values): keys 1-63
# characters starting with a lowercase letter or an international (Lo) letter; keys and values only
# lowercase letters (international ones included), digits, `_` and `-`; values 0-63 characters;
# each under 128 bytes; at most 64 labels per resource. What the cloud accepts is kept as it is.
LABEL_MAX_CHARS = 63
LABEL_MAX_BYTES = 127
MAX_LABELS = 64
KEY_PREFIX = "tag_"  # for keys that do not start with a letter after normalising


def _ascii_lower(text: str) -> str:
    """Lowercase ASCII: accents dropped (é -> e), any other non-ASCII character becomes `_`."""
    out = []
    for ch in unicodedata.normalize("NFKD", text.lower()):
        if unicodedata.combining(ch):
            continue
        out.append(ch if ch.isascii() else "_")
    return "".join(out)


def _label_char(ch: str) -> str:
    """One character as GCP accepts it: lowercased if that makes it a label letter, else `_`."""
    if ch in "_-":
        return ch
    low = ch.lower()
    if len(low) == 1 and (unicodedata.category(low) in ("Ll", "Lo")
                          or unicodedata.category(low).startswith("N")):
        return low
    return "_"


def _cut(text: str) -> str:
    text = text[:LABEL_MAX_CHARS]
    while len(text.encode("utf-8")) > LABEL_MAX_BYTES:
        text = text[:-1]
    return text


def label_value(text: str) -> str:
    return _cut("".join(_label_char(ch) for ch in text))


def label_key(text: str) -> str:
    key = "".join(_label_char(ch) for ch in text)
    if not key or unicodedata.category(key[0]) not in ("Ll", "Lo"):
        key = KEY_PREFIX + key
    return _cut(key)


def label_changes(tags: dict[str, str]) -> list[dict[str, str]]:
    """Every tag GCP would not take as it is, with the label it becomes (shown in the plan)."""
    changes = []
    for key in sorted(tags):
        new_key, new_value = label_key(key), label_value(tags[key])
        if (new_key, new_value) != (key, tags[key]):
            changes.append({"tag": key, "value": tags[key],
                            "label": new_key, "label_value": new_value})
    return changes


CLUSTER_LABEL = label_key(CLUSTER_TAG)  # trainstack_cluster: the budget filters on it


def gcp_labels(tags: dict[str, str]) -> dict[str, str]:
    """The tag map as GCP labels; two tags that normalise to one key are an error, not a loss."""
    user = [key for key in tags if key not in OWN_TAGS]
    own = len(tags) - len(user) + (RETAIN_TAG not in tags)  # the bucket adds the retain marker
    if len(user) + own > MAX_LABELS:
        raise SpecError("tags", f"become {len(user) + own} GCP labels with trainstack's own; GCP "
                        f"allows at most {MAX_LABELS} per resource.",
                        f"Keep at most {MAX_LABELS - own} tags.")
    labels: dict[str, str] = {}
    origin: dict[str, str] = {}
    for key in sorted(tags):
        normal = label_key(key)
        if normal in origin:
            first, second = sorted([origin[normal], key])
            raise SpecError("tags", f"{first!r} and {second!r} both become the GCP label key "
                            f"{normal!r} (labels are lowercase letters, digits, _ and -, at most "
                            f"{LABEL_MAX_CHARS} characters, starting with a letter).",
                            "Rename or drop one of the two tags.")
        origin[normal] = key
        labels[normal] = label_value(tags[key])
    return dict(sorted(labels.items()))


# -- project and billing account -----------------------------------------------------------------
# Project IDs: 6-30 chars, lowercase letters, digits and hyphens, starting with a letter, not
# ending with a hyphen; legacy domain-scoped IDs carry a `domain:` prefix.
_PROJECT_ID = re.compile(r"^(?:[a-z0-9.-]+:)?[a-z][a-z0-9-]{4,28}[a-z0-9]$")
# Billing accounts: three groups of six hex digits, as `gcloud billing accounts list` prints them.
_BILLING_ACCOUNT = re.compile(r"^[0-9A-F]{6}-[0-9A-F]{6}-[0-9A-F]{6}$")


def check_project(project: Optional[str]) -> str:
    if not project:
        raise SpecError("clouds.gcp.project", "is missing; trainstack builds every resource in an "
                        "explicit project.", "Add clouds.gcp.project: <your project ID> "
                        "(`gcloud projects list` shows it).")
    if not _PROJECT_ID.match(project):
        raise SpecError("clouds.gcp.project", f"{project!r} is not a GCP project ID.",
                        "Use the project ID (6-30 lowercase letters, digits and hyphens), not "
                        "its display name or number.")
    return project


def check_billing_account(account: Optional[str]) -> str:
    if not account:
        raise SpecError("clouds.gcp.billing_account", "is missing; the budget alarm is created on "
                        "the billing account.", "Add clouds.gcp.billing_account: XXXXXX-XXXXXX-"
                        "XXXXXX (`gcloud billing accounts list` shows it).")
    normal = account.removeprefix("billingAccounts/").upper()
    if not _BILLING_ACCOUNT.match(normal):
        raise SpecError("clouds.gcp.billing_account", f"{account!r} is not a billing account ID.",
                        "Use the form XXXXXX-XXXXXX-XXXXXX (six hex digits, three times).")
    return normal


# -- zones ---------------------------------------------------------------------------------------
ROCE_PROFILE = "vpc-roce"


def type_zones(type_name: str, region: str, price_zones: tuple[str, ...] = ()) -> tuple[str, ...]:
    """Zones of `region` that host the machine type: zones.csv, else the price row's zones.
    Empty when neither source names zones (a regional price): the zone cannot be checked."""
    listed = catalog.zones_listed("gcp", "machine_type", type_name, region)
    return listed if listed is not None else tuple(sorted(price_zones))


def roce_zones(region: Optional[str] = None) -> tuple[str, ...]:
    return catalog.zones_listed("gcp", "network_profile", ROCE_PROFILE, region) or ()


def roce_profile(project: str, zone: str) -> str:
    """The RoCE VPC's network profile (a partial URL the SDK accepts, cloud-map §2.1)."""
    return f"projects/{project}/global/networkProfiles/{zone}-{ROCE_PROFILE}"


def check_roce_zone(itype: InstanceType, zone: str, region: str) -> None:
    """An RDMA cluster needs the zone's `<zone>-vpc-roce` profile and the type in that zone."""
    if zone in roce_zones(region):
        return
    both = sorted(z for z in roce_zones() if z in _all_type_zones(itype.name))
    raise SpecError("clouds.gcp.zone",
                    f"{zone} hosts {itype.name} but has no RoCE network profile "
                    f"({zone}-{ROCE_PROFILE}) in trainstack's zone data, so its {itype.rdma_nics} "
                    f"MRDMA NICs cannot be wired.",
                    f"Use a zone with both ({', '.join(both) or 'none known'}), or set "
                    "interconnect: tcp to build without RDMA. If `gcloud compute network-profiles "
                    f"list` now shows {zone}-{ROCE_PROFILE}, add it to "
                    "components/catalog/zones.csv.")


def _all_type_zones(type_name: str) -> tuple[str, ...]:
    return catalog.zones_listed("gcp", "machine_type", type_name) or ()


def fabric_note(itype: InstanceType, use_rdma: bool, interconnect: str) -> str:
    gbps = f"{itype.fabric_gbps} Gbps" if itype.fabric_gbps else "? Gbps"
    if itype.fabric == "roce" and use_rdma:
        return f"GPUDirect RDMA over RoCE v2 ({itype.rdma_nics} MRDMA NICs, {gbps})"
    if itype.fabric in GPU_NIC_FABRICS and interconnect != "tcp":
        name = GPU_NIC_FABRICS[itype.fabric]
        return (f"{name} ({itype.rdma_nics} GPU NICs, {gbps}; TCP-based GPUDirect, not RDMA, "
                f"the fastest {itype.name} has)")
    if itype.fabric in GPU_NIC_FABRICS or itype.fabric == "roce":
        return f"gVNIC only (interconnect: {interconnect}; the {itype.fabric} NICs are not attached)"
    return f"gVNIC only ({itype.name} has no GPUDirect networking, {gbps})"


# -- networks ------------------------------------------------------------------------------------
# One VPC per GPU NIC for A3 High (4) and A3 Mega (8), cloud-map §9.2; A3 Ultra and A4: two gVNIC
# VPCs plus one RoCE VPC with one subnet per MRDMA NIC (cloud-map §2.1, cluster-toolkit
# examples/machine-learning/a3-ultragpu-8g/a3ultra-vm.yaml). MTUs as in those blueprints.
GPU_NIC_FABRICS = {"gpudirect-tcpx": "GPUDirect-TCPX", "gpudirect-tcpxo": "GPUDirect-TCPXO"}
MTU = {"roce": 8896, "gpudirect-tcpx": 8244, "gpudirect-tcpxo": 8244}
DEFAULT_MTU = 8896
HOST_CIDR = "10.42.0.0/18"        # nodes' primary NIC
GVNIC1_CIDR = "10.42.64.0/18"     # A3 Ultra / A4 second gVNIC
PSA_CIDR = "10.42.128.0/20"       # Private Service Access range for Managed Lustre (cloud-map §9.1)
GPU_SUBNETS = "10.43.0.0/16"      # cut into /22s: one per RoCE subnet or GPU NIC VPC
GPU_SUBNET_PREFIX = 22            # 1,020 usable addresses: room for 512 nodes (the spec's maximum)


@dataclass(frozen=True)
class Subnet:
    key: str
    cidr: str


@dataclass(frozen=True)
class Network:
    key: str
    role: str                    # host | gvnic | roce | gpu
    mtu: int
    subnets: tuple[Subnet, ...]
    roce_profile: bool = False   # created with the zone's <zone>-vpc-roce profile
    internal_firewall: bool = True  # a RoCE VPC takes no VPC firewall rules (cloud-map §2.1)


@dataclass(frozen=True)
class Nic:
    network: str
    subnet: str
    nic_type: str                # GVNIC | MRDMA


@dataclass(frozen=True)
class NetworkPlan:
    networks: tuple[Network, ...]
    nics: tuple[Nic, ...]

    def network(self, key: str) -> Network:
        return next(n for n in self.networks if n.key == key)


def _gpu_cidr(i: int) -> str:
    return str(list(ipaddress.ip_network(GPU_SUBNETS).subnets(new_prefix=GPU_SUBNET_PREFIX))[i])


def network_plan(itype: InstanceType, use_rdma: bool, interconnect: str) -> NetworkPlan:
    mtu = MTU.get(itype.fabric, DEFAULT_MTU)
    networks = [Network("vpc", "host", mtu, (Subnet("subnet", HOST_CIDR),))]
    nics = [Nic("vpc", "subnet", "GVNIC")]
    if itype.fabric == "roce":
        networks.append(Network("gvnic1-vpc", "gvnic", mtu, (Subnet("gvnic1-subnet", GVNIC1_CIDR),)))
        nics.append(Nic("gvnic1-vpc", "gvnic1-subnet", "GVNIC"))
        if use_rdma:
            subnets = tuple(Subnet(f"roce-subnet-{i}", _gpu_cidr(i)) for i in range(itype.rdma_nics))
            networks.append(Network("roce-vpc", "roce", mtu, subnets, roce_profile=True,
                                    internal_firewall=False))
            nics.extend(Nic("roce-vpc", s.key, "MRDMA") for s in subnets)
    elif itype.fabric in GPU_NIC_FABRICS and interconnect != "tcp":
        for i in range(itype.rdma_nics):
            networks.append(Network(f"gpu{i}-vpc", "gpu", mtu,
                                    (Subnet(f"gpu{i}-subnet", _gpu_cidr(i)),)))
            nics.append(Nic(f"gpu{i}-vpc", f"gpu{i}-subnet", "GVNIC"))
    return NetworkPlan(tuple(networks), tuple(nics))


# -- nodes ---------------------------------------------------------------------------------------
# Ubuntu 22.04 accelerator image with the NVIDIA 580 driver, listed for A4, A3 Ultra, A3 Mega and
# A3 High (8 GPUs) on Google's AI Hypercomputer "OS images" page (updated 2026-04-06); the 570
# families were retired. A3 Ultra and A4 boot only from Hyperdisk (cluster-toolkit a3ultra-vm.yaml
# and a4high-vm.yaml use hyperdisk-balanced); A2 boots from Persistent Disk.
IMAGE_PROJECT = "ubuntu-os-accelerator-images"
IMAGE_FAMILY = "ubuntu-accelerator-2204-amd64-with-nvidia-580"
# The family URL, for reference only: a template that names a family boots whatever image is newest
# when a VM is created, so the cluster resolves the family once and pins that image instead.
IMAGE = f"projects/{IMAGE_PROJECT}/global/images/family/{IMAGE_FAMILY}"
BOOT_DISK_GIB = 500
# Instance-template inputs kept from the first deploy when the image came from the family.
PINNED_IMAGE_FIELDS = ("disks[0].sourceImage",)


def boot_disk_type(itype: InstanceType) -> str:
    return "pd-balanced" if itype.name.startswith("a2-") else "hyperdisk-balanced"


# -- Managed Lustre --------------------------------------------------------------------------------
@dataclass(frozen=True)
class LustreTier:
    """Sizes of one throughput tier (cloud-map §9.1: Managed Lustre "Performance tiers" and
    "Increase capacity", docs.cloud.google.com/managed-lustre/docs/performance-tiers)."""

    mbps_per_tib: int
    minimum: int
    step: int
    threshold: int   # sizes up to here are multiples of `step`
    big_step: int    # sizes above `threshold` are multiples of `big_step`
    maximum: int


LUSTRE_TIERS = {
    125: LustreTier(125, 72_000, 72_000, 12_240_000, 72_000, 12_240_000),
    250: LustreTier(250, 36_000, 36_000, 6_120_000, 288_000, 40_032_000),
    500: LustreTier(500, 18_000, 18_000, 3_060_000, 144_000, 20_016_000),
    1000: LustreTier(1000, 9_000, 9_000, 1_530_000, 72_000, 10_008_000),
}


def lustre_throughput(requested: int) -> int:
    """The smallest Managed Lustre tier at or above the spec's value (40 -> 125, 200 -> 250)."""
    return next((t for t in sorted(LUSTRE_TIERS) if t >= requested), max(LUSTRE_TIERS))


def lustre_capacity_gib(requested: int, tier: int) -> int:
    spec = LUSTRE_TIERS[tier]
    if requested <= spec.threshold:
        size = max(spec.minimum, spec.step * math.ceil(requested / spec.step))
    else:
        size = spec.big_step * math.ceil(requested / spec.big_step)
    if size > spec.maximum:
        raise SpecError("filesystem.capacity_gib",
                        f"{requested:,} GiB is more than Managed Lustre's {spec.maximum:,} GiB "
                        f"maximum at {tier} MB/s/TiB.",
                        "Ask for less, or choose a lower throughput tier (larger maximum).")
    return size


def lustre_choice(requested_gib: int, requested_mbps: int, region: str, price_at=None):
    """The cheapest cited Managed Lustre tier and size meeting the requested capacity and
    aggregate throughput (the 1000 tier at 9,000 GiB can beat 36,000 GiB at 250).
    `price_at(tier)` overrides the catalog (tests)."""
    from trainstack_components import catalog
    from trainstack_components.catalog.filesystems import choose

    def size_at(needed: int, tier: int):
        try:
            return lustre_capacity_gib(needed, tier)
        except SpecError:
            return None   # over this tier's maximum: another tier may hold it

    if price_at is None:
        def price_at(tier: int):
            return catalog.filesystem_price("gcp", "managed_lustre", tier, region)
    try:
        return choose("managed_lustre", requested_gib, requested_mbps, LUSTRE_TIERS, size_at,
                      price_at)
    except ValueError:
        # no tier holds it: the error of the tier the spec asked for names the limit
        lustre_capacity_gib(requested_gib, lustre_throughput(requested_mbps))
        raise


def lustre_note(requested_gib: int, requested_mbps: int) -> str:
    tier = lustre_throughput(requested_mbps)
    spec = LUSTRE_TIERS[tier]
    size = lustre_capacity_gib(requested_gib, tier)
    parts = []
    if tier != requested_mbps:
        parts.append(f"{requested_mbps} MB/s/TiB is not a Managed Lustre tier, so the next tier "
                     f"up, {tier} MB/s/TiB, is used.")
    steps = f"in steps of {spec.step:,} GiB"
    if spec.big_step != spec.step:
        steps += f" up to {spec.threshold:,} GiB, then {spec.big_step:,} GiB"
    why = ("already a valid size" if size == requested_gib else
           f"rounded up from {requested_gib:,} GiB")
    parts.append(f"{size:,} GiB ({why}): at {tier} MB/s/TiB Managed Lustre starts at "
                 f"{spec.minimum:,} GiB and grows {steps}, to at most {spec.maximum:,} GiB; "
                 "the tier is fixed at creation and capacity can only grow.")
    return " ".join(parts)


# Where Managed Lustre exists (catalog/gcp_lustre_zones.csv: the rows of its "Supported regions
# and zones" table, each with its source). Its create can take most of an hour: Cluster Toolkit
# modules/file-system/managed-lustre/main.tf (@38a3c02b) gives create, update and delete one
# hour each.
_LUSTRE_ZONES_FILE = Path(__file__).resolve().parents[1] / "catalog" / "gcp_lustre_zones.csv"
LUSTRE_TIMEOUT = "1h"
LUSTRE_LOCATIONS_URL = "https://docs.cloud.google.com/managed-lustre/docs/locations"


@lru_cache(maxsize=1)
def lustre_zones() -> dict[str, tuple[str, ...]]:
    with _LUSTRE_ZONES_FILE.open(newline="", encoding="utf-8") as handle:
        return {row["region"]: tuple(row["zones"].split(";")) for row in csv.DictReader(handle)}


# The values `trainstack init`'s cluster.yaml (and examples/cluster.yaml) ship in place of a
# real project and billing account: they render offline, and a deploy refuses them.
PLACEHOLDERS = {"project": "my-gcp-project", "billing_account": "000000-000000-000000"}
PLACEHOLDER_FIX = {
    "project": "Set clouds.gcp.project (and gcp:project in the stack file) to your project ID "
               "(`gcloud projects list`).",
    "billing_account": "Set clouds.gcp.billing_account to your billing account ID "
                       "(`gcloud billing accounts list`).",
}


def is_placeholder(field: str, value: str) -> bool:
    return value.strip() == PLACEHOLDERS[field] or (
        field == "billing_account" and set(value.replace("-", "")) == {"0"})


def check_lustre_zone(region: str, zone: str) -> Optional[str]:
    """Refuse a zone of a listed region that Managed Lustre does not serve; a region the data
    does not list is not refused (the stored table is incomplete) but noted."""
    zones = lustre_zones().get(region)
    if zones is None:
        return (f"{region} is not in the stored Managed Lustre locations "
                f"(components/catalog/gcp_lustre_zones.csv); check {LUSTRE_LOCATIONS_URL}")
    if zone not in zones:
        raise SpecError("clouds.gcp.zone",
                        f"{zone!r} has no Managed Lustre: in {region} it is offered in "
                        f"{', '.join(zones)} ({LUSTRE_LOCATIONS_URL}).",
                        "Pick one of those zones (the nodes and the file system share it).")
    return None


def lustre_instance_id(name: str, stack: str) -> str:
    """1-63 lowercase letters, digits and hyphens, starting with a letter, ending alphanumeric."""
    slug = re.sub(r"[^a-z0-9-]+", "-", _ascii_lower(stack)).strip("-")
    return f"{name}-{slug}"[:LABEL_MAX_CHARS].rstrip("-") if slug else name


def lustre_filesystem_name(name: str) -> str:
    """The Lustre fsname: at most eight letters and digits."""
    return re.sub(r"[^a-z0-9]", "", name)[:8]


def transfer_command(verb: str, instance_id: str, zone: str, project: str, bucket: str) -> str:
    """`gcloud lustre instances import-data|export-data` between the bucket root and `/`
    (cloud.google.com/sdk/gcloud/reference/lustre/instances/export-data)."""
    return (f"gcloud lustre instances {verb} {instance_id} --location={zone} --project={project} "
            f"--gcs-path-uri=gs://{bucket}/ --lustre-path=/")


# -- placement and identity ----------------------------------------------------------------------
# maxTopologyDistance applies to A4, A3 Ultra, A3 Mega, A3 High (8 GPUs) and H4D (Compute Engine
# "About workload policies in MIGs"); values BLOCK, CLUSTER, SUBBLOCK (pulumi_gcp 10.2.0).
TOPOLOGY_DISTANCE_TYPES = ("a4-highgpu-8g", "a3-ultragpu-8g", "a3-megagpu-8g", "a3-highgpu-8g")


def max_topology_distance(itype: InstanceType, choice: str) -> Optional[str]:
    return choice.upper() if itype.name in TOPOLOGY_DISTANCE_TYPES else None


# What rank discovery (GcpBoot.peer_addresses) calls: `instance-groups managed list-instances`
# (instanceGroupManagers.listManagedInstances, which the Compute IAM reference gives
# compute.instanceGroupManagers.get, while the command's own gcloud reference page says "The
# required permission to execute this command is compute.instanceGroupManagers.list": both, so a
# node finds its peers whichever gcloud checks) and `instances list` (compute.instances.list).
# Nothing more: roles/compute.viewer would let every node read every VM's metadata in the project.
RANK_DISCOVERY_PERMISSIONS = ("compute.instanceGroupManagers.get",
                              "compute.instanceGroupManagers.list", "compute.instances.list")
ROLE_ID_MAX = 64


def rank_role_id(name: str, stack: str) -> str:
    """A custom role ID: letters, digits, `_` and `.`, 3-64 characters, per cluster and stack."""
    base = re.sub(r"[^a-zA-Z0-9_.]", "_", f"trainstack_{name}_{stack}_ranks")
    if len(base) <= ROLE_ID_MAX:
        return base
    return f"{base[:ROLE_ID_MAX - 7]}_{hashlib.sha256(base.encode()).hexdigest()[:6]}"


# -- budget --------------------------------------------------------------------------------------
MAX_NOTIFICATION_CHANNELS = 5  # all_updates_rule.monitoring_notification_channels (SDK docstring)


def budget_thresholds(alert_percents: list[float], emails: list[str]) -> list[float]:
    """threshold_percent is 1.0-based (0.5 = 50 %, values above 1.0 allowed; cloud-map §9.4)."""
    if len(emails) > MAX_NOTIFICATION_CHANNELS:
        raise SpecError("budget.emails", f"has {len(emails)} addresses; a GCP budget notifies at "
                        f"most {MAX_NOTIFICATION_CHANNELS} monitoring channels.",
                        "Use a mailing list address instead of individual ones.")
    return [round(p / 100, 6) for p in sorted(alert_percents)]


def budget_amount(usd: float) -> tuple[str, int]:
    """Money as the API wants it: whole units as a string, the rest in nanos."""
    cents = round(usd * 100)
    return str(cents // 100), (cents % 100) * 10_000_000


def budget_display_name(name: str, stack: str) -> str:
    return f"{name}-{stack}-monthly"[:60]  # display_name: at most 60 characters


# -- capacity ------------------------------------------------------------------------------------
# How each capacity type becomes an instance template's scheduling (pulumi_gcp 10.2.0
# InstanceTemplateSchedulingArgs docstring; cloud.google.com/ai-hypercomputer/docs/consumption-
# models; compute/docs/instance-groups/about-resize-requests-mig).
RESERVATION_KEY = "compute.googleapis.com/reservation-name"
FLEX_MAX_HOURS = 168            # flex-start VMs run at most seven days (ResizeRequest: 604,800 s)
FLEX_MIN_SECONDS = 600          # requested_run_duration: at least ten minutes
_RESERVATION_NAME = re.compile(r"^(projects/[a-z][a-z0-9-]{4,28}[a-z0-9]/reservations/)?"
                               r"[a-z]([-a-z0-9]{0,61}[a-z0-9])?$")


@dataclass(frozen=True)
class CapacityPlan:
    provisioning_model: str          # STANDARD | SPOT | FLEX_START | RESERVATION_BOUND
    automatic_restart: bool
    preemptible: bool
    termination_action: Optional[str]
    max_run_seconds: Optional[int]   # the declared lifetime, where the model allows a limit
    reservation: Optional[str]       # SPECIFIC_RESERVATION affinity on this name
    resize_request: bool             # the group starts at 0 and one ResizeRequest adds every node
    workload_policy: bool            # HIGH_THROUGHPUT workload policy on the group


@overload
def lifetime_seconds(hours: float) -> int: ...
@overload
def lifetime_seconds(hours: None) -> None: ...
def lifetime_seconds(hours: Optional[float]) -> Optional[int]:
    return None if hours is None else max(1, round(hours * 3600))


def check_reservation_name(name: str) -> str:
    if not _RESERVATION_NAME.match(name):
        raise SpecError("clouds.gcp.capacity.reservation",
                        f"{name!r} is not a GCP reservation name.",
                        "Use the name `gcloud compute reservations list` shows (lowercase letters, "
                        "digits and hyphens), or projects/<project>/reservations/<name> for a "
                        "reservation shared from another project.")
    return name


def check_flex_lifetime(hours: Optional[float]) -> int:
    """Flex-start needs the declared lifetime as its run duration: 10 minutes to 7 days."""
    if hours is None:
        raise SpecError("max_hours", "is required with clouds.gcp.capacity.type flex_start: "
                        "flex-start VMs are granted for a fixed run duration and deleted after it.",
                        f"Add max_hours: <hours> (at most {FLEX_MAX_HOURS}) at the top level of "
                        "the spec, or use capacity type spot or reservation.")
    seconds = lifetime_seconds(hours)
    if seconds > FLEX_MAX_HOURS * 3600 or seconds < FLEX_MIN_SECONDS:
        raise SpecError("max_hours", f"{hours:g} h is outside flex-start's run duration of "
                        f"10 minutes to {FLEX_MAX_HOURS} h (seven days).",
                        f"Declare at most {FLEX_MAX_HOURS} hours, or use capacity type reservation "
                        "for longer runs.")
    return seconds


def capacity_plan(capacity_type: str, reservation: Optional[str], reservation_model: str,
                  lifetime_hours: Optional[float]) -> CapacityPlan:
    """Scheduling for one capacity type. Every model that takes a run limit gets the declared
    lifetime as max_run_duration with DELETE (a MIG deletes a VM at its limit); a reservation-bound
    VM ends with its reservation, which is paid for whole whether the VMs run or not."""
    limit = lifetime_seconds(lifetime_hours)
    if capacity_type == "spot":
        return CapacityPlan("SPOT", False, True, "DELETE", limit, None, False, True)
    if capacity_type == "flex_start":
        return CapacityPlan("FLEX_START", False, False, "DELETE",
                            check_flex_lifetime(lifetime_hours), None, True, True)
    if capacity_type == "reservation":
        name = check_reservation_name(reservation or "")
        if reservation_model == "RESERVATION_BOUND":
            # The reservation's own dense placement fixes where VMs go: no workload policy.
            return CapacityPlan("RESERVATION_BOUND", True, False, "DELETE", None, name, False,
                                False)
        return CapacityPlan("STANDARD", True, False, "DELETE" if limit else None, limit, name,
                            False, False)
    return CapacityPlan("STANDARD", True, False, "DELETE" if limit else None, limit, None, False,
                        True)


def spec_capacity_plan(spec: ClusterSpec, itype: InstanceType) -> CapacityPlan:
    """The spec's GCP capacity as scheduling: the type and reservation it declares, the
    reservation model the catalog records for the machine type, the declared lifetime."""
    cap = spec.capacity("gcp")
    fact = catalog.capacity_fact("gcp", itype.name)
    return capacity_plan(cap.type, cap.reservation, fact.reservation_model if fact else "STANDARD",
                         spec.lifetime_hours)
