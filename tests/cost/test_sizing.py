"""Sizing, time and cost math (issue 5): hand-computed cases, the seed article's worked
examples (../shared/reference/seed-article.txt sec. 3.1, 3.3) and a few properties."""
from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trainstack.cost.sizing import (
    PRESETS,
    QLORA_BYTES_PER_PARAM,
    CostBreakdown,
    ModelShape,
    SizingError,
    Workload,
    activation_bytes,
    default_scaling_efficiency,
    estimate,
    estimate_memory,
    fits,
    min_gpus_that_fit,
    monthly_run_rate,
    no_fit_reason,
    run_cost,
    shape_from_params,
    training_flops,
    training_hours,
)
from trainstack_components.catalog import gpu_models as gpu_catalog
from trainstack_components.memory import (
    check_headroom,
    check_mfu,
    check_params,
    check_scaling_efficiency,
    check_tokens,
    usable_bytes,
)
from trainstack_components.spec import WorkloadSpec

GB = 1e9
SMALL = dict(layers=2, hidden=1024, heads=8)   # a shape small enough to compute by hand


# ----------------------------------------------------------------------------- memory

def test_full_training_stage0_breakdown_by_hand():
    w = Workload(params=1e9, seq_len=512, micro_batch=2, attention="eager", **SMALL)
    m = estimate_memory(w)
    assert (m.weights, m.gradients, m.optimizer) == (2e9, 2e9, 12e9)   # 2 + 2 + 12 B/param
    # Korthikanti eq. (1): s*b*h*(34 + 5*a*s/h) per layer = 512*2*1024*(34 + 5*8*512/1024) * 2
    assert m.activations == 512 * 2 * 1024 * (34 + 20) * 2 == 113_246_208
    assert m.total == 16e9 + 113_246_208
    assert m.as_dict() == {"weights": 2e9, "gradients": 2e9, "optimizer": 12e9,
                           "activations": 113_246_208, "total": m.total}


@pytest.mark.parametrize("stage, expected", [
    (0, (2e9, 2e9, 12e9)),
    (1, (2e9, 2e9, 3e9)),       # optimizer / 4
    (2, (2e9, 0.5e9, 3e9)),     # + gradients / 4
    (3, (0.5e9, 0.5e9, 3e9)),   # + weights / 4
])
def test_zero_stages_partition_over_data_parallel_gpus(stage, expected):
    m = estimate_memory(Workload(params=1e9, zero_stage=stage, gpus=4, **SMALL))
    assert (m.weights, m.gradients, m.optimizer) == expected


def test_recompute_variants_by_hand():
    shape = ModelShape(layers=3, hidden=2048, heads=16)
    s, b, h, L = 1024, 4, 2048, 3
    assert activation_bytes(shape, s, b, "full") == 2 * s * b * h * L
    assert activation_bytes(shape, s, b, True) == 2 * s * b * h * L
    assert activation_bytes(shape, s, b, "selective") == 34 * s * b * h * L
    assert activation_bytes(shape, s, b, False, attention="eager") == (
        s * b * h * (34 + 5 * 16 * s / h) * L)
    # fused attention (SDPA, the default) keeps no s x s tensors: 34*s*b*h per layer
    assert activation_bytes(shape, s, b, False) == 34 * s * b * h * L
    assert activation_bytes(shape, s, b, "full", attention="eager") == 2 * s * b * h * L
    # tf32 (fp32) activations take twice the 16-bit bytes
    assert activation_bytes(shape, s, b, "full", "tf32") == 2 * 2 * s * b * h * L


def test_tf32_state_is_4_4_8_bytes():
    m = estimate_memory(Workload(params=1e9, precision="tf32", **SMALL))
    assert (m.weights, m.gradients, m.optimizer) == (4e9, 4e9, 8e9)


def test_lora_adapter_params_and_memory_by_hand():
    w = Workload(params=6.7e9, method="lora", lora_rank=8, preset="llama-7b")
    a = 2 * 8 * 4096 * 4 * 32            # 2 * r * h * (q,k,v,o) * layers
    assert w.adapter_params == a == 8_388_608
    m = estimate_memory(w)
    assert m.weights == 2 * 6.7e9 + 2 * a   # frozen 16-bit base + 16-bit adapters
    assert m.gradients == 2 * a             # gradients for adapters only
    assert m.optimizer == 12 * a            # fp32 master + Adam m, v for adapters only


