"""The Azure nodes' boot as the scale set receives it (custom data, under the mock engine): the
shared boot steps with Azure's facts (components/azure/boot.py). The Managed Lustre client for
the running kernel and its mount, the HPC image's NCCL settings per ND size, ranks from the scale
set's NICs, the health record into the blob container. Scripts pass shellcheck, the document
passes cloud-init's schema check, and the steps run for real against stand-ins."""
from __future__ import annotations

import functools
import subprocess
from pathlib import Path

import pytest

from tests.boot_helpers import (
    assert_valid_cloud_config,
    boot_node,
    edited_example_plan,
    location_edit,
    ranks_profile,
    run_step,
    runcmd,
    shellcheck_boot_scripts,
    stand_in,
    step_text,
    written_files,
)
from trainstack.measure.status import read_records
from trainstack_components.azure.boot import (
    CUSTOM_DATA_LIMIT,
    AzureBoot,
    custom_data,
    decode_custom_data,
    nccl_env,
)
from trainstack_components.boot import MOUNT_PATH, BootStep, NodeContext, render_user_data

VMSS = "azure-native:compute:VirtualMachineScaleSet"
STEPS = ["idle", "lustre", "scratch", "fabric", "ranks", "packages", "runtime", "jobs", "preemption",
         "scale-in-unmount", "health"]
CLIENT_ID = "00000000-0000-0000-0000-00000000c1e7"   # the offline identity's client id


def _edit(gpu=None, interconnect=None):
    return location_edit("azure", gpu, interconnect)


# family -> (spec edit, instance type, fabric kind)
FAMILIES = {
    "ndv5-h100": (_edit(), "Standard_ND96isr_H100_v5", "infiniband"),
    "ndv4-a100": (_edit(["A100-80GB"]), "Standard_ND96amsr_A100_v4", "infiniband"),
    "tcp": (_edit(interconnect="tcp"), "Standard_ND96isr_H100_v5", "tcp"),
}


@functools.lru_cache(maxsize=None)
def family_plan(family: str):
    return edited_example_plan("azure", FAMILIES[family][0])


@functools.lru_cache(maxsize=None)
def user_data(family: str) -> str:
    (vmss,) = family_plan(family).of_type(VMSS)
    return decode_custom_data(vmss.inputs["virtualMachineProfile"]["osProfile"]["customData"])


def _profile_env(text: str, tmp_path: Path, *names: str) -> dict[str, str]:
    profile = tmp_path / "nccl.sh"
    profile.write_text(written_files(text)["/etc/profile.d/trainstack-nccl.sh"]["content"])
    script = f". {profile}; " + "; ".join(f'echo "{n}=${{{n}:-}}"' for n in names)
    out = subprocess.run(["sh", "-c", script], capture_output=True, text=True, check=True,
                         env={"PATH": "/usr/bin:/bin"}).stdout
    return dict(line.split("=", 1) for line in out.splitlines())


# -- what the plan renders -------------------------------------------------------------------

@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_the_scale_set_boots_the_shared_steps_in_order(family):
    plan = family_plan(family)
    assert plan.inputs.selection.instance.name == FAMILIES[family][1]
    assert [cmd[1] for cmd in runcmd(user_data(family))] == STEPS
    outline = plan.outputs["node_boot"]
    assert f"fabric: NCCL environment for {FAMILIES[family][2]};" in outline
    assert plan.outputs["mount_path"] == MOUNT_PATH


def test_managed_lustre_mounts_at_the_shared_path_with_its_documented_options():
    text = user_data("ndv5-h100")
    env = written_files(text)["/etc/trainstack/node.env"]["content"]
    # The offline MGS address (192.0.2.4); Managed Lustre's file system is always `lustrefs`.
    assert "TS_FS_SOURCE=192.0.2.4@tcp:/lustrefs" in env
    assert "TS_LUSTRE_OPTIONS=noatime,flock" in env and f"TS_MOUNT={MOUNT_PATH}" in env
    lustre = step_text(text, "lustre")
    assert "https://packages.microsoft.com/repos/amlfs-$VERSION_CODENAME/" in lustre
    assert 'apt-get install -y -qq "$build=$kernel"' in lustre
    assert family_plan("ndv5-h100").outputs["filesystem_mount_command"].endswith(
        f"192.0.2.4@tcp:/lustrefs {MOUNT_PATH}")


