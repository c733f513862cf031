"""Bad input: exit 2, one paragraph naming the field or file and the way out, no traceback,
and nothing declared."""
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from tests.checkout import PYTHONPATH as CHECKOUT_PATH
from tests.conftest import ROOT, assert_clean_error, plan_for, write_spec
from trainstack.cli.app import app
from trainstack_components.errors import SpecError

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
    # p6-b300.48xlarge is priced in us-east-1 and us-west-2 only (AWS's price list, catalog60).
    example_spec["gpu"] = ["B300"]
    example_spec["clouds"]["aws"].update(region="eu-west-1", zone="eu-west-1a")
    result = plan_cli("--spec", write_spec(tmp_path, example_spec), "--cloud", "aws")
    assert_clean_error(result, "gpu", "B300", "p6-b300.48xlarge", "us-east-1", "us-west-2")


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
    # g5.4xlarge has no EFA (AWS lists G5 from g5.8xlarge up; instance_types.csv), so `rdma`
    # refuses it, naming the field and the types that have RDMA. (p5.4xlarge, used here before,
    # supports EFA: EC2 DescribeInstanceTypes EfaSupported, fix45.)
    example_spec["interconnect"] = "rdma"
    example_spec["gpu"] = ["A10G"]
    example_spec["clouds"]["aws"]["instance_type"] = "g5.4xlarge"
    with pytest.raises(SpecError) as raised:
        plan_for(example_spec, "aws")
    assert raised.value.field == "interconnect"
    assert "g5.4xlarge" in str(raised.value) and "g5.48xlarge" in str(raised.value)


def test_rdma_requirement_with_an_efa_type_is_accepted(example_spec):
    example_spec["interconnect"] = "rdma"
    example_spec["gpu"] = ["H100"]
    example_spec["clouds"]["aws"]["instance_type"] = "p5.48xlarge"
    plan = plan_for(example_spec, "aws")   # EFA types satisfy an RDMA requirement
    assert plan.inputs.selection.use_rdma is True


@pytest.mark.parametrize("cloud, zone", [("aws", "eu-west-1a"), ("gcp", "us-central1-a")])
def test_nothing_is_declared_when_validation_fails(example_spec, monkeypatch, cloud, zone):
    """Errors come from planning, before the program runs: the mock monitor never sees a resource."""
    from trainstack.plan import engine
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
    from trainstack_components.spec import parse_spec
    example_spec["workload"]["model_params"] = "13e9"
    assert parse_spec(example_spec).workload.model_params == 13e9
    example_spec["workload"]["model_params"] = "lots"
    with pytest.raises(SpecError) as raised:
        parse_spec(example_spec)
    assert raised.value.field == "workload.model_params"


# -- issue 15: files that are not UTF-8, folders, duplicate keys --------------------------------

def _spec_text(example_spec) -> str:
    import yaml
    return yaml.safe_dump(example_spec, sort_keys=False, allow_unicode=True)


def test_latin1_spec_is_a_clean_error_naming_the_file(tmp_path, example_spec):
    example_spec["tags"]["owner"] = "équipe"
    path = tmp_path / "latin1.yaml"
    path.write_bytes(_spec_text(example_spec).encode("latin-1"))
    assert_clean_error(plan_cli("--spec", path, "--cloud", "aws"), "latin1.yaml", "UTF-8",
                       "0xe9")


def test_utf16_spec_with_a_bom_as_powershell_writes_it_is_read(tmp_path, example_spec):
    example_spec["tags"]["owner"] = "équipe"
    path = tmp_path / "ps.yaml"
    path.write_bytes(_spec_text(example_spec).encode("utf-16"))  # BOM + UTF-16 LE
    assert path.read_bytes()[:2] == b"\xff\xfe"
    result = plan_cli("--spec", path, "--cloud", "aws", "--json")
    assert result.exit_code == 0, result.output
    import json
    asg = next(r for r in json.loads(result.output)["resources"]
               if r["type"] == "aws:autoscaling/group:Group")
    assert {"key": "owner", "value": "équipe", "propagateAtLaunch": True} in asg["inputs"]["tags"]


def test_a_binary_file_as_spec_is_a_clean_error():
    assert_clean_error(plan_cli("--spec", "/bin/ls", "--cloud", "aws"), "/bin/ls")


def test_a_directory_as_spec_says_so(tmp_path):
    assert_clean_error(plan_cli("--spec", tmp_path, "--cloud", "aws"), str(tmp_path),
                       "is a directory")


def test_duplicate_keys_are_refused_not_last_wins(tmp_path):
    text = (ROOT / "examples" / "cluster.yaml").read_text().replace(
        "nodes: 2\n", "nodes: 2\nspot: false\nnodes: 7\n", 1)
    path = tmp_path / "dup.yaml"
    path.write_text(text.replace("spot: false\ninterconnect", "interconnect", 1))
    result = plan_cli("--spec", path, "--cloud", "aws")
    assert_clean_error(result, "dup.yaml", "'nodes' appears twice", "first at line")


