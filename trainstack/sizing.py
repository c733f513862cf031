"""Sizing, time and cost arithmetic behind `trainstack estimate` and `compare` (issue 5).

Pure functions: no Pulumi, no file reads. GPU figures and prices come in as arguments (the
catalog supplies them; see trainstack/gpu_catalog.py), so every number here can be checked
by hand. Units: bytes, FLOPs, hours, and whatever currency the prices are in.

Sources for the formulas (cited again where used):
  [ZeRO]   Rajbhandari et al. 2020, "ZeRO: Memory Optimizations Toward Training Trillion
           Parameter Models", sec. 3.1 and Fig. 1: mixed-precision Adam keeps 2 B fp16 weights,
           2 B fp16 gradients and K = 12 B of fp32 state (master weights, momentum, variance)
           per parameter; stage 1 partitions the optimizer state over the Nd data-parallel
           GPUs, stage 2 also the gradients, stage 3 also the weights.
  [LoRA]   Hu et al. 2021, "LoRA: Low-Rank Adaptation of Large Language Models", sec. 4.
  [QLoRA]  Dettmers et al. 2023, "QLoRA: Efficient Finetuning of Quantized LLMs", sec. 3
           (NF4, blocksize 64; double quantization: 0.127 bits/param of constants).
  [Act]    Korthikanti et al. 2022, "Reducing Activation Recomputation in Large Transformer
           Models", sec. 4, eq. (1) and Table 2 (tensor parallel size t = 1).
  [Kaplan] Kaplan et al. 2020, "Scaling Laws for Neural Language Models", sec. 2.1:
           training compute C = 6 N T; non-embedding N = 12 n_layer d_model^2.
  [PaLM]   Chowdhery et al. 2022, appendix B: MFU counts model FLOPs only (so activation
           recomputation lowers the achieved MFU, it does not add FLOPs here).
  [LLaMA]  Touvron et al. 2023, "LLaMA: Open and Efficient Foundation Language Models",
           Table 2; Llama 2 70B: meta-llama/Llama-2-70b-hf config.json.
  [Seed]   ../shared/reference/seed-article.txt sec. 3.1 and 3.3 (the users' cost model).
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, replace
from typing import Any, Optional, Union

from components.catalog.gpu_models import PRECISIONS  # noqa: F401  (one list of precisions)
from components.errors import SizingError  # noqa: F401  (re-exported: callers catch it here)

METHODS = ("full", "lora", "qlora")
RECOMPUTE_MODES = ("none", "selective", "full")

MAX_PARAMS = 1e13        # 10 T parameters: anything above is a unit mistake (e.g. 13e12 for 13B)
MAX_TOKENS = 1e15
DEFAULT_MFU = 0.4        # [Seed] sec. 3.1 "利用率约0.4"
DEFAULT_HEADROOM = 0.10  # CUDA context, allocator fragmentation, comm buffers, the one layer
                         # being rematerialised under recompute: none of these is in the formulas
DEFAULT_LORA_RANK = 16
DEFAULT_LORA_TARGETS = 4  # q, k, v, o projections, each treated as hidden x hidden
DEFAULT_IDLE_OVERHEAD = 0.15      # [Seed] sec. 3.3: idle GPUs while setting up and debugging
DEFAULT_PREEMPTION_OVERHEAD = 0.10  # spot: lost work redone after reclaims + restart time
HOURS_PER_MONTH = 730    # the month that per-GB-month storage prices are quoted over

# Bytes per parameter for (weights, gradients, optimizer state).
# 16-bit mixed precision per [ZeRO]; FP8 (Transformer Engine) keeps the same 16-bit weights and
# fp32 master/Adam state, so it is sized like bf16 (its smaller activations are not modelled,
# which errs on the safe side). tf32 = plain fp32 training: 4 + 4 + 8 (momentum, variance; the
# weights are already fp32, so no master copy).
_STATE_BYTES = {"bf16": (2, 2, 12), "fp16": (2, 2, 12), "fp8": (2, 2, 12), "tf32": (4, 4, 8)}
# [Act] counts 16-bit activations; fp32 activations take twice the bytes.
_ACTIVATION_SCALE = {"bf16": 1, "fp16": 1, "fp8": 1, "tf32": 2}

# [QLoRA] NF4 stores 4 bits per weight plus quantisation constants. With double quantization
# (the paper's default) the constants cost 8/64 + 32/(64*256) = 0.127 bits per parameter:
# an 8-bit absmax per 64-weight block plus an fp32 constant per 256 of those.
QLORA_CONSTANT_BITS = 8 / 64 + 32 / (64 * 256)
QLORA_BYTES_PER_PARAM = (4 + QLORA_CONSTANT_BITS) / 8

# FLOPs per parameter per token. Full training: forward 2 + backward 4 [Kaplan]. LoRA/QLoRA:
# forward 2 + backward 2 for the activation gradients that must still flow through every frozen
# layer; the frozen weights get no weight gradients (the other 2). The adapters' own FLOPs are
# ~1% of the base and are ignored.
FLOPS_FACTOR = {"full": 6.0, "lora": 4.0, "qlora": 4.0}

# Scaling efficiency = achieved / linear speed-up, on top of MFU. One node: 1.0, because MFU
# already absorbs intra-node (NVLink) losses. Across nodes the fabric decides [Seed] sec. 1-3:
# without RDMA "你花了 8 卡的价钱，实际扩展效率只有 5 卡水平" -> 5/8; with RDMA (IB, RoCE, EFA,
# eRDMA) the article expects near-linear scaling, for which we assume 0.9. Both are defaults
# for planning, not measurements: pass scaling_efficiency (--scaling-efficiency) when you have
# a benchmark.
SCALING_EFFICIENCY = {"single_node": 1.0, "rdma": 0.9, "tcp": 5 / 8}
# Catalog fabric names (instance_types.csv `fabric`) -> class. GPUDirect-TCPX(O) is not RDMA
# and the catalog marks it rdma=false, so it takes the conservative TCP figure.
FABRIC_CLASS = {"rdma": "rdma", "efa": "rdma", "infiniband": "rdma", "ib": "rdma",
                "roce": "rdma", "erdma": "rdma", "tcp": "tcp", "gpudirect-tcpx": "tcp",
                "gpudirect-tcpxo": "tcp"}




# --------------------------------------------------------------------------- validation helpers

def _positive_int(field: str, value: Any, maximum: int, hint: str = "") -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= maximum:
        raise SizingError(field, f"must be a whole number from 1 to {maximum:,}, got {value!r}."
                          + (f" {hint}" if hint else ""))
    return value


def _in_range(field: str, value: Any, low: float, high: float, hint: str,
              low_open: bool = True) -> float:
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    ok = ok and (value > low if low_open else value >= low) and value <= high
    if not ok:
        bracket = "(" if low_open else "["
        raise SizingError(field, f"must be in {bracket}{low:g}, {high:g}], got {value!r}. {hint}")
    return float(value)


def check_params(params: Any) -> float:
    return _in_range("params", params, 0, MAX_PARAMS,
                     "Give the parameter count itself, e.g. 13e9 for a 13B model.")


def check_tokens(tokens: Any) -> float:
    return _in_range("tokens", tokens, 0, MAX_TOKENS,
                     "Give the number of training tokens, e.g. 1e8 (epochs x dataset tokens).")


def check_mfu(mfu: Any) -> float:
    return _in_range("mfu", mfu, 0, 1, "MFU is a fraction of peak, e.g. 0.4 for 40%.")


def check_scaling_efficiency(value: Any) -> float:
    return _in_range("scaling_efficiency", value, 0, 1,
                     "It is a fraction of linear speed-up, e.g. 0.9; omit it for the default.")


def check_headroom(value: Any) -> float:
    return _in_range("headroom", value, 0, 0.9, "It is the fraction of GPU memory kept free, "
                     "e.g. 0.1.", low_open=False)


def _normalise_recompute(value: Union[bool, str, None]) -> str:
    if value is None or value is False:
        return "none"
    if value is True:
        return "full"
    if isinstance(value, str) and value.lower() in RECOMPUTE_MODES:
        return value.lower()
    raise SizingError("recompute", f"unknown mode {value!r}; use true/false or one of "
                      f"{', '.join(RECOMPUTE_MODES)}.")


# --------------------------------------------------------------------------- model shape

@dataclass(frozen=True)
class ModelShape:
    layers: int
    hidden: int
    heads: int
    source: str = "given"


@dataclass(frozen=True)
class Preset:
    params: float
    shape: ModelShape


_LLAMA1 = "LLaMA paper (Touvron et al. 2023) Table 2"
PRESETS = {
    "llama-7b": Preset(6.7e9, ModelShape(32, 4096, 32, _LLAMA1)),
    "llama-13b": Preset(13.0e9, ModelShape(40, 5120, 40, _LLAMA1)),
    "llama-33b": Preset(32.5e9, ModelShape(60, 6656, 52, _LLAMA1)),
    "llama-65b": Preset(65.2e9, ModelShape(80, 8192, 64, _LLAMA1)),
    "llama-70b": Preset(70e9, ModelShape(80, 8192, 64, "Llama-2-70b-hf config.json "
                                                          "(80 layers, hidden 8192, 64 heads)")),
}

# Hidden size per layer of the models above is ~128 x layers (4096/32, 5120/40, 6656/52 ...)
# and their head dimension is 128; used only when no shape is given.
_ASPECT_RATIO = 128
_HEAD_DIM = 128


def shape_from_params(params: float) -> ModelShape:
    """A plausible decoder shape for `params` when none is given.

    Solves params = 12 * L * h^2 [Kaplan] with h = 128 * L for L, rounds L to a whole layer
    count and keeps h = 128 * L with 128-wide heads (so heads = L). Rounding L moves the implied
    size by a few percent, which only matters for the activation estimate. It reproduces
    LLaMA-7B (6.7e9: 32 x 4096 x 32), LLaMA-13B (13e9: 40 x 5120 x 40) and GPT-3 175B
    (96 x 12288 x 96, Brown et al. 2020) exactly.
    """
    params = check_params(params)
    layers = max(1, round((params / (12 * _ASPECT_RATIO ** 2)) ** (1 / 3)))
    hidden = _ASPECT_RATIO * layers
    return ModelShape(layers, hidden, hidden // _HEAD_DIM,
                      "derived from params: 12*L*h^2 with h = 128*L (Kaplan et al. 2020)")


# --------------------------------------------------------------------------- workload

@dataclass(frozen=True)
class Workload:
    """What is trained and how. `gpus` is the data-parallel GPU count that ZeRO shards over."""
    params: Optional[float] = None
    method: str = "full"
    precision: str = "bf16"
    zero_stage: int = 0
    gpus: int = 1
    seq_len: int = 2048
    micro_batch: int = 1
    layers: Optional[int] = None
    hidden: Optional[int] = None
    heads: Optional[int] = None
    preset: Optional[str] = None
    recompute: Union[bool, str] = False   # normalised to "none" | "selective" | "full"
    lora_rank: int = DEFAULT_LORA_RANK
    lora_targets: int = DEFAULT_LORA_TARGETS

    def __post_init__(self) -> None:
        if self.preset is not None and self.preset not in PRESETS:
            raise SizingError("preset", f"unknown model preset {self.preset!r}; use one of "
                              f"{', '.join(PRESETS)} or give --layers/--hidden/--heads.")
        if self.params is None:
            if self.preset is None:
                raise SizingError("params", "is required: give the parameter count, e.g. 13e9, "
                                  "or a model preset.")
            object.__setattr__(self, "params", PRESETS[self.preset].params)
        check_params(self.params)
        if self.method not in METHODS:
            raise SizingError("method", f"unknown method {self.method!r}; use one of "
                              f"{', '.join(METHODS)}.")
        if self.precision not in PRECISIONS:
            raise SizingError("precision", f"unknown precision {self.precision!r}; use one of "
                              f"{', '.join(PRECISIONS)}.")
        if isinstance(self.zero_stage, bool) or self.zero_stage not in (0, 1, 2, 3):
            raise SizingError("zero_stage", f"must be 0, 1, 2 or 3 (DeepSpeed ZeRO stage), got "
                              f"{self.zero_stage!r}.")
        _positive_int("gpus", self.gpus, 1_000_000)
        _positive_int("seq_len", self.seq_len, 1_048_576)
        _positive_int("micro_batch", self.micro_batch, 4096, "It is sequences per GPU per step.")
        dims = (self.layers, self.hidden, self.heads)
        if any(d is not None for d in dims) and any(d is None for d in dims):
            raise SizingError("layers/hidden/heads", "give all three together, or none of them "
                              "(a preset or the parameter count then fills them in).")
        if self.layers is not None:
            _positive_int("layers", self.layers, 1000)
            _positive_int("hidden", self.hidden, 1_000_000)
            _positive_int("heads", self.heads, 10_000)
        _positive_int("lora_rank", self.lora_rank, 4096)
        _positive_int("lora_targets", self.lora_targets, 64,
                      "It is the number of hidden x hidden matrices adapted per layer.")
        object.__setattr__(self, "recompute", _normalise_recompute(self.recompute))

    @property
    def shape(self) -> ModelShape:
        if self.layers is not None:
            return ModelShape(self.layers, self.hidden, self.heads, "given")
        if self.preset is not None:
            return PRESETS[self.preset].shape
        return shape_from_params(self.params)

    @property
    def adapter_params(self) -> int:
        """LoRA trainable parameters [LoRA]: an A (r x h) and a B (h x r) matrix per adapted
        hidden x hidden projection, in every layer. 0 for full training."""
        if self.method == "full":
            return 0
        s = self.shape
        return 2 * self.lora_rank * s.hidden * self.lora_targets * s.layers

    def with_gpus(self, gpus: int) -> "Workload":
        return replace(self, gpus=gpus)

    @classmethod
    def from_spec(cls, spec: Any, gpus: int = 1, **overrides: Any) -> "Workload":
        """Build from the spec's `workload` section (duck-typed, so no import of the spec)."""
        fields = dict(params=spec.model_params, method=spec.method,
                      precision=spec.precision, zero_stage=spec.zero_stage, gpus=gpus,
                      seq_len=spec.seq_len, micro_batch=spec.micro_batch, layers=spec.layers,
                      hidden=spec.hidden, heads=spec.heads, recompute=spec.recompute,
                      lora_rank=spec.lora_rank)
        fields.update(overrides)
        return cls(**fields)


