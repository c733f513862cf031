"""Issue 34: "no way to make the reaper destroy a busy or booting cluster", on AWS and Azure, each
through the real CLI (`trainstack reap --yes`) with the stand-in `pulumi`, the real AwsGroup and
AzureScaleSet, moto's Auto Scaling and EC2 for AWS and the stand-in `az` (tests/reap_helpers.py)
for Azure. A node that is booting, or was (re)started after its idle report was written, must
keep the stack: its report is its previous run's (or the previous VM's, on Azure where a name
outlives its VM), never this run's. Each was written to fail on the code before the fix (which
believed the fresh idle report and destroyed the stack, exit 0)."""
from __future__ import annotations

import json
import os
from datetime import datetime, timedelta, timezone

import pytest

from tests.conftest import stand_in_cli
from tests.reap.test_reap_under_faults import audit_lines, world  # noqa: F401 (fixture)
from tests.reap_helpers import AZ, FakeGuard, beat, marked, write_stacks
from trainstack.reap import reaper as reap


def written_ago(world, name, node, minutes):
    """The report's write time (the store's LastModified: a file's mtime) `minutes` ago."""
    moment = (datetime.now(timezone.utc) - timedelta(minutes=minutes)).timestamp()
    os.utime(f"{world.bucket}/{name}/heartbeats/{node}.json", (moment, moment))


# -- AWS: moto's Auto Scaling group and EC2 instances ----------------------------------------

