"""The embedded default: run __main__.py under Pulumi's mock engine and record the plan.

The real program runs with the real provider SDK classes and their input type checks; only the
resource monitor is replaced. The recording monitor keeps what the engine would see: inputs,
parents, dependencies and property dependencies (which the policies follow), and resource options
such as retainOnDelete that `Mocks.new_resource` is never told about.
"""
from __future__ import annotations

import asyncio
import atexit
import builtins
import threading
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pulumi
from pulumi.runtime import mocks as pulumi_mocks
from pulumi.runtime import rpc, settings
from pulumi.runtime.stack import Stack

from trainstack import PROJECT_DIR
from trainstack_components.base import Cloud, get_cloud
from trainstack_components.clouds import require_sdk
from trainstack_components.errors import SpecError
from trainstack_components.program import PROJECT, RESOLVED, ProgramInputs, resolve

ZONE_KEYS = ("availabilityZone", "zone", "zones", "zoneId", "location")
# Inputs through which a resource sits in another resource's zone (a subnet, a vSwitch).
ZONE_VIA = ("subnetIds", "vpcZoneIdentifiers", "subnetId", "vswitchId", "filesystemSubnet",
            "networkInterfaces")


@dataclass
class PlannedResource:
    type: str
    name: str
    urn: str
    custom: bool
    parent: str
    inputs: dict[str, Any]
    dependencies: list[str]
    property_dependencies: dict[str, list[str]]
    retain_on_delete: bool
    protect: bool
    ignore_changes: list[str] = field(default_factory=list)
    custom_timeouts: dict[str, str] = field(default_factory=dict)  # create/update/delete
    import_id: str = ""   # the existing resource `up` would import instead of create
    delete_before_replace: bool = False   # a replacement deletes the old one first

    @property
    def zone(self) -> str:
        for key in ZONE_KEYS:
            value = self.inputs.get(key)
            if isinstance(value, list):
                value = ",".join(map(str, value))
            if isinstance(value, str) and value:
                return value
        return ""

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "name": self.name, "urn": self.urn, "custom": self.custom,
                "parent": self.parent, "inputs": self.inputs, "dependencies": self.dependencies,
                "property_dependencies": self.property_dependencies,
                "options": {"retain_on_delete": self.retain_on_delete, "protect": self.protect}}


@dataclass
class Plan:
    cloud: str
    stack: str
    inputs: ProgramInputs
    resources: list[PlannedResource] = field(default_factory=list)
    outputs: dict[str, Any] = field(default_factory=dict)
    # Lines the offline commands print once (trainstack/plan/required_config.py: missing stack config).
    warnings: tuple[str, ...] = ()

    def of_type(self, type_token: str) -> list[PlannedResource]:
        return [r for r in self.resources if r.type == type_token]

    def by_urn(self) -> dict[str, PlannedResource]:
        return {r.urn: r for r in self.resources}

    def zone_of(self, resource: PlannedResource) -> str:
        """The resource's own zone, else the zone of the subnet (or vSwitch) it is placed in."""
        if resource.zone:
            return resource.zone
        urns = self.by_urn()
        for key in ZONE_VIA:
            for urn in resource.property_dependencies.get(key, []):
                if urn in urns and urns[urn].zone:
                    return urns[urn].zone
        return ""

    def to_json(self) -> dict[str, Any]:
        return {"cloud": self.cloud, "stack": self.stack,
                "resources": [r.to_json() for r in self.resources],
                "outputs": self.outputs}


class _PlanMocks(pulumi.runtime.Mocks):
    """Echo inputs; the planned cloud supplies stand-ins for what only the cloud computes."""

    def __init__(self, cloud: Cloud):
        self.cloud = cloud
        # The inputs Pulumi's MockMonitor just deserialized for new_resource, per monitor thread:
        # the recording monitor keeps them instead of deserializing the request a second time.
        self.last_inputs = threading.local()

    def new_resource(self, args: pulumi.runtime.MockResourceArgs):
        self.last_inputs.value = args.inputs
        computed = self.cloud.offline_attributes(args.typ, args.name, args.inputs)
        return f"{args.name}-id", {**args.inputs, **computed}

    def call(self, args: pulumi.runtime.MockCallArgs):
        return self.cloud.offline_invoke(args.token, args.args) or {}


class _RecordingMonitor(pulumi_mocks.MockMonitor):
    def __init__(self, mocks: _PlanMocks):
        super().__init__(mocks)
        self.plan_mocks = mocks
        self.recorded: list[PlannedResource] = []
        self._lock = threading.Lock()

    def RegisterResource(self, request):
        self.plan_mocks.last_inputs.value = None
        response = super().RegisterResource(request)
        if request.type == "pulumi:pulumi:Stack":
            return response
        # MockMonitor called new_resource on this thread with the request's inputs, deserialized.
        inputs = self.plan_mocks.last_inputs.value
        if inputs is None:
            inputs = rpc.deserialize_properties(request.object)
        record = PlannedResource(
            type=request.type, name=request.name, urn=response.urn, custom=bool(request.custom),
            parent=request.parent, inputs=_plain(inputs), dependencies=sorted(request.dependencies),
            property_dependencies={k: sorted(v.urns)
                                   for k, v in sorted(request.propertyDependencies.items())},
            retain_on_delete=bool(request.retainOnDelete), protect=bool(request.protect),
            ignore_changes=sorted(request.ignoreChanges),
            custom_timeouts={k: v for k in ("create", "update", "delete")
                             if (v := getattr(request.customTimeouts, k, ""))},
            import_id=request.importId, delete_before_replace=bool(request.deleteBeforeReplace))
        with self._lock:
            self.recorded.append(record)
        return response