# --------------------------------------------------------------------------- memory

@dataclass(frozen=True)
class MemoryBreakdown:
    """Bytes per GPU."""
    weights: int
    gradients: int
    optimizer: int
    activations: int

    @property
    def total(self) -> int:
        return self.weights + self.gradients + self.optimizer + self.activations

    def as_dict(self) -> dict[str, int]:
        return {**asdict(self), "total": self.total}


def activation_bytes(shape: ModelShape, seq_len: int, micro_batch: int,
                     recompute: Union[bool, str] = "none", precision: str = "bf16") -> int:
    """Activation memory of the transformer layers on one GPU [Act], tensor parallel size 1.

    Per layer: none -> s*b*h*(34 + 5*a*s/h); selective (attention recomputed, what
    FlashAttention also gives) -> 34*s*b*h; full (only each layer's input kept) -> 2*s*b*h.
    Embedding and logits buffers are not counted (small next to L layers; left to headroom).
    """
    mode = _normalise_recompute(recompute)
    s, b, h, a = seq_len, micro_batch, shape.hidden, shape.heads
    if mode == "full":
        per_layer = 2 * s * b * h
    elif mode == "selective":
        per_layer = 34 * s * b * h
    else:
        per_layer = s * b * h * (34 + 5 * a * s / h)
    return math.ceil(per_layer * shape.layers * _ACTIVATION_SCALE[precision])


