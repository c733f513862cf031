"""`trainstack run [--stack S] -- CMD ...`: one command on every node of a stack, launched by
torchrun through each node's job agent (components/agents/job_agent.py).

`run` writes `jobs/<id>/request.json` into the cluster's bucket and waits for every node's
`jobs/<id>/<node>/exit.json`; `--follow` streams each node's log as it grows. Its exit code is
the worst node's. The nodes are those with a health record in the bucket (status/<node>.json,
what `trainstack status` reads) that is not withdrawn and whose agent's heartbeat is not stale
(heartbeat/<node>.json, TRAINSTACK_NODE_STALE_S); on a deployed stack the spec's node count is
awaited. A node whose heartbeat stops before its exit record ends the wait at once, named, and
the job is cancelled on the others; a node stopped because another failed says so. A node that
hosted the job's rendezvous is the exception while restarts are left: the remaining nodes'
agents elect a new host (jobs/<id>/attempts/<n>.json), and the wait follows the newest attempt's
nodes, naming the lost one; `run` prints each attempt and which node held which ranks.
"""
from __future__ import annotations

import json
import os
import secrets
import sys
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Optional

import typer

from trainstack.plan.select import ProjectOpt, use_project
from trainstack_components.agents.job_agent import (ATTEMPTS_DIR, CANCEL_FILE, HEARTBEAT_PREFIX,
                                                    JOBS_PREFIX, RANKS_FILE, request_attempt)
from trainstack_components.errors import SpecError

EXIT_TIMEOUT = 124
# A node whose job agent has not written its heartbeat (heartbeat/<node>.json, every 30 s by
# default) for this long is gone: preempted and killed, crashed, or cut off from the bucket.
# Four missed heartbeats, so a slow bucket write is not a lost node; TRAINSTACK_NODE_STALE_S
# overrides it (tests; agents started with a shorter --heartbeat).
DEFAULT_STALE_S = 120.0


def stale_after_s() -> float:
    try:
        return float(os.environ.get("TRAINSTACK_NODE_STALE_S") or DEFAULT_STALE_S)
    except ValueError:
        raise SpecError("TRAINSTACK_NODE_STALE_S", f"{os.environ['TRAINSTACK_NODE_STALE_S']!r} is "
                        "not a number of seconds.", "Set it to e.g. 120, or unset it.") from None


@dataclass(frozen=True)
class Target:
    """Where a stack's jobs go: its bucket URL and the nodes that run them."""

    url: str
    nodes: tuple[str, ...]
    cloud: Optional[str] = None
    stack: Optional[str] = None
    instance_type: Optional[str] = None
    provisioned_mbps: Optional[float] = None   # the filesystem's total read throughput
    spot: bool = False                          # its nodes may be taken back (a preemption)
    left_out: tuple[str, ...] = ()             # "node: why" for healthy-looking nodes not used


@dataclass
class JobResult:
    job_id: str
    exits: dict[str, dict] = field(default_factory=dict)   # node -> exit.json
    logs: dict[str, str] = field(default_factory=dict)
    timed_out: bool = False
    vanished: dict[str, str] = field(default_factory=dict)  # node -> why it is taken for gone
    # Nodes gone from the job that went on without them (the rendezvous moved): node -> why.
    lost: dict[str, str] = field(default_factory=dict)
    # The job's rendezvous attempts: attempt 0 (the request's) and one per re-elected host.
    attempts: list[dict] = field(default_factory=list)
    ranks: dict[str, list[dict]] = field(default_factory=dict)  # node -> its ranks.json entries

    def ranks_by_attempt(self, attempt: int) -> dict[str, list[int]]:
        """node -> the global ranks it held in `attempt` (its last rendezvous there)."""
        held: dict[str, list[int]] = {}
        for node, entries in self.ranks.items():
            mine = [e for e in entries if e.get("attempt") == attempt]
            if mine:
                # The newest entry, not the highest restart_count: a node joining late (after
                # the last call, on a loaded node) re-forms the group without counting a
                # restart, so two rendezvous of one attempt may share restart_count 0. The
                # agent appends them in the order torchrun logged them.
                held[node] = sorted(mine[-1].get("global_ranks") or [])
        return held

    @property
    def replaced(self) -> list[str]:
        """Nodes that left the job on a preemption notice (their exit is not the job's)."""
        return sorted(n for n, e in self.exits.items() if e.get("preempted"))

    @property
    def final(self) -> dict[str, dict]:
        return {n: e for n, e in self.exits.items() if not e.get("preempted")}

    @property
    def stopped(self) -> dict[str, str]:
        """Nodes whose agent stopped (or never started) the job because another node failed or
        `run` cancelled it: node -> why."""
        return {n: e["stopped"] for n, e in self.exits.items() if e.get("stopped")}

    @property
    def rc(self) -> int:
        """The worst exit code among the nodes that ended on their own (a node stopped because
        another failed repeats that failure, not its own); at least 1 when a node vanished."""
        if self.timed_out:
            return EXIT_TIMEOUT
        ended = self.final or self.exits
        own = [e for e in ended.values() if not e.get("stopped")]
        if not own and self.vanished:
            return 1    # every exit a stand-in for the vanished node's: their signals say nothing
        worst = worst_rc(int(e.get("rc", 1)) for e in own or ended.values())
        return max(worst, 1) if self.vanished else worst


