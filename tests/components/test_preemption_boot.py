"""The preemption agent as a boot step on every cloud (no cloud names it): the agent, the
checkpoint helper for training scripts, the service, the profile, and the cloud's notice kind
as data; the step runs for real with stand-ins for the metadata server and systemd, and the
upload script built from the cloud's CLI puts an event under events/<node>/ in the bucket."""
import json
import subprocess
import sys

import pytest

from tests.boot_helpers import SHELLCHECK, boot_node, run_step, runcmd, stand_in, step_text, written_files
from tests.conftest import ROOT
from trainstack_components.agents import preemption_agent as pa
from trainstack_components.alicloud.boot import AlicloudBoot
from trainstack_components.aws.boot import AwsBoot
from trainstack_components.azure.boot import AzureBoot
from trainstack_components.boot import NodeContext, render_user_data
from trainstack_components.boot import preemption as step
from trainstack_components.gcp.boot import GcpBoot

BOOTS = {"aws": AwsBoot, "gcp": GcpBoot, "azure": AzureBoot, "alicloud": AlicloudBoot}


def ctx(cloud: str) -> NodeContext:
    return NodeContext(cloud=cloud, cluster="c1", stack="s", nodes=2, gpus_per_node=8,
                       instance_type="x", bucket="bkt", filesystem_source="fs@tcp:/m",
                       region="r", zone="z", use_rdma=False, interconnect="tcp", project="p",
                       extra={"node_role": "role", "filesystem_id": "fs-1", "export_id": "e-1",
                              "fsx_efa": False, "fsx_efa_interfaces": 0,
                              "node_addresses": ["10.0.0.10", "10.0.0.11"]})


@pytest.mark.parametrize("cloud", sorted(BOOTS))
def test_every_cloud_runs_the_agent_for_its_own_notice(cloud):
    text = render_user_data(ctx(cloud), BOOTS[cloud]())
    names = [c[1] for c in runcmd(text)]
    assert names.index("preemption") < names.index("health")
    files = written_files(text)
    assert files[step.AGENT_PATH]["content"] == step.node_copy(
        (ROOT / "components/agents/preemption_agent.py").read_text())
    assert files[step.AGENT_PATH]["permissions"] == "0755"
    assert files[step.HELPER_PATH]["content"] == step.node_copy(
        (ROOT / "components/training/resumable.py").read_text())
    unit = files[f"/etc/systemd/system/{step.SERVICE}"]["content"]
    assert f"--upload '{step.UPLOAD_SCRIPT} {{src}} {{key}}'" in unit and "Restart=always" in unit
    profile = files[step.PROFILE]["content"]
    assert step.HELPER_DIR in profile and "TORCH_DISABLE_SHARE_RDZV_TCP_STORE=1" in profile
    script = step_text(text, "preemption")
    assert f'"$node" {cloud} {pa.NOTICE_KINDS[cloud]} > {step.ENV_FILE}' in script
    assert f"systemctl enable --now {step.SERVICE}" in script


CURL = """case "$*" in
  *api/token*) echo token ;;
  *instance-id*) echo i-0abc ;;
  *) exit 22 ;;
esac
"""


def test_the_step_names_the_node_and_starts_the_service(tmp_path):
    root, bin_dir, env = boot_node(tmp_path)
    stand_in(bin_dir, "curl", CURL)
    stand_in(bin_dir, "systemctl", 'echo "systemctl $*" >> "$FAKE_LOG"\n')
    text = render_user_data(ctx("aws"), AwsBoot())
    done = run_step(text, "preemption", root, bin_dir, env)
    assert done.returncode == 0, done.stderr
    assert (root / "etc" / "preemption.env").read_text() == \
        "TS_NODE=i-0abc\nTS_CLOUD=aws\nTS_NOTICE_KIND=aws-imdsv2-spot\n"
    assert (root / "state" / "jobs").is_dir() and (root / "state" / "events").is_dir()
    assert "systemctl enable --now trainstack-preemption.service" in (tmp_path / "calls.log").read_text()


