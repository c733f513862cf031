"""Pure Azure planning: address plan, Managed Lustre sizes, capacity rules, budget, names, ops.

Facts and where they come from (cloud-map §3, §9.1, §9.3, §9.4, and Microsoft docs re-read
2026-12-01 for the parts marked there as unverified):
- InfiniBand joins only VMs of one scale set with singlePlacementGroup=true (100 VMs by default,
  300 by support request), and its RDMA network reserves 172.16.0.0/16 (azure-docs
  setup-infiniband.md).
- A Uniform scale set associated with a capacity reservation group must set
  singlePlacementGroup=false (learn.microsoft.com/azure/virtual-machines/
  capacity-reservation-associate-virtual-machine-scale-set, "Limitations"), so a reservation and
  InfiniBand exclude each other on one Uniform scale set.
- Managed Lustre SKUs, sizes and subnet sizes: azure-managed-lustre
  create-file-system-resource-manager.md and amlfs-prerequisites.md.
- The nodes' boot (Lustre client, NCCL on InfiniBand, ranks, health record): components/azure/
  boot.py on the shared components/boot steps.
"""
from __future__ import annotations

import datetime as dt
import hashlib
import ipaddress
import math
import re
from dataclasses import dataclass
from typing import Optional

from trainstack_components.boot.model import MOUNT_PATH
from trainstack_components.errors import SpecError
from trainstack_components.spec import CapacitySpec

ZONES = ("1", "2", "3")
IB_RESERVED = ipaddress.IPv4Network("172.16.0.0/16")   # the InfiniBand fabric's own addresses
VNET_CIDR = "10.40.0.0/16"
NODE_SUBNET = "10.40.0.0/22"        # 1,019 usable addresses: more than a scale set can hold
FS_SUBNET_BASE = "10.40.8.0"        # the filesystem subnet starts here, sized for its capacity
BASTION_SUBNET = "10.40.16.0/26"    # AzureBastionSubnet must be a /26 or larger
SINGLE_PLACEMENT_GROUP_LIMIT = 100  # default cap; support can raise it to 300 (cloud-map §9.3)
MAX_BUDGET_NOTIFICATIONS = 5        # consumption budgets (cloud-map §9.4)

# The image with the InfiniBand (DOCA-OFED), GPU driver, NCCL and the ND topology files.
# Pinned: `latest` would change the nodes under a running cluster on the next `pulumi up`. Check
# it still exists before deploying:
#   az vm image list --publisher microsoft-dsvm --offer ubuntu-hpc --sku 2204 --all -o table
# 22.04.2026072001 (azhpc-images tag ubuntu-hpc-2026072001): driver 580.126.16, CUDA 13.0; the
# 22.04.2024102301 pinned before carries driver 560.35.03, on which the default training image's
# CUDA 13 cannot run (components/catalog/node_images.csv, cuda_drivers.csv).
IMAGE = {"publisher": "microsoft-dsvm", "offer": "ubuntu-hpc", "sku": "2204",
         "version": "22.04.2026072001"}
ADMIN_USER = "azureuser"
OS_DISK_GIB = 256

# Built-in role "Storage Blob Data Contributor" (the same id in every tenant).
BLOB_DATA_CONTRIBUTOR = "ba92f5b4-2d11-453d-a403-e96b0029c9fe"
# Built-in "Reader": on the scale set only, so a node can list its peers (rank discovery).
READER = "acdd72a7-3385-48ef-bd42-f606fba81ae7"
# What Managed Lustre's service principal needs on the account for blob integration
# (amlfs-prerequisites.md): Storage Account Contributor and Storage Blob Data Contributor.
LUSTRE_PROVIDER_ROLES = {"account-contributor": "17d1049b-9a84-46fb-8f53-869881c3d3ab",
                         "blob-data-contributor": BLOB_DATA_CONTRIBUTOR}