def test_duplicate_keys_in_a_nested_mapping_are_refused(tmp_path):
    text = (ROOT / "examples" / "cluster.yaml").read_text().replace(
        "  team: ml\n", "  team: ml\n  team: research\n", 1)
    path = tmp_path / "dup.yaml"
    path.write_text(text)
    assert_clean_error(plan_cli("--spec", path, "--cloud", "aws"), "'team' appears twice")


def _project_with_stack(tmp_path, stack_bytes: bytes):
    from trainstack.plan.init import write_project
    write_project(tmp_path)
    (tmp_path / "stacks" / "Pulumi.dev.yaml").write_bytes(stack_bytes)
    return tmp_path


def test_a_latin1_stack_file_is_a_clean_error(tmp_path):
    project = _project_with_stack(tmp_path, "config:\n  trainstack:cloud: aws\n  # café\n"
                                  .encode("latin-1"))
    result = runner.invoke(app, ["--project", str(project), "plan", "--stack", "dev"])
    assert_clean_error(result, "Pulumi.dev.yaml", "UTF-8")


def test_a_utf16_stack_file_is_read(tmp_path):
    project = _project_with_stack(tmp_path, "config:\n  trainstack:cloud: aws\n"
                                  "  aws:region: us-east-1\n".encode("utf-16"))
    result = runner.invoke(app, ["--project", str(project), "plan", "--stack", "dev", "--json"])
    assert result.exit_code == 0, result.output


def test_a_stack_file_with_duplicate_keys_is_refused(tmp_path):
    project = _project_with_stack(tmp_path, b"config:\n  trainstack:cloud: aws\n"
                                  b"  trainstack:cloud: gcp\n")
    result = runner.invoke(app, ["--project", str(project), "plan", "--stack", "dev"])
    assert_clean_error(result, "Pulumi.dev.yaml", "'trainstack:cloud' appears twice")


@pytest.mark.parametrize("content", [
    '{"spend-limit": {"maxMonthlyUsd": 1000, "note": "café"}}'.encode("latin-1"),
    b"\x7fELF\x02\x01\x01\x00\x00\x00",
])
def test_a_policy_config_that_is_not_utf8_is_a_clean_error(tmp_path, content):
    path = tmp_path / "policy.json"
    path.write_bytes(content)
    result = runner.invoke(app, ["check", "--stack", "aws", "--policy-config", str(path)])
    assert_clean_error(result, "policy.json")


def test_a_utf16_policy_config_is_read(tmp_path):
    path = tmp_path / "policy.json"
    path.write_bytes('{"spend-limit": {"maxMonthlyUsd": 100}}'.encode("utf-16"))
    result = runner.invoke(app, ["check", "--stack", "aws", "--policy-config", str(path),
                                 "--format", "json"])
    assert result.exit_code == 1, result.output   # the 100 USD cap is applied, and blocks


@pytest.mark.parametrize("config, named", [
    ('{"spend-limit": {"maxMonthlyUSD": 1000}}', "maxMonthlyUSD"),
    ('{"spend-limt": "mandatory"}', "spend-limt"),
])
def test_a_typo_in_the_policy_config_exits_2_instead_of_dropping_the_setting(tmp_path, config,
                                                                             named):
    path = tmp_path / "policy.json"
    path.write_text(config)
    result = runner.invoke(app, ["check", "--stack", "aws", "--policy-config", str(path)])
    assert_clean_error(result, "--policy-config", named)


# -- compare --html ------------------------------------------------------------------------------

@pytest.mark.parametrize("where", ["missing/report.html", "."])
def test_compare_html_into_a_missing_folder_or_onto_a_folder_fails_before_printing(
        tmp_path, where):
    target = tmp_path / where
    result = runner.invoke(app, ["compare", "--spec", str(ROOT / "examples" / "cluster.yaml"),
                                 "--html", str(target)])
    assert_clean_error(result, "--html")
    assert "instance type" not in result.output   # no table was printed first
    assert not (tmp_path / "missing").exists()


# -- pipes -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("args", [["plan", "--stack", "aws"], ["plan", "--stack", "aws", "--json"],
                                  ["check", "--stack", "aws"]])
