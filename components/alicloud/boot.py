"""Alibaba Cloud's facts for the cloud-neutral boot steps (components/boot).

Sources (Alibaba Cloud docs, read 2026-12-01 through the search tool):
- CPFS "Mount a file system using a CPFS-NFS client (Recommended)": the CPFS-NFS client is the
  `aliyun-alinas-utils` package from the cpfs-hangzhou-nfs-client OSS bucket (a .deb for
  Ubuntu), it mounts with `mount -t cpfs-nfs` and runs haproxy and a watchdog on the node. The
  POSIX client is installed from the CPFS console/API, not from a package, so boot cannot do it.
- ECS "Enable eRDMA": the eRDMA driver installer `erdma_installer-<v>.tar.gz` on
  mirrors.cloud.aliyuncs.com (the VPC-internal mirror), with its SHA256; the public-image
  console option "Auto-install eRDMA Software Stack" does the same. Unattended install as
  AliyunContainerService/alibabacloud-erdma-controller runs it: kernel headers, a C/C++
  compiler, dkms and cmake, then `./install.sh --batch`.
- ECS "Enable eRDMA on GPU instances": with NCCL's LL128 protocol the MTU must be 8500 (jumbo
  frames); without jumbo frames it must be 1400, else data is corrupted. trainstack does not turn
  jumbo frames on, so LL128 stays off.
- PAI "eRDMA: use high-performance networks for distributed training": NCCL 2.19 or later;
  NCCL reaches the ERIs through its IB verbs transport (device name prefix `erdma`).
- GPU driver: the public Ubuntu image carries none, and the console's "Auto-install GPU driver"
  option is itself user data, which ours replaces (ECS "Enable eRDMA on GPU instances":
  "Auto-install GPU Driver ... installs the GPU driver, CUDA, cuDNN"). Boot installs a pinned
  driver, CUDA toolkit and, on NVSwitch (HGX) types, the matching nvidia-fabricmanager from
  NVIDIA's CUDA apt repository for Ubuntu 22.04 (developer.download.nvidia.com/compute/cuda/repos/
  ubuntu2204; NVIDIA Fabric Manager user guide: the fabric manager's version must equal the
  driver's, and NVSwitch systems need it running before CUDA can use the GPUs).
- SCC RoCE: the RDMA userspace (rdma-core, ibverbs-providers, ibverbs-utils from Ubuntu) so
  NCCL's IB verbs transport finds the mlx5 devices; at least one device is expected.
- GPUDirect RDMA: `nvidia-peermem` ships with the NVIDIA driver (R470+) and lets an RDMA NIC
  reach GPU memory. Alibaba's eRDMA GPU page names no peer-memory step; boot loads the module on
  RDMA types and records whether it loaded, without failing the fabric (NCCL then stages through
  host memory, slower but correct).
- ECS instance metadata at 100.100.100.200 (normal mode), the RAM role's temporary
  credentials under meta-data/ram/security-credentials/<role>; the Alibaba Cloud CLI's
  `EcsRamRole` mode reads them (no key on the node); its `oss cp` uploads the health record and
  downloads the agents' code the user data has no room for (render_boot(ship=True)).
"""
from __future__ import annotations

import base64
import dataclasses
import gzip

from trainstack_components.boot import CloudBoot, Fabric, NodeContext, user_data_too_large

METADATA = "http://100.100.100.200/latest/meta-data"
CPFS_NFS_CLIENT_DEB = ("https://cpfs-hangzhou-nfs-client.oss-cn-hangzhou.aliyuncs.com/"
                       "aliyun-alinas-utils-latest.deb")
