"""The cluster spec: one cluster.yaml, every cloud.

The field names here are the public contract (docs, editors through `trainstack schema`, stack
files); rename nothing without an alias. Every model forbids unknown fields, because a typo such
as `node: 4` must fail loudly instead of silently building the default cluster.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Literal, Optional, Union

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    EmailStr,
    Field,
    ValidationError,
    WithJsonSchema,
    field_validator,
    model_validator,
)

from trainstack_components.errors import SpecError
# A user's YAML and text files are read in yaml_files.py, which needs no spec model: finding the
# project (Pulumi.yaml) and reading a stack file cost no pydantic model build.
from trainstack_components.yaml_files import (  # noqa: F401 (re-exported: their historic home)
    MAX_TEXT_BYTES,
    START_HINT,
    load_yaml,
    read_text,
)

CLOUDS = ("aws", "gcp", "azure", "alicloud")
_ZONE_SUFFIX = re.compile(r"^[a-z]$")


# YAML 1.1 reads `13e9` (no dot) as a string; users write it that way, so accept it as a number.
_SCIENTIFIC = r"^[0-9]+(\.[0-9]*)?[eE][+-]?[0-9]+$"
BigNumber = Annotated[
    float,
    BeforeValidator(lambda v: float(v) if isinstance(v, str) and re.match(_SCIENTIFIC, v) else v),
    WithJsonSchema({"anyOf": [{"type": "number", "exclusiveMinimum": 0},
                              {"type": "string", "pattern": _SCIENTIFIC}]}),
]


class _Strict(BaseModel):
    # inf/nan are YAML floats (`.inf`) that no cloud API takes as a size or an amount. strict:
    # `nodes: true` is not 1 node and `recompute: 1` or `"yes"` is not a bool; a number where a
    # number is asked (an int is also a float) and nothing else.
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False, strict=True)


# The deadline counts from the start of the first deploy, and a deploy itself takes about 20-30
# minutes (the parallel filesystem and the nodes; README: `trainstack up` ~20 min on AWS, and
# Alibaba's auto-release must be at least 30 minutes ahead). A shorter lifetime would stop the
# nodes before or just as they are ready, so it is refused rather than silently useless.
MIN_LIFETIME_HOURS = 1.0


def _lifetime_floor(hours: Optional[float]) -> Optional[float]:
    if hours is not None and hours < MIN_LIFETIME_HOURS:
        raise ValueError(f"max_hours is {hours:g} h, below the {MIN_LIFETIME_HOURS:g} h minimum: "
                         "the deadline counts from the start of the first deploy, and a deploy "
                         "takes about 20-30 minutes (the filesystem and the nodes), so the nodes "
                         "would stop about as soon as they are ready")
    return hours


class FilesystemSpec(_Strict):
    capacity_gib: int = Field(4800, ge=1, le=100_000_000,
                              description="Requested capacity; each cloud rounds up to a valid size.")
    throughput_mbps_per_tib: Literal[40, 125, 200, 250, 500, 1000] = Field(
        250, description="Throughput tier in MB/s per TiB; clouds map it to their nearest tier.")


class BucketSpec(_Strict):
    retain_on_destroy: bool = Field(True, description="Keep the bucket (and its data) on destroy.")


class BudgetSpec(_Strict):
    monthly_usd: float = Field(..., gt=0, description="Monthly budget in USD.")
    alert_percents: list[Annotated[float, Field(gt=0, le=1000)]] = Field(
        default_factory=lambda: [50.0, 80.0, 100.0], min_length=1,
        description="Alert thresholds in percent of monthly_usd, distinct.")
    emails: list[EmailStr] = Field(..., min_length=1, description="Who gets the budget alerts.")

    @field_validator("alert_percents")
    @classmethod
    def _distinct(cls, v: list[float]) -> list[float]:
        if len(set(v)) != len(v):
            raise ValueError("alert percents must be distinct")
        return sorted(v)


class AccessSpec(_Strict):
    ssh_cidrs: list[str] = Field(default_factory=list,
                                 description="CIDRs allowed to reach port 22; empty = no ingress.")

    @field_validator("ssh_cidrs")
    @classmethod
    def _cidrs(cls, v: list[str]) -> list[str]:
        import ipaddress
        for cidr in v:
            ipaddress.ip_network(cidr, strict=False)
        return v


class RuntimeSpec(_Strict):
    image: Optional[str] = Field(
        None, pattern=r"^[a-z0-9][a-z0-9._/:-]*@sha256:[0-9a-f]{64}$",
        description="The training image every node pulls at boot and runs jobs in, pinned by "
        "digest (registry/repo@sha256:<64 hex>). Default: the cloud's image with its fabric's "
        "NCCL plugin (components/catalog/runtime_images.csv).")


class IdleSpec(_Strict):
    teardown_after_minutes: int = Field(60, ge=5, le=7 * 24 * 60,
                                        description="Idle GPU minutes before the reaper tears the "
                                        "nodes down.")


class WorkloadSpec(_Strict):
    model_params: BigNumber = Field(..., gt=0, le=1e13, description="Model parameters, e.g. 13e9.")
    # The default is the CLI's (`trainstack estimate --params 7e9` without --method): full.
    method: Literal["full", "lora", "qlora"] = Field(
        "full", description="Training method: full (all weights; the default, as on the command "
        "line), lora, or qlora (4-bit base).")
    train_tokens: BigNumber = Field(..., gt=0, le=1e15, description="Training tokens, e.g. 1e8.")
    precision: Literal["bf16", "fp16", "fp8", "tf32"] = Field(
        "bf16", description="Training precision; sets the GPU's peak FLOP rate used for hours.")
    zero_stage: int = Field(0, ge=0, le=3, description="DeepSpeed ZeRO stage 0-3: how optimizer "
                            "state, gradients and weights are sharded across GPUs.")
    seq_len: int = Field(2048, ge=1, le=1_048_576, description="Sequence length in tokens.")
    micro_batch: int = Field(1, ge=1, le=4096, description="Sequences per GPU per step.")
    layers: Optional[int] = Field(None, ge=1, le=1000, description="Transformer layers (default: "
                                  "derived from model_params).")
    hidden: Optional[int] = Field(None, ge=1, le=1_000_000, description="Hidden size (default: "
                                  "derived from model_params).")
    heads: Optional[int] = Field(None, ge=1, le=10_000, description="Attention heads (default: "
                                 "derived from the hidden size).")
    recompute: bool = Field(False, description="Activation recomputation: less memory per GPU, "
                            "about a third more compute.")
    lora_rank: int = Field(16, ge=1, le=4096, description="LoRA/QLoRA adapter rank.")
    attention: Literal["sdpa", "eager"] = Field(
        "sdpa", description="How attention runs: sdpa (PyTorch scaled_dot_product_attention, "
        "fused kernels that never store the s x s scores) or eager (unfused attention, whose "
        "scores add 5*a*s/h per layer to the activation memory).")
    mfu: float = Field(0.4, gt=0, le=1, description="Model FLOPs utilisation, 0-1: the fraction "
                       "of the GPU's peak the job reaches.")
    max_hours: Optional[float] = Field(None, gt=0, le=730 * 12,
                                       description="Declared maximum lifetime of the cluster in hours.")

    _max_hours_floor = field_validator("max_hours")(_lifetime_floor)


CapacityType = Literal["on_demand", "spot", "reservation", "capacity_block", "flex_start"]
_NEEDS_RESERVATION = ("reservation", "capacity_block")


class CapacitySpec(_Strict):
    """How the nodes' capacity is obtained. Each cloud accepts the types it can really sell."""

    type: CapacityType = Field(
        "on_demand", description="on_demand | spot | reservation | capacity_block | flex_start. "
        "Which a cloud offers depends on the instance type (see docs/capacity.md).")
    reservation: Optional[str] = Field(
        None, description="Reservation name or id: required for reservation and capacity_block, "
        "refused for the others.")

    @model_validator(mode="after")
    def _reservation_fits_type(self) -> "CapacitySpec":
        if self.type in _NEEDS_RESERVATION and not self.reservation:
            raise ValueError(f"capacity type {self.type!r} needs `reservation:` (its name or id)")
        if self.type not in _NEEDS_RESERVATION and self.reservation:
            raise ValueError(f"`reservation:` is only for types reservation and capacity_block, "
                             f"not {self.type!r}; remove it or change the type")
        return self