def test_qlora_uses_nf4_with_double_quantised_constants():
    # Dettmers et al. 2023: 4 bits + 8/64 + 32/(64*256) = 4.127 bits per parameter
    assert QLORA_BYTES_PER_PARAM == pytest.approx((4 + 0.126953125) / 8)
    w = Workload(params=13e9, method="qlora", lora_rank=64, preset="llama-13b")
    a = 2 * 64 * 5120 * 4 * 40
    m = estimate_memory(w)
    assert m.weights == math.ceil(13e9 * 4.126953125 / 8 + 2 * a)
    assert (m.gradients, m.optimizer) == (2 * a, 12 * a)
    # the whole point of QLoRA: far below the 16-bit LoRA base
    assert m.weights < estimate_memory(Workload(params=13e9, method="lora", lora_rank=64,
                                                preset="llama-13b")).weights / 3


def test_shape_presets_and_derivation():
    p = PRESETS["llama-13b"].shape
    assert (p.layers, p.hidden, p.heads) == (40, 5120, 40)
    p = PRESETS["llama-70b"].shape
    assert (p.layers, p.hidden, p.heads) == (80, 8192, 64)
    # derived: 12*L*h^2 with h = 128*L reproduces published shapes
    for params, dims in ((6.7e9, (32, 4096, 32)), (13e9, (40, 5120, 40)),
                         (175e9, (96, 12288, 96))):
        s = shape_from_params(params)
        assert (s.layers, s.hidden, s.heads) == dims
    assert Workload(params=13e9).shape.source.startswith("derived")
    assert Workload(preset="llama-7b").params == 6.7e9


def test_workload_from_spec_section():
    from types import SimpleNamespace
    spec = SimpleNamespace(model_params=13e9, method="lora", precision="bf16", zero_stage=2,
                           seq_len=4096, micro_batch=2, layers=None, hidden=None, heads=None,
                           recompute=True, lora_rank=32)
    w = Workload.from_spec(spec, gpus=8)
    assert (w.params, w.method, w.zero_stage, w.gpus, w.seq_len, w.micro_batch) == \
        (13e9, "lora", 2, 8, 4096, 2)
    assert w.recompute == "full" and w.lora_rank == 32


def test_fits_uses_headroom():
    m = estimate_memory(Workload(params=4e9, recompute="full", **SMALL))   # 64e9 + acts
    assert fits(m, 80 * GB, headroom=0.1)            # 72e9 usable
    assert not fits(m, 80 * GB, headroom=0.2)        # 64e9 usable < 64e9 + acts
    assert not fits(m, 70 * GB)


def test_min_gpus_by_hand_for_13b():
    # 13B, full recompute: acts = 2*2048*5120*40 = 838,860,800 B; usable on 80 GB = 72e9.
    base = dict(params=13e9, recompute="full", preset="llama-13b", seq_len=2048)
    # stage 3: ceil(208e9 / (72e9 - 0.84e9)) = 3
    assert min_gpus_that_fit(Workload(zero_stage=3, **base), 80 * GB) == 3
    # stage 2: weights 26e9 stay whole: ceil(182e9 / (72e9 - 26.84e9)) = 5
    assert min_gpus_that_fit(Workload(zero_stage=2, **base), 80 * GB) == 5
    # stage 1: weights + grads 52e9 stay whole: ceil(156e9 / (72e9 - 52.84e9)) = 9
    assert min_gpus_that_fit(Workload(zero_stage=1, **base), 80 * GB) == 9
    assert min_gpus_that_fit(Workload(zero_stage=3, **base), 288 * GB) == 1


def test_min_gpus_none_when_count_cannot_help():
    w = Workload(params=13e9, preset="llama-13b")          # stage 0
    assert min_gpus_that_fit(w, 80 * GB) is None
    assert "stage 0" in no_fit_reason(w, 80 * GB)
    # activations alone too big: long sequence, no recompute, even at stage 3
    w = Workload(params=1e9, zero_stage=3, seq_len=65536, micro_batch=8, attention="eager",
                 **SMALL)
    assert min_gpus_that_fit(w, 80 * GB) is None
    assert "activations" in no_fit_reason(w, 80 * GB)


