"""Issue 21, Alibaba Cloud: a first deploy that succeeds and nodes that can train, on the example
(sccgn7ex in cn-beijing) and 8-node ebmgn8v (STUB price in a CPFS region, tests/alicloud_helpers.py)
and sccgn7ex specs. docs/reviews/review-alicloud.md has each rule's source."""
import copy
import ipaddress
import subprocess
from datetime import datetime, timedelta, timezone

import pytest
import yaml
from typer.testing import CliRunner

from tests.alicloud_helpers import in_cpfs_region, stub_cpfs_region_prices
from tests.boot_helpers import step_text
from tests.conftest import EXAMPLE, assert_clean_error, by_id, one, plan_for, write_spec
from trainstack.cli.app import app
from trainstack_components.alicloud import boot as ali_boot
from trainstack_components.alicloud import planning
from trainstack_components.alicloud.boot import decode_ecs_user_data
from trainstack_components.pinning import HOLD_KEY

INSTANCE = "alicloud:ecs/instance:Instance"
CPFS = "alicloud:nas/fileSystem:FileSystem"
FLOW = "alicloud:nas/dataFlow:DataFlow"
SERVICE = "alicloud:nas/protocolService:ProtocolService"
EXPORT = "alicloud:nas/protocolMountTarget:ProtocolMountTarget"
VPC = "alicloud:vpc/network:Network"
NOW = datetime(2026, 12, 1, 8, 0, 0, tzinfo=timezone.utc)
runner = CliRunner()


@pytest.fixture(autouse=True)
def clock_and_stub(monkeypatch):
    monkeypatch.setattr(planning, "utc_now", lambda: NOW)
    stub_cpfs_region_prices(monkeypatch)


def _example():
    return yaml.safe_load(EXAMPLE.read_text())


def _eight(spec):
    spec["nodes"] = 8
    spec["budget"]["monthly_usd"] = 200000
    return spec


SHAPES = {"example": (_example, "ecs.sccgn7ex.32xlarge", 2),
          "ebmgn8v-8": (lambda: _eight(in_cpfs_region(_example(), gpu="H(96GB)")),
                        "ecs.ebmgn8v.48xlarge", 8),
          "sccgn7ex-8": (lambda: _eight(_example()), "ecs.sccgn7ex.32xlarge", 8)}


@pytest.fixture(scope="module", params=sorted(SHAPES))
def shape(request):
    mp = pytest.MonkeyPatch()
    mp.setattr(planning, "utc_now", lambda: NOW)
    stub_cpfs_region_prices(mp)
    try:
        make, itype, nodes = SHAPES[request.param]
        plan = plan_for(make(), "alicloud")
    finally:
        mp.undo()
    assert plan.inputs.selection.instance.name == itype
    assert len(plan.of_type(INSTANCE)) == nodes
    return plan


def _user_data(plan) -> str:
    return decode_ecs_user_data(plan.of_type(INSTANCE)[0].inputs["userData"])


# -- the GPU driver ------------------------------------------------------------------------------

def test_boot_installs_a_pinned_driver_cuda_and_fabric_manager(shape):
    fabric = step_text(_user_data(shape), "fabric")
    # NVIDIA's ubuntu2204 repository: cuda-drivers-550 550.127.08-0ubuntu1 (NVIDIA/holodeck
    # docs/commands/create.md@6f3ca80), the fabric manager 550.127.08-1.
    assert '"cuda-drivers-550=550.127.08-0ubuntu1"' in fabric
    assert '"nvidia-fabricmanager-550=550.127.08-1"' in fabric  # NVSwitch (HGX) types
    assert '"cuda-toolkit-12-4=12.4.1-1"' in fabric
    assert "systemctl enable --now nvidia-fabricmanager" in fabric
    # The driver comes before the fabric's own setup (eRDMA / RoCE need it, peermem above all).
    assert fabric.index("cuda-drivers-550") < fabric.index("nvidia_peermem")


def test_no_fabric_manager_on_a_pcie_type():
    assert not ali_boot.has_nvswitch("ecs.gn7i-c8g1.2xlarge")
    assert ali_boot.has_nvswitch("ecs.ebmgn8v.48xlarge") and ali_boot.has_nvswitch(
        "ecs.sccgn7ex.32xlarge")


