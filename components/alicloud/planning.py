"""Pure Alibaba Cloud planning: placement, capacity, CPFS sizes, the budget's release time, the
node addresses and the RAM policy. Plain functions of the spec and the catalog, tested without
mocks (tests/alicloud/test_alicloud_planning.py).
"""
from __future__ import annotations

import ipaddress
import json
import math
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING, Optional

from trainstack_components.catalog import InstanceType
from trainstack_components.errors import SpecError
from trainstack_components.tags import OWN_TAGS

if TYPE_CHECKING:
    from trainstack_components.spec import ClusterSpec

# -- placement ---------------------------------------------------------------------------------
# A LowLatency deployment set keeps every instance in one zone, at most 20 per zone (cloud-map
# §9.3: Alibaba ECS "Deployment set", alibabacloud.com/help/zh/doc-detail/91258.htm).
LOW_LATENCY_MAX_NODES = 20
# SCC types (sccgn7ex) reach their RoCE network only inside an HPC cluster (cloud-map §4.2, §9.2).
HPC_CLUSTER_FABRICS = ("roce",)
# No per-HPC-cluster instance limit is documented (ECS CreateHpcCluster); the cluster's CPFS is:
# at most 2,000 compute nodes per file system (CPFS "Limits", cloud-map §9.1). The node address
# plan below holds that many.
HPC_CLUSTER_MAX_NODES = 2000


@dataclass(frozen=True)
class Placement:
    kind: str    # deployment_set | hpc_cluster
    why: str


def placement(itype: InstanceType, nodes: int, spot: bool = False) -> Placement:
    if itype.fabric in HPC_CLUSTER_FABRICS:
        if nodes > HPC_CLUSTER_MAX_NODES:
            raise SpecError("nodes", f"{nodes} nodes is more than one CPFS file system serves "
                            f"({HPC_CLUSTER_MAX_NODES} compute nodes, CPFS limits).",
                            f"Use at most {HPC_CLUSTER_MAX_NODES} nodes on alicloud.")
        return Placement("hpc_cluster", f"{itype.name} reaches its SCC RoCE network only inside "
                         "an HPC cluster")
    if spot:
        raise SpecError("clouds.alicloud.capacity.type",
                        f"spot cannot go into the LowLatency deployment set that keeps "
                        f"{itype.name}'s eRDMA nodes close together: Alibaba Cloud creates no "
                        "preemptible instance in a deployment set (ECS \"Deployment set\", "
                        "limits).",
                        "Use capacity on_demand or reservation on alicloud, or set interconnect: "
                        "tcp with a type that does not need the set.")
    if nodes > LOW_LATENCY_MAX_NODES:
        raise SpecError("nodes", f"{nodes} nodes do not fit one LowLatency deployment set: "
                        f"Alibaba Cloud allows at most {LOW_LATENCY_MAX_NODES} instances of a "
                        "LowLatency set in one zone, and eRDMA needs the nodes close together.",
                        f"Use at most {LOW_LATENCY_MAX_NODES} nodes on alicloud (larger 8-GPU "
                        "nodes, or split the job), or pick another cloud for this size.")
    return Placement("deployment_set", "LowLatency deployment set: all nodes in one zone, close "
                     "together for eRDMA")


# -- network -----------------------------------------------------------------------------------
VPC_CIDR = "10.44.0.0/16"
NODE_CIDR = "10.44.0.0/20"   # the nodes, their second ERIs, the NAT gateway and the NFS export
# CPFS lives in its own VPC: the NFS protocol service's export must be in a VPC whose CIDR does
# not overlap the file system's (CPFS API CreateProtocolMountTarget, "Others"); the export then
# sits in the nodes' vSwitch.
FS_VPC_CIDR = "10.45.0.0/16"
FS_CIDR = "10.45.0.0/20"     # CPFS's mount target (one address per 1.2 TiB) and protocol service
# A vSwitch keeps its first and its last three addresses (VPC "Plan networks"). Node i gets a
# fixed address at the top of the vSwitch, so rank 0's address is known up front; everything the
# cloud assigns (NAT, the export's up-to-32 addresses, each node's second ERI) comes from the
# bottom half, which the top half's fixed addresses never reach.
VSWITCH_RESERVED_TOP = 3
FIXED_HALF = 2


def max_nodes(cidr: str = NODE_CIDR) -> int:
    """How many fixed node addresses the top half of the vSwitch holds."""
    return ipaddress.ip_network(cidr).num_addresses // FIXED_HALF - VSWITCH_RESERVED_TOP - 1


