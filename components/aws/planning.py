"""Pure AWS planning: EFA interface layout, FSx sizes, budget notifications. Tested without mocks."""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Optional

from trainstack_components import catalog
from trainstack_components.catalog import InstanceType
from trainstack_components.catalog.filesystems import FilesystemChoice, choose
from trainstack_components.errors import SpecError

FSX_THROUGHPUT_TIERS = (125, 250, 500, 1000)  # PERSISTENT_2 SSD, MB/s/TiB (cloud-map §9.1)
MAX_BUDGET_NOTIFICATIONS = 5                   # AWS Budgets CreateNotification limit (§9.4)
MAX_BUDGET_EMAILS = 10


# Launch-template inputs kept from the first deploy when the AMI came from the SSM parameter.
PINNED_IMAGE_FIELDS = ("imageId",)

# Keys the node agents rewrite (components/boot steps and the idle agent; the reaper reads them
# by these names): their noncurrent versions expire after a day (S3 lifecycle, versioned bucket).
AGENT_PREFIXES = ("heartbeats/", "status/")
NONCURRENT_DAYS = 1
# The bucket prefix FSx links to the filesystem (auto-import and auto-export): data only, never
# the agents' prefixes above. /lustre/<path> on the nodes is s3://<bucket>/data/<path>.
FSX_LINKED_PREFIX = "data/"
# The filesystem path linked to it: the root, so every file on /lustre is exported (by the
# association's auto-export and by the reaper's export task before a destroy). "/" is then the
# only association the filesystem may have ("If you specify only a forward slash (/) as the file
# system path, you can link only one data repository to the file system": FSx API Reference,
# DataRepositoryAssociation, FileSystemPath).
FSX_LINKED_PATH = "/"


@dataclass(frozen=True)
class Nic:
    network_card_index: int
    device_index: int
    interface_type: str  # interface (ENA) | efa-only


def efa_layout(itype: InstanceType, use_rdma: bool) -> list[Nic]:
    """The launch-template NICs AWS now recommends (cloud-map §9.2).

    Card 0 device 0 is the ENA primary (an EFA-only NIC cannot be primary); card 0 device 1 is
    EFA-only when card 0 has EFA; every other network card carries one EFA-only NIC on device 0.
    The result has exactly `itype.rdma_nics` EFA interfaces.
    """
    nics = [Nic(0, 0, "interface")]
    if not use_rdma or itype.rdma_nics == 0:
        return nics
    cards = itype.network_cards or itype.rdma_nics
    card0_has_efa = cards == itype.rdma_nics  # p6-b300: 17 cards, card 0 is ENA only
    if card0_has_efa:
        nics.append(Nic(0, 1, "efa-only"))
    nics.extend(Nic(card, 0, "efa-only") for card in range(1, cards))
    return nics


def fsx_capacity_gib(requested: int) -> int:
    """PERSISTENT_2 SSD sizes: 1200, 2400, then multiples of 2400 GiB (cloud-map §9.1)."""
    if requested <= 1200:
        return 1200
    return 2400 * math.ceil(requested / 2400)


# EFA-enabled PERSISTENT_2 file systems come in multiples of a per-tier step (FSx for Lustre
# User Guide, "Increasing storage capacity": 38,400 GiB at 125, 19,200 at 250, 9,600 at 500 and
# 4,800 GiB at 1000 MB/s/TiB). EFA is creation-time only and needs a metadata configuration.
FSX_EFA_STEP_GIB = {125: 38_400, 250: 19_200, 500: 9_600, 1000: 4_800}


def fsx_efa_capacity_gib(requested: int, tier: int) -> int:
    step = FSX_EFA_STEP_GIB[tier]
    return step * max(1, math.ceil(requested / step))