def test_piping_into_head_exits_0_without_noise(args):
    import os
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    env["PYTHONPATH"] = CHECKOUT_PATH
    proc = subprocess.Popen([sys.executable, "-m", "trainstack", *args], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    first = proc.stdout.readline()   # what `head -1` does: one line, then close the pipe
    proc.stdout.close()
    stderr = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 0, stderr
    assert first
    assert "Exception ignored" not in stderr and "Traceback" not in stderr, stderr


# -- messages: escaped, naming the tag, sensible zone hints ----------------------------------------

def test_the_bad_name_error_prints_the_pattern_intact(tmp_path, example_spec):
    example_spec["name"] = "LLM_Finetune"
    result = plan_cli("--spec", write_spec(tmp_path, example_spec), "--cloud", "aws")
    assert_clean_error(result, "name", "^[a-z][a-z0-9-]{1,28}[a-z0-9]$")


def test_user_text_with_markup_is_printed_as_written(tmp_path, example_spec):
    example_spec["gpu"] = ["[bold]H9[/bold]"]
    result = plan_cli("--spec", write_spec(tmp_path, example_spec), "--cloud", "aws")
    assert_clean_error(result, "'[bold]H9[/bold]'")


def test_a_tag_error_names_the_tag_not_the_whole_mapping(tmp_path, example_spec):
    example_spec["tags"]["notes"] = "x" * 300
    result = plan_cli("--spec", write_spec(tmp_path, example_spec), "--cloud", "aws")
    assert_clean_error(result, "tags", "'notes'")
    assert "alice" not in result.output and "x" * 300 not in result.output


@pytest.mark.parametrize("key, value, bad", [("cost#center", "1", "'#'"),
                                             ("project", "ML Team!", "'!'"),
                                             ("owner", "a,b", "','")])
def test_aws_tags_with_characters_s3_and_fsx_refuse_exit_2_naming_the_tag(
        tmp_path, example_spec, key, value, bad):
    example_spec["tags"][key] = value
    result = plan_cli("--spec", write_spec(tmp_path, example_spec), "--cloud", "aws")
    assert_clean_error(result, f"tags.{key}", bad, "_ . : / = + - @")


def test_aws_tags_with_international_letters_and_allowed_symbols_pass(example_spec):
    example_spec["tags"] = {"team": "机器学习", "owner": "Zoë Müller", "cost-center": "a/b=c+d@e:f"}
    plan = plan_for(example_spec, "aws")
    bucket = plan.of_type("aws:s3/bucket:Bucket")[0]
    assert bucket.inputs["tags"]["team"] == "机器学习"


def test_aws_counts_trainstacks_own_tags_against_the_limit_of_50(example_spec):
    from trainstack_components.spec import parse_spec
    from trainstack_components.tags import cluster_tags
    own = len(cluster_tags(parse_spec(example_spec), "s")) - len(example_spec["tags"]) + 1
    fits = {f"k{i}": "v" for i in range(50 - own)}
    plan = plan_for({**example_spec, "tags": fits}, "aws")
    most = max(len(r.inputs.get("tags") or {}) for r in plan.resources)
    assert most == 50   # the limit is reached, not passed, on the busiest resource
    with pytest.raises(SpecError) as raised:
        plan_for({**example_spec, "tags": {**fits, "one-more": "v"}}, "aws")
    assert raised.value.field == "tags" and "50" in raised.value.problem
    assert raised.value.fix == f"Keep at most {50 - own} tags."


@pytest.mark.parametrize("cloud, zone, hint, not_hint", [
    ("aws", "eu-west-1a", "us-east-1a", "us-east-1-a"),
    ("aws", "us-east-1-a", "us-east-1a", "us-east-1-a,"),
    ("gcp", "europe-west4-a", "us-central1-a", "us-central1a"),   # the example's us-central1
    ("gcp", "us-central1b", "us-central1-a", "us-central1a"),
])
def test_zone_hints_suggest_a_format_the_cloud_uses(tmp_path, example_spec, cloud, zone, hint,
                                                    not_hint):
    example_spec["clouds"][cloud]["zone"] = zone
    result = plan_cli("--spec", write_spec(tmp_path, example_spec), "--cloud", cloud)
    assert_clean_error(result, f"clouds.{cloud}.zone", hint)
    assert not_hint not in result.output.replace(f"'{zone}'", "")


def test_aws_zone_letters_come_from_the_regions_real_zone_list(example_spec):
    example_spec["clouds"]["aws"]["zone"] = "us-east-1f"   # N. Virginia has a-f
    assert plan_for(example_spec, "aws").inputs.selection.zone == "us-east-1f"
    example_spec["clouds"]["aws"]["zone"] = "us-east-1g"
    with pytest.raises(SpecError) as raised:
        plan_for(example_spec, "aws")
    assert raised.value.field == "clouds.aws.zone"
    assert "us-east-1f" in raised.value.problem and "us-east-1g" in raised.value.problem
    example_spec["clouds"]["aws"].update(region="us-east-2", zone="us-east-2d")  # Ohio: a-c
    with pytest.raises(SpecError) as raised:
        plan_for(example_spec, "aws")
    assert "us-east-2c" in raised.value.problem


def test_a_gpu_no_type_of_the_cloud_carries_gets_a_sentence_not_an_empty_list(tmp_path,
                                                                              example_spec):
    example_spec["gpu"] = ["H(96GB)"]   # Alibaba's own label: no AWS type has it
    result = plan_cli("--spec", write_spec(tmp_path, example_spec), "--cloud", "aws")
    assert_clean_error(result, "gpu", "no aws instance type", "H100")
    assert "Offered: ." not in result.output and "Offered: ;" not in result.output
