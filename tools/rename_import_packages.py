"""Install the `components/` and `policies/` folders as `trainstack_components` and
`trainstack_policies`, so that trainstack squats no generic top-level import name.

The folders stay where the design card puts them (top of the repository); only the import
names change. What it does, in one run, idempotently (a second run changes nothing):

1. pyproject.toml: `package-dir` maps each new name onto its folder, `packages` lists every
   package under both folders (plus trainstack's) by the new names, and package-data keys follow.
2. Every Python file of the repository: `import components...` / `from components... import`
   (same for policies), dotted references in strings and docstrings (`"components.aws.cloud"`,
   `components.program.run`, monkeypatch targets), and a few literals that name the package as a
   string (the pack's own registration in policies/__main__.py, trainstack's POLICY_PACK_PACKAGE,
   tests that list import names).
3. Markdown: dotted module references (`components.program.run`).
4. Checks that no `import components` / `from policies ...` is left, and says what it changed.

Run from anywhere: `python tools/rename_import_packages.py [--check]` (`--check`: exit 1 if the
tree is not yet renamed, change nothing). After applying it to a checkout with an editable
install, reinstall (`pip install -e . --no-deps`) so the editable finder knows the new names.
"""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RENAMES = {"components": "trainstack_components", "policies": "trainstack_policies"}
SKIP_PARTS = {".git", ".venv", "venv", "node_modules", "__pycache__", "build", ".ci",
              ".hypothesis", ".pulumi-state"}
THIS = Path(__file__).resolve()
# Its own test names the squatting packages on purpose.
SKIP_FILES = {THIS, ROOT / "tests" / "test_rename_import_packages.py"}
FILE_SUFFIXES = "(?:md|py|yaml|yml|csv|json|txt|toml|html|png)"  # `policies.md` is a file

# Literals that name a package as a bare string; (file, old, new), applied where present.
LITERALS = [
    ("policies/__main__.py", 'spec_from_file_location("policies",',
     'spec_from_file_location("trainstack_policies",'),
    ("policies/__main__.py", 'sys.modules["policies"]', 'sys.modules["trainstack_policies"]'),
    ("trainstack/deploy/lifecycle.py", 'POLICY_PACK_PACKAGE = "policies"',
     'POLICY_PACK_PACKAGE = "trainstack_policies"'),
    ("tests/policies/test_policy_pack_selfcontained.py", '{"trainstack", "components"}',
     '{"trainstack", "trainstack_components"}'),
    ("tests/policies/test_policy_pack_selfcontained.py", '("trainstack", "components", "jsonschema")',
     '("trainstack", "trainstack_components", "jsonschema")'),
]


def _files(suffix: str) -> list[Path]:
    tracked = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard",
                              f"*{suffix}"], cwd=ROOT, capture_output=True, text=True)
    if tracked.returncode == 0:
        paths = [ROOT / line for line in tracked.stdout.splitlines() if line]
    else:  # not a git checkout (a copy): walk it
        paths = list(ROOT.rglob(f"*{suffix}"))
    return sorted(p for p in paths if p.is_file() and p.resolve() not in SKIP_FILES
                  and not SKIP_PARTS & set(p.relative_to(ROOT).parts))


def _packages(folder: str) -> list[str]:
    """Every package (a folder with __init__.py) under `folder`, by its installed name."""
    base = ROOT / folder
    found = []
    for init in sorted(base.rglob("__init__.py")):
        rel = init.parent.relative_to(base).parts
        if SKIP_PARTS & set(rel):
            continue
        found.append(".".join((RENAMES.get(folder, folder), *rel)))
    return found


def _submodules(folder: str) -> list[str]:
    base = ROOT / folder
    names = {p.stem for p in base.glob("*.py") if p.stem != "__init__"}
    names |= {p.name for p in base.iterdir() if (p / "__init__.py").is_file()}
    return sorted(names, key=len, reverse=True)


def rewrite_python(text: str) -> str:
    for old, new in RENAMES.items():
        # import statements (also inside code held in strings, e.g. a template __main__.py)
        text = re.sub(rf"(?m)(^|[\s;\"'(])from {old}((?:\.\w+)*) import ", rf"\1from {new}\2 import ", text)
        # `import policies` keeps the name the code uses; `import components.x` is dotted below
        text = re.sub(rf"(?m)^(\s*)import {old}(?=\s*(?:#.*)?$)", rf"\1import {new} as {old}", text)
        text = re.sub(rf"(?m)^(\s*)import {old}(?=[.,\s])", rf"\1import {new}", text)
        text = re.sub(rf"(,\s*){old}\.(?=\w)", rf"\1{new}.", text)  # import a.b, components.c
        # dotted references: "components.aws.cloud", f"components.{cloud}", components.program.run
        text = re.sub(rf"(?<=[\"'`])({old})\.(?=[\w{{])(?!{FILE_SUFFIXES}\b)", new + ".", text)
        subs = "|".join(map(re.escape, _submodules(old)))
        text = re.sub(rf"(?<![\w./-]){old}\.(?=(?:{subs})\b)", new + ".", text)
    return text


