"""The spend estimate, from the pack's copy of the price catalog the components choose types with.

estimate = sum over GPU node groups of nodes x catalog $/h (spot price for spot groups) x hours
         + filesystem GiB x $/GiB-month (the whole month: it bills until destroy)
         + bucket GB x $/GB-month (a retained bucket is billed for the whole month)

nodes = the most the group can run (an ASG's maxSize, a fleet's target capacity, a node pool's
maximum); a size unknown at preview cannot be priced. hours = 730 (a month left running), or a
lifetime the plan ENFORCES (inventory.enforced_hours: a schedule that scales the group to 0,
GCP maxRunDuration, Alibaba autoReleaseTime); a lifetime tag alone is a wish, not a limit.
The filesystem is priced for the whole month whatever the nodes' lifetime: every stop scales the
nodes to 0 and keeps the data (docs/billing-after-stop.md), so the filesystem bills until the stack
is destroyed, and that teardown (the reaper's, a person's) is in no plan. The bucket is priced at the data-size
model's figure (components/catalog/data_sizes.py: dataset + starting weights + final checkpoint),
which the components tag it with (`trainstack:data-mb`); `compare` uses the same model. Without
that tag (no workload, or a bucket trainstack did not build) its cloud's filesystems' capacity is
the bound (a cloud's bucket holds the export of that cloud's filesystems, never another cloud's),
and that bound is counted once for all the cloud's untagged buckets together.

Storage rows are picked and converted as components/catalog/run_prices.py does (policies/catalog.py, a
test keeps the two equal). A filesystem without a cited price does not vanish: it is counted at
the lowest cited parallel-filesystem price in the catalog, a lower bound labelled as such, so
1 PiB of an unpriced tier still breaks a 50k cap. GPU capacity without a catalog price makes the
estimate impossible (spend-limit fails closed), since compute is most of it; non-GPU nodes the
catalog does not list (t3.micro, e2-small) are left out and named.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Mapping, Optional

from trainstack_policies import catalog
from trainstack_policies.catalog import GIB_PER_GB, HOURS_PER_MONTH
from trainstack_policies.inventory import (
    DATA_MB_TAG,
    Bucket,
    Filesystem,
    NodeGroup,
    gpu_reason,
    is_gpu_group,
    tag_value,
    tags_of,
)
from trainstack_policies.inventory.tokens import AWS_NATIVE_SUBNET, AWS_SUBNET
from trainstack_policies.inventory.values import AZ_ID, aws_subnet_zone
from trainstack_policies.model import UNKNOWN, BadNumber, Resource, last_segment


@dataclass
class Line:
    what: str
    usd: float
    # The cloud that bills it ("" until estimate() sets it): a cloud's budget watches that
    # cloud's bill only, so spend-limit holds each cloud's budgets to its own share.
    cloud: str = ""


@dataclass
class Estimate:
    hours: float
    lines: list[Line] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)   # GPU capacity that cannot be priced
    left_out: list[str] = field(default_factory=list)  # non-GPU nodes, storage at a lower bound
    undecided: list[str] = field(default_factory=list)  # storage whose size is unknown
    # sizes/lifetimes that are no number: (the resource that gives it, what it gives)
    invalid: list[tuple[Resource, str]] = field(default_factory=list)
    # lifetime tags that are no number: reported like `invalid`, but their groups are priced
    invalid_tags: list[tuple[Resource, str]] = field(default_factory=list)
    # The as-of dates of the instance prices the lines use (the catalog's rows say how old each
    # figure is; an estimate that hides it passes an old price off as today's).
    price_dates: list[str] = field(default_factory=list)
    # USD/month of each node group's own lines, by id() of its resource (a budget that leaves
    # a GPU group out caps the rest: spend-limit subtracts what that group adds).
    by_group: dict[int, float] = field(default_factory=dict)

    def dated(self, as_of: str) -> None:
        if as_of and as_of not in self.price_dates:
            self.price_dates.append(as_of)

    @property
    def unpriced(self) -> list[str]:
        """Every built item without a cited price, by name (node groups and storage)."""
        return self.missing + self.left_out

    @property
    def total(self) -> float:
        return sum(line.usd for line in self.lines)

    @property
    def clouds(self) -> set[str]:
        """The clouds that bill some line of the estimate."""
        return {line.cloud for line in self.lines}

    def share(self, cloud: str) -> float:
        """USD/month of what `cloud` bills: its node groups (GPU and other), its storage."""
        return sum(line.usd for line in self.lines if line.cloud == cloud)

    def describe(self, cloud: Optional[str] = None) -> str:
        """The total and its lines; with `cloud`, that cloud's share and its lines only."""
        lines = [line for line in self.lines if cloud is None or line.cloud == cloud]
        parts = [f"{line.what} = {line.usd:,.0f}" for line in lines]
        parts += [f"note: {what}" for what in self.left_out]
        parts += [f"catalog prices as of {'; '.join(self.price_dates)}"] if self.price_dates else []
        total = sum(line.usd for line in lines)
        return f"{total:,.0f} USD/month{f' on {cloud}' if cloud else ''} ({'; '.join(parts)})"


