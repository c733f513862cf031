"""The nodes' boot (components/boot) as each cloud receives it from the mock engine: the
filesystem mounted at one path, the fabric's NCCL environment per instance family, rank
discovery from the node group, a health record per node. Scripts pass shellcheck; the
cloud-config passes cloud-init's own schema check. Steps run for real against stand-ins."""
from __future__ import annotations

import base64
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.boot_helpers import (
    FAMILIES,
    assert_valid_cloud_config,
    boot_node,
    family_plan,
    ranks_profile,
    run_step,
    runcmd,
    shellcheck_boot_scripts,
    stand_in,
    step_text,
    user_data,
    written_files,
)
from trainstack.measure.status import read_records
from trainstack_components.aws.boot import AwsBoot
from trainstack_components.boot import (
    MOUNT_PATH,
    BootFile,
    BootStep,
    CloudBoot,
    Fabric,
    NodeContext,
    aws_user_data,
    cloud_config,
    decode_aws_user_data,
    extensions,
    render_boot,
    render_user_data,
)
from trainstack_components.gcp.boot import GcpBoot

# idle first (issue 19), then jobs.py and preemption.py
STEPS = ["idle", "lustre", "scratch", "fabric", "ranks", "packages", "runtime", "jobs",
         "preemption", "health"]


def planned_steps(family: str) -> list[str]:
    """AWS ships the agents' code through the bucket (EC2's 16 KiB): `fetch` comes first."""
    return (["fetch"] if FAMILIES[family][0] == "aws" else []) + STEPS


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_the_catalog_picks_the_family_under_test(family):
    assert family_plan(family).inputs.selection.instance.name == FAMILIES[family][2]


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_the_plan_outlines_the_boot_with_the_familys_fabric(family):
    outline = family_plan(family).outputs["node_boot"]
    assert [part.split(":")[0] for part in outline.split("; ")] == planned_steps(family)
    assert f"fabric: NCCL environment for {FAMILIES[family][3]};" in outline
    assert family_plan(family).outputs["mount_path"] == MOUNT_PATH


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_every_node_runs_the_steps_in_order(family):
    assert [cmd[1] for cmd in runcmd(user_data(family))] == planned_steps(family)


@pytest.mark.parametrize("family, source, options", [
    ("p5", "llm-finetune-fs.fsx.offline.invalid@tcp:/offline", "relatime,flock"),
    ("a3-ultra", "192.0.2.1@tcp:/llmfinet", "defaults,_netdev")])
def test_the_filesystem_mounts_at_one_path_with_the_providers_options(family, source, options):
    text = user_data(family)
    env = written_files(text)["/etc/trainstack/node.env"]["content"]
    assert f"TS_MOUNT={MOUNT_PATH}" in env and MOUNT_PATH == "/lustre"
    assert f"TS_FS_SOURCE={source}" in env
    assert f"TS_LUSTRE_OPTIONS={options}" in env
    lustre = step_text(text, "lustre")
    assert 'mount -t lustre -o "$TS_LUSTRE_OPTIONS" "$TS_FS_SOURCE" "$TS_MOUNT"' in lustre
    assert "for attempt in $(seq 1 90)" in lustre  # retried until the filesystem is ready
    repo = "fsx-lustre-client-repo" if family == "p5" else "lustre-client-binaries"
    assert repo in lustre and 'lustre-client-modules-$(uname -r)' in lustre


def _source_profile(text: str, tmp_path: Path, *names: str) -> dict[str, str]:
    """Source the rendered NCCL profile in POSIX sh and return the variables asked for."""
    profile = tmp_path / "nccl.sh"
    profile.write_text(written_files(text)["/etc/profile.d/trainstack-nccl.sh"]["content"])
    script = f". {profile}; " + "; ".join(f'echo "{n}=${{{n}:-}}"' for n in names)
    out = subprocess.run(["sh", "-c", script], capture_output=True, text=True, check=True,
                         env={"PATH": "/usr/bin:/bin"}).stdout
    return dict(line.split("=", 1) for line in out.splitlines())


