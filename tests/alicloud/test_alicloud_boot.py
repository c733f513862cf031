"""Alibaba Cloud nodes on the shared boot module (issues 9 and 12): the rendered user data per
instance type (eRDMA, SCC RoCE, TCP), the CPFS-NFS mount at the shared path, ranks from the
fixed address plan, the health record in OSS through the Alibaba Cloud CLI, and the CPFS export
the reaper runs. Steps run for real under bash with stand-ins for curl and `aliyun`."""
from __future__ import annotations

import functools
import json
import subprocess
from pathlib import Path

import pytest

from tests.alicloud_helpers import STUB_REGION, STUB_ZONE, stub_cpfs_region_prices
from tests.boot_helpers import (
    assert_valid_cloud_config,
    boot_node,
    edited_example_plan,
    location_edit,
    ranks_profile,
    run_step,
    shellcheck_boot_scripts,
    stand_in,
    step_text,
    written_files,
)
from trainstack.measure.status import read_records
from trainstack_components.alicloud import planning
from trainstack_components.alicloud.boot import (
    ERDMA_INSTALLER,
    ERDMA_INSTALLER_SHA256,
    decode_ecs_user_data,
    ecs_user_data,
)
from trainstack_components.alicloud.cluster import export_command

INSTANCE = "alicloud:ecs/instance:Instance"


def _types(gpu=None, interconnect=None, **location):
    return location_edit("alicloud", gpu, interconnect, **location)


def _cpfs(gpu=None, interconnect=None, **location):
    """In the STUB-priced CPFS region (tests/alicloud_helpers.py)."""
    return _types(gpu, interconnect, region=STUB_REGION, zone=STUB_ZONE, **location)


@pytest.fixture(scope="module", autouse=True)
def stub_prices():
    mp = pytest.MonkeyPatch()
    stub_cpfs_region_prices(mp)
    yield
    mp.undo()


# shape -> (spec edit, instance type, NCCL fabric kind, RDMA devices expected)
SHAPES = {
    "ebmgn8v": (_cpfs(["H(96GB)"]), "ecs.ebmgn8v.48xlarge", "erdma", 2),
    "gn8v": (_cpfs(instance_type="ecs.gn8v-8x.48xlarge"), "ecs.gn8v-8x.48xlarge", "erdma", 1),
    "gn7e": (_cpfs(["A100-80GB"]), "ecs.gn7e-c16g1.32xlarge", "tcp", 0),
    "scc": (_types(["A100-80GB"], region="cn-beijing", zone="cn-beijing-i"),
            "ecs.sccgn7ex.32xlarge", "roce", None),
    "ebmgn8v-tcp": (_cpfs(["H(96GB)"], interconnect="tcp"), "ecs.ebmgn8v.48xlarge", "tcp", 0),
}


@functools.lru_cache(maxsize=None)
def shape_plan(shape: str):
    return edited_example_plan("alicloud", SHAPES[shape][0])


@functools.lru_cache(maxsize=None)
def user_data(shape: str) -> str:
    nodes = shape_plan(shape).of_type(INSTANCE)
    return decode_ecs_user_data(nodes[0].inputs["userData"])


def node_env(text: str) -> dict[str, str]:
    content = written_files(text)["/etc/trainstack/node.env"]["content"]
    return dict(line.split("=", 1) for line in content.splitlines() if "=" in line
                and not line.startswith("#"))


def nccl_profile(text: str) -> str:
    return written_files(text)["/etc/profile.d/trainstack-nccl.sh"]["content"]


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_the_catalog_picks_the_type_under_test(shape):
    assert shape_plan(shape).outputs["instance_type"] == SHAPES[shape][1]


def test_user_data_is_base64_and_long_text_is_gzipped():
    text = "#cloud-config\n" + "x" * 40000
    encoded = ecs_user_data(text)
    assert len(encoded) < len(text) and decode_ecs_user_data(encoded) == text
    assert decode_ecs_user_data(ecs_user_data("#cloud-config\n")) == "#cloud-config\n"


OPTIONS = "vers=3,rsize=1048576,wsize=1048576,hard,timeo=600,retrans=2,noresvport,_netdev"


