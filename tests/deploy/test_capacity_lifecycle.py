"""Deploys that leave nothing broken (issue 8): the one-time AWS cost-tag bootstrap, the scale-back
after a failed capacity request, and the image `up` pins into the stack file."""
import asyncio

import pulumi
import pytest
from typer.testing import CliRunner

from tests.conftest import assert_clean_error
from trainstack.deploy import bootstrap, capacity_guard
from trainstack.cli.app import app
from trainstack.deploy.lifecycle import DeployFailed, _run
from trainstack_components.base import get_cloud
from trainstack_components.tags import CLUSTER_TAG

runner = CliRunner()


def test_bootstrap_without_the_pulumi_cli_exits_2_in_one_line(monkeypatch):
    monkeypatch.setenv("PULUMI_ROOT", "/nonexistent-pulumi")
    monkeypatch.setenv("PATH", "/nonexistent")
    result = runner.invoke(app, ["bootstrap", "aws"])
    assert_clean_error(result, "Pulumi CLI", "was not found")


def test_bootstrap_without_credentials_exits_2(monkeypatch, tmp_path):
    monkeypatch.setattr("trainstack.deploy.lifecycle.pulumi_command", lambda: object())
    for var in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_PROFILE",
                "AWS_WEB_IDENTITY_TOKEN_FILE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    result = runner.invoke(app, ["bootstrap", "aws"])
    assert_clean_error(result, "aws credentials", "were not found")


def test_bootstrap_of_a_cloud_without_its_cli_exits_2_naming_it(monkeypatch):
    # Every cloud's bootstrap checks the account (issue 31): without gcloud it says so.
    monkeypatch.setenv("PATH", "/nonexistent")
    assert_clean_error(runner.invoke(app, ["bootstrap", "gcp"]), "gcloud", "is not installed")


def test_bootstrap_program_activates_the_tag_and_keeps_it_on_delete():
    from trainstack.plan.engine import _PlanMocks, _RecordingMonitor
    mocks = _PlanMocks(get_cloud("aws"))
    monitor = _RecordingMonitor(mocks)
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    pulumi.runtime.set_mocks(mocks, project="trainstack-bootstrap", stack="aws", preview=False,
                             monitor=monitor)
    try:
        pulumi.runtime.test(lambda: bootstrap.cost_tag_program())()
    finally:
        pulumi.runtime.settings.reset_options()
        asyncio.set_event_loop(None)
        loop.close()
    (tag,) = [r for r in monitor.recorded if r.type.startswith("aws:costexplorer/")]
    assert tag.inputs == {"status": "Active", "tagKey": CLUSTER_TAG}
    assert tag.retain_on_delete  # destroying the bootstrap never deactivates the account's key


def test_check_says_plainly_that_the_aws_tag_may_not_be_active():
    result = runner.invoke(app, ["check", "--spec", "examples/cluster.yaml", "--cloud", "aws"])
    assert result.exit_code == 0, result.output
    assert "trainstack bootstrap aws" in result.output and "$0" in result.output
    gcp = runner.invoke(app, ["check", "--spec", "examples/cluster.yaml", "--cloud", "gcp"])
    assert "bootstrap" not in gcp.output


class FakeStack:
    """What capacity_guard needs of an Automation API stack, recording the calls."""

    def __init__(self, fail_with=None, config=None):
        self.calls, self.config, self.fail_with = [], dict(config or {}), fail_with

    def set_config(self, key, value):
        self.calls.append(("set", key, value.value))
        self.config[key] = value.value

    def remove_config(self, key):
        self.calls.append(("remove", key))
        self.config.pop(key, None)

    def get_all_config(self):
        return dict(self.config)

    def up(self, on_output=None):
        self.calls.append(("up", dict(self.config)))
        if self.fail_with:
            import pulumi.automation as auto
            raise auto.CommandError(auto.CommandResult(stdout="", stderr=self.fail_with, code=1))


CAPACITY_ERROR = DeployFailed("error: waiting for Auto Scaling Group (llm-finetune-nodes) capacity "
                              "satisfied: InsufficientInstanceCapacity: We currently do not have "
                              "sufficient p5.48xlarge capacity")


def test_failed_capacity_request_scales_the_group_back_to_zero_and_says_so():
    stack = FakeStack()
    raised = capacity_guard.scale_back(stack, CAPACITY_ERROR, "aws", lambda _: None, _run)
    assert stack.calls == [("set", "trainstack:holdNodes", "true"),
                           ("up", {"trainstack:holdNodes": "true"}),
                           ("remove", "trainstack:holdNodes")]
    assert isinstance(raised, DeployFailed)
    assert "scaled back to 0" in str(raised) and "InsufficientInstanceCapacity" in str(raised)


def test_a_failed_scale_back_says_nodes_may_still_bill():
    stack = FakeStack(fail_with="error: throttled")
    raised = capacity_guard.scale_back(stack, CAPACITY_ERROR, "aws", lambda _: None, _run)
    assert "may still be running and billing" in str(raised)
    assert "trainstack:holdNodes" not in stack.config


def test_other_failures_leave_a_running_cluster_alone():
    stack = FakeStack()
    failure = DeployFailed("error: creating Budget: AccessDeniedException")
    assert capacity_guard.scale_back(stack, failure, "aws", lambda _: None, _run) is failure
    assert stack.calls == []


@pytest.mark.parametrize("message", ["ZONE_RESOURCE_POOL_EXHAUSTED in us-west1-c",
                                     "Quota 'PREEMPTIBLE_NVIDIA_H200_GPUS' exceeded"])
def test_gcp_stockouts_count_as_capacity_failures(message):
    assert capacity_guard.is_capacity_failure(message)


def test_first_up_pins_the_resolved_image_once():
    stack = FakeStack()
    assert capacity_guard.pin_image(stack, {"image": "ami-0abc"}, lambda _: None) == "ami-0abc"
    assert stack.config == {"trainstack:image": "ami-0abc"}
    assert capacity_guard.pin_image(stack, {"image": "ami-0new"}, lambda _: None) is None
    assert stack.config == {"trainstack:image": "ami-0abc"}