# ----------------------------------------------------------------------------- seed article

def test_seed_13b_full_training_does_not_fit_one_80gb_gpu():
    # sec. 3.1: 13B x 2 B = 26 GB weights, 26 GB gradients, Adam state on top; "单卡 80GB 显存
    # 基本无法完整加载 13B 全参数训练". (The article counts 104 GB for Adam m+v only; the ZeRO
    # accounting adds the fp32 master copy: 12 B/param = 156 GB.)
    w = Workload(params=13e9, method="full", zero_stage=0, gpus=1, recompute="full")
    m = estimate_memory(w)
    assert m.weights == 26e9 and m.gradients == 26e9 and m.optimizer == 156e9
    for gpu in ("A100-80GB", "H100"):
        model = gpu_catalog.get_gpu_model(gpu)
        assert not fits(m, model.memory_bytes)
        assert min_gpus_that_fit(w, model.memory_bytes) is None
    # even with zero headroom and no activations the states alone exceed 80 GB
    assert m.total - m.activations > 80e9


def test_seed_flops_and_time_2_x_13e9_x_1e8_at_312_tflops_mfu_04():
    flops = training_flops(13e9, 1e8, method="full", flops_factor=2)
    assert flops == pytest.approx(2.6e18)
    a100 = gpu_catalog.get_gpu_model("A100-80GB")
    hours = training_hours(flops, gpus=1, peak_tflops=a100.peak_tflops("fp16"), mfu=0.4)
    assert hours * 3600 == pytest.approx(20_833.33, rel=1e-4)
    assert hours * 3600 == pytest.approx(20_800, rel=0.005)      # the article's "≈ 20800 秒"
    assert round(hours, 1) == 5.8                                  # "约 5.8 小时"


def test_seed_cost_4_gpus_30_cny_20_h_and_scaling_07():
    # sec. 3.3: 4 x A100 80G for 20 h at 30 CNY/GPU-hour = 2400; at scaling efficiency 0.7
    # the run takes 20/0.7 h and costs 3429 (the article rounds to 28.6 h first: 3432).
    a100 = gpu_catalog.get_gpu_model("A100-80GB")
    flops = 20 * 3600 * 4 * a100.peak_tflops("bf16") * 1e12 * 0.4   # work that takes 20 h
    ideal = training_hours(flops, gpus=4, peak_tflops=312, mfu=0.4, scaling_efficiency=1.0)
    assert ideal == pytest.approx(20)
    cost = run_cost(nodes=4, price_per_node_hour=30, hours=ideal, idle_overhead=0,
                    currency="CNY")
    assert cost.total == pytest.approx(2400)
    slow = training_hours(flops, gpus=4, peak_tflops=312, mfu=0.4, scaling_efficiency=0.7)
    assert slow == pytest.approx(20 / 0.7) and round(slow, 1) == 28.6
    cost = run_cost(nodes=4, price_per_node_hour=30, hours=slow, idle_overhead=0,
                    currency="CNY")
    assert round(cost.total) == 3429
    assert round(round(slow, 1) * 4 * 30) == 3432


# ----------------------------------------------------------------------------- FLOPs and time

def test_flops_factors():
    assert training_flops(7e9, 1e9) == 6 * 7e9 * 1e9
    assert training_flops(7e9, 1e9, "lora") == 4 * 7e9 * 1e9
    assert training_flops(7e9, 1e9, "qlora") == 4 * 7e9 * 1e9
    assert training_flops(7e9, 1e9, "lora", flops_factor=8) == 8 * 7e9 * 1e9


def test_hours_by_hand():
    # 1e21 FLOPs on 16 GPUs at 989.5 TFLOPS, MFU 0.5, efficiency 0.9
    expected = 1e21 / (16 * 989.5e12 * 0.5) / 3600 / 0.9
    assert training_hours(1e21, 16, 989.5, 0.5, 0.9) == pytest.approx(expected)