def _unsharded_state(w: Workload) -> tuple[float, float, float]:
    """(weights, gradients, optimizer) bytes before any ZeRO partitioning."""
    wb, gb, ob = _STATE_BYTES[w.precision]
    if w.method == "full":
        return wb * w.params, gb * w.params, ob * w.params
    # LoRA/QLoRA: frozen base weights (16-bit, or NF4 + constants) plus the adapters trained
    # with the same mixed-precision Adam as full training, on the adapter parameters only.
    base = w.params * (QLORA_BYTES_PER_PARAM if w.method == "qlora" else wb)
    a = w.adapter_params
    return base + wb * a, gb * a, ob * a


def estimate_memory(w: Workload) -> MemoryBreakdown:
    """Per-GPU memory of `w` on `w.gpus` data-parallel GPUs.

    ZeRO [ZeRO]: stage >= 1 divides the optimizer state by the GPU count, >= 2 also the
    gradients, 3 also the weights. The same rules apply to LoRA/QLoRA (stage 3 shards the
    frozen base weights too, as DeepSpeed ZeRO-3 partitions every parameter). Activations
    depend on the per-GPU micro-batch, so they never shrink with more GPUs.
    """
    weights, grads, opt = _unsharded_state(w)
    n = w.gpus
    if w.zero_stage >= 1:
        opt /= n
    if w.zero_stage >= 2:
        grads /= n
    if w.zero_stage >= 3:
        weights /= n
    acts = activation_bytes(w.shape, w.seq_len, w.micro_batch, w.recompute, w.precision)
    return MemoryBreakdown(math.ceil(weights), math.ceil(grads), math.ceil(opt), acts)