# A spot cluster's default torchrun --max-restarts. Each preemption costs every surviving node
# one restart (its workers' collectives fail when the peer goes; the replacement's torchrun
# starts with a full budget), and so does a worker crash. 3 rides out three interruptions in one
# launch, each resumed from the newest checkpoint; past that the capacity itself is the problem
# and a person should look (a new `run` still resumes from the checkpoint). A script that
# crashes on every start -- a bug, not the cloud -- stops after three quick retries instead of
# looping. On-demand stays 0: a failure there is the script's, and restarting hides it.
SPOT_MAX_RESTARTS = 3


def default_max_restarts(target: Target) -> int:
    return SPOT_MAX_RESTARTS if target.spot else 0


def worst_rc(codes) -> int:
    """The exit code of the worst node: 0 only when every node exited 0; a signal (negative
    from Popen) counts as 128 + signal, as a shell reports it."""
    worst = 0
    for rc in codes:
        worst = max(worst, 128 - rc if rc < 0 else rc)
    return worst


def bucket_fs(url: str):
    import fsspec
    try:
        local = url.startswith("file://") or "://" not in url
        return fsspec.core.url_to_fs(url.rstrip("/"), **({"auto_mkdir": True} if local else {}))
    except (ImportError, ValueError) as missing:
        raise SpecError("--bucket-url", f"{url} cannot be opened: {missing}".rstrip("."),
                        "Install the fsspec backend of the bucket (pip install trainstack[buckets]).") \
            from None


def resolve(stack: Optional[str], url: Optional[str]) -> Target:
    """The bucket and nodes of `stack` (its Pulumi outputs) or of `--bucket-url`."""
    from trainstack.measure.status import deployed_bucket, read_records
    cloud = instance_type = provisioned = None
    expected = None
    spot = False
    if not url:
        inputs, outputs, url = deployed_bucket(stack)
        cloud, expected = inputs.cloud, inputs.spec.nodes
        spot = inputs.spec.capacity(inputs.cloud).type == "spot"
        instance_type = outputs.get("instance_type")
        capacity = outputs.get("filesystem_capacity_gib")
        tier = outputs.get("filesystem_throughput_mbps_per_tib")
        provisioned = capacity / 1024 * tier if capacity and tier else None
    records = read_records(url)
    beats = heartbeats(url, [h.node for h in records if h.ok])
    left_out = tuple(f"{node}: {why}" for node, why in
                     stale_nodes(beats, stale_after_s()).items())
    gone = {entry.split(":", 1)[0] for entry in left_out}
    withdrawn = tuple(f"{h.node}: health record withdrawn ({h.record['withdrawn']})"
                      for h in records if not h.ok and h.record.get("withdrawn"))
    left_out += withdrawn
    names = tuple(h.node for h in records if h.ok and h.node not in gone)
    if not names:
        raise SpecError("--stack" if stack else "--bucket-url",
                        f"no node of {url} has reported healthy (status/<node>.json), so no "
                        "node would run the job" + (f" (left out: {'; '.join(left_out)})"
                                                    if left_out else "") + ".",
                        "Wait for `trainstack status` to show the nodes ready, then run again.")
    if expected is not None and len(names) < expected:
        raise SpecError("--stack", f"only {len(names)} of {expected} nodes are healthy; torchrun "
                        "would wait for the rest" + (f" (left out: {'; '.join(left_out)})"
                                                     if left_out else "") + ".",
                        "Check `trainstack status`, then run again.")
    if instance_type is None:
        instance_type = next((h.record.get("instance_type") for h in records
                              if h.record.get("instance_type")), None)
        cloud = next((h.record.get("cloud") for h in records if h.record.get("cloud")), None)
    return Target(url.rstrip("/"), names, cloud, stack, instance_type, provisioned, spot,
                  left_out)