def test_default_scaling_efficiency_table():
    assert default_scaling_efficiency(1, "tcp") == 1.0
    assert default_scaling_efficiency(2, "rdma") == 0.9
    assert default_scaling_efficiency(4, "efa") == 0.9
    assert default_scaling_efficiency(2, "tcp") == 5 / 8     # "8 卡的价钱 5 卡水平"
    assert default_scaling_efficiency(2, "gpudirect-tcpxo") == 5 / 8


# ----------------------------------------------------------------------------- cost

def test_run_cost_by_hand_with_storage_transfer_idle_and_spot():
    c = run_cost(nodes=2, price_per_node_hour=10, hours=100,
                 filesystem_gib=1000, filesystem_price_per_gib_month=0.146,
                 bucket_gb=500, bucket_price_per_gb_month=0.023,
                 transfer_gb=200, transfer_price_per_gb=0.09,
                 idle_overhead=0.15, spot=True, preemption_overhead=0.10)
    billed = 100 * 1.15 * 1.10
    assert c.billed_hours == pytest.approx(billed)
    assert c.compute == pytest.approx(2 * 10 * billed)
    assert c.filesystem == pytest.approx(1000 * 0.146 * billed / 730)
    assert c.bucket == pytest.approx(500 * 0.023 * billed / 730)
    assert c.storage == pytest.approx(c.filesystem + c.bucket)
    assert c.transfer == pytest.approx(18)
    assert c.total == pytest.approx(c.compute + c.storage + 18)
    assert c.overhead == pytest.approx((c.compute + c.storage) * (1 - 100 / billed))
    on_demand = run_cost(nodes=2, price_per_node_hour=10, hours=100)   # default idle 15%
    assert on_demand.billed_hours == pytest.approx(115)


def test_cny_view_and_fx_catalog():
    rates = gpu_catalog.load_fx_rates()
    assert rates["CNY"].per_usd > 1 and rates["CNY"].source
    c = run_cost(nodes=1, price_per_node_hour=100, hours=10, idle_overhead=0)
    cny = c.converted(7.0, "CNY")
    assert cny.currency == "CNY" and cny.total == pytest.approx(7000)
    assert isinstance(cny, CostBreakdown)


def test_monthly_run_rate():
    assert monthly_run_rate(nodes=2, price_per_node_hour=10, filesystem_gib=100,
                            filesystem_price_per_gib_month=0.1) == pytest.approx(14600 + 10)


# ----------------------------------------------------------------------------- catalog + estimate

def test_gpu_catalog_rows():
    models = gpu_catalog.load_gpu_models()
    assert set(models) == {"H100", "H200", "B200", "B300", "A100-80GB", "A100-40GB",
                           "H(96GB)", "H-e(141GB)"}
    assert models["A100-80GB"].peak_tflops("bf16") == 312
    assert models["A100-80GB"].peak_tflops("fp8") is None       # no FP8 on Ampere
    assert models["H100"].peak_tflops("fp8") == 2 * models["H100"].peak_tflops("bf16")
    assert models["H(96GB)"].peak_tflops("bf16") is None
    assert models["H200"].memory_bytes == 141e9
    for m in models.values():
        assert m.source and m.as_of


def test_estimate_json_contract():
    w = Workload(params=13e9, zero_stage=3, gpus=16, recompute=True)
    out = estimate(w, 1e9, gpu="H100").as_json()
    json.dumps(out)
    assert set(out["per_gpu_bytes"]) == {"weights", "gradients", "optimizer", "activations",
                                         "total"}
    assert out["per_gpu_bytes"]["total"] == estimate_memory(w).total
    assert out["min_gpus"] == min_gpus_that_fit(w, 80e9)
    assert out["training_flops"] == 6 * 13e9 * 1e9
    assert out["nodes"] == 2 and out["scaling_efficiency"] == 0.9
    assert out["hours"] == pytest.approx(6 * 13e9 * 1e9 / (16 * 989.5e12 * 0.4) / 3600 / 0.9)
    assert out["fits_by_gpu"]["A100-40GB"]["min_gpus"] == min_gpus_that_fit(w, 40e9)