def usable_bytes(gpu_memory_bytes: float, headroom: float = DEFAULT_HEADROOM) -> float:
    if not isinstance(gpu_memory_bytes, (int, float)) or gpu_memory_bytes <= 0:
        raise SizingError("gpu_memory", f"must be positive bytes, got {gpu_memory_bytes!r}.")
    return gpu_memory_bytes * (1 - check_headroom(headroom))


def fits(memory: MemoryBreakdown, gpu_memory_bytes: float,
         headroom: float = DEFAULT_HEADROOM) -> bool:
    """True when the per-GPU total stays within the GPU's memory less `headroom`."""
    return memory.total <= usable_bytes(gpu_memory_bytes, headroom)


def min_gpus_that_fit(w: Workload, gpu_memory_bytes: float, headroom: float = DEFAULT_HEADROOM,
                      max_gpus: int = 1_000_000) -> Optional[int]:
    """Smallest data-parallel GPU count at which `w` fits, or None if no count does.

    Only ZeRO-sharded terms shrink with the count, so the answer is None when the unsharded
    part alone (activations, plus whatever the stage leaves whole) exceeds the usable memory:
    always the case for stage 0 when one GPU is not enough.
    """
    usable = usable_bytes(gpu_memory_bytes, headroom)
    one = estimate_memory(w.with_gpus(1))
    if one.total <= usable:
        return 1
    sharded = ((one.optimizer if w.zero_stage >= 1 else 0)
               + (one.gradients if w.zero_stage >= 2 else 0)
               + (one.weights if w.zero_stage >= 3 else 0))
    fixed = one.total - sharded
    if sharded == 0 or fixed >= usable:
        return None
    # fixed + sharded / n <= usable  =>  n >= sharded / (usable - fixed). Rounding each term up
    # to whole bytes can only push the real answer up, never down, so step up from there.
    n = max(2, math.ceil(sharded / (usable - fixed)))
    while n <= max_gpus and estimate_memory(w.with_gpus(n)).total > usable:
        n += 1
    return n if n <= max_gpus else None