def test_the_driver_snippet_installs_once_then_nvidia_smi_answers(tmp_path):
    from trainstack_components.boot import NodeContext
    ctx = NodeContext(cloud="alicloud", cluster="c", stack="s", nodes=2, gpus_per_node=8,
                      instance_type="ecs.ebmgn8v.48xlarge", bucket="b", filesystem_source="",
                      region="cn-beijing", zone="cn-beijing-i", use_rdma=True, interconnect="rdma")
    bin_dir, log = tmp_path / "bin", tmp_path / "log"
    bin_dir.mkdir()
    marker = tmp_path / "installed"
    stubs = {"curl": "", "dpkg": "", "modprobe": "", "systemctl": "", "apt-mark": "",
             "apt-get": f'case "$*" in *cuda-drivers*) touch {marker} ;; esac',
             "nvidia-smi": f"[ -e {marker} ] || exit 9; echo 'NVIDIA H20, 550.127.08'",
             "uname": "echo 5.15.0-test"}
    for name, body in stubs.items():
        (bin_dir / name).write_text(f'#!/bin/bash\necho "{name} $*" >> {log}\n{body}\n')
        (bin_dir / name).chmod(0o755)
    script = ali_boot.gpu_driver(ctx).replace(ali_boot.APT_PIN_FILE, str(tmp_path / "pin"))
    for _ in range(2):
        done = subprocess.run(["bash", "-euo", "pipefail", "-c", script], capture_output=True,
                              text=True, env={"PATH": f"{bin_dir}:/usr/bin:/bin"})
        assert done.returncode == 0, done.stderr
        assert "550.127.08" in done.stdout
    installs = [line for line in log.read_text().splitlines()
                if line.startswith("apt-get install") and "cuda-drivers" in line]
    assert len(installs) == 1  # the second boot finds nvidia-smi and installs nothing
    assert _pin_priorities((tmp_path / "pin").read_text()) == EXPECTED_PRIORITY


# What apt would otherwise resolve next to cuda-drivers-550=550.127.08-0ubuntu1: its ">="
# dependencies take the branch's newest driver (550.163.01 here), which the fabric manager
# pinned at 550.127.08 refuses. Package names and revisions as in NVIDIA's ubuntu2204 repository.
EXPECTED_PRIORITY = {("cuda-drivers-550", "550.127.08-0ubuntu1"): 1001,
              ("nvidia-driver-550", "550.127.08-0ubuntu1"): 1001,
              ("nvidia-driver-550", "550.163.01-0ubuntu1"): None,
              ("libnvidia-compute-550", "550.127.08-0ubuntu1"): 1001,
              ("libnvidia-compute-550", "550.163.01-0ubuntu1"): None,
              ("nvidia-fabricmanager-550", "550.127.08-1"): 1001,
              ("nvidia-fabricmanager-550", "550.163.01-1"): None,
              ("cuda-toolkit-12-4", "12.4.1-1"): None}


def _pin_priorities(text: str) -> dict:
    """apt_preferences(5) for one record: glob package names and a glob version; the pinned
    priority for matching (package, version) pairs, None for those the record leaves alone."""
    import fnmatch
    fields = dict(line.split(": ", 1) for line in text.strip().splitlines())
    names, version = fields["Package"].split(), fields["Pin"].removeprefix("version ")
    return {(pkg, ver): int(fields["Pin-Priority"])
            if any(fnmatch.fnmatch(pkg, n) for n in names) and fnmatch.fnmatch(ver, version)
            else None for pkg, ver in EXPECTED_PRIORITY}


def test_every_package_of_the_driver_release_is_pinned_above_1000(shape):
    """Priority > 1000 makes apt take the pinned release even where a newer one exists."""
    fabric = step_text(_user_data(shape), "fabric")
    line = next(x for x in fabric.splitlines() if ali_boot.APT_PIN_FILE in x)
    assert fabric.index(line) < fabric.index("apt-get update")  # the pin counts from the start
    done = subprocess.run(["bash", "-c", line.replace(ali_boot.APT_PIN_FILE, "/dev/stdout")],
                          capture_output=True, text=True, check=True)
    assert _pin_priorities(done.stdout) == EXPECTED_PRIORITY


