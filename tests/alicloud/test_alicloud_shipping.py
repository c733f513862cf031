"""The agents' code travels through the cluster's OSS bucket (as on AWS): ECS takes 32 KB of user
data, and with every file inline the example's boot was 96 % of it. The first boot step fetches
each file with the Alibaba Cloud CLI under the node's RAM role, at the region's VPC-internal
endpoint, checks its sha256 and retries while the role (attached by its own resource, after the
instance runs) is not there yet; the component puts one oss.BucketObject per file under the key
the step asks for, and every node waits for them."""
from __future__ import annotations

import base64
import gzip
import hashlib
import os
import shlex
import stat
import subprocess
from pathlib import Path

import pytest
import yaml

from tests.boot_helpers import SHELLCHECK, assert_valid_cloud_config, stand_in, step_text, written_files
from tests.conftest import EXAMPLE, plan_for
from trainstack_components.alicloud.boot import decode_ecs_user_data
from trainstack_components.boot.render import RUNNER

INSTANCE = "alicloud:ecs/instance:Instance"
OBJECT = "alicloud:oss/bucketObject:BucketObject"
# ECS RunInstances `UserData`: "cannot exceed 32 KB in size before Base64 encoding"
# (help.aliyun.com/document_detail/49121.html).
ECS_USER_DATA_LIMIT = 32 * 1024
# The five bulky files (the three agents, the checkpoint helper, the job agent's pinned ossfs
# backend) and their modes on the node.
SHIPPED_PATHS = {"/opt/trainstack/idle_agent.py": "0755", "/opt/trainstack/job_agent.py": "0755",
                 "/opt/trainstack/preemption_agent.py": "0755",
                 "/opt/trainstack/python/trainstack_resumable.py": "0644",
                 "/opt/trainstack/agent-requirements/ossfs.txt": "0644"}
# The fetch step's budget: ten minutes of tries six seconds apart (the RAM role comes after the
# instance runs, through ecs.RamRoleAttachment).
TRIES = 600 // 6


@pytest.fixture(scope="module")
def plan():
    return plan_for(yaml.safe_load(EXAMPLE.read_text()), "alicloud")


def _sent(plan) -> bytes:
    """The user data as RunInstances takes it: the bytes before base64."""
    return base64.b64decode(plan.of_type(INSTANCE)[0].inputs["userData"])


def _text(plan) -> str:
    return decode_ecs_user_data(plan.of_type(INSTANCE)[0].inputs["userData"])


def _objects(plan) -> dict[str, str]:
    return {r.inputs["key"]: r.inputs["content"] for r in plan.of_type(OBJECT)}


def fetch_calls(text: str) -> list[list[str]]:
    """key, path, mode, sha256 of every `fetch_file` line of the fetch step."""
    return [shlex.split(line)[1:5] for line in step_text(text, "fetch").splitlines()
            if line.startswith("fetch_file ")]


def test_the_example_user_data_is_well_under_ecs_limit(plan):
    """117,230 bytes (31,491 gzipped: 96 % of the limit) with the agents inline; now the text
    itself fits, and gzipped it is under half the limit: room for steps to come."""
    node = plan.of_type(INSTANCE)[0]
    assert node.inputs["instanceType"] == "ecs.sccgn7ex.32xlarge"
    sent = _sent(plan)
    assert len(sent) <= ECS_USER_DATA_LIMIT
    assert sent.startswith(b"#cloud-config\n")       # no gzip needed any more
    assert len(gzip.compress(sent, 9, mtime=0)) < ECS_USER_DATA_LIMIT / 2


def test_fetch_is_the_first_step_and_the_agents_are_not_inline(plan):
    text = _text(plan)
    assert yaml.safe_load(text)["runcmd"][0] == [RUNNER, "fetch"]
    inline = written_files(text)
    assert not set(SHIPPED_PATHS) & set(inline)
    assert "/etc/trainstack/node.env" in inline          # small files stay
    assert plan.outputs["node_boot"].startswith("fetch: 5 bulky files")
    assert {path: mode for _, path, mode, _ in fetch_calls(text)} == SHIPPED_PATHS


