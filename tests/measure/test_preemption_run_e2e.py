"""Issue 23's done-when through issue 22's machinery: `trainstack run --max-restarts 3` hands the
job to real job agents on two local nodes (each with the boot's ranks profile and the checkpoint
helper where the preemption boot step installs it); node-1's preemption agent sees an AWS IMDSv2
spot notice on a loopback metadata server and SIGTERMs the pid the job agent wrote (torchrun's);
every rank saves before the deadline; node-1 goes away and a fresh node-1b's job agent joins the
running job; torchrun's elastic restart resumes from that checkpoint; `run` exits 0 with node-1
marked preempted; losses and parameters equal an uninterrupted run of the same seed.

Nothing in the nodes' environment sets TORCH_DISABLE_SHARE_RDZV_TCP_STORE or PYTHONPATH: the
job agent must (without the first node-1b does not join the restart; without the second the
example cannot import the helper)."""
import json
import os
import subprocess
import sys
from datetime import datetime, timedelta, timezone

import pytest

from tests.checkout import PYTHONPATH as CHECKOUT_PATH
from tests.conftest import ROOT
from tests.preemption_helpers import EXAMPLE, STEPS, MetadataServer
from tests.run_helpers import LAUNCHER, free_port, health_record, wait_for, write_node_root
from trainstack_components.agents import job_agent
from trainstack_components.agents import preemption_agent as pa
from trainstack_components.boot import preemption as boot_step

torch = pytest.importorskip("torch")

# Real torchrun nodes on CPU: one xdist worker runs all of them, one at a time, so two such
# tests never share the 2 cores with each other (their rendezvous and deadlines are timed).
pytestmark = pytest.mark.xdist_group("torchrun")


MARK = """
import os as _os

_os.makedirs(_os.environ["TRAINSTACK_REPORT_DIR"], exist_ok=True)
open(_os.path.join(_os.environ["TRAINSTACK_REPORT_DIR"], "helper-" + __file__.replace("/", "_")),
     "w").close()
"""


