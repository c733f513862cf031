"""The workload memory model: model shape, per-GPU bytes, whether and where a workload fits.

Split out of trainstack/cost/sizing.py (issue 10) so that the one instance-type selection
(`trainstack_components.base.Cloud.select`) can skip GPUs a workload cannot fit, inside the Pulumi program
as well as in `plan`, `check`, `estimate` and `compare`. Pure functions: no Pulumi, no file
reads. Sources ([ZeRO], [LoRA], [QLoRA], [Act], [Kaplan], [LLaMA]) are listed in
trainstack/cost/sizing.py.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, replace
from typing import Any, Optional, Union

from trainstack_components.catalog.gpu_models import PRECISIONS  # noqa: F401  (one list of precisions)
from trainstack_components.errors import SizingError  # noqa: F401  (re-exported)

METHODS = ("full", "lora", "qlora")
RECOMPUTE_MODES = ("none", "selective", "full")
# How attention runs. "sdpa": torch.nn.functional.scaled_dot_product_attention, which picks a
# fused kernel (FlashAttention-2, memory-efficient or cuDNN; the MATH backend is only a fallback)
# that never stores the s x s score, softmax and dropout tensors: the 5*a*s/h term of [Act] does
# not materialise (https://docs.pytorch.org/docs/stable/generated/
# torch.nn.functional.scaled_dot_product_attention.html and torch.nn.attention.SDPBackend).
# "eager": the unfused attention [Act] eq. (1) counts. SDPA is what PyTorch models use today.
ATTENTION_KINDS = ("sdpa", "eager")
DEFAULT_ATTENTION = "sdpa"

MAX_PARAMS = 1e13        # 10 T parameters: anything above is a unit mistake (e.g. 13e12 for 13B)
MAX_TOKENS = 1e15
DEFAULT_MFU = 0.4        # [Seed] sec. 3.1 "利用率约0.4"
DEFAULT_HEADROOM = 0.10  # CUDA context, allocator fragmentation, comm buffers, the one layer
                         # being rematerialised under recompute: none of these is in the formulas
DEFAULT_LORA_RANK = 16
DEFAULT_LORA_TARGETS = 4  # q, k, v, o projections, each treated as hidden x hidden

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
    attention: str = DEFAULT_ATTENTION    # sdpa (fused kernels) | eager (unfused)

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
        if self.attention not in ATTENTION_KINDS:
            raise SizingError("attention", f"unknown attention {self.attention!r}; use sdpa "
                              "(fused kernels, PyTorch's default) or eager (unfused).")

    @property
    def n_params(self) -> float:
        """The parameter count (`params`, or the preset's: __post_init__ fills it in)."""
        return float(self.params)  # type: ignore[arg-type]

    @property
    def shape(self) -> ModelShape:
        if self.layers is not None and self.hidden is not None and self.heads is not None:
            return ModelShape(self.layers, self.hidden, self.heads, "given")
        if self.preset is not None:
            return PRESETS[self.preset].shape
        return shape_from_params(self.n_params)

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
                      lora_rank=spec.lora_rank,
                      attention=getattr(spec, "attention", None) or DEFAULT_ATTENTION)
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
                     recompute: Union[bool, str] = "none", precision: str = "bf16",
                     attention: str = DEFAULT_ATTENTION) -> int:
    """Activation memory of the transformer layers on one GPU [Act], tensor parallel size 1.

    Per layer [Act] eq. (1), Table 2: unfused attention (`eager`) with no recomputation keeps
    s*b*h*(34 + 5*a*s/h): the 5*a*s^2*b term is the attention scores, softmax output and dropout
    mask. Fused attention (`sdpa`, see ATTENTION_KINDS) keeps none of those (FlashAttention
    recomputes them in the backward pass; its per-row log-sum-exp, 4*a*s*b bytes, is left to
    headroom), so it keeps 34*s*b*h, the same as [Act]'s selective recomputation. selective ->
    34*s*b*h; full (only each layer's input kept) -> 2*s*b*h, whatever the attention.
    Embedding and logits buffers are not counted (small next to L layers; left to headroom).
    """
    mode = _normalise_recompute(recompute)
    s, b, h, a = seq_len, micro_batch, shape.hidden, shape.heads
    if mode == "full":
        per_layer: float = 2 * s * b * h
    elif mode == "selective" or attention == "sdpa":
        per_layer = 34 * s * b * h
    else:
        per_layer = s * b * h * (34 + 5 * a * s / h)
    return math.ceil(per_layer * shape.layers * _ACTIVATION_SCALE[precision])


