"""`trainstack status`: the health record each node wrote at boot (status/<node>.json in the
cluster's bucket, see components/boot), read through fsspec (s3fs, gcsfs, adlfs; file:// works
too)."""
from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional

import typer
from rich.table import Table

from trainstack.plan.select import ProjectOpt, use_project
from trainstack_components.errors import SpecError

STATUS_PREFIX = "status"
# How long one read of the bucket may take. The cloud SDKs retry an unreachable endpoint for
# minutes (azure-core and google-auth back off up to about three); status, run and bench name
# the bucket and stop instead.
STORE_DEADLINE_S = 60.0
BUCKET_SCHEMES = {"aws": ("s3", "s3fs"), "gcp": ("gs", "gcsfs"), "azure": ("abfs", "adlfs"),
                  "alicloud": ("oss", "ossfs")}  # ossfs (PyPI): fsspec for Alibaba OSS


@dataclass(frozen=True)
class NodeHealth:
    node: str
    record: dict

    @property
    def ok(self) -> bool:
        return self.record.get("ok") is True

    @property
    def failed_steps(self) -> list[str]:
        return sorted(k for k, rc in (self.record.get("steps") or {}).items() if rc != 0)


def stack_bucket_url(cloud: str, outputs: dict) -> str:
    """The bucket URL of a deployed stack: its own `bucket_url` output where it has one (Azure:
    abfs://<container>@<account>.dfs.core.windows.net, since a container name alone is not
    unique), else the cloud's scheme and `bucket_name`."""
    if cloud == "azure" and outputs.get("bucket_url"):
        return str(outputs["bucket_url"])
    return bucket_url(cloud, outputs["bucket_name"])


def deployed_bucket(stack: Optional[str]):
    """(inputs, outputs, bucket URL) of the deployed `stack`: what `status` and `run` read when
    no --bucket-url is given, which makes --stack required."""
    if not stack:
        raise SpecError("--stack", "is required (or --bucket-url).",
                        "Pass --stack NAME of a deployed stack.")
    from trainstack.deploy.connect import deployed
    inputs, outputs = deployed(stack)
    return inputs, outputs, stack_bucket_url(inputs.cloud, outputs)


def bucket_url(cloud: str, bucket: str) -> str:
    if cloud not in BUCKET_SCHEMES:
        raise SpecError("cloud", f"trainstack status cannot read {cloud!r} buckets yet.",
                        "Pass --bucket-url with an fsspec URL to the bucket.")
    return f"{BUCKET_SCHEMES[cloud][0]}://{bucket}"


class StoreDeadline(SpecError):
    """A bucket read that did not answer within STORE_DEADLINE_S."""


def within_deadline(what: str, fn: Callable[..., Any], *args: Any) -> Any:
    """fn(*args) in a daemon thread, at most STORE_DEADLINE_S seconds: a hung read is left
    behind (the process is about to say so and exit) rather than waited out."""
    box: dict = {}
    done = threading.Event()

    def work() -> None:
        try:
            box["value"] = fn(*args)
        except BaseException as failed:  # noqa: BLE001  (handed to the caller)
            box["error"] = failed
        finally:
            done.set()
    threading.Thread(target=work, name=what, daemon=True).start()
    if not done.wait(STORE_DEADLINE_S):
        raise StoreDeadline("--bucket-url", f"{what} did not answer within "
                            f"{STORE_DEADLINE_S:g} s.",
                            "Check the network path to the bucket and the cloud credentials "
                            "(the SDK retries an unreachable endpoint for minutes).")
    if "error" in box:
        raise box["error"]
    return box.get("value")


def read_records(url: str) -> list[NodeHealth]:
    """Every status/*.json under the bucket URL, sorted by node rank then name; at most
    STORE_DEADLINE_S seconds."""
    return within_deadline(f"the status records under {url.rstrip('/')}/{STATUS_PREFIX}/",
                           _read_records, url)


def _read_records(url: str) -> list[NodeHealth]:
    import fsspec
    try:
        fs, root = fsspec.core.url_to_fs(url.rstrip("/") + "/" + STATUS_PREFIX)
    except (ImportError, ValueError) as missing:
        package = next((pkg for scheme, pkg in BUCKET_SCHEMES.values()
                        if url.startswith(f"{scheme}://")), "the fsspec backend for this URL")
        raise SpecError("--bucket-url", f"{url} cannot be read: {missing}".rstrip("."),
                        f"Install {package} (pip install {package}).") from None
    if url.startswith("file://") or "://" not in url:
        # A local copy of a bucket: a folder that is not there is a typo, not "no records yet".
        base = Path(fsspec.core.strip_protocol(url))
        if not base.is_dir():
            raise SpecError("--bucket-url", f"{url}: the folder {base} does not exist.",
                            "Check the path (a local stand-in bucket is the folder the nodes "
                            "were started with).")
    try:
        paths = sorted(fs.glob(f"{root}/*.json"))
    except Exception as failed:  # noqa: BLE001  (each backend raises its own: botocore, google-auth)
        raise SpecError("--bucket-url", f"{url} cannot be listed ({type(failed).__name__}: "
                        f"{failed}).", "Check the cloud credentials and the bucket name.") from None
    records = []
    for path in paths:
        name = path.rsplit("/", 1)[-1][:-len(".json")]
        try:
            with fs.open(path, "r") as handle:
                record = json.load(handle)
        except (OSError, ValueError) as bad:
            record = {"ok": False, "error": f"unreadable record: {bad}"}
        records.append(NodeHealth(name, record if isinstance(record, dict) else
                                  {"ok": False, "error": "not a JSON object"}))
    return sorted(records, key=lambda h: (_int(h.record.get("node_rank"), 10**6), h.node))


