"""The standard boot steps, cloud-neutral: each is shell around the facts a `CloudBoot` supplies.

Order: lustre, scratch, fabric, ranks, then any extra steps, then health (last, so it can report
every step's exit code). Every step sources /etc/trainstack/node.env for the cluster's values.
"""
from __future__ import annotations

import shlex
import textwrap
from typing import Iterable, Sequence

from trainstack_components.boot.model import (
    CONFIG_DIR,
    CONTAINER_MOUNTS,
    MASTER_PORT,
    MOUNT_PATH,
    SCRATCH_PATH,
    STATE_DIR,
    BootFile,
    BootStep,
    CloudBoot,
    NodeContext,
)

NODE_ENV = f"{CONFIG_DIR}/node.env"
NCCL_PROFILE = "/etc/profile.d/trainstack-nccl.sh"
RANKS_PROFILE = "/etc/profile.d/trainstack-ranks.sh"
HOSTFILE = f"{CONFIG_DIR}/hostfile"
HEALTH_FILE = f"{STATE_DIR}/health.json"
LUSTRE_TRANSPORT_FILE = f"{STATE_DIR}/lustre-transport"  # tcp unless the cloud's network says
STANDARD_STEPS = ("lustre", "scratch", "fabric", "ranks")
HEALTH_STEP = "health"
MOUNT_ATTEMPTS, MOUNT_WAIT_S = 90, 20   # 30 minutes: the filesystem may still be creating
PEER_ATTEMPTS, PEER_WAIT_S = 90, 10     # 15 minutes for the whole group to be running


def _function(name: str, body: str) -> str:
    return f"{name}() {{\n{textwrap.indent(body.strip(), '  ')}\n}}\n"


def fstab_options(options: str) -> str:
    parts = [o for o in options.split(",") if o]
    return ",".join(parts + ([] if "_netdev" in parts else ["_netdev"]))


def node_env(ctx: NodeContext, cloud: CloudBoot) -> BootFile:
    values = {
        "TS_CLOUD": ctx.cloud, "TS_CLUSTER": ctx.cluster, "TS_STACK": ctx.stack,
        "TS_NODES": str(ctx.nodes), "TS_GPUS": str(ctx.gpus_per_node),
        "TS_INSTANCE_TYPE": ctx.instance_type, "TS_BUCKET": ctx.bucket,
        "TS_REGION": ctx.region, "TS_ZONE": ctx.zone, "TS_PROJECT": ctx.project or "",
        "TS_FS_SOURCE": ctx.filesystem_source, "TS_MOUNT": MOUNT_PATH,
        "TS_LUSTRE_OPTIONS": cloud.lustre_mount_options, "TS_SCRATCH": SCRATCH_PATH,
        "TS_FABRIC": cloud.fabric(ctx).kind,
    }
    lines = [f"{k}={shlex.quote(v)}" for k, v in values.items()]
    return BootFile(NODE_ENV, "# trainstack: this cluster's facts, for the boot steps\n"
                    + "\n".join(lines) + "\n")


