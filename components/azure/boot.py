"""Azure's facts for the cloud-neutral boot steps (components/boot).

Sources (re-read 2026-12-01):
- Managed Lustre client: learn.microsoft.com azure-managed-lustre client-install-plan and
  client-install (the `amlfs-<codename>` apt repository on packages.microsoft.com; one
  `amlfs-lustre-client-<lustre version>` metapackage per Lustre build whose package *version* is
  the kernel it matches, e.g. `amlfs-lustre-client-2.15.3-43-gd7e07df=5.15.0-1042-azure`, as the
  repository's Packages index lists); mount `-o noatime,flock <mgs_ip>@tcp:/lustrefs`.
- InfiniBand/NCCL on the ubuntu-hpc image: Azure/azhpc-images customizations/ndv5.sh and ndv4.sh
  (/etc/nccl.conf with NCCL_IB_PCI_RELAXED_ORDERING=1, NCCL_TOPO_FILE, NCCL_IGNORE_CPU_AFFINITY=1)
  and the image README's NCCL test line (NCCL_SOCKET_IFNAME=eth0, CUDA_DEVICE_ORDER=PCI_BUS_ID,
  UCX_IB_PCI_RELAXED_ORDERING=on).
- Local NVMe: the ND sizes' "Microsoft NVMe Direct Disk" devices (8 on ND v5).
- Node facts: Azure Instance Metadata Service (IMDS) `instance/compute` and
  `instance/network`; peers from `az vmss nic list` with the node's user-assigned identity,
  which has Reader on the scale set only; uploads with `az storage blob upload --auth-mode login`
  (Storage Blob Data Contributor on the account).
"""
from __future__ import annotations

import base64
import gzip
import posixpath
from typing import Optional

from trainstack_components.boot import BootFile, BootStep, CloudBoot, Fabric, NodeContext
from trainstack_components.boot.model import MOUNT_PATH

IMDS = "http://169.254.169.254/metadata/instance"
IMDS_VERSION = "2021-02-01"
AMLFS_REPO = "https://packages.microsoft.com/repos/amlfs-$VERSION_CODENAME/"
MICROSOFT_KEY = "https://packages.microsoft.com/keys/microsoft.asc"
AZ_CLI_INSTALLER = "https://aka.ms/InstallAzureCLIDeb"
LUSTRE_FS_NAME = "lustrefs"      # Managed Lustre's file system name is always this
HOST_NIC = "eth0"                # the accelerated-networking NIC; IB devices carry NCCL data
# Azure takes at most 64 KB of custom data, measured base64-encoded.
CUSTOM_DATA_LIMIT = 65535


def imds(path: str) -> str:
    """One IMDS value as plain text (IMDS needs the Metadata header, and no proxy)."""
    return (f"curl -fsS --noproxy '*' -H Metadata:true "
            f"'{IMDS}/{path}?api-version={IMDS_VERSION}&format=text'")


def topology_file(instance_type: str) -> Optional[str]:
    """The HPC image's NCCL topology file for the ND size (None where the image has none)."""
    if instance_type.endswith("_v5"):
        return "/opt/microsoft/ndv5-topo.xml"
    if instance_type.endswith("_v4"):
        return "/opt/microsoft/ndv4-topo.xml"
    return None


def nccl_env(instance_type: str, use_rdma: bool) -> dict[str, str]:
    """NCCL's environment on the ubuntu-hpc image (the same values the image puts in
    /etc/nccl.conf, plus what its README's multi-node tests pass)."""
    env = {"NCCL_SOCKET_IFNAME": HOST_NIC, "CUDA_DEVICE_ORDER": "PCI_BUS_ID"}
    if not use_rdma:
        return {**env, "NCCL_IB_DISABLE": "1"}
    env.update({"NCCL_IB_PCI_RELAXED_ORDERING": "1", "UCX_IB_PCI_RELAXED_ORDERING": "on",
                "NCCL_IGNORE_CPU_AFFINITY": "1"})
    topo = topology_file(instance_type)
    if topo:
        env["NCCL_TOPO_FILE"] = topo
    return env


# Only InfiniBand ports count: accelerated networking's Mellanox VF shows up under
# /sys/class/infiniband too, as an Ethernet-link-layer device.
IB_DEVICE_COUNT = """n=0
for port in /sys/class/infiniband/*/ports/1/link_layer; do
  if [ -r "$port" ] && [ "$(cat "$port")" = InfiniBand ]; then n=$((n + 1)); fi
done
echo "$n\""""