def test_cpfs_mounts_at_the_shared_path_through_the_cpfs_nfs_client():
    text = user_data("ebmgn8v")
    env = node_env(text)
    assert env["TS_MOUNT"] == "/lustre" and env["TS_CLOUD"] == "alicloud"
    assert env["TS_LUSTRE_OPTIONS"] == OPTIONS  # NFSv3 with Alibaba's recommended options
    script = step_text(text, "lustre")
    assert 'mount -t cpfs-nfs -o "$TS_LUSTRE_OPTIONS" "$TS_FS_SOURCE" "$TS_MOUNT"' in script
    assert "aliyun-alinas-utils-latest.deb" in script
    assert f"$TS_MOUNT cpfs-nfs {OPTIONS} 0 0" in script  # fstab line
    assert shape_plan("ebmgn8v").outputs["filesystem_mount_name"] == "/lustre"


def test_the_nodes_mount_an_nfs_export_of_the_bucket_fileset():
    plan = shape_plan("ebmgn8v")
    (fs,) = plan.of_type("alicloud:nas/fileSystem:FileSystem")
    (fileset,) = plan.of_type("alicloud:nas/fileset:Fileset")
    (flow,) = plan.of_type("alicloud:nas/dataFlow:DataFlow")
    (service,) = plan.of_type("alicloud:nas/protocolService:ProtocolService")
    (export,) = plan.of_type("alicloud:nas/protocolMountTarget:ProtocolMountTarget")
    switches = {v.name: v for v in plan.of_type("alicloud:vpc/switch:Switch")}
    vpcs = {v.name: v for v in plan.of_type("alicloud:vpc/network:Network")}
    assert (service.inputs["protocolType"], service.inputs["fileSystemId"]) == ("NFS",
                                                                             f"{fs.name}-id")
    # The export in the nodes' vSwitch and VPC; the service in the file system's (issue 21).
    # The export is the fileset the data flow copies to the bucket, never the root: whatever
    # the nodes write is within the export's reach (issue 34 review).
    assert "path" not in export.inputs
    assert fileset.urn in export.property_dependencies["fsetId"]
    assert fileset.urn in flow.property_dependencies["fsetId"]
    assert fileset.inputs["fileSystemPath"] == plan.outputs["filesystem_node_path"] \
        == plan.outputs["filesystem_bucket_path"] == "/bucket/"
    assert export.inputs["vswitchId"] == "llm-finetune-vsw-id"
    assert export.inputs["vpcId"] == "llm-finetune-vpc-id" != fs.inputs["vpcId"]
    assert service.inputs["vpcId"] == fs.inputs["vpcId"] == "llm-finetune-fs-vpc-id"
    assert service.inputs["vswitchId"] == "llm-finetune-fs-vsw-id" in {f"{n}-id" for n in switches}
    import ipaddress
    assert not ipaddress.ip_network(vpcs["llm-finetune-vpc"].inputs["cidrBlock"]).overlaps(
        ipaddress.ip_network(vpcs["llm-finetune-fs-vpc"].inputs["cidrBlock"]))
    for node in plan.of_type(INSTANCE):
        assert export.urn in node.dependencies


MOUNT_ALIYUN = r"""echo "$*" >> "$FAKE_LOG"
case "$*" in
  "configure set"*) ;;
  *"nas DescribeProtocolMountTarget"*)
    n=$(grep -c DescribeProtocolMountTarget "$FAKE_LOG")
    if [ "$n" -lt 2 ]; then echo '{"ProtocolMountTargets": []}'
    else echo '{"ProtocolMountTargets": [{"ExportId": "exp-1",
      "ProtocolMountTargetDomain": "cpfs-0abc-0def.eu-central-1.cpfs.aliyuncs.com"}]}'; fi ;;
  *) exit 3 ;;
esac
"""


