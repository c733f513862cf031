"""Boxes: one node each, booting the plan's user data for real.

    cluster = Cluster(case, workdir)       # case: BoxCase (cloud, user data, bucket objects...)
    cluster.boot()                         # every node boots, concurrently, each in its own box
    cluster.failures()                     # [] or "node-0: step runtime exited 1: <its log>"

A box is a Debian root (tools/nodebox/root.py) extracted under `workdir`, given what the node
image's manifest says the image holds (tools/nodebox/images.py) and the stand-ins, entered with
`unshare` (mount and PID namespaces) inside its own network namespace (`ip netns`; the boxes of
one cluster are wired together on one subnet), where the world (tools/nodebox/world.py) answers
on loopback. The user data is decoded as cloud-init decodes it: its write_files are written, its
runcmd is run by sh in order, as root, chrooted into the box.
"""
from __future__ import annotations

import base64
import gzip
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from tools.nodebox import clouds, images, repos
from tools.nodebox.root import (BASE_PACKAGES, ToolMissing, box_root, need, real_debs,
                                release_root, root_tarball)

REPO = Path(__file__).resolve().parents[2]
STANDINS = Path(__file__).with_name("standins")
HOST_PYTHON = Path(sys.executable)
STEP_STATE = "var/lib/trainstack/steps"
BOOT_LOG = "var/log/trainstack-boot.log"
PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


@dataclass
class BoxCase:
    """One cluster's nodes as the plan renders them."""

    name: str                 # e.g. "aws-p5"
    cloud: str
    user_data: str            # the cloud-config text, decoded as the cloud decodes it
    instance_type: str
    nodes: int
    bucket: str
    runtime_image: str
    filesystem: tuple[str, str]            # (mount source, type) the cloud exports
    bucket_objects: dict = field(default_factory=dict)   # key -> content the deploy uploads
    extra: dict = field(default_factory=dict)            # per-cloud facts (role, identity...)


def decode_cloud_config(text: str) -> dict:
    """The cloud-config as cloud-init reads it (a MIME multipart or gzip is unpacked first)."""
    raw = text.encode() if isinstance(text, str) else text
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    text = raw.decode()
    if text.startswith("Content-Type: multipart"):
        import email
        for part in email.message_from_string(text).walk():
            if part.get_content_type() == "text/cloud-config":
                text = part.get_payload(decode=True).decode()
                break
    if not text.startswith("#cloud-config"):
        raise ValueError("user data is not a #cloud-config document")
    return yaml.safe_load(text)