class AwsLocation(_Strict):
    region: str
    zone: str
    capacity: Optional[CapacitySpec] = None
    instance_type: Optional[str] = None
    image_id: Optional[str] = Field(None, description="AMI; default: the AWS Deep Learning Base AMI.")
    fsx_efa: Optional[bool] = Field(
        None, description="EFA-enabled FSx for Lustre: true asks for it (EFA client types only), "
        "false never; default: only when it is the cheapest way to the requested throughput.")


class GcpLocation(_Strict):
    project: Optional[str] = None
    region: str
    zone: str
    billing_account: Optional[str] = None
    instance_type: Optional[str] = None
    capacity: Optional[CapacitySpec] = None
    topology_distance: Literal["block", "subblock"] = Field(
        "block", description="How close the workload policy keeps the nodes (maxTopologyDistance): "
        "block, or subblock (closer; fewer nodes fit, so capacity is scarcer).")


class AzureLocation(_Strict):
    region: str
    zone: str = "1"
    subscription_id: Optional[str] = None
    instance_type: Optional[str] = None
    capacity: Optional[CapacitySpec] = None


class AlicloudLocation(_Strict):
    region: str
    zone: str
    instance_type: Optional[str] = None
    capacity: Optional[CapacitySpec] = None


class CloudsSpec(_Strict):
    aws: Optional[AwsLocation] = None
    gcp: Optional[GcpLocation] = None
    azure: Optional[AzureLocation] = None
    alicloud: Optional[AlicloudLocation] = None

    def configured(self) -> list[str]:
        return [c for c in CLOUDS if getattr(self, c) is not None]


