"""What one trial attempt is: a stack of its own (`trial-<candidate>-<zone>`) made from the
candidate's stack file, with the zone, the node count and a short declared lifetime set in its
overrides, and what it is expected to cost.

Trial price of one candidate (USD, all from the catalog the plan prices with):
  hours      = boot + data staging + bench + teardown (options; the nodes bill through all four)
  nodes      = nodes x the node's hourly price (its capacity type's) x hours
  filesystem = the plan's filesystem GiB x its USD per GiB-month x hours / 730
  data       = --data GB x the bucket's USD per GB-month x 1 month (the bucket, and the data in
               it, stay after the trial)
The declared lifetime (max_hours) is the hours rounded up to whole hours, at least the spec's
1-hour floor: past it the cloud's own machinery stops the nodes, whatever happens here.
"""
from __future__ import annotations

import json
import math
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Optional, Sequence

from trainstack.cost.sizing_cost import HOURS_PER_MONTH
from trainstack.plan.stacks import stack_config, stacks_dir
from trainstack_components.errors import SpecError
from trainstack_components.project import PROJECT, PROVIDER_REGION_KEYS

TRIAL_PREFIX = "trial"


@dataclass(frozen=True)
class TrialHours:
    boot: float = 0.5
    staging: float = 0.25
    bench: float = 0.5
    teardown: float = 0.25

    @property
    def total(self) -> float:
        return self.boot + self.staging + self.bench + self.teardown

    @property
    def lifetime(self) -> float:
        from trainstack_components.spec import MIN_LIFETIME_HOURS
        return max(MIN_LIFETIME_HOURS, float(math.ceil(self.total)))


@dataclass
class TrialPrice:
    """The expected cost of one candidate's trial."""
    candidate: str
    cloud: str
    region: str
    zone: str
    instance_type: str
    capacity: str
    nodes: int
    node_usd_per_hour: float          # one node, at its capacity type's price
    hours: float
    filesystem_gib: float = 0.0
    filesystem_usd_per_gib_month: Optional[float] = None
    bucket_usd_per_gb_month: Optional[float] = None
    data_gb: float = 0.0
    unpriced: list[str] = field(default_factory=list)

    @property
    def usd_per_hour(self) -> float:
        """What the running stack costs per hour: nodes and filesystem."""
        fs = self.filesystem_gib * (self.filesystem_usd_per_gib_month or 0) / HOURS_PER_MONTH
        return self.nodes * self.node_usd_per_hour + fs

    @property
    def nodes_usd(self) -> float:
        return self.nodes * self.node_usd_per_hour * self.hours

    @property
    def filesystem_usd(self) -> float:
        return (self.filesystem_gib * (self.filesystem_usd_per_gib_month or 0) * self.hours
                / HOURS_PER_MONTH)

    @property
    def data_usd(self) -> float:
        return self.data_gb * (self.bucket_usd_per_gb_month or 0)

    @property
    def total(self) -> float:
        return self.nodes_usd + self.filesystem_usd + self.data_usd

    def as_json(self) -> dict:
        return {**asdict(self), "usd_per_hour": self.usd_per_hour, "nodes_usd": self.nodes_usd,
                "filesystem_usd": self.filesystem_usd, "data_usd": self.data_usd,
                "total_usd": self.total}


def stack_name(candidate: str, region: str, zone: str) -> str:
    where = zone if zone.startswith(region) else f"{region}-{zone}"
    return re.sub(r"[^A-Za-z0-9_.-]", "-", f"{TRIAL_PREFIX}-{candidate}-{where}")


def _merge(base: dict, extra: dict) -> dict:
    out = dict(base)
    for key, value in extra.items():
        out[key] = _merge(out[key], value) if isinstance(value, dict) and isinstance(
            out.get(key), dict) else value
    return out


def attempt_config(base: dict[str, str], cloud: str, region: str, zone: str, nodes: int,
                   lifetime_hours: float, spec_file: Optional[str] = None,
                   workload_lifetime: bool = False,
                   instance_type: Optional[str] = None) -> dict[str, str]:
    """The flat stack config of one attempt: the candidate's, moved to (region, zone), sized to
    `nodes`, with its own declared lifetime."""
    from trainstack_components.adoption import ADOPT_KEY
    from trainstack_components.lifetime import LIFETIME_START_KEY
    # The candidate stack's own records are not the attempt's: its lifetime start would count
    # the attempt's short lifetime from the candidate's first deploy (already past: no nodes),
    # and its kept-bucket ids would import the candidate's bucket into the attempt's stack.
    config = {k: v for k, v in base.items() if k not in (ADOPT_KEY, LIFETIME_START_KEY)}
    if spec_file:
        config[f"{PROJECT}:specFile"] = spec_file
    config[PROVIDER_REGION_KEYS[cloud]] = region
    if f"{cloud}:zone" in config:        # GCP's provider zone follows the attempt's zone
        config[f"{cloud}:zone"] = zone
    raw = config.get(f"{PROJECT}:overrides")
    try:
        overrides = json.loads(raw) if raw else {}
    except ValueError:
        raise SpecError(f"{PROJECT}:overrides", f"{raw!r} is not a YAML/JSON object.",
                        "Write the candidate's overrides as a mapping.") from None
    extra: dict = {"nodes": nodes, "max_hours": lifetime_hours,
                   "clouds": {cloud: {"region": region, "zone": zone}}}
    if workload_lifetime:   # the spec declares it as workload.max_hours: one lifetime only
        extra["workload"] = {"max_hours": lifetime_hours}
    if instance_type:
        extra["clouds"][cloud]["instance_type"] = instance_type
    config[f"{PROJECT}:overrides"] = json.dumps(_merge(overrides, extra), sort_keys=True)
    return config


