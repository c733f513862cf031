"""`cheapest` between clouds priced on different terms says so (issue 36): the example buys
spot on Google Cloud and on demand elsewhere, so its cheapest mark compares unlike prices."""
from __future__ import annotations

import json

from typer.testing import CliRunner

from tests.conftest import write_spec
from trainstack.cli.app import app

runner = CliRunner()


def _compare(tmp_path, spec, *extra):
    path = write_spec(tmp_path, spec)
    return runner.invoke(app, ["compare", "--spec", str(path), *extra])


def test_spot_against_on_demand_is_named_in_text_and_html(tmp_path, example_spec):
    assert example_spec["clouds"]["gcp"]["capacity"] == {"type": "spot"}   # the example's terms
    result = _compare(tmp_path, example_spec, "--json")
    doc = json.loads(result.stdout)
    assert doc["cheapest"] == ["gcp"], doc["cheapest"]
    text = _compare(tmp_path, example_spec, "--html", str(tmp_path / "r.html"))
    flat = " ".join(text.output.split())
    assert "cheapest compares unlike prices" in flat and "gcp: spot price" in flat
    assert "aws: on-demand list price" in flat
    assert "cheapest compares unlike prices" in (tmp_path / "r.html").read_text()


def test_like_for_like_prices_get_no_caveat(tmp_path, example_spec):
    # on-demand everywhere that sells it: drop the clouds that cannot be bought on demand
    example_spec["clouds"] = {k: v for k, v in example_spec["clouds"].items() if k in
                              ("aws", "azure")}
    result = _compare(tmp_path, example_spec)
    assert result.exit_code == 0, result.output
    assert "cheapest" in result.output
    assert "unlike prices" not in result.output
