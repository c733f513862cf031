"""Issue 34: the reaper's identities must hold what its calls need (trainstack/reap/permissions.py,
rendered as docs/reaper-identity.md). Each cloud's reap of an idle stack runs through the real CLI
and the stand-ins (moto's Auto Scaling and EC2 with a stand-in FSx client; the stand-in `gcloud`,
`az` and `aliyun`), every call they see is recorded, and each must be granted by the table under
the permission name the cloud's reference gives. The export commands the stacks output (Google
Cloud, Alibaba Cloud) are read from the components that write them."""
from __future__ import annotations

import json
import re
import shlex

import pytest

from tests.conftest import ROOT
from tests.reap.test_reap_booting import aws, azure, az_calls, gcloud, vm  # noqa: F401 (fixtures)
from tests.reap.test_reap_faults import FakeFsx
from tests.reap.test_reap_under_faults import alibaba, world  # noqa: F401 (fixture)
from trainstack.reap import cloud as reap_cloud, permissions, reaper as reap
from trainstack.reap.cloud import FsxExportGuard


def ungranted(cloud, calls):
    return sorted({" ".join(c) if isinstance(c, list) else c for c in calls
                   if not permissions.granted_for(cloud, c)})


def test_every_aws_call_of_a_reap_is_granted(aws, monkeypatch):  # noqa: F811
    """Through botocore's own event for each API call (service and operation as IAM names
    them), and the FSx client's calls: members (DescribeAutoScalingGroups, DescribeInstances),
    the scale-down (UpdateAutoScalingGroup), the export task and its polling."""
    import boto3
    seen: list[str] = []
    boto3.setup_default_session()
    boto3.DEFAULT_SESSION.events.register(
        "before-call", lambda model, **_: seen.append(
            f"{model.service_model.endpoint_prefix}:{model.name}"))

    class RecordedFsx(FakeFsx):
        def __getattribute__(self, name):
            found = object.__getattribute__(self, name)
            if callable(found) and not name.startswith("_"):
                seen.append("fsx:" + "".join(w.title() for w in name.split("_")))
            return found
    client = RecordedFsx(["SUCCEEDED"], linked=["/"])
    monkeypatch.setattr(reap, "default_guards", lambda: {"aws": FsxExportGuard(
        client_for=lambda region: client, poll_s=0)})
    aws.stacks["aws"]["outputs"]["filesystem_bucket_path"] = "/"
    from tests.reap_helpers import write_stacks
    write_stacks(aws.tmp / "stacks.json", aws.stacks)
    result = aws.reap()
    assert result.exit_code == 0 and aws.destroyed() == ["aws"], result.output
    assert {"autoscaling:DescribeAutoScalingGroups", "ec2:DescribeInstances",
            "autoscaling:UpdateAutoScalingGroup", "fsx:DescribeDataRepositoryAssociations",
            "fsx:CreateDataRepositoryTask", "fsx:DescribeDataRepositoryTasks"} <= set(seen), seen
    assert ungranted("aws", seen) == []


def _recording_run_cli(monkeypatch):
    seen: list[list[str]] = []
    real = reap_cloud.run_cli

    def run_cli(args, *rest, **kwargs):
        seen.append(list(args))
        return real(args, *rest, **kwargs)
    monkeypatch.setattr(reap_cloud, "run_cli", run_cli)
    return seen


def test_every_gcloud_call_of_a_reap_is_granted(world, monkeypatch):  # noqa: F811
    seen = _recording_run_cli(monkeypatch)
    gcloud(world, created_minutes_ago=30)
    result = world.reap()
    assert result.exit_code == 0 and world.destroyed() == ["g"], result.output
    words = [" ".join(c[:5]) for c in seen]
    assert "gcloud compute instances list --zones" in words          # the launch times
    assert any("resize" in c for c in seen)                           # the scale-down
    assert ungranted("gcp", seen) == []


def test_every_az_call_of_a_reap_is_granted(azure):  # noqa: F811
    azure.with_vms(vm(0), vm(1))
    result = azure.reap()
    assert result.exit_code == 0 and azure.destroyed() == ["az"], result.output
    seen = [["az", *c] for c in az_calls(azure)]
    assert any(c[:3] == ["az", "vmss", "list-instances"] and "instanceView" in c for c in seen)
    assert any(c[:3] == ["az", "amlfs", "archive"] for c in seen)
    assert ungranted("azure", seen) == []
    assert "Microsoft.Compute/virtualMachineScaleSets/virtualMachines/instanceView/read" in \
        permissions.granted_for("azure", ["az", "vmss", "list-instances"])


def test_every_aliyun_call_of_a_reap_is_granted(world):  # noqa: F811
    path = alibaba(world, 3)
    result = world.reap()
    assert result.exit_code == 0 and world.destroyed() == ["ali"], result.output
    seen = [["aliyun", *json.loads(line)] for line in open(f"{path}.calls")]
    assert {" ".join(c[:3]) for c in seen} >= {"aliyun ecs DescribeInstances",
                                                "aliyun ecs StopInstances"}
    assert ungranted("alicloud", seen) == []


def test_the_export_commands_the_stacks_output_are_granted():
    """The Google Cloud and Alibaba Cloud stacks' filesystem_export_command, as the components
    write it: each CLI call in it is granted."""
    from trainstack_components.alicloud.cluster import export_command
    from trainstack_components.gcp.planning import transfer_command
    gcp = shlex.split(transfer_command("export-data", "fs", "us-central1-a", "p", "b"))
    assert permissions.granted_for("gcp", gcp) == ["lustre.instances.exportData",
                                                   "lustre.operations.get"]
    calls = re.findall(r"\baliyun nas \w+", export_command("cn-hangzhou", "cpfs-1", "df-1"))
    assert set(calls) == {"aliyun nas CreateDataFlowTask", "aliyun nas DescribeDataFlowTasks"}
    assert ungranted("alicloud", [c.split() for c in calls]) == []


@pytest.mark.parametrize("cloud, names", [
    ("aws", ["autoscaling:DescribeAutoScalingGroups", "ec2:DescribeInstances",
             "autoscaling:UpdateAutoScalingGroup", "fsx:CreateDataRepositoryTask"]),
    ("gcp", ["compute.instances.list", "compute.instanceGroupManagers.get",
             "compute.instanceGroupManagers.update", "lustre.instances.exportData"]),
    ("azure", ["Microsoft.Compute/virtualMachineScaleSets/virtualMachines/read",
               "Microsoft.Compute/virtualMachineScaleSets/write",
               "Microsoft.StorageCache/amlFilesystems/Archive/action"]),
    ("alicloud", ["ecs:DescribeInstances", "ecs:StopInstances", "nas:CreateDataFlowTask"])])
def test_each_policy_grants_the_reapers_reads_and_writes(cloud, names):
    """The policy in the cloud's own form holds the names its reference gives (FSx and Auto
    Scaling service authorization tables; the gcloud reference and Compute Engine's IAM
    table; Azure's resource provider operations; the ECS and NAS RAM authorization tables)."""
    rendered = permissions.policy(cloud)
    for name in names:
        assert f'"{name}"' in rendered or f"- {name}\n" in rendered + "\n", name


def test_the_document_is_the_table():
    assert (ROOT / "docs" / "reaper-identity.md").read_text() == permissions.document() + "\n"
    assert "docs/reaper-identity.md" in (ROOT / ".github" / "workflows" / "reap.yml").read_text()