def no_fit_reason(w: Workload, gpu_memory_bytes: float,
                  headroom: float = DEFAULT_HEADROOM) -> str:
    """One sentence for the 'does not fit at any GPU count' case, naming the way out."""
    one = estimate_memory(w.with_gpus(1))
    usable = usable_bytes(gpu_memory_bytes, headroom)
    gib = 2 ** 30
    if w.zero_stage == 0:
        return (f"does not fit at any GPU count: {one.total / gib:.1f} GiB per GPU with ZeRO "
                f"stage 0 (nothing is sharded) against {usable / gib:.1f} GiB usable; use ZeRO "
                f"stage 2/3, LoRA/QLoRA, recomputation or a smaller micro-batch.")
    return (f"does not fit at any GPU count: the part ZeRO stage {w.zero_stage} does not shard "
            f"(activations {one.activations / gib:.1f} GiB and unsharded state) exceeds "
            f"{usable / gib:.1f} GiB usable; use a higher ZeRO stage, recomputation, a shorter "
            f"sequence or a smaller micro-batch.")


# --------------------------------------------------------------------------- FLOPs and time

def training_flops(params: float, tokens: float, method: str = "full",
                   flops_factor: Optional[float] = None) -> float:
    """k * params * tokens; k from FLOPS_FACTOR unless `flops_factor` overrides it (e.g. 2 to
    reproduce the seed article's 2 x N x T estimate)."""
    params, tokens = check_params(params), check_tokens(tokens)
    if method not in METHODS:
        raise SizingError("method", f"unknown method {method!r}; use one of {', '.join(METHODS)}.")
    if flops_factor is None:
        k = FLOPS_FACTOR[method]
    else:
        k = _in_range("flops_factor", flops_factor, 0, 100,
                      "It is FLOPs per parameter per token: 6 for full training, 4 for LoRA.")
    return k * params * tokens


