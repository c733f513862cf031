"""The agents' code travels through the cluster's bucket where user data has no room for it
(AWS: EC2 takes 16 KiB, gzipped or not): a first `fetch` step downloads each file, checks its
sha256 and retries; the AWS component puts one S3 object per file under the key it asks for."""
from __future__ import annotations

import base64
import copy
import gzip
import hashlib
import os
import shlex
import stat
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest
import yaml

from tests.boot_helpers import (
    LT,
    SHELLCHECK,
    assert_valid_cloud_config,
    stand_in,
    step_text,
    written_files,
)
from tests.conftest import EXAMPLE, one, plan_for
from trainstack_components.aws.boot import AwsBoot
from trainstack_components.boot import BootFile, ShippedFile, render_boot
from trainstack_components.boot.render import RUNNER, shipped_file

OBJECT = "aws:s3/bucketObjectv2:BucketObjectv2"
EC2_USER_DATA_LIMIT = 16 * 1024  # bytes before base64 (EC2 user guide, "Work with instance user data")
# The five bulky files and where the node keeps them (components/agents, components/boot; the
# job agent's pinned backend, issue 31).
SHIPPED_PATHS = {"/opt/trainstack/idle_agent.py": "0755", "/opt/trainstack/job_agent.py": "0755",
                 "/opt/trainstack/preemption_agent.py": "0755",
                 "/opt/trainstack/python/trainstack_resumable.py": "0644",
                 "/opt/trainstack/agent-requirements/s3fs.txt": "0644"}


def _example():
    return yaml.safe_load(EXAMPLE.read_text())


def _sixteen_p5():
    spec = copy.deepcopy(_example())
    spec["nodes"] = 16
    spec["budget"]["monthly_usd"] = 1_000_000   # a day of 16 p5 is ~21,000 USD
    spec["gpu"] = ["H100"]
    spec["clouds"]["aws"]["instance_type"] = "p5.48xlarge"
    return spec


@pytest.fixture(scope="module")
def plans():
    return {"example": plan_for(_example(), "aws"), "16 x p5": plan_for(_sixteen_p5(), "aws")}


def _raw(plan) -> bytes:
    return base64.b64decode(one(plan, LT).inputs["userData"])


def _text(plan) -> str:
    raw = _raw(plan)
    return (gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw).decode()


def _objects(plan) -> dict[str, str]:
    return {r.inputs["key"]: r.inputs["content"] for r in plan.of_type(OBJECT)}


@pytest.mark.parametrize("which", ["example", "16 x p5"])
def test_aws_user_data_fits_ec2s_limit_with_the_agents_shipped(plans, which):
    plan = plans[which]
    assert one(plan, LT).inputs["instanceType"] == "p5.48xlarge"
    assert len(_raw(plan)) <= EC2_USER_DATA_LIMIT
    text = _text(plan)
    inline = written_files(text)
    assert not set(SHIPPED_PATHS) & set(inline)   # none of the agents' code is inline
    assert "/opt/trainstack/idle-upload" in inline  # small files (ctx-dependent scripts) stay
    # fetch runs first: the agents' steps (the idle agent too) start what it downloads.
    assert yaml.safe_load(text)["runcmd"][0] == [RUNNER, "fetch"]
    assert plan.outputs["node_boot"].startswith("fetch: 5 bulky files")


def test_the_example_user_data_leaves_room_to_grow(plans):
    """The agents keep growing; with them shipped, the example's boot is far from the limit."""
    assert len(_raw(plans["example"])) < 0.6 * EC2_USER_DATA_LIMIT