def test_the_mount_asks_for_the_export_address_until_it_exists(node):
    root, bin_dir, env = node
    root.mkdir(parents=True, exist_ok=True)
    (root / "filesystems").write_text("nodev\tnfs\n")
    stand_in(bin_dir, "aliyun", MOUNT_ALIYUN)
    stand_in(bin_dir, "mount.cpfs-nfs", "exit 0\n")
    stand_in(bin_dir, "modprobe", "exit 0\n")
    stand_in(bin_dir, "sleep", "exit 0\n")
    stand_in(bin_dir, "mountpoint", '[ -e "$FAKE_MOUNTED" ]\n')
    stand_in(bin_dir, "mount", 'echo "mount $*" >> "$FAKE_LOG"\n'
             'case "$*" in *:/share*) touch "$FAKE_MOUNTED" ;; *) exit 32 ;; esac\n')
    mounted = root / "mounted"
    result = run_step(user_data("ebmgn8v"), "lustre", root, bin_dir,
                      {**env, "FAKE_MOUNTED": str(mounted)})
    assert result.returncode == 0, result.stdout + result.stderr
    calls = Path(env["FAKE_LOG"]).read_text()
    plan = shape_plan("ebmgn8v")
    role = plan.outputs["node_role"]
    assert f"--mode EcsRamRole --ram-role-name {role}" in calls
    assert (f"nas DescribeProtocolMountTarget --RegionId {STUB_REGION} --FileSystemId "
            "llm-finetune-fs-id --Filters.1.Key ExportIds --Filters.1.Value") in calls
    # The export's mount address: <domain>:/share<export path> (alibabacloud-nas-utils README:
    # "cpfs-....cpfs.aliyuncs.com:/share/fileset").
    source = "cpfs-0abc-0def.eu-central-1.cpfs.aliyuncs.com:/share/bucket"
    assert f"mount -t cpfs-nfs -o {OPTIONS} {source} " in calls
    assert (root / "fstab").read_text().startswith(f"{source} ")


@pytest.mark.parametrize("shape", ["ebmgn8v", "gn8v"])
def test_erdma_types_install_the_driver_and_set_nccl_for_erdma(shape):
    text = user_data(shape)
    profile = nccl_profile(text)
    for line in ("export NCCL_IB_DISABLE=0", "export NCCL_IB_HCA=erdma",
                 "export NCCL_IB_GID_INDEX=1", "export NCCL_SOCKET_IFNAME=eth0",
                 "export NCCL_PROTO=^LL128"):
        assert line in profile
    setup = step_text(text, "fabric")
    assert ERDMA_INSTALLER in setup and ERDMA_INSTALLER_SHA256 in setup
    assert f'[ "$eri" -ge {SHAPES[shape][3]} ]' in setup
    assert node_env(text)["TS_FABRIC"] == "erdma"


@pytest.mark.parametrize("shape", ["gn7e", "ebmgn8v-tcp"])
def test_tcp_types_and_interconnect_tcp_set_nothing_rdma_specific(shape):
    text = user_data(shape)
    profile = nccl_profile(text)
    assert "NCCL_IB_HCA" not in profile and "export NCCL_IB_DISABLE=1" in profile
    assert "erdma" not in step_text(text, "fabric")
    assert node_env(text)["TS_FABRIC"] == "tcp"


def test_scc_types_use_their_roce_network():
    text = user_data("scc")
    assert "export NCCL_IB_HCA=mlx5" in nccl_profile(text)
    assert "erdma" not in step_text(text, "fabric")
    assert node_env(text)["TS_FABRIC"] == "roce"


def test_the_node_role_may_look_up_only_its_own_export():
    plan = shape_plan("ebmgn8v")
    (policy,) = plan.of_type("alicloud:ram/policy:Policy")
    doc = json.loads(policy.inputs["policyDocument"])
    nas = [s for s in doc["Statement"] if any(a.startswith("nas:") for a in s["Action"])]
    assert nas == [{"Effect": "Allow", "Action": ["nas:DescribeProtocolMountTarget"],
                    "Resource": ["acs:nas:*:*:filesystem/llm-finetune-fs-id"]}]


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_boot_scripts_pass_shellcheck(shape, tmp_path):
    # five steps, the runner, the NCCL profile
    assert shellcheck_boot_scripts(user_data(shape), tmp_path) >= 7


@pytest.mark.parametrize("shape", ["ebmgn8v", "gn7e", "scc"])
def test_cloud_config_passes_cloud_inits_schema_check(shape, tmp_path):
    assert_valid_cloud_config(user_data(shape), tmp_path)


