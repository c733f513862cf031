"""Answers that agree with the spec (issue 26): the lifetime cuts the run, spot that is no
discount is not dearer than on-demand. Expected values are computed by hand in the comments."""
import json

import pytest
from typer.testing import CliRunner

from tests.conftest import write_spec
from trainstack.cost import sizing
from trainstack.cli.app import app
from trainstack_components import base

runner = CliRunner()
P5_US_EAST_1 = 55.04     # sources/gpu_instances.csv: p5.48xlarge us-east-1 on-demand = spot = 55.04
P5_US_EAST_2_SPOT = 11.9912  # us-east-2: highest zone spot 11.9912, on-demand 55.04


# ----------------------------------------------------------------------------- run_cost

def test_a_job_longer_than_the_lifetime_is_priced_for_what_runs():
    # 1,023 training h x 1.15 idle = 1,176.45 billed h needed; max_hours 200 stops it there.
    cost = sizing.run_cost(nodes=2, price_per_node_hour=10.0, hours=1023, max_hours=200)
    assert cost.needed_hours == pytest.approx(1176.45)
    assert cost.billed_hours == 200
    assert cost.compute == pytest.approx(2 * 10.0 * 200)          # 4,000, not 23,529
    assert not cost.finishes
    assert cost.done_fraction == pytest.approx(200 / 1176.45)     # 0.170 -> "17%"
    note = cost.lifetime_note()
    assert "does not finish within the lifetime" in note and "17%" in note
    assert "1,176" in note and "200" in note


def test_a_job_inside_the_lifetime_is_priced_in_full():
    # 100 h x 1.15 = 115 h <= 200 h
    cost = sizing.run_cost(nodes=1, price_per_node_hour=2.0, hours=100, max_hours=200)
    assert cost.billed_hours == pytest.approx(115) and cost.compute == pytest.approx(230)
    assert cost.finishes and cost.done_fraction == 1.0 and cost.lifetime_note() is None


def test_a_job_ending_exactly_at_the_lifetime_finishes():
    # 100 h x 1.15 = 115 h, lifetime 115 h: the boundary counts as finishing
    cost = sizing.run_cost(nodes=1, price_per_node_hour=1.0, hours=100, max_hours=115.0)
    assert cost.finishes


def test_the_overhead_share_stays_the_same_when_the_lifetime_cuts_the_run():
    # 15 % idle: overhead = compute x (1 - 1/1.15) = 200 x 0.130435 = 26.087
    cost = sizing.run_cost(nodes=1, price_per_node_hour=1.0, hours=1000, max_hours=200)
    assert cost.overhead == pytest.approx(200 * (1 - 1 / 1.15))


@pytest.mark.parametrize("spot, ondemand, spot_price, discounted", [
    (True, 55.04, 55.04, False),     # equal: no discount
    (True, 55.04, None, False),      # no spot price cited
    (True, 55.04, 11.9912, True),
    (False, 55.04, 11.9912, False),
])
def test_spot_is_only_a_discount_when_the_cited_spot_price_is_lower(spot, ondemand, spot_price,
                                                                    discounted):
    assert sizing.spot_discounted(spot, ondemand, spot_price) is discounted


# ----------------------------------------------------------------------------- compare / estimate

@pytest.fixture
def only_aws(monkeypatch):
    monkeypatch.setattr(base, "implemented_clouds", lambda: ["aws"])


def _compare(path) -> dict:
    result = runner.invoke(app, ["compare", "--spec", str(path), "--json"], terminal_width=200)
    assert result.exit_code == 0, result.output
    return next(r for r in json.loads(result.output)["clouds"] if r["cloud"] == "aws")


def _aws_spec(example_spec, *, tokens, max_hours, spot=False, region="us-east-1"):
    example_spec["clouds"] = {"aws": {**example_spec["clouds"]["aws"], "region": region,
                                      "zone": f"{region}a"}}
    example_spec["gpu"] = ["H100"]
    example_spec["workload"].update(train_tokens=tokens, max_hours=max_hours, recompute=True)
    example_spec["spot"] = spot
    return example_spec