ERDMA_INSTALLER = "http://mirrors.cloud.aliyuncs.com/erdma/erdma_installer-1.5.7.tar.gz"
ERDMA_INSTALLER_SHA256 = "cb44f4c4aaaabfbd81224c85a9e7889732bda26cc832ff70ecc0559bcc14165c"
ALIYUN_CLI = "https://aliyuncli.alicdn.com/aliyun-cli-linux-latest-amd64.tgz"
CLI_PROFILE = "trainstack"
SOCKET_IFNAME = "eth0"      # the primary ENI: bootstrap traffic, never a container bridge
# ECS RunInstances `UserData`: "cannot exceed 32 KB in size before Base64 encoding"
# (https://help.aliyun.com/document_detail/49121.html, Instance user data; read 2026-12-01).
# With every file inline the example's boot (sccgn7ex) was 117,230 bytes, 31,491 gzipped: 96 %
# of it. As on AWS, the agents' code travels through the bucket (render_boot(ship=True)) and
# the first step fetches it; gzip (cloud-init reads gzip user data) only if the rest is over.
USER_DATA_LIMIT = 32 * 1024
# The fetch step is the boot's first, and the node's RAM role comes by a separate resource
# (ecs.RamRoleAttachment) only once the instance is Running: until then the metadata server has
# no STS token. Ten minutes covers that wait (and the CLI's download from its CDN through the
# NAT gateway); a file that never comes fails the step within the same ten minutes.
FETCH_WINDOW_S = 600
# `|| true`: with no /sys/class/infiniband find fails, and under pipefail the count would end
# the step (no message, no health record) instead of printing 0
RDMA_COUNT = "{ find /sys/class/infiniband -mindepth 1 -maxdepth 1 2>/dev/null || true; } | wc -l"
# Pinned: the R550 production branch and CUDA 12.4, from NVIDIA's CUDA repository for Ubuntu
# 22.04. Package revisions differ by package: from 550.90.12 on, cuda-drivers-550 and the driver
# packages it pulls are "<release>-0ubuntu1", the fabric manager stays "<release>-1" (NVIDIA/
# holodeck docs/commands/create.md@6f3ca80 lists the cuda-drivers versions, "550.127.08-0ubuntu1";
# NVIDIA's debian10 repo carries nvidia-fabricmanager-550_550.127.08-1). CUDA 12.4.1's
# metapackages are "12.4.1-1" (cuda-12-4=12.4.1-1 in the same repository).
CUDA_REPO = "https://developer.download.nvidia.com/compute/cuda/repos/ubuntu2204/x86_64"
CUDA_KEYRING_DEB = "cuda-keyring_1.1-1_all.deb"
NVIDIA_DRIVER_BRANCH = "550"
NVIDIA_DRIVER_RELEASE = "550.127.08"
NVIDIA_DRIVER_VERSION = f"{NVIDIA_DRIVER_RELEASE}-0ubuntu1"      # cuda-drivers-550
NVIDIA_FABRICMANAGER_VERSION = f"{NVIDIA_DRIVER_RELEASE}-1"      # nvidia-fabricmanager-550
CUDA_TOOLKIT = "cuda-toolkit-12-4"
CUDA_TOOLKIT_VERSION = "12.4.1-1"
# `cuda-drivers-550=<v>` pins only the metapackage: its dependencies are ">=" (GCP's install
# guide picks cuda-drivers by comparing with the installed nvidia-driver for that reason), so
# apt would take the newest nvidia-driver-550 and libnvidia-* of the branch, and the fabric
# manager pinned at <v> then refuses to start against a newer driver. An apt preferences pin
# (apt_preferences(5): glob package names, glob versions, priority > 1000) holds every package of
# the driver release to it.
APT_PIN_FILE = "/etc/apt/preferences.d/trainstack-nvidia-driver"
APT_PIN = ("Package: cuda-drivers* nvidia-* libnvidia-* libxnvctrl0",
           f"Pin: version {NVIDIA_DRIVER_RELEASE}-*", "Pin-Priority: 1001")
# 8-GPU HGX boards whose GPUs talk through NVSwitch: the fabric manager must run, or CUDA
# reports no usable device (NVIDIA Fabric Manager user guide).
NVSWITCH_TYPES = ("ecs.ebmgn8v.", "ecs.gn8v-8x.", "ecs.gn7e-c16g1.32xlarge", "ecs.sccgn7ex.",
                  "ecs.gn8e-8x.", "ecs.gn8ep-8x.")
RDMA_USERSPACE = ("rdma-core", "ibverbs-providers", "ibverbs-utils")
# The eRDMA verbs provider the installer puts on the host (rdma-core's provider layout: the
# driver file libibverbs reads, and the provider library it loads). The training image's
# libibverbs finds no erdma device without them, and NCCL falls back to sockets.
ERDMA_VERBS_PROVIDER = ("/etc/libibverbs.d/erdma.driver",
                        "/usr/lib/x86_64-linux-gnu/libibverbs/liberdma-rdmav*.so")