class ClusterSpec(_Strict):
    """A GPU training cluster, written once and built on any configured cloud."""

    name: str = Field(..., pattern=r"^[a-z][a-z0-9-]{1,28}[a-z0-9]$",
                      description="Lowercase, 3-30 chars; prefixes every resource name.")
    gpu: Annotated[list[str], WithJsonSchema({
        "anyOf": [{"type": "string"},
                  {"type": "array", "items": {"type": "string"}, "minItems": 1}]})] = Field(
        ..., min_length=1, description="Acceptable GPU models, preferred first; one name is fine.")
    nodes: int = Field(..., ge=1, le=512, description="8-GPU nodes, 1-512.")
    spot: bool = Field(False, description="Shorthand for capacity type spot on every cloud "
                       "whose section sets no capacity.")
    max_hours: Optional[float] = Field(
        None, gt=0, le=730 * 12, description="Declared maximum lifetime of the cluster in hours, "
        f"at least {MIN_LIFETIME_HOURS:g} (a deploy takes 20-30 minutes); each cloud stops compute "
        "at the deadline. workload.max_hours is the same (older) field.")
    interconnect: Literal["fastest", "rdma", "tcp"] = Field(
        "fastest", description="fastest: RDMA where the type has it; rdma: refuse types without "
        "it; tcp: never configure RDMA NICs.")
    filesystem: FilesystemSpec = FilesystemSpec()
    bucket: BucketSpec = BucketSpec()
    budget: BudgetSpec
    tags: dict[str, str] = Field(default_factory=dict, description="Cost-allocation tags (GCP "
                                 "labels) on every taggable resource.")
    access: AccessSpec = AccessSpec()
    idle: IdleSpec = IdleSpec()
    runtime: RuntimeSpec = RuntimeSpec()
    workload: Optional[WorkloadSpec] = None
    clouds: CloudsSpec

    _max_hours_floor = field_validator("max_hours")(_lifetime_floor)

    @field_validator("gpu", mode="before")
    @classmethod
    def _one_or_many(cls, v: Union[str, list]) -> list:
        return [v] if isinstance(v, str) else v

    @field_validator("tags")
    @classmethod
    def _tag_limits(cls, v: dict[str, str]) -> dict[str, str]:
        for key, value in v.items():
            if not key or len(key) > 128 or len(value) > 256:
                raise ValueError(f"tag {key[:40]!r}: keys are 1-128 characters, values at most 256")
            if key.lower().startswith(("aws:", "trainstack:")):
                raise ValueError(f"tag {key!r}: the aws: and trainstack: prefixes are reserved")
        return v

    @model_validator(mode="after")
    def _some_cloud(self) -> "ClusterSpec":
        if not self.clouds.configured():
            raise ValueError("clouds: configure at least one of " + ", ".join(CLOUDS))
        return self

    @model_validator(mode="after")
    def _one_lifetime(self) -> "ClusterSpec":
        wl = self.workload.max_hours if self.workload else None
        if self.max_hours is not None and wl is not None and wl != self.max_hours:
            raise ValueError(f"max_hours ({self.max_hours:g}) and workload.max_hours ({wl:g}) "
                             "differ; declare the lifetime once, as max_hours")
        return self

    @model_validator(mode="after")
    def _spot_agrees_with_capacity(self) -> "ClusterSpec":
        for cloud in self.clouds.configured():
            cap = getattr(self.clouds, cloud).capacity
            if self.spot and cap is not None and cap.type != "spot":
                raise ValueError(f"spot: true but clouds.{cloud}.capacity.type is {cap.type!r}; "
                                 "say it once: drop spot, or set the capacity type to spot")
        return self

    @property
    def lifetime_hours(self) -> Optional[float]:
        """The declared lifetime (top-level max_hours, else workload.max_hours), if any."""
        if self.max_hours is not None:
            return self.max_hours
        return self.workload.max_hours if self.workload else None

    def capacity(self, cloud: str) -> CapacitySpec:
        """The capacity for one cloud: its own section, else `spot: true`, else on demand."""
        cap = self.location(cloud).capacity
        if cap is not None:
            return cap
        return CapacitySpec(type="spot" if self.spot else "on_demand")

    def location(self, cloud: str):
        loc = getattr(self.clouds, cloud, None)
        if loc is None:
            raise SpecError(f"clouds.{cloud}", f"the spec has no {cloud} section.",
                            f"Add clouds.{cloud} with its region and zone, or pick one of: "
                            + ", ".join(self.clouds.configured()) + ".")
        return loc


