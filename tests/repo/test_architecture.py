"""ARCHITECTURE.md says what the tree is (issue 30): its layers are the import-linter contract's,
every command sits where its table says, and the README links it."""
from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGE = (ROOT / "ARCHITECTURE.md").read_text()


def section(title: str) -> str:
    return PAGE.split(f"## {title}\n", 1)[1].split("\n## ", 1)[0]


def test_the_readme_links_the_page_near_its_top():
    head = (ROOT / "README.md").read_text().splitlines()[:15]
    assert any("(ARCHITECTURE.md)" in line for line in head)


def test_the_layers_are_the_contracts_layers():
    block = section("Layers and rules").split("```\n", 2)[1]
    stated = [" | ".join(part.strip() for part in line.split("|")) for line in block.splitlines()]
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    (layers,) = [c for c in config["contracts"] if c["type"] == "layers"]
    assert layers["containers"] == ["trainstack"]
    assert stated == [" | ".join(p.strip() for p in line.split("|")) for line in layers["layers"]]
    for line in stated:   # each layer is a package (or module) of trainstack/
        for name in line.split(" | "):
            assert (ROOT / "trainstack" / name).is_dir() or (ROOT / "trainstack" / f"{name}.py").is_file(), name


def command_table() -> dict[str, tuple[str, str]]:
    rows = re.findall(r"^\| `([a-z-]+)` \| `([\w/]+\.py)` \| `(\w+)` \|$",
                      section("Where each command lives"), re.M)
    return {command: (path, function) for command, path, function in rows}


def test_every_command_lives_where_the_table_says():
    from trainstack.cli.app import COMMANDS
    table = command_table()
    assert set(table) == set(COMMANDS)
    for command, (path, function) in table.items():
        source = ROOT / path
        assert source.is_file(), path
        defined = {node.name for node in ast.parse(source.read_text()).body
                   if isinstance(node, ast.FunctionDef)}
        assert function in defined, f"{path} defines no {function}() for `{command}`"
        entry = COMMANDS[command]
        assert (entry.module.replace(".", "/") + ".py", entry.function) == (path, function), command