@pytest.mark.parametrize("family, efa", [("p5", 32), ("p5en", 16), ("p6", 8)])
def test_aws_efa_families_get_the_aws_ofi_nccl_environment(family, efa, tmp_path):
    text = user_data(family)
    env = _source_profile(text, tmp_path, "FI_PROVIDER", "FI_EFA_USE_DEVICE_RDMA",
                          "NCCL_SOCKET_IFNAME", "NCCL_NET")
    assert env == {"FI_PROVIDER": "efa", "FI_EFA_USE_DEVICE_RDMA": "1",
                   "NCCL_SOCKET_IFNAME": "^docker,lo,veth", "NCCL_NET": ""}
    profile = written_files(text)["/etc/profile.d/trainstack-nccl.sh"]["content"]
    assert "/opt/amazon/ofi-nccl/lib" in profile  # the plugin goes on LD_LIBRARY_PATH
    assert f'"$rdma" {efa} "$TS_FABRIC"' in step_text(text, "health")  # EFA devices expected


@pytest.mark.parametrize("family", ["a3-ultra", "a4"])
def test_gcp_roce_families_get_the_gib_plugin(family, tmp_path):
    text = user_data(family)
    assert '"nccl-gib=1.1.0"' in step_text(text, "fabric")  # pinned (issue 20)
    profile = written_files(text)["/etc/profile.d/trainstack-nccl.sh"]["content"]
    assert ". /usr/local/gib/scripts/set_nccl_env.sh" in profile
    env = _source_profile(text, tmp_path, "NCCL_NET", "LD_LIBRARY_PATH", "FI_PROVIDER")
    assert env == {"NCCL_NET": "gIB", "LD_LIBRARY_PATH": "/usr/local/gib/lib64", "FI_PROVIDER": ""}


@pytest.mark.parametrize("family, kind, lib, rxdm", [
    ("a3-high", "tcpx", "/var/lib/tcpx/lib64", "gpudirect-tcpx/tcpgpudmarxd-dev"),
    ("a3-mega", "tcpxo", "/var/lib/tcpxo/lib64", "gpudirect-tcpxo/tcpgpudmarxd-dev")])
def test_gcp_gpudirect_tcp_families_get_the_plugin_and_its_rxdm(family, kind, lib, rxdm, tmp_path):
    text = user_data(family)
    files = written_files(text)
    assert rxdm in files["/opt/trainstack/rxdm"]["content"]
    assert "ExecStart=/opt/trainstack/rxdm" in files["/etc/systemd/system/trainstack-rxdm.service"][
        "content"]
    fabric = step_text(text, "fabric")
    assert "systemctl enable --now trainstack-rxdm.service" in fabric
    assert f"gpudirect-{kind}/nccl-plugin-gpudirecttcpx-dev" in fabric
    env = _source_profile(text, tmp_path, "LD_LIBRARY_PATH", "NCCL_NET", "FI_PROVIDER")
    assert env == {"LD_LIBRARY_PATH": lib, "NCCL_NET": "", "FI_PROVIDER": ""}
    nic_var = "NCCL_GPUDIRECTTCPX_SOCKET_IFNAME" if kind == "tcpx" else "NCCL_FASTRAK_IFNAME"
    assert nic_var in files["/etc/profile.d/trainstack-nccl.sh"]["content"]


@pytest.mark.parametrize("family", ["aws-tcp", "gcp-tcp"])
def test_interconnect_tcp_sets_nothing_rdma_specific(family, tmp_path):
    text = user_data(family)
    profile = written_files(text)["/etc/profile.d/trainstack-nccl.sh"]["content"]
    for marker in ("FI_", "NCCL_NET", "gib", "tcpx", "FASTRAK", "ofi-nccl"):
        assert marker not in profile
    assert "/opt/trainstack/rxdm" not in written_files(text)
    assert _source_profile(text, tmp_path, "NCCL_SOCKET_IFNAME") == {
        "NCCL_SOCKET_IFNAME": "^docker,lo,veth"}


