"""The base of every cloud's cluster component: token, tags, outputs, in the Pulumi idiom.

Apart from components/base.py (planning) so that importing the planners does not import Pulumi.
"""
from __future__ import annotations

from typing import Optional

import pulumi

from components.base import ClusterArgs


class GpuCluster(pulumi.ComponentResource):
    """Base of every cloud's cluster component: token, tags, outputs, in the Pulumi idiom.

    Subclasses implement `_build()` and return the stack outputs; the base registers them last.
    """

    cloud: str = ""

    def __init__(self, name: str, args: ClusterArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(f"trainstack:{self.cloud}:GpuCluster", name, None, opts)
        self.args = args
        self.outputs: dict[str, object] = self._build(name, args)
        self.outputs["usd_per_hour"] = args.selection.usd_per_hour
        self.outputs["instance_type"] = args.selection.instance.name
        self.outputs["interconnect"] = args.selection.fabric_note
        # `trainstack reap` touches only stacks that carry this marker.
        self.outputs["trainstack_marker"] = {
            "version": 1, "cloud": self.cloud,
            "idle_minutes": args.spec.idle.teardown_after_minutes,
            "bucket_retained": args.spec.bucket.retain_on_destroy}
        if args.selection.passed_over:
            self.outputs["selection_passed_over"] = list(args.selection.passed_over)
        if args.selection.fits is not None:
            self.outputs["workload_fits"] = args.selection.fits
        self.register_outputs(self.outputs)

    def child(self, **extra) -> pulumi.ResourceOptions:
        return pulumi.ResourceOptions(parent=self, **extra)

    def _build(self, name: str, args: ClusterArgs) -> dict[str, object]:
        raise NotImplementedError
