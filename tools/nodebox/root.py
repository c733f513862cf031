"""The box's root file system: Debian bookworm, mmdebstrap --variant=minbase plus the few
packages every node image here has (a shell, curl, gnupg, python3, iproute2). Built once and
kept as a tarball under ~/.cache/trainstack-nodebox (or $TRAINSTACK_BOX_CACHE), keyed by the
package list, so a second run (and CI with a cache) extracts it in seconds. A box's root is an
overlay mount (`box_root`): the tarball extracted once beside it (`root_tree`, never written) under
a folder of the box's own that takes every write, so a box costs no extraction; where the kernel
refuses an overlay (or TRAINSTACK_BOX_EXTRACT=1) the box gets its own extracted copy as before."""
from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
from pathlib import Path

SUITE = "bookworm"
# What every default node image holds (all are Ubuntu server images with cloud-init): a shell,
# curl and gnupg (the boot fetches keys with them), python3 (the idle and preemption agents run
# on it), the network and mount tools. python3-venv is NOT here: stock images lack it
# (tools/nodebox/images.py installs it only where the image's manifest says it is present).
BASE_PACKAGES = ("bash", "ca-certificates", "curl", "gnupg", "python3", "iproute2", "procps",
                 "mount", "util-linux", "kmod")
# Debian packages the stand-in archive serves as themselves (real .debs, fetched once with
# `apt-get download`): a boot that installs python3-venv gets the real one.
REAL_DEBS = ("python3-venv", "python3.11-venv", "python3-pip-whl", "python3-setuptools-whl",
             "python3-distutils", "python3-lib2to3")


def cache_dir() -> Path:
    path = Path(os.environ.get("TRAINSTACK_BOX_CACHE") or Path.home() / ".cache" / "trainstack-nodebox")
    path.mkdir(parents=True, exist_ok=True)
    return path


class ToolMissing(RuntimeError):
    """A host tool the box needs is not installed (the tests fail on it, never skip)."""


def need(*commands: str) -> None:
    missing = [c for c in commands if shutil.which(c) is None]
    if missing:
        raise ToolMissing(f"the node box needs {', '.join(missing)} on this machine "
                          "(Debian packages mmdebstrap, bubblewrap, iproute2, dpkg-dev, gnupg, "
                          "openssl; .ci/run installs them)")


def _locked(name: str):
    lock = open(cache_dir() / f".{name}.lock", "w")
    fcntl.flock(lock, fcntl.LOCK_EX)
    return lock


def root_tarball(packages=BASE_PACKAGES) -> Path:
    """The cached root tarball for `packages`, built on first use."""
    need("mmdebstrap")
    key = hashlib.sha256(" ".join([SUITE, *sorted(packages)]).encode()).hexdigest()[:16]
    target = cache_dir() / f"root-{SUITE}-{key}.tar"
    if target.exists():
        return target
    with _locked("root"):
        if target.exists():
            return target
        partial = target.with_suffix(".partial.tar")
        result = subprocess.run(
            ["mmdebstrap", "--variant=minbase", "--quiet", f"--include={','.join(packages)}",
             SUITE, str(partial)], capture_output=True, text=True)
        if result.returncode != 0:
            raise RuntimeError(f"mmdebstrap failed building the box root:\n{result.stderr[-3000:]}")
        partial.rename(target)
    return target


def real_debs() -> Path:
    """A folder with the REAL_DEBS .deb files (downloaded once)."""
    folder = cache_dir() / "debs"
    with _locked("debs"):
        have = {p.name.split("_")[0] for p in folder.glob("*.deb")} if folder.exists() else set()
        missing = [d for d in REAL_DEBS if d not in have]
        if missing:
            folder.mkdir(exist_ok=True)
            result = subprocess.run(["apt-get", "download", *missing], cwd=folder,
                                    capture_output=True, text=True)
            if result.returncode != 0:
                raise RuntimeError(f"apt-get download {' '.join(missing)} failed:\n"
                                   f"{result.stderr[-2000:]}")
    return folder


def extract(tarball: Path, into: Path) -> None:
    into.mkdir(parents=True, exist_ok=True)
    subprocess.run(["tar", "-xf", str(tarball), "-C", str(into)], check=True)


