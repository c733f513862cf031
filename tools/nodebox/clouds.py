"""Each cloud's world as a box sees it: its metadata, the node group, the signed apt
repositories and download sites its boot uses (at their real URLs), its registry, and what the
image's packages put on disk. Every source here is a stand-in for a real one, named in place."""
from __future__ import annotations

import subprocess
from dataclasses import dataclass, field

from tools.nodebox.repos import Deb, Repo

KERNEL = subprocess.run(["uname", "-r"], capture_output=True, text=True).stdout.strip()
UBUNTU_CODENAME = "jammy"   # every default node image here is Ubuntu 22.04 (the manifest)
OS_RELEASE = ('PRETTY_NAME="Ubuntu 22.04.5 LTS"\nNAME="Ubuntu"\nVERSION_ID="22.04"\n'
              'VERSION="22.04.5 LTS (Jammy Jellyfish)"\nVERSION_CODENAME=jammy\nID=ubuntu\n'
              'ID_LIKE=debian\nUBUNTU_CODENAME=jammy\n')
TORCH_VENV = "/work/main/.venv"   # the training image's python (CPU torch) for the container

DOCKER_UNIT = """[Unit]
Description=Docker Application Container Engine (node-box stand-in)
[Service]
ExecStart=/usr/bin/dockerd
[Install]
WantedBy=multi-user.target
"""
NVIDIA_CTK = """#!/bin/bash
# nvidia-ctk stand-in: `runtime configure --runtime=docker` registers the nvidia runtime.
if [ "$1 $2" = "runtime configure" ]; then
  mkdir -p /etc/docker
  printf '{"runtimes": {"nvidia": {"path": "nvidia-container-runtime", "args": []}}}\\n' > /etc/docker/daemon.json
  echo "INFO Wrote updated config to /etc/docker/daemon.json"
  exit 0
fi
echo "NVIDIA Container Toolkit CLI version 1.17.8 (node-box stand-in)"
"""
HOOK = "#!/bin/sh\n# nvidia-container-runtime-hook stand-in: its presence lets docker --gpus work\nexit 0\n"


def _modules(*names: str) -> dict:
    return {f"/lib/modules/{KERNEL}/extra/{n}.ko": f"stand-in kernel module {n}\n" for n in names}


DOCKER_FILES = {"/usr/bin/docker": "standin:docker", "/usr/bin/dockerd": "standin:dockerd",
                "/lib/systemd/system/docker.service": DOCKER_UNIT}
TOOLKIT_FILES = {"/usr/bin/nvidia-ctk": NVIDIA_CTK, "/usr/bin/nvidia-container-runtime-hook": HOOK}