@pytest.mark.parametrize("family, topo", [("ndv5-h100", "/opt/microsoft/ndv5-topo.xml"),
                                          ("ndv4-a100", "/opt/microsoft/ndv4-topo.xml")])
def test_infiniband_sizes_get_the_hpc_images_nccl_settings(family, topo, tmp_path):
    text = user_data(family)
    env = _profile_env(text, tmp_path, "NCCL_IB_PCI_RELAXED_ORDERING", "NCCL_TOPO_FILE",
                       "NCCL_SOCKET_IFNAME", "UCX_IB_PCI_RELAXED_ORDERING", "NCCL_IB_DISABLE",
                       "CUDA_DEVICE_ORDER")
    assert env == {"NCCL_IB_PCI_RELAXED_ORDERING": "1", "NCCL_TOPO_FILE": topo,
                   "NCCL_SOCKET_IFNAME": "eth0", "UCX_IB_PCI_RELAXED_ORDERING": "on",
                   "NCCL_IB_DISABLE": "", "CUDA_DEVICE_ORDER": "PCI_BUS_ID"}
    assert f"if [ ! -r {topo} ]" in step_text(text, "fabric")
    assert '"$rdma" 8 "$TS_FABRIC"' in step_text(text, "health")  # 8 IB ports expected


def test_interconnect_tcp_turns_infiniband_off(tmp_path):
    text = user_data("tcp")
    env = _profile_env(text, tmp_path, "NCCL_IB_DISABLE", "NCCL_TOPO_FILE", "NCCL_SOCKET_IFNAME")
    assert env == {"NCCL_IB_DISABLE": "1", "NCCL_TOPO_FILE": "", "NCCL_SOCKET_IFNAME": "eth0"}
    assert '"$rdma" 0 "$TS_FABRIC"' in step_text(text, "health")
    assert nccl_env("Standard_ND96isr_H100_v5", False)["NCCL_IB_DISABLE"] == "1"


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_boot_scripts_pass_shellcheck(family, tmp_path):
    assert shellcheck_boot_scripts(user_data(family), tmp_path) >= len(STEPS) + 2


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_cloud_config_passes_cloud_inits_schema_check(family, tmp_path):
    assert_valid_cloud_config(user_data(family), tmp_path)


def test_custom_data_is_base64_and_gzipped_only_over_azures_limit():
    ctx = NodeContext(cloud="azure", cluster="c", stack="s", nodes=2, gpus_per_node=8,
                      instance_type="Standard_ND96isr_H100_v5", bucket="data",
                      filesystem_source="10.0.0.4@tcp:/lustrefs", region="eastus", zone="1",
                      use_rdma=True, interconnect="fastest", fabric="infiniband", rdma_nics=8)
    small = render_user_data(ctx, AzureBoot())
    assert decode_custom_data(custom_data(small)) == small
    big = BootStep("big", "\n".join(f"echo line {i} {'x' * 60}" for i in range(900)))
    text = render_user_data(ctx, AzureBoot(), extra_steps=[big])
    encoded = custom_data(text)
    assert len(text.encode()) * 4 / 3 > CUSTOM_DATA_LIMIT >= len(encoded)
    assert decode_custom_data(encoded) == text


# -- steps run for real, against stand-ins -----------------------------------------------------

IMDS_CURL = r"""case "$*" in
  *compute/name*) echo "$FAKE_NAME" ;;
  *compute/resourceGroupName*) echo trainstack-llm-finetune-azure ;;
  *compute/vmScaleSetName*) echo llm-finetune-nodes ;;
  *privateIpAddress*) echo "$FAKE_IP" ;;
  *) exit 22 ;;
esac
"""
AZ = r"""echo "$*" >> "$FAKE_LOG"
case "$*" in
  "login --identity --client-id"*) [ -z "${OLD_AZ:-}" ] || exit 2 ;;
  *"vmss nic list"*) printf '10.40.0.12\n10.40.0.5\n' ;;
  *"storage blob upload"*)
    while [ $# -gt 0 ]; do
      case "$1" in --name) key="$2" ;; --file) src="$2" ;; --container-name) c="$2" ;; esac
      shift
    done
    mkdir -p "$FAKE_BUCKET/$c/$(dirname "$key")"; cp "$src" "$FAKE_BUCKET/$c/$key" ;;
esac
"""