def _az_login(ctx: NodeContext) -> str:
    """Sign in as the scale set's user-assigned identity (az 2.69+ takes --client-id, older
    releases --username); install the CLI first where the image lacks it."""
    client_id = ctx.extra.get("identity_client_id", "")
    return f"""if ! command -v az >/dev/null; then
  curl -fsSL {AZ_CLI_INSTALLER} | bash
fi
az login --identity --client-id '{client_id}' --output none 2>/dev/null \\
  || az login --identity --username '{client_id}' --output none"""


class AzureBoot(CloudBoot):
    cloud = "azure"
    lustre_mount_options = "noatime,flock"

    def lustre_install(self, ctx: NodeContext) -> str:
        del ctx
        # The newest Lustre build that has a package for the running kernel; none: fail, and
        # the lustre step reports that the kernel has no client.
        return f""". /etc/os-release
install -d -m 0755 /etc/apt/keyrings
curl -fsSL {MICROSOFT_KEY} | gpg --dearmor --yes -o /etc/apt/keyrings/microsoft.gpg
echo "deb [arch=amd64 signed-by=/etc/apt/keyrings/microsoft.gpg] \\
{AMLFS_REPO} $VERSION_CODENAME main" > /etc/apt/sources.list.d/amlfs.list
apt-get update -qq
kernel="$(uname -r)"
mapfile -t builds < <(apt-cache pkgnames amlfs-lustre-client- | sort -rV)
for build in "${{builds[@]}}"; do
  if apt-cache madison "$build" | awk '{{print $3}}' | grep -qx "$kernel"; then
    apt-get install -y -qq "$build=$kernel"
    return
  fi
done
echo "packages.microsoft.com has no amlfs-lustre-client build for kernel $kernel"
return 1"""

    def nvme_devices(self) -> str:
        # Managed disks on NVMe report "Microsoft NVMe Disk"; only the local disks say Direct.
        return "lsblk -dpno NAME,MODEL | awk '/NVMe Direct Disk/ {print $1}'"

    def fabric(self, ctx: NodeContext) -> Fabric:
        env = nccl_env(ctx.instance_type, ctx.use_rdma)
        profile = "\n".join(f"export {key}={value}" for key, value in sorted(env.items()))
        if not (ctx.use_rdma and ctx.fabric == "infiniband"):
            return Fabric("tcp", profile)
        topo = env.get("NCCL_TOPO_FILE")
        check_topo = (f'if [ ! -r {topo} ]; then echo "{topo} missing: not the ubuntu-hpc '
                      'image?"; exit 1; fi\n') if topo else ""
        setup = f"""{check_topo}n="$(rdma_ib_ports)"
echo "$n InfiniBand ports ({ctx.rdma_nics} expected on {ctx.instance_type})"
modprobe nvidia-peermem 2>/dev/null || echo "nvidia-peermem not loaded: GPUDirect RDMA is off"
[ "$n" -ge {ctx.rdma_nics} ]"""
        setup = f"rdma_ib_ports() {{\n{IB_DEVICE_COUNT}\n}}\n{setup}"
        # NCCL_TOPO_FILE names a file of the host image: its folder enters the container.
        return Fabric("infiniband", profile, setup, rdma_devices_expected=ctx.rdma_nics,
                      rdma_count_command=IB_DEVICE_COUNT,
                      container_mounts=(posixpath.dirname(topo),) if topo else ())

    def agent_env(self, ctx: NodeContext) -> dict[str, str]:
        """adlfs opens a container anonymously unless told not to, and DefaultAzureCredential
        then picks the VM's system identity (no data role) unless AZURE_CLIENT_ID names the
        user-assigned identity that holds Storage Blob Data Contributor (azure-identity:
        ManagedIdentityCredential reads AZURE_CLIENT_ID)."""
        return {"AZURE_STORAGE_ANON": "false",
                "AZURE_CLIENT_ID": str(ctx.extra.get("identity_client_id", ""))}

    def node_name(self) -> str:
        # `<scale set>_<instance id>`: what `az vmss` and the portal show.
        return imds("compute/name")

    def self_address(self) -> str:
        return imds("network/interface/0/ipv4/ipAddress/0/privateIpAddress")

    def peer_addresses(self, ctx: NodeContext) -> str:
        return _az_login(ctx) + f"""
group="$({imds("compute/resourceGroupName")})"
scale_set="$({imds("compute/vmScaleSetName")})"
az vmss nic list --resource-group "$group" --vmss-name "$scale_set" \\
  --query "[?provisioningState=='Succeeded'].ipConfigurations[0].privateIPAddress" --output tsv"""

    def upload(self, ctx: NodeContext, local_path: str, key: str) -> str:
        account = ctx.extra.get("storage_account", "")
        return _az_login(ctx) + f"""
az storage blob upload --auth-mode login --account-name '{account}' \\
  --container-name "$TS_BUCKET" --name "{key}" --file "{local_path}" --overwrite \\
  --only-show-errors --output none"""


