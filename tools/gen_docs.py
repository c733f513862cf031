"""Regenerate the examples in docs/cost.md and the generated blocks of the deploy guides
(docs/deploy/<cloud>.md, tools/deploy_docs.py) from the tool itself, so they cannot drift.

- The "Example (a real run)" block: `trainstack compare --spec examples/cluster.yaml`, as printed
  at DOC_WIDTH columns.
- The HTML report picture: docs/report.png is a screenshot of `compare --html` on
  docs/compare-example.yaml; docs/report.json holds the compare result the picture was taken
  from, so tests/repo/test_docs.py can tell when the picture no longer matches the tool.

`python tools/gen_docs.py` rewrites all three (the picture needs Debian's chromium);
`python tools/gen_docs.py --check` only says whether they are current (exit 1 if not).
"""
from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COST_MD = ROOT / "docs" / "cost.md"
REPORT_SPEC = "docs/compare-example.yaml"
REPORT_JSON = ROOT / "docs" / "report.json"
REPORT_PNG = ROOT / "docs" / "report.png"
EXAMPLE_COMMAND = "$ trainstack compare --spec examples/cluster.yaml\n"
DOC_WIDTH = 130


def _compare(*args: str, incomplete_ok: bool = False) -> str:
    """`trainstack compare ARGS` in this process, run from the repository root, its stdout."""
    import os

    from typer.testing import CliRunner

    from trainstack.cost import compare
    from trainstack.cli.app import app
    width, here = compare.out._width, os.getcwd()
    compare.out.width = DOC_WIDTH
    os.chdir(ROOT)
    try:
        result = CliRunner().invoke(app, ["compare", *args])
    finally:
        compare.out._width = width
        os.chdir(here)
    # exit 1: some cloud could not be planned; the report example shows such rows on purpose
    if result.exit_code != 0 and not (incomplete_ok and result.exit_code == 1):
        raise RuntimeError(f"trainstack compare {' '.join(args)} exited {result.exit_code}: "
                           f"{result.output}")
    return result.stdout


def example_block() -> str:
    return _compare("--spec", "examples/cluster.yaml")


def documented_block(text: str) -> str:
    start = text.index(EXAMPLE_COMMAND) + len(EXAMPLE_COMMAND)
    return text[start:text.index("```", start)]


def report_result() -> dict:
    """What the picture shows, without what changes with no change to the tool (dates)."""
    return json.loads(_compare("--spec", REPORT_SPEC, "--json", incomplete_ok=True))


def _canonical(result: dict) -> str:
    return json.dumps(result, indent=1, sort_keys=True) + "\n"


def screenshot(page: Path, png: Path) -> None:
    with tempfile.TemporaryDirectory() as profile:
        subprocess.run(["chromium", "--headless", "--no-sandbox", "--disable-gpu",
                        "--disable-dev-shm-usage", "--hide-scrollbars",
                        "--force-device-scale-factor=1", f"--user-data-dir={profile}",
                        "--window-size=1100,900", f"--screenshot={png}", page.as_uri()],
                       check=True, capture_output=True, timeout=180)


def _deploy_pages():
    sys.path.insert(0, str(ROOT / "tools"))
    import deploy_docs
    return deploy_docs


def stale() -> list[str]:
    out = []
    deploy_docs = _deploy_pages()
    for page in deploy_docs.PAGES.values():
        out += [f"{page.relative_to(ROOT)} block {name}"
                for name in deploy_docs.stale_blocks(page.read_text(encoding="utf-8"))]
    for page in deploy_docs.FACT_PAGES:
        out += [f"{page.relative_to(ROOT)}: {fact}"
                for fact in deploy_docs.wrong_facts(page.read_text(encoding="utf-8"))]
    text = COST_MD.read_text(encoding="utf-8")
    if documented_block(text) != example_block():
        out.append("docs/cost.md's example run")
    if not REPORT_JSON.is_file() or REPORT_JSON.read_text() != _canonical(report_result()):
        out.append("docs/report.png / docs/report.json")
    return out


def main(argv: list[str]) -> int:
    if "--check" in argv:
        behind = stale()
        for item in behind:
            print(f"stale: {item} (run python tools/gen_docs.py)")
        return 1 if behind else 0
    text = COST_MD.read_text(encoding="utf-8")
    COST_MD.write_text(text.replace(documented_block(text), example_block(), 1), encoding="utf-8")
    REPORT_JSON.write_text(_canonical(report_result()))
    deploy_docs = _deploy_pages()
    for page in deploy_docs.PAGES.values():
        page.write_text(deploy_docs.regenerate(page.read_text(encoding="utf-8")), encoding="utf-8")
    with tempfile.TemporaryDirectory() as folder:
        page = Path(folder) / "report.html"
        _compare("--spec", REPORT_SPEC, "--html", str(page), incomplete_ok=True)
        screenshot(page, REPORT_PNG)
    print("wrote docs/cost.md's example, docs/deploy/*.md's generated blocks, docs/report.json "
          "and docs/report.png")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main(sys.argv[1:]))