def instance_price(cloud: str, instance_type: str, region: str) -> Optional[catalog.Price]:
    return catalog.price(cloud, instance_type, region)


def instance_type_info(cloud: str, instance_type: str) -> Optional[catalog.InstanceType]:
    return catalog.instance_type(cloud, instance_type)


def cny_per_usd() -> float:
    return catalog.cny_per_usd()


def _tier(fs: Filesystem) -> Optional[int]:
    """The throughput tier in MB/s per TiB: 250, "1000", AMLFS-Durable-Premium-250, advance_200."""
    return catalog.tier_number(fs.tier)


def _data_gb(bucket: Bucket) -> Optional[float]:
    """The data-size model's figure the components tagged the bucket with, in GB; else None."""
    tags = tags_of(bucket.resource)
    if not isinstance(tags, dict):
        return None
    value = tag_value(bucket.resource, tags, DATA_MB_TAG)
    try:
        return float(value) / 1000 if value is not None else None
    except (TypeError, ValueError):
        return None


def _locations(g: NodeGroup) -> list[str]:
    """Where the catalog prices a group's nodes: its region, or, for an AWS group placed in a
    Local Zone or Wavelength Zone (by its own zones or its subnets' availabilityZone, or a
    subnet's availabilityZoneId), that zone's own location in prices.csv (catalog
    .aws_edge_location), which bills above the region; every location it may run in when its
    zones span several (the dearest is priced). A group in no such zone: [its region]."""
    if g.cloud != "aws" or not isinstance(g.region, str) or not g.region:
        return [g.region]
    def edge(zone: Any) -> Optional[str]:
        if isinstance(zone, str) and zone.startswith(AZ_ID):
            return catalog.aws_edge_location(zone[len(AZ_ID):], g.region, zone_id=True)
        return catalog.aws_edge_location(last_segment(zone)) if isinstance(zone, str) else None

    edges: list[str] = []
    in_region = not g.zones
    for zone in g.zones:
        loc = edge(zone)
        if loc is None:
            in_region = True   # a zone of the region, or one not read (priced as before)
        elif loc not in edges:
            edges.append(loc)
    # A subnet given by its AZ ID alone leaves no zone name on the group ("" above): its ID
    # places the nodes as surely.
    for owner in (g.resource, g.template):
        for deps in (owner.deps.values() if owner is not None else ()):
            for subnet in deps:
                if subnet.type not in (AWS_SUBNET, AWS_NATIVE_SUBNET):
                    continue
                zone = aws_subnet_zone(subnet)
                loc = edge(zone) if isinstance(zone, str) and zone.startswith(AZ_ID) else None
                if loc and loc not in edges:
                    edges.append(loc)
    return ([g.region] if in_region or not edges else []) + edges


