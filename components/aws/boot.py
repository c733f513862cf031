"""AWS's facts for the cloud-neutral boot steps (components/boot).

Sources: FSx for Lustre User Guide "Installing the Lustre client" (the fsx-lustre-client-repo
apt repository, mount options `relatime,flock`, as ParallelCluster mounts); awsome-distributed-
training and the EFA docs for the aws-ofi-nccl environment (FI_PROVIDER=efa,
FI_EFA_USE_DEVICE_RDMA=1, FI_EFA_FORK_SAFE=1, the plugin and libfabric on LD_LIBRARY_PATH).
"""
from __future__ import annotations

from components.boot import CloudBoot, Fabric, NodeContext

IMDS = "http://169.254.169.254/latest"
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
                      rdma_count_command="find /sys/class/infiniband -mindepth 1 -maxdepth 1 "
                                         "2>/dev/null | wc -l")

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

    def upload(self, ctx: NodeContext, local_path: str, key: str) -> str:
        del ctx
        return (f'aws s3 cp --only-show-errors --region "$TS_REGION" "{local_path}" '
                f'"s3://$TS_BUCKET/{key}"')
