"""`plan` against the SDK floor: the same resources, registered straight through the SDKs.

    .venv/bin/python benchmarks/sdk_floor.py [--repeats 5]

For each cloud the example cluster is rendered once; its resources (type token, name, inputs) are
then registered again under the same mock engine by calling each provider SDK class directly, with
no spec, no planning and no component. That replay is what any Pulumi program declaring these
resources must pay; `plan` on top of it adds validation, selection and component wiring.
Target: plan <= 1.15 x floor.
"""
from __future__ import annotations

import asyncio
import importlib
import inspect
import keyword
import re

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


def replay(cloud: str, resources) -> None:
    """Register every custom resource of a plan through its SDK class under the mock engine
    (the plan's own mocks, with their offline stand-ins, but Pulumi's plain monitor)."""
    from trainstack.plan.engine import _PlanMocks
    from trainstack_components.base import get_cloud
    mocks = _PlanMocks(get_cloud(cloud))
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    settings.reset_options(project="floor", stack="floor")
    pulumi.runtime.set_mocks(mocks, project="floor", stack="floor", preview=False,
                             monitor=pulumi_mocks.MockMonitor(mocks))

    def program():
        for r in resources:
            cls = sdk_class(r.type)
            kwargs = kwargs_for(cls, r.inputs)
            while True:
                try:
                    cls(r.name, **kwargs)
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
        replay(cloud, custom)
        plan_s, floor_s = median_cpu_seconds(
            [lambda config=config: render(config),
             lambda custom=custom, cloud=cloud: replay(cloud, custom)], repeats)
        ratio = plan_s / floor_s
        all_ok &= ratio <= TARGET
        rows.append([cloud, len(custom), f"{plan_s * 1000:.0f}", f"{floor_s * 1000:.0f}",
                     f"{ratio:.2f}", verdict(ratio <= TARGET)])
    return table(["cloud", "custom resources", "plan CPU ms", "SDK floor CPU ms", "plan / floor",
                  f"target <= {TARGET}x"], rows), all_ok


if __name__ == "__main__":
    bench_main(__doc__, run, repeats=5)