# -- steps run for real, against stand-ins -------------------------------------------------------

CURL = r"""case "$*" in
  *meta-data/private-ipv4) echo "$FAKE_IP" ;;
  *meta-data/hostname) echo "$FAKE_ID" ;;
  *) exit 22 ;;
esac
"""
ALIYUN = r"""echo "$*" >> "$FAKE_LOG"
case "$*" in
  "configure set"*) ;;
  *" oss cp "*) shift 2; src="$4"; dest="$5"; mkdir -p "$FAKE_BUCKET/status"
                cp "$src" "$FAKE_BUCKET/status/${dest##*/}" ;;
  *) exit 3 ;;
esac
"""


@pytest.fixture
def node(tmp_path):
    return boot_node(tmp_path)


@pytest.mark.parametrize("index", [0, 1])
def test_a_node_knows_its_rank_and_rank_zeros_address_from_the_plan(index, node):
    root, bin_dir, env = node
    stand_in(bin_dir, "curl", CURL)
    result = run_step(user_data("ebmgn8v"), "ranks", root, bin_dir,
                      {**env, "FAKE_IP": planning.node_ip(index, 2)})
    assert result.returncode == 0, result.stdout + result.stderr
    ranks = ranks_profile(root)
    assert ranks["NODE_RANK"] == str(index) and ranks["NNODES"] == "2"
    assert ranks["MASTER_ADDR"] == planning.node_ip(0, 2) == "10.44.15.251"
    assert (root / "etc" / "hostfile").read_text() == "10.44.15.251 slots=8\n10.44.15.252 slots=8\n"


def test_a_node_outside_the_plan_fails_the_ranks_step(node):
    root, bin_dir, env = node
    stand_in(bin_dir, "curl", CURL)
    result = run_step(user_data("ebmgn8v"), "ranks", root, bin_dir, {**env, "FAKE_IP": "10.9.9.9"})
    assert result.returncode != 0 and ranks_profile(root)["NODE_RANK"] == "-1"


def test_health_record_lands_in_oss_under_the_node_role_and_status_reads_it(node):
    root, bin_dir, env = node
    stand_in(bin_dir, "curl", CURL)
    stand_in(bin_dir, "aliyun", ALIYUN)
    stand_in(bin_dir, "nvidia-smi", 'for i in 0 1 2 3 4 5 6 7; do echo "GPU $i: x (UUID: x)"; '
             'done\n')
    stand_in(bin_dir, "mountpoint", 'case "$2" in */lustre) exit 0 ;; esac; exit 1\n')
    for i in range(2):
        (root / "infiniband" / f"erdma_{i}").mkdir(parents=True)
    (root / "state" / "steps").mkdir(parents=True)
    (root / "state" / "steps" / "lustre.rc").write_text("0\n")
    result = run_step(user_data("ebmgn8v"), "health", root, bin_dir,
                      {**env, "FAKE_ID": "llm-finetune-node-1"})
    assert result.returncode == 0, result.stdout + result.stderr
    (health,) = read_records(f"file://{env['FAKE_BUCKET']}")
    assert health.node == "llm-finetune-node-1" and health.ok
    assert (health.record["rdma_devices"], health.record["rdma_expected"]) == (2, 2)
    assert health.record["fabric"] == "erdma" and health.record["cloud"] == "alicloud"
    calls = Path(env["FAKE_LOG"]).read_text()
    role = shape_plan("ebmgn8v").outputs["node_role"]
    assert f"--mode EcsRamRole --ram-role-name {role}" in calls  # no key on the node
    bucket = shape_plan("ebmgn8v").outputs["bucket_name"]
    assert f"oss://{bucket}/status/llm-finetune-node-1.json" in calls
    assert f"oss-{STUB_REGION}-internal.aliyuncs.com" in calls


# -- the reaper's export -------------------------------------------------------------------------