def _unsharded_state(w: Workload) -> tuple[float, float, float]:
    """(weights, gradients, optimizer) bytes before any ZeRO partitioning."""
    wb, gb, ob = _STATE_BYTES[w.precision]
    if w.method == "full":
        return wb * w.n_params, gb * w.n_params, ob * w.n_params
    # LoRA/QLoRA: frozen base weights (16-bit, or NF4 + constants) plus the adapters trained
    # with the same mixed-precision Adam as full training, on the adapter parameters only.
    base = w.n_params * (QLORA_BYTES_PER_PARAM if w.method == "qlora" else wb)
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
    acts = activation_bytes(w.shape, w.seq_len, w.micro_batch, w.recompute, w.precision,
                            w.attention)
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
    """One sentence for the 'does not fit at any GPU count' case, naming only the changes that
    would make this workload fit (see `advice`)."""
    one = estimate_memory(w.with_gpus(1))
    usable = usable_bytes(gpu_memory_bytes, headroom)
    gib = 2 ** 30
    if w.zero_stage == 0:
        lead = (f"does not fit at any GPU count: {one.total / gib:.1f} GiB per GPU with ZeRO "
                f"stage 0 (nothing is sharded) against {usable / gib:.1f} GiB usable")
    else:
        lead = (f"does not fit at any GPU count: the part ZeRO stage {w.zero_stage} does not "
                f"shard (activations {one.activations / gib:.1f} GiB and unsharded state) "
                f"exceeds {usable / gib:.1f} GiB usable")
    tips = advice(w, gpu_memory_bytes, headroom)
    return lead + ("; it would fit with " + ", or ".join(tips) if tips else
                   "; no change of one or two of method, ZeRO stage, recomputation, "
                   "micro-batch and sequence length makes it fit: use a GPU with more memory") + "."


def advice(w: Workload, gpu_memory_bytes: float,
           headroom: float = DEFAULT_HEADROOM) -> list[str]:
    """The single changes (else pairs) that would make `w` fit, tried on the memory model, in the
    order that changes the job least: sharding first (ZeRO keeps the method and the maths, and
    more GPUs are what it is for, so "ZeRO stage 3 on 17 or more GPUs" is named even when a
    method change would fit on the GPUs at hand), then recomputation, micro-batch and sequence
    length at the workload's own GPU count, then a cheaper method (LoRA, QLoRA) last. Never a
    change the input already has (no QLoRA to a QLoRA job), never ZeRO on one GPU."""
    changes: list[tuple[str, dict]] = []
    for stage in (2, 3):
        if w.zero_stage < stage:
            changes.append((f"ZeRO stage {stage}", {"zero_stage": stage}))
    if w.recompute != "full":
        changes.append(("full activation recomputation", {"recompute": "full"}))
    if w.micro_batch > 1:
        changes.append(("micro-batch 1", {"micro_batch": 1}))
    if w.seq_len > 512:
        changes.append((f"sequence length {w.seq_len // 2}", {"seq_len": w.seq_len // 2}))
    if w.method == "full":
        changes += [("LoRA", {"method": "lora"}), ("QLoRA", {"method": "qlora"})]
    elif w.method == "lora":
        changes.append(("QLoRA", {"method": "qlora"}))
    usable = usable_bytes(gpu_memory_bytes, headroom)

    def tried(options: list[tuple[str, dict]]) -> list[tuple[str, str]]:
        """(text, kind) per option that fits, in the order given. kind: "here" (at the
        workload's own GPU count), "shard" (a ZeRO change, with the smallest count that fits
        named) or "more" (another change that needs more GPUs)."""
        found = []
        for label, change in options:
            changed = replace(w, **change)
            if estimate_memory(changed).total <= usable:
                if not (w.gpus == 1 and "zero_stage" in change):
                    found.append((label, "here"))
                continue
            need = min_gpus_that_fit(changed, gpu_memory_bytes, headroom)
            if need is not None and need > 1:
                found.append((f"{label} on {need} or more GPUs",
                              "shard" if "zero_stage" in change else "more"))
        return found

    singles = tried(changes)
    if any(kind == "here" for _, kind in singles):
        return [text for text, kind in singles if kind != "more"]
    # No single change fits on the GPUs at hand: try two together (e.g. QLoRA with
    # recomputation), still naming the sharding that would fit on more GPUs first.
    pairs = tried([(f"{a} and {b}", {**ca, **cb}) for i, (a, ca) in enumerate(changes)
                   for b, cb in changes[i + 1:] if not set(ca) & set(cb)])
    shard = [text for text, kind in singles + pairs if kind == "shard"]
    here = [text for text, kind in pairs if kind == "here"]
    if shard or here:
        return shard + here
    return [text for text, _ in singles] or [text for text, _ in pairs]