def _write_files(root: Path, document: dict) -> None:
    """cloud-init's write_files: content (b64/gzip encodings), permissions, parent folders."""
    for entry in document.get("write_files", []):
        content = entry.get("content", "")
        encoding = entry.get("encoding", "")
        data = content.encode()
        if encoding in ("b64", "base64", "gz+b64", "gzip+base64"):
            data = base64.b64decode(content)
        if encoding.startswith("gz"):
            data = gzip.decompress(data)
        target = root / entry["path"].lstrip("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        target.chmod(int(str(entry.get("permissions", "0644")), 8))


def _runcmd_script(document: dict) -> str:
    """cloud-init's runcmd: a list entry is one command, its words shell-quoted; a string is
    a shell line. All in one sh script, in order (cloud-init's scripts_user runs it)."""
    lines = ["#!/bin/sh"]
    for entry in document.get("runcmd", []):
        lines.append(" ".join(shlex.quote(str(w)) for w in entry) if isinstance(entry, list)
                     else str(entry))
    return "\n".join(lines) + "\n"


class World:
    """What the boxes of one cluster share: sites (repositories, keys, downloads), TLS, the
    bucket folder, the filesystem folder, PyPI."""

    def __init__(self, case: BoxCase, workdir: Path):
        need("ip", "unshare", "chroot", "dpkg-deb", "dpkg-scanpackages", "gpg", "openssl")
        self.case = case
        self.dir = workdir / "world"
        self.sites = self.dir / "sites"
        self.bucket = self.dir / "bucket"
        self.fs = self.dir / "fs"
        for d in (self.sites, self.bucket, self.fs / "cluster"):
            d.mkdir(parents=True, exist_ok=True)
        for key, content in case.bucket_objects.items():
            target = self.bucket / key
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(content)
        cw = clouds.WORLDS[case.cloud]({"runtime_image": case.runtime_image, **case.extra})
        self.cloud_world = cw
        all_repos = [clouds.ubuntu_archive(sorted(real_debs().glob("*.deb"))),
                     clouds.nvidia_toolkit_repo(), *cw.repos]
        downloads = {"https://nvidia.github.io/libnvidia-container/gpgkey":
                     ("key", "nvidia-container", True), **cw.downloads}
        # this world's copy of the published sites (never the shared build itself)
        shutil.copytree(_published_sites(all_repos, downloads), self.sites, dirs_exist_ok=True)
        self._pypi()
        self.hosts = sorted({p.name for p in self.sites.iterdir()} | {"api.box.internal"}
                            | {r.split("/")[0] for r in cw.registry})
        for name, path in _tls_files(tuple(self.hosts)).items():
            shutil.copy(path, self.dir / name)

    def _pypi(self) -> None:
        """PyPI's simple index with the wheels the agent's lock files name (downloaded once)."""
        from tools.nodebox.root import agent_wheels
        wheels = agent_wheels()
        simple = self.sites / "pypi.org" / "simple"
        files = self.sites / "files.pythonhosted.org" / "packages"
        files.mkdir(parents=True, exist_ok=True)
        projects: dict[str, list[str]] = {}
        for wheel in sorted([*wheels.glob("*.whl"), *wheels.glob("*.tar.gz")]):
            name = wheel.name.split("-")[0].lower().replace("_", "-")
            projects.setdefault(name, []).append(wheel.name)
            link = files / wheel.name
            if not link.exists():
                os.link(wheel, link)
        for name, names in projects.items():
            (simple / name).mkdir(parents=True, exist_ok=True)
            (simple / name / "index.html").write_text("<html><body>\n" + "".join(
                f'<a href="https://files.pythonhosted.org/packages/{n}">{n}</a>\n' for n in names)
                + "</body></html>\n")


# What every world of one content gets alike, built once per process (a pytest run boots about
# twenty clusters over the same few clouds): the signed repositories and downloads, keyed by
# what they are built from (the stand-ins' bytes included), and the TLS CA and certificate,
# keyed by the host names. Each world gets its own copy of them; nothing here is written after.
_BUILT: dict[str, Path] = {}


def _built_dir(kind: str, key: str) -> Path:
    import atexit
    import tempfile
    if "root" not in _BUILT:
        _BUILT["root"] = Path(tempfile.mkdtemp(prefix="nodebox-built-"))
        atexit.register(shutil.rmtree, _BUILT["root"], True)
    return _BUILT["root"] / f"{kind}-{key}"


def _published_sites(all_repos: list, downloads: dict) -> Path:
    import hashlib
    digest = hashlib.sha256(repr((all_repos, downloads)).encode())
    for standin in sorted(p for p in repos.STANDINS.iterdir() if p.is_file()):
        digest.update(standin.name.encode() + standin.read_bytes())
    key = digest.hexdigest()[:20]
    if f"sites-{key}" in _BUILT:
        return _BUILT[f"sites-{key}"]
    out = _built_dir("sites", key)
    sites, scratch = out / "sites", out / "scratch"
    shutil.rmtree(out, ignore_errors=True)      # what a failed build left
    scratch.mkdir(parents=True)
    for repo in all_repos:
        repo.build(sites)
    for url, data in downloads.items():
        if isinstance(data, tuple) and data[0] == "key":
            data = repos.export_key(data[1], data[2])
        elif isinstance(data, repos.Deb):      # a .deb downloaded as a file
            data = data.build(scratch).read_bytes()
        repos.put(sites, url, data)
    _BUILT[f"sites-{key}"] = sites
    return sites


def _tls_files(hosts: tuple[str, ...]) -> dict[str, Path]:
    """The world's CA and the server certificate for `hosts` (ca.key, ca.crt, tls.key, tls.crt)."""
    import hashlib
    key = hashlib.sha256("\n".join(hosts).encode()).hexdigest()[:20]
    out = _built_dir("tls", key)
    names = ("ca.key", "ca.crt", "tls.key", "tls.crt")
    if f"tls-{key}" not in _BUILT:
        shutil.rmtree(out, ignore_errors=True)  # what a failed build left
        out.mkdir(parents=True)
        ca_key, ca, tls_key, cert = (out / n for n in names)
        run = lambda *a: subprocess.run(a, check=True, capture_output=True)  # noqa: E731
        run("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(ca_key),
            "-out", str(ca), "-days", "3", "-subj", "/CN=trainstack node box CA")
        ext = out / "san.ext"
        ext.write_text(f"subjectAltName={','.join(f'DNS:{h}' for h in hosts)}\n")
        csr = out / "tls.csr"
        run("openssl", "req", "-newkey", "rsa:2048", "-nodes", "-keyout", str(tls_key), "-out",
            str(csr), "-subj", "/CN=box")
        run("openssl", "x509", "-req", "-in", str(csr), "-CA", str(ca), "-CAkey", str(ca_key),
            "-CAcreateserial", "-out", str(cert), "-days", "3", "-extfile", str(ext))
        _BUILT[f"tls-{key}"] = out
    return {n: out / n for n in names}


def images_cache() -> Path:
    from tools.nodebox.root import cache_dir
    return cache_dir()


@dataclass
class Node:
    index: int
    name: str          # instance id / name
    ip: str


class Box:
    def __init__(self, case: BoxCase, world: World, node: Node, peers: list[Node], workdir: Path,
                 tarball: Path):
        self.case, self.world, self.node, self.peers = case, world, node, peers
        self.dir = workdir / f"node-{node.index}"
        self.root = self.dir / "root"
        self.state = self.dir / "state"
        self.state.mkdir(parents=True, exist_ok=True)
        self.proc: subprocess.Popen | None = None
        self.overlay = box_root(tarball, self.root)   # the shared tree under this box's writes
        try:
            self._set_up(case)
        except BaseException:
            self.release()
            raise

    def _set_up(self, case: BoxCase) -> None:
        self.manifest = images.manifest(case.cloud)
        self.hw = images.hardware(case.cloud, case.instance_type)
        self._image()
        self._world_config()
        _write_files(self.root, decode_cloud_config(case.user_data))
        runcmd = self.root / "var/lib/cloud/instance/scripts/runcmd"
        runcmd.parent.mkdir(parents=True, exist_ok=True)
        runcmd.write_text(_runcmd_script(decode_cloud_config(case.user_data)))
        runcmd.chmod(0o755)

    # -- the image ---------------------------------------------------------------------------
    def _put(self, path: str, content: str | None = None, standin: str | None = None,
             mode: int = 0o755) -> None:
        target = self.root / path.lstrip("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        if standin:
            shutil.copy(STANDINS / standin, target)
        else:
            target.write_text(content or "")
        target.chmod(mode)

    def _image(self) -> None:
        r, m, cloud = self.root, self.manifest, self.case.cloud
        (r / "etc/os-release").unlink(missing_ok=True)
        (r / "usr/lib/os-release").write_text(clouds.OS_RELEASE)
        (r / "etc/os-release").symlink_to("../usr/lib/os-release")
        (r / "etc/hostname").write_text(self.node.name + "\n")
        # apt: the image's distribution archive (and nothing of Debian's)
        for f in (r / "etc/apt/sources.list.d").glob("*"):
            f.unlink()
        (r / "etc/apt/sources.list").write_text(
            f"deb http://archive.ubuntu.com/ubuntu {clouds.UBUNTU_CODENAME} main universe\n")
        (r / "etc/apt/trusted.gpg.d").mkdir(parents=True, exist_ok=True)
        (r / "etc/apt/trusted.gpg.d/ubuntu-keyring-2018-archive.gpg").write_bytes(
            repos.export_key("ubuntu-archive", False))
        # the box's CA, as the image trusts the public CAs
        ca = (self.world.dir / "ca.crt").read_text()
        self._put("/usr/local/share/ca-certificates/trainstack-box.crt", ca, mode=0o644)
        with open(r / "etc/ssl/certs/ca-certificates.crt", "a") as bundle:
            bundle.write(ca)
        self._put("/etc/pip.conf", "[global]\ncert = /etc/ssl/certs/ca-certificates.crt\n", mode=0o644)
        hosts = "127.0.0.1 localhost\n" + "".join(f"127.0.0.1 {h}\n" for h in self.world.hosts)
        hosts += "169.254.169.254 metadata.google.internal metadata\n"
        hosts += "".join(f"{p.ip} {p.name}\n" for p in self.peers)
        (r / "etc/hosts").write_text(hosts)
        # what no box can have: kernel modules, mounts, systemd, the clock
        self._put("/usr/local/sbin/modprobe", standin="modprobe")
        self._put("/usr/local/sbin/lsmod", standin="lsmod")
        self._put("/usr/local/sbin/mount", standin="mount")
        self._put("/usr/bin/systemctl", standin="systemctl")
        self._put("/usr/local/bin/sleep", standin="sleep")
        modules = list(images.KERNEL_MODULES)
        boot_modules = []
        hw = self.hw
        gpus = {"count": hw.gpus, "name": hw.gpu, "memory_mib": hw.gpu_memory_gb * 1024,
                "driver": m["driver"].value, "cuda": m.get("cuda", images.Item(False, "", "")).value}
        self._put("/etc/box/gpus.json", json.dumps(gpus), mode=0o644)
        if m["driver"].present:
            self._put("/usr/bin/nvidia-smi", standin="nvidia-smi")
            modules += ["nvidia", "nvidia_uvm", "nvidia_peermem", "nvidia_drm"]
            boot_modules.append("nvidia")
        if m["docker"].present:
            for path, content in clouds.DOCKER_FILES.items():
                if content.startswith("standin:"):
                    self._put(path, standin=content.split(":", 1)[1])
                else:
                    self._put(path, content, mode=0o644)
            self._put("/etc/box/docker-at-boot", "yes\n", mode=0o644)
        if m["container_toolkit"].present:
            for path, content in clouds.TOOLKIT_FILES.items():
                self._put(path, content)
        if m["python3_venv"].present:
            debs = sorted(str(p) for p in real_debs().glob("*.deb"))
            shutil.copytree(real_debs(), r / "tmp/box-debs", dirs_exist_ok=True)
            self._chroot_run(["dpkg", "-i", *[f"/tmp/box-debs/{Path(d).name}" for d in debs]])
        if m["rdma_stack"].present:
            if cloud == "aws":      # the EFA installer: libfabric's fi_info, the efa module
                self._put("/opt/amazon/efa/bin/fi_info", standin="verbs")
                modules.append("efa")
                boot_modules.append("efa")
            self._put("/usr/bin/ibv_devinfo", standin="verbs")
            self._put("/usr/bin/ibv_devices", standin="verbs")
        if m["nccl_plugin"].present and cloud == "aws":
            self._put("/opt/amazon/ofi-nccl/lib/x86_64-linux-gnu/libnccl-net.so", "\n", mode=0o644)
            self._put("/opt/amazon/efa/lib/libfabric.so.1", "\n", mode=0o644)
        if m["nccl_plugin"].present and cloud == "azure":
            for path, content in clouds.AZURE_HPC_FILES.items():
                self._put(path, content, mode=0o644)
        if m["fs_client"].present:
            for name in ("lustre", "lnet", "ksocklnd"):
                self._put(f"/lib/modules/{clouds.KERNEL}/extra/{name}.ko", "\n", mode=0o644)
        cli, on_image = images.CLOUD_CLI[cloud]
        if on_image:
            self._put(f"/usr/bin/{cli}", standin="cloudcli")
        self._put("/box/standins/cloudcli", standin="cloudcli")   # what installers put in place
        self._put("/etc/box/kernel-modules", "\n".join(modules) + "\n", mode=0o644)
        self._put("/etc/box/boot-modules", "\n".join(boot_modules) + "\n", mode=0o644)
        self._put("/etc/box/container-images.json", json.dumps(self.world.cloud_world.image_kinds),
                  mode=0o644)
        for path, standin in self.world.cloud_world.image_programs.items():
            self._put(path, standin=standin)
        if hw.fabric == "gpudirect-tcpxo":
            # A3 Mega's aperture devices: one PCI function 0x1ae0:0x0084 per GPU NIC (the
            # catalog's 8), in sysfs with their BAR files, as the boot's aperture unit finds them
            # (vendor/device as Google's udev rule and GKE installer match them: the sources
            # beside components/gcp/boot.py APERTURE_PCI_ID)
            for i in range(hw.rdma_nics):
                bdf = f"0000:{0x81 + i:02x}:00.1"
                dev = r / "sys/devices/pci0000:80" / bdf
                dev.mkdir(parents=True, exist_ok=True)
                (dev / "vendor").write_text("0x1ae0\n")
                (dev / "device").write_text("0x0084\n")
                # every PCI function has a class (gloo walks /sys/bus/pci/devices reading it);
                # the aperture's own is not cited: a "system peripheral" stands in
                (dev / "class").write_text("0x088000\n")
                for bar in ("resource0", "resource2"):
                    (dev / bar).write_text("")
                (r / "sys/bus/pci/devices").mkdir(parents=True, exist_ok=True)
                (r / "sys/bus/pci/devices" / bdf).symlink_to(f"../../../devices/pci0000:80/{bdf}")
        source, fstype = self.case.filesystem
        self._put("/etc/box/filesystems", f"{source} {fstype} /box/fs/cluster\n", mode=0o644)
        (r / "box/fs").mkdir(parents=True, exist_ok=True)
        # the instance type's devices: /sys/class/infiniband and /dev/infiniband
        driver = {"efa": "efa", "erdma": "erdma"}.get(hw.fabric, "mlx5_core")
        names = {"efa": "rdmap{i}s0", "erdma": "erdma_{i}"}.get(hw.fabric, "mlx5_{i}")
        for i in range(hw.rdma_nics if hw.fabric not in ("tcp", "gpudirect-tcpx",
                                                         "gpudirect-tcpxo") else 0):
            dev = r / "sys/class/infiniband" / names.format(i=i)
            (dev / "ports/1").mkdir(parents=True, exist_ok=True)
            (dev / "ports/1/link_layer").write_text(
                "InfiniBand\n" if hw.fabric == "infiniband" else "Ethernet\n")
            (r / "sys/bus/drivers" / driver).mkdir(parents=True, exist_ok=True)
            (dev / "device").mkdir(exist_ok=True)
            (dev / "device/driver").symlink_to(f"/sys/bus/drivers/{driver}")
            (r / "dev/infiniband").mkdir(parents=True, exist_ok=True)
            (r / f"dev/infiniband/uverbs{i}").write_text("")
        # the NICs: the host NIC, and on GCP's GPU-NIC shapes one NIC per GPU (/sys/class/net)
        nics = ["eth0"] + ([f"gpu{i}rdma0" for i in range(hw.rdma_nics)]
                           if cloud == "gcp" and hw.fabric != "tcp" else [])
        for nic in nics:
            (r / "sys/class/net" / nic / "device").mkdir(parents=True, exist_ok=True)
        init = f"""#!/bin/bash
# The box's system boot: what the image's systemd does before cloud-init's last stage.
mkdir -p /run/box/modules /run/box/units
while read -r m; do [ -n "$m" ] && touch "/run/box/modules/$m"; done < /etc/box/boot-modules
if [ -e /etc/box/docker-at-boot ]; then systemctl start docker; fi
# cloud-init's final stage: the runcmd script (cloud-init's output log as on a node)
sh /var/lib/cloud/instance/scripts/runcmd > /var/log/cloud-init-output.log 2>&1
echo $? > /box/runcmd.rc
touch /box/booted
if [ -e /box/keep ]; then while [ ! -e /box/stop ]; do /bin/sleep 0.5; done; fi
"""
        self._put("/box/init.sh", init)

    def _chroot_run(self, argv: list[str]) -> None:
        result = subprocess.run(["chroot", str(self.root), *argv], capture_output=True, text=True,
                                env={"PATH": PATH, "HOME": "/root", "LANG": "C.UTF-8"})
        if result.returncode != 0:
            raise RuntimeError(f"box image set-up: {' '.join(argv)} failed:\n{result.stderr}")

    # -- its world ---------------------------------------------------------------------------
    def _world_config(self) -> None:
        case, cw = self.case, self.world.cloud_world
        instances = [{"id": p.name, "name": p.name, "ip": p.ip} for p in self.peers]
        config = {
            **{k: v for k, v in case.extra.items() if not callable(v)},
            "cloud": case.cloud, "node": {"id": self.node.name, "ip": self.node.ip},
            "state_dir": str(self.state), "bucket_dir": str(self.world.bucket),
            "clock_file": str(self.root / "run/box/slept"),   # the box's fast clock (its `sleep`)
            "sites": {p.name: str(p) for p in self.world.sites.iterdir()},
            "tls_cert": str(self.world.dir / "tls.crt"), "tls_key": str(self.world.dir / "tls.key"),
            "metadata_addresses": ["169.254.169.254", "100.100.100.200"],
            "bucket": case.bucket, "group": {"name": case.extra.get("group_name", "nodes"),
                                             "instances": instances},
            "registry": cw.registry, "registry_hosts": sorted({r.split("/")[0] for r in cw.registry}),
        }
        config["metadata"] = metadata(case, self.node)
        (self.state / "world.json").write_text(json.dumps(config, indent=1))

    # -- running -----------------------------------------------------------------------------
    def start(self, netns: str, keep: bool = False) -> None:
        if keep:
            (self.root / "box/keep").write_text("")
        r = shlex.quote(str(self.root))
        binds = [(clouds.TORCH_VENV, clouds.TORCH_VENV),
                 (str(Path(os.path.realpath(HOST_PYTHON)).parents[1]),
                  str(Path(os.path.realpath(HOST_PYTHON)).parents[1])),
                 (str(self.world.bucket), str(self.world.bucket)),
                 (str(self.world.fs), "/box/fs")]
        bind_lines = "\n".join(f"mkdir -p {r}{shlex.quote(dst)}\nmount --bind {shlex.quote(src)} "
                               f"{r}{shlex.quote(dst)}" for src, dst in binds)
        devices = "\n".join(f"touch {r}/dev/{d}; mount --bind /dev/{d} {r}/dev/{d}"
                            for d in ("null", "zero", "random", "urandom", "full", "tty"))
        launcher = f"""set -e
hostname {shlex.quote(self.node.name)}
ip link set lo up
ip addr add 169.254.169.254/32 dev lo
ip addr add 100.100.100.200/32 dev lo
mount --make-rprivate /
mount -t proc proc {r}/proc
mount -t tmpfs tmpfs {r}/run
mkdir -p {r}/dev/shm && mount -t tmpfs tmpfs {r}/dev/shm
{devices}
ln -sfn /proc/self/fd {r}/dev/fd
ln -sfn /proc/self/fd/0 {r}/dev/stdin; ln -sfn /proc/self/fd/1 {r}/dev/stdout; ln -sfn /proc/self/fd/2 {r}/dev/stderr
{bind_lines}
cd {shlex.quote(str(REPO))}
{shlex.quote(str(HOST_PYTHON))} -m tools.nodebox.world {shlex.quote(str(self.state / 'world.json'))} \\
  > {shlex.quote(str(self.state / 'world.out'))} 2>&1 &
for i in $(seq 1 200); do [ -e {shlex.quote(str(self.state / 'ready'))} ] && break; sleep 0.05; done
[ -e {shlex.quote(str(self.state / 'ready'))} ] || {{ echo "the box's world did not start"; cat {shlex.quote(str(self.state / 'world.out'))}; exit 1; }}
exec chroot {r} /usr/bin/env -i PATH={PATH} HOME=/root LANG=C.UTF-8 /bin/bash /box/init.sh
"""
        (self.state / "launch.sh").write_text(launcher)
        self.console = open(self.state / "console.log", "wb")
        self.proc = subprocess.Popen(
            ["ip", "netns", "exec", netns, "unshare", "--mount", "--uts", "--pid", "--fork",
             "bash", str(self.state / "launch.sh")],
            stdout=self.console, stderr=subprocess.STDOUT, start_new_session=True)

    def wait_booted(self, timeout: float) -> bool:
        """True once runcmd has ended; False if the box died first or the deadline passed."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if (self.root / "box/booted").exists():
                return True
            if self.proc and self.proc.poll() is not None:
                return False
            time.sleep(0.2)
        return False

    def host_pid(self) -> int:
        """The host pid of the box's init (the process whose root is the box's root)."""
        for proc in Path("/proc").iterdir():
            if proc.name.isdigit():
                try:
                    if os.readlink(proc / "root") == str(self.root):
                        return int(proc.name)
                except OSError:
                    continue
        raise RuntimeError(f"{self.node.name}: the box is not running")

    def exec(self, command: str, timeout: float = 120) -> subprocess.CompletedProcess:
        """Run `command` (bash) as root inside the running box: its mounts, network, root."""
        return subprocess.run(
            ["nsenter", "-t", str(self.host_pid()), "-m", "-n", "-p", "-u", "chroot", str(self.root),
             "/usr/bin/env", "-i", f"PATH={PATH}", "HOME=/root", "LANG=C.UTF-8",
             "/bin/bash", "-c", command], capture_output=True, text=True, timeout=timeout)

    def stop(self) -> None:
        (self.root / "box/stop").write_text("")
        if self.proc and self.proc.poll() is None:
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()

    def release(self) -> None:
        """Unmount the overlay root (after `stop`); an extracted root stays as it is."""
        if self.overlay:
            release_root(self.root)
            self.overlay = False

    # -- what it says --------------------------------------------------------------------------
    def step_codes(self) -> dict[str, int]:
        folder = self.root / STEP_STATE
        return {p.stem: int(p.read_text().strip() or -1) for p in sorted(folder.glob("*.rc"))}

    def step_log(self, step: str) -> str:
        """The lines the runner logged between `start STEP` and `end STEP`."""
        log = self.root / BOOT_LOG
        if not log.exists():
            return ""
        lines, inside = [], False
        for line in log.read_text(errors="replace").splitlines():
            if line.endswith(f" start {step}"):
                inside, lines = True, []
                continue
            if f" end {step} rc=" in line:
                inside = False
                continue
            if inside:
                lines.append(line)
        return "\n".join(lines)

    def health(self) -> dict | None:
        path = self.root / "var/lib/trainstack/health.json"
        try:
            return json.loads(path.read_text())
        except (OSError, ValueError):
            return None

    def failures(self, steps: list[str]) -> list[str]:
        """Every boot step that did not end with status 0 (or did not run), named with the tail
        of its log; and a health record that says ok after a failed step."""
        out = []
        prefix = f"{self.case.name} {self.node.name}"
        if not (self.root / "box/booted").exists():
            console = (self.state / "console.log").read_text(errors="replace")[-2000:]
            return [f"{prefix}: the box did not finish booting:\n{console}"]
        codes = self.step_codes()
        for step in steps:
            if step not in codes:
                out.append(f"{prefix}: step `{step}` never ran (runcmd: "
                           f"{(self.root / 'var/log/cloud-init-output.log').read_text()[-500:]})")
            elif codes[step] != 0:
                tail = "\n    ".join(self.step_log(step).splitlines()[-12:])
                out.append(f"{prefix}: step `{step}` exited {codes[step]}:\n    {tail}")
        record = self.health()
        if record is not None and record.get("ok") and out:
            out.append(f"{prefix}: the health record says ok although a step failed")
        return out


def metadata(case: BoxCase, node: Node) -> dict:
    """The metadata tree the node's metadata server answers from."""
    if case.cloud == "aws":
        return {"instance-id": node.name, "local-ipv4": node.ip, "hostname": node.name,
                "placement": {"availability-zone": case.extra.get("zone", ""),
                              "region": case.extra.get("region", "")},
                "instance-type": case.instance_type}
    return case.extra.get("metadata_for", lambda n: {})(node) if callable(
        case.extra.get("metadata_for")) else {}


class Cluster:
    """The nodes of one case, each in its box, wired together on one subnet (10.77.0.0/16, or the plan's addresses)."""

    def __init__(self, case: BoxCase, workdir: Path, nodes: int | None = None):
        need("mmdebstrap", "ip", "unshare")
        self.case = case
        self.workdir = workdir
        count = nodes or case.nodes
        # the plan's own private addresses where it fixes them (Alibaba: one ecs.Instance per
        # node, each with its address, and the boot's peer list written from them)
        ips = case.extra.get("node_ips") or [f"10.77.0.{11 + i}" for i in range(case.nodes)]
        self.nodes = [Node(i, node_name(case, i), ips[i]) for i in range(case.nodes)]
        self.world = World(case, workdir)
        tarball = root_tarball(BASE_PACKAGES)
        self.boxes: list[Box] = []
        try:
            for n in self.nodes[:count]:
                self.boxes.append(Box(case, self.world, n, self.nodes, workdir, tarball))
        except BaseException:
            for box in self.boxes:
                box.release()
            raise
        self.netns: list[str] = []
        self.steps = [entry[1] for entry in decode_cloud_config(case.user_data)["runcmd"]
                      if isinstance(entry, list) and len(entry) == 2]

    def _network(self) -> None:
        tag = f"{os.getpid() % 10000}{int(time.time() * 1000) % 100000}"
        for box in self.boxes:
            ns = f"tsbox{tag}n{box.node.index}"
            subprocess.run(["ip", "netns", "add", ns], check=True)
            self.netns.append(ns)
        # one bridge-less wire between two boxes; a lone box gets a dummy NIC
        if len(self.boxes) == 2:
            a, b = self.netns
            subprocess.run(["ip", "link", "add", f"v{tag}a", "type", "veth", "peer", "name",
                            f"v{tag}b"], check=True)
            for ns, end in ((a, f"v{tag}a"), (b, f"v{tag}b")):
                subprocess.run(["ip", "link", "set", end, "netns", ns, "name", "eth0"], check=True)
        else:
            for ns in self.netns:
                # (no dummy driver in every kernel: a veth pair whose other end stays inside)
                subprocess.run(["ip", "-n", ns, "link", "add", "eth0", "type", "veth", "peer",
                                "name", "eth0peer"], check=True)
                subprocess.run(["ip", "-n", ns, "link", "set", "eth0peer", "up"], check=True)
        for box, ns in zip(self.boxes, self.netns):
            subprocess.run(["ip", "-n", ns, "addr", "add", f"{box.node.ip}/16", "dev", "eth0"],
                           check=True)
            subprocess.run(["ip", "-n", ns, "link", "set", "eth0", "up"], check=True)
            subprocess.run(["ip", "-n", ns, "route", "add", "default", "dev", "eth0"], check=True)

    def boot(self, timeout: float = 240, keep: bool = False) -> None:
        self._network()
        for box, ns in zip(self.boxes, self.netns):
            box.start(ns, keep=keep)
        for box in self.boxes:
            box.wait_booted(timeout)

    def failures(self) -> list[str]:
        return [f for box in self.boxes for f in box.failures(self.steps)]

    def agents_on(self, bucket_url: str) -> None:
        """Point every box's job agent (started by the boot's jobs step) at `bucket_url` (a
        file:// URL of the world's bucket folder, which every box sees at the same path) and
        restart it: the one deviation from the node's own configuration, as the box has no
        object store protocol stand-in for the agent's fsspec backend."""
        for box in self.boxes:
            result = box.exec(
                f"sed -i 's|^TS_BUCKET_URL=.*|TS_BUCKET_URL={bucket_url}|' /etc/trainstack/jobs.env"
                " && grep -q '^TS_BUCKET_URL=' /etc/trainstack/jobs.env"
                " && systemctl restart trainstack-jobs.service")
            if result.returncode != 0:
                raise RuntimeError(f"{box.node.name}: the job agent did not restart:\n"
                                   f"{result.stdout}{result.stderr}")

    def agent_logs(self) -> str:
        out = []
        for box in self.boxes:
            log = box.root / "var/log/box-unit-trainstack-jobs.service.log"
            if log.exists():
                out.append(f"--- {box.node.name} job agent\n" + log.read_text(errors="replace")[-4000:])
        return "\n".join(out)

    def close(self) -> None:
        for box in self.boxes:
            box.stop()
        for ns in self.netns:
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)
        self.netns = []
        for box in self.boxes:
            box.release()


def node_name(case: BoxCase, index: int) -> str:
    if case.extra.get("node_names"):
        return case.extra["node_names"][index]
    if case.cloud == "aws":
        return f"i-0b0x{index:013d}"
    return f"{case.name}-node-{index}"
