"""The trainstack Pulumi program: stack config -> validated spec -> the cloud's cluster -> outputs.

`pulumi up` runs this file unchanged; `trainstack plan` runs the very same file under Pulumi's
mock engine.
"""
from pathlib import Path

import pulumi

from components.base import ClusterArgs, get_cloud
from components.errors import SpecError
from components.program import resolve


def stack_config(key: str):
    namespace, _, name = key.partition(":")
    return pulumi.Config(namespace).get(name)


try:
    inputs = resolve(stack_config, Path(__file__).resolve().parent)
except SpecError as err:
    raise pulumi.RunError(str(err)) from None

cluster = get_cloud(inputs.cloud).component()(
    inputs.spec.name, ClusterArgs(inputs.spec, inputs.selection, pulumi.get_stack()))
for key, value in sorted(cluster.outputs.items()):
    pulumi.export(key, value)
