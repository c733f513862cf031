"""The cloud-neutral cluster interface: one `Cloud` planner per provider, one component per cloud.

A `Cloud` is a light, stateless object (after SkyPilot's `sky/clouds/cloud.py`): it validates the
spec's location for its provider, picks the instance type from the catalog, and names the
component class that declares the resources. Planning is pure and runs before any resource is
declared, so bad input fails with nothing half-created. Neither Pulumi nor a provider SDK is
imported here: the component base lives in components/gpu_cluster.py and each cloud's component
loads when it is built, so planning, policies, estimates and `--help` never pay for them.
"""
from __future__ import annotations

import dataclasses
import enum
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Mapping, Optional

from trainstack_components import catalog
from trainstack_components.catalog import InstanceType, Price
from trainstack_components.errors import SpecError
from trainstack_components.spec import CapacitySpec, ClusterSpec, zone_in_region
from trainstack_components.tags import cluster_tags

if TYPE_CHECKING:

    from trainstack_components.gpu_cluster import GpuCluster


class Feature(enum.Enum):
    RDMA = "rdma"
    SPOT = "spot"


@dataclass(frozen=True)
class Selection:
    """What the catalog chose for one cloud, and why."""

    cloud: str
    region: str
    zone: str
    instance: InstanceType
    price: Price
    use_rdma: bool
    fabric_note: str
    nodes: int
    capacity: CapacitySpec
    # What the selection skipped and why ("H100 (p5.48xlarge): needs 24 GPUs, the cluster has
    # 16"), and whether the spec's workload fits the chosen type (None without a workload).
    passed_over: tuple[str, ...] = ()
    fits: Optional[bool] = None

    @property
    def gpus(self) -> int:
        return self.nodes * self.instance.gpu_count

    @property
    def spot(self) -> bool:
        return self.capacity.type == "spot"

    @property
    def usd_per_hour(self) -> float:
        return round(self.nodes * self.price.hourly(self.spot), 4)


@dataclass(frozen=True)
class ClusterArgs:
    spec: ClusterSpec
    selection: Selection
    stack: str
    # Resources a destroy kept, to import instead of create (components/adoption.py).
    adopt: Mapping[str, str] = field(default_factory=dict)

    @property
    def tags(self) -> dict[str, str]:
        return cluster_tags(self.spec, self.stack)


