"""`trainstack bench [--stack S]`: measure a running stack the way the seed article asks (§3.2,
§4.2): fabric, storage, your training on one node and on all, readiness. Every part runs as a
`trainstack run` job through the nodes' job agents; the result is one JSON document, written to
the bucket (`bench/<id>.json`) and locally (`--out-dir`, default bench-results/<name>.json),
which `trainstack compare --measured` reads.

  fabric     all-reduce bus bandwidth across all nodes at large messages, and the network NCCL
             chose (NCCL_DEBUG=INFO), judged against the cited floor of the instance type
             (components/catalog/fabric_floors.csv);
  storage    per node: checkpoint write + read-back time on /lustre and /scratch, and the read
             throughput from /lustre against the provisioned figure;
  training   the built-in small transformer (or --train-cmd, which may write the same train.json
             to $TRAINSTACK_JOB_OUT) for N steps on one node and on all nodes: tokens/s, peak
             memory, OOM, data-wait fraction; scaling efficiency = tok/s(N) / (N x tok/s(1));
  readiness  every node healthy, boot-to-healthy seconds and image pull seconds (health records).
"""
from __future__ import annotations

import json
import shlex
from dataclasses import dataclass, field
from datetime import datetime, timezone
from importlib import resources
from pathlib import Path
from typing import Any, Callable, Optional

import typer

from trainstack.measure import bench_parse
from trainstack.measure.run import (Target, bucket_fs, read_bytes, read_record, resolve,
                                    submit, wait)
from trainstack.plan.select import ProjectOpt, use_project
from trainstack_components.agents.job_agent import JOBS_PREFIX

BENCH_PREFIX = "bench"
MODEL_SIZES = {   # bench_worker.py train arguments
    "tiny": ["--hidden", "64", "--heads", "4", "--layers", "2", "--seq", "64", "--batch", "4",
             "--vocab", "1000"],
    "small": [],  # the worker's defaults: 4 layers, hidden 512, seq 512, batch 8 per GPU
}


@dataclass
class BenchOptions:
    steps: int = 50
    model: str = "small"
    train_cmd: Optional[str] = None
    allreduce_mib: list[float] = field(default_factory=lambda: [64.0, 1024.0])
    checkpoint_mib: float = 1024.0
    lustre: str = "/lustre"
    scratch: str = "/scratch"
    provisioned_mbps: Optional[float] = None
    nproc_per_node: Optional[int] = None
    timeout_s: float = 3600.0
    parts: tuple[str, ...] = ("fabric", "storage", "training")
    nccl_tests: Optional[str] = None   # e.g. "all_reduce_perf -b 1G -e 8G -f 2 -g 8" (one node)
    scaling_retries: int = 1           # runs again when the efficiency comes out above 1 + tol.


def _worker_files() -> dict[str, str]:
    """The worker and the node helper it ends its runs with (leave_together), as the job's
    files: the image has torch, not trainstack."""
    return {"bench_worker.py": resources.files("trainstack.measure").joinpath("bench_worker.py")
            .read_text("utf-8"),
            "trainstack_resumable.py": resources.files("trainstack_components.training")
            .joinpath("resumable.py").read_text("utf-8")}


def _out(target: Target, job_id: str, node: str, name: str) -> Optional[dict]:
    fs, base = bucket_fs(target.url)
    raw = read_bytes(fs, f"{base}/{JOBS_PREFIX}/{job_id}/{node}/out/{name}")
    return json.loads(raw) if raw else None


def _job(target: Target, argv: list[str], kind: str, opts: BenchOptions, echo, **kwargs) -> dict:
    job_id = submit(target, argv, kind=kind, files=_worker_files(),
                    nproc_per_node=opts.nproc_per_node, **kwargs)
    echo(f"{kind}: job {job_id}")
    result = wait(target, job_id, timeout_s=opts.timeout_s, nodes=kwargs.get("run_on"))
    return {"job_id": job_id, "rc": result.rc, "result": result}