# -- CPFS ------------------------------------------------------------------------------------------

def test_cpfs_has_no_kms_encryption(shape):
    fs = one(shape, CPFS)
    assert "encryptType" not in fs.inputs and "kmsKeyId" not in fs.inputs
    assert shape.of_type("alicloud:kms/key:Key") == []


def test_data_flow_stays_below_the_file_system_bandwidth(shape):
    fs, flow = one(shape, CPFS), one(shape, FLOW)
    bandwidth = 0.2 * fs.inputs["capacity"]  # advance_200: 4,800 GiB -> 960 MB/s
    assert fs.inputs["storageType"] == "advance_200" and bandwidth == 960
    assert flow.inputs["throughput"] == 600 < bandwidth
    assert shape.outputs["filesystem_dataflow_mbps"] == 600


def test_nfs_export_is_in_a_vpc_that_does_not_overlap_the_file_systems(shape):
    ids = by_id(shape)
    fs, service, export = one(shape, CPFS), one(shape, SERVICE), one(shape, EXPORT)
    fs_vpc, export_vpc = ids[fs.inputs["vpcId"]], ids[export.inputs["vpcId"]]
    assert ids[service.inputs["vpcId"]] is fs_vpc and export_vpc is not fs_vpc
    assert not ipaddress.ip_network(fs_vpc.inputs["cidrBlock"]).overlaps(
        ipaddress.ip_network(export_vpc.inputs["cidrBlock"]))
    for node in shape.of_type(INSTANCE):  # the nodes live where the export is
        assert ids[node.inputs["vswitchId"]].inputs["vpcId"] == f"{export_vpc.name}-id"
        assert ids[export.inputs["vswitchId"]] is ids[node.inputs["vswitchId"]]
    # CreateProtocolMountTarget, VSwitchId: "the vSwitch must be in the same zone as the CPFS
    # file system" (alibabacloud.com/help/tc/cpfs/cpfsonecs/developer-reference/
    # api-nas-2017-06-26-createprotocolmounttarget-cpfs, read 2026-12-01).
    assert ids[export.inputs["vswitchId"]].inputs["zoneId"] == fs.inputs["zoneId"]


# -- capacity, placement, region -------------------------------------------------------------------

def test_spot_in_the_low_latency_set_exits_2(tmp_path):
    spec = in_cpfs_region(_example(), gpu="H(96GB)")
    spec["clouds"]["alicloud"]["capacity"] = {"type": "spot"}
    result = runner.invoke(app, ["plan", "--spec", str(write_spec(tmp_path, spec)),
                                 "--cloud", "alicloud"])
    assert_clean_error(result, "clouds.alicloud.capacity.type", "deployment set", "on_demand")


def test_spot_on_scc_has_no_deployment_set():
    spec = _example()
    spec["spot"] = True
    plan = plan_for(spec, "alicloud")
    assert plan.of_type("alicloud:ecs/ecsDeploymentSet:EcsDeploymentSet") == []
    assert {n.inputs["spotStrategy"] for n in plan.of_type(INSTANCE)} == {"SpotAsPriceGo"}


def test_a_region_without_cpfs_exits_2_naming_those_with_it(tmp_path):
    spec = _example()
    spec["clouds"]["alicloud"].update(region="eu-central-1", zone="eu-central-1a")
    result = runner.invoke(app, ["plan", "--spec", str(write_spec(tmp_path, spec)),
                                 "--cloud", "alicloud"])
    assert_clean_error(result, "clouds.alicloud.region", "eu-central-1", "cn-beijing",
                       "cn-hangzhou", "ap-southeast-1")


def test_the_example_default_region_has_every_part():
    spec = _example()["clouds"]["alicloud"]
    assert spec["region"] in planning.CPFS_REGIONS
    plan = plan_for(_example(), "alicloud")
    assert one(plan, CPFS).inputs["zoneId"] == spec["zone"]


