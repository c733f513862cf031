"""From stack config to a validated spec and selection: shared by __main__.py and the offline engine.

Stack config keys (namespace `trainstack`): `cloud` (required), `specFile` (path relative to the
project, default cluster.yaml) or an inline `spec` object, and `overrides`, deep-merged into the
spec because Pulumi replaces whole config objects (pulumi/pulumi#13176).
"""
from __future__ import annotations

import json
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Mapping, Optional

from trainstack_components.adoption import ADOPT_KEY, parse_adopt
from trainstack_components.base import Selection, get_cloud, plan_selection
from trainstack_components.clouds import require_sdk
from trainstack_components.errors import SpecError
from trainstack_components.project import PROJECT, PROVIDER_REGION_KEYS
from trainstack_components.spec import ClusterSpec, deep_merge, parse_spec, read_spec_data


@dataclass(frozen=True)
class ProgramInputs:
    cloud: str
    spec: ClusterSpec
    selection: Selection
    # Tags the cloud cannot take as written, with what they become (GCP labels); the plan shows
    # them so that nothing is rewritten without a word.
    tag_changes: tuple = ()
    # What the last destroy kept, to import (components/adoption.py).
    adopt: Mapping[str, str] = field(default_factory=dict)


ConfigGetter = Callable[[str], Optional[str]]  # "ns:key" -> raw value (JSON for objects)


OVERRIDES_SOURCE = f"the stack file's {PROJECT}:overrides"


def _object(config: ConfigGetter, key: str) -> Optional[dict]:
    raw = config(f"{PROJECT}:{key}")
    if raw in (None, ""):
        return None
    try:
        value = json.loads(raw) if isinstance(raw, str) else raw
    except (ValueError, RecursionError):
        # `pulumi config set trainstack:overrides nodes=4` stores the plain string "nodes=4".
        shown = raw if len(raw) <= 60 else raw[:60] + "..."
        raise SpecError(f"{PROJECT}:{key}", f"is the text {shown!r}, not a mapping of spec "
                        "fields.", f"In the stack file write it as a mapping ({PROJECT}:{key}: "
                        "{nodes: 4}), or set one field with `pulumi config set --path "
                        f"'{PROJECT}:{key}.nodes' 4`.") from None
    if value in ({}, None):  # the project file declares both keys with an empty default
        return None
    if not isinstance(value, dict):
        raise SpecError(f"{PROJECT}:{key}", "must be a mapping of spec fields.",
                        "Fix the stack file.")
    return value


def resolve(config: ConfigGetter, project_dir: Path) -> ProgramInputs:
    """Validate everything the program needs from flat Pulumi config (objects as JSON strings)."""
    cloud = config(f"{PROJECT}:cloud")
    if not cloud:
        raise SpecError(f"{PROJECT}:cloud", "is not set for this stack.",
                        "Add `trainstack:cloud: aws` (or gcp, azure, alicloud) to the stack file.")
    inline = _object(config, "spec")
    spec_file = config(f"{PROJECT}:specFile") or "cluster.yaml"
    if inline is not None:
        data, source = inline, f"{PROJECT}:spec"
    else:
        path = Path(spec_file)
        data, source = read_spec_data(path if path.is_absolute() else project_dir / path), spec_file
    overrides = _object(config, "overrides")
    spec = _parse_with_overrides(data, overrides, source)
    get_cloud(cloud)  # an unknown cloud is named before the spec's cloud section is looked up
    _check_provider_region(cloud, spec, config, source)
    planner = get_cloud(cloud)
    _check_runtime_cuda(cloud, spec)
    adopt = parse_adopt(config(ADOPT_KEY))
    return ProgramInputs(cloud, spec, plan_selection(spec, cloud),
                         tuple(planner.tag_changes(spec)), adopt)


def _parse_with_overrides(data: dict, overrides: Optional[dict], source: str) -> ClusterSpec:
    """The spec with the stack's overrides merged in; a field the overrides set is reported
    against the stack file, since fixing cluster.yaml would change nothing."""
    if not overrides:
        return parse_spec(data, source)
    merged = deep_merge(data, overrides)
    try:
        return parse_spec(merged, source)
    except SpecError as err:
        if not _sets(overrides, err.field):
            raise
        return parse_spec(merged, OVERRIDES_SOURCE)


def _sets(overrides: dict, field: str) -> bool:
    """Whether the dotted spec path `field` (or a section above it) comes from the overrides."""
    node: object = overrides
    for part in field.split("."):
        if not isinstance(node, dict):
            return True
        if part not in node:
            return False
        node = node[part]
    return True


def _check_provider_region(cloud: str, spec: ClusterSpec, config: ConfigGetter,
                           source: str = "cluster.yaml") -> None:
    key = PROVIDER_REGION_KEYS[cloud]
    provider_region = config(key)
    region = spec.location(cloud).region
    if provider_region and provider_region.strip('"') != region:
        raise SpecError(key, f"the stack file sets {provider_region!r} but "
                        f"clouds.{cloud}.region in {source} is {region!r}.",
                        f"Make them the same: the provider deploys to {key}, trainstack "
                        "plans and prices for the spec's region.")


def _check_runtime_cuda(cloud: str, spec: ClusterSpec) -> None:
    """The cloud's default training image must run on the node image's driver (its CUDA is in
    runtime_images.csv, the driver in node_images.csv); a spec's own image names no CUDA."""
    from trainstack_components.catalog import node_images, runtime_images
    if spec.runtime.image:
        return
    row = runtime_images.defaults().get(cloud, {})
    refused = node_images.check_cuda(cloud, row.get("cuda", ""), row.get("image", ""))
    if refused:
        raise refused


# The inputs the offline engine (trainstack/plan/engine.py) resolved from the very config it runs
# this program under, a moment before: `run` takes them instead of parsing the spec, choosing the
# instance and checking the catalog a second time (0.55 % of an Alibaba Cloud plan's instructions,
# benchmarks/RESULTS.md). Unset under `pulumi up`, where `run` resolves the stack's config.
RESOLVED: ContextVar[Optional[ProgramInputs]] = ContextVar("trainstack_resolved", default=None)


def run(main_file: Optional[str] = None) -> None:
    """The Pulumi program: stack config -> validated spec -> the cloud's cluster -> outputs.

    A project's __main__.py is two lines, `from trainstack_components.program import run` and
    `run(__file__)`; `pulumi up` runs it, and `trainstack plan` runs the same file under the mock
    engine. Relative spec files resolve against the folder of `main_file` (else the working
    directory, where Pulumi starts the program).
    """
    import pulumi

    from trainstack_components.base import ClusterArgs

    def stack_config(key: str):
        namespace, _, name = key.partition(":")
        return pulumi.Config(namespace).get(name)

    inputs = RESOLVED.get()
    if inputs is None:   # `pulumi up`: this program resolves its stack's config itself
        project_dir = Path(main_file).resolve().parent if main_file else Path.cwd()
        try:
            inputs = resolve(stack_config, project_dir)
            require_sdk(inputs.cloud)  # `pulumi up` run directly: the extra to install
        except SpecError as err:
            raise pulumi.RunError(str(err)) from None
    cluster = get_cloud(inputs.cloud).component()(
        inputs.spec.name, ClusterArgs(inputs.spec, inputs.selection, pulumi.get_stack(),
                                      inputs.adopt))
    for key, value in sorted(cluster.outputs.items()):
        pulumi.export(key, value)
