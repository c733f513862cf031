"""Google Cloud's facts for the cloud-neutral boot steps (components/boot).

Sources: Cluster Toolkit modules/file-system/managed-lustre (client from the
lustre-client-binaries Artifact Registry apt repository, `lustre-client-modules-$(uname -r)`
and `lustre-client-utils`, kernels limited to those packaged); Cluster Toolkit A3 Ultra / A4
blueprints and Google's gIB images (the `nccl-gib` package, /usr/local/gib/scripts/
set_nccl_env.sh, NCCL_NET=gIB); GPUDirect-TCPX/TCPXO guides and google/tcpgpudmarxd (the NCCL
plugin installer images and the receive-data-path manager, RxDM, run beside the workload).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from trainstack_components.boot import BootFile, CloudBoot, Fabric, NodeContext

METADATA = "http://metadata.google.internal/computeMetadata/v1"
# Every node of a group runs the same gIB and NCCL, and a VM the group recreates weeks later
# gets the same ones as its peers (mixed NCCL versions hang collectives). Cluster Toolkit
# examples/machine-learning/a3-ultragpu-8g/a3ultra-slurm-blueprint.yaml and
# a4-highgpu-8g/a4high-slurm-blueprint.yaml (GoogleCloudPlatform/cluster-toolkit @706df3b2):
# `nccl_gib_version: 1.1.0`, installed as nccl-gib=<version> from the gpudirect-gib-apt
# Artifact Registry repository and held; the image's NVIDIA packages held; 20auto-upgrades
# written to 0.
NCCL_GIB_VERSION = "1.1.0"
NVIDIA_HOLD_PATTERNS = ("libnvidia-cfg1-*-server", "libnvidia-compute-*-server",
                        "libnvidia-nscq-*", "nvidia-compute-utils-*-server",
                        "nvidia-fabricmanager-*", "nvidia-utils-*-server", "nvidia-imex-*")
AUTO_UPGRADES = BootFile("/etc/apt/apt.conf.d/20auto-upgrades",
                         'APT::Periodic::Update-Package-Lists "0";\n'
                         'APT::Periodic::Unattended-Upgrade "0";\n')
# apt-mark takes package names: the installed ones matching the blueprint's patterns.
HOLD_NVIDIA = ("mapfile -t held < <(dpkg-query -W -f='${binary:Package}\\n' "
               + " ".join(f"'{p}'" for p in NVIDIA_HOLD_PATTERNS)
               + " 2>/dev/null || true)\n"
               'if [ "${#held[@]}" -gt 0 ]; then apt-mark hold "${held[@]}"; fi')
GIB_ENV = "/usr/local/gib/scripts/set_nccl_env.sh"
GIB_DIR = "/usr/local/gib"
GOOGLE_APT_KEY = "https://packages.cloud.google.com/apt/doc/apt-key.gpg"
GOOGLE_KEYRING = "/etc/apt/keyrings/cloud.google.gpg"
GIB_LIB = "/usr/local/gib/lib64"
GPU_NICS_ENV = "/etc/trainstack/gpu-nics.env"
RXDM_UNIT = "trainstack-rxdm.service"
RXDM_LAUNCHER = "/opt/trainstack/rxdm"
RXDM_READY_LINE = "Buffer manager initialization completed"
# How long the boot waits for it: Google's startup probe gives the daemon 30 s after a 1 s delay
# (6 x 5 s); four times that, as the image pull and the NICs' setup come first on a fresh node.
RXDM_READY_S = 120


def _metadata(path: str) -> str:
    return f"curl -fsS -H 'Metadata-Flavor: Google' {METADATA}/{path}"


_PREPEND = """case ":${{LD_LIBRARY_PATH:-}}:" in
  *":{lib}:"*) ;;
  *) LD_LIBRARY_PATH="{lib}${{LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}}" ;;
