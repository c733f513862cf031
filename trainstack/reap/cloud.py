"""What the reaper asks each cloud: who is in the node group NOW, scale it to 0 (and back), and
is the filesystem's data in the bucket. Every call has a timeout; a cloud's CLI that hangs or is
missing is an error the reaper reports, never a silent pass.

Node names are the ones the idle agent reports under (components/*/boot.py `node_name`): the AWS
instance id, the GCP instance name, the Azure VM name (`<scale set>_<n>`), the Alibaba host name.
"""
from __future__ import annotations

import json
import re
import subprocess
import time
from datetime import datetime, timedelta, timezone
from typing import Callable, Optional, Protocol

from trainstack_components.lifetime import parse_iso, utc_now

CLI_TIMEOUT_S = 120
EXPORT_TIMEOUT_S = 3 * 3600


class CloudError(RuntimeError):
    pass


class Terminated(BaseException):
    """SIGTERM (the workflow's `timeout`): unwinds every step, so what was started is stopped
    and the lease given back (`finally`), and no `except Exception` swallows it."""


def run_cli(argv: list[str], timeout: float = CLI_TIMEOUT_S) -> str:
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    except FileNotFoundError:
        raise CloudError(f"`{argv[0]}` is not installed") from None
    except subprocess.TimeoutExpired:
        raise CloudError(f"`{' '.join(argv[:4])} ...` did not answer within {timeout:g} s") from None
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or [""]
        raise CloudError(f"`{' '.join(argv[:4])} ...` exited {done.returncode}: {tail[0]}")
    return done.stdout


def cloud_time(text: str) -> datetime:
    """A cloud's timestamp, in UTC: Azure gives 7 fractional digits ("...58.0882815+00:00"),
    more than Python 3.10's fromisoformat reads; beyond microseconds they are dropped."""
    return parse_iso(re.sub(r"(\.\d{6})\d+", r"\1", text.strip()))


class NotJudged(CloudError):
    """At the scale-down the group holds a node the reaper did not judge (one started or
    launched after the re-check, still booting): nothing is scaled."""


def check_judged(current: list[str], expected: Optional[list[str]], desired: Optional[int] = None,
                 what: str = "the group") -> None:
    """Raise NotJudged when `current` (the group's running or booting nodes, read by the
    scale-down itself) holds a node outside `expected`, or the group wants more nodes than
    were judged (one not listed yet)."""
    if expected is None:
        return
    extra = sorted(set(current) - set(expected))
    if extra:
        raise NotJudged(f"{', '.join(extra)} joined {what} after the re-check (booting, never "
                        "judged)")
    if desired is not None and desired > len(expected):
        raise NotJudged(f"{what} wants {desired} nodes but {len(expected)} were judged (a node "
                        "still launching)")


class Cloud(Protocol):
    def members(self, outputs: dict) -> list[str]: ...
    # Returns the size before. With `expected` (the members judged idle), a scale to 0 first
    # checks the group holds no other node, else raises NotJudged and scales nothing.
    def scale(self, outputs: dict, size: Optional[int],
              expected: Optional[list[str]] = None) -> int: ...


def _need(outputs: dict, *keys: str) -> list:
    missing = [k for k in keys if not outputs.get(k)]
    if missing:
        raise CloudError(f"the stack exports no {', '.join(missing)}")
    return [outputs[k] for k in keys]