def test_scc_path_has_a_node_cap_and_every_allowed_size_gets_addresses():
    from trainstack_components import catalog
    from trainstack_components.errors import SpecError
    scc = catalog.instance_type("alibaba", "ecs.sccgn7ex.32xlarge")
    assert planning.placement(scc, 512).kind == "hpc_cluster"  # the spec's own maximum
    with pytest.raises(SpecError) as raised:
        planning.placement(scc, planning.HPC_CLUSTER_MAX_NODES + 1)
    assert raised.value.field == "nodes" and "2000" in str(raised.value)
    # Every size the spec allows (1..512) gets distinct addresses inside the /20.
    assert planning.HPC_CLUSTER_MAX_NODES <= planning.max_nodes()
    net = ipaddress.ip_network(planning.NODE_CIDR)
    ips = [planning.node_ip(i, 512) for i in range(512)]
    assert len(set(ips)) == 512 and all(ipaddress.ip_address(ip) in net for ip in ips)


def test_node_addresses_follow_the_subnet_past_55_nodes():
    ips = [planning.node_ip(i, 100) for i in range(100)]  # 10.44.15.200+i left the /20 at 56
    net = ipaddress.ip_network(planning.NODE_CIDR)
    assert len(set(ips)) == 100 and all(ipaddress.ip_address(ip) in net for ip in ips)


def test_hold_nodes_declares_no_instances():
    plan = plan_for(_example(), "alicloud", extra_config={HOLD_KEY: "true"})
    assert plan.of_type(INSTANCE) == [] and plan.outputs["nodes"] == []
    assert one(plan, CPFS)  # the rest stays


# -- release time --------------------------------------------------------------------------------

def _hours(plan) -> float:
    stamp = plan.of_type(INSTANCE)[0].inputs["autoReleaseTime"]
    at = datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
    return (at - NOW).total_seconds() / 3600


def test_spot_release_is_the_budget_over_the_on_demand_price():
    spec = _example()
    spec["workload"].pop("max_hours")
    spec["clouds"]["alicloud"]["capacity"] = {"type": "spot"}
    plan = plan_for(spec, "alicloud")
    # sccgn7ex in cn-beijing: 49.8728 USD/h on demand, 15.4686 spot (components/catalog). The
    # 25,000 budget less the storage month (CPFS 4,800 GiB x 1.4 CNY / 7.2734 = 923.91 + OSS
    # 26.4 GB x 0.0173 = 0.46: 924.37) buys 24,075.63 / (2 x 49.8728) = 241.37 h: 241 whole h.
    assert _hours(plan) == 241
    assert _hours(plan) < 24075.63 / (2 * 15.4686)


@pytest.mark.parametrize("budget", [900, 924])
def test_a_budget_below_the_storage_month_exits_2(tmp_path, budget):
    """CPFS and OSS bill for the whole month whatever the nodes do (docs/billing-after-stop.md):
    the example's month is 4,800 GiB x 1.4 CNY / 7.2734 = 923.91 + 26.4 GB x 0.0173 = 0.46 =
    924.37 USD, so a budget of 900 or 924 buys no node hour: `plan` refuses it, naming the
    field, before any resource is declared."""
    spec = _example()
    spec["budget"]["monthly_usd"] = budget
    result = runner.invoke(app, ["plan", "--spec", str(write_spec(tmp_path, spec)),
                                 "--cloud", "alicloud"])
    assert_clean_error(result, "budget.monthly_usd", "does not cover the storage",
                       "4,800 GiB CPFS")


def test_release_counts_from_the_recorded_first_deploy():
    first = (NOW - timedelta(hours=90)).strftime("%Y-%m-%dT%H:%M:%SZ")
    plan = plan_for(_example(), "alicloud", extra_config={"trainstack:lifetimeStart": first})
    assert _hours(plan) == pytest.approx(6)  # max_hours 96, 90 of them gone


def test_past_the_release_time_up_declares_no_nodes():
    first = (NOW - timedelta(hours=97)).strftime("%Y-%m-%dT%H:%M:%SZ")
    plan = plan_for(_example(), "alicloud", extra_config={"trainstack:lifetimeStart": first})
    assert plan.of_type(INSTANCE) == []
    assert plan.outputs["auto_release_time"] == "2026-12-01T07:00:00Z"
    assert "has passed" in plan.outputs["budget_protection"]