class Nodes:
    def __init__(self, tmp):
        self.tmp, self.port = tmp, free_port()
        self.bucket, self.lustre, self.report = tmp / "bucket", tmp / "lustre", tmp / "report"
        self.bucket.mkdir()
        self.procs: dict[str, subprocess.Popen] = {}
        self.roots = {}

    def boot(self, name: str, rank: int) -> None:
        """What the boot leaves on a node: ranks profile, helper, state folders; its agent."""
        root = self.roots[name] = self.tmp / name
        write_node_root(root, rank, 2, self.port)
        helper = root / job_agent.HELPER_DIR.lstrip("/")
        helper.mkdir(parents=True)
        # As shipped, plus a line that says which copy the job imported.
        (helper / "trainstack_resumable.py").write_text(boot_step.HELPER_SOURCE + MARK)
        for folder in (pa.JOBS_DIR, pa.LOCAL_EVENTS_DIR):
            (root / folder).mkdir(parents=True, exist_ok=True)
        # No PYTHONPATH: the agent is standard library only, and the example must find the
        # helper where the boot put it (its fallback, the checkout's copy, is not importable).
        env = {k: v for k, v in os.environ.items() if k not in (
            "TORCH_DISABLE_SHARE_RDZV_TCP_STORE", "TORCHELASTIC_USE_AGENT_STORE", "PYTHONPATH")}
        env.update({"OMP_NUM_THREADS": "1", "GLOO_SOCKET_IFNAME": "lo",
                    "PYTHONWARNINGS": "ignore", "TRAINSTACK_TOTAL_STEPS": str(STEPS),
                    "TRAINSTACK_SEED": "3", "TRAINSTACK_SAVE_EVERY": "1000",
                    "TRAINSTACK_STEP_SECONDS": "0.3", "TRAINSTACK_RUN": "job-1",
                    "TRAINSTACK_CHECKPOINT_DIR": str(self.lustre / "job-1"),
                    "TRAINSTACK_SCRATCH_DIR": str(root / "scratch" / "job-1"),
                    "TRAINSTACK_REPORT_DIR": str(self.report)})
        log = open(self.tmp / f"{name}-agent.log", "wb")
        self.procs[name] = subprocess.Popen(
            [sys.executable, str(ROOT / "components/agents/job_agent.py"), "--bucket",
             str(self.bucket), "--node", name, "--root", str(root), "--launcher", LAUNCHER,
             "--poll", "0.3", "--idle-exit", "400"],
            env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)

    def watch(self, name: str, url: str) -> None:
        agent = self.tmp / "preemption_agent.py"
        agent.write_text(boot_step.AGENT_SOURCE)
        self.procs[f"{name}-preemption"] = subprocess.Popen(
            [sys.executable, "-I", str(agent), "--cloud", "aws", "--node", name,
             "--metadata-url", url, "--root", str(self.roots[name]), "--dest-dir",
             str(self.bucket), "--interval", "0.2"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)

    def go_away(self, name: str) -> None:
        for key in (name, f"{name}-preemption"):
            proc = self.procs.pop(key)
            os.killpg(proc.pid, 9)
            proc.wait()

    def losses(self) -> dict[int, list[float]]:
        path = self.report / "losses-rank0.jsonl"
        seen: dict[int, list[float]] = {}
        for line in path.read_text().splitlines() if path.exists() else []:
            entry = json.loads(line)
            seen.setdefault(entry["step"], []).append(entry["loss"])
        return seen

    def logs(self) -> str:
        return "\n".join(p.read_text(errors="replace")[-2000:]
                         for p in sorted(self.tmp.glob("*.log")))

    def close(self) -> None:
        for proc in self.procs.values():
            if proc.poll() is None:
                os.killpg(proc.pid, 9)
            proc.wait()


def test_trainstack_run_survives_an_aws_spot_notice(tmp_path, uninterrupted):
    straight_losses, straight_finals = uninterrupted
    nodes = Nodes(tmp_path)
    for rank, name in enumerate(("node-0", "node-1")):
        (nodes.bucket / "status").mkdir(exist_ok=True)
        (nodes.bucket / "status" / f"{name}.json").write_text(json.dumps(health_record(name, rank)))
    out = open(tmp_path / "run.log", "w")
    run = None
    try:
        with MetadataServer("aws", vm_name="node-1") as md:
            nodes.boot("node-0", 0)
            nodes.boot("node-1", 1)
            nodes.watch("node-1", md.url)
            env = {**os.environ, "PYTHONPATH": CHECKOUT_PATH}
            run = subprocess.Popen(
                [sys.executable, "-c", "from trainstack.cli.app import app; app()", "run",
                 "--bucket-url", f"file://{nodes.bucket}", "--max-restarts", "3", "--timeout",
                 "400", "--", "python", EXAMPLE], env=env, stdout=out, stderr=subprocess.STDOUT)
            assert wait_for(lambda: max(nodes.losses(), default=0) >= 3, 240), nodes.logs()
            job = next((nodes.bucket / "jobs").iterdir()).name
            pid = json.loads((nodes.roots["node-1"] / pa.JOBS_DIR / f"{job}.json").read_text())["pid"]
            assert b"torch.distributed.run" in open(f"/proc/{pid}/cmdline", "rb").read()

            deadline = (datetime.now(timezone.utc) + timedelta(seconds=45)).replace(microsecond=0)
            md.notice(deadline)
            exit1 = nodes.bucket / "jobs" / job / "node-1" / "exit.json"
            assert wait_for(exit1.exists, 90), nodes.logs()
            record = json.loads(exit1.read_text())
            assert record["preempted"] is True and record["rc"] != 0
            from trainstack_components.training.resumable import is_complete, newest_complete
            saved = newest_complete(nodes.lustre / "job-1")
            assert saved is not None and is_complete(saved), nodes.logs()
            meta = json.loads((saved / "trainstack.json").read_text())
            assert datetime.fromisoformat(meta["time"].replace("Z", "+00:00")) <= deadline
            assert 3 <= meta["step"] < STEPS

            nodes.go_away("node-1")
            nodes.boot("node-1b", 1)          # the group's replacement: a fresh node
            assert run.wait(timeout=400) == 0, (tmp_path / "run.log").read_text() + nodes.logs()
        printed = (tmp_path / "run.log").read_text()
        assert "node-1: exit" in printed and "(preempted; replaced)" in printed
        assert "node-1b: exit 0" in printed and "node-0: exit 0" in printed
        started = json.loads((nodes.bucket / "jobs" / job / "node-1b" / "started.json").read_text())
        assert "--rdzv-conf=is_host=false" in started["argv"]
        notices = [json.loads(p.read_text()) for p in (nodes.bucket / "events/node-1").glob("*")]
        assert [(n["event"], n.get("signalled_jobs")) for n in notices
                if n["event"] != "checkpoint"] == [("preemption-notice", [job])]
        # The save's own record, by global rank 0 (on either node; shipped or not yet). Only
        # the preempted node has the notice: on node-0 the record has no deadline (the
        # manifest's time above is the proof on every node).
        saves = {p.name: json.loads(p.read_text()) for p in [
            *(nodes.bucket / "events").glob("*/*-checkpoint-*.json"),
            *(r for n in nodes.roots.values() for r in (n / pa.LOCAL_EVENTS_DIR).glob(
                "**/*-checkpoint-*.json"))]}
        assert [(e["step"], e.get("before_deadline", e["deadline"] is None))
                for e in saves.values()] == [(meta["step"], True)]
        # Every rank, first run and restart, imported the helper the boot put on its node.
        imported = {p.name for p in nodes.report.glob("helper-*")}
        assert imported == {"helper-" + str(nodes.roots[n] / job_agent.HELPER_DIR.lstrip("/") /
                                            "trainstack_resumable.py").replace("/", "_")
                            for n in ("node-0", "node-1", "node-1b")}
        restarts = [json.loads(p.read_text()) for name in ("node-0", "node-1b")
                    for p in (nodes.roots[name] / pa.LOCAL_EVENTS_DIR).glob("*restart*.json")]
        assert [r["step"] for r in restarts] == [meta["step"]]
        losses = nodes.losses()
        assert {s: len(v) for s, v in losses.items()} == {s: 1 for s in range(1, STEPS + 1)}
        for step in range(1, STEPS + 1):
            assert losses[step][-1] == straight_losses[step][-1], step
        finals = [torch.load(nodes.report / f"final-rank{r}.pt", weights_only=False) for r in (0, 1)]
        for got, want in zip(finals, straight_finals, strict=True):
            for key in want["model"]:
                assert torch.equal(got["model"][key], want["model"][key]), key
            assert torch.equal(got["rng"]["torch"], want["rng"]["torch"])
    finally:
        if run is not None and run.poll() is None:
            run.kill()
            run.wait()
        nodes.close()
