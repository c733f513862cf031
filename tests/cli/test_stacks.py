"""Stack files read as the Pulumi CLI would, with trainstack's deep merge of overrides."""
import pytest

from tests.conftest import EXAMPLE, ROOT
from trainstack.plan.engine import render
from trainstack.plan.stacks import stack_config, stack_names
from trainstack_components.errors import SpecError


def test_every_stack_file_renders_offline():
    names = stack_names(ROOT)
    assert "aws" in names
    for name in names:
        plan = render(stack_config(ROOT, name), stack=name)
        assert plan.cloud == stack_config(ROOT, name)["trainstack:cloud"]


def _project(tmp_path, stack_yaml: str):
    (tmp_path / "stacks").mkdir()
    (tmp_path / "Pulumi.yaml").write_text((ROOT / "Pulumi.yaml").read_text())
    (tmp_path / "__main__.py").write_text((ROOT / "__main__.py").read_text())
    (tmp_path / "examples").mkdir()
    (tmp_path / "examples" / "cluster.yaml").write_text(EXAMPLE.read_text())
    (tmp_path / "stacks" / "Pulumi.dev.yaml").write_text(stack_yaml)
    return tmp_path


def test_overrides_merge_into_the_spec_instead_of_replacing_it(tmp_path):
    project = _project(tmp_path, """config:
  trainstack:cloud: aws
  aws:region: us-east-1
  trainstack:overrides:
    nodes: 4
    budget: {monthly_usd: 50000}
""")
    config = stack_config(project, "dev")
    assert config["trainstack:specFile"] == "examples/cluster.yaml"  # project default
    plan = render(config, stack="dev", project_dir=project)
    asg = plan.of_type("aws:autoscaling/group:Group")[0]
    budget = plan.of_type("aws:budgets/budget:Budget")[0]
    assert asg.inputs["desiredCapacity"] == 4
    assert budget.inputs["limitAmount"] == "50000.00"
    # untouched siblings of the overridden object survive the merge
    assert {50, 80, 100} <= {n["threshold"] for n in budget.inputs["notifications"]
                             if n["notificationType"] == "ACTUAL"}


def test_stack_without_cloud_is_refused(tmp_path):
    project = _project(tmp_path, "config:\n  aws:region: us-east-1\n")
    with pytest.raises(SpecError) as raised:
        render(stack_config(project, "dev"), stack="dev", project_dir=project)
    assert raised.value.field == "trainstack:cloud"


def test_stack_files_live_where_pulumi_yaml_says(tmp_path):
    """stackConfigDir as the Pulumi CLI reads it; without it, next to Pulumi.yaml."""
    from trainstack.plan.stacks import stacks_dir
    (tmp_path / "Pulumi.yaml").write_text("name: trainstack\nruntime: python\n")
    assert stacks_dir(tmp_path) == tmp_path
    (tmp_path / "Pulumi.yaml").write_text("name: trainstack\nruntime: python\nstackConfigDir: envs\n")
    (tmp_path / "envs").mkdir()
    (tmp_path / "envs" / "Pulumi.prod.yaml").write_text("config:\n  trainstack:cloud: aws\n")
    assert stack_names(tmp_path) == ["prod"]
    assert stack_config(tmp_path, "prod")["trainstack:cloud"] == "aws"


def test_a_stack_file_that_is_not_a_mapping_is_refused(tmp_path):
    project = _project(tmp_path, "- just\n- a list\n")
    with pytest.raises(SpecError) as raised:
        stack_config(project, "dev")
    assert "Pulumi.dev.yaml" in raised.value.field
