"""Alibaba Cloud planning rules: capacity, placement limits, fabric notes, offline stand-ins."""
from __future__ import annotations

import dataclasses

from trainstack_components import catalog
from trainstack_components.alicloud import planning
from trainstack_components.base import Cloud, Selection, register
from trainstack_components.catalog import InstanceType
from trainstack_components.errors import SpecError
from trainstack_components.spec import ClusterSpec
from trainstack_components.tags import cluster_tags


@register
class AlicloudCloud(Cloud):
    name = "alicloud"
    catalog_name = "alibaba"  # the price data's name for the cloud
    # Elasticity assurances / private pools serve as reservations; no blocks, no flex-start.
    _DEFAULT_CAPACITY = ("on_demand", "spot", "reservation")

    def zone_separator(self, region: str) -> str:
        # cn-hangzhou -> cn-hangzhou-h, but eu-central-1 -> eu-central-1a (Alibaba zone ids).
        return "" if region[-1:].isdigit() else "-"
    _ZONE_DATA_NOTE = " (zones: the price rows in components/catalog/prices.csv)"

    def validate_location(self, spec: ClusterSpec) -> None:
        super().validate_location(spec)
        cap = spec.capacity(self.name)
        planning.capacity_args(cap.type, cap.reservation)  # capacity_block / flex_start: exit 2
        region = spec.location(self.name).region
        known = catalog.priced_regions(self.catalog_cloud)
        if region not in known | set(planning.CPFS_REGIONS):
            # A typo'd or unknown region is the region's fault, not the file system's.
            raise SpecError("clouds.alicloud.region", f"{region!r} is not among the alicloud "
                            "regions trainstack's catalog prices GPU instance types in.",
                            f"Use one of: {', '.join(sorted(known))}.")
        planning.check_cpfs_region(region)
        size = planning.cpfs_capacity_gib(spec.filesystem.capacity_gib)
        planning.dataflow_throughput(
            size, planning.cpfs_storage_type(spec.filesystem.throughput_mbps_per_tib))
        planning.check_tags(cluster_tags(spec, "stack"))

    def select(self, spec: ClusterSpec) -> Selection:
        try:
            selection = super().select(spec)
        except SpecError as err:  # the catalog names the cloud "alibaba"; the spec says alicloud
            raise SpecError(err.field.replace("clouds.alibaba.", "clouds.alicloud."),
                            err.problem, err.fix) from None
        # > 20 nodes in LowLatency, spot in a deployment set, > 2,000 SCC nodes: exit 2
        planning.placement(selection.instance, spec.nodes, selection.spot)
        # The budget pays the storage month before any node hour (a budget that cannot: exit 2
        # here, before a resource is declared).
        planning.release(spec.budget.monthly_usd, spec.nodes * selection.price.ondemand_usd_hr,
                         spec.lifetime_hours, planning.utc_now(),
                         storage=planning.storage_month(spec, selection.region))
        return dataclasses.replace(selection, fabric_note=self.fabric_note(
            selection.instance, selection.use_rdma))

    def fabric_note(self, itype: InstanceType, use_rdma: bool) -> str:
        if use_rdma and itype.fabric == "erdma":
            return (f"eRDMA ({itype.rdma_nics} ERI{'s' if itype.rdma_nics > 1 else ''}, "
                    f"{itype.fabric_gbps or '?'} Gbit/s) in a LowLatency deployment set")
        if use_rdma and itype.fabric == "roce":
            return f"SCC RoCE RDMA ({itype.fabric_gbps or '?'} Gbit/s) in an HPC cluster"
        return f"VPC TCP only ({itype.fabric_gbps or '?'} Gbit/s, no eRDMA on {itype.name})"

    # -- offline stand-ins for what Alibaba Cloud computes on create --------------------------

    def offline_attributes(self, type_token: str, name: str, inputs: dict) -> dict:
        if type_token == "alicloud:oss/bucket:Bucket":
            bucket = inputs.get("bucket") or name
            return {"bucket": bucket, "extranetEndpoint": "oss-offline.aliyuncs.com",
                    "intranetEndpoint": "oss-offline-internal.aliyuncs.com"}
        if type_token == "alicloud:nas/mountTarget:MountTarget":
            return {"mountTargetDomain": f"{name}.cpfs.offline.invalid"}
        if type_token == "alicloud:nas/fileset:Fileset":
            return {"filesetId": "fset-offline"}
        if type_token == "alicloud:nas/dataFlow:DataFlow":
            return {"dataFlowId": "df-offline"}
        if type_token == "alicloud:vpc/natGateway:NatGateway":
            return {"snatTableIds": "stb-offline"}
        if type_token == "alicloud:ecs/eipAddress:EipAddress":  # 192.0.2.0/24: documentation only
            return {"ipAddress": "192.0.2.10"}
        if type_token == "alicloud:ram/role:Role":
            return {"roleName": inputs.get("roleName") or name,
                    "arn": f"acs:ram::0000000000000000:role/{inputs.get('roleName') or name}"}
        if type_token == "alicloud:ram/policy:Policy":
            return {"policyName": inputs.get("policyName") or name}
        if type_token == "alicloud:cms/alarmContactGroup:AlarmContactGroup":
            return {"alarmContactGroupName": inputs.get("alarmContactGroupName") or name}
        return super().offline_attributes(type_token, name, inputs)

    def offline_invoke(self, token: str, args: dict):
        if token == "alicloud:ecs/getImages:getImages":
            return {"ids": ["ubuntu_22_04_x64_20G_alibase_offline.vhd"], "images": [],
                    "nameRegex": args.get("nameRegex"), "id": "offline"}
        return None

    def component(self):
        from trainstack_components.alicloud.cluster import AlicloudGpuCluster
        return AlicloudGpuCluster