def heartbeats(url: str, nodes) -> dict[str, Optional[dict]]:
    """Each node's last heartbeat/<node>.json (None where its agent never wrote one)."""
    fs, base = bucket_fs(url)
    if hasattr(fs, "invalidate_cache"):
        fs.invalidate_cache()
    out: dict[str, Optional[dict]] = {}
    for node in nodes:
        raw = read_bytes(fs, f"{base}/{HEARTBEAT_PREFIX}/{node}.json")
        try:
            record = json.loads(raw) if raw else None
        except ValueError:
            record = None
        out[node] = record if isinstance(record, dict) else None
    return out


def stale_nodes(beats: dict[str, Optional[dict]], stale_s: float,
                now: Optional[float] = None) -> dict[str, str]:
    """node -> why it is gone, for every heartbeat older than `stale_s` (a node without one --
    an agent older than heartbeats -- is not judged)."""
    now = time.time() if now is None else now
    gone = {}
    for node, beat in beats.items():
        at = beat.get("time") if beat else None
        if isinstance(at, (int, float)) and now - at > stale_s:
            gone[node] = (f"its job agent's last heartbeat was {now - at:.0f} s ago (over "
                          f"{stale_s:g} s): the node is gone or its agent stopped"
                          + ("; it was leaving on a preemption notice"
                             if (beat or {}).get("leaving") else ""))
    return gone


def cancel(target: Target, job_id: str, reason: str) -> None:
    """Tell every node's agent to stop `job_id` (jobs/<id>/cancel.json)."""
    fs, base = bucket_fs(target.url)
    with fs.open(f"{base}/{JOBS_PREFIX}/{job_id}/{CANCEL_FILE}", "w") as handle:
        json.dump({"reason": reason, "time": datetime.now(timezone.utc).isoformat()}, handle)


def new_job_id(kind: str = "run") -> str:
    return f"{datetime.now(timezone.utc).strftime('%Y%m%dT%H%M%SZ')}-{kind}-{secrets.token_hex(3)}"


def submit(target: Target, argv: list[str], *, kind: str = "run", launcher: str = "torchrun",
           max_restarts: int = 0, nproc_per_node: Optional[int] = None,
           env: Optional[dict] = None, files: Optional[dict] = None,
           cwd: Optional[str] = None, rdzv_port: Optional[int] = None,
           run_on: Optional[list[str]] = None, min_nodes: Optional[int] = None,
           last_call_s: Optional[float] = None) -> str:
    """Write the job's request. `min_nodes`: the fewest nodes it may go on with (default all);
    `last_call_s`: how long a rendezvous with fewer than all waits for more (torch's 30 s)."""
    if not argv:
        raise SpecError("CMD", "is empty.", "Give the command after --, e.g. "
                        "`trainstack run -- python train.py`.")
    job_id = new_job_id(kind)
    members = list(run_on or target.nodes)
    if min_nodes is not None and not 1 <= min_nodes <= len(members):
        raise SpecError("--min-nodes", f"{min_nodes} is not between 1 and the job's "
                        f"{len(members)} node(s).", f"Use a number from 1 to {len(members)}, or "
                        "leave it out to need every node.")
    request = {"id": job_id, "argv": list(argv), "launcher": launcher,
               "max_restarts": max_restarts, "nproc_per_node": nproc_per_node,
               "env": env or {}, "files": files or {}, "cwd": cwd, "rdzv_port": rdzv_port,
               "nodes": list(target.nodes), "run_on": run_on,
               "nnodes": len(run_on) if run_on else None, "min_nodes": min_nodes,
               "last_call_s": last_call_s, "stale_s": stale_after_s(),
               "created": datetime.now(timezone.utc).isoformat()}
    fs, base = bucket_fs(target.url)
    if launcher == "torchrun":
        request.update(rendezvous(fs, base, members))
    # Written aside, then moved into place: an agent polling meanwhile must never read half a
    # request (it would fail the job as a bad request).
    final = f"{base}/{JOBS_PREFIX}/{job_id}/request.json"
    with fs.open(f"{final}.partial", "w") as handle:
        json.dump(request, handle, sort_keys=True)
    fs.mv(f"{final}.partial", final)
    return job_id


