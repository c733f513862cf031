"""AWS's facts for the cloud-neutral boot steps (components/boot).

Sources: FSx for Lustre User Guide "Installing the Lustre client" (the fsx-lustre-client-repo
apt repository, mount options `relatime,flock`, as ParallelCluster mounts); awsome-distributed-
training and the EFA docs for the aws-ofi-nccl environment (FI_PROVIDER=efa,
FI_EFA_USE_DEVICE_RDMA=1, FI_EFA_FORK_SAFE=1, the plugin and libfabric on LD_LIBRARY_PATH);
FSx for Lustre User Guide "Configuring EFA clients" for LNet over EFA (`lustre_network`).
"""
from __future__ import annotations

import re

from trainstack_components.boot import CloudBoot, Fabric, NodeContext

IMDS = "http://169.254.169.254/latest"
# <account>.dkr.ecr.<region>.amazonaws.com/: a private ECR registry (group 1: its region).
ECR_REGISTRY = re.compile(r"^[0-9]{12}\.dkr\.ecr\.([a-z0-9-]+)\.amazonaws\.com(\.cn)?/")
# Where the EFA installer puts aws-ofi-nccl (libnccl-net*.so) and libfabric, newest layout first:
# on Ubuntu (the DLAMI here) the plugin sits in the multiarch directory
# /opt/amazon/ofi-nccl/lib/x86_64-linux-gnu, as awsome-distributed-training's nccl-tests and
# PyTorch Dockerfiles put on LD_LIBRARY_PATH; /opt/amazon/ofi-nccl/lib on Amazon Linux; the
# pre-1.30 /opt/aws-ofi-nccl/lib. Only directories that exist are added.
OFI_NCCL_DIRS = ("/opt/amazon/ofi-nccl/lib/x86_64-linux-gnu", "/opt/amazon/ofi-nccl/lib",
                 "/opt/aws-ofi-nccl/lib", "/opt/amazon/efa/lib")
SOCKET_IFNAME = "^docker,lo,veth"  # bootstrap traffic on the ENA, never a container bridge

_PREPEND_LIBS = """for dir in {dirs}; do
  if [ -d "$dir" ]; then
    case ":${{LD_LIBRARY_PATH:-}}:" in
      *":$dir:"*) ;;
      *) LD_LIBRARY_PATH="$dir${{LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}}" ;;
    esac
  fi
done
export LD_LIBRARY_PATH"""

# IMDSv2 only (the launch template requires tokens): a session token first, then the read.
_IMDS_TOKEN = (f"token=\"$(curl -fsS -X PUT {IMDS}/api/token "
               "-H 'X-aws-ec2-metadata-token-ttl-seconds: 300')\"\n")