_PLAIN_SEGMENT = re.compile(r"^[][A-Za-z0-9_:@/+=-]+$")


def _field_path(loc: tuple) -> str:
    """`budget.emails.0`; a key that is blank, spaced or odd is quoted so it stays visible."""
    parts = [str(p) if isinstance(p, int) or _PLAIN_SEGMENT.match(str(p)) else repr(str(p))
             for p in loc]
    return ".".join(parts) or "(top level)"


_HINTS = {
    "extra_forbidden": "Remove it or fix its spelling; `trainstack schema` lists every field.",
    "missing": "Add it; `trainstack schema` shows its type.",
}




def _model_at(loc: tuple):
    """The spec model that holds the field at `loc` (None below a free-form mapping)."""
    import typing
    model: object = ClusterSpec
    for part in loc[:-1]:
        fields = getattr(model, "model_fields", None)
        if fields is None or not isinstance(part, str) or part not in fields:
            return None
        annotation = fields[part].annotation
        candidates = [annotation, *typing.get_args(annotation)]
        model = next((c for c in candidates if isinstance(c, type) and issubclass(c, BaseModel)),
                     None)
        if model is None:
            return None
    return model


def _did_you_mean(loc: tuple) -> str:
    """" (did you mean `nodes`?)" for a misspelt key, from the fields the model at loc knows."""
    import difflib
    model = _model_at(loc)
    if model is None or not loc or not isinstance(loc[-1], str):
        return ""
    known = list(getattr(model, "model_fields", {}))
    close = difflib.get_close_matches(loc[-1], known, n=1, cutoff=0.6)
    return f" Did you mean `{close[0]}`?" if close else ""