@pytest.fixture
def aws(world, monkeypatch):
    """Two instances in a moto Auto Scaling group (launched now, as moto launches them), both
    reporting idle for 180 min just now; the export a stand-in that succeeds (moto has no FSx
    data repository tasks), so only the judgement decides."""
    moto = pytest.importorskip("moto", reason="moto is not installed (the test extra has it)")
    import boto3
    for key, value in {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
                       "AWS_DEFAULT_REGION": "us-east-1"}.items():
        monkeypatch.setenv(key, value)
    for key in ("AWS_PROFILE", "AWS_ENDPOINT_URL"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setattr(reap, "default_guards", lambda: {"aws": FakeGuard()})
    with moto.mock_aws():
        client = boto3.client("autoscaling", region_name="us-east-1")
        client.create_launch_configuration(LaunchConfigurationName="lc", ImageId="ami-12c6146b",
                                           InstanceType="t3.micro")
        client.create_auto_scaling_group(AutoScalingGroupName="nodes", LaunchConfigurationName="lc",
                                         MinSize=2, MaxSize=2, DesiredCapacity=2,
                                         AvailabilityZones=["us-east-1a"])
        (group,) = client.describe_auto_scaling_groups(
            AutoScalingGroupNames=["nodes"])["AutoScalingGroups"]
        ids = sorted(i["InstanceId"] for i in group["Instances"])
        outputs = marked(cloud="aws", heartbeat_url=world.root("aws"), node_group="nodes",
                         region="us-east-1")
        world.add("aws", outputs, *[beat(i, 180) for i in ids])
        world.ids, world.autoscaling = ids, client
        yield world


def desired(client):
    (group,) = client.describe_auto_scaling_groups(AutoScalingGroupNames=["nodes"])[
        "AutoScalingGroups"]
    return group["DesiredCapacity"]


def test_an_aws_stack_whose_instances_launched_before_their_reports_is_reaped(aws):
    """The control: every report written after its instance's launch, idle 180 min: scaled to
    0 and destroyed, exit 0."""
    result = aws.reap()
    assert result.exit_code == 0 and aws.destroyed() == ["aws"], result.output
    assert desired(aws.autoscaling) == 0
    started = audit_lines(aws.audit)[-1]["evidence"]["nodes"]
    assert sorted(started) == aws.ids


def test_an_aws_instance_launched_after_its_idle_report_keeps_the_stack(aws):
    """An instance of the same id whose last launch (EC2 LaunchTime, moto's: now) came after
    its report was written (4 min ago: fresh by the store, 'idle for 180 min'): that report is
    its previous run's. Unknown, never idle: not destroyed, not scaled, exit 1."""
    written_ago(aws, "aws", aws.ids[1], 4)
    result = aws.reap()
    assert aws.destroyed() == [], result.output
    assert result.exit_code == 1, result.output
    assert ("aws: report - members without a fresh idle report (unknown, never idle): "
            f"{aws.ids[1]}") in result.output
    assert desired(aws.autoscaling) == 2
    why = audit_lines(aws.audit)[-1]["evidence"]["nodes"][aws.ids[1]]["why"]
    assert "before the node's last start" in why, why


@pytest.mark.parametrize("state", ["Pending", "Pending:Wait"])
def test_an_aws_instance_still_pending_keeps_the_stack(aws, state):
    """An instance the group is launching (Auto Scaling lifecycle state Pending, or held by a
    launch lifecycle hook, Pending:Wait) is booting: busy, whatever a report under its id says.
    Kept, exit 0."""
    from moto.backends import get_backend
    groups = get_backend("autoscaling")["123456789012"]["us-east-1"].autoscaling_groups
    for instance in groups["nodes"].instance_states:
        if instance.instance.id == aws.ids[0]:
            instance.lifecycle_state = state
    result = aws.reap()
    assert aws.destroyed() == [], result.output
    assert result.exit_code == 0, result.output
    assert f"aws: keep - busy within the grace period: {aws.ids[0]}" in result.output
    why = audit_lines(aws.audit)[-1]["evidence"]["nodes"][aws.ids[0]]["why"]
    assert why == f"booting (Auto Scaling lifecycle state {state})"


# -- Azure: the stand-in `az` ----------------------------------------------------------------

def azure_time(minutes_ago: float) -> str:
    """Azure's form: seven fractional digits and an offset."""
    moment = datetime.now(timezone.utc) - timedelta(minutes=minutes_ago)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%f") + "3+00:00"


def vm(n, created_minutes_ago=300, operation_minutes_ago=None, power="running",
       state="Succeeded"):
    operation = created_minutes_ago if operation_minutes_ago is None else operation_minutes_ago
    return {"name": f"vmss_{n}", "instanceId": str(n), "vmId": f"0000000{n}-aaaa",
            "provisioningState": state, "timeCreated": azure_time(created_minutes_ago),
            "instanceView": {"statuses": [
                {"code": f"ProvisioningState/{state.lower()}", "time": azure_time(operation)},
                {"code": f"PowerState/{power}"}]}}


@pytest.fixture
def azure(world):
    """A scale set of two VMs, created 5 h ago, both reporting idle for 180 min just now."""
    stand_in_cli(world.bin, "az", AZ)
    path = world.tmp / "vms.json"
    world.mp.setenv("FAKE_AZ_VMS", str(path))
    world.vms = path
    outputs = marked(cloud="azure", heartbeat_url=world.root("az"), resource_group="rg",
                     scale_set="vmss", filesystem_id="/subscriptions/s/amlFilesystems/llm-fs")

    def with_vms(*vms):
        path.write_text(json.dumps(list(vms)))
        world.add("az", outputs, *[beat(v["name"], 180) for v in vms])
    world.with_vms = with_vms
    return world


def az_calls(world):
    return [json.loads(line) for line in open(f"{world.vms}.calls")]


def test_an_azure_stack_of_vms_older_than_their_reports_is_reaped(azure):
    """The control: scaled to 0, archived, destroyed, exit 0."""
    azure.with_vms(vm(0), vm(1))
    result = azure.reap()
    assert result.exit_code == 0 and azure.destroyed() == ["az"], result.output
    calls = az_calls(azure)
    assert ["vmss", "scale", "--resource-group", "rg", "--name", "vmss", "--new-capacity",
            "0"] in calls
    assert any(c[:2] == ["amlfs", "archive"] for c in calls)


@pytest.mark.parametrize("created, operation", [(2, None), (300, 2), (-10, None)],
                         ids=["a new vm under the old name", "a deallocated vm started again",
                              "a creation time ahead of the store's clock"])
def test_an_azure_vm_started_after_its_idle_report_keeps_the_stack(azure, created, operation):
    """vmss_1's report (idle for 180 min) was written 4 min ago, fresh by the store; but the VM
    under that name was created 2 min ago (the name outlived the VM that wrote the report), or,
    created 5 h ago and deallocated, was started again 2 min ago (its latest provisioning
    operation). The report is not this run's: unknown, not destroyed, not scaled, exit 1. A
    creation time 10 min ahead (Azure's clock and the store's apart) is the same: unknown."""
    azure.with_vms(vm(0), vm(1, created, operation))
    written_ago(azure, "az", "vmss_1", 4)
    result = azure.reap()
    assert azure.destroyed() == [], result.output
    assert result.exit_code == 1, result.output
    assert "az: report - members without a fresh idle report (unknown, never idle): vmss_1" \
        in result.output
    assert not any(c[:2] == ["vmss", "scale"] for c in az_calls(azure))
    why = audit_lines(azure.audit)[-1]["evidence"]["nodes"]["vmss_1"]["why"]
    assert "before the node's last start" in why, why


def test_an_aws_member_ec2_does_not_describe_is_a_report_not_idle(aws):
    """The group lists an instance EC2 does not describe (not yet visible, or gone): its
    report cannot be placed against its launch. Members unreadable: not destroyed, exit 1."""
    from moto.backends import get_backend
    ec2 = get_backend("ec2")["123456789012"]["us-east-1"]
    for reservation in list(ec2.reservations.values()):
        reservation.instances = [i for i in reservation.instances if i.id != aws.ids[1]]
    result = aws.reap()
    assert aws.destroyed() == [], result.output
    assert result.exit_code == 1, result.output
    assert "aws: report - group members unreadable" in result.output
    error = audit_lines(aws.audit)[-1]["evidence"]["error"]
    assert aws.ids[1] in error, error


@pytest.mark.parametrize("power, state, why", [
    ("starting", "Succeeded", "booting (powerstate/starting)"),
    ("running", "Creating", "booting (provisioningState Creating, provisioningstate/creating)")])
def test_an_azure_vm_booting_keeps_the_stack(azure, power, state, why):
    """A VM being started (PowerState/starting) or created (provisioning Creating), its name's
    fresh idle report in the bucket: booting, busy. Kept, exit 0."""
    azure.with_vms(vm(0), vm(1, power=power, state=state))
    result = azure.reap()
    assert azure.destroyed() == [], result.output
    assert result.exit_code == 0, result.output
    assert "az: keep - busy within the grace period: vmss_1" in result.output
    assert audit_lines(azure.audit)[-1]["evidence"]["nodes"]["vmss_1"]["why"] == why


# -- Google Cloud: a stand-in `gcloud` -------------------------------------------------------

def gcloud(world, created_minutes_ago, **node_a_minutes_ago):
    """A MIG of node-a and node-b, its action over (NONE); node-a (re)created
    `created_minutes_ago` (an instance recreated keeps its name), node-b 5 h ago; node-a's
    instance also carries each of `node_a_minutes_ago` (a timestamp key: minutes ago). The
    instance times are what `gcloud compute instances list` prints: creationTimestamp and
    lastStartTimestamp, RFC 3339 with an offset."""
    import sys

    def stamp(minutes):
        moment = datetime.now(timezone.utc) - timedelta(minutes=minutes)
        return moment.astimezone(timezone(timedelta(hours=-8))).isoformat(timespec="milliseconds")
    instances = [{"name": "node-a", "creationTimestamp": stamp(created_minutes_ago),
                  "lastStartTimestamp": stamp(created_minutes_ago),
                  **{key: stamp(minutes) for key, minutes in node_a_minutes_ago.items()}},
                 {"name": "node-b", "creationTimestamp": stamp(300),
                  "lastStartTimestamp": stamp(300)}]
    stand_in_cli(world.bin, "gcloud", f"#!{sys.executable} -S\nimport json, sys\n"
                 "args = sys.argv[1:]\n"
                 "if args[:3] == ['compute', 'instances', 'list']:\n"
                 f"    print(json.dumps({instances!r}))\n"
                 "elif 'list-instances' in args:\n"
                 "    print(json.dumps([{'instance': 'z/instances/node-a', 'currentAction': "
                 "'NONE'}, {'instance': 'z/instances/node-b', 'currentAction': 'NONE'}]))\n"
                 "elif 'describe' in args:\n    print(json.dumps({'targetSize': 2}))\n"
                 "elif 'resize' not in args:\n    sys.exit(2)\n")
    outputs = marked(cloud="gcp", heartbeat_url=world.root("g"), node_group="g", zone="z",
                     project="p", filesystem_export_command="true")
    world.add("g", outputs, beat("node-a", 180), beat("node-b", 180))


def test_a_gcp_instance_recreated_after_its_idle_report_keeps_the_stack(world):
    """The MIG recreated node-a 2 min ago (its action over: NONE); the report under its name,
    idle for 180 min, was written 4 min ago by the instance it replaced. Not this instance's:
    unknown, not destroyed, exit 1 (the old code believed it and destroyed the stack)."""
    gcloud(world, created_minutes_ago=2)
    written_ago(world, "g", "node-a", 4)
    result = world.reap()
    assert world.destroyed() == [], result.output
    assert result.exit_code == 1, result.output
    assert "g: report - members without a fresh idle report (unknown, never idle): node-a" \
        in result.output
    why = audit_lines(world.audit)[-1]["evidence"]["nodes"]["node-a"]["why"]
    assert "before the node's last start" in why, why


def test_a_gcp_instance_created_before_its_report_is_judged_on_it(world):
    """The control: the report written after the creation is believed: reaped."""
    gcloud(world, created_minutes_ago=30)
    result = world.reap()
    assert result.exit_code == 0 and world.destroyed() == ["g"], result.output