def _located_price(g: NodeGroup, t: str) -> tuple[Optional[catalog.Price], Any]:
    """(the dearest catalog row of type `t` over the group's locations, where it is), or (None,
    the first location with no row for it): a zone the catalog does not price the type in is
    never priced at its region's lower rate."""
    if not g.region:
        return catalog.dearest(g.cloud, t), g.region
    found: list[catalog.Price] = []
    for loc in _locations(g):
        row = instance_price(g.cloud, t, loc)
        if row is None:
            return None, loc
        found.append(row)
    dearest = max(found, key=lambda r: r.hourly(g.spot))
    return dearest, dearest.region


def _group_line(g: NodeGroup, result: "Estimate",
                block_fees: Optional[Mapping[str, float]] = None) -> None:
    for what in g.invalid_tags:
        tag = (g.resource, f"{g.resource.name} ({g.resource.type}): {what}")
        if tag not in result.invalid_tags:
            result.invalid_tags.append(tag)
    if g.invalid:
        result.invalid += [(g.resource, f"{g.resource.name} ({g.resource.type}): {what}")
                           for what in g.invalid]
        return
    if g.spot and isinstance(g.count, int) and (g.regular_base or g.regular_percent):
        # A spot group some of whose nodes are asked for at the regular rate: those at the
        # on-demand price, the rest at spot (all on demand when it also fills a reservation).
        regular = g.count if g.reserved_nodes else g.regular_nodes()
        if regular:
            _group_line(replace(g, spot=False, count=regular, regular_base=0,
                                regular_percent=0.0), result, block_fees)
        if g.count - regular:
            _group_line(replace(g, count=g.count - regular, regular_base=0,
                                regular_percent=0.0), result, block_fees)
        return
    if not is_gpu_group(g):
        rows = [_located_price(g, str(t))[0] if isinstance(g.region, str)
                else catalog.dearest(g.cloud, str(t)) for t in g.instance_types]
        priced = [r for r in rows if r is not None]
        if g.count is not None and rows and len(priced) == len(rows):
            hourly = max(r.hourly(g.spot) for r in priced)
            for r in priced:
                result.dated(r.as_of)
            result.lines.append(Line(f"{g.count} x {g.instance_type} x {hourly:,.2f} USD/h x "
                                     f"{HOURS_PER_MONTH} h", g.count * hourly * HOURS_PER_MONTH))
        else:
            result.left_out.append(f"{g.resource.name}: {g.instance_type} (no GPU; not in the "
                                   "catalog, not priced)")
        return
    where = f"{g.resource.name} ({g.resource.type})"
    if g.count is None:
        # A type read nowhere (a template outside the stack, a Batch family) says why first.
        result.missing.append(f"{where}: an instance type {g.type_unread}" if g.type_unread
                              else f"{where}: {g.size_unread}" if g.size_unread
                              else f"{where}: GPU capacity of a size unknown until apply (its "
                              "maximum is not set)")
        return
    if g.capacity_block:
        # Not the on-demand rate for a month: a block is paid up front at its own price for
        # its own duration, which neither the catalog nor the preview holds (the offering's
        # UpfrontFee is an invoke's answer, never a resource input). The team that bought it
        # knows the fee and says it in the policy config; the whole fee falls in one month.
        fee = (block_fees or {}).get(g.resource.name)
        if fee is not None:
            result.lines.append(Line(f"{g.resource.name}: EC2 Capacity Block paid up front, "
                                     f"{fee:,.2f} USD (spend-limit capacityBlockFeesUsd)", fee))
            return
        result.missing.append(f"{where}: runs in an EC2 Capacity Block, billed up front at "
                              "the block's price for its duration (neither is in the catalog "
                              "or known at preview); give its fee in the spend-limit config, "
                              f'"capacityBlockFeesUsd": {{"{g.resource.name}": <the '
                              "offering's UpfrontFee in USD>}}")
        return
    hourlies = []
    zoned = ""
    for t in g.instance_types:
        if t is None and g.accelerators:
            result.missing.append(f"{where}: GPU nodes chosen by attributes "
                                  f"(instanceRequirements, >= {g.accelerators} accelerator(s)), "
                                  "no instance type to price")
            return
        if t is UNKNOWN or t is None:
            result.missing.append(f"{where}: an instance type "
                                  f"{g.type_unread or 'unknown until apply'}")
            return
        if g.region is UNKNOWN:
            result.missing.append(f"{where}: its region is unknown until apply")
            return
        # N1 machines, predefined or custom (custom-<cpus>-<mib>), take attached GPUs.
        if g.cloud == "gcp" and g.accelerator_types and str(t).startswith(("n1-", "custom-")):
            attached = _n1_with_gpus(g, str(t))
            if isinstance(attached, str):
                result.missing.append(f"{where}: {attached}")
                return
            hourlies.append(attached)
            continue
        row, loc = _located_price(g, str(t))
        if loc and loc != g.region:
            zoned = loc   # a Local / Wavelength Zone's own row (or the one missing)
        if row is None and not gpu_reason(g.cloud, t, g.accelerators):
            continue   # a non-GPU type beside GPU ones (a mixed policy): the GPU type costs more
        if row is None:
            # A type the catalog prices elsewhere but not here: its sources do not offer it in
            # this region (say so, and where they do), rather than an unlisted type; unless the
            # provider lists it as sold here and only the price is missing (unpriced_regions).
            elsewhere = catalog.offered_elsewhere(g.cloud, str(t), loc) if loc else ()
            more = f" and {len(elsewhere) - 6} more" if len(elsewhere) > 6 else ""
            offered = (f" (not offered in {loc} per the catalog's sources, which list it "
                       f"in {', '.join(elsewhere[:6])}{more})") if elsewhere else ""
            if loc and loc != g.region and not elsewhere:
                offered = (f" (a Local / Wavelength Zone of {g.region}, billed at its own "
                           "rates, never priced at the region's)")
            sold_here = catalog.unpriced_in(g.cloud, str(t), loc) if loc else None
            if sold_here is not None:
                priced_at = f"; priced in {', '.join(elsewhere[:6])}{more}" if elsewhere else ""
                offered = (f": listed as sold in {loc} ({sold_here.listed_by}) but no "
                           f"public price for that region was found ({sold_here.reason})"
                           f"{priced_at}")
            listed = catalog.unpriced(g.cloud, str(t))
            if listed is not None:
                offered = (f": listed publicly ({listed.listed_by}) but no public price was "
                           f"found ({listed.reason})")
            result.missing.append(f"{where}: {t} in {loc or '?'} "
                                  f"({gpu_reason(g.cloud, t, g.accelerators) or 'GPU node'}) "
                                  f"has no catalog price{offered}")
            return
        # A weighted group counts capacity units: each type costs its price per unit.
        hourlies.append((row.hourly(g.spot) / g.weights.get(t, 1.0), t, row.as_of))
    if not hourlies:
        result.missing.append(f"{where}: GPU capacity with no catalog price")
        return
    hourly, itype, as_of = max(hourlies, key=lambda h: (h[0], h[1]))
    result.dated(as_of)
    enforced_hours = g.lifetime_hours is not None
    hours = min(g.lifetime_hours, HOURS_PER_MONTH) if g.lifetime_hours is not None else \
        HOURS_PER_MONTH
    enforced = f" (lifetime enforced by {g.lifetime_how})" if enforced_hours else \
        f" ({g.lifetime_how})" if g.lifetime_how else ""
    if g.size_how:
        enforced += f" ({g.size_how})"
    if not g.region:
        enforced += " (region not named in the program: its dearest catalog region)"
    if zoned:
        enforced += f" (in {zoned}, a Local / Wavelength Zone of {g.region}: its own rate)"
    several = " (the priciest of its types)" if len(hourlies) > 1 else ""
    # Nodes inside a reservation of the stack are priced with the reservation, whole.
    count = g.count - g.reserved_nodes
    if g.reserved_nodes:
        enforced += (f" ({g.reserved_nodes} more inside reservation "
                     f"{', '.join(g.reserved_in)}, priced there)")
    if g.weights:
        several += (f" (capacity units: maxSize plus the largest weight; {itype} weighs "
                    f"{g.weights.get(itype, 1.0):g} units)")
    result.lines.append(Line(
        f"{count}{' units' if g.weights else ''} x {itype}{several}"
        f"{' spot' if g.spot else ''} x {hourly:,.2f} USD/h{' per unit' if g.weights else ''} x "
        f"{hours:g} h{enforced}", count * hourly * hours))
    if g.reserved_nodes and g.reserved_hours is not None and hours > g.reserved_hours:
        # The reservation ends before these nodes stop: they run on at their own price.
        beyond = hours - g.reserved_hours
        result.lines.append(Line(
            f"{g.reserved_nodes} x {itype}{' spot' if g.spot else ''} x {hourly:,.2f} USD/h x "
            f"{beyond:g} h (after reservation {', '.join(g.reserved_in)} ends)",
            g.reserved_nodes * hourly * beyond))


