"""The README's commands and spec, taken literally from README.md."""
import re

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
