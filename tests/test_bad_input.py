"""Bad input: exit 2, one paragraph naming the field or file and the way out, no traceback,
and nothing declared."""
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from components.errors import SpecError
from tests.conftest import ROOT, assert_clean_error, plan_for, write_spec
from trainstack.cli import app

runner = CliRunner()


def plan_cli(*args):
    return runner.invoke(app, ["plan", *map(str, args)])


@pytest.mark.parametrize("mutate, field, hint", [
    (lambda s: s.update(node=3), "node", "not a known field"),
    (lambda s: s.update(nodes="two"), "nodes", "integer"),
    (lambda s: s.update(nodes=0), "nodes", "greater than or equal to 1"),
    (lambda s: s.update(nodes=513), "nodes", "less than or equal to 512"),
    (lambda s: s.update(name="LLM_Finetune"), "name", "pattern"),
    (lambda s: s["budget"].update(emails=["not-an-email"]), "budget.emails.0", "email"),
    (lambda s: s["access"].update(ssh_cidrs=["10.0.0.300/8"]), "access.ssh_cidrs", "does not appear"),
    (lambda s: s["filesystem"].update(throughput_mbps_per_tib=300), "filesystem.throughput_mbps_per_tib", ""),
])
def test_spec_field_errors_name_the_field(tmp_path, example_spec, mutate, field, hint):
    mutate(example_spec)
    result = plan_cli("--spec", write_spec(tmp_path, example_spec), "--cloud", "aws")
    assert_clean_error(result, field, hint)


def test_zone_outside_region(tmp_path, example_spec):
    example_spec["clouds"]["aws"]["zone"] = "us-west-2a"
    result = plan_cli("--spec", write_spec(tmp_path, example_spec), "--cloud", "aws")
    assert_clean_error(result, "clouds.aws.zone", "us-west-2a", "us-east-1")


def test_gpu_not_offered_in_region_names_the_regions_that_offer_it(tmp_path, example_spec):
    example_spec["gpu"] = ["B300"]
    result = plan_cli("--spec", write_spec(tmp_path, example_spec), "--cloud", "aws")
    assert_clean_error(result, "gpu", "B300", "p6-b300.48xlarge", "us-west-2")


def test_unknown_gpu_model_lists_known_ones(tmp_path, example_spec):
    example_spec["gpu"] = ["H1000"]
    result = plan_cli("--spec", write_spec(tmp_path, example_spec), "--cloud", "aws")
    assert_clean_error(result, "gpu", "H1000", "H100", "B200")


def test_budget_that_cannot_pay_for_one_day(tmp_path, example_spec):
    example_spec["budget"]["monthly_usd"] = 1000
    result = plan_cli("--spec", write_spec(tmp_path, example_spec), "--cloud", "aws")
    assert_clean_error(result, "budget.monthly_usd", "one day", "spot")


def test_missing_spec_file(tmp_path):
    result = plan_cli("--spec", tmp_path / "nope.yaml", "--cloud", "aws")
    assert_clean_error(result, "nope.yaml", "does not exist")


def test_spec_file_that_is_not_yaml(tmp_path):
    path = tmp_path / "broken.yaml"
    path.write_text("name: [unclosed\nnodes: 2\n")
    assert_clean_error(plan_cli("--spec", path, "--cloud", "aws"), "broken.yaml", "not valid YAML")


def test_spec_file_that_is_a_list(tmp_path):
    path = tmp_path / "list.yaml"
    path.write_text("- 1\n- 2\n")
    assert_clean_error(plan_cli("--spec", path, "--cloud", "aws"), "list.yaml", "mapping")


def test_cloud_missing_from_spec(tmp_path, example_spec):
    del example_spec["clouds"]["aws"]
    example_spec["clouds"]["gcp"] = {"region": "us-central1", "zone": "us-central1-b"}
    result = plan_cli("--spec", write_spec(tmp_path, example_spec), "--cloud", "aws")
    assert_clean_error(result, "clouds.aws")


def test_unknown_stack():
    assert_clean_error(plan_cli("--stack", "nowhere"), "--stack nowhere", "aws")


def test_provider_region_must_match_the_spec(example_spec):
    with pytest.raises(SpecError) as raised:
        plan_for(example_spec, "aws", extra_config={"aws:region": "eu-west-1"})
    assert raised.value.field == "aws:region"


def test_rdma_requirement_with_tcp_only_choice_is_refused(example_spec):
    example_spec["interconnect"] = "rdma"
    example_spec["gpu"] = ["H100"]
    example_spec["clouds"]["aws"]["instance_type"] = "p5.48xlarge"
    plan_for(example_spec, "aws")  # EFA types satisfy an RDMA requirement


@pytest.mark.parametrize("cloud, zone", [("aws", "eu-west-1a"), ("gcp", "us-central1-a")])
def test_nothing_is_declared_when_validation_fails(example_spec, monkeypatch, cloud, zone):
    """Errors come from planning, before the program runs: the mock monitor never sees a resource."""
    from trainstack import engine
    seen = []
    monkeypatch.setattr(engine._RecordingMonitor, "RegisterResource",
                        lambda self, request: seen.append(request.name))
    example_spec["clouds"][cloud]["zone"] = zone
    with pytest.raises(SpecError):
        plan_for(example_spec, cloud)
    assert seen == []


def test_console_script_prints_no_traceback(tmp_path, example_spec):
    example_spec["nodes"] = 1000
    path = write_spec(tmp_path, example_spec)
    done = subprocess.run([sys.executable, "-m", "trainstack", "plan", "--spec", str(path),
                           "--cloud", "aws"], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr and "nodes" in done.stderr
    assert done.stdout == ""


def test_scientific_notation_without_a_dot_is_a_number(example_spec):
    from components.spec import parse_spec
    example_spec["workload"]["model_params"] = "13e9"
    assert parse_spec(example_spec).workload.model_params == 13e9
    example_spec["workload"]["model_params"] = "lots"
    with pytest.raises(SpecError) as raised:
        parse_spec(example_spec)
    assert raised.value.field == "workload.model_params"