def write_stack_file(project_dir: Path, name: str, config: dict[str, str], note: str) -> Path:
    """The attempt's stack file, as `pulumi config` would keep it (objects as mappings)."""
    import yaml
    values = {}
    for key, value in config.items():
        try:
            parsed = json.loads(value) if value[:1] in "{[" else value
        except ValueError:
            parsed = value
        values[key] = parsed
    path = stacks_dir(project_dir) / f"Pulumi.{name}.yaml"
    path.write_text(f"# {note}\n" + yaml.safe_dump({"config": values}, sort_keys=True))
    return path


def base_config(project_dir: Path, candidate: str) -> dict[str, str]:
    return stack_config(project_dir, candidate)


def price_attempt(project_dir: Path, candidate: str, config: dict[str, str], hours: TrialHours,
                  data_gb: float) -> tuple[TrialPrice, object]:
    """(the trial's price, the program inputs) of one attempt's config, from the plan."""
    from trainstack.plan.engine import render
    from trainstack_components.catalog import run_prices
    from trainstack.cost.money import fx_rate
    plan = render(config, stack=f"{TRIAL_PREFIX}-{candidate}", project_dir=project_dir)
    sel = plan.inputs.selection
    cny = fx_rate()["cny_per_usd"]
    capacity = plan.outputs.get("filesystem_capacity_gib") or 0
    tier = plan.outputs.get("filesystem_throughput_mbps_per_tib")
    product, fs_price = run_prices.filesystem_price(sel.cloud, (r.type for r in plan.resources),
                                                    tier, sel.region, cny)
    bucket = run_prices.bucket_price(sel.cloud, sel.region, cny)
    price = TrialPrice(candidate=candidate, cloud=sel.cloud, region=sel.region, zone=sel.zone,
                       instance_type=sel.instance.name, capacity=sel.capacity.type,
                       nodes=sel.nodes, node_usd_per_hour=sel.price.hourly(sel.spot),
                       hours=hours.total, filesystem_gib=float(capacity),
                       filesystem_usd_per_gib_month=fs_price.value,
                       bucket_usd_per_gb_month=bucket.value, data_gb=data_gb)
    if capacity and fs_price.value is None:
        price.unpriced.append(f"filesystem {product}")
    if data_gb and bucket.value is None:
        price.unpriced.append("bucket")
    return price, plan.inputs


def cheapest_gpu_types(cloud: str, region: str, spot: bool,
                       gpus: Optional[Sequence[str]] = None) -> list[str]:
    """The GPU instance types the catalog prices in `region` with one of the spec's GPU models
    (`gpus`; any when None), cheapest node-hour first (at the capacity's price: spot where the
    spec buys spot). Only types the planner would pick by itself: the inference and fractional
    types the catalog prices for the policy pack (g5, inf1, ...) are not a trial of the spec."""
    from trainstack_components import catalog
    from trainstack_components.base import get_cloud
    name = get_cloud(cloud).catalog_cloud
    gpu = {t.name for t in catalog.instance_types() if t.cloud == name and t.gpu_count > 0
           and t.auto_choice and (gpus is None or t.gpu in gpus)}
    rows = [p for p in catalog.prices() if p.cloud == name and p.region == region
            and p.instance_type in gpu]
    return [p.instance_type for p in sorted(rows, key=lambda p: (p.hourly(spot), p.instance_type))]


def other_locations(cloud: str, instance_type: str, region: str, zone: str,
                    limit: int) -> list[tuple[str, str]]:
    """Where else the catalog sells `instance_type`: the region's other zones first, then the
    other regions' zones; at most `limit`. Whether the filesystem is there too is the plan's to
    say (an attempt whose plan refuses the zone is skipped, and the skip is recorded)."""
    from trainstack_components import catalog
    from trainstack_components.base import get_cloud
    provider = get_cloud(cloud)
    rows = [p for p in catalog.prices() if p.cloud == provider.catalog_cloud
            and p.instance_type == instance_type]
    rows.sort(key=lambda p: (p.region != region, p.region))
    out: list[tuple[str, str]] = []
    for price in rows:
        for z in _zones(cloud, provider, price):
            if (price.region, z) != (region, zone) and (price.region, z) not in out:
                out.append((price.region, z))
    return out[:limit]


def _zones(cloud: str, provider, price) -> tuple[str, ...]:
    if cloud == "aws":
        from trainstack_components.aws.cloud import zone_names
        return zone_names().get(price.region, ())
    if cloud == "azure":
        return ("1", "2", "3")   # Azure's numbered availability zones
    return tuple(provider.listed_zones(price))