def readiness(target: Target) -> dict:
    from trainstack.measure.status import read_records
    records = read_records(target.url)
    uptimes = [u for r in records if isinstance(u := r.record.get("uptime_s"), int)]
    pulls = [p for r in records
             if isinstance(p := (r.record.get("runtime") or {}).get("pull_seconds"), (int, float))]
    return {"nodes_reported": len(records), "nodes_healthy": sum(r.ok for r in records),
            "all_healthy": bool(records) and all(r.ok for r in records),
            "boot_to_healthy_s_max": max(uptimes) if uptimes else None,
            "image_pull_s_max": max(pulls) if pulls else None,
            "images": sorted({(r.record.get("runtime") or {}).get("image_digest") or "?"
                              for r in records})}


def fabric(target: Target, opts: BenchOptions, echo) -> dict:
    argv = ["python", "bench_worker.py", "allreduce", "--sizes-mib",
            *[f"{m:g}" for m in opts.allreduce_mib]]
    job = _job(target, argv, "bench-fabric", opts, echo,
               env={"NCCL_DEBUG": "INFO", "NCCL_DEBUG_SUBSYS": "INIT,NET"})
    result = job["result"]
    logs = "\n".join(result.logs.values())
    record = next((r for r in (_out(target, job["job_id"], n, "allreduce.json")
                               for n in target.nodes) if r), None)
    out = {"job_id": job["job_id"], "rc": job["rc"], "nodes": len(target.nodes),
           "network": bench_parse.nccl_network(logs),
           # per node: one node falling back to sockets drags the whole ring down
           "networks": {n: bench_parse.nccl_network(log) for n, log in result.logs.items()}, "nccl_version":
           bench_parse.nccl_version(logs), "busbw_gbps": None, "sizes": None, "device": None}
    if record:
        rows = [bench_parse.AllReduceRow(s["bytes"], s["busbw_gbps"]) for s in record["sizes"]]
        out.update(busbw_gbps=bench_parse.large_message_busbw(rows), sizes=record["sizes"],
                   device=record["device"], backend=record["backend"], ranks=record["ranks"])
    # Driver and CUDA per node from each node's nvidia-smi (none on CPU stand-ins).
    drivers = {}
    for node in target.nodes:
        fs, base = bucket_fs(target.url)
        raw = read_bytes(fs, f"{base}/{JOBS_PREFIX}/{job['job_id']}/{node}/out/nvidia-smi-{node}.txt")
        if raw:
            drivers[node] = bench_parse.nvidia_smi_versions(raw.decode("utf-8", "replace"))
    out["drivers"] = drivers
    out["judge"] = bench_parse.judge_fabric(target.instance_type, len(target.nodes),
                                            out["busbw_gbps"], out["network"],
                                            out["device"] or "cpu")
    return out


def nccl_tests(target: Target, opts: BenchOptions, echo) -> dict:
    """nccl-tests on each node by itself (the image's `all_reduce_perf`, all its GPUs): the
    one-node figure health checks publish floors for, so a slow node is named, not averaged."""
    job = _job(target, shlex.split(opts.nccl_tests), "bench-nccl-tests", opts, echo,
               launcher="none", env={"NCCL_DEBUG": "INFO", "NCCL_DEBUG_SUBSYS": "INIT,NET"})
    per_node = {}
    for node, log in job["result"].logs.items():
        busbw = bench_parse.large_message_busbw(bench_parse.parse_nccl_tests(log))
        per_node[node] = {"busbw_gbps": busbw, "network": bench_parse.nccl_network(log),
                          "judge": bench_parse.judge_fabric(target.instance_type, 1, busbw, None)}
    return {"job_id": job["job_id"], "rc": job["rc"], "command": opts.nccl_tests,
            "per_node": per_node}


