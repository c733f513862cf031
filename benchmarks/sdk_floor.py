"""`plan` against the SDK floor: the same resources, registered straight through the SDKs.

    .venv/bin/python benchmarks/sdk_floor.py [--repeats 7]

For each cloud the example cluster is rendered once; its resources (type token, name, inputs) are
then registered again under the same mock engine by calling each provider SDK class directly, with
no spec, no planning and no component. That replay is what any Pulumi program declaring these
resources must pay; `plan` on top of it adds validation, selection, boot rendering and component
wiring. Target: plan <= 1.15 x floor.

What the floor replays besides the resources, and why (each is work Pulumi does for any program
that declares these resources, none is trainstack's own):
- the data-source calls the render made (token and arguments, recorded from one render: e.g.
  the node image lookup), since the resources' inputs came from them;
- the wiring the plan recorded: each resource is declared after the resources it uses, an input
  the plan lists under property_dependencies is the used resource's output (its id, its name,
  ...) or, when the value is derived from them (a policy naming the bucket), an apply over their
  ids, and the other dependencies are depends_on. Without it every input is a plain string and no
  resource waits on another, which no program declaring these resources can do. The unwired
  replay is still measured and printed (plan / unwired), so both ratios can be compared.
The wiring and the recorded calls are planned once, outside the timing; the floor's own
bookkeeping inside it (SDK class lookup, argument names) is a small cost on the floor's side.

Times are CPU seconds of this process (time.process_time, all threads), plan and floor
alternated within each repeat: on a shared, loaded machine wall time measures the neighbours.
"""
from __future__ import annotations

import asyncio
import importlib
import inspect
import keyword
import re
from typing import Sequence

import pulumi
from common import (implemented_clouds, median_cpu_seconds, render_config, spec_for, table,
                    verdict)
from common import main as bench_main
from pulumi.runtime import mocks as pulumi_mocks
from pulumi.runtime import settings

TARGET = 1.15
SDK_PACKAGES = {"aws": "pulumi_aws", "gcp": "pulumi_gcp", "azure-native": "pulumi_azure_native",
                "alicloud": "pulumi_alicloud",
                "command": "pulumi_command"}   # GCP: the Managed Lustre import at create


def sdk_class(token: str):
    """`aws:ec2/vpc:Vpc` -> pulumi_aws.ec2.Vpc; `azure-native:compute:VirtualMachineScaleSet`."""
    package, module, cls = token.split(":")
    module = module.split("/")[0]
    if keyword.iskeyword(module):  # pulumi_aws.lambda_: Python keywords get a trailing "_"
        module += "_"
    mod = importlib.import_module(f"{SDK_PACKAGES[package]}.{module}")
    return getattr(mod, cls)


def _snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()