def _n1_with_gpus(g: NodeGroup, machine: str) -> tuple[float, str, str] | str:
    """An N1 node with attached GPUs: the machine's hourly price plus each GPU's, as
    (USD/h, what was priced, the rows' dates), or why it cannot be priced."""
    where = g.region or "its dearest catalog region"
    machine_row = catalog.attached_part("machine", machine, g.region)
    parts: list[catalog.Price] = [machine_row] if machine_row else []
    missing = [] if machine_row else [machine]
    names = []
    for name, count in g.accelerator_types:
        if name is UNKNOWN or not name:
            return "an attached GPU whose type is unknown until apply or not given"
        if count is UNKNOWN:
            return f"attached {name} GPUs whose count is unknown until apply"
        row = catalog.attached_part("accelerator", name, g.region)
        if row is None:
            missing.append(str(name))
            continue
        parts += [row] * count
        names.append(f"{count} x {name}")
    if missing:
        return (f"{', '.join(missing)} in {where} (N1 with attached GPUs: "
                f"{machine} + {', '.join(f'{c} x {n}' for n, c in g.accelerator_types)}) "
                "has no catalog price")
    hourly = sum(p.hourly(g.spot) for p in parts)
    dates = sorted({p.as_of for p in parts})
    return hourly, f"{machine} + {' + '.join(names)}", "; ".join(dates)