def storage(target: Target, opts: BenchOptions, echo) -> dict:
    argv = ["python3", "bench_worker.py", "storage", "--paths", opts.lustre, opts.scratch,
            "--checkpoint-mib", f"{opts.checkpoint_mib:g}"]
    job = _job(target, argv, "bench-storage", opts, echo, launcher="none")
    per_node = {n: _out(target, job["job_id"], n, f"storage-{n}.json") for n in target.nodes}
    lustre_reads = [r["paths"][opts.lustre].get("read_mbps") for r in per_node.values()
                    if r and opts.lustre in r["paths"]]
    lustre_reads = [x for x in lustre_reads if x is not None]
    lowest = min(lustre_reads) if lustre_reads else None
    return {"job_id": job["job_id"], "rc": job["rc"], "checkpoint_mib": opts.checkpoint_mib,
            "per_node": per_node, "lustre_read_mbps_min": lowest,
            # Every node reads at once in training; the provisioned figure is the filesystem's
            # total, so one node's share of it is what each node can expect.
            "provisioned_mbps": opts.provisioned_mbps,
            "lustre_read_vs_provisioned": (lowest * len(target.nodes) / opts.provisioned_mbps
                                           if lowest and opts.provisioned_mbps else None)}


def _train_argv(opts: BenchOptions) -> list[str]:
    if opts.train_cmd:
        return shlex.split(opts.train_cmd)
    return ["python", "bench_worker.py", "train", "--steps", str(opts.steps),
            *MODEL_SIZES[opts.model]]


def _training_runs(target: Target, opts: BenchOptions, echo) -> dict:
    runs: dict[str, Any] = {}
    for label, nodes in (("one_node", [target.nodes[0]]), ("all_nodes", list(target.nodes))):
        if label == "all_nodes" and len(target.nodes) == 1:
            runs[label] = runs["one_node"]
            continue
        job = _job(target, _train_argv(opts), f"bench-train-{len(nodes)}n", opts, echo,
                   run_on=nodes)
        record = next((r for r in (_out(target, job["job_id"], n, "train.json") for n in nodes)
                       if r), None)
        seconds = max((e.get("seconds") or 0) for e in job["result"].exits.values()) \
            if job["result"].exits else None
        runs[label] = {"job_id": job["job_id"], "rc": job["rc"], "nodes": len(nodes),
                       "wall_s": seconds,
                       "oom": bench_parse.out_of_memory("\n".join(job["result"].logs.values())),
                       **(record or {})}
    return runs


def training(target: Target, opts: BenchOptions, echo) -> dict:
    """One-node and all-node runs; scaling efficiency = tok/s(N) / (N x tok/s(1)). Above
    1 + SCALING_TOLERANCE (impossible for N nodes) the pair runs again (`scaling_retries`);
    if it stays there the figure is refused: `scaling_efficiency` None, the value kept in
    `scaling_efficiency_refused`, so `compare --measured` never uses it."""
    from trainstack.cost.measured import SCALING_TOLERANCE, superlinear
    n = len(target.nodes)
    attempts = []
    for _ in range(1 + max(0, opts.scaling_retries)):
        runs = _training_runs(target, opts, echo)
        one, every = runs["one_node"].get("tokens_per_s"), runs["all_nodes"].get("tokens_per_s")
        efficiency = every / (n * one) if one and every else None
        attempts.append(efficiency)
        if n == 1 or not superlinear(efficiency):
            break
        echo(f"scaling efficiency {efficiency:.2f} is above 1 + {SCALING_TOLERANCE:g}: "
             "running the training part again")
    out = {**runs, "command": opts.train_cmd or f"built-in transformer ({opts.model})",
           "scaling_efficiency": efficiency, "scaling_attempts": attempts}
    if n > 1 and superlinear(efficiency):
        out.update(scaling_efficiency=None, scaling_efficiency_refused=efficiency,
                   scaling_note=f"above 1 + {SCALING_TOLERANCE:g} in every attempt "
                                f"({', '.join(f'{a:.2f}' for a in attempts if a)}): refused")
    return out