class AwsGroup:
    """Members are the group's instances (by instance id, what the idle agent reports under);
    beside them `booting` (member -> why) and `started` (member -> its last launch), read with
    the members, so that a report written before an instance's last start (a stopped instance
    started again, a warm-pool instance put in service: the same id) is not taken for this
    run's."""

    # Auto Scaling lifecycle states before InService (the instance is launching or held by a
    # launch lifecycle hook: AutoScaling API reference, Instance.LifecycleState).
    BOOTING = ("Pending", "Pending:Wait", "Pending:Proceed")

    def __init__(self, client_for: Optional[Callable[[str], object]] = None,
                 ec2_for: Optional[Callable[[str], object]] = None):
        self.client_for, self.ec2_for = client_for, ec2_for
        self.booting: dict[str, str] = {}
        self.started: dict[str, datetime] = {}
        self._clients: dict[tuple[str, Optional[str]], object] = {}

    def _boto(self, service, region):
        """One client per service and region for this group object (one per reaper run): a new
        boto3 client loads its service model and builds its methods (tens of ms of CPU each),
        and a stack's look and scale-down make four calls. The client's credentials are
        botocore's own, refreshed by it when they expire."""
        if (service, region) not in self._clients:
            import boto3
            from botocore.config import Config
            self._clients[service, region] = boto3.client(service, region_name=region, config=Config(
                connect_timeout=20, read_timeout=60, retries={"max_attempts": 3}))
        return self._clients[service, region]

    def _client(self, region):
        return self.client_for(region) if self.client_for else self._boto("autoscaling", region)

    def _ec2(self, region):
        return self.ec2_for(region) if self.ec2_for else self._boto("ec2", region)

    def _group(self, outputs):
        (name,) = _need(outputs, "node_group")
        groups = self._client(outputs.get("region")).describe_auto_scaling_groups(
            AutoScalingGroupNames=[name])["AutoScalingGroups"]
        if not groups:
            raise CloudError(f"Auto Scaling group {name} not found")
        return groups[0]

    @staticmethod
    def _live_instances(group) -> list[dict]:
        return [i for i in group.get("Instances", [])
                if not i.get("LifecycleState", "").startswith("Terminat")]

    @classmethod
    def _live(cls, group) -> list[str]:
        return [i["InstanceId"] for i in cls._live_instances(group)]

    def _launched(self, region, ids: list[str]) -> dict[str, dict]:
        """EC2's own view of the instances, every page: {id: {"LaunchTime", "State"}}."""
        found: dict[str, dict] = {}
        if not ids:
            return found
        pages = self._ec2(region).get_paginator("describe_instances").paginate(InstanceIds=ids)
        for page in pages:
            for reservation in page.get("Reservations", []):
                for instance in reservation.get("Instances", []):
                    found[instance["InstanceId"]] = instance
        return found

    def members(self, outputs):
        live = self._live_instances(self._group(outputs))
        ids = [i["InstanceId"] for i in live]
        booting = {i["InstanceId"]: f"booting (Auto Scaling lifecycle state {i['LifecycleState']})"
                   for i in live if i.get("LifecycleState") in self.BOOTING}
        started: dict[str, datetime] = {}
        # LaunchTime: "The time that the instance was last launched" (EC2 API reference,
        # Instance): a stop and start moves it, the instance id stays.
        for node, instance in self._launched(outputs.get("region"), ids).items():
            state = (instance.get("State") or {}).get("Name")
            if state == "pending" and node not in booting:
                booting[node] = "booting (EC2 state pending)"
            launched = instance.get("LaunchTime")
            if isinstance(launched, str):
                launched = cloud_time(launched)
            if isinstance(launched, datetime):
                started[node] = launched if launched.tzinfo else launched.replace(tzinfo=timezone.utc)
        missing = sorted(set(ids) - set(started))
        if missing:
            # A member EC2 does not describe (not yet visible, or gone): its report cannot be
            # placed against its start, so it is not believed.
            raise CloudError(f"EC2 describes no launch time for {', '.join(missing)}")
        self.booting, self.started = booting, started
        return ids

    def scale(self, outputs, size, expected=None):
        group = self._group(outputs)
        before = int(group.get("DesiredCapacity", 0))
        target = 0 if size is None else size
        if not target:
            check_judged(self._live(group), expected, before)
        self._client(outputs.get("region")).update_auto_scaling_group(
            AutoScalingGroupName=group["AutoScalingGroupName"], DesiredCapacity=target,
            **({"MinSize": 0} if target == 0 else {}))
        return before