# Managed Lustre reaches Azure services from its subnet (amlfs-prerequisites.md, "Subnet access
# and permissions"): an outbound rule, any port and protocol, VirtualNetwork -> the AzureCloud
# service tag. With default outbound access off, the subnet also needs the NAT gateway to get out.
AMLFS_OUTBOUND_TAG = "AzureCloud"
AMLFS_OUTBOUND_PRIORITY = 200
# Role assignments can take up to five minutes to propagate, and a file system whose blob access
# has not propagated fails to create (amlfs-prerequisites.md, "Access roles for blob
# integration"): the file system waits this long after its grants.
ROLE_PROPAGATION_WAIT_S = 300
# Scale-in: the VM gets a Terminate scheduled event and this long to approve it (the node's
# watcher unmounts Lustre, then approves); Azure allows 5 to 15 minutes (PT5M..PT15M).
TERMINATE_NOTICE = "PT10M"
# Soft delete for blobs and containers in the bucket account (days).
SOFT_DELETE_DAYS = 14


# -- location and capacity -------------------------------------------------------------------

def check_zone(zone: str, region: str) -> str:
    if zone not in ZONES:
        raise SpecError("clouds.azure.zone", f"{zone!r} is not an Azure availability zone.",
                        f"Azure zones are numbered \"1\", \"2\" or \"3\" within {region}; pick "
                        "the one your subscription has quota in (az vm list-skus --location "
                        f"{region} --size Standard_ND96 --output table).")
    return zone


def check_nodes(nodes: int) -> int:
    if nodes > SINGLE_PLACEMENT_GROUP_LIMIT:
        raise SpecError("nodes", f"{nodes} nodes is more than one Azure scale set holds with a "
                        f"single placement group ({SINGLE_PLACEMENT_GROUP_LIMIT} VMs by default), "
                        "and InfiniBand only joins VMs of a single placement group.",
                        f"Use at most {SINGLE_PLACEMENT_GROUP_LIMIT} nodes, or ask Azure support to "
                        "raise the scale set's placement-group limit (up to 300).")
    return nodes


CAPACITY_OFFERED = "on_demand, spot (Spot priority, evicted by deallocation) or reservation " \
                   "(an existing capacity reservation group, with interconnect: tcp)"

RESERVATION_ID = re.compile(
    r"^/subscriptions/[^/]+/resourceGroups/[^/]+/providers/Microsoft\.Compute/"
    r"capacityReservationGroups/[^/]+$", re.IGNORECASE)


def check_capacity(cap: CapacitySpec, interconnect: str) -> CapacitySpec:
    if cap.type in ("capacity_block", "flex_start"):
        raise SpecError("clouds.azure.capacity.type",
                        f"{cap.type!r} is not something Azure sells (capacity blocks are AWS's, "
                        "flex-start is Google Cloud's).", f"Azure offers {CAPACITY_OFFERED}.")
    if cap.type == "reservation":
        if not RESERVATION_ID.match(cap.reservation or ""):
            raise SpecError("clouds.azure.capacity.reservation",
                            f"{cap.reservation!r} is not a capacity reservation group id.",
                            "Give the group's full resource id: /subscriptions/<id>/resourceGroups/"
                            "<rg>/providers/Microsoft.Compute/capacityReservationGroups/<name> "
                            "(az capacity reservation group show ... --query id).")
        if interconnect != "tcp":
            raise SpecError("clouds.azure.capacity.type",
                            "'reservation' needs a scale set with singlePlacementGroup=false "
                            "(Azure's rule for Uniform scale sets in a capacity reservation "
                            "group), but InfiniBand joins only VMs of a single placement group, "
                            f"so it cannot serve interconnect: {interconnect}.",
                            "Set interconnect: tcp to run on the reservation without InfiniBand, "
                            "or use capacity type on_demand or spot.")
    return cap


# -- address plan ----------------------------------------------------------------------------

# Managed Lustre's subnet size by capacity (amlfs-prerequisites.md; cloud-map §9.1): the largest
# capacity in TiB each prefix length serves.
FS_SUBNET_PREFIX = ((16, 27), (40, 26), (92, 25), (196, 24), (400, 23))


