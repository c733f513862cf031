"""Issue 20, Google Cloud: a first `pulumi up` that succeeds, and nodes that stay alike.

Every item runs on the plans of the example spec (A3 Ultra) and of 16-node specs on A3 Ultra, A4
and A3 Mega. Expected values come from the Cluster Toolkit blueprints and Google documents cited
in docs/reviews/review-gcp.md.
"""
from __future__ import annotations

import copy
import functools
import subprocess

import pytest
import yaml

from tests.boot_helpers import run_step, stand_in, step_text, written_files
from tests.conftest import EXAMPLE, one, plan_for
from trainstack_components.errors import SpecError
from trainstack_components.gcp import planning

TEMPLATE = "gcp:compute/instanceTemplate:InstanceTemplate"
LUSTRE = "gcp:lustre/instance:Instance"
POLICY = "gcp:compute/resourcePolicy:ResourcePolicy"
ROLE = "gcp:projects/iAMCustomRole:IAMCustomRole"
PROJECT_MEMBER = "gcp:projects/iAMMember:IAMMember"
COMMAND = "command:local:Command"
NVIDIA_HOLDS = ("libnvidia-cfg1-*-server", "libnvidia-compute-*-server", "libnvidia-nscq-*",
                "nvidia-compute-utils-*-server", "nvidia-fabricmanager-*",
                "nvidia-utils-*-server", "nvidia-imex-*")   # a3ultra-slurm-blueprint.yaml


def _spec(nodes=None, **gcp):
    spec = copy.deepcopy(yaml.safe_load(EXAMPLE.read_text()))
    if nodes:
        spec["nodes"] = nodes
        spec["budget"]["monthly_usd"] = 1_000_000   # 16 nodes pass the one-day spend check
    gpu = gcp.pop("gpu", None)
    if gpu:
        spec["gpu"] = gpu
    spec["clouds"]["gcp"].update(gcp)
    return spec


# key -> (spec, fabric kind)
SPECS = {
    "example": (_spec(), "gib"),
    "a3-ultra-16": (_spec(16), "gib"),
    "a4-16": (_spec(16, gpu=["B200"], region="us-central1", zone="us-central1-b",
                    instance_type=None), "gib"),
    "a3-mega-16": (_spec(16, gpu=["H100"], region="us-east4", zone="us-east4-a",
                         instance_type="a3-megagpu-8g"), "tcpxo"),
}


@functools.lru_cache(maxsize=None)
def _plan(key: str):
    return plan_for(SPECS[key][0], "gcp")


@functools.lru_cache(maxsize=None)
def _user_data(key: str) -> str:
    return one(_plan(key), TEMPLATE).inputs["metadata"]["user-data"]


@pytest.fixture(params=sorted(SPECS), scope="module")
def key(request):
    return request.param


# -- same gIB, NCCL and driver on every node -------------------------------------------------------

def test_unattended_upgrades_are_off_on_every_node(key):
    files = written_files(_user_data(key))
    assert files["/etc/apt/apt.conf.d/20auto-upgrades"]["content"] == (
        'APT::Periodic::Update-Package-Lists "0";\nAPT::Periodic::Unattended-Upgrade "0";\n')


def test_the_images_nvidia_packages_are_held_on_every_node(key):
    fabric = step_text(_user_data(key), "fabric")
    for pattern in NVIDIA_HOLDS:
        assert f"'{pattern}'" in fabric
    assert 'apt-mark hold "${held[@]}"' in fabric