def _plain(value: Any) -> Any:
    """Engine values as JSON: sorted keys, and floats that are whole numbers kept as floats."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in sorted(value.items())}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, (pulumi.Asset, pulumi.Archive)):  # function code (issue 13)
        kind = "asset" if isinstance(value, pulumi.Asset) else "archive"
        fields = {k: getattr(value, k) for k in ("path", "text", "uri", "assets")
                  if getattr(value, k, None) is not None}
        return {kind: _plain(fields)}
    return value


def _close_leftover_loop() -> None:
    """Close an event loop Pulumi's SDK set up after a render (its sync_await makes one when none
    is set) before the interpreter tears sockets down: left to the garbage collector at exit,
    BaseEventLoop.__del__ closes a self-pipe already gone and prints `Invalid file descriptor`."""
    # The policy's own slot, read directly: get_event_loop() would make a loop when none is set.
    loop = getattr(getattr(asyncio.get_event_loop_policy(), "_local", None), "_loop", None)
    if loop is not None and not loop.is_running() and not loop.is_closed():
        loop.close()


atexit.register(_close_leftover_loop)


def _spec_error_in(err: BaseException) -> SpecError | None:
    seen: set[int] = set()
    current: BaseException | None = err
    while current is not None and id(current) not in seen:
        if isinstance(current, SpecError):
            return current
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return None


# Loops of renders that ended in the user's SpecError: their unfinished tasks are left behind
# on purpose (the program stopped), so their collection is not news.
_FAILED_LOOPS: "weakref.WeakSet[asyncio.AbstractEventLoop]" = weakref.WeakSet()


def _quiet_spec_errors(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    """The SDK's futures that carry a SpecError (every resource waiting on the failed input)
    are never awaited once render has raised it; asyncio would log each one with its traceback
    when it is collected, and each RPC task still pending as "Task was destroyed but it is
    pending!" (when the collector gets to it first depends on timing: under load it came before
    the user's paragraph). The error is the user's paragraph, printed once."""
    problem = context.get("exception")
    if problem is not None and _spec_error_in(problem) is not None:
        return
    if problem is None and context.get("task") is not None and loop in _FAILED_LOOPS:
        return
    loop.default_exception_handler(context)


def prevalidate(config: dict[str, str], project_dir: Path = PROJECT_DIR) -> ProgramInputs:
    """Every spec, catalog and location check, before any resource is declared; and that the
    cloud's provider SDK is installed (its pip extra), which the program will import."""
    inputs = resolve(config.get, project_dir)
    require_sdk(inputs.cloud)
    return inputs


def render(config: dict[str, str], stack: str = "offline",
           project_dir: Path = PROJECT_DIR) -> Plan:
    """Run the project's __main__.py under the mock engine with this stack config."""
    inputs = prevalidate(config, project_dir)
    from trainstack.plan.required_config import warning_line  # offline commands print it once
    warning = warning_line(inputs.cloud, config)
    mocks = _PlanMocks(get_cloud(inputs.cloud))
    monitor = _RecordingMonitor(mocks)
    _close_leftover_loop()  # replaced unclosed, it would be closed by the garbage collector
    loop = asyncio.new_event_loop()
    loop.set_exception_handler(_quiet_spec_errors)
    asyncio.set_event_loop(loop)
    settings.reset_options(project=PROJECT, stack=stack)
    pulumi.runtime.set_all_config(dict(config))
    pulumi.runtime.set_mocks(mocks, project=PROJECT, stack=stack, preview=False, monitor=monitor)
    outputs: dict[str, Any] = {}

    def program():
        main_file = project_dir / "__main__.py"
        if main_file.is_file():
            # The project's __main__.py as the module `__main__`, as Pulumi's language host runs
            # it, executed right here: Pulumi takes a stack trace of every resource it
            # registers, and each frame between this one and the resource costs every trace
            # (runpy's three frozen frames made one trace 1.8x as costly, 269 vs 152 us; a
            # helper function for these two lines cost 0.9 % of an Alibaba Cloud render in
            # instructions: benchmarks/RESULTS.md, issue 30).
            code = compile(main_file.read_bytes(), str(main_file), "exec")
            exec(code, {"__name__": "__main__", "__file__": str(main_file),
                        "__builtins__": builtins})
        else:  # an installed trainstack outside any project: the same program, from the package
            from trainstack_components.program import run
            run(str(main_file))
        root = settings.get_root_resource()
        if not isinstance(root, Stack):   # the mock run's root is always the stack it made
            raise RuntimeError(f"the Pulumi program ran without a stack root ({root!r})")
        exported = root.outputs
        return pulumi.Output.all(**exported).apply(outputs.update)

    resolved = RESOLVED.set(inputs)   # the program takes these instead of resolving them again
    try:
        pulumi.runtime.test(program)()
    except pulumi.RunError as err:  # the program's own SpecError, raised as a RunError
        _FAILED_LOOPS.add(loop)
        raise SpecError("stack", str(err), "") from None
    except Exception as err:
        # A SpecError raised inside an apply (a user data over its cloud's limit) reaches here
        # wrapped by the SDK in a ValueError per input and per resource: the user's paragraph.
        cause = _spec_error_in(err)
        if cause is None:
            raise
        _FAILED_LOOPS.add(loop)
        raise cause from None
    finally:
        RESOLVED.reset(resolved)
        settings.reset_options()
        pulumi.runtime.set_all_config({})
        asyncio.set_event_loop(None)
        loop.close()
    resources = sorted(monitor.recorded, key=lambda r: (r.type, r.name))
    from trainstack.plan.required_config import blocker_warnings
    warnings = ((warning,) if warning else ()) + tuple(blocker_warnings(inputs))
    return Plan(inputs.cloud, stack, inputs, resources, _plain(outputs), warnings=warnings)