# -- scripts are valid -------------------------------------------------------------------------

@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_boot_scripts_pass_shellcheck(family, tmp_path):
    # every step, the runner, the NCCL profile
    assert shellcheck_boot_scripts(user_data(family), tmp_path) >= len(STEPS) + 2


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_cloud_config_passes_cloud_inits_schema_check(family, tmp_path):
    assert_valid_cloud_config(user_data(family), tmp_path)


def test_the_schema_check_would_catch_a_broken_document(tmp_path):
    if shutil.which("cloud-init") is None:
        pytest.skip("cloud-init is not installed (Debian package cloud-init; .ci/run installs it)")
    config = tmp_path / "user-data"
    config.write_text(user_data("p5").replace("runcmd:", "runcmd: 3\nbroken:"))
    result = subprocess.run(["cloud-init", "schema", "--config-file", str(config)],
                            capture_output=True, text=True)
    assert result.returncode != 0


# -- steps run for real, against stand-ins -------------------------------------------------------

AWS_CLI = r"""echo "$*" >> "$FAKE_LOG"
case "$*" in
  *describe-auto-scaling-instances*) echo llm-finetune-nodes-0001 ;;
  *describe-auto-scaling-groups*) printf 'i-0b\ti-0a\n' ;;
  *describe-instances*) printf '10.42.0.12\t10.42.0.3\n' ;;
  "s3 cp"*) dest="${@: -1}"; mkdir -p "$FAKE_BUCKET/status"
            cp "${@: -2:1}" "$FAKE_BUCKET/status/${dest##*/}" ;;
esac
"""
AWS_CURL = r"""case "$*" in
  *api/token*) echo token ;;
  *instance-id) echo "$FAKE_ID" ;;
  *local-ipv4) echo "$FAKE_IP" ;;
  *) exit 22 ;;
esac
"""
GCP_CURL = r"""case "$*" in
  *attributes/created-by) echo projects/1/zones/us-west1-c/instanceGroupManagers/llm-finetune-nodes-x1 ;;
  *network-interfaces/0/ip) echo "$FAKE_IP" ;;
  *instance/name) echo "$FAKE_ID" ;;
  *) exit 22 ;;
esac
"""
GCLOUD = r"""echo "$*" >> "$FAKE_LOG"
case "$*" in
  *list-instances*) printf 'llm-finetune-node-b\nllm-finetune-node-a\n' ;;
  "compute instances list"*) printf '10.42.0.10\n10.42.0.9\n' ;;
  "storage cp"*) dest="${@: -1}"; mkdir -p "$FAKE_BUCKET/status"
                 cp "${@: -2:1}" "$FAKE_BUCKET/status/${dest##*/}" ;;
esac
"""


@pytest.fixture
def node(tmp_path):
    return boot_node(tmp_path)


@pytest.mark.parametrize("family, cli, curl, me, master, hostfile", [
    ("p5", ("aws", AWS_CLI), AWS_CURL, "10.42.0.12", "10.42.0.3", ["10.42.0.3", "10.42.0.12"]),
    ("a3-ultra", ("gcloud", GCLOUD), GCP_CURL, "10.42.0.10", "10.42.0.9",
     ["10.42.0.9", "10.42.0.10"])])