class GcpGroup:
    def _where(self, outputs):
        group, zone, project = _need(outputs, "node_group", "zone", "project")
        return [group, "--zone", zone, "--project", project]

    # ManagedInstance.currentAction values that (re)boot the instance under the SAME name
    # (a recreated or restarted instance keeps it), so its previous run's report may still be
    # fresh in the bucket (compute/docs/reference/rest/v1/instanceGroupManagers/listManagedInstances).
    BOOTING = ("CREATING", "CREATING_WITHOUT_RETRIES", "RECREATING", "RESTARTING", "STARTING",
               "RESUMING", "VERIFYING")

    def members(self, outputs):
        """The instances not being deleted or abandoned; beside them `booting` (member -> why)
        for those the group is (re)creating or starting, and `started` (member -> its creation
        or last start, the later): once the group's action is over, a recreated instance has
        its old name, and its previous life's report may still be fresh in the bucket."""
        listed = json.loads(run_cli(["gcloud", "compute", "instance-groups", "managed",
                                     "list-instances", *self._where(outputs), "--format=json"]))
        live = {i["instance"].rsplit("/", 1)[-1]: i for i in listed
                if i.get("currentAction") not in ("DELETING", "ABANDONING")}
        names = list(live)
        booting = {name: f"booting (MIG currentAction {i['currentAction']})"
                   for name, i in live.items() if i.get("currentAction") in self.BOOTING}
        started: dict[str, datetime] = {}
        if names:
            _, zone, project = _need(outputs, "node_group", "zone", "project")
            # creationTimestamp, lastStartTimestamp and lastSuspendedTimestamp
            # (compute/docs/reference/rest/v1/instances). The reference says only "Last start
            # timestamp" and has no resume time: whether a resume moves lastStartTimestamp is
            # not documented. A member running now that was suspended after a report has been
            # resumed since, so that report is its previous run's: the suspension counts as a
            # start (the safe side; at worst a report before it is unknown, never idle).
            described = json.loads(run_cli(["gcloud", "compute", "instances", "list", "--zones",
                                            zone, "--project", project, "--format=json"]))
            for instance in described:
                if instance.get("name") not in names:
                    continue
                moments = [instance.get("creationTimestamp"), instance.get("lastStartTimestamp"),
                           instance.get("lastSuspendedTimestamp")]
                times = [cloud_time(str(m)) for m in moments if m]
                if times:
                    started[instance["name"]] = max(times)
            missing = sorted(set(names) - set(started))
            if missing:
                raise CloudError(f"gcloud compute instances list gives no creation time for "
                                 f"{', '.join(missing)}")
        self.booting, self.started = booting, started
        return names

    def scale(self, outputs, size, expected=None):
        described = json.loads(run_cli(["gcloud", "compute", "instance-groups", "managed",
                                        "describe", *self._where(outputs), "--format=json"]))
        if not size and expected is not None:
            check_judged(self.members(outputs), expected, int(described.get("targetSize", 0)))
        run_cli(["gcloud", "compute", "instance-groups", "managed", "resize",
                 *self._where(outputs), "--size", str(size or 0)])
        return int(described.get("targetSize", 0))