def test_the_agent_uploads_events_through_the_clouds_cli(tmp_path):
    # The rendered upload script with a stand-in `aws` that copies s3://bucket/key to a folder.
    root, bin_dir, env = boot_node(tmp_path)
    files = written_files(render_user_data(ctx("aws"), AwsBoot()))
    upload = tmp_path / "upload"
    upload.write_text(files[step.UPLOAD_SCRIPT]["content"].replace("/etc/trainstack", str(root / "etc")))
    upload.chmod(0o755)
    (root / "etc").mkdir(parents=True)
    (root / "etc" / "node.env").write_text(files["/etc/trainstack/node.env"]["content"])
    stand_in(bin_dir, "aws", 'src="${@: -2:1}"; dst="${@: -1}"; path="$FAKE_BUCKET/${dst#s3://}"\n'
             'mkdir -p "$(dirname "$path")" && cp "$src" "$path"\n')
    (root / pa.LOCAL_EVENTS_DIR).mkdir(parents=True)
    (root / pa.LOCAL_EVENTS_DIR / "x-restart.json").write_text('{"event": "restart"}')
    agent = pa.Agent("aws", "i-0abc", pa.Metadata("http://127.0.0.1:9"), pa.Paths.under(str(root)),
                     upload=f"{upload} {{src}} {{key}}", log=lambda line: None)
    import os
    old = os.environ["PATH"]
    os.environ["PATH"] = f"{bin_dir}:{old}"
    os.environ["FAKE_BUCKET"] = env["FAKE_BUCKET"]
    try:
        agent.ship_local_events()
    finally:
        os.environ["PATH"] = old
    shipped = tmp_path / "bucket" / "bkt" / "events" / "i-0abc" / "x-restart.json"
    assert json.loads(shipped.read_text()) == {"event": "restart"}


@pytest.mark.skipif(SHELLCHECK is None, reason="shellcheck not installed")
def test_the_upload_script_passes_shellcheck(tmp_path):
    for cloud, boot in BOOTS.items():
        path = tmp_path / f"{cloud}.sh"
        path.write_text(written_files(render_user_data(ctx(cloud), boot()))[step.UPLOAD_SCRIPT]["content"])
        done = subprocess.run([SHELLCHECK, "-x", str(path)], capture_output=True, text=True)
        assert done.returncode == 0, done.stdout


def test_the_nodes_copies_are_the_same_programs_without_their_docs(tmp_path):
    agent = tmp_path / "preemption_agent.py"
    agent.write_text(step.AGENT_SOURCE)
    done = subprocess.run([sys.executable, "-I", str(agent), "--help"], capture_output=True,
                          text=True, timeout=30)
    assert done.returncode == 0 and "--jobs-dir" in done.stdout
    assert "trainstack preemption agent" in done.stdout
    assert len(step.AGENT_SOURCE) < 0.8 * len((ROOT / "components/agents/preemption_agent.py").read_text())
    compile(step.HELPER_SOURCE, "trainstack_resumable.py", "exec")
    assert "class Checkpointer" in step.HELPER_SOURCE and "def is_complete" in step.HELPER_SOURCE


def test_every_boot_clears_the_last_boots_leaving_mark_before_the_agents_start():
    """A VM stopped and started with its disk (GCP STOP/START, Azure deallocate) runs no
    cloud-init runcmd again; a leaving mark left from its last notice would keep the job agent
    from ever taking work. A oneshot unit, enabled for every boot, removes it first."""
    built = step.preemption_step(ctx("gcp"), GcpBoot())
    files = {f.path: f.content for f in built.files}
    unit = files["/etc/systemd/system/trainstack-boot-clear.service"]
    assert "Type=oneshot" in unit and "WantedBy=multi-user.target" in unit
    assert ("ExecStart=/bin/rm -f /var/lib/trainstack/leaving "
            "/var/lib/trainstack/preemption.json") in unit
    assert "Before=trainstack-preemption.service trainstack-jobs.service" in unit
    assert "systemctl enable trainstack-boot-clear.service" in built.script
