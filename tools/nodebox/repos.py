"""Package repositories that behave like apt's, because they ARE apt's: real Release files signed
with their own GPG key (InRelease), served by the world on the repository's own host name. The
box's apt then refuses a source whose key the boot did not import (NO_PUBKEY) and a package a
source does not carry ("Unable to locate package"). The packages are dummy .debs built with
dpkg-deb that put the commands, units and kernel modules the real ones provide (the stand-ins
of tools/nodebox/standins where a command must answer), except REAL_DEBS, served as themselves.
"""
from __future__ import annotations

import gzip
import hashlib
import os
import shutil
import subprocess
from dataclasses import dataclass, field
from email.utils import formatdate
from pathlib import Path

from tools.nodebox.root import cache_dir, need

STANDINS = Path(__file__).with_name("standins")


@dataclass(frozen=True)
class Deb:
    name: str
    version: str = "1.0-box1"
    # path -> text content, or "standin:NAME" for a stand-in script; mode 0755 when executable
    files: dict = field(default_factory=dict)
    depends: str = ""

    def build(self, into: Path) -> Path:
        work = into / f".build-{self.name}"
        shutil.rmtree(work, ignore_errors=True)
        (work / "DEBIAN").mkdir(parents=True)
        control = (f"Package: {self.name}\nVersion: {self.version}\nArchitecture: all\n"
                   f"Maintainer: trainstack node box <box@invalid>\n"
                   f"Description: node-box stand-in for {self.name}\n")
        if self.depends:
            control += f"Depends: {self.depends}\n"
        (work / "DEBIAN" / "control").write_text(control)
        for path, content in self.files.items():
            target = work / path.lstrip("/")
            target.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                target.write_bytes(content)
                target.chmod(0o644)
            elif content.startswith("standin:"):
                shutil.copy(STANDINS / content.split(":", 1)[1], target)
                target.chmod(0o755)
            else:
                target.write_text(content)
                target.chmod(0o755 if content.startswith("#!") else 0o644)
        out = into / f"{self.name}_{self.version}_all.deb"
        subprocess.run(["dpkg-deb", "--root-owner-group", "-Zgzip", "-b", str(work), str(out)],
                       check=True, capture_output=True)
        shutil.rmtree(work)
        return out


def gpg_home() -> Path:
    home = cache_dir() / "gnupg"
    home.mkdir(mode=0o700, exist_ok=True)
    return home


def signing_key(name: str) -> str:
    """The key id (uid `box-<name>`), made once and kept in the cache."""
    need("gpg")
    env = {**os.environ, "GNUPGHOME": str(gpg_home())}
    uid = f"box-{name} <{name}@box.invalid>"
    listed = subprocess.run(["gpg", "--batch", "--list-keys", "--with-colons", uid],
                            capture_output=True, text=True, env=env)
    if listed.returncode != 0:
        subprocess.run(["gpg", "--batch", "--passphrase", "", "--quick-gen-key", uid, "ed25519",
                        "sign", "never"], check=True, capture_output=True, env=env)
    return uid


def export_key(name: str, armor: bool) -> bytes:
    env = {**os.environ, "GNUPGHOME": str(gpg_home())}
    return subprocess.run(["gpg", "--batch", "--export", *(["--armor"] if armor else []),
                           signing_key(name)], check=True, capture_output=True, env=env).stdout


@dataclass(frozen=True)
class Repo:
    host: str            # https://HOST/...
    base: str            # path under the host: ubuntu, apt, ...
    suite: str           # a dists/ suite, or "/" for a flat repository
    key: str             # signing key name ("" = unsigned)
    debs: tuple[Deb, ...]
    component: str = "main"
    real: tuple[Path, ...] = ()   # real .deb files served as they are
    empty_components: tuple[str, ...] = ()   # listed, with no packages (Ubuntu's universe)
    arch: str = "amd64"   # the index's architecture ("all": a repository of arch-all packages)

    def build(self, sites: Path) -> None:
        root = sites / self.host / self.base.strip("/")
        pool = root / "pool"
        pool.mkdir(parents=True, exist_ok=True)
        for deb in self.debs:
            deb.build(pool)
        for path in self.real:
            shutil.copy(path, pool / path.name)
        if self.suite == "/":
            index_dir, release_dir, rel = root, root, "pool"
        else:
            release_dir = root / "dists" / self.suite
            index_dir = release_dir / self.component / f"binary-{self.arch}"
            rel = "pool"
        index_dir.mkdir(parents=True, exist_ok=True)
        packages = subprocess.run(["dpkg-scanpackages", "-m", rel, "/dev/null"], cwd=root,
                                  check=True, capture_output=True).stdout
        (index_dir / "Packages").write_bytes(packages)
        (index_dir / "Packages.gz").write_bytes(gzip.compress(packages, mtime=0))
        indexes = [index_dir]
        for component in self.empty_components:
            empty = release_dir / component / "binary-amd64"
            empty.mkdir(parents=True, exist_ok=True)
            (empty / "Packages").write_bytes(b"")
            (empty / "Packages.gz").write_bytes(gzip.compress(b"", mtime=0))
            indexes.append(empty)
        sums = []
        for folder in indexes:
            for f in ("Packages", "Packages.gz"):
                data = (folder / f).read_bytes()
                relpath = (folder / f).relative_to(release_dir)
                sums.append(f" {hashlib.sha256(data).hexdigest()} {len(data)} {relpath}")
        release = (f"Origin: box-{self.key or 'unsigned'}\nLabel: {self.host}\n"
                   + (f"Suite: {self.suite}\nCodename: {self.suite}\n"
                      f"Components: {' '.join((self.component, *self.empty_components))}\n"
                      if self.suite != "/" else "")
                   + f"Date: {formatdate(usegmt=True)}\nArchitectures: amd64 all\nSHA256:\n"
                   + "\n".join(sums) + "\n")
        (release_dir / "Release").write_text(release)
        if self.key:
            env = {**os.environ, "GNUPGHOME": str(gpg_home())}
            uid = signing_key(self.key)
            for args, out in ((["--clearsign"], "InRelease"), (["--detach-sign", "--armor"], "Release.gpg")):
                subprocess.run(["gpg", "--batch", "--yes", "--local-user", uid, *args, "-o",
                                str(release_dir / out), str(release_dir / "Release")],
                               check=True, capture_output=True, env=env)


def put(sites: Path, url: str, data: bytes | str) -> None:
    """Serve `data` at https URL `url` (or http: the world serves both on the same host table)."""
    rest = url.split("://", 1)[1]
    host, _, path = rest.partition("/")
    target = sites / host / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data.encode() if isinstance(data, str) else data)