def has_nvswitch(instance_type: str) -> bool:
    return instance_type.startswith(NVSWITCH_TYPES)


def gpu_driver(ctx: NodeContext) -> str:
    """Install the pinned NVIDIA driver and CUDA (and the fabric manager on NVSwitch types);
    idempotent: a node whose nvidia-smi already answers keeps its driver."""
    branch, version = NVIDIA_DRIVER_BRANCH, NVIDIA_DRIVER_VERSION
    nvswitch = has_nvswitch(ctx.instance_type)
    fabric = f' "nvidia-fabricmanager-{branch}={NVIDIA_FABRICMANAGER_VERSION}"' if nvswitch else ""
    held = f' "nvidia-fabricmanager-{branch}"' if nvswitch else ""
    start_fabric = "systemctl enable --now nvidia-fabricmanager\n" if nvswitch else ""
    return f"""if ! nvidia-smi >/dev/null 2>&1; then
  curl -fsSL -o /tmp/{CUDA_KEYRING_DEB} {CUDA_REPO}/{CUDA_KEYRING_DEB}
  dpkg -i /tmp/{CUDA_KEYRING_DEB}
  printf '%s\\n' {" ".join(f"'{line}'" for line in APT_PIN)} > {APT_PIN_FILE}
  apt-get update -qq
  apt-get install -y -qq "linux-headers-$(uname -r)"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    "cuda-drivers-{branch}={version}"{fabric} "{CUDA_TOOLKIT}={CUDA_TOOLKIT_VERSION}"
  apt-mark hold "cuda-drivers-{branch}"{held}
  modprobe nvidia
fi
{start_fabric}nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
"""


def peermem() -> str:
    return """if modprobe nvidia_peermem 2>/dev/null; then echo "nvidia_peermem loaded: GPUDirect RDMA on"
else echo "nvidia_peermem not loaded: NCCL stages RDMA traffic through host memory"; fi"""


def _metadata(path: str) -> str:
    return f"curl -fsS {METADATA}/{path}"


def _cli_setup(ctx: NodeContext) -> str:
    """The Alibaba Cloud CLI, signed by the node's RAM role (EcsRamRole: no key on the node)."""
    return f"""if ! command -v aliyun >/dev/null; then
  curl -fsSL --connect-timeout 20 --max-time 300 -o /tmp/aliyun-cli.tgz {ALIYUN_CLI}
  tar -xzf /tmp/aliyun-cli.tgz -C /usr/local/bin aliyun
fi
aliyun configure set --profile {CLI_PROFILE} --mode EcsRamRole \\
  --ram-role-name {ctx.extra["node_role"]} --region "$TS_REGION" >/dev/null"""


# The domain wherever the answer nests it (the API reference lists ProtocolMountTargets[]);
# one line, because a step's functions are indented.
def _pick_domain(export_path: str) -> str:
    """One line (a step's functions are indented): print `<domain>:/share<export path>`, the
    CPFS-NFS mount address of an export (alibaba/alibabacloud-nas-utils README, cpfs-nfs: "the
    mount address of the export directory ... e.g. <domain>:/share/fileset")."""
    path = "/" + export_path.strip("/") if export_path.strip("/") else ""
    return ('import re, sys; m = re.search(r"ProtocolMountTargetDomain\\W+([A-Za-z0-9.-]+)", '
            f'sys.stdin.read()); print(m.group(1) + ":/share{path}") if m else sys.exit(1)')