class Cloud:
    """One provider's planning rules. Subclasses set `name` and override the hooks they need."""

    name: str = ""
    # Features this cloud cannot provide, with the reason users are told.
    _UNSUPPORTED: dict[Feature, str] = {}
    # Where the zone facts behind a "not offered in this zone" error come from, for users.
    _ZONE_DATA_NOTE: str = ""
    # The catalog's name for this cloud, where it differs from the Pulumi one ("alibaba").
    catalog_name: str = ""

    @property
    def catalog_cloud(self) -> str:
        return self.catalog_name or self.name

    # How a zone is named after its region: AWS `us-east-1a`, GCP `us-central1-a`, Alibaba
    # `cn-hangzhou-h`. A cloud whose zones are not named so (Azure: 1, 2, 3) overrides
    # validate_location.
    # How a zone name follows its region: "" (us-east-1a), "-" (us-central1-a), None for either.
    _ZONE_SEPARATOR: Optional[str] = None
    _ZONE_LETTER_EXAMPLE = "a"

    def deploy_blockers(self, spec: ClusterSpec, selection) -> list[SpecError]:
        """What renders offline but cannot deploy (a placeholder project, a region without the
        filesystem): the offline commands warn with each, `up` and `preview` refuse with the
        first (trainstack/plan/required_config.py). None by default."""
        del spec, selection
        return []

    def zone_separator(self, region: str) -> Optional[str]:
        del region
        return self._ZONE_SEPARATOR

    def zone_example(self, region: str) -> str:
        return f"{region}{self.zone_separator(region) or ''}{self._ZONE_LETTER_EXAMPLE}"

    def validate_location(self, spec: ClusterSpec) -> None:
        loc = spec.location(self.name)
        sep = self.zone_separator(loc.region)
        if not zone_in_region(loc.zone, loc.region, sep):
            raise SpecError(f"clouds.{self.name}.zone",
                            f"{loc.zone!r} is not a zone of region {loc.region!r}.",
                            f"Use a zone of that region, such as {self.zone_example(loc.region)}, "
                            f"or change clouds.{self.name}.region.")

    def listed_zones(self, price: Price) -> tuple[str, ...]:
        """The zones the catalog knows this price row's type in; empty when it knows none."""
        return price.zones

    def zone_offers(self, price: Price, zone: str) -> bool:
        """Whether the catalog's zone data (when it has any) lists `zone` for this price row."""
        zones = self.listed_zones(price)
        return not zones or zone in zones

    def check_features(self, spec: ClusterSpec) -> None:
        wanted = {Feature.RDMA: spec.interconnect == "rdma",
                  Feature.SPOT: spec.capacity(self.name).type == "spot"}
        for feature, asked in wanted.items():
            if asked and feature in self._UNSUPPORTED:
                raise SpecError(feature.value, f"is not available on {self.name}: "
                                f"{self._UNSUPPORTED[feature]}", "Drop it for this cloud.")

    # -- capacity ----------------------------------------------------------------------------
    # What a type is sold as comes from components/catalog/capacity.csv; a cloud or type without
    # rows there offers only these.
    _DEFAULT_CAPACITY: tuple[str, ...] = ("on_demand", "spot")

    def capacity_offered(self, itype: InstanceType) -> tuple[str, ...]:
        fact = catalog.capacity_fact(self.name, itype.name)
        return fact.types if fact else self._DEFAULT_CAPACITY

    def capacity_line(self, capacity_type: str) -> str:
        """The spec line that asks for one capacity type on this cloud (for error messages)."""
        extra = {"reservation": ", reservation: <reservation name or id>",
                 "capacity_block": ", reservation: <capacity block reservation id>"}
        line = f"clouds.{self.name}.capacity: {{type: {capacity_type}{extra.get(capacity_type, '')}}}"
        return line + (" plus max_hours: <hours>" if capacity_type == "flex_start" else "")

    def check_capacity(self, spec: ClusterSpec, itype: InstanceType) -> None:
        """Refuse a capacity type the cloud, or this instance type, does not sell (exit 2)."""
        wanted = spec.capacity(self.name).type
        offered = self.capacity_offered(itype)
        if wanted in offered:
            return
        sold = {t for f in catalog.capacity_facts() if f.cloud == self.name for t in f.types}
        sold = sold or set(self._DEFAULT_CAPACITY)
        ways = "; ".join(f"{t}: {self.capacity_line(t)}" for t in offered)
        if wanted not in sold:
            problem = (f"{wanted!r} is not something {self.name} sells; it offers "
                       f"{', '.join(t for t in _CAPACITY_ORDER if t in sold)}.")
        else:
            problem = (f"{itype.name} ({itype.gpu}) is not sold as {wanted} on {self.name}; it is "
                       f"obtainable only as {', '.join(offered)}.")
        raise SpecError(f"clouds.{self.name}.capacity.type", problem,
                        f"Use one of these ({ways}); docs/capacity.md explains each.")

    def tag_changes(self, spec: ClusterSpec) -> list[dict[str, str]]:
        """The spec's tags this cloud must rewrite, as {tag, value, label, label_value}."""
        del spec
        return []

    def fabric_note(self, itype: InstanceType, use_rdma: bool) -> str:
        if use_rdma:
            return f"{itype.fabric} RDMA ({itype.rdma_nics} NICs, {itype.fabric_gbps or '?'} Gbps)"
        return f"{itype.fabric} (no RDMA)"

    def component(self) -> Callable[..., GpuCluster]:
        raise NotImplementedError

    # -- the offline plan ------------------------------------------------------------------
    # Under the mock engine nothing computes what the cloud assigns on create. Each cloud names
    # those attributes here, with clearly fake values, so outputs and apply() chains have
    # something to show; everything else echoes the inputs.

    _OFFLINE_NAMED: tuple[str, ...] = ()  # tokens whose `name` the provider would autoname

    def offline_attributes(self, type_token: str, name: str, inputs: dict) -> dict:
        if type_token in self._OFFLINE_NAMED:
            return {"name": inputs.get("name") or name}
        return {}

    def offline_invoke(self, token: str, args: dict) -> Optional[dict]:
        """The result of a data-source call (an invoke) offline; None when unknown."""
        del token, args
        return None

    # -- selection -------------------------------------------------------------------------

    def select(self, spec: ClusterSpec) -> Selection:
        self.check_features(spec)
        self.validate_location(spec)
        loc = spec.location(self.name)
        gpus = _canonical_gpus(spec.gpu)
        if loc.instance_type:
            itype = catalog.instance_type(self.catalog_cloud, loc.instance_type)
            if itype.gpu not in gpus:
                raise SpecError(f"clouds.{self.name}.instance_type",
                                f"{itype.name} carries {itype.gpu}, which is not in gpu {spec.gpu}.",
                                f"Add {itype.gpu} to gpu, or set instance_type to null.")
            candidates = [itype]
        else:
            candidates = [t for g in gpus for t in _by_preference(self.catalog_cloud, g)]
        if spec.interconnect == "rdma":
            rdma = [t for t in candidates if t.rdma]
            if not rdma:
                offered = sorted(t.name for t in catalog.instance_types()
                                 if t.cloud == self.catalog_cloud and t.rdma)
                chosen = ", ".join(t.name for t in candidates) or "no candidate type"
                raise SpecError("interconnect",
                                f"'rdma' is required but {chosen} on {self.name} has no RDMA.",
                                f"Use a type that has it ({', '.join(offered) or 'none on this cloud'}), "
                                "or set interconnect: fastest.")
            candidates = rdma
        passed: list[str] = []
        fallback = None   # the first offered type, kept for when the workload fits none
        for gpu in gpus:
            for itype in (t for t in candidates if t.gpu == gpu):
                row = catalog.price(self.catalog_cloud, itype.name, loc.region)
                if row is None:
                    if self._listed_without_price(itype, loc):
                        passed.append(f"{itype.name} ({itype.gpu}): no cited price in "
                                      f"{loc.region}")
                    continue
                if not self.zone_offers(row, loc.zone):
                    continue
                use_rdma = itype.rdma and spec.interconnect != "tcp"
                self.check_capacity(spec, itype)
                selection = Selection(self.name, loc.region, loc.zone, itype, row, use_rdma,
                                      self.fabric_note(itype, use_rdma), spec.nodes,
                                      spec.capacity(self.name))
                too_small = self.workload_fit(spec, itype)
                if too_small is None:
                    return dataclasses.replace(selection, passed_over=tuple(passed),
                                               fits=True if spec.workload else None)
                passed.append(f"{itype.gpu} ({itype.name}): {too_small}")
                fallback = fallback or selection
        if fallback is not None:
            # Nothing offered fits the workload: plan the first offered type anyway, so that
            # estimate/compare can show the breakdown, and say so.
            return dataclasses.replace(fallback, passed_over=tuple(passed), fits=False)
        raise self._not_offered(spec, candidates, loc)

    # -- the capacity check hook -----------------------------------------------------------

    def workload_fit(self, spec: ClusterSpec, itype: InstanceType) -> Optional[str]:
        """Why the spec's workload cannot train on `spec.nodes` x `itype` (None: it fits, or the
        spec has no workload). The memory model is components/memory.py, the one estimate uses."""
        if spec.workload is None:
            return None
        from trainstack_components import memory
        from trainstack_components.catalog.gpu_models import get_gpu_model
        gpus = spec.nodes * itype.gpu_count
        w = memory.Workload.from_spec(spec.workload, gpus=gpus)
        gpu_bytes = get_gpu_model(itype.gpu).memory_bytes
        if memory.fits(memory.estimate_memory(w), gpu_bytes):
            return None
        need = memory.min_gpus_that_fit(w, gpu_bytes)
        if need is None:
            return memory.no_fit_reason(w, gpu_bytes)
        return f"needs {need} GPUs, the cluster has {gpus}"

    def _listed_without_price(self, itype: InstanceType, loc) -> bool:
        """Whether the zone data lists the type in the region although no price row does."""
        return bool(catalog.zones_listed(self.catalog_cloud, "machine_type", itype.name, loc.region))

    def _not_offered_lead(self, candidates, loc) -> str:
        """A cloud-specific first clause for the not-offered error (empty by default)."""
        del candidates, loc
        return ""

    def _not_offered(self, spec, candidates, loc) -> SpecError:
        known = sorted(catalog.priced_regions(self.catalog_cloud))
        if known and loc.region not in known:
            # A typo'd or unknown region is the region's fault, not the gpu list's.
            return SpecError(f"clouds.{self.name}.region", f"{loc.region!r} is not among the "
                             f"{self.name} regions trainstack's catalog prices GPU instance types "
                             "in.",
                             f"Use one of: {', '.join(known)}.")
        where, zone_problem = [], False
        unpriced = [t for t in candidates if catalog.price(self.catalog_cloud, t.name, loc.region) is None
                    and self._listed_without_price(t, loc)]
        if unpriced and len(unpriced) == len(candidates):
            names = ", ".join(f"{t.name} ({t.gpu})" for t in unpriced)
            field = (f"clouds.{self.name}.instance_type" if loc.instance_type else "gpu")
            return SpecError(field, f"{names} is listed in {loc.region} by the zone data, but "
                             f"trainstack's catalog has no cited price for it there, so it "
                             f"cannot be priced or budget-checked.",
                             "Choose another instance type or region, or add a cited price row "
                             "to components/catalog (source and date).")
        for itype in candidates:
            row = catalog.price(self.catalog_cloud, itype.name, loc.region)
            zones = self.listed_zones(row) if row is not None else ()
            if zones:
                zone_problem = True
                where.append(f"{itype.name} ({itype.gpu}) in {loc.region} only in zone(s) "
                             f"{', '.join(zones)}")
            else:
                regions = ", ".join(catalog.regions_offering(self.catalog_cloud, itype.name)) or "no region"
                where.append(f"{itype.name} ({itype.gpu}) in {regions}")
        field = f"clouds.{self.name}.zone" if zone_problem else "gpu"
        problem = (f"{self._not_offered_lead(candidates, loc)}none of {spec.gpu} is offered on "
                   f"{self.name} in {loc.zone} ({loc.region}) by trainstack's catalog.")
        if not where:  # no instance type of this cloud carries any of the GPUs at all
            gpus = sorted({t.gpu for t in catalog.instance_types() if t.cloud == self.catalog_cloud})
            return SpecError("gpu", problem, f"The catalog has no {self.name} instance type with "
                             f"any of them; {self.name} has: {', '.join(gpus) or 'none'}. Change "
                             "the gpu list.")
        return SpecError(field, problem, "Offered: " + "; ".join(where) + ". Change the "
                         f"region/zone or the gpu list{self._ZONE_DATA_NOTE}.")