def test_compare_says_the_job_does_not_finish_and_prices_the_lifetime(tmp_path, example_spec,
                                                                      only_aws):
    spec = _aws_spec(example_spec, tokens=2e11, max_hours=200)
    row = _compare(write_spec(tmp_path, spec))
    assert row["hours"] * 1.15 > 200, "the test needs a job longer than the lifetime"
    cost = row["cost"]
    assert cost["billed_hours"] == 200 and cost["finishes"] is False
    # 2 nodes x 55.04 USD/h x 200 h = 22,016 USD of compute
    assert cost["compute"] == pytest.approx(2 * P5_US_EAST_1 * 200)
    assert cost["done_fraction"] == pytest.approx(200 / (row["hours"] * 1.15))
    assert any("does not finish within the lifetime" in n for n in row["notes"])


def test_compare_spot_equal_to_on_demand_is_not_dearer(tmp_path, example_spec, only_aws):
    on_demand = _compare(write_spec(tmp_path, _aws_spec(example_spec, tokens=1e8, max_hours=96),
                                    "od.yaml"))
    spot = _compare(write_spec(tmp_path, _aws_spec(example_spec, tokens=1e8, max_hours=96,
                                                   spot=True), "spot.yaml"))
    assert spot["cost"]["compute"] == pytest.approx(on_demand["cost"]["compute"])
    # billed = hours x 1.15 only (no 10 % preemption overhead on a price that is no discount)
    assert spot["cost"]["billed_hours"] == pytest.approx(spot["hours"] * 1.15)
    assert "no discount" in spot["priced_as"]
    assert any("no preemption overhead" in n for n in spot["notes"])


def test_compare_a_real_spot_discount_keeps_the_preemption_overhead(tmp_path, example_spec,
                                                                    only_aws):
    row = _compare(write_spec(tmp_path, _aws_spec(example_spec, tokens=1e8, max_hours=96,
                                                  spot=True, region="us-east-2")))
    assert row["priced_as"] == "spot price"
    # billed = hours x 1.15 x 1.10; compute = 2 x 11.9912 x billed
    assert row["cost"]["billed_hours"] == pytest.approx(row["hours"] * 1.15 * 1.10)
    assert row["cost"]["compute"] == pytest.approx(2 * P5_US_EAST_2_SPOT
                                                   * row["hours"] * 1.15 * 1.10)


def test_estimate_says_the_job_does_not_finish(tmp_path, example_spec):
    spec = _aws_spec(example_spec, tokens=2e11, max_hours=200)
    result = runner.invoke(app, ["estimate", "--spec", str(write_spec(tmp_path, spec)),
                                 "--cloud", "aws", "--json"])
    assert result.exit_code == 0, result.output
    r = json.loads(result.output)
    assert r["max_hours"] == 200
    assert r["cost"]["billed_hours"] == 200 and r["cost"]["finishes"] is False
    # 16 GPUs x (55.04 / 8) USD/GPU-h x 200 h = 22,016 USD
    assert r["cost"]["compute"] == pytest.approx(16 * P5_US_EAST_1 / 8 * 200)
    assert "does not finish within the lifetime" in r["lifetime_note"]
    text = runner.invoke(app, ["estimate", "--spec", str(write_spec(tmp_path, spec)),
                               "--cloud", "aws"], terminal_width=300).output
    assert "does not finish within the lifetime" in " ".join(text.split())


def test_an_undated_price_says_so_where_it_is_used(tmp_path, example_spec, only_aws):
    # sources/gpu_instances.csv: the AWS rows' date is "unknown (commit date not retrievable;
    # content post-dates 2025-09-10)"
    path = write_spec(tmp_path, _aws_spec(example_spec, tokens=1e8, max_hours=96))
    text = " ".join(runner.invoke(app, ["compare", "--spec", str(path)],
                                  terminal_width=300).output.split())
    assert "aws: node price" in text and "(as of unknown (commit date not retrievable" in text
    out = json.loads(runner.invoke(app, ["estimate", "--spec", str(path), "--cloud", "aws",
                                         "--json"]).output)
    assert "price as of unknown (commit date not retrievable" in out["priced_as"]