def test_rank_discovery_asks_the_node_group_and_orders_by_address(family, cli, curl, me, master,
                                                                   hostfile, node):
    root, bin_dir, env = node
    stand_in(bin_dir, cli[0], cli[1])
    stand_in(bin_dir, "curl", curl)
    result = run_step(user_data(family), "ranks", root, bin_dir,
                      {**env, "FAKE_IP": me, "FAKE_ID": "self"})
    assert result.returncode == 0, result.stdout + result.stderr
    assert ranks_profile(root) == {"MASTER_ADDR": master, "MASTER_PORT": "29500", "NNODES": "2",
                            "NODE_RANK": "1", "NPROC_PER_NODE": "8",
                            # /etc/trainstack/hostfile on the node, moved under root here
                            "TRAINSTACK_HOSTFILE": str(root / "etc" / "hostfile")}
    assert (root / "etc" / "hostfile").read_text() == "".join(f"{a} slots=8\n" for a in hostfile)
    calls = Path(env["FAKE_LOG"]).read_text()
    if cli[0] == "aws":  # the group the node belongs to, then its in-service instances
        assert "--instance-ids self" in calls and "llm-finetune-nodes-0001" in calls
        assert "describe-instances --region us-east-1 --instance-ids i-0b i-0a" in calls
    else:
        assert "list-instances llm-finetune-nodes-x1 --zone us-west1-c" in calls
        assert "name:( llm-finetune-node-b llm-finetune-node-a )" in calls


def test_rank_discovery_fails_the_step_when_the_group_never_fills(node):
    root, bin_dir, env = node
    stand_in(bin_dir, "aws", AWS_CLI.replace("printf '10.42.0.12\\t10.42.0.3\\n'", "echo 10.42.0.12"))
    stand_in(bin_dir, "curl", AWS_CURL)
    stand_in(bin_dir, "sleep", "exit 0")
    result = run_step(user_data("p5"), "ranks", root, bin_dir,
                      {**env, "FAKE_IP": "10.42.0.12", "FAKE_ID": "self"})
    assert result.returncode != 0 and "1 of 2 nodes running" in result.stdout
    assert ranks_profile(root)["NNODES"] == "1"


@pytest.mark.parametrize("family, cli, curl, node_id, devices", [
    ("p5", ("aws", AWS_CLI), AWS_CURL, "i-0a", 32),
    ("a4", ("gcloud", GCLOUD), GCP_CURL, "llm-finetune-node-a", 8)])
def test_health_record_lands_in_the_bucket_and_status_reads_it(family, cli, curl, node_id,
                                                               devices, node):
    root, bin_dir, env = node
    stand_in(bin_dir, cli[0], cli[1])
    stand_in(bin_dir, "curl", curl)
    stand_in(bin_dir, "nvidia-smi", 'for i in 0 1 2 3 4 5 6 7; do echo "GPU $i: H100 (UUID: x)"; '
             'done\n')
    stand_in(bin_dir, "mountpoint", 'case "$2" in */lustre) exit 0 ;; esac; exit 1\n')
    for i in range(devices):
        (root / "infiniband" / f"dev{i}").mkdir(parents=True)
    (root / "state" / "steps").mkdir(parents=True)
    (root / "state" / "steps" / "lustre.rc").write_text("0\n")
    (root / "state" / "steps" / "scratch.rc").write_text("1\n")
    result = run_step(user_data(family), "health", root, bin_dir, {**env, "FAKE_ID": node_id})
    assert result.returncode == 0, result.stdout + result.stderr
    (health,) = read_records(f"file://{env['FAKE_BUCKET']}")
    assert health.node == node_id
    record = health.record
    assert (record["gpus"], record["gpus_expected"]) == (8, 8)
    assert (record["rdma_devices"], record["rdma_expected"]) == (devices, devices)
    assert record["filesystem_mounted"] is True and record["scratch_mounted"] is False
    assert record["steps"] == {"lustre": 0, "scratch": 1} and health.failed_steps == ["scratch"]
    # GPUs, fabric and filesystem are up, but a step failed: the record never says ok (issue 31).
    assert not health.ok and record["ok"] is False
    # The same node with every step passed is ok.
    (root / "state" / "steps" / "scratch.rc").write_text("0\n")
    assert run_step(user_data(family), "health", root, bin_dir,
                    {**env, "FAKE_ID": node_id}).returncode == 0
    (health,) = read_records(f"file://{env['FAKE_BUCKET']}")
    assert health.ok and health.failed_steps == []