def test_release_is_recorded_for_alicloud_even_without_a_lifetime():
    from trainstack.deploy import lifecycle

    class Stack:
        def __init__(self):
            self.set = {}

        def set_config(self, key, value):
            self.set[key] = value.value

    class Inputs:
        cloud = "alicloud"

        class spec:
            lifetime_hours = None

    stack = Stack()
    lifecycle.fix_lifetime_start(stack, Inputs, {}, clock=lambda: NOW)
    assert stack.set == {"trainstack:lifetimeStart": "2026-12-01T08:00:00Z"}


# -- fabric --------------------------------------------------------------------------------------

@pytest.mark.parametrize("shape", ["example", "sccgn7ex-8"], indirect=True)  # the SCC shapes
def test_scc_roce_installs_rdma_userspace_and_expects_a_device(shape):
    assert shape.inputs.selection.instance.fabric == "roce"
    fabric = step_text(_user_data(shape), "fabric")
    assert "apt-get install -y -qq rdma-core ibverbs-providers ibverbs-utils" in fabric
    # 8: help.aliyun.com/zh/ecs/user-guide/overview-40#sccgn7ex, "4 * 双口100 Gbit/s RDMA",
    # "每颗GPU直连一个100 Gbit/s网口" (4 dual-port NICs, a port per GPU)
    assert '[ "$roce" -ge 8 ]' in fabric and '-ge 0 ]' not in fabric


@pytest.mark.parametrize("devices, rc", [(8, 0), (7, 1), (0, 1)])
def test_the_scc_fabric_check_fails_a_node_with_fewer_roce_devices_than_the_page_says(
        devices, rc, tmp_path):
    """The fabric step's own count and check, run against a sysfs with `devices` RoCE devices:
    short of sccgn7ex's 8 (the SCC family page) the step fails and says what it found."""
    from trainstack_components import catalog
    from trainstack_components.boot import NodeContext
    scc = catalog.instance_type("alibaba", "ecs.sccgn7ex.32xlarge")
    ctx = NodeContext(cloud="alicloud", cluster="c", stack="s", nodes=2, gpus_per_node=8,
                      instance_type=scc.name, bucket="b", filesystem_source="",
                      region="cn-beijing", zone="cn-beijing-i", use_rdma=True,
                      interconnect="rdma", fabric=scc.fabric, rdma_nics=scc.rdma_nics)
    setup = ali_boot.AlicloudBoot().fabric(ctx).setup
    check = setup[setup.index('roce="$('):]
    sysfs = tmp_path / "infiniband"
    for i in range(devices):
        (sysfs / f"mlx5_{i}").mkdir(parents=True)
    ran = subprocess.run(["bash", "-c", "set -euo pipefail\n"
                          + check.replace("/sys/class/infiniband", str(sysfs))],
                         capture_output=True, text=True)
    assert ran.returncode == rc, ran.stderr
    assert ran.stdout.strip() == \
        f"RoCE devices: {devices} (at least 8 expected on ecs.sccgn7ex.32xlarge)"


@pytest.mark.parametrize("shape", ["ebmgn8v-8"], indirect=True)  # the eRDMA shape
def test_erdma_loads_peermem_after_the_driver(shape):
    assert shape.inputs.selection.instance.fabric == "erdma"
    fabric = step_text(_user_data(shape), "fabric")
    assert fabric.index("modprobe erdma") < fabric.index("modprobe nvidia_peermem")
    assert '[ "$eri" -ge 2 ]' in fabric


def test_health_expects_at_least_one_roce_device_on_scc():
    from trainstack_components.boot import NodeContext
    ctx = NodeContext(cloud="alicloud", cluster="c", stack="s", nodes=2, gpus_per_node=8,
                      instance_type="ecs.sccgn7ex.32xlarge", bucket="b", filesystem_source="",
                      region="cn-beijing", zone="cn-beijing-i", use_rdma=True,
                      interconnect="rdma", fabric="roce", rdma_nics=0)
    assert ali_boot.AlicloudBoot().fabric(ctx).rdma_devices_expected == 1


def test_the_example_plans_without_copying_state():
    assert plan_for(copy.deepcopy(_example()), "alicloud").inputs.selection.region == "cn-beijing"
