"""The README's commands and spec, taken literally from README.md."""
import os
import re
import subprocess
import sys

from typer.testing import CliRunner

from tests.conftest import ROOT
from trainstack.cli import app

runner = CliRunner()
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _section(title: str) -> str:
    start = README.index(title)
    end = README.find("\n## ", start + 1)
    return README[start:end if end > 0 else None]


def test_the_readme_spec_block_copied_literally_passes_check(tmp_path):
    block = re.search(r"```yaml\n(name: .*?)```", _section("## The spec"), re.S).group(1)
    path = tmp_path / "cluster.yaml"
    path.write_text(block, encoding="utf-8")
    result = runner.invoke(app, ["check", "--spec", str(path)])
    assert result.exit_code == 0, result.output
    assert "ok: no mandatory policy is violated" in result.output


def test_the_quick_start_starts_with_init():
    block = re.search(r"```bash\n(.*?)```", _section("## Quick start"), re.S).group(1)
    commands = [line for line in block.splitlines() if line.startswith("trainstack")]
    assert commands[0].startswith("trainstack init")


def test_the_quick_start_runs_as_written(tmp_path):
    """Every line of the quick start, in order, in a fresh folder (`trainstack` on PATH is this
    checkout, as `source .venv/bin/activate` makes it)."""
    block = re.search(r"```bash\n(.*?)```", _section("## Quick start"), re.S).group(1)
    script = "\n".join(line for line in block.splitlines() if not line.startswith("source "))
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "trainstack"
    shim.write_text(f"#!/bin/sh\nexec {sys.executable} -m trainstack \"$@\"\n")
    shim.chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "PYTHONPATH": str(ROOT)}
    env.pop("TRAINSTACK_PROJECT", None)
    done = subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    project = tmp_path / "my-cluster"
    assert (project / "report.html").stat().st_size > 0
    assert '"resources"' in (project / "plan.json").read_text()
    assert (project / "cluster.schema.json").read_text().lstrip().startswith("{")