def test_estimate_without_datasheet_peak_and_with_override():
    w = Workload(params=7e9, method="qlora")
    out = estimate(w, 1e8, gpu="H(96GB)")
    assert out.hours is None and "--peak-tflops" in (out.hours_note or "")
    out = estimate(w, 1e8, gpu="H(96GB)", peak_tflops=500, scaling_efficiency=0.8)
    assert out.peak_source == "override"
    assert out.hours == pytest.approx(4 * 7e9 * 1e8 / (500e12 * 0.4) / 3600 / 0.8)
    out = estimate(Workload(params=13e9), 1e8, gpu="A100-80GB")
    assert out.min_gpus is None and "any GPU count" in (out.min_gpus_note or "")


# ----------------------------------------------------------------------------- bad input

@pytest.mark.parametrize("kwargs, field", [
    (dict(params=0), "params"),
    (dict(params=-5e9), "params"),
    (dict(params=2e13), "params"),
    (dict(params=1e9, zero_stage=4), "zero_stage"),
    (dict(params=1e9, method="dpo"), "method"),
    (dict(params=1e9, precision="int4"), "precision"),
    (dict(params=1e9, gpus=0), "gpus"),
    (dict(params=1e9, seq_len=-1), "seq_len"),
    (dict(params=1e9, layers=4), "layers/hidden/heads"),
    (dict(params=1e9, preset="gpt-9"), "preset"),
    (dict(params=1e9, recompute="sometimes"), "recompute"),
])
def test_workload_rejects_bad_input(kwargs, field):
    with pytest.raises(SizingError) as err:
        Workload(**kwargs)
    assert err.value.field == field and field in str(err.value)
    assert isinstance(err.value, ValueError)


@pytest.mark.parametrize("call, field", [
    (lambda: training_flops(1e9, 0), "tokens"),
    (lambda: training_flops(1e9, -1), "tokens"),
    (lambda: training_hours(1e20, 8, 312, mfu=0), "mfu"),
    (lambda: training_hours(1e20, 8, 312, mfu=1.5), "mfu"),
    (lambda: training_hours(1e20, 8, 312, scaling_efficiency=0), "scaling_efficiency"),
    (lambda: training_hours(1e20, 8, -312), "peak_tflops"),
    (lambda: run_cost(nodes=1, price_per_node_hour=-1, hours=1), "price_per_node_hour"),
    (lambda: default_scaling_efficiency(2, "carrier-pigeon"), "fabric"),
    (lambda: gpu_catalog.get_gpu_model("Z9000"), "gpu"),
])
def test_functions_reject_bad_input(call, field):
    with pytest.raises(SizingError) as err:
        call()
    assert err.value.field == field


def test_mfu_of_exactly_one_is_allowed():
    assert training_hours(3.6e15, 1, 1, mfu=1.0) == pytest.approx(1.0)


# ----------------------------------------------------------------------------- properties

workloads = st.builds(
    Workload,
    params=st.floats(1e6, 1e12),
    method=st.sampled_from(["full", "lora", "qlora"]),
    precision=st.sampled_from(["bf16", "fp16", "fp8", "tf32"]),
    gpus=st.integers(1, 512),
    seq_len=st.integers(1, 8192),
    micro_batch=st.integers(1, 16),
    recompute=st.sampled_from(["none", "selective", "full"]),
    lora_rank=st.integers(1, 256),
)


@given(workloads)
@settings(max_examples=200, deadline=None)
def test_higher_zero_stage_never_increases_per_gpu_memory(w):
    totals = [estimate_memory(Workload(**{**w.__dict__, "zero_stage": s})).total
              for s in range(4)]
    assert totals == sorted(totals, reverse=True)


@given(workloads, st.integers(1, 1000))
@settings(max_examples=200, deadline=None)
def test_more_gpus_never_increase_per_gpu_memory_at_stage_3(w, extra):
    w3 = Workload(**{**w.__dict__, "zero_stage": 3})
    assert estimate_memory(w3.with_gpus(w3.gpus + extra)).total <= estimate_memory(w3).total


@given(workloads, st.integers(0, 3), st.sampled_from([40e9, 80e9, 141e9]))
@settings(max_examples=150, deadline=None)
def test_min_gpus_is_the_smallest_count_that_fits(w, stage, capacity):
    w = Workload(**{**w.__dict__, "zero_stage": stage})
    n = min_gpus_that_fit(w, capacity)
    if n is None:
        assert not fits(estimate_memory(w.with_gpus(1)), capacity)
        assert not fits(estimate_memory(w.with_gpus(1_000_000)), capacity)
    else:
        assert fits(estimate_memory(w.with_gpus(n)), capacity)
        if n > 1:
            assert not fits(estimate_memory(w.with_gpus(n - 1)), capacity)