def test_health_is_not_ok_without_the_filesystem(node):
    root, bin_dir, env = node
    stand_in(bin_dir, "aws", AWS_CLI)
    stand_in(bin_dir, "curl", AWS_CURL)
    stand_in(bin_dir, "nvidia-smi", 'for i in 0 1 2 3 4 5 6 7; do echo "GPU $i: x"; done\n')
    stand_in(bin_dir, "mountpoint", "exit 1\n")
    for i in range(32):
        (root / "infiniband" / f"dev{i}").mkdir(parents=True)
    result = run_step(user_data("p5"), "health", root, bin_dir, {**env, "FAKE_ID": "i-0a"})
    assert result.returncode == 0, result.stderr
    (health,) = read_records(f"file://{env['FAKE_BUCKET']}")
    assert health.record["filesystem_mounted"] is False and not health.ok


# -- the extension points the lifecycle and the other clouds use -----------------------------------

def _ctx(**changes) -> NodeContext:
    base = dict(cloud="aws", cluster="c1", stack="s", nodes=2, gpus_per_node=8,
                instance_type="p5.48xlarge", bucket="b", filesystem_source="fs@tcp:/m",
                region="us-east-1", zone="us-east-1a", use_rdma=True, interconnect="fastest",
                fabric="efa", rdma_nics=32)
    return NodeContext(**{**base, **changes})


HEARTBEAT = BootStep("heartbeat", "systemctl enable --now example-beat.timer",
                     "example heartbeat", files=(BootFile("/etc/systemd/system/example-beat.timer",
                                                          "[Timer]\nOnUnitActiveSec=5min\n"),))


@pytest.mark.parametrize("cloud", [AwsBoot(), GcpBoot()])
def test_extra_steps_run_before_the_health_record_with_their_files(cloud):
    text = render_user_data(_ctx(cloud=cloud.cloud), cloud, extra_steps=[HEARTBEAT])
    assert [c[1] for c in runcmd(text)] == [*STEPS[:-1], "heartbeat", "health"]
    assert "/etc/systemd/system/example-beat.timer" in written_files(text)
    assert "systemctl enable --now example-beat.timer" in step_text(text, "heartbeat")


def test_a_registered_step_provider_reaches_every_cloud():
    def provider(ctx):
        return [HEARTBEAT] if ctx.nodes > 1 else []
    extensions.add_step_provider(provider)
    try:
        for cloud in (AwsBoot(), GcpBoot()):
            names = [c[1] for c in runcmd(render_user_data(_ctx(cloud=cloud.cloud), cloud))]
            assert names[-2:] == ["heartbeat", "health"]
        assert "heartbeat" not in str(runcmd(render_user_data(_ctx(nodes=1), AwsBoot())))
    finally:
        extensions.remove_step_provider(provider)


def test_a_step_name_twice_is_refused():
    with pytest.raises(ValueError, match="repeated: ranks"):
        render_user_data(_ctx(), AwsBoot(), extra_steps=[BootStep("ranks", "true")])



class ToyBoot(CloudBoot):
    """What another cloud (Azure, Alibaba) writes: only its own facts."""

    cloud = "toy"
    lustre_mount_options = "noatime,flock"

    def lustre_install(self, ctx):
        return "apt-get install -y -qq toy-lustre-client"

    def nvme_devices(self):
        return "ls /dev/toy-nvme*"

    def fabric(self, ctx):
        return Fabric("toy-rdma", "export NCCL_IB_HCA=toy", rdma_devices_expected=4)

    def node_name(self):
        return "hostname"

    def self_address(self):
        return "hostname -I | cut -d' ' -f1"

    def peer_addresses(self, ctx):
        return "toy-cli list-nodes"

    def upload(self, ctx, local_path, key):
        return f'toy-cli put "{local_path}" "toy://$TS_BUCKET/{key}"'