def ubuntu_archive(real_debs) -> Repo:
    """Ubuntu's archive as the image's apt sees it (its key is trusted by the image): the
    packages the boots install from Ubuntu, dummies except python3-venv (the real Debian one)."""
    debs = (
        Deb("docker.io", "26.1.3-0ubuntu1~22.04.1", DOCKER_FILES),
        Deb("nfs-common", "1:2.6.1-1ubuntu1.2", {"/sbin/mount.nfs": "#!/bin/sh\nexec mount -t nfs \"$@\"\n"}),
        Deb("haproxy", "2.4.24-0ubuntu0.22.04.1", {"/usr/sbin/haproxy": "#!/bin/sh\nexit 0\n"}),
        Deb(f"linux-headers-{KERNEL}", "1.0", {f"/usr/src/linux-headers-{KERNEL}/Makefile": "\n"}),
        Deb("dkms", "2.8.7-2ubuntu2", {"/usr/sbin/dkms": "#!/bin/sh\nexit 0\n"}),
        Deb("cmake", "3.22.1-1ubuntu1", {"/usr/bin/cmake": "#!/bin/sh\nexit 0\n"}),
        Deb("gcc", "4:11.2.0-1ubuntu1", {"/usr/bin/gcc": "#!/bin/sh\nexit 0\n"}),
        Deb("g++", "4:11.2.0-1ubuntu1", {"/usr/bin/g++": "#!/bin/sh\nexit 0\n"}),
        Deb("mdadm", "4.2-0ubuntu1", {"/sbin/mdadm": "#!/bin/sh\nexit 0\n"}),
        Deb("rdma-core", "39.0-1", {"/usr/sbin/rdma-ndd": "#!/bin/sh\nexit 0\n"}),
        Deb("ibverbs-providers", "39.0-1", {"/usr/lib/x86_64-linux-gnu/libibverbs/libmlx5-rdmav34.so": "\n"}),
        Deb("libibverbs1", "39.0-1", {"/usr/lib/x86_64-linux-gnu/libibverbs.so.1": "\n"}),
        Deb("ibverbs-utils", "39.0-1", {"/usr/bin/ibv_devinfo": "standin:verbs",
                                        "/usr/bin/ibv_devices": "standin:verbs"}),
        Deb("infiniband-diags", "39.0-1", {"/usr/sbin/ibstat": "#!/bin/sh\nexit 0\n"}),
    )
    return Repo("archive.ubuntu.com", "ubuntu", UBUNTU_CODENAME, "ubuntu-archive", debs,
                real=tuple(real_debs), empty_components=("universe",))


def nvidia_toolkit_repo() -> Repo:
    """NVIDIA Container Toolkit install guide (apt): a flat repository at
    nvidia.github.io/libnvidia-container/stable/deb/$(ARCH), signed by nvidia.github.io/
    libnvidia-container/gpgkey. Only the pinned version is carried."""
    version = "1.17.8-1"
    debs = (Deb("nvidia-container-toolkit", version, TOOLKIT_FILES,
                depends=f"nvidia-container-toolkit-base (= {version}), libnvidia-container-tools (= {version})"),
            Deb("nvidia-container-toolkit-base", version, {"/etc/nvidia-container-runtime/config.toml": "\n"}),
            Deb("libnvidia-container-tools", version, {"/usr/bin/nvidia-container-cli": "#!/bin/sh\nexit 0\n"},
                depends=f"libnvidia-container1 (= {version})"),
            Deb("libnvidia-container1", version, {"/usr/lib/x86_64-linux-gnu/libnvidia-container.so.1": "\n"}))
    return Repo("nvidia.github.io", "libnvidia-container/stable/deb/amd64", "/", "nvidia-container",
                debs)


@dataclass
class CloudWorld:
    """What one cloud's boxes share: repositories, plain downloads (URL -> bytes, or
    ("key", name, armored) for a repository's public key), registry, container image kinds."""

    repos: list = field(default_factory=list)
    downloads: dict = field(default_factory=dict)
    registry: dict = field(default_factory=dict)
    image_kinds: dict = field(default_factory=dict)
    # what container images hold that one stand-in program plays: box path -> standin name
    image_programs: dict = field(default_factory=dict)


def training_kind(extra_paths=()) -> dict:
    """The training image: a python with torch on its PATH (the box runs this checkout's CPU
    torch in its place), and the paths the image itself holds. OMP_NUM_THREADS=1: the stand-in
    torch computes on the CPU, and a rank's stand-in GPU is one of the machine's 2 shared cores
    (the tests run one rank per box); torch's default, an OpenMP thread per core whose workers
    spin between parallel regions, made each rank burn both cores. A job's own -e value wins."""
    return {"env": {"PATH": f"{TORCH_VENV}/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
                    "LD_LIBRARY_PATH": "/usr/local/cuda/lib64:/usr/local/nvidia/lib64",
                    "HOME": "/root", "LANG": "C.UTF-8", "OMP_NUM_THREADS": "1"},
            "paths": ["/usr/local/cuda", "/usr/local/nvidia", TORCH_VENV, *extra_paths]}