class AzureScaleSet:
    """Members are the scale set's VMs by name (`<scale set>_<instance id>`, what the idle agent
    reports under). A name outlives its VM (a VM deleted and another created under the same
    name, a deallocated VM started again), so beside the names, from the same listing with the
    instance view: `booting` (member -> why) and `started` (member -> the VM's creation or its
    latest provisioning operation, a start among them), so that the previous VM's or previous
    run's report, still fresh in the bucket, is not taken for this one's."""

    # ProvisioningState/creating and PowerState/starting: the VM is being created or started
    # (instance view status codes, learn.microsoft.com virtual-machines/states-billing).
    BOOTING = ("provisioningstate/creating", "powerstate/starting")

    def __init__(self):
        self.booting: dict[str, str] = {}
        self.started: dict[str, datetime] = {}

    def _where(self, outputs):
        group, scale_set = _need(outputs, "resource_group", "scale_set")
        return ["--resource-group", group, "--name", scale_set]

    @staticmethod
    def _field(vm: dict, name: str):
        """The az CLI flattens a VM's `properties`; read either form."""
        return vm.get(name, (vm.get("properties") or {}).get(name))

    def members(self, outputs):
        listed = json.loads(run_cli(["az", "vmss", "list-instances", *self._where(outputs),
                                     "--expand", "instanceView", "-o", "json"]))
        names, booting, started = [], {}, {}
        for vm in listed:
            name = vm["name"]
            names.append(name)
            statuses = (self._field(vm, "instanceView") or {}).get("statuses") or []
            codes = [str(s.get("code", "")).lower() for s in statuses]
            state = str(self._field(vm, "provisioningState") or "")
            why = [c for c in codes if c in self.BOOTING]
            if state.lower() == "creating":
                why.insert(0, f"provisioningState {state}")
            if why:
                booting[name] = f"booting ({', '.join(why)})"
            # The VM's creation, and the end of its latest provisioning operation (a start or
            # a restart among them): its current run began by the later of the two.
            moments = [self._field(vm, "timeCreated")] + [
                s.get("time") for s in statuses
                if str(s.get("code", "")).lower().startswith("provisioningstate/")]
            times = []
            for moment in filter(None, moments):
                try:
                    times.append(cloud_time(str(moment)))
                except ValueError:
                    pass
            if not times:
                # No creation time (an API older than 2021-11-01): a report cannot be placed
                # against this VM's start, so none is believed.
                raise CloudError(f"az vmss list-instances gives no creation time for {name}")
            started[name] = max(times)
        self.booting, self.started = booting, started
        return names

    def scale(self, outputs, size, expected=None):
        capacity = json.loads(run_cli(["az", "vmss", "show", *self._where(outputs), "--query",
                                       "sku.capacity", "-o", "json"]))
        if not size and expected is not None:
            check_judged(self.members(outputs), expected, int(capacity or 0))
        run_cli(["az", "vmss", "scale", *self._where(outputs), "--new-capacity", str(size or 0)],
                timeout=1800)
        return int(capacity or 0)


