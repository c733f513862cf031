"""What the 2026-12 blueprint review found in the boot user data (docs/reviews/review-2026-12.md), each
as the node would hit it: the Ubuntu aws-ofi-nccl directory, instance-store disks the DLAMI
already uses, and A3 Mega's aperture devices and dmabuf helper for TCPXO."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.boot_helpers import run_step, stand_in, step_text, user_data, written_files


def _ld_library_path(text: str, tmp_path: Path, present: list[str]) -> list[str]:
    """Source the rendered NCCL profile on a fake node where only `present` (paths under
    /opt/amazon) exist, and return LD_LIBRARY_PATH split, with the fake root taken off."""
    fake = tmp_path / "opt" / "amazon"
    for rel in present:
        path = fake / rel
        if rel.endswith(".so"):
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("")
        else:
            path.mkdir(parents=True, exist_ok=True)
    profile = tmp_path / "nccl.sh"
    profile.write_text(written_files(text)["/etc/profile.d/trainstack-nccl.sh"]["content"]
                       .replace("/opt/amazon", str(fake)))
    out = subprocess.run(["sh", "-c", f'. {profile}; echo "$LD_LIBRARY_PATH"'],
                         capture_output=True, text=True, check=True,
                         env={"PATH": "/usr/bin:/bin"}).stdout.strip()
    return [p.replace(str(fake), "/opt/amazon") for p in out.split(":") if p]


def test_nccl_finds_aws_ofi_nccl_where_the_ubuntu_efa_installer_puts_it(tmp_path):
    # Ubuntu DLAMI / EFA installer >= 1.30: the plugin is in the multiarch directory, and its
    # parent exists without any library in it (awsome-distributed-training Dockerfiles).
    plugin = "ofi-nccl/lib/x86_64-linux-gnu/libnccl-net.so"
    path = _ld_library_path(user_data("p5"), tmp_path, [plugin, "efa/lib"])
    assert "/opt/amazon/ofi-nccl/lib/x86_64-linux-gnu" in path
    assert path.index("/opt/amazon/ofi-nccl/lib/x86_64-linux-gnu") < path.index(
        "/opt/amazon/ofi-nccl/lib")  # the directory holding the plugin is searched first
    assert "/opt/amazon/efa/lib" in path
    assert "/opt/aws-ofi-nccl/lib" not in path  # absent directories are not added


def _scratch_node(tmp_path: Path, held_by: str | None, mounted_at: str | None):
    """Two instance-store disks; `held_by` an md array already built from them, mounted at
    `mounted_at` (the DLAMI's /opt/dlami/nvme)."""
    root, bin_dir = tmp_path / "root", tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "calls.log"
    for disk in ("nvme1n1", "nvme2n1"):
        holders = root / "sysblock" / disk / "holders"
        holders.mkdir(parents=True)
        if held_by:
            (holders / held_by).mkdir()
    stand_in(bin_dir, "lsblk", f"""case "$*" in
  -dpno*) printf '%s\\n' '/dev/nvme0n1 Amazon Elastic Block Store' \\
      '/dev/nvme1n1 Amazon EC2 NVMe Instance Storage' \\
      '/dev/nvme2n1 Amazon EC2 NVMe Instance Storage' ;;
  *"/dev/{held_by}") echo "{mounted_at or ''}" ;;
  *) echo "" ;;
esac
""")
    stand_in(bin_dir, "readlink", 'echo "${@: -1}"\n')
    for tool in ("mount", "mdadm", "mkfs.ext4", "chmod"):
        stand_in(bin_dir, tool, f'echo "{tool} $*" >> "{log}"\n')
    stand_in(bin_dir, "mountpoint", "exit 1\n")
    return root, bin_dir, log


def _run_scratch(tmp_path, root, bin_dir):
    text = user_data("p5").replace("TS_SCRATCH=/scratch", f"TS_SCRATCH={tmp_path / 'scratch'}")
    text = text.replace("/sys/class/block", str(root / "sysblock"))
    return run_step(text, "scratch", root, bin_dir)


def test_scratch_binds_to_the_instance_store_the_image_already_mounted(tmp_path):
    root, bin_dir, log = _scratch_node(tmp_path, "md127", "/opt/dlami/nvme")
    result = _run_scratch(tmp_path, root, bin_dir)
    assert result.returncode == 0, result.stdout + result.stderr
    calls = log.read_text().splitlines()
    assert f"mount --bind /opt/dlami/nvme {tmp_path / 'scratch'}" in calls
    assert not [c for c in calls if c.startswith(("mdadm", "mkfs.ext4"))]  # never reformatted
    assert "already mounted at /opt/dlami/nvme" in result.stdout


def test_scratch_builds_the_raid_from_free_disks(tmp_path):
    root, bin_dir, log = _scratch_node(tmp_path, None, None)
    result = _run_scratch(tmp_path, root, bin_dir)
    assert result.returncode == 0, result.stdout + result.stderr
    calls = log.read_text().splitlines()
    assert any(c.startswith("mdadm --create /dev/md/scratch") and c.endswith(
        "--raid-devices=2 /dev/nvme1n1 /dev/nvme2n1") for c in calls), calls
    assert "mkfs.ext4 -F -q -E lazy_itable_init=1,lazy_journal_init=1 /dev/md/scratch" in calls


def test_a3_mega_tcpxo_gets_its_aperture_devices_and_dmabuf_helper():
    # Cluster Toolkit a3mega-slurm-blueprint.yaml: dmabuf-import-helper from the gpudirect-tcpxo
    # apt repository, and the 1ae0:0084 NICs bind-mounted under /dev/aperture_devices, which
    # NCCL_FASTRAK_LLCM_DEVICE_DIRECTORY names (the udev rule's `ATTR{vendor}=="0x1ae0",
    # ATTR{device}=="0x0084"`, GoogleCloudPlatform/cluster-toolkit @6c6a9a03 there).
    text = user_data("a3-mega")
    files = written_files(text)
    fabric = step_text(text, "fabric")
    assert "ar+https://us-apt.pkg.dev/projects/gce-ai-infra" in fabric
    assert "apt-get install -y -qq dmabuf-import-helper" in fabric
    assert fabric.index("trainstack-aperture.service") < fabric.index("trainstack-rxdm.service")
    aperture = files["/opt/trainstack/aperture-devices"]["content"]
    assert "0x1ae0" in aperture and "0x0084" in aperture
    assert 'mount --bind "$(readlink -f "$dev")" "$target"' in aperture
    assert "ExecStart=/opt/trainstack/aperture-devices" in files[
        "/etc/systemd/system/trainstack-aperture.service"]["content"]
    assert "-v /dev/aperture_devices:/dev/aperture_devices" in files["/opt/trainstack/rxdm"][
        "content"]
    profile = files["/etc/profile.d/trainstack-nccl.sh"]["content"]
    assert 'NCCL_FASTRAK_LLCM_DEVICE_DIRECTORY="/dev/aperture_devices"' in profile


@pytest.mark.parametrize("family", ["a3-mega", "a3-high"])
def test_docker_logs_in_to_artifact_registry_before_pulling_googles_images(family, tmp_path):
    """Google's A3 Mega RxDM prolog (GoogleCloudPlatform/slurm-gcp @13fd92b6, tools/
    prologs-epilogs/receive-data-path-manager-mega) logs Docker in to us-docker.pkg.dev before
    it runs the plugin installer and RxDM images; the boot does the same, with the service
    account's token as Artifact Registry's access-token method takes it (user
    oauth2accesstoken, cloud.google.com/artifact-registry/docs/docker/authentication#token)."""
    fabric = step_text(user_data(family), "fabric")
    login = fabric.index("docker login -u oauth2accesstoken --password-stdin "
                         "https://us-docker.pkg.dev")
    assert fabric.index("systemctl enable --now docker") < login
    assert login < fabric.index("docker run --rm -v /var/lib:/var/lib "
                                "us-docker.pkg.dev/gce-ai-infra/")
    assert login < fabric.index("systemctl enable --now trainstack-rxdm.service")
    # the pipeline itself, with the metadata server's answer and a docker that records its login
    start = fabric.rindex("\n", 0, fabric.index("instance/service-accounts/default/token")) + 1
    pipeline = fabric[start:fabric.index("\n", login)]
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    stand_in(bin_dir, "curl", 'echo \'{"access_token":"ya29.node-token","expires_in":3599,'
                              '"token_type":"Bearer"}\'\n')
    stand_in(bin_dir, "docker", f'echo "$*" > "{tmp_path}/args"; cat > "{tmp_path}/password"\n')
    ran = subprocess.run(["bash", "-c", "set -euo pipefail\n" + pipeline], capture_output=True,
                         text=True, env={"PATH": f"{bin_dir}:/usr/bin:/bin"})
    assert ran.returncode == 0, ran.stderr
    assert (tmp_path / "args").read_text().split() == [
        "login", "-u", "oauth2accesstoken", "--password-stdin", "https://us-docker.pkg.dev"]
    assert (tmp_path / "password").read_text().strip() == "ya29.node-token"


def test_a3_high_tcpx_needs_no_aperture_devices():
    text = user_data("a3-high")
    files = written_files(text)
    assert "/opt/trainstack/aperture-devices" not in files
    assert "dmabuf-import-helper" not in step_text(text, "fabric")
    assert "aperture_devices" not in files["/opt/trainstack/rxdm"]["content"]


def test_the_aperture_script_mounts_each_tcpxo_nic(tmp_path):
    files = written_files(user_data("a3-mega"))
    pci = tmp_path / "pci"
    for addr, (vendor, device) in {"0000:06:00.0": ("0x1ae0", "0x0084"),
                                   "0000:07:00.0": ("0x1ae0", "0x0084"),
                                   "0000:08:00.0": ("0x10de", "0x2330")}.items():
        (pci / addr).mkdir(parents=True)
        (pci / addr / "vendor").write_text(vendor + "\n")
        (pci / addr / "device").write_text(device + "\n")
        (pci / addr / "resource0").write_text("")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "calls.log"
    # A bind mount, as far as the script can tell: the device's files appear at the target.
    stand_in(bin_dir, "mount", f'echo "mount $*" >> "{log}"\ncp -r "$2"/. "$3"/\n')
    stand_in(bin_dir, "mountpoint", "exit 1\n")
    script = (files["/opt/trainstack/aperture-devices"]["content"]
              .replace("/sys/bus/pci/devices", str(pci))
              .replace("/dev/aperture_devices", str(tmp_path / "aperture")))
    path = tmp_path / "aperture.sh"
    path.write_text(script)
    result = subprocess.run(["bash", str(path)], capture_output=True, text=True,
                            env={"PATH": f"{bin_dir}:/usr/bin:/bin"})
    assert result.returncode == 0, result.stdout + result.stderr
    mounts = log.read_text().splitlines()
    assert mounts == [f"mount --bind {pci / a} {tmp_path / 'aperture' / a}"
                      for a in ("0000:06:00.0", "0000:07:00.0")]
    assert "2 aperture devices" in result.stdout