def spec_error_from_validation(err: ValidationError, source: str) -> SpecError:
    """The first pydantic error as one readable paragraph naming the field. An unknown key
    comes before everything else: `node: 2` is a typo of `nodes`, and reporting only that
    `nodes` is missing would hide the cause."""
    errors = err.errors()
    errors.sort(key=lambda e: e["type"] != "extra_forbidden")   # stable: the rest keep order
    first = errors[0]
    field = _field_path(first["loc"])
    first["msg"] = first["msg"].removeprefix("Value error, ")  # pydantic's prefix says nothing
    problem = first["msg"]
    if first["type"] == "extra_forbidden":
        problem = "is not a known field." + _did_you_mean(tuple(first["loc"]))
    elif first["type"] == "missing":
        problem = "is required but missing."
    elif "input" in first and first["type"] != "missing" and not isinstance(first["input"], dict):
        # a mapping (tags, a whole section) is not repeated back: the message names the item
        got = repr(first["input"])
        problem = f"{first['msg']} (got {got if len(got) <= 200 else got[:200] + '...'})."
    elif first["type"] != "missing":
        problem = f"{first['msg']}."
    more = len(errors) - 1
    fix = _HINTS.get(first["type"], f"Fix the value in {source}.")
    if more:
        fix += f" ({more} more problem{'s' if more > 1 else ''} after this one.)"
    return SpecError(field, problem, fix)


def parse_spec(data: object, source: str = "cluster.yaml") -> ClusterSpec:
    if not isinstance(data, dict):
        raise SpecError(source, "is not a mapping of spec fields.", START_HINT)
    try:
        return ClusterSpec.model_validate(data)
    except ValidationError as err:
        raise spec_error_from_validation(err, source) from None


def read_spec_data(path: Path) -> dict:
    if not path.exists() and not path.is_dir():
        raise SpecError(str(path), "does not exist.",
                        "Pass --spec with the path of your cluster.yaml (`trainstack init` "
                        "writes one).")
    data = load_yaml(path, "cluster spec")
    if data is None:
        raise SpecError(str(path), "is empty: it holds no spec fields.",
                        START_HINT)
    if not isinstance(data, dict):
        raise SpecError(str(path), "is not a YAML mapping of spec fields.", START_HINT)
    return data


def load_spec(path: Path) -> ClusterSpec:
    return parse_spec(read_spec_data(path), str(path))


def deep_merge(base: dict, override: dict) -> dict:
    """Merge stack overrides into the shared spec: mappings merge, everything else replaces.

    Pulumi replaces whole config objects (pulumi/pulumi#13176), so trainstack merges itself.
    """
    out = dict(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = deep_merge(out[key], value)
        else:
            out[key] = value
    return out


def zone_in_region(zone: str, region: str, separator: Optional[str] = None) -> bool:
    """AWS/GCP/Alibaba zones are the region plus a letter suffix: `us-east-1a` (separator ""),
    `us-central1-a`, `cn-hangzhou-h` (separator "-"); None accepts either."""
    if not zone.startswith(region):
        return False
    suffix = zone[len(region):]
    if separator is None:
        suffix = suffix[1:] if suffix.startswith("-") else suffix
    elif not suffix.startswith(separator):
        return False
    else:
        suffix = suffix[len(separator):]
    return bool(_ZONE_SUFFIX.match(suffix))