@pytest.fixture
def node(tmp_path):
    root, bin_dir, env = boot_node(tmp_path)
    stand_in(bin_dir, "az", AZ)
    stand_in(bin_dir, "curl", IMDS_CURL)
    return root, bin_dir, env


@pytest.mark.parametrize("old_az", [False, True])
def test_rank_discovery_asks_the_scale_set_as_the_node_identity(node, old_az):
    root, bin_dir, env = node
    result = run_step(user_data("ndv5-h100"), "ranks", root, bin_dir,
                      {**env, "FAKE_IP": "10.40.0.12", **({"OLD_AZ": "1"} if old_az else {})})
    assert result.returncode == 0, result.stdout + result.stderr
    ranks = ranks_profile(root)
    assert (ranks["MASTER_ADDR"], ranks["NNODES"], ranks["NODE_RANK"]) == ("10.40.0.5", "2", "1")
    assert (root / "etc" / "hostfile").read_text() == "10.40.0.5 slots=8\n10.40.0.12 slots=8\n"
    calls = Path(env["FAKE_LOG"]).read_text().splitlines()
    login = f"login --identity --username {CLIENT_ID} --output none" if old_az else \
        f"login --identity --client-id {CLIENT_ID} --output none"
    assert login in calls
    assert ("vmss nic list --resource-group trainstack-llm-finetune-azure --vmss-name "
            "llm-finetune-nodes --query [?provisioningState=='Succeeded'].ipConfigurations[0]"
            ".privateIPAddress --output tsv") in calls


def _ib_ports(root: Path, infiniband: int, ethernet: int) -> None:
    for i in range(infiniband + ethernet):
        port = root / "infiniband" / f"mlx5_{i}" / "ports" / "1"
        port.mkdir(parents=True)
        (port / "link_layer").write_text("InfiniBand\n" if i < infiniband else "Ethernet\n")


@pytest.mark.parametrize("infiniband, ok", [(8, True), (7, False)])
def test_health_record_lands_in_the_container_and_status_reads_it(node, infiniband, ok):
    root, bin_dir, env = node
    stand_in(bin_dir, "nvidia-smi", 'for i in 0 1 2 3 4 5 6 7; do echo "GPU $i: H100 (UUID: x)"; '
             'done\n')
    stand_in(bin_dir, "mountpoint", 'case "$2" in */lustre) exit 0 ;; esac; exit 1\n')
    _ib_ports(root, infiniband, ethernet=1)  # accelerated networking's VF is no IB port
    (root / "state" / "steps").mkdir(parents=True)
    (root / "state" / "steps" / "lustre.rc").write_text("0\n")
    result = run_step(user_data("ndv5-h100"), "health", root, bin_dir,
                      {**env, "FAKE_NAME": "llm-finetune-nodes_3"})
    assert result.returncode == 0, result.stdout + result.stderr
    (health,) = read_records(f"file://{env['FAKE_BUCKET']}/data")
    assert health.node == "llm-finetune-nodes_3"
    assert (health.record["rdma_devices"], health.record["rdma_expected"]) == (infiniband, 8)
    assert health.record["cloud"] == "azure" and health.record["filesystem_mounted"] is True
    assert health.ok is ok
    upload = next(c for c in Path(env["FAKE_LOG"]).read_text().splitlines() if "upload" in c)
    assert "--auth-mode login --account-name tsllmfinetune" in upload


APT_CACHE = r"""case "$1" in
  pkgnames) printf 'amlfs-lustre-client-2.15.7-33-g79ddf99\namlfs-lustre-client-2.15.8-9-gaaaaaaa\n'
            printf 'amlfs-lustre-client-2.15.6-30-g0000000\n' ;;
  madison)
    case "$2" in
      *2.15.8*) echo " $2 | 5.15.0-1090-azure | https://packages.microsoft.com/repos/amlfs-jammy" ;;
      *) echo " $2 | 5.15.0-1071-azure | https://packages.microsoft.com/repos/amlfs-jammy"
         echo " $2 | 5.15.0-1090-azure | https://packages.microsoft.com/repos/amlfs-jammy" ;;
    esac ;;
esac
"""


