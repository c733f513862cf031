"""Property test: a mutated valid spec either plans, or fails as bad input (a SpecError naming a
field, exit 2 from the CLI): never a traceback, never another exception.

A few hundred cases run in the normal suite; TRAINSTACK_FUZZ_EXAMPLES=2000 runs more. Most cases
take the in-process path every command starts with (read the file, parse, select per cloud);
a few run the whole `trainstack plan` through the CLI.
"""
import copy
import os
import tempfile
from pathlib import Path

import yaml
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from tests.conftest import EXAMPLE
from trainstack.cli.app import app
from trainstack_components.base import implemented_clouds, plan_selection
from trainstack_components.errors import SpecError
from trainstack_components.spec import ClusterSpec, parse_spec, read_spec_data

EXAMPLES = int(os.environ.get("TRAINSTACK_FUZZ_EXAMPLES", "300"))
BASE = yaml.safe_load(EXAMPLE.read_text())

VALUES = st.one_of(
    st.none(), st.booleans(),
    st.integers(min_value=-(10 ** 30), max_value=10 ** 30),
    st.sampled_from([0, -1, 1, 2 ** 63, 10 ** 400, 512, 513, 4800, 1e13, 1e400]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=30),
    st.text(alphabet=st.characters(codec="utf-8"), min_size=100, max_size=400),
    st.sampled_from(["13e9", "1e400", "-1", "NaN", ".inf", "H100", "H200", "B300", "us-east-1f",
                     "us-east-1-a", "us-central1a", "机器学习", "ML Team!", "[a-z]", "", " ",
                     "fastest", "rdma", "tcp", "spot", "reservation", "ml-ops@example.com"]),
    st.lists(st.one_of(st.text(max_size=8), st.integers()), max_size=4),
    st.dictionaries(st.text(max_size=8), st.one_of(st.text(max_size=8), st.integers()),
                    max_size=4),
)


def _paths(node, prefix=()):
    """Every place in the spec a mutation can touch: mapping keys and list items."""
    yield prefix
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _paths(value, prefix + (key,))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _paths(value, prefix + (index,))


PATHS = list(_paths(BASE))[1:]
MUTATION = st.tuples(st.sampled_from(["replace", "replace", "delete", "add"]),
                     st.sampled_from(PATHS), VALUES, st.text(min_size=1, max_size=12))


def _mutated(mutations) -> dict:
    spec = copy.deepcopy(BASE)
    for kind, path, value, new_key in mutations:
        parent = spec
        try:
            for step in path[:-1]:
                parent = parent[step]
            last = path[-1]
            if kind == "replace":
                parent[last] = value
            elif kind == "delete":
                del parent[last]
            elif isinstance(parent, dict):
                parent[new_key] = value
            elif isinstance(parent, list):
                parent.append(value)
        except (KeyError, IndexError, TypeError):
            continue  # an earlier mutation removed or replaced this path
    return spec


def _plans_or_names_a_field(data) -> None:
    try:
        spec = parse_spec(data, "cluster.yaml")
        for cloud in spec.clouds.configured():
            if cloud in implemented_clouds():
                plan_selection(spec, cloud)
        event("plans")
    except SpecError as err:
        root = err.field.split(".")[0]
        event("bad input: " + (root if root in ClusterSpec.model_fields else "another key/file"))
        assert isinstance(err.field, str) and err.field.strip(), err
        assert err.problem.strip(), err
        assert str(err).startswith(err.field)


@given(st.lists(MUTATION, min_size=1, max_size=4))
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_mutated_specs_plan_or_name_a_field(mutations):
    _plans_or_names_a_field(_mutated(mutations))


ENCODINGS = st.sampled_from(["utf-8", "utf-8-sig", "utf-16", "utf-16-le", "latin-1", "cp1252",
                             "utf-32"])


@given(st.lists(MUTATION, max_size=2), ENCODINGS, st.booleans())
@settings(max_examples=max(EXAMPLES // 3, 30), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
def test_mutated_spec_files_in_any_encoding_read_or_name_the_file(mutations, encoding, truncate):
    text = yaml.safe_dump(_mutated(mutations), allow_unicode=True, sort_keys=False)
    try:
        raw = text.encode(encoding)
    except UnicodeEncodeError:
        raw = text.encode(encoding, errors="replace")
    if truncate:
        raw = raw[: len(raw) * 2 // 3]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "cluster.yaml"
        path.write_bytes(raw)
        try:
            data = read_spec_data(path)
        except SpecError as err:
            event(f"file refused ({encoding})")
            assert err.field == str(path), err
            return
        _plans_or_names_a_field(data)


runner = CliRunner()


@given(st.lists(MUTATION, min_size=1, max_size=3), st.sampled_from(["aws", "gcp"]))
@settings(max_examples=max(EXAMPLES // 40, 6), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
def test_mutated_specs_through_the_whole_plan_command(mutations, cloud):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "cluster.yaml"
        path.write_text(yaml.safe_dump(_mutated(mutations), allow_unicode=True), encoding="utf-8")
        result = runner.invoke(app, ["plan", "--spec", str(path), "--cloud", cloud, "--json"])
    assert result.exit_code in (0, 2), result.output
    event(f"exit {result.exit_code}")
    if result.exit_code == 2:
        assert result.output.startswith("error: "), result.output
        assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