class AlicloudNodes:
    """No group resource: the nodes are instances; "scale to 0" stops them (StopCharging)."""

    PAGE = 100   # DescribeInstances: PageSize at most 100 (default 10), InstanceIds at most 100

    def __init__(self):
        self.stopped: dict[tuple, list[str]] = {}   # node ids -> those the scale-down stopped

    def _instances(self, outputs):
        """Every instance of the stack: the ids 100 a call, each call read page by page until
        TotalCount (the API's default page holds 10: a busy 11th node is still a member)."""
        ids, region = _need(outputs, "node_ids", "region")
        found = []
        for start in range(0, len(ids), self.PAGE):
            chunk = list(ids[start:start + self.PAGE])
            page, seen = 1, []
            while True:
                answer = json.loads(run_cli([
                    "aliyun", "ecs", "DescribeInstances", "--RegionId", region,
                    "--InstanceIds", json.dumps(chunk), "--PageSize", str(self.PAGE),
                    "--PageNumber", str(page)]))
                listed = answer.get("Instances", {}).get("Instance", [])
                seen += listed
                total = answer.get("TotalCount")
                if not listed or total is None or len(seen) >= int(total):
                    break
                page += 1
            if answer.get("TotalCount") is not None and len(seen) < int(answer["TotalCount"]):
                raise CloudError(f"DescribeInstances listed {len(seen)} of "
                                 f"{answer['TotalCount']} instances")
            found += seen
        return found

    LIVE = ("Running", "Starting", "Pending")
    BOOTING = ("Starting", "Pending")
    # StartTime ("The time when the instance was last started", DescribeInstances) is given to
    # the minute (yyyy-MM-ddTHH:mmZ): the start may lie anywhere in that minute.
    START_RESOLUTION = timedelta(minutes=1)

    def members(self, outputs):
        """The live instances' host names. Beside them, from the same answer: `booting`
        (member -> why: ECS says Starting or Pending) and `started` (member -> the latest moment
        its last start may have been), so that a report its previous run wrote before a
        restart is not taken for this run's."""
        live = [i for i in self._instances(outputs) if i.get("Status") in self.LIVE]
        self.booting = {i["HostName"]: f"booting (ECS status {i['Status']})" for i in live
                        if i.get("Status") in self.BOOTING}
        self.started = {}
        unplaced = []
        for i in live:
            try:
                self.started[i["HostName"]] = parse_iso(str(i["StartTime"])) + self.START_RESOLUTION
            except (KeyError, ValueError):
                unplaced.append(i["HostName"])
        if unplaced:
            # As on the other clouds: a member whose last start ECS does not give cannot have
            # its report placed against that start, so the report is not believed.
            raise CloudError(f"ECS gives no readable StartTime for {', '.join(sorted(unplaced))}")
        return [i["HostName"] for i in live]

    def scale(self, outputs, size, expected=None):
        instances = self._instances(outputs)
        if not size:   # StopInstances stops every node id: a booting one must have been judged
            check_judged([i["HostName"] for i in instances if i.get("Status") in self.LIVE],
                         expected, what="the stack's instances")
        running = [i["InstanceId"] for i in instances if i.get("Status") == "Running"]
        key = tuple(outputs["node_ids"])
        if size:   # back up: only the nodes this reaper stopped (one a person stopped stays so)
            chosen = list(self.stopped.pop(key, outputs["node_ids"]))
        else:      # down: the running nodes (every live one was judged: check_judged above)
            chosen = self.stopped[key] = running
        for start in range(0, len(chosen), self.PAGE):   # InstanceId.N: N up to 100
            ids = [f"--InstanceId.{n}={i}"
                   for n, i in enumerate(chosen[start:start + self.PAGE], 1)]
            if size:
                run_cli(["aliyun", "ecs", "StartInstances", "--RegionId", outputs["region"], *ids])
            else:
                run_cli(["aliyun", "ecs", "StopInstances", "--RegionId", outputs["region"],
                         "--StoppedMode", "StopCharging", *ids])
        return len(running)


def default_clouds() -> dict[str, Cloud]:
    return {"aws": AwsGroup(), "gcp": GcpGroup(), "azure": AzureScaleSet(),
            "alicloud": AlicloudNodes()}


# -- is the data in the bucket? ---------------------------------------------------------------

class DataGuard(Protocol):
    def confirm(self, stack: str, outputs: dict) -> tuple[bool, str]: ...
    # Optional: `unexported(outputs) -> str`, what the export never reaches ("" or absent: all).


class FilesystemGone(RuntimeError):
    """The filesystem no longer exists (a destroy that failed half-way after deleting it)."""