# FSx for Lustre over EFA, after the FSx for Lustre User Guide "Configuring EFA clients" (its
# interface table and manual `lnetctl net add --net efa ... --peer-credits 32`) and the EKS
# guide "Optimize Amazon FSx for Lustre performance on nodes (EFA)" (the module and lnetctl
# sequence), written as our own code: Ubuntu needs kernel 6.8 or later; LNet gets the ENA as
# its tcp network and some EFA interfaces as its efa network, discovery on, and a UDSP rule
# that prefers efa. The mount
# source stays <dns>@tcp:/<name>: LNet discovers the servers' EFA addresses from there. LNet
# reads its module options only when it loads, so the Lustre modules are unloaded first (nothing
# is mounted yet). Any failure unloads them again and mounts over TCP, as before.
_LNET_EFA = r"""lnet_touched=0
lnet_run() {
  "$@" || { echo "LNet over EFA: '$*' failed"; return 1; }
}
lnet_over_efa() {
  local kernel eth path dev step i count
  local devices=() chosen=()
  kernel="$(uname -r)"
  . /etc/os-release
  if [ "${ID:-}" = ubuntu ] \
     && [ "$(printf '%s\n' 6.8 "${kernel%%-*}" | sort -V | head -n1)" != 6.8 ]; then
    echo "LNet over EFA: kernel $kernel is older than 6.8, which FSx over EFA needs on Ubuntu"
    return 1
  fi
  for tool in lnetctl lustre_rmmod ip; do
    command -v "$tool" >/dev/null || { echo "LNet over EFA: $tool not found"; return 1; }
  done
  if mountpoint -q "$TS_MOUNT"; then
    echo "LNet over EFA: $TS_MOUNT is already mounted; its transport is left as it is"
    return 1
  fi
  lnet_run modprobe efa || return 1
  for path in /sys/class/infiniband/*; do
    [ -e "$path/device/driver" ] || continue
    [ "$(basename "$(readlink -f "$path/device/driver")")" = efa ] || continue
    devices+=("$(basename "$path")")
  done
  if [ "${#devices[@]}" -eq 0 ]; then
    echo "LNet over EFA: no EFA devices under /sys/class/infiniband"
    return 1
  fi
  mapfile -t devices < <(printf '%s\n' "${devices[@]}" | sort -V)
  # Spread the interfaces evenly over the devices: every 4th of p5's 32, every 2nd of p5en's 16.
  step=$(( ${#devices[@]} / @INTERFACES@ ))
  [ "$step" -ge 1 ] || step=1
  for (( i = 0; i < ${#devices[@]} && ${#chosen[@]} < @INTERFACES@; i += step )); do
    chosen+=("${devices[$i]}")
  done
  eth="$(ip -o -4 route show to default | awk '{print $5; exit}')"
  if [ -z "$eth" ]; then
    echo "LNet over EFA: no default-route interface for LNet's tcp network"
    return 1
  fi
  lnet_touched=1
  lustre_rmmod >/dev/null 2>&1 || true
  lnet_run modprobe lnet || return 1
  lnet_run modprobe kefalnd "ipif_name=$eth" || return 1
  lnet_run modprobe ksocklnd || return 1
  lnet_run lnetctl lnet configure || return 1
  lnetctl net del --net tcp >/dev/null 2>&1 || true
  lnet_run lnetctl net add --net tcp --if "$eth" || return 1
  for dev in "${chosen[@]}"; do
    lnet_run lnetctl net add --net efa --if "$dev" --peer-credits 32 || return 1
  done
  lnet_run lnetctl set discovery 1 || return 1
  lnet_run lnetctl udsp add --src efa --priority 0 || return 1
  lnet_run modprobe lustre || return 1
  count="$(lnetctl net show --net efa 2>/dev/null | grep -c '@efa' || true)"
  if [ "${count:-0}" -lt 1 ]; then
    echo "LNet over EFA: lnetctl shows no efa network after the setup"
    return 1
  fi
  echo "LNet over EFA: $count EFA interfaces (${chosen[*]}) and tcp on $eth"
}
if lnet_over_efa; then
  echo efa > "$TS_LUSTRE_TRANSPORT_FILE"
  # Later boots mount /lustre from fstab, long before this step would run: a unit sets LNet
  # up for EFA first (AWS's client script installs a systemd service for the same reason).
  { printf '#!/bin/bash\n# trainstack: LNet over EFA before the fstab mount of %s\n' "$TS_MOUNT"
    printf '# shellcheck source=/dev/null\n. /etc/trainstack/node.env\nlnet_touched=0\n'
    declare -f lnet_run lnet_over_efa
    cat <<'TAIL'
lnet_over_efa || [ "$lnet_touched" = 0 ] || { lustre_rmmod >/dev/null 2>&1; modprobe lustre; }
TAIL
  } > /etc/trainstack/lnet-over-efa.sh
  chmod 0755 /etc/trainstack/lnet-over-efa.sh
  cat > /etc/trainstack/trainstack-lnet-efa.service <<'UNIT'
[Unit]
Description=trainstack: LNet over EFA for FSx for Lustre, before remote file systems mount
Wants=network-online.target
After=network-online.target
Before=remote-fs-pre.target

[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=/etc/trainstack/lnet-over-efa.sh

[Install]
WantedBy=remote-fs.target
UNIT
  systemctl enable /etc/trainstack/trainstack-lnet-efa.service \
    || echo "LNet over EFA: the boot-time unit could not be enabled; after a reboot TCP is used"
else
  echo "the file system is EFA-enabled but this node could not set LNet up for EFA:" \
       "mounting $TS_FS_SOURCE over TCP"
  if [ "$lnet_touched" = 1 ]; then
    lustre_rmmod >/dev/null 2>&1 || true
    modprobe lustre || echo "the Lustre modules did not reload after the failed EFA setup"
  fi
  echo tcp > "$TS_LUSTRE_TRANSPORT_FILE"
fi"""


def _imds(path: str) -> str:
    return f'curl -fsS -H "X-aws-ec2-metadata-token: $token" {IMDS}/meta-data/{path}'