def test_one_bucket_object_per_shipped_file_under_the_key_the_fetch_step_asks_for(plans):
    plan = plans["example"]
    fetch = step_text(_text(plan), "fetch")
    calls = [shlex.split(line)[1:5] for line in fetch.splitlines() if line.startswith("fetch_file ")]
    assert {path: mode for _, path, mode, _ in calls} == SHIPPED_PATHS
    objects = _objects(plan)
    assert sorted(objects) == sorted(key for key, *_ in calls)
    bucket = next(r for r in plan.resources if r.type == "aws:s3/bucket:Bucket")
    lt = one(plan, LT)
    for key, path, _, sha in calls:
        # Content-addressed: trainstack/boot/<first 16 hex of the sha256>/<the file's name>.
        assert sha == hashlib.sha256(objects[key].encode()).hexdigest()
        assert key == f"trainstack/boot/{sha[:16]}/{Path(path).name}"
    for obj in plan.of_type(OBJECT):
        assert obj.property_dependencies["bucket"] == [bucket.urn]
        assert obj.parent == bucket.parent and obj.name.startswith("llm-finetune-boot-")
        tags = obj.inputs["tags"]
        assert {"team": "ml", "owner": "alice", "cost-center": "1234",
                "trainstack:cluster": "llm-finetune"}.items() <= tags.items()
        assert len(tags) <= 10    # S3 takes 10 tags per object
        assert obj.urn in lt.dependencies   # the objects exist before any node boots
    # The idle agent goes as it is in the repository.
    idle = resources.files("trainstack_components.agents").joinpath("idle_agent.py").read_text("utf-8")
    assert idle in objects.values()


def test_a_changed_agent_gets_a_new_key():
    old = shipped_file(BootFile("/opt/trainstack/idle_agent.py", "print(1)\n", "0755", bulky=True))
    new = shipped_file(BootFile("/opt/trainstack/idle_agent.py", "print(2)\n", "0755", bulky=True))
    assert old.key != new.key and old.key.endswith("/idle_agent.py")
    assert old.sha256 == hashlib.sha256(b"print(1)\n").hexdigest()


def test_other_clouds_keep_the_agents_inline():
    plan = plan_for(_example(), "gcp")
    text = one(plan, "gcp:compute/instanceTemplate:InstanceTemplate").inputs["metadata"]["user-data"]
    inline = {path.replace("s3fs", "gcsfs") for path in SHIPPED_PATHS}   # GCP's backend
    assert inline <= set(written_files(text))
    assert "fetch" not in [c[1] for c in yaml.safe_load(text)["runcmd"]]
    assert not plan.of_type("gcp:storage/bucketObject:BucketObject") or all(
        not r.inputs.get("name", "").startswith("trainstack/boot/")
        for r in plan.of_type("gcp:storage/bucketObject:BucketObject"))


def test_the_fetch_step_passes_shellcheck_and_the_document_validates(plans, tmp_path):
    text = _text(plans["example"])
    script = tmp_path / "fetch.sh"
    script.write_text(step_text(text, "fetch"))
    result = subprocess.run([str(SHELLCHECK), "-s", "bash", "-e", "SC1091", str(script)],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout
    assert_valid_cloud_config(text, tmp_path, "aws-shipped")


# -- running the fetch step for real -------------------------------------------------------------

# `aws s3 cp --only-show-errors --region R s3://BUCKET/KEY DEST`: copies from $FAKE_BUCKET/KEY,
# failing the first $FAKE_FAILS calls (credentials not there yet).
AWS_STAND_IN = r"""
echo "$*" >> "$FAKE_LOG"
n=$(wc -l < "$FAKE_LOG")
[ "$n" -gt "${FAKE_FAILS:-0}" ] || { echo "Unable to locate credentials" >&2; exit 1; }
[ "$1 $2" = "s3 cp" ] || exit 2
src="${*: -2:1}"
cp "$FAKE_BUCKET/${src#s3://*/}" "${*: -1}"
"""


def _run_fetch(text: str, tmp_path: Path, bucket: dict[str, str], fails: int = 0):
    root, bin_dir = tmp_path / "root", tmp_path / "bin"
    for d in (root, bin_dir, tmp_path / "bucket"):
        d.mkdir(exist_ok=True)
    for key, content in bucket.items():
        (tmp_path / "bucket" / key).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "bucket" / key).write_text(content)
    stand_in(bin_dir, "aws", AWS_STAND_IN)
    stand_in(bin_dir, "sleep", "exit 0")
    (root / "node.env").write_text(written_files(text)["/etc/trainstack/node.env"]["content"])
    script = (step_text(text, "fetch").replace("/etc/trainstack/node.env", str(root / "node.env"))
              .replace("/opt/trainstack/", f"{root}/opt/trainstack/"))
    (root / "fetch.sh").write_text(script)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
           "FAKE_LOG": str(tmp_path / "calls.log"), "FAKE_BUCKET": str(tmp_path / "bucket"),
           "FAKE_FAILS": str(fails)}
    result = subprocess.run(["bash", str(root / "fetch.sh")], capture_output=True, text=True,
                            timeout=60, env=env)
    return root, result, (tmp_path / "calls.log").read_text().splitlines()


