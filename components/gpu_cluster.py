"""The base of every cloud's cluster component: token, tags, outputs, in the Pulumi idiom.

Apart from components/base.py (planning) so that importing the planners does not import Pulumi.
"""
from __future__ import annotations

from typing import Optional

import pulumi

from trainstack_components.adoption import ADOPT_KEY, import_id
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
        self.adopted: set[str] = set()
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
        stale = sorted(set(args.adopt) - self.adopted)
        if stale:
            # A renamed cluster or a spec that no longer keeps the bucket: say so, create anew.
            pulumi.log.warn(f"{ADOPT_KEY} names {', '.join(stale)}, which this program does not "
                            "keep: they are not adopted (the retained resources stay as they "
                            f"are; `pulumi config rm {ADOPT_KEY}` once they are dealt with).",
                            resource=self)
        self.register_outputs(self.outputs)

    def child(self, **extra) -> pulumi.ResourceOptions:
        return pulumi.ResourceOptions(parent=self, **extra)

    def kept(self, resource_name: str, retain: bool, **extra) -> pulumi.ResourceOptions:
        """Options of a resource that outlives `destroy` when `retain`: imported on the next
        `up` from the id the destroy recorded (components/adoption.py), else created."""
        found = import_id(self.args.adopt, resource_name, retain)
        if found:
            self.adopted.add(resource_name)
        return self.child(retain_on_delete=retain, import_=found, **extra)

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
