"""Activation memory with fused attention, and advice that shards before it changes the method
(issue 26). Every expected figure is worked out by hand in the comments."""
import pytest

from trainstack_components.memory import (
    Workload,
    activation_bytes,
    advice,
    estimate_memory,
    min_gpus_that_fit,
    no_fit_reason,
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


# ----------------------------------------------------------------------------- advice by hand
# A model small enough to add up by hand: 1e9 parameters, 10 layers, hidden 1000, 8 heads.
#   full bf16 state: weights 2e9, gradients 2e9, Adam 12e9 = 16e9 bytes
#   LoRA adapters: 2 x rank 16 x 1000 x 4 targets x 10 layers = 1,280,000 parameters:
#     weights 2e9 + 2 x 1.28e6 = 2,002,560,000; gradients 2,560,000; Adam 15,360,000
#   QLoRA base: 1e9 x (4 + 8/64 + 32/16384) / 8 = 515,869,140.625 (+ 2,560,000 adapters)
#   activations per layer, fused attention: 34 s b h; full recomputation: 2 s b h
SMALL_MODEL = dict(params=1e9, layers=10, hidden=1000, heads=8)
GIB = 2 ** 30


def test_one_gpu_full_fine_tune_names_zero_with_gpu_counts_then_the_cheaper_methods():
    # 1 GPU, stage 0, seq 1024: 16e9 + 34 x 1024 x 1000 x 10 = 16,348,160,000 B against
    # 9e9 usable (10 GB less 10 %).
    # ZeRO 2 (gradients and Adam sharded): 2e9 + 0.34816e9 fixed, 14e9 / (9e9 - 2.34816e9)
    #   = 2.10 -> 3 GPUs (2 GPUs: 2 + 1 + 6 + 0.348 = 9.348e9 > 9e9)
    # ZeRO 3: 16e9 / (9e9 - 0.34816e9) = 1.85 -> 2 GPUs (8.348e9)
    # recomputation or sequence 512 alone: still 16e9+ on every GPU (stage 0 shards nothing)
    # LoRA: 2,002,560,000 + 2,560,000 + 15,360,000 + 348,160,000 = 2.37e9: fits here
    w = Workload(method="full", zero_stage=0, gpus=1, seq_len=1024, **SMALL_MODEL)
    tips = ["ZeRO stage 2 on 3 or more GPUs", "ZeRO stage 3 on 2 or more GPUs", "LoRA", "QLoRA"]
    assert advice(w, 10 * GB) == tips
    assert min_gpus_that_fit(w, 10 * GB) is None
    # 16,348,160,000 / 2^30 = 15.2 GiB; 9e9 / 2^30 = 8.4 GiB
    assert no_fit_reason(w, 10 * GB) == (
        "does not fit at any GPU count: 15.2 GiB per GPU with ZeRO stage 0 (nothing is sharded) "
        "against 8.4 GiB usable; it would fit with ZeRO stage 2 on 3 or more GPUs, or ZeRO stage "
        "3 on 2 or more GPUs, or LoRA, or QLoRA.")


def test_when_no_single_change_fits_pairs_are_named_sharding_first():
    # LoRA, ZeRO 2 on 2 GPUs, seq 4096, micro-batch 4, 2.5 GB GPU: 2.25e9 usable.
    # Per GPU: 2,002,560,000 + 1,280,000 + 7,680,000 = 2,011,520,000 of state (ZeRO 2 halves
    # gradients and Adam) + 34 x 4096 x 4 x 1000 x 10 = 5,570,560,000 of activations.
    # Singles (ZeRO 3, recompute, micro-batch 1, seq 2048, QLoRA): each leaves more than 2.25e9
    # that no GPU count shards (recompute: 2,330,240,000 unsharded), so none fits anywhere.
    # Pairs on the 2 GPUs:
    #   ZeRO 3 + recompute: 1,001,280,000 + 1,280,000 + 7,680,000 + 327,680,000 = 1.34e9 fits
    #   ZeRO 3 + micro-batch 1: 2.40e9 on 2; 2,020,480,000 / (2.25e9 - 1,392,640,000) = 2.36
    #     -> 3 GPUs (673,493,334 + 1,392,640,000 = 2.07e9)
    #   recompute + micro-batch 1: 2,011,520,000 + 81,920,000 = 2.09e9 fits
    #   recompute + seq 2048: 2,011,520,000 + 163,840,000 = 2.18e9 fits
    #   recompute + QLoRA: 518,429,141 + 8,960,000 + 327,680,000 = 0.86e9 fits
    #   micro-batch 1 + QLoRA: 518,429,141 + 8,960,000 + 1,392,640,000 = 1.92e9 fits
    #   micro-batch 1 + seq 2048: 2,011,520,000 + 696,320,000 = 2.71e9, unsharded: no
    w = Workload(method="lora", zero_stage=2, gpus=2, seq_len=4096, micro_batch=4, **SMALL_MODEL)
    tips = ["ZeRO stage 3 and micro-batch 1 on 3 or more GPUs",
            "ZeRO stage 3 and full activation recomputation",
            "full activation recomputation and micro-batch 1",
            "full activation recomputation and sequence length 2048",
            "full activation recomputation and QLoRA",
            "micro-batch 1 and QLoRA"]
    assert advice(w, 2.5 * GB) == tips
    # activations 5,570,560,000 / 2^30 = 5.2 GiB; 2.25e9 / 2^30 = 2.1 GiB
    assert no_fit_reason(w, 2.5 * GB) == (
        "does not fit at any GPU count: the part ZeRO stage 2 does not shard (activations 5.2 GiB "
        "and unsharded state) exceeds 2.1 GiB usable; it would fit with " + ", or ".join(tips)
        + ".")


def test_a_change_that_needs_more_gpus_is_named_when_nothing_fits_at_hand():
    # QLoRA, ZeRO 3, 1 GPU, seq 4096 on a 0.5 GB GPU (0.45e9 usable): activations
    # 1,392,640,000 alone exceed it. Recompute: 536,349,141 state sharded + 81,920,000 ->
    # 536,349,141 / 368,080,000 = 1.46 -> 2 GPUs (259,214,571 + 1,280,000 + 7,680,000 +
    # 81,920,000 = 350,094,571). Sequence 2048 keeps 696,320,000: never.
    w = Workload(method="qlora", zero_stage=3, gpus=1, seq_len=4096, **SMALL_MODEL)
    assert advice(w, 0.5 * GB) == ["full activation recomputation on 2 or more GPUs"]
    # 1,392,640,000 / 2^30 = 1.3 GiB; 0.45e9 / 2^30 = 0.4 GiB
    assert no_fit_reason(w, 0.5 * GB) == (
        "does not fit at any GPU count: the part ZeRO stage 3 does not shard (activations 1.3 GiB "
        "and unsharded state) exceeds 0.4 GiB usable; it would fit with full activation "
        "recomputation on 2 or more GPUs.")


def test_with_nothing_left_to_change_the_way_out_is_a_bigger_gpu():
    # QLoRA, ZeRO 3, full recomputation, micro-batch 1, seq 512: nothing to change. Hidden
    # 100,000: activations 2 x 512 x 100,000 x 10 = 1,024,000,000 = 1.0 GiB > 0.9e9 = 0.8 GiB.
    w = Workload(method="qlora", zero_stage=3, gpus=1, seq_len=512, recompute="full",
                 params=1e9, layers=10, hidden=100_000, heads=8)
    assert advice(w, 1 * GB) == []
    assert no_fit_reason(w, 1 * GB) == (
        "does not fit at any GPU count: the part ZeRO stage 3 does not shard (activations 1.0 GiB "
        "and unsharded state) exceeds 0.8 GiB usable; no change of one or two of method, ZeRO "
        "stage, recomputation, micro-batch and sequence length makes it fit: use a GPU with more "
        "memory.")


def test_on_one_gpu_zero_is_never_advised_and_every_other_fitting_change_is():
    # 16e9 + 34 x 1024 x 2 x 1000 x 10 = 16,696,320,000 <= 18e9 usable: everything fits; ZeRO
    # on one GPU changes nothing, so it is not named.
    w = Workload(method="full", gpus=1, seq_len=1024, micro_batch=2, **SMALL_MODEL)
    assert advice(w, 20 * GB) == ["full activation recomputation", "micro-batch 1",
                                  "sequence length 512", "LoRA", "QLoRA"]
    # a sequence is halved only above 512 tokens
    w513 = Workload(method="full", gpus=1, seq_len=513, **SMALL_MODEL)
    assert advice(w513, 20 * GB) == ["full activation recomputation", "sequence length 256",
                                     "LoRA", "QLoRA"]
    w512 = Workload(method="full", gpus=1, seq_len=512, **SMALL_MODEL)
    assert advice(w512, 20 * GB) == ["full activation recomputation", "LoRA", "QLoRA"]


# ----------------------------------------------------------------------------- GPU counts by hand

def test_min_gpus_exact_fit_and_headroom():
    w = Workload(method="full", gpus=1, seq_len=1024, micro_batch=2, **SMALL_MODEL)
    # 16,696,320,000 bytes on a GPU of exactly that size, nothing kept free: fits (<=)
    assert min_gpus_that_fit(w, 16_696_320_000, headroom=0) == 1
    assert min_gpus_that_fit(w, 16_696_319_999, headroom=0) is None   # stage 0: no count helps
    z3 = Workload(method="full", zero_stage=3, seq_len=1024, **SMALL_MODEL)
    # 1 GPU: 16,348,160,000; 2 GPUs: 8e9 + 348,160,000 = 8,348,160,000 <= 9e9
    assert min_gpus_that_fit(z3, 10 * GB) == 2
    # 20 % kept free: 8e9 usable; 16e9 / (8e9 - 348,160,000) = 2.09 -> 3 (5,681,493,334)
    assert min_gpus_that_fit(z3, 10 * GB, headroom=0.2) == 3
    # activations alone take the whole GPU: no count fits
    assert min_gpus_that_fit(z3, 348_160_000, headroom=0) is None


def test_min_gpus_steps_up_when_whole_bytes_round_over():
    # ZeRO 3 over n GPUs keeps ceil(2e9/n) + ceil(2e9/n) + ceil(12e9/n) + 348,160,000. A GPU of
    # 348,160,000 + 7,812,500 bytes: 16e9 / 7,812,500 = 2048 exactly, but at 2048 the weights
    # and gradients are 976,562.5 bytes each, rounded up: 976,563 x 2 + 5,859,375 = 7,812,501,
    # one byte over. 2049: 976,086 x 2 + 5,856,516 = 7,808,688 fits.
    z3 = Workload(method="full", zero_stage=3, seq_len=1024, **SMALL_MODEL)
    assert min_gpus_that_fit(z3, 355_972_500, headroom=0) == 2049
    assert min_gpus_that_fit(z3, 355_972_500, headroom=0, max_gpus=2049) == 2049
    assert min_gpus_that_fit(z3, 355_972_500, headroom=0, max_gpus=2048) is None


def test_on_the_gpus_at_hand_changes_that_need_more_gpus_are_left_out():
    # Full, ZeRO 3 on 2 GPUs, seq 4096, 5 GB GPUs (4.5e9 usable): 8e9 + 1,392,640,000 per GPU.
    # LoRA fits on the 2: 1,001,280,000 + 1,280,000 + 7,680,000 + 1,392,640,000 = 2.40e9.
    # Recompute would need 16e9 / (4.5e9 - 81,920,000) = 3.6 -> 4 GPUs and sequence 2048
    # 16e9 / (4.5e9 - 696,320,000) = 4.2 -> 5: more GPUs, so not named next to LoRA/QLoRA.
    w = Workload(method="full", zero_stage=3, gpus=2, seq_len=4096, **SMALL_MODEL)
    assert advice(w, 5 * GB) == ["LoRA", "QLoRA"]
    # recomputation already on is never advised: 16,696,320,000 - 696,320,000 + 40,960,000
    done = Workload(method="full", gpus=1, seq_len=1024, micro_batch=2, recompute="full",
                    **SMALL_MODEL)
    assert advice(done, 20 * GB) == ["micro-batch 1", "sequence length 512", "LoRA", "QLoRA"]


def test_a_pair_that_fits_at_hand_beats_a_single_that_needs_more_gpus_at_the_given_headroom():
    # The QLoRA / ZeRO 3 / seq 4096 job on a 600 MB GPU with nothing kept free (600e6 usable):
    # recompute alone: 518,429,141 + 2,560,000 + 15,360,000 + 81,920,000 = 618,269,141, over;
    # recompute and sequence 2048: ... + 40,960,000 = 577,309,141 fits on the one GPU.
    w = Workload(method="qlora", zero_stage=3, gpus=1, seq_len=4096, **SMALL_MODEL)
    assert advice(w, 600e6, headroom=0) == [
        "full activation recomputation and sequence length 2048"]
    # 600e6 / 2^30 = 0.6 GiB
    assert no_fit_reason(w, 600e6, headroom=0) == (
        "does not fit at any GPU count: the part ZeRO stage 3 does not shard (activations 1.3 GiB "
        "and unsharded state) exceeds 0.6 GiB usable; it would fit with full activation "
        "recomputation and sequence length 2048.")
    # the default 10 % headroom (540e6 usable): the pair no longer fits on one GPU
    assert advice(w, 600e6) == ["full activation recomputation on 2 or more GPUs"]


def test_gpu_counts_in_advice_use_the_given_headroom_and_an_exactly_full_gpu_fits():
    w = Workload(method="full", zero_stage=0, gpus=1, seq_len=1024, **SMALL_MODEL)
    # 20 % kept free (8e9 usable): ZeRO 3 now needs 16e9 / (8e9 - 348,160,000) = 2.09 -> 3
    # (2 GPUs: 8,348,160,000 > 8e9); ZeRO 2 still 14e9 / (8e9 - 2,348,160,000) = 2.48 -> 3
    assert advice(w, 10 * GB, headroom=0.2) == [
        "ZeRO stage 2 on 3 or more GPUs", "ZeRO stage 3 on 3 or more GPUs", "LoRA", "QLoRA"]
    # micro-batch 2 with LoRA: 2,002,560,000 + 2,560,000 + 15,360,000 + 696,320,000 =
    # 2,716,800,000 bytes, on a GPU of exactly that size with nothing kept free: it fits.
    # ZeRO 2: 14e9 / 20,480,000 = 683.6 -> 684 (2,716,787,837); ZeRO 3: 16e9 / 2,020,480,000
    # = 7.9 -> 8 (2,696,320,000)
    mb2 = Workload(method="full", gpus=1, seq_len=1024, micro_batch=2, **SMALL_MODEL)
    assert advice(mb2, 2_716_800_000, headroom=0) == [
        "ZeRO stage 2 on 684 or more GPUs", "ZeRO stage 3 on 8 or more GPUs", "LoRA", "QLoRA"]


def test_a_gpu_count_that_fills_the_gpu_exactly_is_the_answer():
    # 2049 GPUs keep 7,808,688 + 348,160,000 = 355,968,688 bytes (see the rounding case above)
    z3 = Workload(method="full", zero_stage=3, seq_len=1024, **SMALL_MODEL)
    assert min_gpus_that_fit(z3, 355_968_688, headroom=0) == 2049