def bench(target: Target, opts: BenchOptions,
          echo: Callable[[str], None] = lambda line: None) -> dict:
    result = {"version": 1, "time": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
              "bucket_url": target.url, "stack": target.stack, "cloud": target.cloud,
              "instance_type": target.instance_type, "nodes": len(target.nodes),
              "node_names": list(target.nodes), "readiness": readiness(target)}
    for part, fn in (("fabric", fabric), ("storage", storage), ("training", training)):
        result[part] = fn(target, opts, echo) if part in opts.parts else None
    result["nccl_tests"] = nccl_tests(target, opts, echo) if opts.nccl_tests else None
    return result


def save(target: Target, result: dict, out_dir: Path, name: Optional[str] = None) -> Path:
    stamp = result["time"].replace(":", "").replace("-", "")
    text = json.dumps(result, indent=2, sort_keys=True)
    fs, base = bucket_fs(target.url)
    with fs.open(f"{base}/{BENCH_PREFIX}/{stamp}.json", "w") as handle:
        handle.write(text)
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"{name or target.stack or target.cloud or 'local'}.json"
    path.write_text(text + "\n")
    return path


def summary_lines(result: dict) -> list[str]:
    lines = []
    r = result["readiness"]
    lines.append(f"readiness: {r['nodes_healthy']}/{r['nodes_reported']} healthy; boot to "
                 f"healthy {r['boot_to_healthy_s_max'] if r['boot_to_healthy_s_max'] is not None else '-'} s;"
                 f" image pull {r['image_pull_s_max'] if r['image_pull_s_max'] is not None else '-'} s")
    f = result.get("fabric")
    if f:
        j = f["judge"]
        busbw = f"{f['busbw_gbps']:.2f} GB/s" if f["busbw_gbps"] is not None else "-"
        verdict = ("BELOW FLOOR" if j["below_floor"] else "") + (" WRONG NETWORK"
                                                                 if j["wrong_network"] else "")
        judged = verdict.strip() or ("ok" if j["ok"] else j["note"] or "-")
        ceiling = j.get("ceiling_gbps")
        lines.append(f"fabric: all-reduce busbw {busbw} over {f['nodes']} node(s), network "
                     f"{f['network'] or '-'}; floor {j['floor_gbps'] or '-'} GB/s"
                     + (f" (of a {ceiling:g} GB/s network ceiling)" if ceiling else "")
                     + f", expected {j['expected_net'] or '-'}: {judged}")
    s = result.get("storage")
    if s:
        lines.append(f"storage: {s['checkpoint_mib']:g} MiB checkpoint; slowest /lustre read "
                     f"{s['lustre_read_mbps_min'] or 0:,.0f} MB/s per node"
                     + (f" ({s['lustre_read_vs_provisioned']:.0%} of provisioned "
                        f"{s['provisioned_mbps']:,.0f} MB/s)" if s["lustre_read_vs_provisioned"]
                        else ""))
    n = result.get("nccl_tests")
    for node, entry in sorted((n or {}).get("per_node", {}).items()):
        busbw = entry["busbw_gbps"]
        lines.append(f"nccl-tests {node}: busbw {busbw if busbw is not None else '-'} GB/s, floor "
                     f"{entry['judge']['floor_gbps'] or '-'} GB/s"
                     + (": BELOW FLOOR" if entry["judge"]["below_floor"] else ""))
    t = result.get("training")
    if t:
        for label in ("one_node", "all_nodes"):
            run = t[label]
            tps = run.get("tokens_per_s")
            lines.append(f"training {label.replace('_', ' ')} ({run['nodes']} node(s)): "
                         + (f"{tps:,.0f} tokens/s" if tps and tps >= 100 else
                            f"{tps:.3g} tokens/s" if tps else f"exit {run['rc']}, no tokens/s")
                         + (f", peak memory {run['peak_memory_bytes'] / 2**30:.2f} GiB"
                            if run.get("peak_memory_bytes") else "")
                         + (", OOM" if run.get("oom") else "")
                         + (f", data wait {run['data_wait_fraction']:.1%}"
                            if run.get("data_wait_fraction") is not None else ""))
        if t["scaling_efficiency"] is not None:
            lines.append(f"scaling efficiency: {t['scaling_efficiency']:.2f} "
                         f"(tokens/s on {result['nodes']} nodes / ({result['nodes']} x one node))")
        elif t.get("scaling_efficiency_refused") is not None:
            lines.append(f"scaling efficiency: REFUSED {t['scaling_efficiency_refused']:.2f}, "
                         f"{t['scaling_note']}; not used by compare --measured (noise or a "
                         "slowed one-node run: bench again on a quiet cluster)")
    return lines


