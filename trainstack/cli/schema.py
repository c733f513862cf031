"""`trainstack schema`: the JSON Schema of cluster.yaml.

The command prints cluster.schema.json, which `document()` generates from the spec models and
tests/cli/test_schema_file.py keeps equal to them: building the pydantic models and their JSON
Schema (and importing email_validator for the budget emails) cost more than the rest of the
command's start-up together (benchmarks/startup.py, target 2 x `import pydantic`). After a change
to components/spec.py, regenerate it:

    python -c "from trainstack.cli.schema import write; write()"
"""
from __future__ import annotations

import json
from pathlib import Path

SCHEMA_FILE = Path(__file__).with_name("cluster.schema.json")


def document() -> dict:
    """The JSON Schema of cluster.yaml, built from the spec models."""
    from trainstack_components.spec import ClusterSpec
    built = ClusterSpec.model_json_schema()
    built["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    built["title"] = "trainstack cluster.yaml"
    return built


def rendered() -> str:
    """The text the command prints, from the models (what SCHEMA_FILE must hold)."""
    return json.dumps(document(), indent=2, sort_keys=True) + "\n"


def write() -> None:
    SCHEMA_FILE.write_text(rendered())


def schema():
    """Print the JSON Schema of cluster.yaml (for editors and CI validation)."""
    print(SCHEMA_FILE.read_text(), end="")
