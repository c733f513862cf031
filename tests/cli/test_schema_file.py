"""`trainstack schema` prints a generated file (trainstack/cli/cluster.schema.json) rather than
building the spec models at start-up: the file must be what the models give today."""
from __future__ import annotations

from trainstack.cli import schema


def test_the_schema_file_is_the_spec_models_schema():
    stored = schema.SCHEMA_FILE.read_text()
    assert stored == schema.rendered(), (
        "trainstack/cli/cluster.schema.json differs from the spec models' JSON Schema; "
        "regenerate it: python -c \"from trainstack.cli.schema import write; write()\"")


def test_the_command_prints_the_file_byte_for_byte(capsys):
    schema.schema()
    assert capsys.readouterr().out == schema.SCHEMA_FILE.read_text()