def node_ip(index: int, nodes: int, cidr: str = NODE_CIDR) -> str:
    """Node i's fixed private address: the `nodes` addresses just below the vSwitch's reserved
    top, computed from the subnet's size (every node knows rank 0's address at boot)."""
    if not 0 <= index < nodes <= max_nodes(cidr):
        raise ValueError(f"node {index} of {nodes}: the {cidr} vSwitch holds {max_nodes(cidr)} "
                         "fixed node addresses")
    net = ipaddress.ip_network(cidr)
    last_usable = net.broadcast_address - VSWITCH_RESERVED_TOP
    return str(last_usable - nodes + 1 + index)


def check_networks_apart() -> None:
    """The file system's VPC and the nodes' (the export's) must not overlap."""
    if ipaddress.ip_network(VPC_CIDR).overlaps(ipaddress.ip_network(FS_VPC_CIDR)):
        raise ValueError(f"{VPC_CIDR} overlaps the file system's {FS_VPC_CIDR}")


def eri_layout(itype: InstanceType, use_rdma: bool) -> tuple[bool, Optional[int]]:
    """(primary ENI is an ERI, network card index of a second ERI or None).

    `NetworkInterfaceTrafficMode=HighPerformance` makes an ENI an Elastic RDMA Interface (cloud-map
    §9.2). The primary ENI sits on network card 0; a type with two eRDMA-capable cards (ebmgn7ex,
    ebmgn8v: 2 x 80 / 2 x 85 Gbit/s) gets its second ERI as the instance's one secondary ENI on
    card 1, which ecs.Instance `network_interfaces` (a single object in pulumi-alicloud 4.0) allows.
    """
    if not use_rdma or itype.fabric != "erdma":
        return False, None
    return True, (1 if itype.rdma_nics >= 2 else None)


# -- capacity ----------------------------------------------------------------------------------
SPOT_STRATEGY = "SpotAsPriceGo"  # pay the market price, up to the pay-as-you-go price
OFFERED_CAPACITY = ("on_demand", "spot", "reservation")


@dataclass(frozen=True)
class CapacityArgs:
    spot_strategy: str                        # NoSpot | SpotAsPriceGo
    private_pool_match: Optional[str]         # Target when a reservation is named
    private_pool_id: Optional[str]


def capacity_args(capacity_type: str, reservation: Optional[str]) -> CapacityArgs:
    if capacity_type == "on_demand":
        return CapacityArgs("NoSpot", None, None)
    if capacity_type == "spot":
        return CapacityArgs(SPOT_STRATEGY, None, None)
    if capacity_type == "reservation":
        # An elasticity assurance or capacity reservation is used through its private pool id
        # (RunInstances PrivatePoolOptions.MatchCriteria=Target, .Id=<eap-/crp- id>).
        return CapacityArgs("NoSpot", "Target", reservation)
    raise SpecError("clouds.alicloud.capacity.type",
                    f"{capacity_type!r} is not something Alibaba Cloud sells for ECS.",
                    "Alibaba Cloud offers on_demand (pay-as-you-go), spot (preemptible, spot "
                    "strategy) and reservation (an elasticity assurance or capacity reservation: "
                    "give its private pool id as `reservation:`).")


# -- CPFS --------------------------------------------------------------------------------------
# CPFS (general-purpose) regions: where the CPFS API has an endpoint (help.aliyun.com/zh/cpfs/
# developer-reference/integration-overview, "服务接入点", read 2026-12-01). Outside them the
# cluster cannot get its file system.
CPFS_REGIONS = ("cn-qingdao", "cn-beijing", "cn-zhangjiakou", "cn-huhehaote", "cn-wulanchabu",
                "cn-hangzhou", "cn-shanghai", "cn-shenzhen", "cn-heyuan", "cn-chengdu",
                "ap-southeast-1")


def check_cpfs_region(region: str) -> str:
    if region not in CPFS_REGIONS:
        raise SpecError("clouds.alicloud.region",
                        f"{region!r} has no CPFS (general-purpose), the cluster's file system.",
                        f"Use a region with CPFS: {', '.join(CPFS_REGIONS)}.")
    return region


CPFS_STEP_GIB = 1200           # capacity grows in 1,200 GiB steps (cloud-map §9.1, confirmed)
CPFS_MAX_GIB = 1024 * 1024     # 1 PiB
DATAFLOW_THROUGHPUTS = (600, 1200, 1500)  # MB/s, CreateDataFlow (cloud-map §9.1)