def aws_world(ctx: dict) -> CloudWorld:
    image = ctx["runtime_image"]           # <acct>.dkr.ecr.<region>.amazonaws.com/<repo>@sha256:..
    host, _, rest = image.partition("/")
    name, _, digest = rest.partition("@")
    fsx = Repo("fsx-lustre-client-repo.s3.amazonaws.com", "ubuntu", UBUNTU_CODENAME, "fsx",
               (Deb(f"lustre-client-modules-{KERNEL}", "2.15.6-1fsx", _modules(
                   "lustre", "lnet", "ksocklnd", "kefalnd")),
                Deb("lustre-client-modules-aws", "2.15.6-1fsx", {}, depends=f"lustre-client-modules-{KERNEL}")))
    return CloudWorld(
        repos=[fsx],
        downloads={"https://fsx-lustre-client-repo-public-keys.s3.amazonaws.com/fsx-ubuntu-public-key.asc":
                   ("key", "fsx", True)},
        # ECR is private: a pull needs `docker login` with a token from `aws ecr
        # get-login-password` (ECR User Guide, "Private registry authentication").
        registry={f"{host}/{name}": {"private": True, "refs": {digest: digest}, "image": "training"}},
        # The AWS DLC carries EFA and aws-ofi-nccl itself (runtime_images.csv).
        image_kinds={"training": training_kind(["/opt/amazon/efa", "/opt/amazon/ofi-nccl"])})


WORLDS = {"aws": aws_world}