class FsxExportGuard:
    """AWS: an EXPORT_TO_REPOSITORY task on the data repository association's path, waited for.
    trainstack links the whole filesystem (`filesystem_bucket_path` "/"); the task then names no
    path, which FSx takes as the filesystem root (FSx API Reference, DataRepositoryTask: "If
    Paths is not specified, Amazon FSx uses the file system root directory"). A stack whose
    association names less (an older deploy's /bucket, or edited by hand) exports only that
    path; files elsewhere are not exported (`unexported`, docs/billing-after-stop.md, and
    `trainstack status` says so)."""

    def __init__(self, client_for: Optional[Callable[[str], object]] = None,
                 timeout_s: float = EXPORT_TIMEOUT_S, poll_s: float = 30):
        self.client_for, self.timeout_s, self.poll_s = client_for, timeout_s, poll_s

    def _client(self, region):
        if self.client_for:
            return self.client_for(region)
        import boto3
        return boto3.client("fsx", region_name=region)

    @staticmethod
    def linked_path(outputs) -> str:
        """The association's filesystem path the stack's outputs say, "/..." ("/" for the whole
        filesystem). A stack without the output predates it and linked /bucket."""
        return "/" + str(outputs.get("filesystem_bucket_path") or "/bucket").strip("/")

    def linked_paths(self, outputs) -> list[str]:
        """The filesystem paths linked to a bucket now, as FSx describes the filesystem's
        associations (every page; only AVAILABLE ones export), never as the outputs say: a
        stack's outputs are its last `up`'s, and an association changed since (by hand, or an
        `up` that failed between deleting the old one and creating "/") is what the export
        task meets. Raises when they cannot be read."""
        client = self._client(outputs.get("region"))
        bucket = str(outputs.get("bucket_name") or "")
        paths, token = [], None
        while True:
            page = client.describe_data_repository_associations(
                Filters=[{"Name": "file-system-id", "Values": [outputs["filesystem_id"]]}],
                **({"NextToken": token} if token else {}))
            # Only an association into the stack's own (kept) bucket is an export of its data:
            # one relinked by hand to another bucket copies the files where nobody keeps them.
            paths += ["/" + str(a.get("FileSystemPath", "")).strip("/")
                      for a in page.get("Associations") or []
                      if a.get("Lifecycle") == "AVAILABLE" and (not bucket or str(
                          a.get("DataRepositoryPath", "")).rstrip("/").split("/")[:3]
                          == ["s3:", "", bucket])]
            token = page.get("NextToken")
            if not token:
                return sorted(set(paths))

    def unexported(self, outputs) -> str:
        """What the export cannot reach, said for the decision ("" when nothing): the files
        outside the linked paths, unless one of them is the whole filesystem ("/"). The paths
        are the outputs' and the ones FSx describes now; either naming less keeps the data."""
        fs = outputs.get("filesystem_id") or "(no filesystem_id)"
        said = self.linked_path(outputs)
        try:
            live = self.linked_paths(outputs) if outputs.get("filesystem_id") else []
        except Exception as failed:  # noqa: BLE001 (unknown reach is never "everything")
            if "FileSystemNotFound" in f"{type(failed).__name__} {failed}":
                return ""   # nothing left to lose; the destroy finishes what was half done
            return (f"what the export of FSx {fs} reaches is unknown (its data repository "
                    f"associations could not be read: {type(failed).__name__}: {failed}); "
                    "files outside the linked paths are deleted with the filesystem")
        if said == "/" and "/" in live:
            return ""
        where = ", ".join(live) or "none"
        return (f"files on FSx {fs} outside {said} (/lustre{said if said != '/' else ''} on the "
                f"nodes, the only path linked to the bucket) are never exported and are deleted "
                "with the filesystem" if said != "/" else
                f"files on FSx {fs} outside the paths FSx links to the bucket now ({where}; the "
                "stack's outputs say /) are never exported and are deleted with the filesystem")

    def confirm(self, stack, outputs):
        fs_id = outputs.get("filesystem_id")
        if not fs_id:
            return False, "no filesystem_id output"
        client = self._client(outputs.get("region"))
        try:
            live = self.linked_paths(outputs)
            if not live:
                return False, (f"FSx {fs_id} has no available data repository association: "
                               "nothing can be exported")
            # Paths relative to the mount point ("path1" for /mnt/fsx/path1); none: the root.
            scope = {} if "/" in live else {"Paths": [p.lstrip("/") for p in live]}
            task = client.create_data_repository_task(
                FileSystemId=fs_id, Type="EXPORT_TO_REPOSITORY", **scope,
                Report={"Enabled": False})["DataRepositoryTask"]
            deadline = time.monotonic() + self.timeout_s
            while True:
                (task,) = client.describe_data_repository_tasks(
                    TaskIds=[task["TaskId"]])["DataRepositoryTasks"]
                state = task["Lifecycle"]
                if state == "SUCCEEDED":
                    # A task's Status counts the files it failed to process (FailedCount, FSx
                    # API Reference, DataRepositoryTaskStatus): those would be deleted with
                    # the filesystem.
                    failed = int((task.get("Status") or {}).get("FailedCount") or 0)
                    if failed:
                        return False, (f"export task {task['TaskId']} succeeded but could not "
                                       f"export {failed} file(s)")
                    return True, f"export task {task['TaskId']} succeeded"
                if state in ("FAILED", "CANCELED"):
                    return False, f"export task {task['TaskId']} {state.lower()}"
                if time.monotonic() > deadline:
                    return False, f"export task {task['TaskId']} still {state} after {self.timeout_s:g} s"
                try:
                    time.sleep(self.poll_s)
                except Terminated:  # the export this run started stops with it
                    client.cancel_data_repository_task(TaskId=task["TaskId"])
                    raise
        except Exception as failed:  # credentials, throttling, an unknown filesystem
            if "FileSystemNotFound" in f"{type(failed).__name__} {failed}":
                raise FilesystemGone(f"FSx {fs_id} no longer exists") from None
            return False, f"FSx export could not be run: {type(failed).__name__}: {failed}"