def test_the_fetch_step_writes_every_shipped_file_with_its_mode(plans, tmp_path):
    plan = plans["example"]
    objects = _objects(plan)
    root, result, calls = _run_fetch(_text(plan), tmp_path, objects, fails=2)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.count("retrying") == 2     # the first two downloads failed
    assert len(calls) == 2 + len(SHIPPED_PATHS)
    assert all("--region us-east-1 s3://llm-finetune-data/trainstack/boot/" in c for c in calls)
    by_name = {Path(k).name: v for k, v in objects.items()}
    for path, mode in SHIPPED_PATHS.items():
        local = root / path.lstrip("/")
        assert local.read_text() == by_name[local.name]
        assert oct(stat.S_IMODE(local.stat().st_mode)) == oct(int(mode, 8))
        assert not local.with_name(local.name + ".fetch").exists()


def test_a_file_whose_bytes_differ_is_refused(plans, tmp_path):
    plan = plans["example"]
    objects = _objects(plan)
    idle_key = next(k for k in objects if k.endswith("/idle_agent.py"))
    tampered = {**objects, idle_key: objects[idle_key] + "import os; os.system('x')\n"}
    root, result, calls = _run_fetch(_text(plan), tmp_path, tampered)
    assert result.returncode == 1
    assert f"{idle_key}: not fetched" in result.stdout
    assert not (root / "opt/trainstack/idle_agent.py").exists()
    assert not (root / "opt/trainstack/idle_agent.py.fetch").exists()
    assert (root / "opt/trainstack/job_agent.py").exists()   # the others still land
    assert sum(idle_key in c for c in calls) == 20           # retried, then given up


def test_render_boot_without_shipping_keeps_every_file_inline():
    from trainstack_components.boot import NodeContext
    ctx = NodeContext(cloud="aws", cluster="c", stack="s", nodes=2, gpus_per_node=8,
                      instance_type="p5.48xlarge", bucket="b", filesystem_source="x@tcp:/y",
                      region="us-east-1", zone="us-east-1a", use_rdma=False, interconnect="tcp")
    inline = render_boot(ctx, AwsBoot())
    shipped = render_boot(ctx, AwsBoot(), ship=True)
    assert inline.shipped == () and set(SHIPPED_PATHS) <= set(written_files(inline.text))
    assert {f.path for f in shipped.shipped} == set(SHIPPED_PATHS)
    assert all(isinstance(f, ShippedFile) for f in shipped.shipped)


# -- the other clouds' limits --------------------------------------------------------------------

def test_alibaba_refuses_user_data_over_ecs_limit_at_plan_time():
    """ECS takes 32 KB before Base64; past it the plan says so instead of RunInstances."""
    from trainstack_components.alicloud.boot import decode_ecs_user_data, ecs_user_data
    # Hex digests gzip to a little over half (4 bits of 8 carry entropy): 76,800 bytes of them
    # stay well over 32,768 gzipped.
    noise = hashlib.sha512(b"seed").hexdigest()
    text = "".join(hashlib.sha256(f"{noise}{i}".encode()).hexdigest() for i in range(1200))
    assert len(gzip.compress(text.encode(), mtime=0)) > 32 * 1024
    from trainstack_components.errors import SpecError
    with pytest.raises(SpecError, match="ECS RunInstances takes at most 32,768 bytes"):
        ecs_user_data(text)
    fits = text[:50000]   # ~28 KB gzipped: under the limit
    assert decode_ecs_user_data(ecs_user_data(fits)) == fits