def _engine_value(value):
    """Plan JSON back into SDK values: the plan writes assets/archives as {"asset": {...}}."""
    if isinstance(value, dict):
        if set(value) == {"asset"}:
            fields = value["asset"]
            return (pulumi.FileAsset(fields["path"]) if "path" in fields
                    else pulumi.StringAsset(fields.get("text", "")))
        if set(value) == {"archive"}:
            fields = value["archive"]
            if "path" in fields:
                return pulumi.FileArchive(fields["path"])
            return pulumi.AssetArchive({k: _engine_value(v)
                                        for k, v in fields.get("assets", {}).items()})
        return {k: _engine_value(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_engine_value(v) for v in value]
    return value


def kwargs_for(cls, inputs: dict) -> dict:
    """Top-level engine (camelCase) keys as the class's Python argument names."""
    params = set(inspect.signature(cls._internal_init).parameters)
    loose = {p.replace("_", ""): p for p in params}
    out = {}
    for key, value in inputs.items():
        name = _snake(key)
        name = name if name in params else loose.get(key.lower().replace("_", ""))
        if name and not name.startswith("__"):
            out[name] = _engine_value(value)
    return out


def _in_dependency_order(resources) -> list:
    """The plan lists resources by type and name; a resource is declared after those it uses."""
    by_urn = {r.urn: r for r in resources}
    done: dict[str, object] = {}

    def visit(r) -> None:
        if r.urn in done:
            return
        done[r.urn] = r
        for urn in [*r.dependencies, *(u for us in r.property_dependencies.values() for u in us)]:
            if urn in by_urn:
                visit(by_urn[urn])
        order.append(r)

    order: list = []
    for r in resources:
        visit(r)
    return order


def _param(cls, key: str) -> str | None:
    """The class's Python argument name for one top-level engine key (as kwargs_for maps it)."""
    return next(iter(kwargs_for(cls, {key: None})), None)


def _output_of(value, used: list[str], by_urn: dict, engine_outputs: dict):
    """("output", urn, attribute) when `value` is one of a used resource's outputs, else None."""
    for urn in used:
        used_cls = sdk_class(by_urn[urn].type)
        hit = next((k for k, v in engine_outputs[urn].items() if v == value and
                    (k == "id" or isinstance(getattr(used_cls, k, None), property))), None)
        if hit:
            return ("output", urn, hit)
    return None


def wiring(cloud: str, resources) -> list:
    """How a program declaring these resources passes each used resource's value, planned once
    (outside the timing): (resource, {argument: wire}, depends_on urns), in dependency order. An
    input equal to one of the used resource's outputs (its id, its name, ...) is that output
    ("output", urn, attribute); a list of such outputs is that list ("list", [wires]); any other
    (a policy naming the bucket, `oss://` plus the bucket, a route) is derived from the used
    resources in one apply ("derived", urns), as the program derives it."""
    from trainstack_components.base import get_cloud
    planned = get_cloud(cloud)
    ordered = _in_dependency_order(resources)
    by_urn = {r.urn: r for r in ordered}
    urns = set(by_urn)
    engine_outputs = {r.urn: {"id": f"{r.name}-id",
                              **{_snake(k): v for k, v in {
                                  **r.inputs,
                                  **planned.offline_attributes(r.type, r.name, r.inputs)}.items()}}
                      for r in ordered}
    plan = []
    for r in ordered:
        cls = sdk_class(r.type)
        wires = {}
        for key, used in r.property_dependencies.items():
            used = [u for u in used if u in urns]
            arg = _param(cls, key)
            if not used or not arg:
                continue
            value = r.inputs.get(key)
            wire = _output_of(value, used, by_urn, engine_outputs)
            if wire is None and isinstance(value, list) and value:
                # [sg.id, ...]: a list of the used resources' outputs, as a program writes it
                items = [_output_of(v, used, by_urn, engine_outputs) for v in value]
                wire = ("list", items) if all(items) else None
            wires[arg] = wire or ("derived", used)
        used_by_inputs = {u for us in r.property_dependencies.values() for u in us}
        others = [u for u in r.dependencies if u in urns and u not in used_by_inputs]
        plan.append((r, wires, others))
    return plan


def recorded_invokes(config: dict[str, str]) -> list[tuple[str, dict]]:
    """The data-source calls (invokes) one render makes: token and arguments, in order."""
    from trainstack.plan import engine
    calls: list[tuple[str, dict]] = []
    answer = engine._PlanMocks.call

    def recording(self, args):
        calls.append((args.token, dict(args.args)))
        return answer(self, args)

    engine._PlanMocks.call = recording
    try:
        engine.render(config)
    finally:
        engine._PlanMocks.call = answer
    return calls


def replay(cloud: str, resources, wired: list | None = None,
           invokes: Sequence[tuple[str, dict]] = ()) -> None:
    """Register every custom resource of a plan through its SDK class under the mock engine
    (the plan's own mocks, with their offline stand-ins, but Pulumi's plain monitor). With
    `wired` (wiring()), each resource is declared after those it uses and takes their outputs
    where the plan recorded a dependency, as any program declaring these resources must; without,
    every input is a plain value and no resource waits on another."""
    from trainstack.plan.engine import _PlanMocks
    from trainstack_components.base import get_cloud
    mocks = _PlanMocks(get_cloud(cloud))
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    settings.reset_options(project="floor", stack="floor")
    pulumi.runtime.set_mocks(mocks, project="floor", stack="floor", preview=False,
                             monitor=pulumi_mocks.MockMonitor(mocks))

    def program():
        for token, args in invokes:
            pulumi.runtime.invoke_output(token, args)
        declared: dict[str, pulumi.CustomResource] = {}
        for r, wires, others in wired if wired is not None else [(r, {}, []) for r in resources]:
            cls = sdk_class(r.type)
            kwargs = kwargs_for(cls, r.inputs)
            for arg, wire in wires.items():
                if wire[0] == "output":
                    kwargs[arg] = getattr(declared[wire[1]], wire[2])
                elif wire[0] == "list":
                    kwargs[arg] = [getattr(declared[urn], attr) for _, urn, attr in wire[1]]
                else:
                    kwargs[arg] = pulumi.Output.all(*[declared[u].id for u in wire[1]]).apply(
                        lambda _, value=kwargs[arg]: value)
            opts = (pulumi.ResourceOptions(depends_on=[declared[u] for u in others])
                    if others else None)
            while True:
                try:
                    declared[r.urn] = cls(r.name, **kwargs, opts=opts)
                    break
                except TypeError as err:  # an input that was unknown offline (another's id)
                    missing = re.match(r"Missing required property '(\w+)'", str(err))
                    if not missing:
                        raise
                    kwargs[missing.group(1)] = f"{r.name}-{missing.group(1)}"

    try:
        pulumi.runtime.test(program)()
    finally:
        settings.reset_options()
        asyncio.set_event_loop(None)
        loop.close()


def run(repeats: int) -> tuple[str, bool]:
    from trainstack.plan.engine import render
    rows, all_ok = [], True
    for cloud in implemented_clouds():
        config = render_config(spec_for(cloud), cloud)
        plan = render(config)  # warms the SDK imports for both sides
        custom = [r for r in plan.resources if r.custom and not r.type.startswith("pulumi:")]
        wired, invokes = wiring(cloud, custom), recorded_invokes(config)
        replay(cloud, custom)
        replay(cloud, custom, wired, invokes)
        plan_s, plain_s, floor_s = median_cpu_seconds(
            [lambda config=config: render(config),
             lambda custom=custom, cloud=cloud: replay(cloud, custom),
             lambda custom=custom, cloud=cloud, wired=wired, invokes=invokes:
                 replay(cloud, custom, wired, invokes)], repeats)
        ratio = plan_s / floor_s
        all_ok &= ratio <= TARGET
        rows.append([cloud, len(custom), len(invokes), f"{plan_s * 1000:.0f}",
                     f"{plain_s * 1000:.0f}", f"{plan_s / plain_s:.2f}", f"{floor_s * 1000:.0f}",
                     f"{ratio:.2f}", verdict(ratio <= TARGET)])
    return table(["cloud", "custom resources", "invokes", "plan CPU ms", "unwired floor CPU ms",
                  "plan / unwired", "SDK floor CPU ms", "plan / floor", f"target <= {TARGET}x"],
                 rows), all_ok


if __name__ == "__main__":
    bench_main(__doc__, run, repeats=7)