@given(st.floats(1e15, 1e24), st.integers(1, 4096), st.floats(10, 5000),
       st.floats(0.05, 1), st.floats(0.1, 1))
def test_hours_halve_when_gpus_double(flops, gpus, peak, mfu, eff):
    one = training_hours(flops, gpus, peak, mfu, eff)
    assert training_hours(flops, 2 * gpus, peak, mfu, eff) == pytest.approx(one / 2)


@given(st.integers(1, 64), st.floats(0, 200), st.floats(0, 1e4), st.floats(0, 1),
       st.floats(0, 1), st.booleans())
def test_overheads_only_add_cost(nodes, price, hours, idle, pre, spot):
    c = run_cost(nodes=nodes, price_per_node_hour=price, hours=hours, idle_overhead=idle,
                 preemption_overhead=pre, spot=spot)
    assert c.total >= nodes * price * hours * (1 - 1e-12)
    assert c.overhead >= 0


# ----------------------------------------------------------------------------- what a bad input reads

@pytest.mark.parametrize("kwargs, message", [
    (dict(params=1e9, preset="gpt-9"), "preset: unknown model preset 'gpt-9'; use one of llama-7b, "
     "llama-13b, llama-33b, llama-65b, llama-70b or give --layers/--hidden/--heads."),
    (dict(), "params: is required: give the parameter count, e.g. 13e9, or a model preset."),
    (dict(params=1e9, method="dpo"), "method: unknown method 'dpo'; use one of full, lora, qlora."),
    (dict(params=1e9, precision="int4"),
     "precision: unknown precision 'int4'; use one of bf16, fp16, fp8, tf32."),
    (dict(params=1e9, zero_stage=4),
     "zero_stage: must be 0, 1, 2 or 3 (DeepSpeed ZeRO stage), got 4."),
    (dict(params=1e9, gpus=1_000_001),
     "gpus: must be a whole number from 1 to 1,000,000, got 1000001."),
    (dict(params=1e9, seq_len=1_048_577),
     "seq_len: must be a whole number from 1 to 1,048,576, got 1048577."),
    (dict(params=1e9, micro_batch=4097), "micro_batch: must be a whole number from 1 to 4,096, "
     "got 4097. It is sequences per GPU per step."),
    (dict(params=1e9, layers=4), "layers/hidden/heads: give all three together, or none of them "
     "(a preset or the parameter count then fills them in)."),
    (dict(params=1e9, layers=1001, hidden=8, heads=1),
     "layers: must be a whole number from 1 to 1,000, got 1001."),
    (dict(params=1e9, layers=1, hidden=1_000_001, heads=1),
     "hidden: must be a whole number from 1 to 1,000,000, got 1000001."),
    (dict(params=1e9, layers=1, hidden=8, heads=10_001),
     "heads: must be a whole number from 1 to 10,000, got 10001."),
    (dict(params=1e9, lora_rank=4097),
     "lora_rank: must be a whole number from 1 to 4,096, got 4097."),
    (dict(params=1e9, lora_targets=65), "lora_targets: must be a whole number from 1 to 64, got "
     "65. It is the number of hidden x hidden matrices adapted per layer."),
    (dict(params=1e9, attention="flash"), "attention: unknown attention 'flash'; use sdpa (fused "
     "kernels, PyTorch's default) or eager (unfused)."),
    (dict(params=1e9, recompute="sometimes"),
     "recompute: unknown mode 'sometimes'; use true/false or one of none, selective, full."),
])
def test_workload_messages_name_the_input_and_the_way_out(kwargs, message):
    with pytest.raises(SizingError) as err:
        Workload(**kwargs)
    assert str(err.value) == message


def test_the_largest_workload_inputs_the_messages_allow_are_allowed():
    w = Workload(params=1e9, gpus=1_000_000, seq_len=1_048_576, micro_batch=4096, layers=1000,
                 hidden=1_000_000, heads=10_000, lora_rank=4096, lora_targets=64)
    assert (w.gpus, w.seq_len, w.micro_batch, w.shape) == (
        1_000_000, 1_048_576, 4096, ModelShape(1000, 1_000_000, 10_000, "given"))
    assert [Workload(params=1e9, recompute=r).recompute
            for r in (False, None, True, "Selective", "FULL")] == [
        "none", "none", "full", "selective", "full"]