def _int(value, default: int) -> int:
    return value if isinstance(value, int) and value >= 0 else default


def _pair(record: dict, seen: str, expected: str) -> str:
    return f"{record.get(seen, '?')}/{record.get(expected, '?')}"


# --------------------------------------------------------------------------- issue 22 flags

VERSION_KEYS = ("image_digest", "torch", "cuda", "nccl", "driver")


def runtime_versions(record: dict) -> dict[str, Optional[str]]:
    """What the runtime boot step recorded (components/boot/jobs.py): the image digest pulled,
    torch / CUDA / NCCL inside it, the host's driver."""
    runtime = record.get("runtime")
    runtime = runtime if isinstance(runtime, dict) else {}
    inside = runtime.get("versions")
    inside = inside if isinstance(inside, dict) else {}
    return {"image_digest": runtime.get("image_digest") or None, "torch": inside.get("torch"),
            "cuda": inside.get("cuda"), "nccl": inside.get("nccl"),
            "driver": runtime.get("driver") or None}


def version_flags(records: list[NodeHealth]) -> dict[str, list[str]]:
    """Nodes whose image, torch, CUDA, NCCL or driver differ from the rest ([Seed] sec. 4.5:
    one image, the same versions, on every node). The most common value is the reference; on a
    tie every node that differs from the first node's value is flagged, and so is the first."""
    from collections import Counter
    flags: dict[str, list[str]] = {}
    seen = {h.node: runtime_versions(h.record) for h in records}
    for key in VERSION_KEYS:
        values = {node: str(value) for node, v in seen.items() if (value := v[key])}
        if len(set(values.values())) < 2:
            continue
        counts = Counter(values.values()).most_common()
        tie = len(counts) > 1 and counts[0][1] == counts[1][1]
        for node, value in values.items():
            others = sorted({v for n, v in values.items() if v != value})
            if tie or value != counts[0][0]:
                flags.setdefault(node, []).append(f"{key} {value} (others: {', '.join(others)})")
    return flags


def latest_bench(url: str) -> Optional[dict]:
    """The newest `trainstack bench` result in the bucket (bench/<time>.json), if any; None too
    when the bucket does not answer within STORE_DEADLINE_S (no bench is no flag)."""
    try:
        return within_deadline(f"the bench results under {url.rstrip('/')}/bench/",
                               _latest_bench, url)
    except StoreDeadline:
        return None


def _latest_bench(url: str) -> Optional[dict]:
    import fsspec
    try:
        fs, root = fsspec.core.url_to_fs(url.rstrip("/") + "/bench")
        paths = sorted(fs.glob(f"{root}/*.json"))
        if not paths:
            return None
        with fs.open(paths[-1], "r") as handle:
            doc = json.load(handle)
    except Exception:  # noqa: BLE001  (each backend raises its own; no bench is no flag)
        return None
    return doc if isinstance(doc, dict) else None


def fabric_flags(bench: Optional[dict]) -> dict[str, list[str]]:
    """Nodes of the newest bench whose all-reduce ran below the cited floor of the instance
    type, or whose NCCL chose another network than the fabric's (trainstack/measure/bench_parse.py)."""
    bench = bench or {}
    fabric = bench.get("fabric") or {}
    judge = fabric.get("judge") or {}
    flags: dict[str, list[str]] = {}
    if judge.get("below_floor"):
        # A ring is as fast as its slowest link: the figure belongs to every node in the run.
        for node in bench.get("node_names") or []:
            flags.setdefault(node, []).append(
                f"all-reduce {fabric.get('busbw_gbps', 0):.1f} GB/s below the floor "
                f"{judge.get('floor_gbps'):g} GB/s (bench {bench.get('time')})")
    for node, entry in ((bench or {}).get("nccl_tests") or {}).get("per_node", {}).items():
        if (entry.get("judge") or {}).get("below_floor"):
            flags.setdefault(node, []).append(
                f"nccl-tests {entry['busbw_gbps']:.1f} GB/s below the one-node floor "
                f"{entry['judge']['floor_gbps']:g} GB/s (bench {bench.get('time')})")
    expected = judge.get("expected_net")
    for node, network in (fabric.get("networks") or {}).items():
        if network and fabric.get("device") == "cuda" and (
                (expected and network != expected)
                or (network == "NET/Socket" and judge.get("floor_gbps") is not None)):
            flags.setdefault(node, []).append(f"NCCL network {network}, expected "
                                              f"{expected or 'RDMA'} (bench {bench.get('time')})")
    return flags