def fabric_class(fabric: str) -> str:
    """'rdma' or 'tcp' for a fabric name from the catalog (efa, infiniband, roce, ...)."""
    key = str(fabric).strip().lower()
    if key not in FABRIC_CLASS:
        raise SizingError("fabric", f"unknown fabric {fabric!r}; use rdma or tcp (or one of "
                          f"{', '.join(sorted(FABRIC_CLASS))}).")
    return FABRIC_CLASS[key]


def default_scaling_efficiency(nodes: int, fabric: str = "rdma") -> float:
    """The planning default from SCALING_EFFICIENCY: 1.0 on one node, else by fabric class."""
    _positive_int("nodes", nodes, 1_000_000)
    cls = fabric_class(fabric)
    return SCALING_EFFICIENCY["single_node"] if nodes == 1 else SCALING_EFFICIENCY[cls]


def training_hours(flops: float, gpus: int, peak_tflops: float, mfu: float = DEFAULT_MFU,
                   scaling_efficiency: float = 1.0) -> float:
    """FLOPs / (gpus x peak x MFU) / 3600 / scaling efficiency."""
    if not isinstance(flops, (int, float)) or not math.isfinite(flops) or flops <= 0:
        raise SizingError("training_flops", f"must be positive, got {flops!r}.")
    _positive_int("gpus", gpus, 1_000_000)
    peak = _in_range("peak_tflops", peak_tflops, 0, 1e6,
                     "Give the GPU's dense peak in TFLOPS for the precision, e.g. 312 for A100.")
    seconds = flops / (gpus * peak * 1e12 * check_mfu(mfu))
    return seconds / 3600 / check_scaling_efficiency(scaling_efficiency)


# --------------------------------------------------------------------------- cost