_CAPACITY_ORDER = ("on_demand", "spot", "reservation", "capacity_block", "flex_start")


def _canonical_gpus(names: list[str]) -> list[str]:
    out = []
    for name in names:
        gpu = catalog.canonical_gpu(name)
        if gpu is None:
            raise SpecError("gpu", f"{name!r} is not a GPU model trainstack knows.",
                            "Use one of: " + ", ".join(catalog.known_gpus()) + ".")
        out.append(gpu)
    return out


def _by_preference(cloud: str, gpu: str) -> list[InstanceType]:
    """Types of one GPU model the planner may choose itself (auto_choice), the most GPUs per
    node first (a training cluster wants full 8-GPU nodes; the 1-4 GPU inference sizes come
    last), then RDMA, then the fastest fabric."""
    types = [t for t in catalog.instance_types() if t.cloud == cloud and t.gpu == gpu
             and t.auto_choice]
    return sorted(types, key=lambda t: (-t.gpu_count, not t.rdma, -(t.fabric_gbps or 0), t.name))


_REGISTRY: dict[str, Cloud] = {}


def register(cls: type[Cloud]) -> type[Cloud]:
    _REGISTRY[cls.name] = cls()
    return cls


def get_cloud(name: str) -> Cloud:
    from trainstack_components import clouds
    if name not in _REGISTRY and name in clouds.CLOUD_MODULES:
        clouds.load(name)
    if name not in _REGISTRY:
        raise SpecError("cloud", f"{name!r} is not a cloud trainstack can build yet.",
                        "Use one of: " + ", ".join(clouds.names()) + ".")
    return _REGISTRY[name]


