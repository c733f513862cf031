"""A user's YAML and text files, read as users save them: the spec, Pulumi.yaml, stack files,
the policy config. Apart from the spec model (spec.py), so that reading a project's Pulumi.yaml or
a stack file (every command finds its project first) builds no pydantic model: `trainstack reap`,
`status` and `connect` start about 0.15 CPU s sooner."""
from __future__ import annotations

from pathlib import Path

import yaml

from trainstack_components.errors import SpecError

# Where a project made by `trainstack init` (which has no examples/ folder) finds a good start.
START_HINT = ("Start from the cluster.yaml `trainstack init` writes, or `trainstack schema` for "
              "every field.")


class _UniqueKeyLoader(yaml.SafeLoader):
    """PyYAML's safe loader, except that a key given twice in one mapping is an error: the
    plain loader keeps the last value silently (`nodes: 2` ... `nodes: 7` builds 7 nodes)."""

    def construct_mapping(self, node, deep=False):
        if isinstance(node, yaml.MappingNode):
            seen: dict = {}
            for key_node, _ in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    continue
                key = self.construct_object(key_node, deep=True)
                try:
                    first = seen.get(key)
                except TypeError:  # an unhashable key; the base class reports it
                    continue
                if first is not None:
                    raise yaml.constructor.ConstructorError(
                        None, None, f"the key {key!r} appears twice (first at line {first + 1})",
                        key_node.start_mark)
                seen[key] = key_node.start_mark.line
        return super().construct_mapping(node, deep)


MAX_TEXT_BYTES = 16 * 2**20   # read_text's limit: a spec is a few kB, a catalog-sized file 1 MB
_BOMS = ((b"\xef\xbb\xbf", "utf-8-sig"), (b"\xff\xfe", "utf-16"), (b"\xfe\xff", "utf-16"))


def read_text(path: Path, what: str = "file") -> str:
    """A text file as users save it: UTF-8, or UTF-8/UTF-16 with a byte-order mark (PowerShell's
    `>` and `Out-File` write UTF-16 LE with a BOM). Anything else is a SpecError naming the file."""
    if path.is_dir():
        raise SpecError(str(path), f"is a directory, not a {what}.",
                        f"Pass the path of the {what} itself.")
    if not path.exists():
        raise SpecError(str(path), "does not exist.", f"Check the path of the {what}.")
    # A device or a pipe (`/dev/null`, `<(cat spec.yaml)`) exists and is read as it is: an empty
    # one is then named as empty, never as missing. Only so much is read: `/dev/zero` or
    # `/dev/urandom` never end, and no spec, stack file or policy config comes near the limit.
    try:
        with path.open("rb") as handle:
            raw = handle.read(MAX_TEXT_BYTES + 1)
    except OSError as err:
        raise SpecError(str(path), f"cannot be read ({err.strerror}).",
                        "Check the file's permissions.") from None
    if len(raw) > MAX_TEXT_BYTES:
        raise SpecError(str(path), f"is larger than {MAX_TEXT_BYTES // 2**20} MiB, so it is not "
                        f"a {what}.", f"Pass the {what} itself.")
    encoding = next((enc for bom, enc in _BOMS if raw.startswith(bom)), "utf-8")
    try:
        text = raw.decode(encoding)
    except UnicodeDecodeError as err:
        raise SpecError(str(path), f"is not {encoding.upper().replace('-SIG', '')} text (byte "
                        f"0x{raw[err.start]:02x} at offset {err.start}).",
                        f"Pass a text file: save the {what} as UTF-8 (UTF-16 with a "
                        "byte-order mark works too).") from None
    if "\x00" in text:
        raise SpecError(str(path), "contains NUL characters, so it is not a text file.",
                        f"Pass the {what} itself, saved as UTF-8.")
    return text


def load_yaml(path: Path, what: str = "YAML file"):
    """A YAML file read with read_text() and a loader that refuses duplicate keys."""
    text = read_text(path, what)
    try:
        return yaml.load(text, Loader=_UniqueKeyLoader)  # noqa: S506 (a SafeLoader subclass)
    except RecursionError:
        # PyYAML's composer recurses once per level; a spec is a few levels deep.
        raise SpecError(str(path), "nests lists or mappings too deeply to read.",
                        f"A {what} is a few levels deep. {START_HINT}") \
            from None
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark else ""
        problem = getattr(err, "problem", None)
        detail = f": {problem}" if problem else ""
        raise SpecError(str(path), f"is not valid YAML{where}{detail}.",
                        "Fix the syntax; `trainstack schema` gives a JSON Schema for editors.") \
            from None
