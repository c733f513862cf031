"""`trainstack estimate` as scripts and docs call it (issue 5's command-line contract)."""
import json

import pytest
from typer.testing import CliRunner

from tests.conftest import assert_clean_error, write_spec
from trainstack.cli.app import app

runner = CliRunner()


def estimate(*args):
    return runner.invoke(app, ["estimate", *map(str, args)], terminal_width=200)


def estimate_json(*args) -> dict:
    result = estimate(*args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


# ----------------------------------------------------------------------------- contract

def test_json_contract_keys():
    out = estimate_json("--params", "7e9", "--method", "lora", "--tokens", "1e9", "--gpu", "H100")
    assert set(out["per_gpu_bytes"]) == {"weights", "gradients", "optimizer", "activations",
                                         "total"}
    assert all(isinstance(v, int) for v in out["per_gpu_bytes"].values())
    for key in ("min_gpus", "training_flops", "hours"):
        assert key in out
    assert out["per_gpu_bytes"]["total"] == sum(
        out["per_gpu_bytes"][k] for k in ("weights", "gradients", "optimizer", "activations"))


def test_every_contract_flag_is_accepted_and_used():
    out = estimate_json("--params", "7e9", "--method", "full", "--precision", "fp16",
                        "--zero-stage", "3", "--gpus", "8", "--gpu", "A100-80GB",
                        "--seq-len", "4096", "--micro-batch", "1", "--layers", "32",
                        "--hidden", "4096", "--heads", "32", "--recompute", "--lora-rank", "8",
                        "--tokens", "1e9", "--mfu", "0.5", "--flops-factor", "6",
                        "--peak-tflops", "300", "--scaling-efficiency", "0.8")
    # by hand: ZeRO-3 shards 2 + 2 + 12 bytes/param over 8 GPUs; full recomputation keeps
    # 2*s*b*h bytes per layer (Korthikanti et al. 2022)
    assert out["per_gpu_bytes"]["weights"] == 2 * 7e9 / 8
    assert out["per_gpu_bytes"]["gradients"] == 2 * 7e9 / 8
    assert out["per_gpu_bytes"]["optimizer"] == 12 * 7e9 / 8
    assert out["per_gpu_bytes"]["activations"] == 2 * 4096 * 1 * 4096 * 32
    assert out["workload"]["precision"] == "fp16" and out["workload"]["recompute"] == "full"
    assert out["training_flops"] == 6 * 7e9 * 1e9
    assert out["hours"] == pytest.approx(6 * 7e9 * 1e9 / (8 * 300e12 * 0.5) / 3600 / 0.8)
    assert out["peak_source"] == "override" and out["gpu"] == "A100-80GB"
    # 16 B x 7e9 / n + 1.07e9 B of activations <= 80e9 x 0.9 usable  =>  n >= 1.6
    assert out["fits"] is True and out["min_gpus"] == 2


def test_lora_rank_and_flops_by_hand():
    out = estimate_json("--params", "7e9", "--method", "lora", "--lora-rank", "8",
                        "--layers", "32", "--hidden", "4096", "--heads", "32",
                        "--tokens", "1e8", "--gpu", "H100")
    adapters = 2 * 8 * 4096 * 4 * 32          # A and B for q, k, v, o in every layer
    assert out["workload"]["adapter_params"] == adapters
    assert out["per_gpu_bytes"]["weights"] == 2 * 7e9 + 2 * adapters
    assert out["per_gpu_bytes"]["optimizer"] == 12 * adapters
    assert out["training_flops"] == 4 * 7e9 * 1e8   # no weight gradients for frozen weights
    # one node: scaling efficiency 1.0, H100 dense bf16 peak 989.5 TFLOPS, default MFU 0.4
    assert out["hours"] == pytest.approx(4 * 7e9 * 1e8 / (989.5e12 * 0.4) / 3600)


def test_human_output_is_a_table_with_breakdown_fits_and_smallest_count():
    result = estimate("--params", "13e9", "--method", "full", "--zero-stage", "3",
                      "--gpus", "8", "--gpu", "H100", "--recompute", "--tokens", "1e8")
    assert result.exit_code == 0, result.output
    text = result.output
    for word in ("weights", "gradients", "optimizer", "activations", "total",
                 "keeping 10% of memory free", "smallest GPU count", "A100-40GB", "B300",
                 "hours"):
        assert word in text, text
    assert "smallest GPU count that fits on H100:" in text


# ----------------------------------------------------------------------------- seed article

def test_seed_time_example_through_the_cli():
    # sec. 3.1: 2 x 13e9 x 1e8 FLOPs at 312 TFLOPS x 0.4 ≈ 20,800 s ≈ 5.8 h
    out = estimate_json("--params", "13e9", "--tokens", "1e8", "--flops-factor", "2",
                        "--peak-tflops", "312", "--mfu", "0.4", "--gpus", "1")
    assert out["training_flops"] == pytest.approx(2.6e18)
    assert out["hours"] == pytest.approx(5.787, abs=0.001)
    assert out["hours"] * 3600 == pytest.approx(20_800, rel=0.005)
    assert round(out["hours"], 1) == 5.8


def test_seed_13b_full_training_does_not_fit_one_80gb_gpu_through_the_cli():
    out = estimate_json("--params", "13e9", "--method", "full", "--tokens", "1e8", "--gpus", "1")
    b = out["per_gpu_bytes"]
    assert (b["weights"], b["gradients"], b["optimizer"]) == (26e9, 26e9, 156e9)
    for gpu in ("A100-80GB", "H100"):
        assert out["fits_by_gpu"][gpu]["fits"] is False
        assert out["fits_by_gpu"][gpu]["min_gpus"] is None
    # with ZeRO-3 it fits on enough 80 GB GPUs
    out = estimate_json("--params", "13e9", "--method", "full", "--tokens", "1e8",
                        "--zero-stage", "3", "--recompute", "--gpu", "A100-80GB")
    assert out["fits"] is False and out["min_gpus"] > 1


SEED_20H_TOKENS = 20 * 3600 * 4 * 312e12 * 0.4 / (2 * 13e9)   # work that takes 4 GPUs 20 h


def test_seed_cost_example_4_gpus_30_cny_20_h_and_scaling_07():
    args = ("--params", "13e9", "--method", "lora", "--tokens", SEED_20H_TOKENS,
            "--flops-factor", "2", "--peak-tflops", "312", "--mfu", "0.4", "--gpus", "4",
            "--price-per-gpu-hour", "30", "--price-currency", "CNY", "--idle-overhead", "0")
    out = estimate_json(*args)
    assert out["hours"] == pytest.approx(20)
    assert out["currency"] == "CNY" and out["cost"]["currency"] == "CNY"
    assert out["cost"]["total"] == pytest.approx(2400)
    out = estimate_json(*args, "--scaling-efficiency", "0.7")
    assert round(out["hours"], 1) == 28.6
    assert round(out["cost"]["total"]) == 3429


def test_currency_cny_uses_the_stated_rate_or_the_override():
    base = ("--params", "7e9", "--method", "lora", "--tokens", "1e9", "--gpu", "H100",
            "--gpus", "8", "--price-per-gpu-hour", "2", "--idle-overhead", "0")
    usd = estimate_json(*base)
    assert usd["currency"] == "USD" and usd["cost"]["total"] == pytest.approx(8 * 2 * usd["hours"])
    cny = estimate_json(*base, "--currency", "CNY")
    assert cny["fx"]["cny_per_usd"] == pytest.approx(7.2734)      # components/catalog/fx.csv
    assert "federalreserve" in cny["fx"]["source"].lower() or "fred" in cny["fx"]["source"].lower()
    assert cny["cost"]["total"] == pytest.approx(usd["cost"]["total"] * 7.2734)
    cny = estimate_json(*base, "--currency", "CNY", "--cny-rate", "7")
    assert cny["cost"]["total"] == pytest.approx(usd["cost"]["total"] * 7)
    human = estimate(*base, "--currency", "CNY", "--cny-rate", "7")
    assert "7 CNY per USD (--cny-rate)" in human.output


def test_spot_adds_the_preemption_overhead():
    base = ("--params", "7e9", "--method", "lora", "--tokens", "1e9", "--gpu", "H100",
            "--price-per-gpu-hour", "1", "--idle-overhead", "0.1")
    plain = estimate_json(*base)
    spot = estimate_json(*base, "--spot", "--preemption-overhead", "0.2")
    assert spot["cost"]["billed_hours"] == pytest.approx(plain["hours"] * 1.1 * 1.2)
    assert plain["cost"]["billed_hours"] == pytest.approx(plain["hours"] * 1.1)


# ----------------------------------------------------------------------------- spec vs flags

@pytest.fixture
def spec_file(tmp_path, example_spec):
    example_spec["workload"] = {"model_params": 13e9, "method": "lora", "train_tokens": 1e8,
                                "mfu": 0.5, "recompute": True, "seq_len": 4096}
    example_spec["gpu"] = ["H200", "H100"]
    example_spec["nodes"] = 2
    return write_spec(tmp_path, example_spec)


def test_spec_supplies_the_workload(spec_file):
    out = estimate_json("--spec", spec_file)
    wl = out["workload"]
    assert (wl["params"], wl["method"], wl["tokens"], wl["seq_len"]) == (13e9, "lora", 1e8, 4096)
    assert wl["gpus"] == 16 and out["gpu"] == "H200" and out["mfu"] == 0.5
    assert out["nodes"] == 2 and out["scaling_efficiency"] == 0.9   # RDMA default
    assert out["training_flops"] == 4 * 13e9 * 1e8
    assert out["hours"] == pytest.approx(4 * 13e9 * 1e8 / (16 * 989.5e12 * 0.5) / 3600 / 0.9)


def test_flags_override_the_spec(spec_file):
    out = estimate_json("--spec", spec_file, "--params", "7e9", "--method", "qlora",
                        "--tokens", "2e8", "--gpus", "4", "--gpu", "A100-80GB", "--mfu", "0.3",
                        "--no-recompute", "--seq-len", "1024")
    wl = out["workload"]
    assert (wl["params"], wl["method"], wl["tokens"], wl["gpus"]) == (7e9, "qlora", 2e8, 4)
    assert (wl["recompute"], wl["seq_len"]) == ("none", 1024)
    assert out["gpu"] == "A100-80GB" and out["mfu"] == 0.3 and out["nodes"] == 1
    assert out["hours"] == pytest.approx(4 * 7e9 * 2e8 / (4 * 312e12 * 0.3) / 3600)


def test_the_example_spec_works_and_takes_the_first_gpu_in_its_list_that_fits(tmp_path,
                                                                             example_spec):
    from tests.conftest import EXAMPLE, write_spec
    out = estimate_json("--spec", EXAMPLE)  # recompute: true, so its first choice fits
    assert out["gpu"] == "H100" and out["fits"] is True and out["hours"] > 0
    example_spec["workload"]["recompute"] = False
    example_spec["workload"]["attention"] = "eager"
    no_recompute = write_spec(tmp_path, example_spec)
    out = estimate_json("--spec", no_recompute)
    # 13B LoRA, unfused attention, no recomputation: 26 GB weights + ~48 GB activations > 72 GB
    # usable on an H100, and ZeRO stage 0 shards nothing, so the spec's next choice, H200, is used
    assert out["fits_by_gpu"]["H100"]["min_gpus"] is None
    assert out["gpu"] == "H200" and out["fits"] is True and out["hours"] > 0
    assert "H100" in out["gpu_note"] and "does not fit at any GPU count" in out["gpu_note"]
    human = estimate("--spec", no_recompute)
    assert human.exit_code == 0 and "passed over: H100" in human.output, human.output


def test_a_spec_whose_gpus_never_fit_answers_with_the_breakdown_and_exits_1(tmp_path,
                                                                             example_spec):
    example_spec["gpu"] = ["A100-40GB", "H100"]
    example_spec["workload"].update(method="full", model_params=13e9)
    result = estimate("--spec", write_spec(tmp_path, example_spec), "--json")
    assert result.exit_code == 1, result.output
    out = json.loads(result.output)
    assert out["fits"] is False and out["min_gpus"] is None
    assert out["per_gpu_bytes"]["total"] > 0 and out["gpu"] == "A100-40GB"
    assert "fits none of the spec's GPUs" in out["gpu_note"] and "H100" in out["gpu_note"]
    text = estimate("--spec", write_spec(tmp_path, example_spec))
    assert text.exit_code == 1 and "memory per GPU" in text.output
    assert "Traceback" not in text.output


def test_tcp_interconnect_in_the_spec_means_the_tcp_scaling_default(tmp_path, example_spec):
    example_spec["interconnect"] = "tcp"
    out = estimate_json("--spec", write_spec(tmp_path, example_spec), "--recompute")
    assert out["fabric"] == "tcp" and out["scaling_efficiency"] == 5 / 8


def test_preset_sets_params_and_shape():
    out = estimate_json("--preset", "llama-70b", "--method", "qlora", "--tokens", "1e8",
                        "--gpu", "H100", "--recompute")
    assert out["workload"]["params"] == 70e9
    assert out["workload"]["shape"]["layers"] == 80 and out["workload"]["shape"]["hidden"] == 8192


# ----------------------------------------------------------------------------- bad input

@pytest.mark.parametrize("args, fragments", [
    (["--params", "-13e9", "--tokens", "1e8"], ["params", "13e9"]),
    (["--params=-13e9", "--tokens", "1e8"], ["params"]),
    (["--params", "13e15", "--tokens", "1e8"], ["params"]),
    (["--params", "13e9", "--tokens", "1e8", "--mfu", "0"], ["mfu", "(0, 1]"]),
    (["--params", "13e9", "--tokens", "1e8", "--mfu", "1.5"], ["mfu", "1.5"]),
    (["--params", "13e9", "--tokens", "-1"], ["tokens"]),
    (["--params", "13e9", "--tokens", "1e8", "--scaling-efficiency", "2"], ["--scaling-efficiency"]),
    (["--params", "13e9", "--tokens", "1e8", "--method", "dpo"], ["method", "full, lora, qlora"]),
    (["--params", "13e9", "--tokens", "1e8", "--zero-stage", "4"], ["--zero-stage"]),
    (["--params", "13e9", "--tokens", "1e8", "--gpus", "0"], ["gpus"]),
    (["--params", "13e9", "--tokens", "1e8", "--gpu", "H1000"], ["gpu", "H1000", "H100"]),
    (["--tokens", "1e8"], ["params"]),
    (["--params", "13e9", "--tokens", "1e8", "--currency", "EUR"], ["currency", "USD or CNY"]),
    (["--params", "13e9", "--tokens", "1e8", "--method", "lora", "--cny-rate", "0"], ["--cny-rate"]),
    (["--params", "13e9", "--tokens", "1e8", "--fabric", "carrier-pigeon"], ["fabric"]),
    (["--params", "13e9", "--tokens", "1e8", "--layers", "40"], ["layers/hidden/heads"]),
])
def test_bad_input_exits_2_with_a_clear_message(args, fragments):
    assert_clean_error(estimate(*args), *fragments)


def test_a_method_that_fits_the_gpu_at_no_count_exits_1_with_advice_that_would_work():
    # ZeRO stage 0 shards nothing, so more GPUs alone never help a 70B full fine-tune on 80 GB
    result = estimate("--params", "70e9", "--method", "full", "--gpu", "H100", "--tokens", "1e9",
                      "--json")
    assert result.exit_code == 1, result.output
    out = json.loads(result.output)
    assert out["fits"] is False and out["min_gpus"] is None and out["hours"] is not None
    assert "does not fit at any GPU count" in out["fit_note"]
    # one GPU: sharding comes first, but only with the GPUs it needs (SDPA activations
    # 45.6 GB: 1,120 GB / (72 - 45.6) GB -> 43 GPUs... see test_memory_advice.py for the hand
    # figures); what fits on the one GPU (QLoRA with recomputation) follows
    tips = out["fit_note"].split("would fit with")[1]
    assert tips.index("ZeRO stage 3 on") < tips.index("QLoRA")
    assert "full activation recomputation and QLoRA" in tips
    assert "ZeRO stage 3 and" not in tips or "or more GPUs" in tips


def test_advice_never_repeats_the_input_and_never_offers_zero_on_one_gpu():
    from trainstack_components.memory import Workload, advice
    qlora = Workload(params=70e9, method="qlora", gpus=1, recompute="full")
    assert all("QLoRA" not in tip and "LoRA" not in tip for tip in advice(qlora, 40e9))
    one_gpu = Workload(params=13e9, method="full", gpus=1)
    assert all(not tip.startswith("ZeRO") or "or more GPUs" in tip
               for tip in advice(one_gpu, 80e9))
    many = Workload(params=13e9, method="full", gpus=16, recompute="full")
    assert "ZeRO stage 3" in advice(many, 80e9)       # on 16 GPUs sharding is the way out


def test_a_workload_no_catalog_gpu_fits_exits_1():
    result = estimate("--params", "1e12", "--method", "full", "--tokens", "1e9", "--json")
    assert result.exit_code == 1, result.output
    out = json.loads(result.output)
    assert out["fits"] is False and out["min_gpus"] is None
    assert "fits no GPU model in the catalog" in out["fit_note"] and "B300" in out["fit_note"]


def test_memory_only_question_needs_no_tokens():
    out = estimate_json("--params", "13e9", "--method", "lora", "--gpu", "H100", "--recompute")
    assert out["per_gpu_bytes"]["total"] > 0 and out["fits"] is True
    assert out["training_flops"] is None and out["hours"] is None
    assert "memory only" in out["hours_note"]
    text = estimate("--params", "13e9", "--method", "lora", "--gpu", "H100", "--recompute")
    assert text.exit_code == 0 and "memory per GPU" in text.output


def test_bad_spec_workload_exits_2(tmp_path, example_spec):
    example_spec["workload"]["model_params"] = -1
    result = estimate("--spec", write_spec(tmp_path, example_spec))
    assert_clean_error(result, "workload.model_params")


# ------------------------------------------------------------ --cloud: the selection's price

def test_cloud_prices_at_the_capacity_the_spec_gives_that_cloud(tmp_path, example_spec):
    """The example's GCP section buys spot (top-level spot is off): `--cloud gcp` prices the
    selection at its spot price with the preemption overhead; AWS stays on demand."""
    from trainstack_components import catalog
    example_spec["workload"]["recompute"] = True
    path = write_spec(tmp_path, example_spec)
    gcp = estimate_json("--spec", path, "--cloud", "gcp")
    spot = catalog.price("gcp", "a3-ultragpu-8g", "us-central1").spot_usd_hr
    assert gcp["capacity"] == "spot" and "spot price" in gcp["priced_as"]
    assert gcp["price_per_gpu_hour"]["amount"] == pytest.approx(spot / 8)
    assert gcp["cost"]["billed_hours"] == pytest.approx(gcp["hours"] * 1.15 * 1.10)
    assert "a3-ultragpu-8g in us-central1, capacity spot" in gcp["cost_note"]
    aws = estimate_json("--spec", path, "--cloud", "aws")
    od = catalog.price("aws", "p5.48xlarge", "us-east-1").ondemand_usd_hr
    assert aws["capacity"] == "on_demand" and "on-demand list price (price as of " in aws["priced_as"]
    assert aws["price_per_gpu_hour"]["amount"] == pytest.approx(od / 8)
    assert aws["cost"]["billed_hours"] == pytest.approx(aws["hours"] * 1.15)
    # A price passed on the command line still wins, at the cloud's capacity overheads.
    given = estimate_json("--spec", path, "--cloud", "gcp", "--price-per-gpu-hour", "2")
    assert given["price_per_gpu_hour"]["amount"] == 2 and given["priced_as"] is None
    assert given["cost"]["billed_hours"] == pytest.approx(gcp["cost"]["billed_hours"])