def rewrite_markdown(text: str) -> str:
    for old, new in RENAMES.items():
        subs = "|".join(map(re.escape, _submodules(old)))
        text = re.sub(rf"(?<![\w./-]){old}\.(?=(?:{subs})\b(?!\.{FILE_SUFFIXES}\b))",
                      new + ".", text)
        text = re.sub(rf"`from {old}((?:\.\w+)*) import", rf"`from {new}\1 import", text)
    return text


def rewrite_pyproject(text: str) -> str:
    packages = [*_packages("components"), *_packages("policies"), *_packages("trainstack")]
    listing = "packages = [\n" + "".join(f'  "{p}",\n' for p in packages) + "]\n"
    block = ("[tool.setuptools]\n"
             "# The folders components/ and policies/ install as trainstack_components and\n"
             "# trainstack_policies (tools/rename_import_packages.py): no generic top-level name.\n"
             'package-dir = {"trainstack_components" = "components", '
             '"trainstack_policies" = "policies"}\n' + listing)
    find = re.compile(r"\[tool\.setuptools\.packages\.find\]\ninclude = \[[^\]]*\]\n")
    existing = re.compile(r"\[tool\.setuptools\]\n(?:#[^\n]*\n)*package-dir = [^\n]*\n"
                          r"packages = \[\n(?:  \"[\w.]+\",\n)*\]\n")
    if find.search(text):
        text = find.sub(lambda _: block, text, count=1)
    elif existing.search(text):  # already renamed: refresh the package list
        text = existing.sub(lambda _: block, text, count=1)
    else:
        raise SystemExit("pyproject.toml: found neither [tool.setuptools.packages.find] nor the "
                         "renamed [tool.setuptools] block; fix it by hand")
    for old, new in RENAMES.items():  # package-data keys
        text = re.sub(rf'(?m)^"{old}(\.[\w.]+)?" =', rf'"{new}\1" =', text)
    if "[tool.ruff.lint.isort]" not in text:
        # No folder is called trainstack_components, so ruff would take it for a third party.
        text = text.rstrip("\n") + ("\n\n[tool.ruff.lint.isort]\nknown-first-party = "
                                   '["trainstack", "trainstack_components", "trainstack_policies"]\n')
    return text


def _tidy(paths: list[Path]) -> None:
    """Imports re-sorted (the new names sort elsewhere), with ruff where it is installed;
    without it the code still runs, only the lint differs."""
    import shutil
    ruff = shutil.which("ruff") or str(Path(sys.executable).with_name("ruff"))
    if not Path(ruff).is_file() or not paths:
        print("ruff not found: imports were not re-sorted (run `ruff check --fix --select I`)")
        return
    subprocess.run([ruff, "check", "--fix", "--select", "I", "--quiet", *map(str, paths)],
                   cwd=ROOT, capture_output=True, text=True)


def leftovers() -> list[str]:
    bad = []
    pattern = re.compile(r"(?m)^\s*(from (components|policies)(\.\w+)* import|"
                         r"import (components|policies)\b)")
    for path in _files(".py"):
        for match in pattern.finditer(path.read_text(encoding="utf-8")):
            bad.append(f"{path.relative_to(ROOT)}: {match.group(0).strip()}")
    return bad


def main(argv: list[str]) -> int:
    changes: dict[Path, str] = {}
    for path in _files(".py"):
        text = path.read_text(encoding="utf-8")
        new = rewrite_python(text)
        for rel, old, replacement in LITERALS:
            if path == ROOT / rel and old in new and replacement not in new:
                new = new.replace(old, replacement)
        if new != text:
            changes[path] = new
    for path in _files(".md"):
        text = path.read_text(encoding="utf-8")
        new = rewrite_markdown(text)
        if new != text:
            changes[path] = new
    pyproject = ROOT / "pyproject.toml"
    text = pyproject.read_text(encoding="utf-8")
    new = rewrite_pyproject(text)
    if new != text:
        changes[pyproject] = new
    if "--check" in argv:
        for path in changes:
            print(f"not renamed yet: {path.relative_to(ROOT)}")
        return 1 if changes else 0
    for path, new in changes.items():
        path.write_text(new, encoding="utf-8")
        print(f"rewrote {path.relative_to(ROOT)}")
    _tidy([p for p in changes if p.suffix == ".py"])
    bad = leftovers()
    for line in bad:
        print(f"left over (fix by hand): {line}", file=sys.stderr)
    print(f"{len(changes)} file(s) changed" + ("" if changes else " (already renamed)"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