@dataclass(frozen=True)
class CostBreakdown:
    """Cost of one run. `compute` and `storage` already include the overheads; `overhead` says
    how much of them the idle/debug and preemption allowances added."""
    currency: str
    hours: float           # training hours from training_hours()
    billed_hours: float    # hours x (1 + idle) x (1 + preemption if spot)
    compute: float
    filesystem: float
    bucket: float
    transfer: float
    overhead: float

    @property
    def storage(self) -> float:
        return self.filesystem + self.bucket

    @property
    def total(self) -> float:
        return self.compute + self.storage + self.transfer

    def converted(self, rate: float, currency: str) -> "CostBreakdown":
        """The same run in another currency; `rate` = target units per current unit."""
        r = _in_range("rate", rate, 0, 1e6, "Give the exchange rate, e.g. --cny-rate 7.27.")
        return replace(self, currency=currency, compute=self.compute * r,
                       filesystem=self.filesystem * r, bucket=self.bucket * r,
                       transfer=self.transfer * r, overhead=self.overhead * r)

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "storage": self.storage, "total": self.total}


def _price(field: str, value: Any) -> float:
    return _in_range(field, value, 0, 1e9, "Prices and sizes cannot be negative.",
                     low_open=False)


def run_cost(*, nodes: int, price_per_node_hour: float, hours: float,
             filesystem_gib: float = 0, filesystem_price_per_gib_month: float = 0,
             bucket_gb: float = 0, bucket_price_per_gb_month: float = 0,
             transfer_gb: float = 0, transfer_price_per_gb: float = 0,
             idle_overhead: float = DEFAULT_IDLE_OVERHEAD, spot: bool = False,
             preemption_overhead: float = DEFAULT_PREEMPTION_OVERHEAD,
             currency: str = "USD") -> CostBreakdown:
    """Price the planned run, not a month [Seed] sec. 3.3.

    compute  = nodes x $/node-hour x billed hours (pass the spot price with spot=True)
    storage  = filesystem GiB x $/GiB-month x billed hours / 730
             + bucket GB x $/GB-month x billed hours / 730 (both exist for the whole run)
    transfer = GB x $/GB (free tiers are not deducted)
    billed hours = hours x (1 + idle_overhead) x (1 + preemption_overhead if spot)
    Overheads are fractions (0.15 = 15%).
    """
    _positive_int("nodes", nodes, 1_000_000)
    hours = _price("hours", hours)
    idle = _in_range("idle_overhead", idle_overhead, 0, 10,
                     "It is a fraction of the run, e.g. 0.15 for 15%.", low_open=False)
    pre = _in_range("preemption_overhead", preemption_overhead, 0, 10,
                    "It is a fraction of the run, e.g. 0.1 for 10%.", low_open=False)
    billed = hours * (1 + idle) * (1 + (pre if spot else 0))
    compute = nodes * _price("price_per_node_hour", price_per_node_hour) * billed
    months = billed / HOURS_PER_MONTH
    fs = (_price("filesystem_gib", filesystem_gib)
          * _price("filesystem_price_per_gib_month", filesystem_price_per_gib_month) * months)
    bucket = (_price("bucket_gb", bucket_gb)
              * _price("bucket_price_per_gb_month", bucket_price_per_gb_month) * months)
    transfer = _price("transfer_gb", transfer_gb) * _price("transfer_price_per_gb",
                                                           transfer_price_per_gb)
    overhead = (compute + fs + bucket) * (1 - hours / billed) if billed else 0.0
    return CostBreakdown(currency, hours, billed, compute, fs, bucket, transfer, overhead)


def monthly_run_rate(*, nodes: int, price_per_node_hour: float, filesystem_gib: float = 0,
                     filesystem_price_per_gib_month: float = 0, bucket_gb: float = 0,
                     bucket_price_per_gb_month: float = 0) -> float:
    """What the cluster costs per 730-hour month if left running (the Infracost view)."""
    _positive_int("nodes", nodes, 1_000_000)
    return (nodes * _price("price_per_node_hour", price_per_node_hour) * HOURS_PER_MONTH
            + _price("filesystem_gib", filesystem_gib)
            * _price("filesystem_price_per_gib_month", filesystem_price_per_gib_month)
            + _price("bucket_gb", bucket_gb)
            * _price("bucket_price_per_gb_month", bucket_price_per_gb_month))


# --------------------------------------------------------------------------- one-call estimate

