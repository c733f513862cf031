"""A trial is priced before anything is created, and refused (exit 2, one paragraph) when the
candidates' trial prices add up to more than --budget-usd. The expected figure is worked by hand
from the cited tables below."""
import os

import pytest
from typer.testing import CliRunner

from tests.conftest import assert_clean_error
from tests.trial_helpers import TrialWorld
from trainstack.cli.app import app
from trainstack.trial.capacity import capacity_error, example, known_errors

runner = CliRunner()

# GCP, examples/cluster.yaml on one node (us-central1-b, spot: A3 Ultra is not sold on demand):
#   node      a3-ultragpu-8g spot in us-central1: 40.9943 USD/h (components/catalog/prices.csv,
#             SkyPilot's GCP catalog: 3.74713 host + 37.2472 for 8 x H200)
#   hours     boot 0.5 + staging 0.25 + bench 0.5 + teardown 0.25 = 1.5 h (the defaults)
#   filesystem  Managed Lustre as `trainstack plan --cloud gcp` sizes it, 9,000 GiB at the
#             1000 MB/s/TiB tier: 0.60 USD per GiB-month (filesystem_prices.csv, Iowa list rate)
#   data      0.5 GB kept a month in Cloud Storage Standard: 0.02 USD per GB-month
NODE = 40.9943 * 1.5                      # 61.49145
FILESYSTEM = 9000 * 0.60 * 1.5 / 730      # 11.0958904...
DATA = 0.5 * 0.02                         # 0.01
TOTAL = NODE + FILESYSTEM + DATA          # 72.5973404... -> "72.60 USD"


@pytest.fixture
def world(tmp_path, monkeypatch):
    return TrialWorld(tmp_path, monkeypatch, clouds=("gcp",))


def half_gigabyte(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    with open(data / "subset.bin", "wb") as out:   # sparse: 0.5 GB by size, no disk used
        out.truncate(500_000_000)
    return data


def test_a_budget_below_the_trial_price_is_refused_before_anything_is_created(world, tmp_path):
    assert round(TOTAL, 2) == 72.60
    result = runner.invoke(app, ["--project", str(world.project), "trial", "--candidates", "gcp",
                                 "--budget-usd", "72.55", "--nodes", "1",
                                 "--data", str(half_gigabyte(tmp_path)),
                                 "--skip-credential-check"])
    assert_clean_error(result, "--budget-usd", "72.55 USD is less than the trial is expected "
                       "to cost, 72.60 USD", "gcp 72.60 USD", "40.99/h x 1.5 h",
                       "filesystem 11.10", "data 0.01")
    log = tmp_path / "pulumi.jsonl"
    assert not log.exists() or '"up"' not in log.read_text()       # no pulumi up, no stack
    assert world.stacks() == {}
    assert sorted(p.name for p in (world.project / "stacks").iterdir()) == ["Pulumi.gcp.yaml"]
    assert not (world.project / ".trainstack").exists()               # not even a journal


def test_without_a_budget_or_candidates_the_trial_says_which_flag(world):
    result = runner.invoke(app, ["--project", str(world.project), "trial", "--candidates", "gcp"])
    assert_clean_error(result, "--budget-usd", "is required")
    result = runner.invoke(app, ["--project", str(world.project), "trial", "--budget-usd", "5"])
    assert_clean_error(result, "--candidates", "is required")


def test_resume_without_a_journal_is_a_clear_error(world):
    result = runner.invoke(app, ["--project", str(world.project), "trial", "--resume"])
    assert_clean_error(result, "--resume", "no trial journal")


@pytest.mark.parametrize("cloud,code", [
    ("aws", "InsufficientInstanceCapacity"), ("aws", "ReservationCapacityExceeded"),
    ("aws", "InsufficientCapacity (Capacity Block)"), ("gcp", "ZONE_RESOURCE_POOL_EXHAUSTED"),
    ("gcp", "resize request not granted (FAILED)"), ("azure", "AllocationFailed"),
    ("azure", "ZonalAllocationFailed"), ("azure", "SkuNotAvailable"),
    ("alicloud", "OperationDenied.NoStock")])
def test_each_clouds_recorded_capacity_error_is_recognised_as_itself(cloud, code):
    wrapped = f"error: update failed\n  * creating resource: {example(cloud, code)}\n"
    found = capacity_error(wrapped, cloud)
    assert found is not None and found.code == code
    assert found.source.startswith("https://")


def test_other_failures_and_other_clouds_codes_are_not_capacity():
    assert capacity_error("error: AccessDenied: not authorized to perform ec2:RunInstances",
                          "aws") is None
    assert capacity_error(example("azure", "AllocationFailed"), "aws") is None
    assert capacity_error("ZONE_RESOURCE_POOL_EXHAUSTED_WITH_DETAILS: ...", "gcp").code == \
        "ZONE_RESOURCE_POOL_EXHAUSTED_WITH_DETAILS"
    assert {e.cloud for e in known_errors()} == {"aws", "gcp", "azure", "alicloud"}


def test_cheapest_gpu_trials_the_lowest_priced_gpu_type_of_the_region(tmp_path, monkeypatch):
    """The canary's choice on AWS us-east-1: prices.csv's GPU rows there, cheapest first, are
    p5.4xlarge 6.88, p4d.24xlarge 21.9576, p4de.24xlarge 27.4471, p5.48xlarge 55.04 USD/h."""
    world = TrialWorld(tmp_path, monkeypatch, clouds=("aws",))
    result = runner.invoke(app, ["--project", str(world.project), "trial", "--candidates", "aws",
                                 "--cheapest-gpu", "--nodes", "1", "--budget-usd", "1",
                                 "--skip-credential-check"])
    assert_clean_error(result, "--budget-usd", "aws", "1 x p5.4xlarge at 6.88/h x 1.5 h")
    assert world.stacks() == {}


def test_a_trial_whose_spend_passes_the_budget_stops_and_destroys(tmp_path, monkeypatch):
    """The meter: 1 x p5.48xlarge (55.04 USD/h) + 4,800 GiB FSx on a clock that advances an hour
    per reading. Priced at 85.55 USD it starts under --budget-usd 100; once up, the second hour
    read takes it past 100 USD and the trial destroys its stack and stops (exit 1)."""
    world = TrialWorld(tmp_path, monkeypatch, clouds=("aws",))
    hours = iter(range(0, 10**6, 3600))
    monkeypatch.setattr("trainstack.trial.runner.meter_clock", lambda: float(next(hours)))
    result = runner.invoke(app, ["--project", str(world.project), "trial", "--candidates", "aws",
                                 "--budget-usd", "100", *world.bench_args()])
    assert result.exit_code == 1, result.output
    assert "over --budget-usd 100.00" in result.output
    assert "every stack it created was destroyed" in result.output
    assert world.stacks() and world.still_billing() == {}