@pytest.mark.parametrize("call, message", [
    (lambda: check_params(0), "params: must be in (0, 1e+13], got 0. Give the parameter count "
     "itself, e.g. 13e9 for a 13B model."),
    (lambda: check_tokens(0), "tokens: must be in (0, 1e+15], got 0. Give the number of training "
     "tokens, e.g. 1e8 (epochs x dataset tokens)."),
    (lambda: check_mfu("0.4"), "mfu: must be in (0, 1], got '0.4'. MFU is a fraction of peak, "
     "e.g. 0.4 for 40%."),
    (lambda: check_mfu(True), "mfu: must be in (0, 1], got True. MFU is a fraction of peak, "
     "e.g. 0.4 for 40%."),
    (lambda: check_scaling_efficiency(1.5), "scaling_efficiency: must be in (0, 1], got 1.5. It "
     "is a fraction of linear speed-up, e.g. 0.9; omit it for the default."),
    (lambda: check_headroom(0.95), "headroom: must be in [0, 0.9], got 0.95. It is the fraction "
     "of GPU memory kept free, e.g. 0.1."),
    (lambda: usable_bytes(0), "gpu_memory: must be positive bytes, got 0."),
    (lambda: usable_bytes("80e9"), "gpu_memory: must be positive bytes, got '80e9'."),
])
def test_check_messages_name_the_input_its_range_and_the_way_out(call, message):
    with pytest.raises(SizingError) as err:
        call()
    assert str(err.value) == message


def test_headroom_bounds_and_usable_bytes_by_hand():
    assert check_headroom(0) == 0.0 and check_headroom(0.9) == 0.9   # [0, 0.9]
    assert usable_bytes(80e9, 0) == 80e9 and usable_bytes(1, 0) == 1
    assert usable_bytes(80e9) == pytest.approx(72e9)                 # 10 % kept free


def test_a_tiny_model_still_has_one_whole_layer_and_head():
    # (1e5 / (12 x 128^2))^(1/3) = 0.80 -> 1 layer, hidden 128, 128 / 128 = 1 head
    shape = shape_from_params(1e5)
    assert shape == ModelShape(1, 128, 1, "derived from params: 12*L*h^2 with h = 128*L "
                                          "(Kaplan et al. 2020)")
    assert type(shape.heads) is int
    assert shape_from_params(1e4).layers == 1        # 0.37 rounds to 0: at least one layer


def test_activation_defaults_and_selective_by_hand():
    shape = ModelShape(10, 1024, 8)
    # default: no recomputation, fused attention: 34 x 1024 x 1 x 1024 x 10
    assert activation_bytes(shape, 1024, 1) == 356_515_840
    # eager: 1024 x 1024 x (34 + 5 x 8 x 1024 / 1024) x 10 = 775,946,240; selective drops the
    # attention term whatever the kernel
    assert activation_bytes(shape, 1024, 1, "none", "bf16", "eager") == 775_946_240
    assert activation_bytes(shape, 1024, 1, "selective", "bf16", "eager") == 356_515_840


def test_workload_from_the_spec_keeps_every_field():
    spec = WorkloadSpec(model_params=1e9, train_tokens=1e8, method="lora", precision="tf32",
                        zero_stage=2, seq_len=1024, micro_batch=2, layers=10, hidden=1000,
                        heads=8, recompute=True, lora_rank=8, attention="eager")
    w = Workload.from_spec(spec)
    assert (w.params, w.method, w.precision, w.zero_stage, w.gpus, w.seq_len, w.micro_batch,
            w.shape, w.recompute, w.lora_rank, w.attention) == (
        1e9, "lora", "tf32", 2, 1, 1024, 2, ModelShape(10, 1000, 8), "full", 8, "eager")
    assert Workload.from_spec(spec, gpus=16, micro_batch=1).gpus == 16
    assert Workload.from_spec(WorkloadSpec(model_params=1e9, train_tokens=1e8)).attention == "sdpa"
