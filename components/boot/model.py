"""What a node does at boot, as data: steps (named shell fragments) and files, plus the facts a
cloud supplies. Nothing here knows a cloud; `components/<cloud>/boot.py` fills `CloudBoot` in.
"""
from __future__ import annotations

import re
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Optional

# One path on every cloud, so job scripts and docs never branch on the cloud (README: mounts).
MOUNT_PATH = "/lustre"
SCRATCH_PATH = "/scratch"          # RAID-0 of the node's local NVMe disks; lost on stop
STATE_DIR = "/var/lib/trainstack"  # step exit codes, health record
CONFIG_DIR = "/etc/trainstack"     # hostfile, node facts
CONTAINER_MOUNTS = f"{CONFIG_DIR}/container-mounts"  # host paths the job's container sees
STEP_DIR = "/opt/trainstack/boot"  # one script per step
MASTER_PORT = 29500                # torchrun's default rendezvous port

_STEP_NAME = re.compile(r"^[a-z][a-z0-9-]{0,40}$")


@dataclass(frozen=True)
class BootFile:
    """A file cloud-init writes before any step runs (cloud-config `write_files`)."""

    path: str
    content: str
    permissions: str = "0644"
    # Code a node needs but user data cannot afford (an agent, a helper): where a cloud's user
    # data limit is tight its renderer ships it through the bucket instead (render.shipped_boot).
    bulky: bool = False

    def __post_init__(self):
        if not self.path.startswith("/"):
            raise ValueError(f"boot file path {self.path!r} must be absolute")


@dataclass(frozen=True)
class BootStep:
    """One named boot step: a bash fragment run as root under `set -euo pipefail`.

    A step that fails is recorded (its exit code lands in the health record) and the next step
    still runs, so a missing filesystem never hides whether the GPUs came up.
    """

    name: str
    script: str
    description: str = ""
    files: tuple[BootFile, ...] = ()
    first: bool = False   # run before the standard steps (the idle agent: a booting node reports)

    def __post_init__(self):
        if not _STEP_NAME.match(self.name):
            raise ValueError(f"boot step name {self.name!r}: lowercase letters, digits and '-'")


@dataclass(frozen=True)
class Fabric:
    """How a node's fabric is made ready for NCCL: a setup fragment run once at boot, and the
    lines of /etc/profile.d/trainstack-nccl.sh every login shell (and torchrun) reads."""

    kind: str                 # efa | gib | tcpx | tcpxo | tcp | ... (a cloud may add its own)
    profile: str              # sourced by bash and sh: POSIX shell only
    setup: str = ""           # bash, run before the profile is written
    rdma_devices_expected: int = 0
    rdma_count_command: str = "echo 0"  # prints how many RDMA devices the node sees
    files: tuple["BootFile", ...] = ()    # e.g. a systemd unit the setup enables
    # Host paths (globs allowed) the job's container must see for NCCL to use the fabric: the
    # plugin's directory, its sockets, its devices, the topology file's folder. The fabric step
    # checks each exists after the setup and lists them for the job agent (CONTAINER_MOUNTS).
    container_mounts: tuple[str, ...] = ()


@dataclass(frozen=True)
class NodeContext:
    """Plain values about one cluster's nodes (resolved Outputs, never Output objects)."""

    cloud: str
    cluster: str
    stack: str
    nodes: int
    gpus_per_node: int
    instance_type: str
    bucket: str
    filesystem_source: str    # what `mount -t lustre` takes: <address>@tcp:/<name>
    region: str
    zone: str
    use_rdma: bool
    interconnect: str         # the spec's fastest | rdma | tcp
    project: Optional[str] = None
    fabric: str = "tcp"       # the catalog's fabric of the type: efa | roce | gpudirect-tcpx ...
    rdma_nics: int = 0        # the catalog's RDMA (or GPU) NIC count of the type
    extra: dict = field(default_factory=dict)  # per-cloud values the cloud's own piece reads
    runtime_image: str = ""   # the image jobs run in (spec runtime.image or the cloud's default)