def gcp_world(ctx: dict) -> CloudWorld:
    image = ctx["runtime_image"]        # nvcr.io/nvidia/pytorch:<tag>@sha256:...
    name, _, digest = image.partition("@")
    repo, _, tag = name.rpartition(":")
    google_key = "https://packages.cloud.google.com/apt/doc/apt-key.gpg"
    ar_key = "https://us-apt.pkg.dev/doc/repo-signing-key.gpg"
    gib = Repo("packages.cloud.google.com", "apt", "gpudirect-gib-apt", "google-cloud",
               (Deb("nccl-gib", "1.1.0", {
                   "/usr/local/gib/scripts/set_nccl_env.sh": "#!/bin/sh\nexport NCCL_NET=gIB\n",
                   "/usr/local/gib/lib64/libnccl-net_internal.so": "\n",
                   "/usr/local/gib/lib64/libnccl.so.2": "\n"}),))
    lustre = Repo("us-apt.pkg.dev", "projects/lustre-client-binaries",
                  f"lustre-client-ubuntu-{UBUNTU_CODENAME}", "google-ar",
                  (Deb(f"lustre-client-modules-{KERNEL}", "2.14.0-ddn198", _modules("lustre", "lnet", "ksocklnd")),
                   Deb("lustre-client-utils", "2.14.0-ddn198", {"/usr/sbin/lctl": "#!/bin/sh\nexit 0\n"})))
    # A3 Mega (TCPXO), as the Cluster Toolkit a3mega blueprint installs it: the
    # apt-transport-artifact-registry package from Google's cloud apt repository (its `ar+https`
    # method), then dmabuf-import-helper (a DKMS module) from Artifact Registry's
    # gpudirect-tcpxo-apt repository at ar+https://us-apt.pkg.dev/projects/gce-ai-infra.
    ar_transport = Repo("packages.cloud.google.com", "apt", "apt-transport-artifact-registry-stable",
                        "google-cloud", (Deb("apt-transport-artifact-registry", "0.5.1", {
                            "/usr/lib/apt/methods/ar+https": "standin:ar-https"}),))
    tcpxo_apt = Repo("us-apt.pkg.dev", "projects/gce-ai-infra", "gpudirect-tcpxo-apt", "google-ar",
                     (Deb("dmabuf-import-helper", "1.0.0", {
                         f"/lib/modules/{KERNEL}/updates/dkms/import_helper.ko": "stand-in module\n"},
                         depends="dkms"),), arch="all")   # listed `[arch=all]` by the boot
    tcpxo = "us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpxo"
    return CloudWorld(
        repos=[gib, lustre, ar_transport, tcpxo_apt],
        # Google publishes both keys armored (packages.cloud.google.com/apt/doc/apt-key.gpg;
        # Artifact Registry's us-apt.pkg.dev/doc/repo-signing-key.gpg).
        downloads={google_key: ("key", "google-cloud", True), ar_key: ("key", "google-ar", True)},
        # NGC's PyTorch images pull without a login; the tag and the digest both resolve. The
        # TCPXO images: no public source says gce-ai-infra takes anonymous pulls, and Google's
        # own A3 Mega prolog logs Docker in to us-docker.pkg.dev first (the sources beside
        # components/gcp/boot.py REGISTRY_LOGIN): here they refuse a pull without a login, and
        # take the node's service-account token (user oauth2accesstoken) as one.
        registry={repo: {"private": False, "refs": {tag: digest, digest: digest}, "image": "training"},
                  f"{tcpxo}/nccl-plugin-gpudirecttcpx-dev": {
                      "private": True, "refs": {"v1.0.15": "sha256:" + "15" * 32},
                      "image": "tcpxo-installer"},
                  f"{tcpxo}/tcpgpudmarxd-dev": {
                      "private": True, "refs": {"v1.0.21": "sha256:" + "21" * 32}, "image": "rxdm"}},
        image_kinds={"training": training_kind(),
                     "tcpxo-installer": {"env": {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin"},
                                         "paths": [], "program": "/box/images/tcpxo-installer"},
                     "rxdm": {"env": {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin"},
                              "paths": ["/usr/local/nvidia"], "program": "/box/images/rxdm"}},
        image_programs={"/box/images/tcpxo-installer": "tcpxo-installer",
                        "/box/images/rxdm": "rxdm"})


WORLDS["gcp"] = gcp_world


# Microsoft's "Install the Azure CLI on Linux" (learn.microsoft.com/cli/azure/install-azure-cli-
# linux, apt, Option 1): `curl -sL https://aka.ms/InstallAzureCLIDeb | sudo bash` runs a script
# that imports packages.microsoft.com/keys/microsoft.asc into /etc/apt/keyrings/microsoft.gpg,
# adds the azure-cli repository signed by it and installs the azure-cli package. The stand-in
# script does those steps (not its prerequisite installs: the box's curl and gnupg are there).
AZURE_CLI_INSTALLER = """#!/bin/bash
# aka.ms/InstallAzureCLIDeb (node-box stand-in for Microsoft's deb_install.sh)
set -euo pipefail
. /etc/os-release
install -d -m 0755 /etc/apt/keyrings
curl -sLS https://packages.microsoft.com/keys/microsoft.asc | gpg --dearmor --yes -o /etc/apt/keyrings/microsoft.gpg
chmod go+r /etc/apt/keyrings/microsoft.gpg
echo "deb [arch=amd64 signed-by=/etc/apt/keyrings/microsoft.gpg] https://packages.microsoft.com/repos/azure-cli/ $VERSION_CODENAME main" > /etc/apt/sources.list.d/azure-cli.list
apt-get update
apt-get install -y azure-cli
"""
# The ubuntu-hpc image's NCCL topology files (azhpc-images: topology/ copied to /opt/microsoft,
# one per ND size; the manifest's nccl_plugin line) and the RDMA SHARP plugin folder.
AZURE_HPC_FILES = {
    "/opt/microsoft/ndv4-topo.xml": "<system version=\"1\"><!-- ND A100 v4 --></system>\n",
    "/opt/microsoft/ndv5-topo.xml": "<system version=\"1\"><!-- ND H100 v5 --></system>\n",
    "/usr/local/nccl-rdma-sharp-plugins/lib/libnccl-net.so": "\n",
}


def azure_world(ctx: dict) -> CloudWorld:
    image = ctx["runtime_image"]        # nvcr.io/nvidia/pytorch:<tag>@sha256:...
    name, _, digest = image.partition("@")
    repo, _, tag = name.rpartition(":")
    cli = Repo("packages.microsoft.com", "repos/azure-cli", UBUNTU_CODENAME, "microsoft",
               (Deb("azure-cli", "2.80.0-1~jammy", {"/usr/bin/az": "standin:cloudcli"}),))
    # Azure Managed Lustre's client repository (learn.microsoft.com/azure/azure-managed-lustre/
    # client-install, Ubuntu 22.04): one amlfs-lustre-client-<version> package per release,
    # each with a build per kernel (its version is the kernel's release).
    amlfs = Repo("packages.microsoft.com", f"repos/amlfs-{UBUNTU_CODENAME}", UBUNTU_CODENAME,
                 "microsoft", (Deb("amlfs-lustre-client-2.15.7-33-gbda2ea6", KERNEL,
                                   _modules("lustre", "lnet", "ksocklnd")),))
    return CloudWorld(
        repos=[cli, amlfs],
        downloads={"https://packages.microsoft.com/keys/microsoft.asc": ("key", "microsoft", True),
                   "https://aka.ms/InstallAzureCLIDeb": AZURE_CLI_INSTALLER},
        # NGC's PyTorch images pull without a login.
        registry={repo: {"private": False, "refs": {tag: digest, digest: digest}, "image": "training"}},
        image_kinds={"training": training_kind()})


WORLDS["azure"] = azure_world


def _tarball(files: dict[str, str], modes: dict[str, int] | None = None) -> bytes:
    """A .tar.gz holding `files` (name -> text), executable where `modes` says."""
    import io
    import tarfile
    import gzip
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w") as tar:
        for name, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size, info.mode = len(data), (modes or {}).get(name, 0o644)
            tar.addfile(info, io.BytesIO(data))
    return gzip.compress(out.getvalue(), mtime=0)     # the same bytes (and checksum) every run


STANDIN_DIR = __import__("pathlib").Path(__file__).with_name("standins")
# ECS "Enable eRDMA on GPU instances": erdma_installer-<version>.tar.gz from
# mirrors.cloud.aliyuncs.com, unpacked, then `./install.sh --batch` builds the erdma kernel
# module with DKMS (needs the running kernel's headers, dkms, gcc) and installs rdma-core with the
# erdma verbs provider (liberdma, /etc/libibverbs.d/erdma.driver) and the verbs tools.
ERDMA_INSTALL = f"""#!/bin/bash
# erdma_installer install.sh (node-box stand-in)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
kernel="$(uname -r)"
command -v dkms >/dev/null || {{ echo "erdma_installer: dkms is required to build the erdma module" >&2; exit 1; }}
command -v gcc >/dev/null || {{ echo "erdma_installer: gcc is required" >&2; exit 1; }}
[ -d "/usr/src/linux-headers-$kernel" ] || {{ echo "erdma_installer: kernel headers for $kernel are missing" >&2; exit 1; }}
install -D -m 0644 "$here/erdma.ko" "/lib/modules/$kernel/updates/dkms/erdma.ko"
install -D -m 0644 "$here/erdma.driver" /etc/libibverbs.d/erdma.driver
install -D -m 0644 "$here/liberdma-rdmav34.so" /usr/lib/x86_64-linux-gnu/libibverbs/liberdma-rdmav34.so
install -D -m 0755 "$here/verbs" /usr/bin/ibv_devinfo
install -D -m 0755 "$here/verbs" /usr/bin/ibv_devices
echo "erdma_installer: erdma driver and rdma-core installed"
"""


def erdma_installer() -> bytes:
    return _tarball({"erdma_installer/install.sh": ERDMA_INSTALL,
                     "erdma_installer/erdma.ko": "stand-in kernel module erdma\n",
                     "erdma_installer/erdma.driver": "driver erdma\n",
                     "erdma_installer/liberdma-rdmav34.so": "stand-in liberdma\n",
                     "erdma_installer/verbs": (STANDIN_DIR / "verbs").read_text()},
                    {"erdma_installer/install.sh": 0o755, "erdma_installer/verbs": 0o755})


ERDMA_INSTALLER_URL = "http://mirrors.cloud.aliyuncs.com/erdma/erdma_installer-1.5.7.tar.gz"
CUDA_REPO = "https://developer.download.nvidia.com/compute/cuda/repos/ubuntu2204/x86_64"
FABRICMANAGER_UNIT = """[Unit]
Description=NVIDIA fabric manager service (node-box stand-in)
[Service]
ExecStart=/usr/bin/nv-fabricmanager
[Install]
WantedBy=multi-user.target
"""


def alicloud_world(ctx: dict) -> CloudWorld:
    image = ctx["runtime_image"]
    name, _, digest = image.partition("@")
    repo, _, tag = name.rpartition(":")
    # NVIDIA's CUDA repository for Ubuntu 22.04 (a flat repository, `/`), trusted through the
    # cuda-keyring package (CUDA Installation Guide for Linux, "Network Repo Installation for
    # Ubuntu"); only the pinned versions the boot asks for.
    cuda = Repo("developer.download.nvidia.com", "compute/cuda/repos/ubuntu2204/x86_64", "/",
                "nvidia-cuda", (
                    Deb("cuda-drivers-550", "550.127.08-0ubuntu1", {
                        "/usr/bin/nvidia-smi": "standin:nvidia-smi",
                        **_modules("nvidia", "nvidia_uvm", "nvidia_peermem", "nvidia_drm")}),
                    Deb("nvidia-fabricmanager-550", "550.127.08-1", {
                        "/usr/bin/nv-fabricmanager": "#!/bin/sh\nexec /bin/sleep infinity\n",
                        "/lib/systemd/system/nvidia-fabricmanager.service": FABRICMANAGER_UNIT}),
                    Deb("cuda-toolkit-12-4", "12.4.1-1", {"/usr/local/cuda-12.4/version.json": "{}\n"})))
    keyring = Deb("cuda-keyring", "1.1-1", {
        "/usr/share/keyrings/cuda-archive-keyring.gpg": repos_key("nvidia-cuda"),
        "/etc/apt/sources.list.d/cuda-ubuntu2204-x86_64.list":
            f"deb [signed-by=/usr/share/keyrings/cuda-archive-keyring.gpg] {CUDA_REPO}/ /\n"})
    # CPFS "Mount a file system using a CPFS-NFS client": aliyun-alinas-utils, which provides
    # mount.cpfs-nfs (it needs nfs-common and haproxy from the distribution).
    alinas = Deb("aliyun-alinas-utils", "1.6-1", {
        "/sbin/mount.cpfs-nfs": "#!/bin/sh\nexec mount -t cpfs-nfs \"$@\"\n"},
        depends="nfs-common, haproxy")
    return CloudWorld(
        repos=[cuda],
        downloads={
            # Alibaba Cloud CLI: the release tarball holds the single `aliyun` binary
            "https://aliyuncli.alicdn.com/aliyun-cli-linux-latest-amd64.tgz": _tarball(
                {"aliyun": (STANDIN_DIR / "cloudcli").read_text()}, {"aliyun": 0o755}),
            "https://cpfs-hangzhou-nfs-client.oss-cn-hangzhou.aliyuncs.com/"
            "aliyun-alinas-utils-latest.deb": alinas,
            f"{CUDA_REPO}/cuda-keyring_1.1-1_all.deb": keyring,
            ERDMA_INSTALLER_URL: erdma_installer()},
        registry={repo: {"private": False, "refs": {tag: digest, digest: digest}, "image": "training"}},
        image_kinds={"training": training_kind()})


def repos_key(name: str) -> bytes:
    from tools.nodebox.repos import export_key
    return export_key(name, False)


WORLDS["alicloud"] = alicloud_world