def test_the_download_uses_the_node_role_at_the_regions_internal_endpoint(plan):
    script = step_text(_text(plan), "fetch")
    role = plan.outputs["node_role"]
    assert f"--mode EcsRamRole \\\n    --ram-role-name {role}" in script
    assert ('aliyun --profile trainstack oss cp -f "oss://$TS_BUCKET/$1" "$2" \\\n'
            '    --endpoint "oss-$TS_REGION-internal.aliyuncs.com"') in script


def test_one_oss_object_per_shipped_file_under_the_key_the_fetch_step_asks_for(plan):
    calls = fetch_calls(_text(plan))
    objects = _objects(plan)
    assert sorted(objects) == sorted(key for key, *_ in calls)
    for key, path, _, sha in calls:
        assert sha == hashlib.sha256(objects[key].encode()).hexdigest()
        assert key == f"trainstack/boot/{sha[:16]}/{Path(path).name}"
    (bucket,) = plan.of_type("alicloud:oss/bucket:Bucket")
    nodes = plan.of_type(INSTANCE)
    assert len(nodes) == 2
    for obj in plan.of_type(OBJECT):
        assert obj.inputs["bucket"] == plan.outputs["bucket_name"] == "llm-finetune-data"
        assert obj.property_dependencies["bucket"] == [bucket.urn]
        assert obj.parent == bucket.parent and obj.name.startswith("llm-finetune-boot-")
        assert all(obj.urn in node.dependencies for node in nodes)   # there before any node
    # The node's first step needs the NAT (the CLI comes from its public CDN) too.
    (snat,) = plan.of_type("alicloud:vpc/snatEntry:SnatEntry")
    assert all(snat.urn in node.dependencies for node in nodes)
    idle = (Path(__file__).parents[2] / "components/agents/idle_agent.py").read_text()
    assert idle in objects.values()


def test_the_fetch_step_passes_shellcheck_and_the_document_validates(plan, tmp_path):
    text = _text(plan)
    script = tmp_path / "fetch.sh"
    script.write_text(step_text(text, "fetch"))
    result = subprocess.run([str(SHELLCHECK), "-s", "bash", "-e", "SC1091", str(script)],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout
    assert_valid_cloud_config(text, tmp_path, "alicloud-shipped")


# -- running the fetch step for real -------------------------------------------------------------

# `aliyun --profile P oss cp -f oss://BUCKET/KEY DEST --endpoint E`, as the real CLI takes it:
# no STS token until the role is attached ($FAKE_FAILS calls), another region's endpoint refused.
ALIYUN = r"""
case "$*" in "configure set"*) echo "$*" >> "$FAKE_CONFIGURE"; exit 0 ;; esac
echo "$*" >> "$FAKE_LOG"
n=$(wc -l < "$FAKE_LOG")
[ "$n" -gt "${FAKE_FAILS:-0}" ] || { echo "ERROR: get ram role credentials: 404" >&2; exit 1; }
[ "${*: -1}" = "oss-$FAKE_REGION-internal.aliyuncs.com" ] || { echo "AccessDenied: endpoint" >&2; exit 1; }
src="${*: -4:1}"
cp "$FAKE_BUCKET/${src#oss://*/}" "${*: -3:1}"
"""


def _run_fetch(text: str, tmp_path: Path, bucket: dict[str, str], fails: int = 0):
    root, bin_dir = tmp_path / "root", tmp_path / "bin"
    for d in (root, bin_dir, tmp_path / "bucket"):
        d.mkdir(exist_ok=True)
    for key, content in bucket.items():
        (tmp_path / "bucket" / key).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "bucket" / key).write_text(content)
    stand_in(bin_dir, "aliyun", ALIYUN)
    stand_in(bin_dir, "sleep", 'echo "$1" >> "$FAKE_SLEPT"')
    env_text = written_files(text)["/etc/trainstack/node.env"]["content"]
    (root / "node.env").write_text(env_text)
    region = next(line.split("=", 1)[1].strip("'\"") for line in env_text.splitlines()
                  if line.startswith("TS_REGION="))
    script = (step_text(text, "fetch").replace("/etc/trainstack/node.env", str(root / "node.env"))
              .replace("/opt/trainstack/", f"{root}/opt/trainstack/"))
    (root / "fetch.sh").write_text(script)
    logs = {name: tmp_path / f"{name}.log" for name in ("calls", "configure", "slept")}
    for log in logs.values():
        log.touch()
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
           "FAKE_LOG": str(logs["calls"]), "FAKE_CONFIGURE": str(logs["configure"]),
           "FAKE_SLEPT": str(logs["slept"]), "FAKE_BUCKET": str(tmp_path / "bucket"),
           "FAKE_FAILS": str(fails), "FAKE_REGION": region}
    result = subprocess.run(["bash", str(root / "fetch.sh")], capture_output=True, text=True,
                            timeout=120, env=env)
    return root, result, {k: v.read_text().splitlines() for k, v in logs.items()}