class CloudBoot(ABC):
    """The facts one cloud supplies to the cloud-neutral boot steps. Each method returns a shell
    fragment (bash) or plain data; none of them runs anything.

    A new cloud subclasses this in its own package and passes an instance to `boot_steps`.
    """

    cloud: str = ""

    @abstractmethod
    def lustre_install(self, ctx: NodeContext) -> str:
        """Install the Lustre client matching the running kernel/image (idempotent)."""

    lustre_mount_options: str = "defaults,_netdev"
    # `mount -t` type and the kernel module behind it: Lustre on AWS/GCP; a cloud whose parallel
    # filesystem has its own client (Alibaba CPFS through the CPFS-NFS client) sets both.
    filesystem_type: str = "lustre"
    filesystem_module: str = "lustre"

    def filesystem_source(self, ctx: NodeContext) -> str:
        """Print the mount source when it is only known on the node (an API lookup); empty
        (the default) mounts `ctx.filesystem_source` as planned."""
        del ctx
        return ""

    def client_ready(self) -> str:
        """A shell test: true once the filesystem client is installed and loaded."""
        module = self.filesystem_module
        return f"grep -qw {module} /proc/filesystems || modprobe {module} 2>/dev/null"

    def lustre_network(self, ctx: NodeContext) -> str:
        """Bash run once the Lustre client is installed and before the mount: set LNet up for a
        faster transport than its own TCP (e.g. EFA), and write that transport's name to
        $TS_LUSTRE_TRANSPORT_FILE. It must not fail the step: where it cannot, it leaves LNet
        as TCP (the file says tcp) so the node still mounts. Default: nothing (TCP)."""
        del ctx
        return ""

    @abstractmethod
    def nvme_devices(self) -> str:
        """Print the local (instance-store) NVMe block devices, one per line, boot disk never."""

    @abstractmethod
    def fabric(self, ctx: NodeContext) -> Fabric:
        """The fabric's NCCL environment (and setup) for this instance type."""

    @abstractmethod
    def node_name(self) -> str:
        """Print this node's name (the cloud's instance name or id): the health record's key."""

    @abstractmethod
    def self_address(self) -> str:
        """Print this node's private IPv4 address (the one peers reach)."""

    @abstractmethod
    def peer_addresses(self, ctx: NodeContext) -> str:
        """Print the private IPv4 addresses of every running node of the group (this one
        included), one per line, from the node group's own API."""

    @abstractmethod
    def upload(self, ctx: NodeContext, local_path: str, key: str) -> str:
        """Copy `local_path` to `key` in the cluster's bucket."""

    # How long the boot's `fetch` step (render.fetch_step) keeps retrying the bucket before it
    # gives up: the node's credentials (and its route to the bucket) may come after boot starts.
    fetch_window_s: int = 120

    def download(self, ctx: NodeContext, key: str, local_path: str) -> str:
        """Copy `key` in the cluster's bucket to `local_path`: how a cloud that ships bulky boot
        files through the bucket (render.shipped_boot) fetches them. Only such a cloud needs it."""
        raise NotImplementedError(f"{self.cloud or type(self).__name__} does not fetch boot files "
                                  "from its bucket; render its user data with the files inline")

    def registry_login(self, ctx: NodeContext, image: str) -> str:
        """Bash that logs docker in to `image`'s registry with the node's own identity, run
        before the pull; "" where the registry is public (the default)."""
        del ctx, image
        return ""

    def agent_env(self, ctx: NodeContext) -> dict[str, str]:
        """Variables the job agent's bucket backend needs beside the node's identity (written to
        its environment file): e.g. which managed identity to use, the bucket's endpoint."""
        del ctx
        return {}

    def gpu_count_command(self) -> str:
        return "nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true"
