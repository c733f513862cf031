"""GCP planning rules: project and billing account, zone facts, RoCE profiles, labels, Lustre sizes."""
from __future__ import annotations

import dataclasses

from components import catalog
from components.base import Cloud, Selection, register
from components.catalog import Price
from components.errors import SpecError
from components.gcp import planning
from components.spec import ClusterSpec
from components.tags import cluster_tags


@register
class GcpCloud(Cloud):
    name = "gcp"

    def validate_location(self, spec: ClusterSpec) -> None:
        loc = spec.location(self.name)
        planning.check_project(loc.project)
        planning.check_billing_account(loc.billing_account)
        super().validate_location(spec)
        planning.budget_thresholds(spec.budget.alert_percents, spec.budget.emails)
        planning.gcp_labels(cluster_tags(spec, "stack"))  # label-key collisions; keys only
        planning.lustre_capacity_gib(spec.filesystem.capacity_gib,
                                     planning.lustre_throughput(spec.filesystem.throughput_mbps_per_tib))

    def zone_offers(self, price: Price, zone: str) -> bool:
        zones = planning.type_zones(price.instance_type, price.region, price.zones)
        return not zones or zone in zones

    def select(self, spec: ClusterSpec) -> Selection:
        selection = super().select(spec)
        if selection.use_rdma:
            planning.check_roce_zone(selection.instance, selection.zone, selection.region)
        return dataclasses.replace(selection, fabric_note=planning.fabric_note(
            selection.instance, selection.use_rdma, spec.interconnect))

    def _not_offered(self, spec, candidates, loc) -> SpecError:
        where, zone_problem = [], False
        for itype in candidates:
            row = catalog.price(self.name, itype.name, loc.region)
            if row is None:
                regions = ", ".join(catalog.regions_offering(self.name, itype.name)) or "no region"
                where.append(f"{itype.name} ({itype.gpu}) in {regions}")
                continue
            zone_problem = True
            zones = planning.type_zones(itype.name, loc.region, row.zones)
            where.append(f"{itype.name} ({itype.gpu}) in {loc.region} only in zone(s) "
                         f"{', '.join(zones)}")
        lead = ""
        if any(t.rdma for t in candidates) and loc.zone in planning.roce_zones(loc.region):
            lead = f"{loc.zone} has a RoCE network profile but "
        return SpecError("clouds.gcp.zone" if zone_problem else "gpu",
                         f"{lead}none of {spec.gpu} is offered on gcp in {loc.zone} "
                         f"({loc.region}) by trainstack's catalog.",
                         "Offered: " + "; ".join(where) + ". Change the region/zone or the gpu "
                         "list (zone data: components/catalog/zones.csv).")

    _OFFLINE_NAMED = (
        "gcp:compute/instanceGroupManager:InstanceGroupManager",
        "gcp:compute/resourcePolicy:ResourcePolicy", "gcp:compute/globalAddress:GlobalAddress",
        "gcp:compute/router:Router", "gcp:compute/network:Network",
        "gcp:compute/instanceTemplate:InstanceTemplate")

    def offline_attributes(self, type_token: str, name: str, inputs: dict) -> dict:
        if type_token == "gcp:storage/bucket:Bucket":
            bucket = inputs.get("name") or name
            return {"name": bucket, "url": f"gs://{bucket}"}
        if type_token == "gcp:lustre/instance:Instance":  # 192.0.2.0/24: documentation-only range
            return {"mountPoint": f"192.0.2.1@tcp:/{inputs.get('filesystem')}"}
        return super().offline_attributes(type_token, name, inputs)

    def offline_invoke(self, token: str, args: dict):
        if token == "gcp:organizations/getProject:getProject":
            return {"projectId": args.get("projectId"), "number": "000000000000"}
        return None

    def component(self):
        from components.gcp.cluster import GcpGpuCluster
        return GcpGpuCluster