# FSx for Lustre User Guide, "Configuring EFA clients" and "Working with EFA-enabled file systems"
# (prerequisites): a Lustre client reaches the file system over EFA only from a Nitro v4 (or
# later) type that supports EFA, trn2 excluded. Of the catalog's EFA types p4d and p4de are
# Nitro v3: an EFA-enabled file system would only ever be read over TCP from them, so they get
# the plain (cheaper) one. The families are the ones AWS's configure-efa-fsx-lustre-client names.
FSX_EFA_CLIENT_FAMILIES = frozenset({"p5", "p5e", "p5en", "p6-b200", "p6-b300", "p6e-gb200"})
# How many EFA interfaces AWS's client script gives LNet per type (the guide's "Step 4: EFA
# interfaces" table); other types: 2 with several network cards, else 1. Each one counts
# against the file system's limit of 1024 EFA connections across all clients.
FSX_EFA_CLIENT_INTERFACES = {"p5.48xlarge": 8, "p5e.48xlarge": 8, "p5en.48xlarge": 8,
                             "p6-b200.48xlarge": 8, "p6e-gb200.36xlarge": 8,
                             "p6-b300.48xlarge": 16}
FSX_EFA_CONNECTIONS = 1024


def fsx_efa_client(itype: InstanceType) -> bool:
    """Whether AWS documents this type as a Lustre client that can use an EFA-enabled FSx."""
    return itype.fabric == "efa" and itype.name.split(".")[0] in FSX_EFA_CLIENT_FAMILIES


def fsx_efa_enabled(itype: InstanceType, use_rdma: bool) -> bool:
    """EFA for the file system when the nodes talk EFA and AWS lets them reach FSx over it
    (PERSISTENT_2 SSD only, set at creation)."""
    return use_rdma and itype.rdma_nics > 0 and fsx_efa_client(itype)


