"""Shared by the reaper tests: a fake Pulumi backend of stacks, node reports as the idle agent
writes them, a fake cloud (group members, scaling) and a fake export."""
from __future__ import annotations

import json
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

from trainstack.reap.reaper import MARKER, iso


def ago(minutes: float) -> datetime:
    return datetime.now(timezone.utc) - timedelta(minutes=minutes)


def history_time(moment: datetime) -> str:
    """The CLI's `stack history --json` time format (the SDK parses exactly this)."""
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.000Z")


def marked(cloud="aws", idle_minutes=60, retained=True, **outputs) -> dict:
    marker = {"version": 1, "cloud": cloud, "idle_minutes": idle_minutes}
    if retained is not None:
        marker["bucket_retained"] = retained
    return {MARKER: marker, "bucket_name": "data", "filesystem_id": "fs-0123",
            "region": "us-east-1", **outputs}


def stack(outputs: dict, age_minutes: float = 600, **extra) -> dict:
    return {"outputs": outputs, "created": history_time(ago(age_minutes)), **extra}


def write_stacks(path: Path, stacks: dict) -> Path:
    path.write_text(json.dumps(stacks))
    return path


def beat(node: str, idle_minutes: float, skew_minutes: float = 0, state: str = "", **extra) -> dict:
    """A report as components/agents/idle_agent.py writes it: `idle_minutes` 0 is busy.
    `skew_minutes` moves the node's clock (its `time` and `last_busy`), not the idle span."""
    now = datetime.now(timezone.utc) + timedelta(minutes=skew_minutes)
    state = state or ("busy" if idle_minutes < 1 else "idle")
    return {"node": node, "time": iso(now), "last_busy": iso(now - timedelta(minutes=idle_minutes)),
            "state": state, "busy": state == "busy",
            "idle_for_seconds": {"busy": 0, "idle": int(idle_minutes * 60)}.get(state),
            "reasons": ["gpu 0 at 97 %"] if state == "busy" else [], "gpus": [],
            "agent_version": 2, **extra}


def put_beats(fs, root: str, *beats: dict) -> None:
    for b in beats:
        with fs.open(f"{root}/{b['node']}.json", "wb") as f:
            f.write(json.dumps(b).encode())


class FakeGuard:
    """An export that succeeds or not, and remembers which stacks it was asked about."""

    def __init__(self, saved=True, during=None, raises=None):
        self.saved, self.asked, self.during, self.raises = saved, [], during, raises

    def confirm(self, stack, outputs):
        self.asked.append(stack)
        if self.during:
            self.during()
        if self.raises:
            raise self.raises
        return self.saved, "fake export " + ("done" if self.saved else "still running")


class FakeCloud:
    """Node groups by `node_group` output: members now, and a scale that empties them."""

    def __init__(self, groups=None, on_members=None):
        self.groups = dict(groups or {})
        self.scaled: list[tuple[str, int]] = []
        self.calls, self.on_members = 0, on_members

    def members(self, outputs):
        self.calls += 1
        if self.on_members:
            self.on_members(self.calls)
        found = self.groups.get(outputs.get("node_group"), [])
        if isinstance(found, Exception):
            raise found
        return list(found)

    def scale(self, outputs, size, expected=None):
        from trainstack.reap.cloud import check_judged
        group = outputs["node_group"]
        before = self.groups.get(group, [])
        if not size and not isinstance(before, Exception):
            check_judged(list(before), expected)
        self.scaled.append((group, size))
        if size == 0:
            self.before = {**getattr(self, "before", {}), group: before}
            self.groups[group] = []
        else:
            self.groups[group] = getattr(self, "before", {}).get(group) or \
                [f"{group}-new-{i}" for i in range(size)]
        return len(before)