def estimate(workload: Workload, tokens: float, *, gpu: Any = None,
             gpu_models: Optional[dict] = None, peak_tflops: Optional[float] = None,
             mfu: float = DEFAULT_MFU, flops_factor: Optional[float] = None,
             scaling_efficiency: Optional[float] = None, gpus_per_node: int = 8,
             fabric: str = "rdma", headroom: float = DEFAULT_HEADROOM) -> dict[str, Any]:
    """Everything `trainstack estimate --json` prints, as plain JSON types.

    `gpu` is a GPU model (trainstack.gpu_catalog.GpuModel or anything with .name,
    .memory_bytes and .peak_tflops(precision)) or its catalog name; `gpu_models` is the table
    used for the per-model fit check (loaded from the catalog when omitted).
    """
    if gpu_models is None or isinstance(gpu, str):
        from trainstack import gpu_catalog  # lazy: keeps this module free of file reads
        gpu_models = gpu_catalog.load_gpu_models() if gpu_models is None else gpu_models
        if isinstance(gpu, str):
            gpu = gpu_catalog.get_gpu_model(gpu, gpu_models)
    w = workload
    check_headroom(headroom)
    _positive_int("gpus_per_node", gpus_per_node, 1024)
    mem = estimate_memory(w)
    flops = training_flops(w.params, tokens, w.method, flops_factor)
    nodes = math.ceil(w.gpus / gpus_per_node)
    eff = (default_scaling_efficiency(nodes, fabric) if scaling_efficiency is None
           else check_scaling_efficiency(scaling_efficiency))
    check_mfu(mfu)

    result: dict[str, Any] = {
        "workload": {
            "params": w.params, "method": w.method, "precision": w.precision,
            "zero_stage": w.zero_stage, "gpus": w.gpus, "seq_len": w.seq_len,
            "micro_batch": w.micro_batch, "recompute": w.recompute,
            "lora_rank": w.lora_rank if w.method != "full" else None,
            "adapter_params": w.adapter_params, "shape": asdict(w.shape), "tokens": tokens,
        },
        "per_gpu_bytes": mem.as_dict(),
        "headroom": headroom,
        "gpu": None, "gpu_memory_bytes": None, "fits": None,
        "min_gpus": None, "min_gpus_note": None,
        "fits_by_gpu": {},
        "training_flops": flops,
        "flops_factor": flops / (w.params * tokens),
        "peak_tflops": None, "peak_source": None, "mfu": mfu,
        "nodes": nodes, "gpus_per_node": gpus_per_node, "fabric": fabric,
        "scaling_efficiency": eff,
        "hours": None, "hours_note": None,
    }
    for name, model in gpu_models.items():
        n = min_gpus_that_fit(w, model.memory_bytes, headroom)
        result["fits_by_gpu"][name] = {"memory_gb": model.memory_gb,
                                       "fits": fits(mem, model.memory_bytes, headroom),
                                       "min_gpus": n}
    if gpu is not None:
        result["gpu"] = gpu.name
        result["gpu_memory_bytes"] = gpu.memory_bytes
        result["fits"] = fits(mem, gpu.memory_bytes, headroom)
        result["min_gpus"] = min_gpus_that_fit(w, gpu.memory_bytes, headroom)
        if result["min_gpus"] is None:
            result["min_gpus_note"] = no_fit_reason(w, gpu.memory_bytes, headroom)
    if peak_tflops is not None:
        result["peak_tflops"], result["peak_source"] = peak_tflops, "override"
    elif gpu is not None and gpu.peak_tflops(w.precision) is not None:
        result["peak_tflops"], result["peak_source"] = gpu.peak_tflops(w.precision), "datasheet"
    if result["peak_tflops"] is None:
        result["hours_note"] = (f"no dense {w.precision} peak for "
                                f"{gpu.name if gpu is not None else 'an unnamed GPU'}; "
                                f"pass --gpu with a datasheet figure or --peak-tflops.")
    else:
        result["hours"] = training_hours(flops, w.gpus, result["peak_tflops"], mfu, eff)
    return result