esac
export LD_LIBRARY_PATH"""

# The host NIC carries bootstrap and control traffic; every other physical NIC is a GPU NIC.
_FIND_GPU_NICS = f"""host_nic="$(ip route show default | awk '{{print $5; exit}}')"
gpu_nics=""
for path in /sys/class/net/*; do
  nic="$(basename "$path")"
  if [ -e "$path/device" ] && [ "$nic" != "$host_nic" ]; then
    gpu_nics="$gpu_nics${{gpu_nics:+,}}$nic"
  fi
done
printf 'TS_HOST_NIC=%s\\nTS_GPU_NICS=%s\\n' "$host_nic" "$gpu_nics" > {GPU_NICS_ENV}
echo "host NIC $host_nic; GPU NICs $gpu_nics\""""

# bash only: the plugin's script is written for bash, and /etc/profile.d is read by sh too.
_SOURCE_ENV_PROFILE = """if [ -n "${{BASH_VERSION:-}}" ] && [ -r {script} ]; then
  NCCL_LIB_DIR={lib}
  export NCCL_LIB_DIR
  . {script}
fi"""

_GPU_NIC_COUNT = (f"if [ -r {GPU_NICS_ENV} ]; then . {GPU_NICS_ENV}; fi\n"
                  "echo \"${TS_GPU_NICS:-}\" | tr ',' '\\n' | grep -c . || true")




@dataclass(frozen=True)
class GpuDirectTcp:
    """One GPUDirect-TCP generation: the NCCL plugin installer, the RxDM image and its command,
    and the NCCL environment (A3 High: TCPX, 4 GPU NICs; A3 Mega: TCPXO, 8 GPU NICs)."""

    kind: str
    plugin_image: str
    plugin_lib: str
    rxdm_image: str
    rxdm_command: str
    nccl_env: tuple[tuple[str, str], ...]
    # A3 Mega only: TCPXO reads the NICs' aperture BARs from /dev/aperture_devices and needs the
    # dmabuf-import-helper kernel module, neither of which a stock accelerator image has.
    aperture_devices: bool = False
    # The plugin's own environment script, sourced (bash) before `nccl_env`, and the values it
    # sets written out as well, for shells that cannot read it and for a plugin without it.
    env_profile: str = ""
    profile_defaults: tuple[tuple[str, str], ...] = ()
    # A3 Mega only: the TCPXO daemon (RxDM) says when it is ready. Google's best practice for
    # it (GoogleCloudPlatform/container-engine-accelerators gpudirect-tcpxo/best-practice.md,
    # "Setup Startup Probe for the TCPXO-daemon Sidecar", @3aa66cbe): with HEALTH_CHECK_LOG_FILE
    # set (no underscore in the file's name), it writes `Buffer manager initialization
    # completed` there once initialised, "typically ~30s"; a failed start writes no file.
    rxdm_health_file: str = ""


TCPX = GpuDirectTcp(
    "tcpx", "us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpx/nccl-plugin-gpudirecttcpx-dev:"
    "v3.1.6_2023_10_06", "/var/lib/tcpx/lib64",
    "us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpx/tcpgpudmarxd-dev:v2.0.12",
    '/tcpgpudmarxd/build/app/tcpgpudmarxd --gpu_nic_preset a3vm --gpu_shmem_type fd '
    '--uds_path /run/tcpx --setup_param "--verbose 128 2 0"',
    (("NCCL_SOCKET_IFNAME", "${TS_HOST_NIC:-}"), ("NCCL_GPUDIRECTTCPX_CTRL_DEV", "${TS_HOST_NIC:-}"),
     ("NCCL_GPUDIRECTTCPX_SOCKET_IFNAME", "${TS_GPU_NICS:-}"),
     ("NCCL_GPUDIRECTTCPX_UNIX_CLIENT_PREFIX", "/run/tcpx"), ("NCCL_CROSS_NIC", "0"),
     ("NCCL_ALGO", "Ring"), ("NCCL_PROTO", "Simple"), ("NCCL_NET_GDR_LEVEL", "PIX"),
     ("NCCL_P2P_PXN_LEVEL", "0"), ("NCCL_DYNAMIC_CHUNK_SIZE", "524288"),
     ("NCCL_P2P_NET_CHUNKSIZE", "524288"), ("NCCL_BUFFSIZE", "8388608"),
     ("NCCL_NSOCKS_PERTHREAD", "4"), ("NCCL_SOCKET_NTHREADS", "1"),
     ("NCCL_GPUDIRECTTCPX_FORCE_ACK", "0")))

TCPXO = GpuDirectTcp(
    "tcpxo", "us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpxo/nccl-plugin-gpudirecttcpx-dev:v1.0.15",
    "/var/lib/tcpxo/lib64",
    "us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpxo/tcpgpudmarxd-dev:v1.0.21",
    # v1.0.21 retired --num_nics/--uid/--alsologtostderr; --num_hops stays.
    "/fts/entrypoint_rxdm_container.sh --num_hops=2",
    (("NCCL_SOCKET_IFNAME", "${TS_HOST_NIC:-}"), ("NCCL_FASTRAK_CTRL_DEV", "${TS_HOST_NIC:-}"),
     ("NCCL_FASTRAK_IFNAME", "${TS_GPU_NICS:-}"),
     ("NCCL_FASTRAK_LLCM_DEVICE_DIRECTORY", "/dev/aperture_devices")),
    aperture_devices=True,
    # Cluster Toolkit examples/machine-learning/a3-megagpu-8g/nccl-tests/run-nccl-tests.sh
    # (@4f04afc1) sources /var/lib/tcpxo/lib64/nccl-env-profile.sh with NCCL_LIB_DIR set, then
    # names the NICs; the values it sets are those of a3-megagpu-8g/nemo-framework/Dockerfile
    # (@323e3709): SNAP and LLCM on, two flows per NIC, the tuner plugin and its A3+ config,
    # and the shimnet guest-config checker.
    env_profile="/var/lib/tcpxo/lib64/nccl-env-profile.sh",
    rxdm_health_file="/run/tcpx/health-check",   # in the folder the host and job share
    profile_defaults=(
        ("NCCL_CROSS_NIC", "0"), ("NCCL_PROTO", "Simple,LL128"), ("NCCL_MIN_NCHANNELS", "4"),
        ("NCCL_P2P_NET_CHUNKSIZE", "524288"), ("NCCL_P2P_PCI_CHUNKSIZE", "524288"),
        ("NCCL_P2P_NVL_CHUNKSIZE", "1048576"), ("NCCL_FASTRAK_NUM_FLOWS", "2"),
        ("NCCL_FASTRAK_USE_SNAP", "1"), ("NCCL_FASTRAK_ENABLE_CONTROL_CHANNEL", "0"),
        ("NCCL_BUFFSIZE", "8388608"), ("NCCL_NET_GDR_LEVEL", "PIX"),
        ("NCCL_FASTRAK_ENABLE_HOTPATH_LOGGING", "0"), ("NCCL_FASTRAK_USE_LLCM", "1"),
        ("NCCL_TUNER_PLUGIN", "libnccl-tuner.so"),
        ("NCCL_TUNER_CONFIG_PATH", "/var/lib/tcpxo/lib64/a3plus_tuner_config.textproto"),
        ("NCCL_SHIMNET_GUEST_CONFIG_CHECKER_CONFIG_FILE",
         "/var/lib/tcpxo/lib64/a3plus_guest_config.textproto"),
        ("NCCL_FASTRAK_PLUGIN_ACCEPT_TIMEOUT_MS", "600000"),
        ("NCCL_NVLSTREE_MAX_CHUNKSIZE", "131072")))

GPUDIRECT_TCP = {"gpudirect-tcpx": TCPX, "gpudirect-tcpxo": TCPXO}

# Docker logs in to Artifact Registry before it pulls the gce-ai-infra images, as Google's own
# scripts do: GoogleCloudPlatform/slurm-gcp @13fd92b615c030b9ba62e4a87d610bcc7af72b75
# tools/prologs-epilogs/receive-data-path-manager-mega (the A3 Mega RxDM prolog Cluster Toolkit's
# a3mega-slurm-blueprint.yaml installs) runs `gcloud auth configure-docker --quiet
# us-docker.pkg.dev` before it runs the plugin installer and RxDM images, and Cluster Toolkit's
# a4x blueprints do the same before the gIB image (GoogleCloudPlatform/cluster-toolkit
# @1047080375afbb44da4b596be314634e7486af4a examples/machine-learning/a4x-highgpu-4g/
# a4xhigh-slurm-blueprint.yaml). No public source says these repositories take anonymous pulls.
# The login uses the VM's service-account token from the metadata server, Artifact Registry's
# access-token method (cloud.google.com/artifact-registry/docs/docker/authentication#token:
# user `oauth2accesstoken`, the token as the password), which needs no gcloud.
GCE_AI_INFRA_REGISTRY = "us-docker.pkg.dev"
REGISTRY_LOGIN = (f"{_metadata('instance/service-accounts/default/token')} \\\n"
                  "  | python3 -c 'import json, sys; print(json.load(sys.stdin)[\"access_token\"])' \\\n"
                  "  | docker login -u oauth2accesstoken --password-stdin "
                  f"https://{GCE_AI_INFRA_REGISTRY}")

# A3 Mega's GPU NICs (PCI vendor 0x1ae0, device 0x0084): each one's sysfs directory bind-mounted
# under /dev/aperture_devices with its resource files world-writable, as Cluster Toolkit's
# a3mega-slurm-blueprint.yaml sets up (a udev rule there; a boot-time unit here, /dev being
# rebuilt on every boot). The identity is matched on vendor and device, not on a PCI class, as
# both of Google's sources do: GoogleCloudPlatform/cluster-toolkit
# @6c6a9a0341412c6b0897ea7a4e9737a245d7678a examples/machine-learning/a3-megagpu-8g/
# a3mega-slurm-blueprint.yaml (/etc/udev/rules.d/00-a3-megagpu.rules: `SUBSYSTEM=="pci",
# ATTR{vendor}=="0x1ae0", ATTR{device}=="0x0084"`) and GoogleCloudPlatform/
# container-engine-accelerators @685dca2541b5892cc85b7f670c34c0b44faa5889
# gpudirect-tcpxo/nccl-tcpxo-installer-autopilot.yaml (`lspci -nn -D | grep '1ae0:0084'`).
APERTURE_DIR = "/dev/aperture_devices"
APERTURE_SCRIPT = "/opt/trainstack/aperture-devices"
APERTURE_UNIT = "trainstack-aperture.service"
APERTURE_PCI_ID = ("0x1ae0", "0x0084")
# The helper module comes from Google's gpudirect-tcpxo apt repository in Artifact Registry,
# reached through the apt-transport-artifact-registry (`ar+https`) transport (same blueprint).
DMABUF_SETUP = """if ! dkms status dmabuf-import-helper 2>/dev/null | grep -q installed; then
  install -d -m 0755 /etc/apt/keyrings
  curl -fsSL https://packages.cloud.google.com/apt/doc/apt-key.gpg \\
    | gpg --dearmor --yes -o /etc/apt/keyrings/cloud.google.gpg
  echo "deb [signed-by=/etc/apt/keyrings/cloud.google.gpg] \\
https://packages.cloud.google.com/apt apt-transport-artifact-registry-stable main" \\
    > /etc/apt/sources.list.d/artifact-registry.list
  apt-get update -qq
  apt-get install -y -qq apt-transport-artifact-registry dkms "linux-headers-$(uname -r)"
  echo "deb [arch=all trusted=yes] ar+https://us-apt.pkg.dev/projects/gce-ai-infra \\
gpudirect-tcpxo-apt main" > /etc/apt/sources.list.d/gpudirect-tcpxo.list
  apt-get update -qq
  apt-get install -y -qq dmabuf-import-helper
fi"""


def _aperture_files() -> tuple[BootFile, ...]:
    vendor, device = APERTURE_PCI_ID
    script = f"""#!/bin/bash
# trainstack: expose A3 Mega's TCPXO aperture devices (PCI {vendor}:{device}) at {APERTURE_DIR}.
set -euo pipefail
install -d -m 0755 {APERTURE_DIR}
found=0
for dev in /sys/bus/pci/devices/*; do
  if [ "$(cat "$dev/vendor" 2>/dev/null)" != {vendor} ] \\
     || [ "$(cat "$dev/device" 2>/dev/null)" != {device} ]; then
    continue
  fi
  target="{APERTURE_DIR}/$(basename "$dev")"
  mkdir -p "$target"
  if ! mountpoint -q "$target"; then mount --bind "$(readlink -f "$dev")" "$target"; fi
  chmod 0666 "$target"/resource*
  found=$((found + 1))
done
echo "$found aperture devices under {APERTURE_DIR}"
[ "$found" -gt 0 ]
"""
    unit = f"""[Unit]
Description=trainstack TCPXO aperture devices at {APERTURE_DIR}
Before={RXDM_UNIT}

[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart={APERTURE_SCRIPT}

[Install]
WantedBy=multi-user.target
"""
    return (BootFile(APERTURE_SCRIPT, script, "0755"),
            BootFile(f"/etc/systemd/system/{APERTURE_UNIT}", unit))


def _rxdm_files(generation: GpuDirectTcp) -> tuple[BootFile, ...]:
    aperture = (f" \\\n  -v {APERTURE_DIR}:{APERTURE_DIR}" if generation.aperture_devices
                else "")
    health = (f" \\\n  -e HEALTH_CHECK_LOG_FILE={generation.rxdm_health_file}"
              if generation.rxdm_health_file else "")
    launcher = f"""#!/bin/bash
# trainstack: the GPUDirect-{generation.kind.upper()} receive-data-path manager, beside the workload.
set -euo pipefail
mkdir -p /run/tcpx
args=()
for dev in /dev/nvidia*; do
  if [ -c "$dev" ]; then args+=(--device "$dev:$dev"); fi
done
for lib in /usr/lib/x86_64-linux-gnu/libcuda.so.1 /usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1; do
  if [ -e "$lib" ]; then args+=(-v "$lib:/usr/local/nvidia/lib64/$(basename "$lib"):ro"); fi
done
exec docker run --rm --name trainstack-rxdm --privileged --network=host \\
  --cap-add=NET_ADMIN --cap-add=NET_BIND_SERVICE \\
  -e LD_LIBRARY_PATH=/usr/local/nvidia/lib64{health} \\
  -v /run/tcpx:/run/tcpx -v /sys:/hostsysfs -v /proc/sys:/hostprocsysfs{aperture} \\
  "${{args[@]}}" --entrypoint /bin/sh {generation.rxdm_image} -c '{generation.rxdm_command}'
"""
    after = f" {APERTURE_UNIT}" if generation.aperture_devices else ""
    # a restart's (or an earlier boot's) file must not say ready before this daemon is
    stale = (f"ExecStartPre=-/bin/rm -f {generation.rxdm_health_file}\n"
             if generation.rxdm_health_file else "")
    unit = f"""[Unit]
Description=trainstack GPUDirect-{generation.kind.upper()} receive-data-path manager (RxDM)
Requires=docker.service
After=docker.service network-online.target{after}

[Service]
ExecStartPre=-/usr/bin/docker rm -f trainstack-rxdm
{stale}ExecStart={RXDM_LAUNCHER}
Restart=always
RestartSec=10

[Install]
WantedBy=multi-user.target
"""
    return (BootFile(RXDM_LAUNCHER, launcher, "0755"),
            BootFile(f"/etc/systemd/system/{RXDM_UNIT}", unit))


def _wait_for_rxdm(generation: GpuDirectTcp) -> str:
    """The fabric step ends when the RxDM is ready, not when its container was started: a job
    launched before (or beside a daemon that failed) cannot open a TCPXO connection."""
    if not generation.rxdm_health_file:
        return ""
    health = generation.rxdm_health_file
    return f"""
for _ in $(seq 1 {RXDM_READY_S // 2}); do
  if grep -qs '{RXDM_READY_LINE}' {health}; then break; fi
  sleep 2
done
if ! grep -qs '{RXDM_READY_LINE}' {health}; then
  echo "the RxDM ({RXDM_UNIT}) did not write '{RXDM_READY_LINE}' to {health} within \
{RXDM_READY_S} s: TCPXO cannot carry a job; its log: journalctl -u {RXDM_UNIT}" >&2
  journalctl -u {RXDM_UNIT} -n 20 --no-pager 2>/dev/null || true
  exit 1
fi"""


class GcpBoot(CloudBoot):
    cloud = "gcp"
    lustre_mount_options = "defaults,_netdev"

    def lustre_install(self, ctx: NodeContext) -> str:
        del ctx
        return """. /etc/os-release
install -d -m 0755 /etc/apt/keyrings
curl -fsSL https://us-apt.pkg.dev/doc/repo-signing-key.gpg \\
  | gpg --dearmor --yes -o /etc/apt/keyrings/gcp-ar-repo.gpg
echo "deb [signed-by=/etc/apt/keyrings/gcp-ar-repo.gpg] \\
https://us-apt.pkg.dev/projects/lustre-client-binaries lustre-client-ubuntu-$VERSION_CODENAME main" \\
  > /etc/apt/sources.list.d/lustre-client.list
apt-get update -qq
apt-get install -y -qq "lustre-client-modules-$(uname -r)" lustre-client-utils"""

    def nvme_devices(self) -> str:
        return """for disk in /dev/disk/by-id/google-local-nvme-ssd-*; do
  if [ -e "$disk" ]; then readlink -f "$disk"; fi
done"""

    def fabric(self, ctx: NodeContext) -> Fabric:
        fabric = self._fabric(ctx)
        # Whatever the fabric, the driver stays the image's and nothing upgrades it behind the
        # cluster's back: the NVIDIA packages are held and unattended upgrades are off.
        return dataclasses.replace(
            fabric, setup=HOLD_NVIDIA + ("\n" + fabric.setup if fabric.setup else ""),
            files=(AUTO_UPGRADES, *fabric.files))

    def _fabric(self, ctx: NodeContext) -> Fabric:
        if ctx.fabric == "roce" and ctx.use_rdma:
            return self._gib(ctx)
        if ctx.fabric in GPUDIRECT_TCP and ctx.interconnect != "tcp":
            return self._gpudirect_tcp(ctx, GPUDIRECT_TCP[ctx.fabric])
        return Fabric("tcp", "export NCCL_SOCKET_IFNAME='^docker,lo,veth'")

    def _gib(self, ctx: NodeContext) -> Fabric:
        # Google's gIB page ("If you're not using an image from Google, trust the Google Cloud
        # signing key"): the key into a keyring first, then the gpudirect-gib-apt repository on
        # packages.cloud.google.com signed by it, so `apt-get update` accepts the source;
        # the blueprint's version, installed whenever the held one is not it.
        installed = "$(dpkg-query -W -f='${Version}' nccl-gib 2>/dev/null)"
        setup = f"""if [ "{installed}" != {NCCL_GIB_VERSION} ]; then
  install -d -m 0755 /etc/apt/keyrings
  curl -fsSL {GOOGLE_APT_KEY} | gpg --dearmor --yes -o {GOOGLE_KEYRING}
  echo "deb [signed-by={GOOGLE_KEYRING}] https://packages.cloud.google.com/apt \\
gpudirect-gib-apt main" > /etc/apt/sources.list.d/nccl-gib.list
  apt-get update -qq
  apt-mark unhold nccl-gib >/dev/null 2>&1 || true
  apt-get install -y -qq --allow-downgrades --allow-change-held-packages \\
    "nccl-gib={NCCL_GIB_VERSION}"
fi
apt-mark hold nccl-gib
test -r {GIB_ENV}"""
        profile = "\n".join([
            f"if [ -r {GIB_ENV} ]; then . {GIB_ENV}; fi",
            "export NCCL_NET=gIB",
            _PREPEND.format(lib=GIB_LIB),
        ])
        return Fabric("gib", profile, setup, rdma_devices_expected=ctx.rdma_nics,
                      rdma_count_command="{ find /sys/class/infiniband -mindepth 1 -maxdepth 1 "
                                         "2>/dev/null || true; } | wc -l",
                      container_mounts=(GIB_DIR,))

    def _gpudirect_tcp(self, ctx: NodeContext, generation: GpuDirectTcp) -> Fabric:
        aperture = (f"{DMABUF_SETUP}\nmodprobe import-helper 2>/dev/null \\\n"
                    "  || echo 'dmabuf-import-helper is installed but not loaded yet'\n"
                    f"systemctl enable --now {APERTURE_UNIT}\n"
                    if generation.aperture_devices else "")
        setup = f"""{_FIND_GPU_NICS}
if ! command -v docker >/dev/null; then
  apt-get update -qq
  apt-get install -y -qq docker.io
fi
systemctl enable --now docker
{REGISTRY_LOGIN}
docker run --rm -v /var/lib:/var/lib {generation.plugin_image} install --install-nccl
systemctl daemon-reload
mkdir -p /run/tcpx
{aperture}systemctl enable --now {RXDM_UNIT}{_wait_for_rxdm(generation)}"""
        profile = "\n".join(
            [f"if [ -r {GPU_NICS_ENV} ]; then . {GPU_NICS_ENV}; fi",
             _PREPEND.format(lib=generation.plugin_lib)]
            + [f'export {key}="{value}"' for key, value in generation.profile_defaults]
            + ([_SOURCE_ENV_PROFILE.format(lib=generation.plugin_lib,
                                           script=generation.env_profile)]
               if generation.env_profile else [])
            # the NICs this node found, after the plugin's script (which guesses eth0..eth8)
            + [f'export {key}="{value}"' for key, value in generation.nccl_env])
        # The plugin's folder and RxDM's socket folder (and A3 Mega's aperture devices) enter
        # the job's container, as Cluster Toolkit's nccl-tests and NeMo recipes mount them.
        mounts = (generation.plugin_lib, "/run/tcpx") + (
            (APERTURE_DIR,) if generation.aperture_devices else ())
        return Fabric(generation.kind, profile, setup, rdma_devices_expected=ctx.rdma_nics,
                      rdma_count_command=_GPU_NIC_COUNT, container_mounts=mounts,
                      files=_rxdm_files(generation)
                      + (_aperture_files() if generation.aperture_devices else ()))

    def node_name(self) -> str:
        return _metadata("instance/name")

    def self_address(self) -> str:
        return _metadata("instance/network-interfaces/0/ip")

    def peer_addresses(self, ctx: NodeContext) -> str:
        del ctx
        # A MIG's instances carry created-by: projects/N/zones/Z/instanceGroupManagers/NAME.
        return f"""group="$({_metadata("instance/attributes/created-by")})"
group="${{group##*/}}"
mapfile -t names < <(gcloud compute instance-groups managed list-instances "$group" \\
  --zone "$TS_ZONE" --project "$TS_PROJECT" --filter="instanceStatus=RUNNING" \\
  --format="value(instance.basename())")
if [ "${{#names[@]}}" -eq 0 ]; then return 0; fi
gcloud compute instances list --project "$TS_PROJECT" --zones "$TS_ZONE" \\
  --filter="name:( ${{names[*]}} )" --format="value(networkInterfaces[0].networkIP)\""""

    def upload(self, ctx: NodeContext, local_path: str, key: str) -> str:
        del ctx
        return f'gcloud storage cp --quiet "{local_path}" "gs://$TS_BUCKET/{key}"'