# -- a stand-in `aliyun` (the reaper's fault tests) ----------------------------------------
# Stand-in cloud CLIs for the reaper's fault tests, enforcing what the real APIs enforce.
#
# `aliyun ecs DescribeInstances` pages as the ECS API does (API reference, DescribeInstances:
# PageSize "Maximum value: 100. Default value: 10", PageNumber from 1, InstanceIds "up to 100
# instance IDs", the answer carrying TotalCount/PageNumber/PageSize); StopInstances and
# StartInstances take InstanceId.N (N up to 100). The instances live in FAKE_ALIYUN_INSTANCES (a JSON
# list of {InstanceId, HostName, Status}); every call is appended to FAKE_ALIYUN_INSTANCES + ".calls".
# `aliyun nas CreateDataFlowTask` answers FAKE_ALIYUN_EXPORT (a JSON {"code": exit, "stderr": text}).
# FAKE_ALIYUN_STARTING (a JSON {"call": N, "id": ID}): a person starts instance ID just before
# the Nth DescribeInstances call is answered (its Status is then "Starting", as ECS shows a
# booting instance; "status" in the JSON names another, such as "Running" for one that booted
# between two calls). A start (that one, or StartInstances) sets the instance's StartTime, "the
# time when the instance was last started", given to the minute (yyyy-MM-ddTHH:mmZ).
ALIYUN = f"""#!{sys.executable} -S
import json, os, sys
from datetime import datetime, timedelta, timezone
START = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%MZ")
LAUNCHED = (datetime.now(timezone.utc) - timedelta(hours=6)).strftime("%Y-%m-%dT%H:%MZ")
path = os.environ["FAKE_ALIYUN_INSTANCES"]
args = sys.argv[1:]
with open(path + ".calls", "a") as log:
    log.write(json.dumps(args) + "\\n")
def opt(name, default=None):
    return args[args.index(name) + 1] if name in args else default
def fail(code, message):
    print(f"ERROR: SDK.ServerError\\nErrorCode: {{code}}\\nMessage: {{message}}", file=sys.stderr)
    sys.exit(1)
instances = json.load(open(path))
if args[:2] == ["ecs", "DescribeInstances"]:
    with open(path + ".described", "a") as count:
        count.write("x")
    starting = json.loads(os.environ.get("FAKE_ALIYUN_STARTING") or "null")
    if starting and os.path.getsize(path + ".described") == starting["call"]:
        for i in instances:
            if i["InstanceId"] == starting["id"]:
                i["Status"], i["StartTime"] = starting.get("status", "Starting"), START
        json.dump(instances, open(path, "w"))
    size, page = int(opt("--PageSize", "10")), int(opt("--PageNumber", "1"))
    if not 1 <= size <= 100:
        fail("InvalidParameter.PageSize", "The specified parameter PageSize is not valid.")
    wanted = json.loads(opt("--InstanceIds", "null") or "null")
    if wanted is not None and len(wanted) > 100:
        fail("InvalidInstanceIds.ValueNotSupported", "The specified InstanceIds is not valid.")
    chosen = [i for i in instances if wanted is None or i["InstanceId"] in wanted]
    # ECS gives every instance its StartTime; one the test set up without it has run for
    # hours (an explicit "" or a missing key set by a test stays as the test wrote it).
    chosen = [{{**i, "StartTime": i.get("StartTime", LAUNCHED)}} for i in chosen]
    print(json.dumps({{"Instances": {{"Instance": chosen[(page - 1) * size:page * size]}},
                      "TotalCount": len(chosen), "PageNumber": page, "PageSize": size}}))
elif args[:2] in (["ecs", "StopInstances"], ["ecs", "StartInstances"]):
    ids = [a.split("=", 1)[1] for a in args if a.startswith("--InstanceId.")]
    if len(ids) > 100:
        fail("InvalidParameter", "InstanceId.N: N up to 100")
    state = "Stopped" if args[1] == "StopInstances" else "Running"
    for i in instances:
        if i["InstanceId"] in ids:
            i["Status"] = state
            if state == "Running":
                i["StartTime"] = START
    json.dump(instances, open(path, "w"))
    print(json.dumps({{"RequestId": "r"}}))
elif args[:2] == ["nas", "CreateDataFlowTask"]:
    answer = json.loads(os.environ.get("FAKE_ALIYUN_EXPORT") or '{{"code": 0}}')
    if answer.get("stderr"):
        print(answer["stderr"], file=sys.stderr)
    if answer.get("code"):
        sys.exit(answer["code"])
    print(json.dumps({{"TaskId": "task-1"}}))
else:
    fail("InvalidAction.NotFound", "stand-in: " + " ".join(args[:2]))
"""


# -- a stand-in `az` (the reaper's Azure tests) ---------------------------------------------
# The scale set's VMs live in FAKE_AZ_VMS (a JSON list, each as `az vmss list-instances` prints a
# VM: "name" `<scale set>_<instance id>`, "instanceId", "vmId", "provisioningState",
# "timeCreated" and "instanceView" {"statuses": [{"code", "time"?}]}); every call is appended to
# FAKE_AZ_VMS + ".calls". As the API does, the instance view comes only with `--expand
# instanceView` (Virtual Machine Scale Set VMs - List, $expand), and Azure's times carry seven
# fractional digits. `vmss scale --new-capacity 0` deletes every VM; a larger capacity creates
# new ones (new vmId, created now); either after FAKE_AZ_SCALE_SLEEP seconds. `amlfs archive`
# starts an archive now, which `amlfs show` then reports Completed with that lastStartedTime.
AZ = f"""#!{sys.executable} -S
import json, os, sys, uuid
from datetime import datetime, timezone
def azure_now():
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f") + "1+00:00"
path = os.environ["FAKE_AZ_VMS"]
args = sys.argv[1:]
with open(path + ".calls", "a") as log:
    log.write(json.dumps(args) + "\\n")
def opt(name, default=None):
    return args[args.index(name) + 1] if name in args else default
vms = json.load(open(path))
archive = path + ".archive"
if args[:2] == ["vmss", "list-instances"]:
    if opt("--query") == "[].name":
        print(json.dumps([vm["name"] for vm in vms]))
    else:
        expanded = opt("--expand") == "instanceView"
        print(json.dumps([{{k: v for k, v in vm.items() if expanded or k != "instanceView"}}
                          for vm in vms]))
elif args[:2] == ["vmss", "show"]:
    print(json.dumps(len(vms)))
elif args[:2] == ["vmss", "scale"]:
    import time
    time.sleep(float(os.environ.get("FAKE_AZ_SCALE_SLEEP", "0")))
    size, scale_set = int(opt("--new-capacity")), opt("--name")
    vms = [{{"name": f"{{scale_set}}_{{n}}", "instanceId": str(n), "vmId": str(uuid.uuid4()),
            "provisioningState": "Succeeded", "timeCreated": azure_now(),
            "instanceView": {{"statuses": [{{"code": "ProvisioningState/succeeded",
                                             "time": azure_now()}},
                                            {{"code": "PowerState/running"}}]}}}}
           for n in range(size)]
    json.dump(vms, open(path, "w"))
elif args[:2] == ["amlfs", "archive"]:
    open(archive, "w").write(azure_now())
elif args[:2] == ["amlfs", "show"]:
    started = open(archive).read() if os.path.exists(archive) else "2026-01-01T00:00:00+00:00"
    print(json.dumps({{"state": "Completed", "lastStartedTime": started}}))
elif args[:2] == ["amlfs", "cancel-archive"]:
    pass
else:
    print("ERROR: stand-in az: " + " ".join(args[:2]), file=sys.stderr)
    sys.exit(2)
"""