# What the clouds say about a FILESYSTEM that is no longer there: aliyun names it by its error
# code (InvalidFileSystem.NotFound, NAS API); gcloud answers NOT_FOUND naming the instance. A "not
# found" about anything else (a data flow, a bucket, a task) is a failed export, never "gone".
ALIBABA_FS_GONE = re.compile(r"InvalidFileSystem(?:Id)?\.NotFound")


def filesystem_gone(output: str, outputs: dict) -> bool:
    if ALIBABA_FS_GONE.search(output):
        return True
    name = str(outputs.get("filesystem_id") or "").rstrip("/").rsplit("/", 1)[-1]
    return bool(name) and "NOT_FOUND" in output and re.search(
        rf"instances?[/ ]['\"]?{re.escape(name)}\b", output) is not None


def _stop_group(child: subprocess.Popen) -> None:
    import os
    import signal
    for sig, wait in ((signal.SIGTERM, 10), (signal.SIGKILL, 10)):
        try:
            os.killpg(child.pid, sig)
        except OSError:
            return
        try:
            child.wait(wait)
            return
        except subprocess.TimeoutExpired:
            continue


class CommandExportGuard:
    """Clouds whose stacks export the command that copies the filesystem into the bucket
    (GCP Managed Lustre `filesystem_export_command`, Alibaba CPFS); it runs under a timeout.
    A command that fails saying the filesystem itself is not found raises FilesystemGone."""

    def __init__(self, run: Optional[Callable[[str], int]] = None, timeout_s: float = EXPORT_TIMEOUT_S):
        self.timeout_s = timeout_s
        self.run = run or self._shell
        self.output = ""

    def _shell(self, command: str) -> int:
        # Its own process group, so that a timeout or a TERM stops the whole export (the shell
        # and the CLI calls it runs), not just the shell.
        child = subprocess.Popen(command, shell=True, start_new_session=True, text=True,
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        try:
            out, _ = child.communicate(timeout=self.timeout_s)
        except subprocess.TimeoutExpired:
            _stop_group(child)
            return 124
        except BaseException:
            _stop_group(child)
            raise
        self.output = (out or "")[-4000:]
        return child.returncode

    def confirm(self, stack, outputs):
        command = outputs.get("filesystem_export_command")
        if not command:
            return False, "the stack exports no filesystem_export_command"
        self.output = ""
        code = self.run(command)
        if code == 124:
            return False, f"`{command}` did not finish within {self.timeout_s:g} s"
        if code not in (0, 127) and filesystem_gone(self.output, outputs):
            raise FilesystemGone(f"`{command}` exited {code}: the filesystem is not found")
        return code == 0, f"`{command}` exited {code}"


class CpfsExportGuard(CommandExportGuard):
    """Alibaba CPFS: the export is a data flow task on one fileset (`filesystem_bucket_path`),
    so only what the nodes wrote inside it is copied. Stacks since the fileset became the nodes'
    mount say so (`filesystem_node_path`); an older stack's nodes mounted the whole CPFS ("/")."""

    def unexported(self, outputs) -> str:
        said = str(outputs.get("filesystem_bucket_path") or "").strip()
        if not said:   # unknown reach is never "everything"
            fs = outputs.get("filesystem_id") or "(no filesystem_id)"
            return (f"what the export of CPFS {fs} reaches is unknown (no "
                    "filesystem_bucket_path output); "
                    "files outside its fileset are deleted with the filesystem")
        exported = "/" + said.strip("/")
        mounted = "/" + str(outputs.get("filesystem_node_path") or "/").strip("/")
        if exported == "/" or mounted == exported or mounted.startswith(exported + "/"):
            return ""
        return (f"files on CPFS {outputs.get('filesystem_id') or '(no filesystem_id)'} outside "
                f"the {exported} fileset (the nodes mount {mounted}; the data flow exports only "
                "the fileset) are never exported and are deleted with the filesystem; an `up` "
                "with this trainstack mounts only the fileset")


class AzureArchiveGuard:
    """Azure Managed Lustre: request an HSM archive, then wait until the archive status shows a
    run that STARTED after the request and Completed. The status keeps the previous archive's
    "Completed" until the new one starts, so a state check alone passes at once."""

    def __init__(self, cli: Callable[..., str] = run_cli, timeout_s: float = EXPORT_TIMEOUT_S,
                 poll_s: float = 30, now: Callable[[], datetime] = utc_now):
        self.cli, self.timeout_s, self.poll_s, self.now = cli, timeout_s, poll_s, now

    def confirm(self, stack, outputs):
        try:
            fs_id, group = _need(outputs, "filesystem_id", "resource_group")
        except CloudError as missing:
            return False, str(missing)
        where = ["--amlfs-name", str(fs_id).rsplit("/", 1)[-1], "--resource-group", group]
        # Azure's clock and ours: a start within this much before our request still counts.
        requested = self.now() - timedelta(seconds=30)
        try:
            self.cli(["az", "amlfs", "archive", *where, "--filesystem-path", "/"])
        except CloudError as failed:
            if "ResourceNotFound" in str(failed) or "was not found" in str(failed):
                raise FilesystemGone(f"Managed Lustre {where[1]} no longer exists") from None
            return False, f"archive request failed: {failed}"
        deadline = time.monotonic() + self.timeout_s
        while True:
            try:
                status = json.loads(self.cli(["az", "amlfs", "show", *where, "--query",
                                              "hsm.archiveStatus[0].status", "-o", "json"]) or "null")
            except (CloudError, ValueError) as failed:
                return False, f"archive status unreadable: {failed}"
            status = status or {}
            started = status.get("lastStartedTime")
            fresh = bool(started) and parse_iso(str(started)) >= requested
            state = status.get("state")
            if fresh and state == "Completed":
                return True, f"archive started {started} (after the request) completed"
            if fresh and state in ("Failed", "Canceled", "Cancelling"):
                return False, f"archive started {started} ended {state}"
            if time.monotonic() > deadline:
                return False, (f"no archive started after the request completed within "
                               f"{self.timeout_s:g} s (last: {state} started {started})")
            try:
                time.sleep(self.poll_s)
            except Terminated:  # the archive this run requested stops with it
                try:
                    self.cli(["az", "amlfs", "cancel-archive", *where], timeout=60)
                finally:
                    raise Terminated() from None


def default_guards() -> dict[str, DataGuard]:
    return {"aws": FsxExportGuard(), "gcp": CommandExportGuard(), "alicloud": CpfsExportGuard(),
            "azure": AzureArchiveGuard()}
