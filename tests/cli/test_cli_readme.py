"""The README's commands and spec, taken literally from README.md."""
import re

from typer.testing import CliRunner

from tests.conftest import ROOT
from trainstack.cli.app import app

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


def _run_line(line: str, monkeypatch) -> None:
    """One quick-start line, in this process: `a && b`, `cd DIR`, `trainstack ...` and a final
    `> FILE` are all the shell the quick start uses (anything else fails the test, so the README
    cannot grow shell this runner does not follow). In-process, because a fresh interpreter per
    line re-imports every provider SDK (38 s for 8 lines); `trainstack` as a console script in
    a real shell is tests/cli/test_bad_input.py's test_console_script_prints_no_traceback."""
    import shlex
    words = shlex.split(line, comments=True)
    commands, current = [], []
    for word in words + ["&&"]:
        if word == "&&":
            commands.append(current)
            current = []
        else:
            current.append(word)
    for command in filter(None, commands):
        if command[0] == "cd" and len(command) == 2:
            monkeypatch.chdir(command[1])
            continue
        assert command[0] == "trainstack", f"the quick start uses shell this test cannot run: {line}"
        target = None
        if ">" in command:
            at = command.index(">")
            assert at == len(command) - 2, line
            command, target = command[:at], command[at + 1]
        result = runner.invoke(app, command[1:])
        assert result.exit_code == 0, f"{line}\n{result.output}"
        if target:
            with open(target, "w", encoding="utf-8") as out:
                out.write(result.stdout)


def test_the_quick_start_runs_as_written(tmp_path, monkeypatch):
    """Every line of the quick start, in order, in a fresh folder (`trainstack` is this
    checkout, as `source .venv/bin/activate` makes it)."""
    block = re.search(r"```bash\n(.*?)```", _section("## Quick start"), re.S).group(1)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TRAINSTACK_PROJECT", raising=False)
    for line in block.splitlines():
        if line.strip() and not line.startswith("source "):
            _run_line(line, monkeypatch)
    project = tmp_path / "my-cluster"
    assert (project / "report.html").stat().st_size > 0
    assert '"resources"' in (project / "plan.json").read_text()
    assert (project / "cluster.schema.json").read_text().lstrip().startswith("{")
