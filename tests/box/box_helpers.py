"""Shared by the box tests: boot, then `trainstack run` and `bench` through the boxes' agents."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys

from tests.checkout import PYTHONPATH
from tests.run_helpers import TRAIN_PY


def trainstack(*args, timeout=300):
    return subprocess.run([sys.executable, "-m", "trainstack", *map(str, args)],
                          capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, "PYTHONPATH": PYTHONPATH, "OMP_NUM_THREADS": "1"})


def one_box_failures(case, tmp_path, timeout: float = 400) -> list[str]:
    """Boot one box of `case` (its user data as given, planted or not); the failed steps."""
    from tools.nodebox.box import Cluster
    cluster = Cluster(case, tmp_path, nodes=1)
    try:
        cluster.boot(timeout=timeout)
        return cluster.failures()
    finally:
        cluster.close()


def refused_run_logs(cluster, url: str) -> str:
    """`trainstack run` on booted boxes whose container path was planted broken: it must fail;
    the jobs' logs in the bucket, which say why."""
    refused = trainstack("run", "--bucket-url", url, "--cwd", "/lustre", "--timeout", "120",
                         "--nproc-per-node", "1", "--", "python", "train.py")
    assert refused.returncode != 0, refused.stdout + refused.stderr
    return "".join(p.read_text() for p in cluster.world.bucket.glob("jobs/*/*/log.txt"))


def planted(text: str, old: str, new: str) -> str:
    assert old in text, f"the rendered user data no longer has {old!r}: update the plant"
    return text.replace(old, new)


_RUNCMD_ENTRY = re.compile(r"^- - (/\S+/run-step)\n  - (\S+)\n", re.M)


def only_steps(text: str, steps: list[str]) -> str:
    """The user data with its runcmd planted down to `steps` (each still in the plan's order,
    its script and the files before it untouched): a failure test boots what comes before the
    step that must fail and that step, not the rest of the node's boot, whose outcome it does not
    assert. (A failed step does not stop the boot, and the health record then says not ok: the
    tests of the runtime step's ECR login and of the system identity boot every step.)"""
    head, sep, runcmd = text.rpartition("\nruncmd:\n")
    entries = _RUNCMD_ENTRY.findall(runcmd)
    assert sep and _RUNCMD_ENTRY.sub("", runcmd).strip() == "" and entries, \
        "the runcmd is no longer a list of run-step entries at the end: update the plant"
    names = [name for _, name in entries]
    missing = [s for s in steps if s not in names]
    assert not missing, f"no boot step {missing} in the runcmd {names}: update the plant"
    kept = [e for e in entries if e[1] in steps]
    assert len(kept) < len(entries), "nothing left out: use the user data as it is"
    return head + sep + "".join(f"- - {runner}\n  - {name}\n" for runner, name in kept)


def through_step(text: str, step: str) -> str:
    """only_steps: every step up to and including `step`."""
    names = [name for _, name in _RUNCMD_ENTRY.findall(text.rpartition("\nruncmd:\n")[2])]
    assert step in names, f"no boot step {step!r} in the runcmd {names}: update the plant"
    return only_steps(text, names[:names.index(step) + 1])


def run_and_bench(cluster, case, tmp_path, training: bool = True) -> str:
    """The boxes (two, or a cloud's second shape's lone box) booted with every step passing;
    `trainstack run` (an all-reduce over the boxes) and `trainstack bench` through the container
    path. Returns the bucket URL.
    `training=False` (a cloud's second shape) benches the fabric and storage parts, which differ
    by shape, and leaves out the training part (one node, then all nodes): the same image, the
    same `docker run` of the job agent, the same ranks as the first shape's, which trains."""
    failures = cluster.failures()
    assert failures == [], failures   # each names the box, the step and its log's tail
    digest = case.runtime_image.split("@")[1]
    for box in cluster.boxes:
        record = box.health()
        assert record["ok"] is True and set(record["steps"].values()) == {0}
        assert record["runtime"]["image_digest"].endswith(digest)
        assert (cluster.world.bucket / f"status/{box.node.name}.json").exists()
    url = f"file://{cluster.world.bucket}"
    cluster.agents_on(url)
    (cluster.world.fs / "cluster" / "train.py").write_text(TRAIN_PY)
    ran = trainstack("run", "--bucket-url", url, "--cwd", "/lustre", "--timeout", "240",
                     "--nproc-per-node", "1", "--", "python", "train.py")
    assert ran.returncode == 0, ran.stdout[-3000:] + ran.stderr[-2000:] + cluster.agent_logs()
    job = next(line.split()[1] for line in ran.stdout.splitlines() if line.startswith("job "))
    sums = set()
    for box in cluster.boxes:
        exit_record = json.loads((cluster.world.bucket / f"jobs/{job}/{box.node.name}/exit.json")
                                 .read_text())
        assert exit_record["rc"] == 0
        # the container path: docker run of the pulled digest, not the host fallback
        assert exit_record["argv"][:2] == ["docker", "run"]
        assert any(a.endswith(digest) for a in exit_record["argv"])
        for out in (cluster.world.bucket / f"jobs/{job}/{box.node.name}/out").glob("*.json"):
            sums.add(json.loads(out.read_text())["sum"])
    # ranks 0 + 1, all-reduced across the two boxes (a lone box: rank 0 alone)
    assert sums == ({1.0} if len(cluster.boxes) == 2 else {0.0})
    # One process per box, as `run` above: the boxes' stand-in GPUs are the 2 shared CPU cores,
    # and 8 ranks per box (the node's GPU count) over-subscribed them 8-fold in CI.
    benched = trainstack("bench", "--bucket-url", url, "--model", "tiny", "--steps", "2",
                         "--nproc-per-node", "1",
                         "--allreduce-mib", "1", "--checkpoint-mib", "1", "--lustre", "/lustre",
                         "--scratch", "/scratch", "--provisioned-mbps", "1000",
                         "--out-dir", tmp_path / "bench", "--timeout", "300",
                         *([] if training else ["--only", "fabric", "--only", "storage"]),
                         timeout=400)
    assert benched.returncode == 0, benched.stdout[-3000:] + benched.stderr[-2000:] \
        + cluster.agent_logs()
    result = json.loads((tmp_path / "bench" / f"{case.cloud}.json").read_text())
    if training:
        assert result["training"]["all_nodes"]["nodes"] == len(cluster.boxes)
    else:
        assert result["training"] is None
    # the fabric part's all-reduce ran on both boxes, through the container
    assert result["fabric"]["rc"] == 0 and result["fabric"]["nodes"] == len(cluster.boxes)
    assert result["fabric"]["ranks"] == len(cluster.boxes)
    assert result["storage"]["rc"] == 0 and len(result["storage"]["per_node"]) == len(cluster.boxes)
    assert result["readiness"]["all_healthy"] is True
    return url