def rendezvous(fs, base: str, members: list[str]) -> dict:
    """Who hosts the job's c10d store: the first of `members` (resolve() orders them by node
    rank and leaves out the gone ones) whose agent published its address in its heartbeat. So
    when the node that hosted the last job's store was lost, the next job elects another from
    those that remain, and sizes the rendezvous to them (nnodes). Without heartbeats (older
    agents): {} -- the boot's rank 0 hosts, as before."""
    for node in members:
        raw = read_bytes(fs, f"{base}/{HEARTBEAT_PREFIX}/{node}.json")
        try:
            addr = json.loads(raw).get("addr") if raw else None
        except (ValueError, AttributeError):
            addr = None
        if addr:
            return {"rdzv_host": node, "rdzv_addr": addr, "nnodes": len(members)}
    return {}


def read_attempts(fs, base: str, job_id: str, request: dict) -> list[dict]:
    """The job's rendezvous attempts: the request's (0), then jobs/<id>/attempts/<n>.json."""
    attempts = [request_attempt(request)]
    while True:
        raw = read_bytes(fs, f"{base}/{JOBS_PREFIX}/{job_id}/{ATTEMPTS_DIR}/{len(attempts)}.json")
        try:
            record = json.loads(raw) if raw else None
        except ValueError:
            record = None
        if not isinstance(record, dict):
            return attempts
        attempts.append(record)


def format_attempts(result: JobResult) -> str:
    """One line per rendezvous attempt: its host, why it moved, which node held which ranks."""
    lines = []
    for attempt in result.attempts:
        n = attempt.get("attempt", 0)
        line = f"attempt {n}: host {attempt.get('host') or 'boot rank 0'}"
        if attempt.get("endpoint"):
            line += f" at {attempt['endpoint']}"
        if attempt.get("lost"):
            line += f", after {attempt['lost']} lost ({attempt.get('why')})"
        held = result.ranks_by_attempt(n)
        if held:
            line += "; ranks: " + ", ".join(f"{node} {ranks}" for node, ranks in sorted(held.items()))
        lines.append(line)
    return "\n".join(lines)


def read_record(fs, path: str) -> dict:
    """A JSON record of the bucket, {} where it is missing or not (yet) whole: a writer without
    an atomic rename (a shared filesystem) can be read half-way."""
    try:
        record = json.loads(read_bytes(fs, path) or b"{}")
    except ValueError:
        return {}
    return record if isinstance(record, dict) else {}


def read_bytes(fs, path: str) -> Optional[bytes]:
    try:
        with fs.open(path, "rb") as handle:
            return handle.read()
    except (FileNotFoundError, OSError):
        return None


def job_nodes(fs, base: str, job_id: str) -> list[str]:
    """The nodes that started `job_id` (a replacement node shows up here)."""
    try:
        paths = fs.glob(f"{base}/{JOBS_PREFIX}/{job_id}/*/started.json")
    except (FileNotFoundError, OSError):
        return []
    return sorted(str(p).rstrip("/").split("/")[-2] for p in paths)