def cpfs_capacity_gib(requested: int) -> int:
    size = CPFS_STEP_GIB * max(1, math.ceil(requested / CPFS_STEP_GIB))
    if size > CPFS_MAX_GIB:
        raise SpecError("filesystem.capacity_gib", f"{requested} GiB is above CPFS's 1 PiB.",
                        "Ask for at most 1048576 GiB.")
    return size


def cpfs_storage_type(throughput_mbps_per_tib: int) -> str:
    """advance_100 or advance_200 (baseline MB/s per TiB); 200 is the top general-purpose tier."""
    return "advance_100" if throughput_mbps_per_tib <= 100 else "advance_200"


def cpfs_tier_mbps_per_tib(storage_type: str) -> int:
    return 100 if storage_type == "advance_100" else 200


def cpfs_throughput_mbps(capacity_gib: int, storage_type: str) -> float:
    """min{0.1 x GiB, 30,000} (advance_100) or min{0.2 x GiB, 45,000} MB/s (advance_200)."""
    per_gib, cap = (0.1, 30000) if storage_type == "advance_100" else (0.2, 45000)
    return min(per_gib * capacity_gib, cap)


def dataflow_throughput(capacity_gib: int, storage_type: str) -> int:
    """The largest data-flow tier strictly below the file system's own bandwidth: "the
    transmission bandwidth of data flow must be less than the IO bandwidth of the file system"
    (pulumi-alicloud nas.DataFlow `throughput`). 4,800 GiB of advance_200 moves 960 MB/s: 600."""
    fs = cpfs_throughput_mbps(capacity_gib, storage_type)
    below = [t for t in DATAFLOW_THROUGHPUTS if t < fs]
    if not below:
        per_gib = 0.1 if storage_type == "advance_100" else 0.2
        least = CPFS_STEP_GIB * (math.floor(min(DATAFLOW_THROUGHPUTS) / per_gib / CPFS_STEP_GIB)
                                 + 1)
        raise SpecError("filesystem.capacity_gib",
                        f"{capacity_gib:,} GiB of CPFS {storage_type} moves {fs:g} MB/s, and its "
                        f"OSS data flow needs more than its smallest tier, "
                        f"{min(DATAFLOW_THROUGHPUTS)} MB/s (a data flow must stay below the file "
                        "system's bandwidth).",
                        f"Ask for at least {least:,} GiB on alicloud.")
    return max(below)


# -- budget: the release time ------------------------------------------------------------------
# pulumi-alicloud has no budget resource (cloud-map §4.2). What keeps compute inside the budget is
# ECS auto-release: every node is released at a fixed time. ECS accepts a time at least 30 minutes
# ahead and less than 3 years away (the ecs.Instance `auto_release_time` docstring).
MIN_RELEASE = timedelta(minutes=30)
MAX_RELEASE = timedelta(days=3 * 365 - 1)


@dataclass(frozen=True)
class Release:
    hours: float
    bound_by: str     # budget | lifetime
    at: str           # RFC3339 UTC, whole seconds, as ECS wants it
    spent: bool = False   # the release time has passed (or is too close): declare no nodes


@dataclass(frozen=True)
class StorageMonth:
    """What CPFS and the OSS bucket bill in a month. Neither is released with the nodes
    (docs/billing-after-stop.md): they bill until `destroy`, so the budget pays for them first
    and buys node hours with the rest."""
    usd: float
    what: str