@pytest.mark.parametrize("key", sorted(k for k, (_, kind) in SPECS.items() if kind == "gib"))
def test_gib_nodes_install_the_pinned_nccl_gib_and_hold_it(key, tmp_path):
    root, bin_dir = tmp_path / "root", tmp_path / "bin"
    bin_dir.mkdir()
    (root / "apt" / "sources.list.d").mkdir(parents=True)   # as on the image
    log = tmp_path / "calls.log"
    # the image ships an older nccl-gib and two of the NVIDIA packages the blueprint holds
    stand_in(bin_dir, "dpkg-query", f"""echo "dpkg-query $*" >> {log}
case "$*" in
  *Version*nccl-gib*) printf 1.0.6 ;;
  *) printf 'nvidia-utils-580-server\\nlibnvidia-compute-580-server\\n' ;;
esac""")
    for tool in ("apt-get", "apt-mark"):
        stand_in(bin_dir, tool, f'echo "{tool} $*" >> {log}')
    stand_in(bin_dir, "curl", "echo key")
    stand_in(bin_dir, "gpg", "cat >/dev/null")
    run_step(_user_data(key), "fabric", root, bin_dir)   # ends at `test -r set_nccl_env.sh`
    calls = log.read_text().splitlines()
    assert "apt-mark hold nvidia-utils-580-server libnvidia-compute-580-server" in calls
    install = [c for c in calls if c.startswith("apt-get install") and "nccl-gib" in c]
    assert len(install) == 1 and install[0].endswith('nccl-gib=1.1.0'), calls
    assert calls.index(install[0]) < calls.index("apt-mark hold nccl-gib")
    sources = (root / "apt" / "sources.list.d" / "nccl-gib.list").read_text()
    # signed by Google's key, imported before the update (issue 31: an unsigned source fails
    # `apt-get update` under set -e, and nccl-gib never installs)
    keyring = root / "apt" / "keyrings" / "cloud.google.gpg"   # /etc/apt moved under root
    assert sources == (f"deb [signed-by={keyring}] "
                       "https://packages.cloud.google.com/apt gpudirect-gib-apt main\n")
    assert (root / "apt" / "keyrings").is_dir()


# -- A3 Mega: the TCPXO plugin's own environment ---------------------------------------------------

def _profile_env(tmp_path, shell: str, plugin_script: str | None) -> dict[str, str]:
    lib = tmp_path / "tcpxo"
    lib.mkdir(exist_ok=True)
    text = written_files(_user_data("a3-mega-16"))["/etc/profile.d/trainstack-nccl.sh"]["content"]
    nics = tmp_path / "gpu-nics.env"
    nics.write_text("TS_HOST_NIC=enp0s12\nTS_GPU_NICS=enp6s0,enp7s0\n")
    text = text.replace("/var/lib/tcpxo/lib64", str(lib)).replace(planning_nics(), str(nics))
    if plugin_script is not None:
        (lib / "nccl-env-profile.sh").write_text(plugin_script)
    profile = tmp_path / "nccl.sh"
    profile.write_text(text)
    names = ("NCCL_LIB_DIR", "NCCL_FASTRAK_USE_SNAP", "NCCL_FASTRAK_USE_LLCM",
             "NCCL_FASTRAK_NUM_FLOWS", "NCCL_TUNER_PLUGIN", "NCCL_TUNER_CONFIG_PATH",
             "NCCL_SHIMNET_GUEST_CONFIG_CHECKER_CONFIG_FILE", "NCCL_FASTRAK_IFNAME",
             "NCCL_FASTRAK_CTRL_DEV", "PLUGIN_READ")
    script = f". {profile}; " + "; ".join(f'echo "{n}=${{{n}:-}}"' for n in names)
    out = subprocess.run([shell, "-c", script], capture_output=True, text=True, check=True,
                         env={"PATH": "/usr/bin:/bin"}).stdout
    return dict(line.split("=", 1) for line in out.splitlines())


def planning_nics() -> str:
    from trainstack_components.gcp.boot import GPU_NICS_ENV
    return GPU_NICS_ENV


PLUGIN = """# stand-in for the plugin's nccl-env-profile.sh: needs NCCL_LIB_DIR, guesses the NICs
: "${NCCL_LIB_DIR:?Must set NCCL_LIB_DIR}"
export PLUGIN_READ="$NCCL_LIB_DIR"
export NCCL_FASTRAK_NUM_FLOWS=3
export NCCL_FASTRAK_IFNAME=eth1,eth2,eth3,eth4,eth5,eth6,eth7,eth8
"""


