"""Activation memory with fused attention, and advice that shards before it changes the method
(issue 26). Every expected figure is worked out by hand in the comments."""
import pytest

from trainstack_components.memory import (
    Workload,
    activation_bytes,
    advice,
    estimate_memory,
    min_gpus_that_fit,
)

GB = 1e9
H100 = 80 * GB          # gpu_models.csv: 80 GB; usable at 10 % headroom = 72e9 bytes
LLAMA70 = dict(preset="llama-70b")   # 80 layers, hidden 8192, 64 heads (Llama-2-70b config.json)


def test_70b_lora_seq_2048_activations_fused_and_unfused():
    w = Workload(method="lora", seq_len=2048, micro_batch=1, **LLAMA70)
    # SDPA (default): 34 * s * b * h per layer = 34 * 2048 * 1 * 8192 = 570,425,344; x 80 layers
    assert estimate_memory(w).activations == 45_634_027_520              # ~45.6 GB
    # eager: s*b*h*(34 + 5*a*s/h) = 2048*8192*(34 + 5*64*2048/8192) = 16,777,216 * 114
    #        = 1,912,602,624 per layer; x 80 layers
    eager = Workload(method="lora", seq_len=2048, micro_batch=1, attention="eager", **LLAMA70)
    assert estimate_memory(eager).activations == 153_008_209_920         # ~153 GB
    shape = w.shape
    assert activation_bytes(shape, 2048, 1, "none", "bf16", "sdpa") == 45_634_027_520


def test_unknown_attention_is_refused_naming_the_field():
    from trainstack_components.errors import SizingError
    with pytest.raises(SizingError) as raised:
        Workload(params=1e9, attention="flash")
    assert "attention" in str(raised.value)


def test_70b_full_fine_tune_on_16_h100_advises_zero3_on_17_before_qlora():
    # full bf16 70B: 2 + 2 + 12 B/param = 1,120e9 bytes of state; recompute full keeps
    # 2*s*b*h*L = 2*2048*8192*80 = 2,684,354,560 bytes of activations.
    # ZeRO-3 over n GPUs: 1,120e9/n + 2.684e9 <= 72e9  =>  n >= 1120/69.3156 = 16.16  =>  17
    w = Workload(method="full", zero_stage=0, gpus=16, recompute="full", **LLAMA70)
    assert min_gpus_that_fit(Workload(method="full", zero_stage=3, recompute="full",
                                      **LLAMA70), H100) == 17
    tips = advice(w, H100)
    assert tips[0] == "ZeRO stage 3 on 17 or more GPUs"
    # QLoRA fits on the 16 GPUs at hand (70e9 * 4.127/8 B = 36.1e9 + 2.7e9 < 72e9): named after
    assert "QLoRA" in tips and tips.index("QLoRA") > 0
    assert all("recomputation" not in t for t in tips)    # recompute is already on


def test_zero3_at_exactly_the_boundary_fits():
    # The ZeRO-3 count from the hand formula fits and one fewer does not (fits is <=).
    w17 = Workload(method="full", zero_stage=3, gpus=17, recompute="full", **LLAMA70)
    w16 = Workload(method="full", zero_stage=3, gpus=16, recompute="full", **LLAMA70)
    # 17: 1120e9/17 = 65.882e9 (+ rounding up per term) + 2.684e9 = 68.57e9 <= 72e9
    assert estimate_memory(w17).total <= 72e9 < estimate_memory(w16).total
