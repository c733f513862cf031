"""Issue 10: every built resource priced or named as unpriced, filesystems chosen by cited cost,
one selection for plan/check/estimate/compare, one data-size model, one catalog home."""
from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.conftest import edited, plan_for, write_spec
from trainstack.cli.app import app
from trainstack_components import base, catalog
from trainstack_components.aws import planning as aws_planning
from trainstack_components.catalog import FilesystemPrice, StoragePrice
from trainstack_components.errors import SpecError
from trainstack_components.gcp import planning as gcp_planning
from trainstack_components.spec import parse_spec

ROOT = Path(__file__).resolve().parents[2]
CATALOG = ROOT / "components" / "catalog"
GIB = 2 ** 30
runner = CliRunner()


def compare_json(path) -> dict:
    result = runner.invoke(app, ["compare", "--spec", str(path), "--json"], terminal_width=200)
    doc = json.loads(result.stdout)
    failed = [r["cloud"] for r in doc["clouds"] if r["status"] == "error"]
    assert result.exit_code == (1 if failed else 0), result.output   # 1: a cloud not planned
    return doc


def row(result: dict, cloud: str) -> dict:
    return next(r for r in result["clouds"] if r["cloud"] == cloud)


# ----------------------------------------------------------------------------- prices

@pytest.mark.parametrize("name", ["prices.csv", "storage_prices.csv", "filesystem_prices.csv"])
def test_every_price_row_names_its_source_and_date(name):
    with open(CATALOG / name, newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert rows
    # A source is a public place: a URL, a host/path, or github.com/<owner>/<repo> ... @<commit>;
    # a date is an ISO date (YYYY, YYYY-MM or YYYY-MM-DD) or says "unknown (why)".
    public = re.compile(r"https?://|\b[a-z0-9-]+(\.[a-z0-9-]+)+/|github\.com/[\w.-]+/[\w.-]+"
                        r"|\b[a-z0-9-]+\.(com|org|io|jp|net|dev|cn)\b")
    dated = re.compile(r"^(\d{4}(-\d{2}){0,2}\b|unknown \(.+\))")
    for r in rows:
        assert public.search(r["source"]), r["source"]
        assert "shared/reference" not in r["source"] and "cloud-map" not in r["source"], r
        if "github.com/" in r["source"] and "@" in r["source"]:
            assert re.search(r"@\s?[0-9a-f]{7,40}", r["source"]), r["source"]
        assert dated.match(r["as_of"].strip()), r["as_of"]


def test_fsx_persistent2_is_priced_at_every_tier_and_rises_with_the_tier():
    prices = [catalog.filesystem_price("aws", "fsx_lustre_persistent2", t, "us-east-1")
              for t in aws_planning.FSX_THROUGHPUT_TIERS]
    assert all(p is not None for p in prices)
    per_gib = [p.usd_per_gib_month for p in prices]
    assert per_gib == sorted(per_gib)
    # 0.18858 USD per GB-month (the cited 125 tier row) in USD per GiB-month
    assert per_gib[0] == pytest.approx(0.18858 * GIB / 1e9)
    assert not prices[0].in_region and prices[0].row.region == "ap-northeast-1"


def test_managed_lustre_has_all_four_cited_tiers():
    # the cited billing SKUs "Managed Lustre Capacity <tier>-Perf Iowa" (issue 20)
    for tier, usd in {125: 0.145, 250: 0.21, 500: 0.34, 1000: 0.60}.items():
        price = catalog.filesystem_price("gcp", "managed_lustre", tier, "us-central1")
        assert price.usd_per_gib_month == pytest.approx(usd) and price.in_region
        elsewhere = catalog.filesystem_price("gcp", "managed_lustre", tier, "us-west1")
        assert elsewhere.usd_per_gib_month == pytest.approx(usd) and not elsewhere.in_region


# ----------------------------------------------------------------------------- choice by cost

def _prices(per_gib: dict[int, float]):
    row = StoragePrice("gcp", "test", "usd_per_gib_month", 0, "us-west1", "test", "2026")
    return lambda tier: (FilesystemPrice(per_gib[tier], row, True) if tier in per_gib else None)


def _lustre(requested_gib, requested_mbps, per_gib):
    return gcp_planning.lustre_choice(requested_gib, requested_mbps, "us-west1",
                                      price_at=_prices(per_gib))


def test_gcp_1000_tier_at_9000_gib_beats_36000_gib_at_250_when_cheaper():
    choice = _lustre(4800, 250, {125: 0.145, 250: 0.21, 500: 0.34, 1000: 0.60})
    assert (choice.tier, choice.capacity_gib) == (1000, 9000)     # 5,400 vs 7,560 USD/month
    assert choice.monthly_usd == pytest.approx(9000 * 0.60)
    assert any(p.startswith("250 MB/s/TiB at 36,000 GiB: 7,560") for p in choice.passed_over)


def test_gcp_250_tier_wins_when_the_1000_tier_costs_more():
    choice = _lustre(4800, 250, {125: 0.145, 250: 0.21, 500: 0.46, 1000: 0.90})
    assert (choice.tier, choice.capacity_gib) == (250, 36000)     # 7,560 vs 8,280 / 8,100


def test_the_choice_meets_capacity_and_aggregate_throughput():
    # 100,000 GiB at 125 MB/s/TiB needs 12,207 MB/s: 1000-tier sizes are 9,000-GiB steps
    choice = _lustre(100_000, 125, {125: 0.145, 250: 0.21, 500: 0.34, 1000: 0.60})
    assert choice.capacity_gib >= 100_000
    assert choice.throughput_mbps >= 100_000 / 1024 * 125


def test_an_unpriced_tier_is_never_priced_and_the_choice_says_so():
    choice = _lustre(4800, 250, {125: 0.145})
    assert (choice.tier, choice.capacity_gib, choice.usd_per_gib_month) == (1000, 9000, None)
    assert choice.unpriced_tiers == (250, 500, 1000)
    assert "no cited price" in choice.note and "10,440 USD/month" in choice.note


def test_fsx_efa_sizes_are_the_per_tier_steps():
    assert [aws_planning.fsx_efa_capacity_gib(1, t) for t in (125, 250, 500, 1000)] == [
        38_400, 19_200, 9_600, 4_800]
    assert aws_planning.fsx_efa_capacity_gib(4_801, 1000) == 9_600


def test_fsx_choice_with_efa_by_hand():
    per_gb = {125: 0.18858, 250: 0.28211, 500: 0.47069, 1000: 0.84863}
    choice = aws_planning.fsx_choice(4800, 250, "us-east-1", efa=True)
    # 4,800 GiB at 250 MB/s/TiB: needed 9,600 / 4,800 / 4,800 / 4,800 GiB at 125 / 250 / 500 /
    # 1000; rounded up to the EFA steps (38,400 / 19,200 / 9,600 / 4,800 GiB, FSx User Guide):
    sizes = {125: 38_400, 250: 19_200, 500: 9_600, 1000: 4_800}
    costs = {t: sizes[t] * per_gb[t] * GIB / 1e9 for t in per_gb}
    # = 7,775 / 5,816 / 4,852 / 4,373.8 USD per month
    best = min(costs, key=costs.get)
    assert choice.tier == best == 1000 and choice.capacity_gib == 4800
    assert choice.monthly_usd == pytest.approx(costs[1000], abs=0.01)
    assert "EFA-enabled" in choice.note


def test_the_plan_shows_size_tier_and_monthly_price(example_spec):
    # p5 is an EFA client, but EFA (4,800 GiB at 1000: 4,374 USD) is dearer than the plain
    # 4,800 GiB at 250 the example asks for, so the file system is not EFA-enabled.
    plan = plan_for(example_spec, "aws")
    assert plan.outputs["filesystem_capacity_gib"] == 4800
    assert plan.outputs["filesystem_throughput_mbps_per_tib"] == 250
    assert plan.outputs["filesystem_efa_enabled"] is False
    assert plan.outputs["filesystem_monthly_usd"] == pytest.approx(4800 * 0.28211 * GIB / 1e9,
                                                                   abs=0.01)


# ----------------------------------------------------------------------------- one selection

@pytest.fixture
def no_fit_on_h100(example_spec) -> dict:
    """13B LoRA, unfused attention, no recomputation: 69.1 GiB per GPU, over an H100's 67.1 GiB
    usable (with SDPA, the default, it would fit)."""
    return edited(example_spec, workload__recompute=False, workload__attention="eager")


def test_selection_skips_a_gpu_the_workload_cannot_fit_and_says_why(no_fit_on_h100):
    sel = base.get_cloud("aws").select(parse_spec(no_fit_on_h100, "test"))
    assert (sel.instance.name, sel.instance.gpu, sel.fits) == ("p5en.48xlarge", "H200", True)
    assert sel.passed_over and sel.passed_over[0].startswith("H100 (p5.48xlarge): ")
    assert "does not fit" in sel.passed_over[0]


def test_plan_check_and_compare_use_the_same_selection(tmp_path, no_fit_on_h100):
    plan = plan_for(no_fit_on_h100, "aws")
    assert plan.outputs["instance_type"] == "p5en.48xlarge"
    assert plan.outputs["workload_fits"] is True
    assert plan.outputs["selection_passed_over"][0].startswith("H100 (p5.48xlarge)")
    aws = row(compare_json(write_spec(tmp_path, no_fit_on_h100)), "aws")
    assert (aws["instance_type"], aws["gpu"], aws["fits"]) == ("p5en.48xlarge", "H200", True)
    assert aws["passed_over"] == plan.outputs["selection_passed_over"]
    result = runner.invoke(app, ["estimate", "--spec", str(write_spec(tmp_path, no_fit_on_h100)),
                                 "--json"])
    assert json.loads(result.output)["gpu"] == "H200"


def test_when_nothing_fits_the_first_offered_type_is_planned_and_marked(example_spec):
    spec = edited(example_spec, gpu=["H100"], workload__recompute=False,
                  workload__attention="eager")
    sel = base.get_cloud("aws").select(parse_spec(spec, "test"))
    assert (sel.instance.name, sel.fits) == ("p5.48xlarge", False)


def test_a_zone_listed_type_without_a_price_row_says_no_cited_price(example_spec):
    spec = edited(example_spec, gpu=["H100"], interconnect="fastest")
    spec["clouds"]["gcp"].update(region="us-central1", zone="us-central1-a",
                                 instance_type="a3-megagpu-8g")
    with pytest.raises(SpecError) as err:
        base.get_cloud("gcp").select(parse_spec(spec, "test"))
    assert err.value.field == "clouds.gcp.instance_type"
    assert "no cited price" in str(err.value) and "not offered" not in str(err.value)


def test_spot_is_suggested_only_where_it_is_cheaper(example_spec):
    small = edited(example_spec, budget__monthly_usd=100)
    with pytest.raises(SpecError) as err:     # us-east-1 p5: the snapshot's spot = on-demand
        base.plan_selection(parse_spec(small, "test"), "aws")
    assert "spot: true" not in str(err.value) and "spot would not help" in str(err.value)
    h200 = edited(small, gpu=["H200"])         # p5en: spot 18.25 < 63.30 USD/h
    with pytest.raises(SpecError) as err:
        base.plan_selection(parse_spec(h200, "test"), "aws")
    assert "spot: true" in str(err.value)


# ----------------------------------------------------------------------------- answers

def test_compare_without_a_workload_shows_rates_and_verdicts(tmp_path, example_spec):
    spec = edited(example_spec, workload=None, max_hours=96)
    result = compare_json(write_spec(tmp_path, spec))
    for r in result["clouds"]:
        if r["status"] != "ok":
            continue
        assert r["usd_per_hour"] > 0 and r["monthly_run_rate"] > 0
        assert r["policy"]["verdict"] in ("pass", "warn", "fail")
        assert r["hours"] is None and r["cost"]["total"] is None
    text = runner.invoke(app, ["compare", "--spec", str(write_spec(tmp_path, spec))],
                         terminal_width=200)
    assert text.exit_code == 0 and "rates only" in text.output


# ----------------------------------------------------------------------------- one data model

@pytest.mark.parametrize("cloud", ["aws", "gcp"])
def test_check_and_compare_price_the_same_bucket(tmp_path, example_spec, cloud):
    from trainstack_policies.inventory import buckets
    from trainstack_policies.model import from_plan
    from trainstack_policies.pricing import _data_gb
    plan = plan_for(example_spec, cloud)
    (bucket,) = buckets(from_plan(plan))
    compared = compare_json(write_spec(tmp_path, example_spec))["assumptions"]["bucket_gb"]
    assert compared == pytest.approx(1e8 * 4 / 1e9 + 13e9 * 2 / 1e9)   # dataset + weights
    assert _data_gb(bucket) == pytest.approx(compared, abs=0.001)


# ----------------------------------------------------------------------------- done when

def _h200_spec(example_spec) -> dict:
    spec = edited(example_spec, gpu=["H200"], nodes=3, budget__monthly_usd=400000)
    # Azure and Alibaba have no H200 type in their sections' regions, and compare exits 1 when
    # a listed cloud cannot be planned: these tests are about AWS and Google Cloud.
    spec["clouds"] = {cloud: spec["clouds"][cloud] for cloud in ("aws", "gcp")}
    return spec


@pytest.mark.parametrize("make", [lambda s: s, _h200_spec], ids=["example", "3-node-h200"])
def test_aws_compare_has_no_unpriced_item(tmp_path, example_spec, make):
    aws = row(compare_json(write_spec(tmp_path, make(example_spec))), "aws")
    assert aws["unpriced"] == [] and aws["cost"]["complete"] is True


@pytest.mark.parametrize("make", [lambda s: s, _h200_spec], ids=["example", "3-node-h200"])
def test_gcp_compare_has_no_unpriced_item(tmp_path, example_spec, make):
    gcp = row(compare_json(write_spec(tmp_path, make(example_spec))), "gcp")
    # compute, bucket, transfer and now every Managed Lustre tier are cited (issue 20)
    assert gcp["unpriced"] == [] and gcp["cost"]["complete"] is True


# ----------------------------------------------------------------------------- one home

def test_policies_never_import_trainstack():
    for path in (ROOT / "policies").rglob("*.py"):
        text = path.read_text()
        assert not re.search(r"^\s*(from|import)\s+trainstack\b", text, re.M), path


def test_estimate_with_cloud_uses_the_selection(tmp_path, example_spec):
    spec = edited(example_spec, workload__recompute=False, workload__attention="eager")
    result = runner.invoke(app, ["estimate", "--spec", str(write_spec(tmp_path, spec)),
                                 "--cloud", "aws", "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    assert (out["gpu"], out["workload"]["gpus"], out["fits"]) == ("H200", 16, True)
    assert "p5en.48xlarge" in out["gpu_note"] and "passed over: H100" in out["gpu_note"]