def test_a_role_attached_nine_minutes_late_still_boots(plan, tmp_path):
    """ecs.RamRoleAttachment runs once the instance is Running; until then the metadata server
    has no STS token for the CLI. 90 refused tries (9 minutes at 6 s) are waited out."""
    objects = _objects(plan)
    root, result, logs = _run_fetch(_text(plan), tmp_path, objects, fails=90)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    assert result.stdout.count("retrying") == 90
    assert logs["slept"] == ["6"] * 90
    assert len(logs["calls"]) == 90 + len(SHIPPED_PATHS)
    assert all(c.startswith("--profile trainstack oss cp -f oss://llm-finetune-data/trainstack/"
                            "boot/") for c in logs["calls"])
    assert all(f"--ram-role-name {plan.outputs['node_role']}" in c for c in logs["configure"])
    by_name = {Path(k).name: v for k, v in objects.items()}
    for path, mode in SHIPPED_PATHS.items():
        local = root / path.lstrip("/")
        assert local.read_text() == by_name[local.name]
        assert oct(stat.S_IMODE(local.stat().st_mode)) == oct(int(mode, 8))
        assert not local.with_name(local.name + ".fetch").exists()


def test_a_role_that_never_comes_fails_the_step_naming_every_key_within_ten_minutes(plan, tmp_path):
    """100 tries six seconds apart for the step (not per file: five missing files would wait
    50 minutes), then one more try for each later file; every key is named."""
    objects = _objects(plan)
    root, result, logs = _run_fetch(_text(plan), tmp_path, objects, fails=10_000)
    assert result.returncode == 1
    assert len(logs["calls"]) == TRIES + len(SHIPPED_PATHS) - 1
    assert sum(int(s) for s in logs["slept"]) == (TRIES - 1) * 6     # under ten minutes
    for key in objects:
        assert f"{key}: not fetched" in result.stdout
    assert not any((root / p.lstrip("/")).exists() for p in SHIPPED_PATHS)


def test_a_file_whose_bytes_differ_is_refused(plan, tmp_path):
    objects = _objects(plan)
    idle_key = next(k for k in objects if k.endswith("/idle_agent.py"))
    tampered = {**objects, idle_key: objects[idle_key] + "import os; os.system('x')\n"}
    root, result, logs = _run_fetch(_text(plan), tmp_path, tampered)
    assert result.returncode == 1
    assert f"{idle_key}: not fetched (or its sha256 differs)" in result.stdout
    assert not (root / "opt/trainstack/idle_agent.py").exists()
    assert not (root / "opt/trainstack/idle_agent.py.fetch").exists()
    assert (root / "opt/trainstack/job_agent.py").exists()      # the others still land


def test_the_download_at_another_regions_endpoint_is_refused(plan, tmp_path):
    text = _text(plan).replace('--endpoint "oss-$TS_REGION-internal.aliyuncs.com"',
                               '--endpoint "oss-cn-hangzhou-internal.aliyuncs.com"')
    root, result, logs = _run_fetch(text, tmp_path, _objects(plan))
    assert result.returncode == 1
    assert "AccessDenied: endpoint" in result.stderr


def test_docs_alicloud_states_what_the_plan_ships(plan):
    doc = " ".join((Path(__file__).parents[2] / "docs/alicloud.md").read_text().split())
    assert "(step `fetch`, the first)" in doc
    assert "one `oss.BucketObject` each, under `trainstack/boot/<sha256 prefix>/<file>`" in doc
    assert len(plan.of_type(OBJECT)) == len(SHIPPED_PATHS) == 5
    assert "retries for up to ten minutes in all (every 6 s)" in doc
    assert f"tries_left={TRIES}\n" in step_text(_text(plan), "fetch") and "sleep 6\n" in \
        step_text(_text(plan), "fetch")