def lustre_step(ctx: NodeContext, cloud: CloudBoot) -> BootStep:
    fstab = fstab_options(cloud.lustre_mount_options)
    network = cloud.lustre_network(ctx).strip()
    ready, fstype = cloud.client_ready(), cloud.filesystem_type
    client = "Lustre" if fstype == "lustre" else fstype
    lookup = cloud.filesystem_source(ctx).strip()
    # Asked again on every attempt: the export it names may still be creating.
    resolve = ('  TS_FS_SOURCE="$(filesystem_source)" || TS_FS_SOURCE=""\n' if lookup else "")
    script = (_function("install_lustre_client", cloud.lustre_install(ctx))
              + (_function("filesystem_source", lookup) if lookup else "")) + f"""
for attempt in $(seq 1 10); do
  if {ready}; then break; fi
  # A child bash, so `set -e` holds inside the function (a caller's `||` would switch it off).
  bash -euo pipefail -c "$(declare -f install_lustre_client); install_lustre_client" \
    || echo "attempt $attempt: Lustre client install failed; retrying"
  if {ready}; then break; fi
  sleep 30
done
if ! {{ {ready}; }}; then
  echo "no {client} client module for kernel $(uname -r): $TS_MOUNT cannot be mounted"
  exit 1
fi
TS_LUSTRE_TRANSPORT_FILE={LUSTRE_TRANSPORT_FILE}
mkdir -p "$(dirname "$TS_LUSTRE_TRANSPORT_FILE")"
echo tcp > "$TS_LUSTRE_TRANSPORT_FILE"
{network}
mkdir -p "$TS_MOUNT"
for attempt in $(seq 1 {MOUNT_ATTEMPTS}); do
  if mountpoint -q "$TS_MOUNT"; then break; fi
{resolve}  if mount -t {fstype} -o "$TS_LUSTRE_OPTIONS" "$TS_FS_SOURCE" "$TS_MOUNT"; then break; fi
  echo "attempt $attempt: $TS_FS_SOURCE not mountable yet; retrying in {MOUNT_WAIT_S} s"
  sleep {MOUNT_WAIT_S}
done
mountpoint -q "$TS_MOUNT"
if ! grep -q " $TS_MOUNT {fstype} " /etc/fstab; then
  echo "$TS_FS_SOURCE $TS_MOUNT {fstype} {fstab} 0 0" >> /etc/fstab
fi
"""
    return BootStep("lustre", script, f"Lustre client and the cluster filesystem at {MOUNT_PATH}")


def scratch_step(cloud: CloudBoot) -> BootStep:
    script = _function("local_nvme_devices", cloud.nvme_devices()) + """
if mountpoint -q "$TS_SCRATCH"; then exit 0; fi
# Disks the image already uses (the DLAMI builds a RAID-0 of them at /opt/dlami/nvme before
# cloud-init's last stage) are never reformatted: /scratch then binds to where they are mounted.
disks=()
in_use=""
while read -r disk; do
  [ -n "$disk" ] || continue
  name="$(basename "$(readlink -f "$disk")")"
  holders=("/sys/class/block/$name/holders/"*)
  if [ -e "${holders[0]}" ]; then in_use="/dev/$(basename "${holders[0]}")"; continue; fi
  if [ -n "$(lsblk -no MOUNTPOINT "$disk" 2>/dev/null | tr -d '[:space:]')" ]; then
    in_use="$disk"; continue
  fi
  disks+=("$disk")
done < <(local_nvme_devices | sort -u)
if [ "${#disks[@]}" -eq 0 ] && [ -n "$in_use" ]; then
  existing="$(lsblk -no MOUNTPOINT "$in_use" 2>/dev/null | grep -m1 . || true)"
  if [ -n "$existing" ]; then
    mkdir -p "$TS_SCRATCH"
    mount --bind "$existing" "$TS_SCRATCH"
    chmod 1777 "$TS_SCRATCH"
    echo "local NVMe already mounted at $existing by the image: $TS_SCRATCH binds to it"
    exit 0
  fi
  echo "local NVMe disks are in use ($in_use) but not mounted: $TS_SCRATCH stays on the boot disk"
  mkdir -p "$TS_SCRATCH"
  exit 0
fi
if [ "${#disks[@]}" -eq 0 ]; then
  echo "no local NVMe disks: $TS_SCRATCH stays on the boot disk"
  mkdir -p "$TS_SCRATCH"
  exit 0
fi
if [ "${#disks[@]}" -eq 1 ]; then
  device="${disks[0]}"
else
  command -v mdadm >/dev/null || { apt-get update -qq && apt-get install -y -qq mdadm; }
  mdadm --create /dev/md/scratch --run --force --level=0 --raid-devices="${#disks[@]}" "${disks[@]}"
  device=/dev/md/scratch
fi
mkfs.ext4 -F -q -E lazy_itable_init=1,lazy_journal_init=1 "$device"
mkdir -p "$TS_SCRATCH"
mount -o noatime,nofail "$device" "$TS_SCRATCH"
chmod 1777 "$TS_SCRATCH"
"""
    return BootStep("scratch", script, f"RAID-0 of the local NVMe disks at {SCRATCH_PATH}")