EXPORT_ALIYUN = r"""echo "$*" >> "$FAKE_LOG"
case "$*" in
  "nas CreateDataFlowTask"*) echo '{"RequestId": "r", "TaskId": "task-1"}' ;;
  "nas DescribeDataFlowTasks"*)
    n=$(grep -c DescribeDataFlowTasks "$FAKE_LOG")
    if [ "$n" -lt 2 ]; then state=Executing; else state="$FINAL"; fi
    printf '{"TaskInfo": {"Task": [{"TaskId": "task-1", "Status": "%s"}]}}\n' "$state" ;;
esac
"""


@pytest.mark.parametrize("final, code", [("Completed", 0), ("Failed", 1)])
def test_the_export_command_waits_for_the_task_and_reports_its_end(final, code, node):
    _, bin_dir, env = node
    stand_in(bin_dir, "aliyun", EXPORT_ALIYUN)
    stand_in(bin_dir, "sleep", "exit 0")
    command = export_command("eu-central-1", "cpfs-0abc", "df-0def")
    result = subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=60,
                            env={**env, "FINAL": final,
                                 "PATH": f"{bin_dir}:/usr/bin:/bin"})
    assert result.returncode == code, result.stdout + result.stderr
    calls = Path(env["FAKE_LOG"]).read_text().splitlines()
    assert calls[0] == ("nas CreateDataFlowTask --RegionId eu-central-1 --FileSystemId cpfs-0abc "
                        "--DataFlowId df-0def --TaskAction Export --DataType MetaAndData "
                        "--Directory /bucket/")
    assert "--Filters.1.Key TaskIds --Filters.1.Value task-1" in calls[-1]
    assert len(calls) == 3  # created, polled while Executing, polled to its end


def test_the_plan_exports_what_the_reaper_and_status_read():
    outputs = shape_plan("ebmgn8v").outputs
    bucket = outputs["bucket_name"]
    assert outputs["heartbeat_url"] == f"oss://{bucket}/heartbeats"
    assert "CreateDataFlowTask" in outputs["filesystem_export_command"]
    assert outputs["node_ids"] == ["llm-finetune-node-0-id", "llm-finetune-node-1-id"]
    assert outputs["node_group"] == outputs["placement_group"]
    assert json.dumps(outputs["node_boot"]).count("erdma") >= 1


# -- issue 31: the job agent's OSS access and the container's verbs provider ---------------------

def test_the_agent_reads_oss_through_the_endpoint_with_the_ram_roles_token():
    script = step_text(user_data("ebmgn8v"), "jobs")
    assert (f"printf '%s=%s\\n' TS_OSS_ENDPOINT https://oss-{STUB_REGION}-internal.aliyuncs.com"
            in script)
    assert "printf '%s=%s\\n' TS_RAM_ROLE " in script



def test_the_agents_oss_closure_builds_its_sdists_with_the_venvs_setuptools(tmp_path):
    """crcmod and oss2 are sdists on PyPI: pip 22/23 builds them with the venv's setuptools
    (`setup.py install`), which the venv made --without-pip gets from python3-setuptools-whl
    first, from the file (no index); then the pinned closure."""
    from tests.boot_helpers import run_jobs_step
    result, venv, wheels, calls = run_jobs_step(
        tmp_path, user_data("ebmgn8v"), ("pip-23.0.1-py3-none-any.whl",
                                         "setuptools-66.1.1-py3-none-any.whl"))
    assert result.returncode == 0, result.stdout + result.stderr
    pip = (f"venv-python {wheels}/pip-23.0.1-py3-none-any.whl/pip install --quiet "
           "--disable-pip-version-check --no-compile")
    assert calls == [f"python3 -m venv --without-pip {venv}",
                     f"{pip} --no-index {wheels}/setuptools-66.1.1-py3-none-any.whl",
                     f"{pip} -c /opt/trainstack/agent-requirements/ossfs.txt fsspec ossfs"]

@pytest.mark.parametrize("shape", ["ebmgn8v", "gn8v"])
def test_the_erdma_verbs_provider_enters_the_container(shape):
    script = step_text(user_data(shape), "fabric")
    listed = next(line for line in script.splitlines() if line.startswith("patterns=("))
    assert "/etc/libibverbs.d/erdma.driver" in listed
    assert "/usr/lib/x86_64-linux-gnu/libibverbs/liberdma-rdmav*.so" in listed