def wait(target: Target, job_id: str, *, timeout_s: float = 3600, poll_s: float = 1.0,
         echo: Optional[Callable[[str], None]] = None,
         nodes: Optional[list[str]] = None, stale_s: Optional[float] = None) -> JobResult:
    """Every node's exit record, streaming new log lines through `echo` when given.

    A node that exits on a preemption notice (its exit record says "preempted") does not end
    the wait: its replacement -- a node under a new name, or the same name again -- joins the
    job, and the job is over when as many nodes as were asked for have exited otherwise, or
    when one of the first nodes failed and every one of them has exited. A node still owing its
    exit record whose agent's heartbeat is older than `stale_s` (default: stale_after_s()) has
    vanished (killed mid-checkpoint, crashed): the job is failed at once, named in
    `result.vanished`, and cancelled (jobs/<id>/cancel.json) so the others' agents stop it."""
    stale_s = stale_after_s() if stale_s is None else stale_s
    fs, base = bucket_fs(target.url)
    result = JobResult(job_id)
    expected = tuple(nodes or target.nodes)
    waiting = list(expected)
    shown = {node: 0 for node in waiting}
    starts: dict[str, Optional[str]] = {}
    deadline = time.monotonic() + timeout_s
    try:
        request = json.loads(read_bytes(fs, f"{base}/{JOBS_PREFIX}/{job_id}/request.json") or b"{}")
    except ValueError:
        request = {}
    # A lost rendezvous host: its job agents elect another once its heartbeat is stale_s old;
    # past this the job is taken for stuck and cancelled.
    election_s = 2 * stale_s + 30
    lost_at: dict[str, float] = {}
    endpoint0: Optional[str] = None
    while True:
        if hasattr(fs, "invalidate_cache"):
            fs.invalidate_cache()
        result.attempts = read_attempts(fs, base, job_id, request)
        latest = result.attempts[-1]
        if endpoint0:
            result.attempts[0].setdefault("endpoint", endpoint0)
        if nodes is None:
            for node in job_nodes(fs, base, job_id):
                if node not in waiting:
                    waiting.append(node)
                    shown[node] = 0
        for node in waiting:
            if node in result.exits and not result.exits[node].get("preempted"):
                continue
            prefix = f"{base}/{JOBS_PREFIX}/{job_id}/{node}"
            started_record = read_record(fs, f"{prefix}/started.json")
            started = started_record.get("started")
            if started_record.get("rdzv", {}).get("is_host") and not endpoint0:
                endpoint0 = started_record["rdzv"].get("endpoint")
            ranks = read_record(fs, f"{prefix}/{RANKS_FILE}").get("ranks")
            if ranks:
                result.ranks[node] = ranks
            if starts.get(node, started) != started:
                shown[node] = 0            # the same name again: a replacement's fresh log
                result.exits.pop(node, None)
            starts[node] = started
            exit_raw = read_bytes(fs, f"{prefix}/exit.json")
            try:
                record = json.loads(exit_raw) if exit_raw is not None else None
            except ValueError:
                record = exit_raw = None     # still being written: the next poll reads it whole
            if record is not None and started and record.get("started") != started:
                record = exit_raw = None   # the node's earlier (preempted) run's record
            log = read_bytes(fs, f"{prefix}/log.txt")
            if log is not None:
                result.logs[node] = log.decode("utf-8", "replace")
                if echo is not None:
                    fresh = result.logs[node][shown[node]:]
                    if exit_raw is None:     # a line still being written waits for the next poll
                        fresh = fresh[:fresh.rfind("\n") + 1]
                    shown[node] += len(fresh)
                    for line in fresh.splitlines():
                        echo(f"[{node}] {line}")
            if record is not None:
                result.exits[node] = record
        running = [n for n in waiting if n not in result.exits and n not in result.lost]
        gone = stale_nodes(heartbeats(target.url, running), stale_s) if running else {}
        now = time.monotonic()
        for node, why in gone.items():
            # The job goes on without it: the rendezvous already moved on, or the node hosted
            # it and the agents left may re-elect a host (torchrun restarts left).
            moved_on = latest["attempt"] >= 1 and node not in latest.get("nodes", [])
            electable = node == latest.get("host") and request.get("launcher") == "torchrun" \
                and int(latest.get("restarts_left") or 0) > 0
            if moved_on or electable:
                result.lost[node] = why
                lost_at[node] = now
        stuck = {n: f"{result.lost[n]}; no node took over its rendezvous within {election_s:g} s"
                 for n in result.lost if n == latest.get("host") and now - lost_at[n] > election_s}
        vanished = {**{n: why for n, why in gone.items() if n not in result.lost}, **stuck}
        if vanished:
            result.vanished = {n: f"no exit record and {why}" for n, why in vanished.items()}
            cancel(target, job_id, "; ".join(f"{n}: {why}" for n, why in vanished.items()))
            return result
        awaited = [n for n in (latest["nodes"] if latest["attempt"] >= 1 else expected)
                   if n not in result.lost]
        final = result.final
        failed = any(worst_rc([int(e.get("rc", 1))]) for e in final.values())
        if (not running and len(final) >= len(awaited)) or \
                (failed and all(n in result.exits for n in awaited)):
            if failed:   # a lost host nobody replaced: the job failed for want of it
                for node in [n for n in result.lost if n == latest.get("host")]:
                    result.vanished[node] = f"no exit record and {result.lost.pop(node)}"
            return result
        if time.monotonic() > deadline:
            result.timed_out = True
            return result
        time.sleep(poll_s)