def fabric_step(ctx: NodeContext, cloud: CloudBoot) -> BootStep:
    fabric = cloud.fabric(ctx)
    profile = BootFile(NCCL_PROFILE, f"# trainstack: NCCL over the {fabric.kind} fabric of "
                       f"{ctx.instance_type}\n{fabric.profile.strip()}\n")
    setup = fabric.setup.strip() or f'echo "{fabric.kind}: nothing to set up"'
    patterns = " ".join(shlex.quote(p) for p in fabric.container_mounts)
    # After the setup (which fails the step first if the fabric is not up): a declared path
    # that is missing fails the step, since the container would not see it.
    mounts = f"""
: > {CONTAINER_MOUNTS}
missing=""
patterns=({patterns})
for pattern in "${{patterns[@]}}"; do
  found=0
  # shellcheck disable=SC2086  # a pattern may be a glob (a versioned library name)
  for path in $pattern; do
    if [ -e "$path" ]; then echo "$path" >> {CONTAINER_MOUNTS}; found=1; fi
  done
  if [ "$found" = 0 ]; then missing="$missing $pattern"; fi
done
if [ -n "$missing" ]; then
  echo "the fabric's paths for the job container are missing:$missing (NCCL in the container would not find them)"
  exit 1
fi
""" if patterns else f"\n: > {CONTAINER_MOUNTS}\n"
    script = setup + "\n" + mounts
    return BootStep("fabric", script, f"NCCL environment for {fabric.kind}",
                    files=(profile, *fabric.files))


def ranks_step(ctx: NodeContext, cloud: CloudBoot) -> BootStep:
    script = (_function("self_address", cloud.self_address())
              + _function("peer_addresses", cloud.peer_addresses(ctx)) + f"""
me="$(self_address)"
addresses=()
for attempt in $(seq 1 {PEER_ATTEMPTS}); do
  mapfile -t addresses < <(peer_addresses | grep -E '^[0-9.]+$' | sort -uV)
  if [ "${{#addresses[@]}}" -ge "$TS_NODES" ]; then break; fi
  echo "attempt $attempt: ${{#addresses[@]}} of $TS_NODES nodes running; waiting"
  sleep {PEER_WAIT_S}
done
rank=-1
: > {HOSTFILE}
for i in "${{!addresses[@]}}"; do
  echo "${{addresses[$i]}} slots=$TS_GPUS" >> {HOSTFILE}
  if [ "${{addresses[$i]}}" = "$me" ]; then rank=$i; fi
done
cat > {RANKS_PROFILE} <<EOF
# trainstack: torchrun's rendezvous, from the node group at boot ({HOSTFILE})
export MASTER_ADDR=${{addresses[0]:-$me}}
export MASTER_PORT={MASTER_PORT}
export NNODES=${{#addresses[@]}}
export NODE_RANK=$rank
export NPROC_PER_NODE=$TS_GPUS
export TRAINSTACK_HOSTFILE={HOSTFILE}
EOF
[ "$rank" -ge 0 ] && [ "${{#addresses[@]}}" -ge "$TS_NODES" ]
""")
    return BootStep("ranks", script, "hostfile, MASTER_ADDR, NNODES, NODE_RANK from the node group")