# A stop ends the nodes, not the filesystem: it is billed for the month the budget watches.
_UNTIL_DESTROY = "x 1 month (bills until destroy, whatever the nodes' lifetime)"


def estimate(groups: list[NodeGroup], filesystems: list[Filesystem],
             buckets: list[Bucket], block_fees: Optional[Mapping[str, float]] = None) -> Estimate:
    result = Estimate(min(HOURS_PER_MONTH, max((HOURS_PER_MONTH if g.lifetime_hours is None
                                                 else g.lifetime_hours for g in groups if is_gpu_group(g)),
                                               default=HOURS_PER_MONTH)))
    for g in groups:
        first = len(result.lines)
        _group_line(g, result, block_fees)
        added = sum(line.usd for line in result.lines[first:])
        result.by_group[id(g.resource)] = result.by_group.get(id(g.resource), 0.0) + added
        _billed_by(result, first, g.cloud)
    # Storage is priced in its own cloud's GPU region (as run_prices prices a cluster's), never
    # in another cloud's region (a GCP region is no AWS row).
    regions: dict[str, str] = {}
    for g in groups:
        if isinstance(g.region, str) and g.region:
            regions.setdefault(g.cloud, g.region)
    # GiB of filesystem per cloud: an untagged bucket is bounded by its own cloud's.
    data_gib: dict[str, float] = {}
    # A storage item's lines are marked with its cloud when the next item starts (or at the end).
    marked, pending = len(result.lines), ""
    for fs in filesystems:
        marked, pending = _billed_by(result, marked, pending), fs.resource.cloud
        if fs.capacity_gib is UNKNOWN:
            result.undecided.append(f"{fs.resource.name}: its capacity is unknown until apply")
            continue
        if isinstance(fs.capacity_gib, BadNumber):
            # A negative or unreadable capacity is refused, never added (it would shrink the
            # total below the truth).
            result.invalid.append((fs.resource, f"{fs.resource.name} ({fs.resource.type}): its "
                                   f"capacity {fs.capacity_gib.text} is not a finite "
                                   "non-negative number"))
            continue
        if not fs.capacity_gib:
            continue
        cloud = fs.resource.cloud
        data_gib[cloud] = data_gib.get(cloud, 0.0) + fs.capacity_gib
        product, price = catalog.filesystem_price(cloud, fs.resource.type, _tier(fs),
                                                  fs.region or regions.get(cloud, ""))
        if price.value is None:
            floor, item = catalog.filesystem_floor()
            result.left_out.append(f"{fs.resource.name} ({product}): {price.note}; counted at "
                                   f"the catalog's lowest parallel-filesystem price ({item}) "
                                   "as a lower bound")
            result.lines.append(Line(
                f"{fs.capacity_gib:,.0f} GiB {product} x at least {floor:.4f} USD/GiB-month "
                f"{_UNTIL_DESTROY}", fs.capacity_gib * floor))
            continue
        result.lines.append(Line(
            f"{fs.capacity_gib:,.0f} GiB {product} x {price.value:.4f} USD/GiB-month "
            f"{_UNTIL_DESTROY}", fs.capacity_gib * price.value))
    # A cloud's filesystems bound its untagged buckets TOGETHER: two clusters' buckets each
    # hold at most their own filesystem's data, so the sum is counted once, on the first of
    # them, never once per bucket (which would price every filesystem n times over).
    untagged: dict[str, list[Bucket]] = {}
    data_gb: list[Optional[float]] = []   # each bucket's tag, read once
    for bucket in buckets:
        data_gb.append(_data_gb(bucket))
        if data_gb[-1] is None:
            untagged.setdefault(bucket.resource.cloud, []).append(bucket)
    for bucket, tagged in zip(buckets, data_gb):
        marked, pending = _billed_by(result, marked, pending), bucket.resource.cloud
        shared = untagged.get(bucket.resource.cloud, [])
        if tagged is None and shared and shared[0] is not bucket:
            continue   # counted with the cloud's first untagged bucket
        gb = tagged if tagged is not None else \
            data_gib.get(bucket.resource.cloud, 0.0) / GIB_PER_GB
        if not gb:
            continue
        price = catalog.bucket_price(bucket.resource.cloud,
                                     regions.get(bucket.resource.cloud, ""))
        if price.value is None:
            result.left_out.append(f"{bucket.resource.name}: {price.note}")
            continue
        what = ("bucket holding the workload's data" if tagged is not None
                else "bucket holding the filesystem's" if len(shared) < 2
                else f"buckets {', '.join(b.resource.name for b in shared)} holding the "
                "filesystems'")
        result.lines.append(Line(f"{what} {gb:,.0f} GB x {price.value:.4f} USD/GB-month",
                                 gb * price.value))
    _billed_by(result, marked, pending)
    return result


def _billed_by(result: Estimate, start: int, cloud: str) -> int:
    """Mark the lines from `start` on as billed by `cloud`; the index past them."""
    for line in result.lines[start:]:
        line.cloud = cloud
    return len(result.lines)