def implemented_clouds() -> list[str]:
    from trainstack_components import clouds
    return clouds.names()


def plan_selection(spec: ClusterSpec, cloud: str) -> Selection:
    """Everything that can be checked before a resource is declared; raises SpecError."""
    selection = get_cloud(cloud).select(spec)
    day = selection.usd_per_hour * 24
    if spec.budget.monthly_usd < day:
        raise SpecError("budget.monthly_usd",
                        f"{spec.budget.monthly_usd:,.0f} USD cannot pay for one day of this cluster on "
                        f"{cloud} ({spec.nodes} x {selection.instance.name} = "
                        f"{selection.usd_per_hour:,.2f} USD/h, {day:,.0f} USD/day).",
                        "Raise the budget or use fewer nodes"
                        + (", or set spot: true" if _spot_saves(selection) else
                           "" if selection.spot else
                           f" (spot would not help: the catalog's {cloud} spot price for "
                           f"{selection.instance.name} in {selection.region} is not below "
                           f"on-demand)") + ".")
    return selection


def _spot_saves(selection: Selection) -> bool:
    """Whether the catalog's spot price is below on-demand (AWS snapshots can show them equal)."""
    spot = selection.price.spot_usd_hr
    return not selection.spot and spot is not None and spot < selection.price.ondemand_usd_hr