def fs_subnet_prefix(capacity_tib: float) -> int:
    for up_to, prefix in FS_SUBNET_PREFIX:
        if capacity_tib <= up_to:
            return prefix
    raise SpecError("filesystem.capacity_gib",
                    f"{capacity_tib:g} TiB is more than the 400 TiB Azure documents a Managed "
                    "Lustre subnet size for.", "Ask for at most 400 TiB (409,600 GiB).")


@dataclass(frozen=True)
class AddressPlan:
    vnet: str
    nodes: str
    filesystem: str
    bastion: str


def address_plan(capacity_tib: float) -> AddressPlan:
    fs = f"{FS_SUBNET_BASE}/{fs_subnet_prefix(capacity_tib)}"
    plan = AddressPlan(VNET_CIDR, NODE_SUBNET, fs, BASTION_SUBNET)
    check_clear_of_infiniband(plan)
    return plan


def check_clear_of_infiniband(plan: AddressPlan) -> None:
    # IPv4 only: the InfiniBand reservation and every Azure HPC subnet here are IPv4
    vnet = ipaddress.IPv4Network(plan.vnet)
    if vnet.overlaps(IB_RESERVED):
        raise ValueError(f"{plan.vnet} overlaps {IB_RESERVED}, which InfiniBand reserves")
    subnets = [ipaddress.IPv4Network(c) for c in (plan.nodes, plan.filesystem, plan.bastion)]
    for i, a in enumerate(subnets):
        if not a.subnet_of(vnet) or any(a.overlaps(b) for b in subnets[i + 1:]):
            raise ValueError(f"subnet {a} is outside {vnet} or overlaps another subnet")


# -- Managed Lustre --------------------------------------------------------------------------

@dataclass(frozen=True)
class LustreSku:
    name: str
    mbps_per_tib: int
    step_tib: int      # the minimum equals the step for every SKU
    max_tib: int


LUSTRE_SKUS = (LustreSku("AMLFS-Durable-Premium-40", 40, 48, 768),
               LustreSku("AMLFS-Durable-Premium-125", 125, 16, 128),
               LustreSku("AMLFS-Durable-Premium-250", 250, 8, 128),
               LustreSku("AMLFS-Durable-Premium-500", 500, 4, 128))


def lustre_sku(mbps_per_tib: int) -> LustreSku:
    """The smallest Durable-Premium tier at or above the request (1000 -> 500, the top tier)."""
    return next((s for s in LUSTRE_SKUS if s.mbps_per_tib >= mbps_per_tib), LUSTRE_SKUS[-1])


def lustre_capacity_tib(capacity_gib: int, sku: LustreSku) -> int:
    tib = max(sku.step_tib, sku.step_tib * math.ceil(capacity_gib / 1024 / sku.step_tib))
    if tib > sku.max_tib:
        raise SpecError("filesystem.capacity_gib",
                        f"{capacity_gib:,} GiB rounds to {tib} TiB, more than {sku.name}'s "
                        f"{sku.max_tib} TiB maximum.",
                        "Ask for less, choose throughput_mbps_per_tib: 40 (up to 768 TiB), or "
                        "ask Azure support for a larger file system.")
    return tib


def lustre_note(capacity_gib: int, mbps_per_tib: int) -> str:
    sku = lustre_sku(mbps_per_tib)
    tib = lustre_capacity_tib(capacity_gib, sku)
    parts = []
    if sku.mbps_per_tib != mbps_per_tib:
        parts.append(f"{mbps_per_tib} MB/s/TiB is not a Managed Lustre tier: {sku.name}")
    if tib * 1024 != capacity_gib:
        parts.append(f"{capacity_gib:,} GiB rounded up to {tib} TiB ({sku.name} comes in steps "
                     f"of {sku.step_tib} TiB)")
    return "; ".join(parts) or "as requested"


MAINTENANCE_WINDOW = ("Sunday", "03:00")   # AMLFS requires one; weekly, in UTC


def mount_command(mgs_address: str, mount_point: str = MOUNT_PATH) -> str:
    """Managed Lustre's client mount (the file system is always named lustrefs)."""
    return f"sudo mount -t lustre -o noatime,flock {mgs_address}@tcp:/lustrefs {mount_point}"