def run_command(
    cmd: list[str] = typer.Argument(..., help="The command, after --: e.g. -- python train.py"),
    stack: Optional[str] = typer.Option(None, "--stack", help="A deployed stack's name."),
    url: Optional[str] = typer.Option(None, "--bucket-url", help="Use this fsspec URL as the "
                                      "stack's bucket (s3://, gs://, abfs://, file://)."),
    follow: bool = typer.Option(False, "--follow", "-f", help="Stream every node's log."),
    max_restarts: Optional[int] = typer.Option(None, "--max-restarts", min=0, help="torchrun's "
                                               "elastic restarts after a failure or preemption "
                                               f"(default: {SPOT_MAX_RESTARTS} on spot, else 0)."),
    nproc_per_node: Optional[int] = typer.Option(None, "--nproc-per-node", min=1, help="Processes "
                                                 "per node (default: the node's GPUs)."),
    cwd: Optional[str] = typer.Option(None, "--cwd", help="Working folder on the nodes (e.g. "
                                      "under /lustre)."),
    min_nodes: Optional[int] = typer.Option(None, "--min-nodes", min=1, help="The fewest nodes "
                                            "the job may go on with when one is lost (default: "
                                            "all); its restarts come from --max-restarts."),
    timeout: float = typer.Option(24 * 3600, "--timeout", min=1, help="Seconds to wait."),
    detach: bool = typer.Option(False, "--detach", help="Submit and print the job id only."),
    project: Optional[Path] = ProjectOpt,
):
    """Run CMD on every node of the stack under torchrun; exit code = the worst node's."""
    use_project(project)
    target = resolve(stack, url)
    for entry in target.left_out:
        print(f"left out {entry}", file=sys.stderr, flush=True)
    if max_restarts is None:
        max_restarts = default_max_restarts(target)
    job_id = submit(target, cmd, max_restarts=max_restarts, nproc_per_node=nproc_per_node,
                    cwd=cwd, min_nodes=min_nodes)
    print(f"job {job_id} on {len(target.nodes)} node(s): {', '.join(target.nodes)}", flush=True)
    if detach:
        return
    result = wait(target, job_id, timeout_s=timeout,
                  echo=(lambda line: print(line, flush=True)) if follow else None)
    for node in sorted({*target.nodes, *result.exits}):
        record = result.exits.get(node)
        state = f"exit {record.get('rc')}" if record else (
            f"vanished: {result.vanished[node]}" if node in result.vanished
            else f"lost: {result.lost[node]}; the job went on without it" if node in result.lost
            else "no exit record (still running?)")
        if record and record.get("stopped"):
            state += f" ({record['stopped']})"
        if record and record.get("preempted"):
            state += " (preempted; replaced)" if len(result.final) >= len(target.nodes) \
                else " (preempted; no replacement finished)"
        print(f"{node}: {state}; log: {target.url}/{JOBS_PREFIX}/{job_id}/{node}/log.txt",
              flush=True)
    if len(result.attempts) > 1 or result.ranks:
        print(format_attempts(result), flush=True)
    if result.timed_out:
        print(f"timed out after {timeout:g} s waiting for {len(target.nodes) - len(result.exits)} "
              "node(s)", file=sys.stderr)
    if result.rc:
        raise typer.Exit(result.rc)