def health_step(ctx: NodeContext, cloud: CloudBoot) -> BootStep:
    fabric = cloud.fabric(ctx)
    script = (_function("node_name", cloud.node_name())
              + _function("rdma_device_count", fabric.rdma_count_command)
              + _function("gpu_count", cloud.gpu_count_command())
              + _function("upload_record", cloud.upload(ctx, HEALTH_FILE, "status/$1.json")) + f"""
node="$(node_name)"
gpus="$(gpu_count)"
rdma="$(rdma_device_count)"
mounted=false
if mountpoint -q "$TS_MOUNT"; then mounted=true; fi
scratch=false
if mountpoint -q "$TS_SCRATCH"; then scratch=true; fi
transport="$(cat {LUSTRE_TRANSPORT_FILE} 2>/dev/null || echo none)"
# The runtime step's record (components/boot/jobs.py): image, digest, versions; null if none.
runtime="$(cat {STATE_DIR}/runtime.json 2>/dev/null || true)"
case "$runtime" in "{{"*) ;; *) runtime=null ;; esac
rank=-1
if [ -f {RANKS_PROFILE} ]; then rank="$(sed -n 's/^export NODE_RANK=//p' {RANKS_PROFILE})"; fi
steps=""
failed=0
for rc_file in {STATE_DIR}/steps/*.rc; do
  [ -e "$rc_file" ] || continue
  step="$(basename "$rc_file" .rc)"
  rc="$(cat "$rc_file")"
  steps="$steps${{steps:+, }}\\"$step\\": $rc"
  if [ "$rc" != 0 ]; then failed=1; fi
done
# A node whose boot failed a step is not ok, whatever its GPUs and mounts say.
ok=false
if [ "$failed" = 0 ] && [ "$gpus" -ge "$TS_GPUS" ] \\
   && [ "$rdma" -ge {fabric.rdma_devices_expected} ] && [ "$mounted" = true ]; then ok=true; fi
mkdir -p {STATE_DIR}
printf '{{"node": "%s", "cloud": "%s", "cluster": "%s", "instance_type": "%s", "time": "%s", \
"gpus": %d, "gpus_expected": %d, "rdma_devices": %d, "rdma_expected": %d, "fabric": "%s", \
"filesystem_mounted": %s, "mount_path": "%s", "lustre_transport": "%s", \
"scratch_mounted": %s, "node_rank": %d, "steps": {{%s}}, "ok": %s, \
"uptime_s": %d, "runtime": %s}}\\n' \\
  "$node" "$TS_CLOUD" "$TS_CLUSTER" "$TS_INSTANCE_TYPE" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" \\
  "$gpus" "$TS_GPUS" "$rdma" {fabric.rdma_devices_expected} "$TS_FABRIC" \\
  "$mounted" "$TS_MOUNT" "$transport" "$scratch" "$rank" "$steps" "$ok" \\
  "$(cut -d. -f1 /proc/uptime)" "$runtime" > {HEALTH_FILE}
for attempt in $(seq 1 5); do
  if upload_record "$node"; then exit 0; fi
  echo "attempt $attempt: health record upload failed; retrying"
  sleep 10
done
exit 1
""")
    return BootStep(HEALTH_STEP, script, "a health record per node: status/<node>.json in the bucket")


def boot_steps(ctx: NodeContext, cloud: CloudBoot,
               extra_steps: Sequence[BootStep] = ()) -> list[BootStep]:
    """The steps every node runs, in order. `extra_steps` run after the standard ones and before
    the health record (which reports their exit codes too); those marked `first` run before all."""
    steps = [*(s for s in extra_steps if s.first),
             lustre_step(ctx, cloud), scratch_step(cloud), fabric_step(ctx, cloud),
             ranks_step(ctx, cloud), *(s for s in extra_steps if not s.first),
             health_step(ctx, cloud)]
    names = [s.name for s in steps]
    duplicated = sorted({n for n in names if names.count(n) > 1})
    if duplicated:
        raise ValueError(f"boot step names must be unique; repeated: {', '.join(duplicated)}")
    return steps


def step_files(ctx: NodeContext, cloud: CloudBoot, steps: Iterable[BootStep]) -> list[BootFile]:
    files = [node_env(ctx, cloud)]
    for step in steps:
        files.extend(step.files)
    return files