def test_a3_mega_sources_the_plugins_profile_then_names_its_own_nics(tmp_path):
    env = _profile_env(tmp_path, "bash", PLUGIN)
    assert env["PLUGIN_READ"] == str(tmp_path / "tcpxo") == env["NCCL_LIB_DIR"]
    assert env["NCCL_FASTRAK_NUM_FLOWS"] == "3"                 # the plugin's value wins
    assert env["NCCL_FASTRAK_IFNAME"] == "enp6s0,enp7s0"        # the node's NICs win
    assert env["NCCL_FASTRAK_CTRL_DEV"] == "enp0s12"


@pytest.mark.parametrize("shell, plugin", [("bash", None), ("sh", PLUGIN)])
def test_without_the_plugins_profile_its_values_are_still_set(tmp_path, shell, plugin):
    # Cluster Toolkit a3-megagpu-8g/nemo-framework/Dockerfile values
    env = _profile_env(tmp_path, shell, plugin)
    assert env["PLUGIN_READ"] == ""   # sh never reads the bash-only plugin script
    assert (env["NCCL_FASTRAK_USE_SNAP"], env["NCCL_FASTRAK_USE_LLCM"],
            env["NCCL_FASTRAK_NUM_FLOWS"]) == ("1", "1", "2")
    assert env["NCCL_TUNER_PLUGIN"] == "libnccl-tuner.so"
    assert env["NCCL_TUNER_CONFIG_PATH"].endswith("/a3plus_tuner_config.textproto")
    assert env["NCCL_SHIMNET_GUEST_CONFIG_CHECKER_CONFIG_FILE"].endswith(
        "/a3plus_guest_config.textproto")


# -- Managed Lustre: zone, timeout, import -------------------------------------------------------

def test_lustre_zone_is_checked_against_its_documented_locations():
    # asia-east1 lists a and c; us-central1 every zone
    with pytest.raises(SpecError) as refused:
        planning.check_lustre_zone("asia-east1", "asia-east1-b")
    assert refused.value.field == "clouds.gcp.zone" and "asia-east1-a, asia-east1-c" in str(
        refused.value)
    assert planning.check_lustre_zone("us-central1", "us-central1-f") is None
    assert "not in the stored" in planning.check_lustre_zone("us-west1", "us-west1-c")


def test_a_plan_in_a_zone_without_managed_lustre_is_refused():
    # a2-highgpu-8g is listed in asia-northeast1-a, Managed Lustre there in -b and -c only
    spec = _spec(gpu=["A100-40GB"], region="asia-northeast1", zone="asia-northeast1-a",
                 capacity={"type": "spot"}, instance_type=None)
    spec["interconnect"] = "tcp"
    with pytest.raises(SpecError) as refused:
        plan_for(spec, "gcp")
    assert refused.value.field == "clouds.gcp.zone"
    assert "Managed Lustre" in refused.value.problem


def test_the_plan_says_whether_the_zone_was_checked(key):
    note = _plan(key).outputs["filesystem_location_note"]
    region = SPECS[key][0]["clouds"]["gcp"]["region"]
    assert (note is None) == (region in planning.lustre_zones())


def test_a_region_the_lustre_table_does_not_list_is_noted_in_the_plan():
    # gcp_lustre_zones.csv has no us-west1 row; zones.csv puts a3-ultragpu-8g in us-west1-c
    note = plan_for(_spec(region="us-west1", zone="us-west1-c"), "gcp").outputs[
        "filesystem_location_note"]
    assert note is not None and "us-west1" in note and "not in the stored" in note


def test_lustre_gets_the_blueprints_one_hour_timeouts(key):
    assert one(_plan(key), LUSTRE).custom_timeouts == {
        "create": "1h", "update": "1h", "delete": "1h"}