def storage_month(spec: "ClusterSpec", region: str) -> StorageMonth:
    """CPFS at the catalog's cited advance_200 price (the only CPFS tier it prices: an upper
    bound for advance_100) and the bucket at the OSS price, both converted at the catalog's CNY
    rate. The bucket holds the data-size model's figure (the `trainstack:data-mb` tag), without
    a workload the filesystem's capacity: the policy pack's estimate sizes it the same way. A
    missing price raises: the release time could not keep the month inside the budget."""
    from trainstack_components.catalog import GIB_PER_GB, run_prices
    from trainstack_components.catalog.gpu_models import cny_per_usd
    from trainstack_components.catalog.data_sizes import data_mb_tag
    capacity_gib = cpfs_capacity_gib(spec.filesystem.capacity_gib)
    wl = spec.workload
    data_mb = data_mb_tag(wl.model_params, wl.train_tokens, wl.method) if wl else None
    data_gb = int(data_mb) / 1000 if data_mb else capacity_gib / GIB_PER_GB
    rate = cny_per_usd()
    _, fs = run_prices.filesystem_price("alicloud", ["alicloud:nas/fileSystem:FileSystem"],
                                        200, region, rate)
    oss_price = run_prices.bucket_price("alicloud", region, rate)
    for price in (fs, oss_price):
        if price.value is None:
            raise SpecError("budget.monthly_usd", f"the {price.what} has no cited price "
                            f"({price.note}), so the release time cannot keep the month inside "
                            "the budget.", "Report it: the catalog should price CPFS and OSS.")
    assert fs.value is not None and oss_price.value is not None
    fs_usd, oss_usd = capacity_gib * fs.value, data_gb * oss_price.value
    return StorageMonth(fs_usd + oss_usd,
                        f"{capacity_gib:,} GiB CPFS x {fs.value:.4f} + {data_gb:,.0f} GB OSS x "
                        f"{oss_price.value:.4f} USD a month = {fs_usd + oss_usd:,.2f} USD")


def release_hours(monthly_usd: float, usd_per_hour: float,
                  lifetime_hours: Optional[float]) -> tuple[float, str]:
    """Hours of compute `monthly_usd` (the budget less the storage month) buys at the cluster's
    ON-DEMAND price (SpotAsPriceGo bills up to that), or the declared lifetime when shorter.
    Whole hours, rounded down (from one hour up): the policy pack counts a started hour whole,
    so 200.5 bought hours would be priced as 201, over the budget."""
    budget_hours = monthly_usd / usd_per_hour
    if budget_hours >= 1:
        budget_hours = float(math.floor(budget_hours))
    if lifetime_hours is not None and lifetime_hours < budget_hours:
        return lifetime_hours, "lifetime"
    return budget_hours, "budget"


def release(monthly_usd: float, ondemand_usd_per_hour: float, lifetime_hours: Optional[float],
            start: datetime, now: Optional[datetime] = None,
            storage: Optional[StorageMonth] = None) -> Release:
    """The release time counted from `start` (the stack's first deploy, as recorded; the clock
    stands in before that). Past it, or less than ECS's 30 minutes ahead, `spent` says so and
    the program declares no nodes: a later `up` never brings nodes back with a fresh time.
    `storage` (what CPFS and OSS bill in the month) comes out of the budget first."""
    now = now or start
    left = monthly_usd - (storage.usd if storage else 0.0)
    if left <= 0:
        assert storage is not None
        raise SpecError("budget.monthly_usd",
                        f"{monthly_usd:,.0f} USD does not cover the storage, which bills for the "
                        f"whole month whatever the nodes do ({storage.what}), so no node hour "
                        "is left.", "Raise the budget or ask for a smaller filesystem.")
    hours, bound = release_hours(left, ondemand_usd_per_hour, lifetime_hours)
    span = timedelta(hours=hours)
    if span < MIN_RELEASE:
        raise SpecError("budget.monthly_usd" if bound == "budget" else "max_hours",
                        f"buys {hours * 60:.0f} minutes of this cluster; ECS auto-release must be "
                        "at least 30 minutes ahead.", "Raise it, or use fewer nodes.")
    span = min(span, MAX_RELEASE)
    at = (start.astimezone(timezone.utc) + span).replace(microsecond=0)
    # Rounded down to the second: the release never comes later than the budget allows.
    return Release(hours, bound, at.strftime("%Y-%m-%dT%H:%M:%SZ"),
                   spent=at - now.astimezone(timezone.utc) < MIN_RELEASE)


def utc_now() -> datetime:
    """The deploy-time clock (tests replace it). Read once, when the nodes are first created:
    the nodes ignore later changes to their release time, so `pulumi up` never extends it."""
    return datetime.now(timezone.utc)


def budget_note(rel: Release, usd_per_hour: float, storage: Optional[StorageMonth] = None) -> str:
    if rel.spent:
        return (f"the release time {rel.at} has passed: the budget (or lifetime) counted from the "
                "first deploy is spent, so no node is declared. CPFS and OSS stay and keep "
                "billing; `trainstack destroy` removes the rest.")
    first = f", after the storage month ({storage.what})" if storage else ""
    cause = (f"the spec's budget.monthly_usd at the on-demand catalog price{first}"
             if rel.bound_by == "budget" else "the declared lifetime (max_hours)")
    return (f"Alibaba Cloud has no budget resource in pulumi-alicloud: trainstack releases every "
            f"node at {rel.at} ({rel.hours:,.1f} h from first deploy, set by {cause}, "
            f"{usd_per_hour:,.2f} USD/h on demand; spot bills up to that). Released nodes are "
            "gone, with their disks; CPFS and OSS are not released and keep billing. "
            "CloudMonitor alarms mail budget.emails when the GPUs sit idle. There is no alarm on "
            "spend itself.")