def root_tree(tarball: Path) -> Path:
    """`tarball` extracted once, beside it: the lower layer of every box's overlay. Redone when
    the tarball changed (its size and modification time are kept with the tree)."""
    tree = tarball.with_name(tarball.stem + ".tree")
    done = tarball.with_name(tarball.stem + ".tree.done")
    stamp = f"{tarball.stat().st_size} {tarball.stat().st_mtime_ns}\n"
    if tree.is_dir() and done.exists() and done.read_text() == stamp:
        return tree
    with _locked("tree"):
        if tree.is_dir() and done.exists() and done.read_text() == stamp:
            return tree
        done.unlink(missing_ok=True)
        shutil.rmtree(tree, ignore_errors=True)       # a partial or stale extraction
        extract(tarball, tree)
        done.write_text(stamp)
    return tree


def box_root(tarball: Path, into: Path) -> bool:
    """Give `into` the root in `tarball`: an overlay of `root_tree` (read-only, shared by every
    box) under `into`.upper (this box's writes) where the kernel allows one, True; else `into`
    gets its own extracted copy, False. An overlay is unmounted with `release_root`."""
    if os.environ.get("TRAINSTACK_BOX_EXTRACT") != "1":
        tree = root_tree(tarball)
        upper, work = into.with_name(into.name + ".upper"), into.with_name(into.name + ".work")
        for folder in (into, upper, work):
            folder.mkdir(parents=True, exist_ok=True)
        mounted = subprocess.run(
            ["mount", "-t", "overlay", "overlay", "-o",
             f"lowerdir={tree},upperdir={upper},workdir={work}", str(into)], capture_output=True)
        if mounted.returncode == 0:
            return True
    extract(tarball, into)
    return False


def release_root(into: Path) -> None:
    """Unmount a box's overlay root (lazily if something still holds it); its writes stay in
    `into`.upper."""
    if subprocess.run(["umount", str(into)], capture_output=True).returncode != 0:
        subprocess.run(["umount", "-l", str(into)], capture_output=True)


def agent_wheels(checkout: Path | None = None) -> Path:
    """The wheels (or, where PyPI has none, the sdists) of every package the job agent's lock
    files name (components/boot/agent_requirements/*.txt), fetched once from PyPI for CPython
    3.11 on x86_64: the box's PyPI serves these and nothing else."""
    import sys
    checkout = checkout or Path(__file__).resolve().parents[2]
    folder = cache_dir() / "wheels"
    folder.mkdir(exist_ok=True)
    locks = sorted((checkout / "components/boot/agent_requirements").glob("*.txt"))
    key = hashlib.sha256(b"".join(p.read_bytes() for p in locks)).hexdigest()[:16]
    done = folder / f".done-{key}"
    if done.exists():
        return folder
    pip = [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "-d", str(folder)]
    binary = ["--only-binary=:all:", "--python-version", "3.11", "--implementation", "cp",
              "--abi", "cp311", "--platform", "manylinux2014_x86_64", "--platform",
              "manylinux_2_17_x86_64", "--platform", "manylinux_2_28_x86_64"]
    with _locked("wheels"):
        for lock in locks:
            pins = [line.strip() for line in lock.read_text().splitlines()
                    if line.strip() and not line.startswith("#")]
            for pin in pins:
                if subprocess.run([*pip, *binary, pin], capture_output=True).returncode == 0:
                    continue
                result = subprocess.run([*pip, "--no-binary", ":all:", pin], capture_output=True,
                                        text=True)
                if result.returncode != 0:
                    raise RuntimeError(f"pip download {pin} (for {lock.name}) failed:\n"
                                       f"{result.stderr[-2000:]}")
        done.write_text("\n".join(p.name for p in locks) + "\n")
    return folder


def prepare() -> None:
    """What CI builds before the box tests (cached where $TRAINSTACK_BOX_CACHE is kept)."""
    print(f"node box root: {root_tarball()}")
    print(f"its tree (the boxes' shared lower layer): {root_tree(root_tarball())}")
    print(f"real .debs: {real_debs()}")
    print(f"agent wheels: {agent_wheels()}")