class AlicloudBoot(CloudBoot):
    """CPFS through the CPFS-NFS client at the shared MOUNT_PATH, eRDMA (or SCC RoCE) for NCCL,
    ranks from the fixed address plan (node i is `planning.node_ip(i)`); the agents' code
    fetched from, and the health record uploaded to, OSS with the Alibaba Cloud CLI under the
    node's RAM role."""

    cloud = "alicloud"
    fetch_window_s = FETCH_WINDOW_S
    filesystem_type = "cpfs-nfs"
    filesystem_module = "nfs"
    # alibaba/alibabacloud-nas-utils README (mount.cpfs-nfs): CPFS mounts over NFSv3 only, with
    # these recommended options; "soft" risks data consistency.
    lustre_mount_options = ("vers=3,rsize=1048576,wsize=1048576,hard,timeo=600,retrans=2,"
                            "noresvport,_netdev")

    def filesystem_source(self, ctx: NodeContext) -> str:
        # The export directory's mount address is not a pulumi-alicloud output: ask
        # DescribeProtocolMountTarget (ProtocolMountTargetDomain) under the node's role. The
        # export path follows `/share` (the CPFS-NFS mount address, e.g. <domain>:/share/fileset).
        fs_id, export_id = ctx.extra["filesystem_id"], ctx.extra["export_id"]
        pick = _pick_domain(str(ctx.extra.get("export_path", "/")))
        return _cli_setup(ctx) + f"""
aliyun --profile {CLI_PROFILE} nas DescribeProtocolMountTarget --RegionId "$TS_REGION" \\
  --FileSystemId {fs_id} --Filters.1.Key ExportIds --Filters.1.Value {export_id} \\
  | python3 -c '{pick}'"""

    def client_ready(self) -> str:
        # The NFS module is in every stock kernel; the client is ready once its mount helper is.
        return "command -v mount.cpfs-nfs >/dev/null && modprobe nfs 2>/dev/null"

    def lustre_install(self, ctx: NodeContext) -> str:
        del ctx
        return f"""if command -v mount.cpfs-nfs >/dev/null; then return 0; fi
apt-get update -qq
apt-get install -y -qq nfs-common haproxy
curl -fsSL -o /tmp/aliyun-alinas-utils-latest.deb {CPFS_NFS_CLIENT_DEB}
apt-get install -y -qq /tmp/aliyun-alinas-utils-latest.deb
modprobe nfs"""

    def nvme_devices(self) -> str:
        # Local NVMe disks (gn8v/ebmgn8v carry them) next to the NVMe-attached system disk on
        # newer types: keep whole NVMe disks with no partitions that do not hold `/`.
        return """root_disk="$(lsblk -no PKNAME "$(findmnt -no SOURCE /)" 2>/dev/null | head -n1)"
lsblk -dpno NAME,TYPE | awk '$2 == "disk" && $1 ~ /nvme/ {print $1}' | while read -r disk; do
  if [ "$(basename "$disk")" = "$root_disk" ]; then continue; fi
  if [ "$(lsblk -no NAME "$disk" | wc -l)" -gt 1 ]; then continue; fi
  echo "$disk"
done"""

    def fabric(self, ctx: NodeContext) -> Fabric:
        # The GPU driver first, on every type: the fabric and everything after need nvidia-smi.
        if ctx.use_rdma and ctx.fabric == "erdma":
            fabric = self._erdma(ctx)
        elif ctx.use_rdma and ctx.fabric == "roce":
            fabric = self._scc_roce(ctx)
        else:
            fabric = Fabric("tcp", f"export NCCL_SOCKET_IFNAME={SOCKET_IFNAME}\n"
                            "export NCCL_IB_DISABLE=1")
        return dataclasses.replace(fabric, setup=gpu_driver(ctx) + fabric.setup)

    def _erdma(self, ctx: NodeContext) -> Fabric:
        setup = f"""if [ ! -d /sys/module/erdma ] || ! command -v ibv_devices >/dev/null; then
  apt-get update -qq
  apt-get install -y -qq "linux-headers-$(uname -r)" dkms cmake gcc g++
  curl -fsSL -o /tmp/erdma_installer.tar.gz {ERDMA_INSTALLER}
  echo "{ERDMA_INSTALLER_SHA256}  /tmp/erdma_installer.tar.gz" | sha256sum -c -
  tar -xzf /tmp/erdma_installer.tar.gz -C /tmp
  (cd /tmp/erdma_installer && ./install.sh --batch)
fi
modprobe erdma
{peermem()}
eri="$({RDMA_COUNT})"
echo "eRDMA devices: $eri ({ctx.rdma_nics} ERIs expected on {ctx.instance_type})"
[ "$eri" -ge {ctx.rdma_nics} ]"""
        profile = "\n".join([
            "export NCCL_IB_DISABLE=0",
            "export NCCL_IB_HCA=erdma",
            "export NCCL_IB_GID_INDEX=1",
            f"export NCCL_SOCKET_IFNAME={SOCKET_IFNAME}",
            "# MTU 1400 without jumbo frames: LL128 would corrupt data (Alibaba eRDMA GPU doc)",
            "export NCCL_PROTO=^LL128",
        ])
        return Fabric("erdma", profile, setup, rdma_devices_expected=ctx.rdma_nics,
                      rdma_count_command=RDMA_COUNT, container_mounts=ERDMA_VERBS_PROVIDER)

    def _scc_roce(self, ctx: NodeContext) -> Fabric:
        # SCC types bring their RoCE NICs (mlx5, in-kernel driver) on the HPC cluster's own
        # network; NCCL needs the verbs userspace, which the public image lacks.
        expected = max(1, ctx.rdma_nics)
        setup = f"""if ! command -v ibv_devices >/dev/null; then
  apt-get update -qq
  apt-get install -y -qq {" ".join(RDMA_USERSPACE)}
fi
modprobe mlx5_ib 2>/dev/null || true
{peermem()}
roce="$({RDMA_COUNT})"
echo "RoCE devices: $roce (at least {expected} expected on {ctx.instance_type})"
[ "$roce" -ge {expected} ]"""
        profile = "\n".join(["export NCCL_IB_DISABLE=0", "export NCCL_IB_HCA=mlx5",
                             f"export NCCL_SOCKET_IFNAME={SOCKET_IFNAME}"])
        return Fabric("roce", profile, setup, rdma_devices_expected=expected,
                      rdma_count_command=RDMA_COUNT)

    def agent_env(self, ctx: NodeContext) -> dict[str, str]:
        """ossfs needs the bucket's endpoint (the VPC-internal one, as the health upload uses)
        and the RAM role whose STS token the agent takes from the metadata server."""
        return {"TS_OSS_ENDPOINT": f"https://oss-{ctx.region}-internal.aliyuncs.com",
                "TS_RAM_ROLE": str(ctx.extra.get("node_role", ""))}

    def node_name(self) -> str:
        return _metadata("hostname")

    def self_address(self) -> str:
        return _metadata("private-ipv4")

    def peer_addresses(self, ctx: NodeContext) -> str:
        # Node i has the fixed address planning.node_ip(i): the plan is the node group's API.
        addresses = ctx.extra.get("node_addresses") or []
        if len(addresses) != ctx.nodes:
            raise ValueError(f"NodeContext.extra['node_addresses'] must list {ctx.nodes} "
                             f"addresses, got {len(addresses)}")
        return "printf '%s\\n' " + " ".join(addresses)

    def upload(self, ctx: NodeContext, local_path: str, key: str) -> str:
        return _cli_setup(ctx) + f"""
aliyun --profile {CLI_PROFILE} oss cp -f "{local_path}" "oss://$TS_BUCKET/{key}" \\
  --endpoint "oss-$TS_REGION-internal.aliyuncs.com\""""

    def download(self, ctx: NodeContext, key: str, local_path: str) -> str:
        # The same CLI, role and VPC-internal endpoint as the health upload; -f: a failed try
        # may have left the file behind.
        return _cli_setup(ctx) + f"""
aliyun --profile {CLI_PROFILE} oss cp -f "oss://$TS_BUCKET/{key}" "{local_path}" \\
  --endpoint "oss-$TS_REGION-internal.aliyuncs.com\""""


def ecs_user_data(text: str) -> str:
    """Base64, as ECS recommends for `user_data`; gzipped first only when the text is over
    ECS's limit. Still over it: a SpecError (exit 2 at `trainstack plan`)."""
    raw = text.encode()
    if len(raw) > USER_DATA_LIMIT:
        raw = gzip.compress(raw, mtime=0)
    if len(raw) > USER_DATA_LIMIT:
        raise user_data_too_large("alicloud", len(raw), USER_DATA_LIMIT, "ECS RunInstances")
    return base64.b64encode(raw).decode()


def decode_ecs_user_data(encoded: str) -> str:
    raw = base64.b64decode(encoded)
    return (gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw).decode()
