"""Make every test import the code of the checkout it lives in.

components/ and policies/ install as trainstack_components and trainstack_policies; the editable
install maps those names to the folders of the tree that was installed. A tree that was not
installed (a git worktree, mutmut's mutants/ copy, a planted-bug copy) would otherwise test the
installed tree's code without a word. `activate()` builds build/import_root/ (two symlinks under
the importable names), puts it and the checkout first on sys.path, and exports the same as
PYTHONPATH so subprocesses import this tree too; subprocess tests pass PYTHONPATH on from here.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
IMPORT_ROOT = ROOT / "build" / "import_root"
PYTHONPATH = os.pathsep.join([str(IMPORT_ROOT), str(ROOT)])
LINKS = {"trainstack_components": "components", "trainstack_policies": "policies"}


def activate() -> None:
    IMPORT_ROOT.mkdir(parents=True, exist_ok=True)
    for name, folder in LINKS.items():
        link = IMPORT_ROOT / name
        if (ROOT / name).is_dir():
            # The tree already holds the package under its import name: the mutation benchmark's
            # copy (benchmarks/mutation_score.py), where mutmut names each mutant by its file's
            # path and must find that name on the running function. That folder is the code.
            link.unlink(missing_ok=True)
            continue
        if not link.is_symlink() or link.resolve() != (ROOT / folder).resolve():
            tmp = IMPORT_ROOT / f".{name}.{os.getpid()}"
            tmp.unlink(missing_ok=True)
            tmp.symlink_to(ROOT / folder, target_is_directory=True)
            os.replace(tmp, link)   # atomic: xdist workers may race here
    for entry in reversed(PYTHONPATH.split(os.pathsep)):
        if entry in sys.path:
            sys.path.remove(entry)
        sys.path.insert(0, entry)
    inherited = os.environ.get("PYTHONPATH", "")
    if not inherited.startswith(PYTHONPATH):
        os.environ["PYTHONPATH"] = PYTHONPATH + (os.pathsep + inherited if inherited else "")