def test_the_lustre_client_is_the_newest_build_packaged_for_the_running_kernel(node):
    root, bin_dir, env = node
    root.mkdir(parents=True, exist_ok=True)
    (root / "filesystems").write_text("nodev\tproc\n")
    (root / "apt" / "sources.list.d").mkdir(parents=True)  # as on every Ubuntu node
    installed = root / "installed"
    stand_in(bin_dir, "uname", "echo 5.15.0-1071-azure\n")
    stand_in(bin_dir, "apt-cache", APT_CACHE)
    stand_in(bin_dir, "apt-get", f'echo "apt-get $*" >> "$FAKE_LOG"\n'
             f'if [ "$1" = install ]; then touch {installed}; fi\n')
    stand_in(bin_dir, "curl", "echo key\n")
    stand_in(bin_dir, "gpg", 'cat > /dev/null; while [ $# -gt 1 ]; do shift; done; : > "$1"\n')
    stand_in(bin_dir, "modprobe", f"[ -e {installed} ]\n")
    stand_in(bin_dir, "sleep", "exit 0")
    stand_in(bin_dir, "mountpoint", '[ -e "$FAKE_MOUNTED" ]\n')
    stand_in(bin_dir, "mount", 'echo "mount $*" >> "$FAKE_LOG"; touch "$FAKE_MOUNTED"\n')
    result = run_step(user_data("ndv5-h100"), "lustre", root, bin_dir,
                      {**env, "FAKE_MOUNTED": str(root / "mounted")})
    assert result.returncode == 0, result.stdout + result.stderr
    calls = Path(env["FAKE_LOG"]).read_text().splitlines()
    # 2.15.8 has no package for this kernel; 2.15.7 does and is newer than 2.15.6.
    assert "apt-get install -y -qq amlfs-lustre-client-2.15.7-33-g79ddf99=5.15.0-1071-azure" in calls
    assert f"mount -t lustre -o noatime,flock 192.0.2.4@tcp:/lustrefs {root / 'lustre'}" in calls
    assert "packages.microsoft.com/repos/amlfs-" in (root / "apt" / "sources.list.d" /
                                                    "amlfs.list").read_text()
    assert (root / "fstab").read_text().endswith("lustre noatime,flock,_netdev 0 0\n")


def test_no_lustre_build_for_the_kernel_fails_the_step_and_never_mounts(node):
    root, bin_dir, env = node
    root.mkdir(parents=True, exist_ok=True)
    (root / "filesystems").write_text("nodev\tproc\n")
    (root / "apt" / "sources.list.d").mkdir(parents=True)  # as on every Ubuntu node
    stand_in(bin_dir, "uname", "echo 6.99.0-1-azure\n")
    stand_in(bin_dir, "apt-cache", APT_CACHE)
    for tool in ("apt-get", "curl", "gpg"):
        stand_in(bin_dir, tool, "cat > /dev/null 2>&1 || true; exit 0\n")
    stand_in(bin_dir, "modprobe", "exit 1\n")
    stand_in(bin_dir, "sleep", "exit 0")
    stand_in(bin_dir, "mount", 'echo "mount $*" >> "$FAKE_LOG"\n')
    result = run_step(user_data("ndv5-h100"), "lustre", root, bin_dir, env)
    assert result.returncode == 1
    assert "no amlfs-lustre-client build for kernel 6.99.0-1-azure" in result.stdout
    assert not Path(env["FAKE_LOG"]).exists()


# -- issue 31: the job agent and the container on the HPC image ----------------------------------

def test_the_agent_reads_the_blob_container_as_the_user_assigned_identity():
    """adlfs would open the container anonymously, and DefaultAzureCredential would pick the
    system identity (no data role) without AZURE_CLIENT_ID."""
    script = step_text(user_data("ndv5-h100"), "jobs")
    assert f"printf '%s=%s\\n' AZURE_CLIENT_ID {CLIENT_ID}" in script
    assert "printf '%s=%s\\n' AZURE_STORAGE_ANON false" in script


@pytest.mark.parametrize("family, mounts", [("ndv5-h100", "patterns=(/opt/microsoft)"),
                                            ("tcp", None)])
def test_the_topology_files_folder_enters_the_container(family, mounts):
    script = step_text(user_data(family), "fabric")
    if mounts:
        assert mounts in script
    else:
        assert "patterns=(" not in script and ": > /etc/trainstack/container-mounts" in script
