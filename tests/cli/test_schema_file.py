"""`trainstack schema` prints a generated file (trainstack/cli/cluster.schema.json) rather than
building the spec models at start-up: the file must be what the models give today."""
from __future__ import annotations

import subprocess
import sys

from tests.conftest import ROOT
from trainstack.cli import schema


def test_the_schema_file_is_the_spec_models_schema():
    stored = schema.SCHEMA_FILE.read_text()
    assert stored == schema.rendered(), (
        "trainstack/cli/cluster.schema.json differs from the spec models' JSON Schema; "
        "regenerate it: python -c \"from trainstack.cli.schema import write; write()\"")


def test_the_command_prints_the_file_byte_for_byte(capsys):
    schema.schema()
    assert capsys.readouterr().out == schema.SCHEMA_FILE.read_text()


def test_the_command_line_prints_the_file_without_building_the_models():
    """`trainstack schema` alone is answered before typer (whose option coercion imports all of
    pydantic): the same bytes as the file, exit 0, and neither the spec models nor pydantic's
    model machinery loaded (the start-up target of benchmarks/startup.py)."""
    probe = ("import sys, runpy; sys.argv = ['trainstack', 'schema']\n"
             "try:\n    runpy.run_module('trainstack', run_name='__main__')\n"
             "except SystemExit as e:\n    assert not e.code, e.code\n"
             "sys.stderr.write(' '.join(sorted(sys.modules)))")
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout == schema.SCHEMA_FILE.read_text()
    loaded = set(done.stderr.split())
    assert not loaded & {"trainstack_components.spec", "pydantic.main", "email_validator"}, \
        sorted(loaded & {"trainstack_components.spec", "pydantic.main", "email_validator"})