def test_a_bulky_file_that_reads_deploy_time_values_is_refused():
    """The objects are planned before the bucket exists; a bulky file built from the bucket's
    name would ask the node for a key nobody uploaded. The plan says so instead."""
    from trainstack_components.boot import BootStep, extensions

    def provider(ctx):
        return [BootStep("bucket-note", "true", files=(
            BootFile("/opt/trainstack/note.txt", f"bucket {ctx.bucket}\n", bulky=True),))]

    extensions.add_step_provider(provider)
    try:
        with pytest.raises(Exception, match="depend on values only known at deploy time"):
            plan_for(_example(), "aws")
    finally:
        extensions.remove_step_provider(provider)


# module, limit variable, what the paragraph names (the limit is the cloud's, cited beside it)
OVER_LIMIT = {"aws": ("trainstack_components.boot.render", "AWS_USER_DATA_LIMIT",
                      "an EC2 launch template takes at most 4,096 bytes (before base64)"),
              "alicloud": ("trainstack_components.alicloud.boot", "USER_DATA_LIMIT",
                           "ECS RunInstances takes at most 4,096 bytes (before base64)")}


def test_a_failed_renders_leftover_tasks_are_collected_without_a_word(monkeypatch, caplog):
    """After the user's error, the SDK's RPC tasks still pending are collected whenever the
    garbage collector gets to them; under load that came before the paragraph, as asyncio's
    "Task was destroyed but it is pending!" (seen in a suite run). The loop the failed render
    used says nothing for them; a render that succeeded keeps asyncio's own report, since a
    task lost there would be a fault worth seeing."""
    import asyncio
    import importlib
    import json
    from trainstack.plan import engine
    from trainstack_components.errors import SpecError
    module, name, _ = OVER_LIMIT["aws"]
    spec = yaml.safe_load(EXAMPLE.read_text())
    config = {"trainstack:cloud": "aws", "trainstack:spec": json.dumps(spec)}
    made: list = []
    real_loop = asyncio.new_event_loop
    monkeypatch.setattr(asyncio, "new_event_loop", lambda: made.append(real_loop()) or made[-1])
    engine.render(config)                               # a render that succeeds
    good, made[:] = made[0], []                         # each render's own loop comes first
    monkeypatch.setattr(importlib.import_module(module), name, 4096)
    with pytest.raises(SpecError):
        engine.render(config)
    failed = made[0]
    collected = {"message": "Task was destroyed but it is pending!", "task": object()}
    caplog.clear()      # asyncio logs it (logging's last resort: stderr, in the CLI)
    failed.call_exception_handler(collected)            # what Task.__del__ does
    assert caplog.records == []
    good.call_exception_handler(collected)
    assert [r.getMessage().splitlines()[0] for r in caplog.records] == \
        ["Task was destroyed but it is pending!"]


@pytest.mark.parametrize("cloud", sorted(OVER_LIMIT))
def test_user_data_over_the_clouds_limit_is_one_paragraph_and_exit_2_at_plan(cloud):
    """A boot that grows past its cloud's user data limit (here: the limit lowered to 4 KiB,
    under the example's ~8 KB gzipped boot) stops `trainstack plan` with the size, the limit and
    the way out, not a traceback from inside the SDK's apply."""
    from tests.checkout import PYTHONPATH
    from tests.conftest import ROOT
    module, name, says = OVER_LIMIT[cloud]
    script = (f"import runpy, sys\nimport {module} as m\nm.{name} = 4096\n"
              f"sys.argv = ['trainstack', 'plan', '--cloud', {cloud!r}, '--spec', {str(EXAMPLE)!r}]\n"
              "runpy.run_module('trainstack', run_name='__main__')\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          cwd=ROOT, timeout=300, env={**os.environ, "PYTHONPATH": PYTHONPATH})
    assert done.returncode == 2, done.stdout[-2000:] + done.stderr[-3000:]
    assert "Traceback" not in done.stderr and "Future exception" not in done.stderr
    paragraph = " ".join(done.stderr.split())
    assert paragraph.startswith(f"error: {cloud} node user data: is ")
    assert "bytes gzipped; " + says in paragraph
    assert "BootFile(bulky=True)" in paragraph and "extensions" in paragraph
    assert done.stderr.count("error:") == 1