def bench_command(
    command: Optional[list[str]] = typer.Argument(None, help="With --resume-check: the training "
                                                  "command, after `--`."),
    stack: Optional[str] = typer.Option(None, "--stack", help="A deployed stack's name."),
    url: Optional[str] = typer.Option(None, "--bucket-url", help="Use this fsspec URL as the "
                                      "stack's bucket (s3://, gs://, abfs://, file://)."),
    steps: int = typer.Option(50, "--steps", min=1, help="Training steps per run."),
    model: str = typer.Option("small", "--model", help="Built-in model: small | tiny."),
    train_cmd: Optional[str] = typer.Option(None, "--train-cmd", help="Your training command "
                                            "instead of the built-in model."),
    checkpoint_mib: float = typer.Option(1024.0, "--checkpoint-mib", min=1, help="Size of the "
                                         "checkpoint the storage part writes and reads (MiB)."),
    allreduce_mib: list[float] = typer.Option([64.0, 1024.0], "--allreduce-mib",
                                              help="All-reduce message sizes (MiB)."),
    lustre: str = typer.Option("/lustre", "--lustre", help="The shared filesystem's mount."),
    scratch: str = typer.Option("/scratch", "--scratch", help="The local NVMe mount."),
    provisioned_mbps: Optional[float] = typer.Option(None, "--provisioned-mbps", help="The "
                                                     "filesystem's provisioned MB/s."),
    nproc_per_node: Optional[int] = typer.Option(None, "--nproc-per-node", min=1),
    out_dir: Path = typer.Option(Path("bench-results"), "--out-dir", help="Local folder for the "
                                 "results file (the bucket keeps a copy under bench/)."),
    name: Optional[str] = typer.Option(None, "--name", help="The local file's name (default: "
                                       "the stack, else the cloud)."),
    only: Optional[list[str]] = typer.Option(None, "--only", help="fabric | storage | training"),
    timeout: float = typer.Option(3600, "--timeout", min=1, help="Seconds per part."),
    nccl_tests_cmd: Optional[str] = typer.Option(None, "--nccl-tests", help="nccl-tests on each "
                                                 "node alone, e.g. 'all_reduce_perf -b 1G -e 8G "
                                                 "-f 2 -g 8' (in the image)."),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
    resume_check: bool = typer.Option(False, "--resume-check", help="Instead: prove the "
                                      "command after `--` resumes exactly, on this machine "
                                      "(--steps straight vs half, a stop and a resume)."),
    tolerance: float = typer.Option(0.0, "--tolerance", help="With --resume-check: relative "
                                    "tolerance (0: exact, right on CPU; e.g. 1e-5 on GPU)."),
    ranks: int = typer.Option(2, "--ranks", min=1, help="With --resume-check: processes "
                              "(with torchrun's variables), 2+ to run code under world_size > 1."),
    scaling_retries: int = typer.Option(1, "--scaling-retries", min=0, help="Runs of the "
                                        "training part again when its scaling efficiency comes "
                                        "out above 1 (then refused)."),
    project: Optional[Path] = ProjectOpt,
):
    """Measure the stack: fabric, storage, training on one and all nodes, readiness."""
    use_project(project)
    from trainstack_components.errors import SpecError
    if resume_check:
        if stack or url:
            raise SpecError("--resume-check", "runs on this machine, not on a stack's nodes, so "
                            "--stack and --bucket-url have nothing to do.",
                            "Drop them (or use `trainstack run` to run the check on a node).")
        from trainstack.measure.resume_check import resume_check_command
        raise typer.Exit(resume_check_command(list(command or []), steps, tolerance, timeout,
                                              as_json, ranks))
    if command:
        raise SpecError("CMD", f"a command after `--` ({' '.join(command)}) is for "
                        "--resume-check.", "Add --resume-check, or give the training part "
                        "your command with --train-cmd '...'.")
    if model not in MODEL_SIZES:
        raise SpecError("--model", f"{model!r} is not a built-in model.",
                        f"Use one of: {', '.join(MODEL_SIZES)}.")
    parts = tuple(only) if only else BenchOptions.parts
    bad = [p for p in parts if p not in BenchOptions.parts]
    if bad:
        raise SpecError("--only", f"{', '.join(bad)} is not a bench part.",
                        "Use fabric, storage or training.")
    target = resolve(stack, url)
    opts = BenchOptions(steps=steps, model=model, train_cmd=train_cmd, allreduce_mib=allreduce_mib,
                        checkpoint_mib=checkpoint_mib, lustre=lustre, scratch=scratch,
                        provisioned_mbps=provisioned_mbps or target.provisioned_mbps,
                        nproc_per_node=nproc_per_node, timeout_s=timeout, parts=parts,
                        nccl_tests=nccl_tests_cmd, scaling_retries=scaling_retries)
    result = bench(target, opts, echo=lambda line: print(line, flush=True))
    path = save(target, result, out_dir, name)
    if as_json:
        print(json.dumps(result, indent=2, sort_keys=True))
    else:
        for line in summary_lines(result):
            print(line)
        print(f"results: {path} and {target.url}/{BENCH_PREFIX}/")
    failed = {p: result[p]["job_id"] for p in ("fabric", "storage")
              if result.get(p) and result[p]["rc"]}
    failed.update({f"training {k}": result["training"][k]["job_id"]
                   for k in ("one_node", "all_nodes")
                   if result.get("training") and result["training"][k]["rc"]})
    if failed:
        for part, job_id in failed.items():
            for line in failed_job_lines(target, part, job_id):
                print(line)
        print(f"failed: {', '.join(failed)} (the whole logs: {target.url}/{JOBS_PREFIX}/<job>/)")
        raise typer.Exit(1)


def failed_job_lines(target: Target, part: str, job_id: str, tail: int = 25) -> list[str]:
    """Why a part failed, without a trip to the bucket: each node whose run did not exit 0, its
    exit code and the last `tail` lines of its log (a rank's traceback or torchrun's summary)."""
    fs, base = bucket_fs(target.url)
    lines = []
    for node in target.nodes:
        prefix = f"{base}/{JOBS_PREFIX}/{job_id}/{node}"
        record = read_record(fs, f"{prefix}/exit.json")
        rc = record.get("rc")
        if rc == 0:
            continue
        # the agent's own reason when it stopped the run (another node failed, a lost host)
        why = f" ({record['stopped']})" if record.get("stopped") else ""
        log = (read_bytes(fs, f"{prefix}/log.txt") or b"").decode("utf-8", "replace")
        lines.append(f"--- {part}, job {job_id}, node {node}: "
                     + (f"exit {rc}{why}" if rc is not None else "no exit record")
                     + "; the last lines of its log:")
        lines += [f"    {line}" for line in log.splitlines()[-tail:]] or ["    (no log)"]
    return lines