class AwsBoot(CloudBoot):
    cloud = "aws"
    lustre_mount_options = "relatime,flock"

    def lustre_install(self, ctx: NodeContext) -> str:
        del ctx
        return """. /etc/os-release
if [ "$ID" = amzn ]; then
  dnf install -y -q lustre-client
  return
fi
install -d -m 0755 /usr/share/keyrings
curl -fsSL https://fsx-lustre-client-repo-public-keys.s3.amazonaws.com/fsx-ubuntu-public-key.asc \\
  | gpg --dearmor --yes -o /usr/share/keyrings/fsx-ubuntu-public-key.gpg
echo "deb [signed-by=/usr/share/keyrings/fsx-ubuntu-public-key.gpg] \\
https://fsx-lustre-client-repo.s3.amazonaws.com/ubuntu $VERSION_CODENAME main" \\
  > /etc/apt/sources.list.d/fsxlustreclientrepo.list
apt-get update -qq
apt-get install -y -qq "lustre-client-modules-$(uname -r)" \\
  || apt-get install -y -qq lustre-client-modules-aws"""

    def lustre_network(self, ctx: NodeContext) -> str:
        """LNet over EFA when the file system was created EFA-enabled (ctx.extra["fsx_efa"],
        set by the component only for the types AWS supports as EFA clients)."""
        if not (ctx.extra.get("fsx_efa") and ctx.use_rdma and ctx.fabric == "efa"):
            return ""
        return _LNET_EFA.replace("@INTERFACES@", str(int(ctx.extra["fsx_efa_interfaces"])))

    def nvme_devices(self) -> str:
        # Instance-store NVMe reports this model; EBS volumes report "Amazon Elastic Block Store".
        return "lsblk -dpno NAME,MODEL | awk '/Instance Storage/ {print $1}'"

    def fabric(self, ctx: NodeContext) -> Fabric:
        if not (ctx.use_rdma and ctx.fabric == "efa"):
            return Fabric("tcp", f"export NCCL_SOCKET_IFNAME='{SOCKET_IFNAME}'")
        profile = "\n".join([
            "export FI_PROVIDER=efa",
            "export FI_EFA_USE_DEVICE_RDMA=1",
            "export FI_EFA_FORK_SAFE=1",
            f"export NCCL_SOCKET_IFNAME='{SOCKET_IFNAME}'",
            # Prepended one by one: the last prepended is searched first, so go oldest to newest.
            _PREPEND_LIBS.format(dirs=" ".join(reversed(OFI_NCCL_DIRS))),
        ])
        setup = f"""efa="$(/opt/amazon/efa/bin/fi_info -p efa -t FI_EP_RDM 2>/dev/null \
  | grep -c 'provider: efa' || true)"
echo "libfabric sees $efa EFA endpoints ({ctx.rdma_nics} EFA interfaces expected on {ctx.instance_type})"
[ "$efa" -gt 0 ]"""
        return Fabric("efa", profile, setup, rdma_devices_expected=ctx.rdma_nics,
                      rdma_count_command="{ find /sys/class/infiniband -mindepth 1 -maxdepth 1 "
                                         "2>/dev/null || true; } | wc -l")

    def node_name(self) -> str:
        return _IMDS_TOKEN + _imds("instance-id")

    def self_address(self) -> str:
        return _IMDS_TOKEN + _imds("local-ipv4")

    def peer_addresses(self, ctx: NodeContext) -> str:
        del ctx
        return _IMDS_TOKEN + f'id="$({_imds("instance-id")})"\n' + """\
group="$(aws autoscaling describe-auto-scaling-instances --region "$TS_REGION" \\
  --instance-ids "$id" --query 'AutoScalingInstances[0].AutoScalingGroupName' --output text)"
mapfile -t ids < <(aws autoscaling describe-auto-scaling-groups --region "$TS_REGION" \\
  --auto-scaling-group-names "$group" \\
  --query "AutoScalingGroups[0].Instances[?LifecycleState=='InService'].InstanceId" \\
  --output text | tr '\\t' '\\n' | grep '^i-')
if [ "${#ids[@]}" -eq 0 ]; then return 0; fi
aws ec2 describe-instances --region "$TS_REGION" --instance-ids "${ids[@]}" \\
  --query 'Reservations[].Instances[].PrivateIpAddress' --output text | tr '\\t' '\\n'"""

    def registry_login(self, ctx: NodeContext, image: str) -> str:
        """ECR is private: docker logs in with a token from the node's instance role
        (ECR User Guide, "Private registry authentication": aws ecr get-login-password piped to
        docker login --username AWS --password-stdin <registry>), in the registry's region."""
        del ctx
        match = ECR_REGISTRY.match(image)
        if not match:
            return ""
        registry, region = match.group(0).rstrip("/"), match.group(1)
        return (f"aws ecr get-login-password --region {region} \\\n"
                f"  | docker login --username AWS --password-stdin {registry}")

    def upload(self, ctx: NodeContext, local_path: str, key: str) -> str:
        del ctx
        return (f'aws s3 cp --only-show-errors --region "$TS_REGION" "{local_path}" '
                f'"s3://$TS_BUCKET/{key}"')

    def download(self, ctx: NodeContext, key: str, local_path: str) -> str:
        del ctx
        return (f'aws s3 cp --only-show-errors --region "$TS_REGION" "s3://$TS_BUCKET/{key}" '
                f'"{local_path}"')