# -- budget ----------------------------------------------------------------------------------

def budget_notifications(alert_percents: list[float], emails: list[str]) -> dict[str, dict]:
    """One notification per threshold, keyed so each key names its threshold."""
    if len(alert_percents) > MAX_BUDGET_NOTIFICATIONS:
        raise SpecError("budget.alert_percents",
                        f"has {len(alert_percents)} entries; an Azure budget holds at most "
                        f"{MAX_BUDGET_NOTIFICATIONS} notifications.",
                        "Keep the five thresholds that matter most (e.g. 50, 80, 100).")
    return {f"actual-{p:g}-percent".replace(".", "_"): {
        "threshold": float(p), "operator": "GreaterThanOrEqualTo", "threshold_type": "Actual",
        "contact_emails": list(emails)} for p in sorted(alert_percents)}


def budget_start(recorded_start: Optional[str] = None, today: Optional[dt.date] = None) -> str:
    """The first of the month the stack was first deployed in (Azure requires a budget to start
    on the first of a month). `recorded_start` is the stack's `trainstack:lifetimeStart`, which
    `trainstack up` writes once; without it the clock stands in and the budget ignores later
    changes to its period (AzureGpuCluster._budget), so a later run never moves the start."""
    if recorded_start:
        today = dt.datetime.fromisoformat(recorded_start.replace("Z", "+00:00")).date()
    today = today or dt.datetime.now(dt.timezone.utc).date()
    return f"{today.year:04d}-{today.month:02d}-01T00:00:00Z"


# -- names -----------------------------------------------------------------------------------

def storage_account_name(name: str, stack: str) -> str:
    """3-24 lowercase letters and digits, unique across Azure: a readable part plus a hash."""
    digest = hashlib.sha256(f"{name}/{stack}".encode()).hexdigest()[:8]
    readable = re.sub(r"[^a-z0-9]", "", name.lower())[:14]
    return f"ts{readable}{digest}"


def resource_group_name(name: str, stack: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.()-]", "-", f"trainstack-{name}-{stack}")[:90].rstrip(".")


def data_resource_group_name(name: str, stack: str) -> str:
    """The bucket's own group, outside the cluster's: deleting the cluster's group (a destroy,
    or by hand in the portal) deletes everything in it, the kept account included."""
    return re.sub(r"[^A-Za-z0-9_.()-]", "-", f"trainstack-{name}-{stack}-data")[:90].rstrip(".")


# -- operations ------------------------------------------------------------------------------

ARCHIVE_POLLS, ARCHIVE_POLL_S = 120, 30   # an hour for the archive to drain


def archive_command(filesystem: str, resource_group: str) -> str:
    """Managed Lustre's HSM archive of everything changed (`/`), then a wait until Azure reports
    it Completed; any other end (Failed, Canceled) or the timeout exits non-zero, so the reaper
    never destroys a stack whose data is not in the container (az CLI `amlfs` extension; the
    state is the REST API's hsm.archiveStatus[].status.state)."""
    where = f"--name {filesystem} --resource-group {resource_group}"
    return (f"az amlfs archive {where} --filesystem-path / && "
            f"for i in $(seq 1 {ARCHIVE_POLLS}); do "
            f"state=$(az amlfs show {where} --query 'hsm.archiveStatus[0].status.state' -o tsv); "
            'case "$state" in Completed) exit 0 ;; Failed|Canceled|Cancelling) exit 1 ;; esac; '
            f"sleep {ARCHIVE_POLL_S}; done; exit 1")


def abfs_url(container: str, account: str, path: str = "") -> str:
    """The fsspec (adlfs) URL of a path in the cluster's container."""
    base = f"abfs://{container}@{account}.dfs.core.windows.net"
    return f"{base}/{path}" if path else base


def computer_name_prefix(name: str) -> str:
    """Linux host names of the scale set's VMs: the prefix plus a 6-character instance suffix."""
    return (re.sub(r"[^a-z0-9-]", "-", name.lower()).strip("-")[:20] or "node") + "-"
