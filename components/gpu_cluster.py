"""The base of every cloud's cluster component: token, tags, outputs, in the Pulumi idiom.

Apart from components/base.py (planning) so that importing the planners does not import Pulumi.
"""
from __future__ import annotations

from typing import Optional

import pulumi

from trainstack_components.base import ClusterArgs
from trainstack_components.boot.model import NodeContext
from trainstack_components.catalog.runtime_images import runtime_image


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

    def node_context(self, args: ClusterArgs, *, bucket: str, filesystem_source: str,
                     region: str, zone: str, **cloud_values) -> NodeContext:
        """The nodes' boot context: the spec's and selection's part is the same on every cloud;
        the cloud passes its resolved values (bucket, filesystem source, project, extra)."""
        spec, sel = args.spec, args.selection
        return NodeContext(
            cloud=self.cloud, cluster=spec.name, stack=args.stack, nodes=spec.nodes,
            gpus_per_node=sel.instance.gpu_count, instance_type=sel.instance.name,
            bucket=bucket, filesystem_source=filesystem_source, region=region, zone=zone,
            use_rdma=sel.use_rdma, interconnect=spec.interconnect, fabric=sel.instance.fabric,
            rdma_nics=sel.instance.rdma_nics,
            runtime_image=runtime_image(self.cloud, region, spec.runtime.image), **cloud_values)

    def _build(self, name: str, args: ClusterArgs) -> dict[str, object]:
        raise NotImplementedError