def fsx_efa_interfaces(itype: InstanceType, nodes: int) -> int:
    """EFA interfaces per node for LNet: AWS's per-type default, fewer when the whole group
    would pass the file system's 1024 EFA connections (never fewer than one)."""
    default = FSX_EFA_CLIENT_INTERFACES.get(itype.name, 2 if itype.network_cards > 1 else 1)
    return max(1, min(default, itype.rdma_nics, FSX_EFA_CONNECTIONS // max(nodes, 1)))


def fsx_choice(requested_gib: int, requested_mbps_per_tib: int, region: str,
               efa: bool = False, price_at=None) -> FilesystemChoice:
    """The cheapest cited PERSISTENT_2 tier and size meeting the requested capacity and
    aggregate throughput; EFA-enabled sizes when `efa`. `price_at(tier)` overrides the catalog."""
    def size_at(needed: int, tier: int) -> int:
        return fsx_efa_capacity_gib(needed, tier) if efa else fsx_capacity_gib(needed)

    if price_at is None:
        def price_at(tier: int):
            return catalog.filesystem_price("aws", "fsx_lustre_persistent2", tier, region)
    choice = choose("fsx_lustre_persistent2", requested_gib, requested_mbps_per_tib,
                    FSX_THROUGHPUT_TIERS, size_at, price_at)
    if efa:
        choice = FilesystemChoice(**{**choice.__dict__, "note": choice.note + (
            "; EFA-enabled (sizes in the per-tier EFA steps; no separate EFA price is cited, "
            "the tier's storage price is used)")})
    return choice


@dataclass(frozen=True)
class FsxPlan:
    choice: FilesystemChoice
    efa: bool


def fsx_plan(itype: InstanceType, use_rdma: bool, requested_gib: int,
             requested_mbps_per_tib: int, region: str, asked: Optional[bool] = None,
             price_at=None) -> FsxPlan:
    """EFA on the file system only when the spec asks for it (`clouds.aws.fsx_efa: true`) or,
    left unset, when it is the cheapest way to the requested capacity and throughput: EFA sizes
    come in per-tier steps (4,800 GiB at 1000 up to 38,400 GiB at 125 MB/s/TiB), so being an
    EFA client alone never decides it."""
    client = fsx_efa_enabled(itype, use_rdma)
    plain = fsx_choice(requested_gib, requested_mbps_per_tib, region, price_at=price_at)
    if asked and not client:
        raise SpecError("clouds.aws.fsx_efa",
                        f"is true, but {itype.name} cannot reach FSx for Lustre over EFA "
                        "(AWS supports EFA clients on Nitro v4 EFA types such as p5, p5en and "
                        "p6, with interconnect rdma or fastest).",
                        "Remove clouds.aws.fsx_efa, or choose an EFA client type.")
    if not client or asked is False:
        return FsxPlan(plain, False)
    efa = fsx_choice(requested_gib, requested_mbps_per_tib, region, efa=True, price_at=price_at)
    if asked:
        return FsxPlan(_noted(efa, "EFA asked for in the spec (clouds.aws.fsx_efa)"), True)
    cheaper = (efa.monthly_usd is not None and plain.monthly_usd is not None
               and efa.monthly_usd <= plain.monthly_usd)
    if cheaper:
        return FsxPlan(_noted(efa, f"EFA chosen: {efa.monthly_usd:,.2f} USD/month is no more "
                                   f"than the plain file system's {plain.monthly_usd:,.2f}"), True)
    why = (f"not EFA-enabled: the cheapest EFA size costs {efa.monthly_usd:,.2f} USD/month"
           if efa.monthly_usd is not None else "not EFA-enabled: the EFA sizes are unpriced")
    return FsxPlan(_noted(plain, why + "; set clouds.aws.fsx_efa: true to ask for it"), False)


def _noted(choice: FilesystemChoice, note: str) -> FilesystemChoice:
    return FilesystemChoice(**{**choice.__dict__, "note": f"{choice.note}; {note}"})


def budget_thresholds(alert_percents: list[float], emails: list[str]) -> list[float]:
    if len(alert_percents) > MAX_BUDGET_NOTIFICATIONS:
        raise SpecError("budget.alert_percents",
                        f"has {len(alert_percents)} entries; AWS Budgets allows at most "
                        f"{MAX_BUDGET_NOTIFICATIONS} notifications per budget.",
                        "Keep the five thresholds that matter most (e.g. 50, 80, 100).")
    if len(emails) > MAX_BUDGET_EMAILS:
        raise SpecError("budget.emails", f"has {len(emails)} addresses; AWS allows at most "
                        f"{MAX_BUDGET_EMAILS} email subscribers per notification.",
                        "Use a mailing list address instead of individual ones.")
    return sorted(alert_percents)


def budget_name(name: str, stack: str) -> str:
    """The budget's name, known before it exists: the stop topic's policy names its ARN."""
    return f"{name}-{stack}-monthly"


def cost_filter_value(tag_key: str, tag_value: str) -> str:
    """Budgets' TagKeyValue format for user tags; without `user:` the budget matches nothing."""
    return f"user:{tag_key}${tag_value}"


# -- capacity ------------------------------------------------------------------------------------
# On-Demand Capacity Reservation and Capacity Block IDs: `cr-` and 17 hex digits (older ones 8).
_RESERVATION_ID = re.compile(r"^cr-(?:[0-9a-f]{8}|[0-9a-f]{17})$")


@dataclass(frozen=True)
class CapacityPlan:
    market_type: Optional[str]     # launch template instance_market_options: spot | capacity-block
    reservation_id: Optional[str]  # capacity_reservation_specification target
    placement_group: bool          # a cluster placement group; never with a targeted reservation


def check_reservation_id(value: str) -> str:
    if not _RESERVATION_ID.match(value):
        raise SpecError("clouds.aws.capacity.reservation",
                        f"{value!r} is not a capacity reservation ID.",
                        "Use the cr-... ID that `aws ec2 describe-capacity-reservations` shows (for "
                        "a Capacity Block: the reservation ID of the purchased block).")
    return value


def capacity_plan(capacity_type: str, reservation: Optional[str]) -> CapacityPlan:
    """The launch-template inputs of one capacity type. A targeted reservation or a Capacity Block
    already fixes placement, and a second cluster placement group makes launches fail
    (awsome-distributed-training: no placement group with a targeted ODCR; cloud-map §10)."""
    if capacity_type == "spot":
        return CapacityPlan("spot", None, True)
    if capacity_type == "reservation":
        return CapacityPlan(None, check_reservation_id(reservation or ""), False)
    if capacity_type == "capacity_block":
        return CapacityPlan("capacity-block", check_reservation_id(reservation or ""), False)
    return CapacityPlan(None, None, True)