# -- idle alarm --------------------------------------------------------------------------------
# CloudMonitor's GPU metric for an instance (namespace acs_ecs_dashboard; needs the CloudMonitor
# agent, which Alibaba's public images ship).
GPU_METRIC_NAMESPACE = "acs_ecs_dashboard"
GPU_UTILIZATION_METRIC = "instance_gpu_gpu_usedutilization"
IDLE_GPU_PERCENT = 5
ALARM_PERIOD_S = 300


def idle_alarm_times(teardown_after_minutes: int) -> int:
    """How many 5-minute periods below the threshold make the GPUs idle."""
    return max(1, math.ceil(teardown_after_minutes * 60 / ALARM_PERIOD_S))


# -- identity ----------------------------------------------------------------------------------

def ecs_trust_policy() -> str:
    return json.dumps({"Version": "1", "Statement": [{
        "Action": "sts:AssumeRole", "Effect": "Allow",
        "Principal": {"Service": ["ecs.aliyuncs.com"]}}]}, sort_keys=True)


def bucket_policy(bucket: str, filesystem_id: str = "") -> str:
    """Read and write the cluster's bucket (the health record, heartbeats), and look up the
    cluster's own CPFS export (its mount address is only known to the API), nothing else."""
    nas = ([{"Effect": "Allow", "Action": ["nas:DescribeProtocolMountTarget"],
             "Resource": [f"acs:nas:*:*:filesystem/{filesystem_id}"]}] if filesystem_id else [])
    return json.dumps({"Version": "1", "Statement": nas + [
        {"Effect": "Allow", "Action": ["oss:ListObjects", "oss:GetBucketInfo",
                                       "oss:GetBucketLocation"],
         "Resource": [f"acs:oss:*:*:{bucket}"]},
        {"Effect": "Allow", "Action": ["oss:GetObject", "oss:PutObject", "oss:DeleteObject",
                                       "oss:AbortMultipartUpload", "oss:ListParts"],
         "Resource": [f"acs:oss:*:*:{bucket}/*"]}]}, sort_keys=True)


# -- tags --------------------------------------------------------------------------------------
# At most 20 tags per resource (Alibaba VPC TagResources, alibabacloud.com/help/en/vpc/api-
# tagresources); keys and values at most 128 characters, never starting with `aliyun`, `acs:`,
# `http://` or `https://` (the pulumi-alicloud `tags` docstrings, cloud-map §4.2).
MAX_TAGS = 20
TAG_MAX_CHARS = 128
_RESERVED_PREFIXES = ("aliyun", "acs:", "http://", "https://")
BUCKET_EXTRA_TAGS = 2  # the bucket also carries cpfs-dataflow and the retain marker


def check_tags(tags: dict[str, str]) -> None:
    total = len(tags) + BUCKET_EXTRA_TAGS
    if total > MAX_TAGS:
        own = total - len([k for k in tags if k not in OWN_TAGS])
        raise SpecError("tags", f"become {total} tags on the bucket with trainstack's own; Alibaba "
                        f"Cloud allows at most {MAX_TAGS} per resource.",
                        f"Keep at most {MAX_TAGS - own} tags.")
    for key, value in tags.items():
        for what, text in (("key", key), ("value", value)):
            if len(text) > TAG_MAX_CHARS or text.lower().startswith(_RESERVED_PREFIXES):
                raise SpecError(f"tags.{key}", f"the tag {what} {text!r} is not allowed on Alibaba "
                                f"Cloud (at most {TAG_MAX_CHARS} characters, not starting with "
                                "aliyun, acs:, http:// or https://).", "Rename or shorten it.")


# -- names -------------------------------------------------------------------------------------

def node_name(cluster: str, index: int) -> str:
    return f"{cluster}-node-{index}"


def ram_name(cluster: str, stack: str, what: str) -> str:
    """RAM role/policy names: letters, digits, `-`, at most 64 characters, unique per account."""
    name = "".join(c if c.isalnum() or c == "-" else "-" for c in f"{cluster}-{stack}-{what}")
    return name[:64]