def all_flags(records: list[NodeHealth], bench: Optional[dict]) -> dict[str, list[str]]:
    merged: dict[str, list[str]] = {}
    for part in (version_flags(records), fabric_flags(bench)):
        for node, items in part.items():
            merged.setdefault(node, []).extend(items)
    return merged


def table(records: list[NodeHealth], title: str,
          flags: Optional[dict[str, list[str]]] = None) -> Table:
    out = Table(title=title)
    for column in ("node", "rank", "gpus", "rdma", "filesystem", "scratch", "failed steps",
                   "at", "ready", "flags"):
        out.add_column(column, overflow="fold")
    for health in records:
        r = health.record
        out.add_row(health.node, str(r.get("node_rank", "?")), _pair(r, "gpus", "gpus_expected"),
                    _pair(r, "rdma_devices", "rdma_expected"),
                    f"{r.get('mount_path', '')} mounted" if r.get("filesystem_mounted") is True
                    else "NOT mounted", "yes" if r.get("scratch_mounted") is True else "no",
                    ", ".join(health.failed_steps) or r.get("error", "") or "-",
                    str(r.get("time", "?")), "yes" if health.ok else "NO",
                    "; ".join((flags or {}).get(health.node, [])) or "-")
    return out


def summary(records: list[NodeHealth], expected: Optional[int]) -> tuple[str, bool]:
    ready = sum(h.ok for h in records)
    want = expected if expected is not None else len(records)
    line = f"{ready} of {want} node(s) ready"
    if expected is not None and len(records) < expected:
        line += f"; {expected - len(records)} node(s) have not reported yet"
    return line, bool(records) and ready == want


def status_command(stack: Optional[str] = typer.Option(None, "--stack",
                                                       help="A deployed stack's name."),
                   url: Optional[str] = typer.Option(None, "--bucket-url",
                                                     help="Read this fsspec URL instead of the "
                                                     "stack's bucket (s3://, gs://, abfs://, file://)."),
                   as_json: bool = typer.Option(False, "--json", help="Print the records as JSON."),
                   project: Optional[Path] = ProjectOpt):
    """Show each node's boot health record (GPUs, RDMA devices, filesystem, failed steps)."""
    use_project(project)
    expected, billing = None, None
    if not url:
        from trainstack.measure.billing import status_line
        inputs, outputs, url = deployed_bucket(stack)
        expected = inputs.spec.nodes
        billing = status_line(inputs.cloud, outputs)  # what a stop leaves billing (issue 19)
    records = read_records(url)
    line, all_ready = summary(records, expected)
    # Only nodes with the runtime step (components/boot/jobs.py) run bench jobs: without it no
    # bench result can exist, and the bucket is not asked again.
    has_jobs = any("runtime" in h.record for h in records)
    flags = all_flags(records, latest_bench(url) if has_jobs else None)
    if flags:
        line += f"; {len(flags)} node(s) flagged (versions or fabric)"
    from trainstack.measure.preemptions import EVENTS_PREFIX, bucket_summary  # issue 23
    try:
        spot = within_deadline(f"the preemption events under {url.rstrip('/')}/{EVENTS_PREFIX}/",
                               bucket_summary, url)
    except StoreDeadline as late:
        spot = None
        typer.echo(f"trainstack status: {late.problem} Preemptions are not shown.",
                   err=True)
    if as_json:
        print(json.dumps({"bucket_url": url, "nodes": {h.node: h.record for h in records},
                          "summary": line, "ready": all_ready, "flags": flags,
                          "preemptions": spot.to_dict() if spot else None,
                          **({"after_stop": billing} if billing else {})},
                         indent=2, sort_keys=True))
    else:
        from trainstack.console import console as make_console
        console = make_console()
        if records:
            console.print(table(records, f"trainstack status: {url}/{STATUS_PREFIX}/", flags))
        else:
            console.print(f"no status records under {url}/{STATUS_PREFIX}/ yet (each node writes "
                          "one at the end of its boot)", markup=False, highlight=False)
        console.print(line, markup=False, highlight=False)
        if spot:
            console.print(spot.line(), markup=False, highlight=False)
        if billing:
            console.print(billing, markup=False, highlight=False)
    if not all_ready or flags:
        raise typer.Exit(1)