def test_a_new_cloud_plugs_in_by_writing_only_its_own_facts():
    text = render_user_data(_ctx(cloud="toy"), ToyBoot())
    # No preemption step: trainstack reads no preemption notice of a toy cloud.
    assert [c[1] for c in runcmd(text)] == [s for s in STEPS if s != "preemption"]
    files = written_files(text)
    assert "TS_LUSTRE_OPTIONS=noatime,flock" in files["/etc/trainstack/node.env"]["content"]
    assert "export NCCL_IB_HCA=toy" in files["/etc/profile.d/trainstack-nccl.sh"]["content"]
    assert "toy-cli list-nodes" in step_text(text, "ranks")
    assert 'toy-cli put "/var/lib/trainstack/health.json" "toy://$TS_BUCKET/status/$1.json"' in \
        step_text(text, "health")
    assert '"$rdma" 4 "$TS_FABRIC"' in step_text(text, "health")


def test_large_aws_user_data_is_gzipped_and_still_decodes():
    big = BootStep("big", "\n".join(f"echo line {i} {'x' * 60}" for i in range(200)))
    text = render_boot(_ctx(), AwsBoot(), extra_steps=[big], ship=True).text
    assert len(text.encode()) > 16 * 1024
    encoded = aws_user_data(text)
    assert base64.b64decode(encoded)[:2] == b"\x1f\x8b"
    assert decode_aws_user_data(encoded) == text
    # The standard boot with the idle agent is over 16 KB and goes gzipped; a short one is not.
    small = cloud_config([BootStep("small", "true")])
    assert base64.b64decode(aws_user_data(small)).decode() == small  # plain when it fits


def test_the_mount_is_retried_until_the_filesystem_answers(node):
    root, bin_dir, env = node
    root.mkdir(parents=True, exist_ok=True)
    (root / "filesystems").write_text("nodev\tlustre\n")  # the client module is loaded
    stand_in(bin_dir, "sleep", "exit 0")
    stand_in(bin_dir, "mountpoint", '[ -e "$FAKE_MOUNTED" ]\n')
    # The filesystem answers on the third try, as FSx does once it is AVAILABLE.
    stand_in(bin_dir, "mount", 'echo "$*" >> "$FAKE_LOG"\n'
             'n=$(wc -l < "$FAKE_LOG"); [ "$n" -ge 3 ] && touch "$FAKE_MOUNTED"\n')
    result = run_step(user_data("p5"), "lustre", root, bin_dir,
                      {**env, "FAKE_MOUNTED": str(root / "mounted")})
    assert result.returncode == 0, result.stdout + result.stderr
    calls = Path(env["FAKE_LOG"]).read_text().splitlines()
    source = "llm-finetune-fs.fsx.offline.invalid@tcp:/offline"
    assert calls == [f"-t lustre -o relatime,flock {source} {root / 'lustre'}"] * 3
    assert result.stdout.count("not mountable yet") == 2
    assert (root / "fstab").read_text() == (f"{source} {root / 'lustre'} lustre "
                                            "relatime,flock,_netdev 0 0\n")


def test_no_lustre_client_for_the_kernel_fails_the_step_fast(node):
    root, bin_dir, env = node
    root.mkdir(parents=True, exist_ok=True)
    (root / "filesystems").write_text("nodev\tproc\n")
    for tool in ("modprobe", "apt-get", "curl", "gpg"):
        stand_in(bin_dir, tool, "exit 1\n")
    stand_in(bin_dir, "sleep", "exit 0")
    stand_in(bin_dir, "mount", 'echo "$*" >> "$FAKE_LOG"\n')
    result = run_step(user_data("a3-ultra"), "lustre", root, bin_dir, env)
    assert result.returncode == 1 and "no Lustre client module for kernel" in result.stdout
    assert not Path(env["FAKE_LOG"]).exists()  # never tried to mount