def test_lustre_is_imported_from_the_bucket_at_create(key):
    plan = _plan(key)
    fs, (command,) = one(plan, LUSTRE), plan.of_type(COMMAND)
    bucket, zone = plan.outputs["bucket_name"], plan.outputs["zone"]
    assert command.inputs["create"] == (
        f"gcloud lustre instances import-data {fs.inputs['instanceId']} --location={zone} "
        f"--project=my-gcp-project --gcs-path-uri=gs://{bucket}/ --lustre-path=/ --async")
    assert fs.urn in command.dependencies
    agent = [m for m in plan.of_type("gcp:storage/bucketIAMMember:BucketIAMMember")
             if "gcp-sa-lustre" in m.inputs["member"]]
    assert [a.urn for a in agent] and agent[0].urn in command.dependencies


# -- least privilege for rank discovery ------------------------------------------------------------

def test_rank_discovery_has_a_custom_role_not_compute_viewer(key):
    plan = _plan(key)
    role = one(plan, ROLE)
    # gcloud's list-instances page names compute.instanceGroupManagers.list, the Compute IAM
    # reference gives listManagedInstances compute.instanceGroupManagers.get: both are granted.
    assert sorted(role.inputs["permissions"]) == ["compute.instanceGroupManagers.get",
                                                  "compute.instanceGroupManagers.list",
                                                  "compute.instances.list"]
    roles = {m.inputs["role"] for m in plan.of_type(PROJECT_MEMBER)}
    assert "roles/compute.viewer" not in roles
    assert f"projects/my-gcp-project/roles/{role.inputs['roleId']}" in roles
    # exactly the two calls the role allows are what rank discovery runs
    ranks = step_text(_user_data(key), "ranks")
    assert "gcloud compute instance-groups managed list-instances" in ranks
    assert "gcloud compute instances list" in ranks
    assert ranks.count("gcloud ") == 2


# -- placement ---------------------------------------------------------------------------------------

def test_the_workload_policy_bounds_the_topology_distance(key):
    policy = one(_plan(key), POLICY).inputs["workloadPolicy"]
    assert policy == {"type": "HIGH_THROUGHPUT", "maxTopologyDistance": "BLOCK"}
    spec = copy.deepcopy(SPECS[key][0])
    spec["clouds"]["gcp"]["topology_distance"] = "subblock"
    policy = one(plan_for(spec, "gcp"), POLICY).inputs["workloadPolicy"]
    assert policy["maxTopologyDistance"] == "SUBBLOCK"


def test_topology_distance_takes_block_or_subblock_only():
    from trainstack_components.spec import ClusterSpec
    for choice in ("block", "subblock"):
        assert ClusterSpec.model_validate(_spec(topology_distance=choice)).clouds.gcp \
            .topology_distance == choice
    with pytest.raises(Exception) as refused:
        ClusterSpec.model_validate(_spec(topology_distance="rack"))
    assert "topology_distance" in str(refused.value)


# -- the image the group boots stays the same ------------------------------------------------------

def test_a_family_resolved_image_is_kept_by_the_template(key):
    template = one(_plan(key), TEMPLATE)
    assert "disks[0].sourceImage" in template.ignore_changes
    assert _plan(key).outputs["image"] == template.inputs["disks"][0]["sourceImage"]
    pinned = plan_for(SPECS[key][0], "gcp", extra_config={
        "trainstack:image": "projects/p/global/images/pinned"})
    assert one(pinned, TEMPLATE).ignore_changes == []


# -- Managed Lustre prices ----------------------------------------------------------------------

def test_the_example_lustre_is_priced_from_the_cited_tiers():
    # 4,800 GiB at 250 MB/s/TiB (1,172 MB/s): 125 -> 72,000 GiB x 0.145 = 10,440; 250 -> 36,000
    # x 0.21 = 7,560; 500 -> 18,000 x 0.34 = 6,120; 1000 -> 9,000 x 0.60 = 5,400 USD/month
    plan = _plan("example")
    assert plan.outputs["filesystem_throughput_mbps_per_tib"] == 1000
    assert plan.outputs["filesystem_capacity_gib"] == 9000
    assert plan.outputs["filesystem_monthly_usd"] == pytest.approx(5400.0)
