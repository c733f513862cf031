"""`compare --measured`: bench results in place of the assumed MFU and scaling efficiency,
shown beside them, in text, JSON and HTML. Expected figures by hand."""
import json
from dataclasses import replace

import pytest
from typer.testing import CliRunner

from tests.conftest import write_spec
from trainstack.cli.app import app
from trainstack.cost.compare_records import CompareRow, RowCost, WorkloadSummary
from trainstack.cost.measured import load_benches, measure_row
from trainstack.cost.sizing_cost import CostBreakdown

# compute 900, storage 60 + 40 = 100, transfer 5: total 1,005
ROW = CompareRow("aws", "ok", nodes=2, hours=10.0, mfu=0.4, scaling_efficiency=0.9,
                 instance_type="p5.48xlarge",
                 cost=RowCost(CostBreakdown(currency="USD", hours=10.0, billed_hours=10.0,
                                            compute=900.0, filesystem=60.0, bucket=40.0,
                                            transfer=5.0, overhead=0.0), complete=True))
# assumed: 3.6e9 / 36,000 s = 100,000 tok/s
WORKLOAD = WorkloadSummary(nodes=2, spot=False, gpu=["H100"], params=1e9, train_tokens=3.6e9)


def bench(tps_one=40_000.0, params=1e9, efficiency=0.8, nodes=2, cloud="aws",
          time="2026-12-01T15:00:00Z"):
    return {"version": 1, "cloud": cloud, "time": time, "nodes": nodes,
            "instance_type": "p5.48xlarge",
            "training": {"one_node": {"tokens_per_s": tps_one, "model_params": params},
                         "all_nodes": {"tokens_per_s": tps_one * nodes * (efficiency or 1)},
                         "scaling_efficiency": efficiency}}


def test_measured_figures_by_hand():
    m = measure_row(ROW, WORKLOAD, bench()).as_json()
    assert m["tokens_per_s"] == pytest.approx(64_000)          # 40,000 x 2 x 0.8
    assert m["hours"] == pytest.approx(15.625)                 # 3.6e9 / 64,000 / 3600
    assert m["scaling_efficiency"] == 0.8
    assert m["assumed_tokens_per_s"] == pytest.approx(100_000)
    # one node assumed: 100,000 / (2 x 0.9) = 55,555.6 tok/s at MFU 0.4 -> 40,000 is 0.288
    assert m["mfu"] == pytest.approx(0.288)
    # (900 + 100) x 15.625 / 10 + 5 = 1,567.5; per million tokens: / 3,600
    assert m["cost_total"] == pytest.approx(1567.5)
    assert m["cost_per_million_tokens"] == pytest.approx(1567.5 / 3600)
    assert m["assumed_cost_per_million_tokens"] == pytest.approx(1005 / 3600)
    assert m["notes"] == []


def test_a_smaller_bench_model_is_scaled_and_said():
    m = measure_row(ROW, WORKLOAD, bench(params=1e8)).as_json()
    assert m["tokens_per_s_one_node"] == pytest.approx(4_000)   # same FLOP rate, 10x params
    assert "--train-cmd" in m["notes"][0]


def test_one_node_spec_needs_no_efficiency():
    m = measure_row(replace(ROW, nodes=1, scaling_efficiency=1.0), WORKLOAD,
                    bench(efficiency=None, nodes=1)).as_json()
    assert m["scaling_efficiency"] == 1.0 and m["tokens_per_s"] == pytest.approx(40_000)


def test_the_newest_bench_per_cloud_wins(tmp_path):
    (tmp_path / "a.json").write_text(json.dumps(bench(tps_one=1.0, time="2026-12-01T10:00:00Z")))
    (tmp_path / "b.json").write_text(json.dumps(bench(tps_one=2.0, time="2026-12-01T11:00:00Z")))
    (tmp_path / "c.json").write_text(json.dumps(bench(cloud="gcp")))
    found = load_benches([tmp_path])
    assert found["aws"]["training"]["one_node"]["tokens_per_s"] == 2.0 and set(found) == {"aws", "gcp"}


def test_compare_measured_in_text_json_and_html(tmp_path, example_spec):
    example_spec["clouds"] = {"aws": example_spec["clouds"]["aws"]}
    example_spec["workload"]["recompute"] = True
    spec = write_spec(tmp_path, example_spec)
    results = tmp_path / "bench-results"
    results.mkdir()
    (results / "aws.json").write_text(json.dumps(bench(params=13e9, efficiency=0.75)))
    runner = CliRunner()
    html = tmp_path / "report.html"
    as_json = runner.invoke(app, ["compare", "--spec", str(spec), "--measured", "--bench",
                                 str(results), "--json", "--html", str(html)])
    assert as_json.exit_code == 0, as_json.output
    doc = json.loads(as_json.output)
    row = doc["clouds"][0]
    measured = doc["measured"]["clouds"]["aws"]
    tokens = example_spec["workload"]["train_tokens"]
    assert measured["hours"] == pytest.approx(float(tokens) / (40_000 * 2 * 0.75) / 3600)
    assert row["scaling_efficiency"] == 0.9             # the assumption stays beside it
    page = html.read_text()
    assert 'id="measured"' in page and "0.90 | 0.75" in page
    text = runner.invoke(app, ["compare", "--spec", str(spec), "--measured", "--bench",
                               str(results)], terminal_width=250).output
    assert "measured beside assumed" in text and "0.90 | 0.75" in text
    assert "0.40 | " in text and "per million tokens" in text
    # without --measured nothing changes
    plain = json.loads(runner.invoke(app, ["compare", "--spec", str(spec), "--json"]).output)
    assert "measured" not in plain


def test_a_bad_bench_file_is_one_clear_error(tmp_path, example_spec):
    example_spec["clouds"] = {"aws": example_spec["clouds"]["aws"]}
    spec = write_spec(tmp_path, example_spec)
    (tmp_path / "x.json").write_text("{}")
    result = CliRunner().invoke(app, ["compare", "--spec", str(spec), "--measured", "--bench",
                                      str(tmp_path / "x.json")])
    assert result.exit_code == 2 and "not a bench result" in result.output
    missing = CliRunner().invoke(app, ["compare", "--spec", str(spec), "--measured", "--bench",
                                       str(tmp_path / "nope")])
    assert missing.exit_code == 2 and "trainstack bench" in missing.output