# Scheduled events (learn.microsoft.com virtual-machines/linux/scheduled-events): IMDS lists the
# events for this VM; a Terminate (scale-in, delete) or Preempt (Spot eviction) waits until the VM
# approves it (POST StartRequests) or NotBefore passes (the scale set's terminate notice).
SCHEDULED_EVENTS = "http://169.254.169.254/metadata/scheduledevents?api-version=2020-07-01"
SCALE_IN_WATCHER = "/opt/trainstack/scale-in-watch.sh"
SCALE_IN_UNIT = "/etc/systemd/system/trainstack-scale-in.service"
_MY_EVENTS = ("import json,os,sys\n"
              "doc=json.load(sys.stdin)\n"
              "for e in doc.get('Events', []):\n"
              " if e.get('EventType') in ('Terminate','Preempt') and os.environ['ME'] in "
              "e.get('Resources', []): print(e['EventId'])")


def scale_in_step(ctx: NodeContext) -> BootStep:
    """A watcher on the node's scheduled events: before the scale set deletes (or evicts) this
    VM, flush and unmount Lustre, then approve the event so the deletion goes ahead at once."""
    del ctx
    watcher = f"""#!/bin/bash
# trainstack: unmount Lustre before Azure deletes this VM (scale-in, lifetime, eviction)
set -u
me="$({imds("compute/name")})"
while sleep 5; do
  events="$(curl -fsS --noproxy '*' -H Metadata:true '{SCHEDULED_EVENTS}')" || continue
  ids="$(printf '%s' "$events" | ME="$me" python3 -c "{_MY_EVENTS}")" || continue
  [ -n "$ids" ] || continue
  sync
  if mountpoint -q {MOUNT_PATH}; then
    umount {MOUNT_PATH} || umount -l {MOUNT_PATH}
  fi
  for id in $ids; do
    body="$(printf '{{"StartRequests": [{{"EventId": "%s"}}]}}' "$id")"
    curl -fsS --noproxy '*' -H Metadata:true -X POST -d "$body" '{SCHEDULED_EVENTS}' || true
  done
done
"""
    unit = f"""[Unit]
Description=trainstack: unmount Lustre before a scale-in deletes this VM
After=network-online.target

[Service]
ExecStart={SCALE_IN_WATCHER}
Restart=always

[Install]
WantedBy=multi-user.target
"""
    return BootStep(
        "scale-in-unmount", "systemctl daemon-reload\n"
        "systemctl enable --now trainstack-scale-in.service",
        "unmount Lustre on the scale set's Terminate/Preempt event, then approve it",
        files=(BootFile(SCALE_IN_WATCHER, watcher, "0755"), BootFile(SCALE_IN_UNIT, unit)))


def custom_data(text: str) -> str:
    """Base64 for the scale set's custom data; gzip first when the text is over Azure's 64 KB
    (cloud-init reads gzip user data on Azure as elsewhere)."""
    encoded = base64.b64encode(text.encode()).decode()
    if len(encoded) > CUSTOM_DATA_LIMIT:
        encoded = base64.b64encode(gzip.compress(text.encode(), mtime=0)).decode()
    if len(encoded) > CUSTOM_DATA_LIMIT:
        raise ValueError(f"custom data is {len(encoded)} bytes base64 gzipped; Azure allows "
                         f"{CUSTOM_DATA_LIMIT}")
    return encoded


def decode_custom_data(encoded: str) -> str:
    raw = base64.b64decode(encoded)
    return (gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw).decode()


def filesystem_source(mgs_address: str) -> str:
    return f"{mgs_address}@tcp:/{LUSTRE_FS_NAME}"
