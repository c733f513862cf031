"""GCP planning rules: project and billing account, zone facts, RoCE profiles, labels, Lustre sizes."""
from __future__ import annotations

import dataclasses

from trainstack_components.base import Cloud, Selection, register
from trainstack_components.catalog import InstanceType, Price
from trainstack_components.errors import SpecError
from trainstack_components.gcp import planning
from trainstack_components.spec import ClusterSpec
from trainstack_components.tags import cluster_tags


@register
class GcpCloud(Cloud):
    name = "gcp"
    _ZONE_SEPARATOR = "-"
    _ZONE_DATA_NOTE = " (zone data: components/catalog/zones.csv)"

    def validate_location(self, spec: ClusterSpec) -> None:
        loc = spec.location(self.name)
        planning.check_project(loc.project)
        planning.check_billing_account(loc.billing_account)
        super().validate_location(spec)
        planning.budget_thresholds(spec.budget.alert_percents, spec.budget.emails)
        planning.gcp_labels(cluster_tags(spec, "stack"))  # label-key collisions; keys only
        planning.lustre_capacity_gib(spec.filesystem.capacity_gib,
                                     planning.lustre_throughput(spec.filesystem.throughput_mbps_per_tib))

    def tag_changes(self, spec: ClusterSpec) -> list[dict[str, str]]:
        return planning.label_changes(spec.tags)

    def listed_zones(self, price: Price) -> tuple[str, ...]:
        return tuple(planning.type_zones(price.instance_type, price.region, price.zones))

    def select(self, spec: ClusterSpec) -> Selection:
        selection = super().select(spec)
        planning.check_lustre_zone(selection.region, selection.zone)
        if selection.use_rdma:
            planning.check_roce_zone(selection.instance, selection.zone, selection.region)
        return dataclasses.replace(selection, fabric_note=planning.fabric_note(
            selection.instance, selection.use_rdma, spec.interconnect))

    def deploy_blockers(self, spec: ClusterSpec, selection) -> list[SpecError]:
        blockers = []
        loc = spec.location(self.name)
        for field, value in (("project", loc.project), ("billing_account", loc.billing_account)):
            if value is not None and planning.is_placeholder(field, value):
                blockers.append(SpecError(
                    f"clouds.gcp.{field}", f"is still the placeholder {value!r}.",
                    planning.PLACEHOLDER_FIX[field]))
        note = planning.check_lustre_zone(selection.region, selection.zone)
        if note is not None:
            blockers.append(SpecError(
                "clouds.gcp.region", f"{note}: the file system cannot be created there.",
                "Pick a region and zone the table lists (and the instance type is offered "
                "in), e.g. us-central1 / us-central1-b for A3 Ultra."))
        return blockers

    def check_capacity(self, spec: ClusterSpec, itype: InstanceType) -> None:
        super().check_capacity(spec, itype)
        self.capacity_plan(spec, itype)  # reservation name, flex-start lifetime

    def capacity_plan(self, spec: ClusterSpec, itype: InstanceType) -> planning.CapacityPlan:
        return planning.spec_capacity_plan(spec, itype)

    def capacity_line(self, capacity_type: str) -> str:
        if capacity_type == "flex_start":
            return (f"clouds.gcp.capacity: {{type: flex_start}} plus max_hours: <hours, at most "
                    f"{planning.FLEX_MAX_HOURS}>")
        return super().capacity_line(capacity_type)

    def _not_offered_lead(self, candidates, loc) -> str:
        if any(t.rdma for t in candidates) and loc.zone in planning.roce_zones(loc.region):
            return f"{loc.zone} has a RoCE network profile but "
        return ""

    _OFFLINE_NAMED = (
        "gcp:compute/instanceGroupManager:InstanceGroupManager",
        "gcp:compute/resourcePolicy:ResourcePolicy", "gcp:compute/globalAddress:GlobalAddress",
        "gcp:compute/router:Router", "gcp:compute/network:Network",
        "gcp:compute/instanceTemplate:InstanceTemplate", "gcp:compute/resizeRequest:ResizeRequest")

    def offline_attributes(self, type_token: str, name: str, inputs: dict) -> dict:
        if type_token == "gcp:storage/bucket:Bucket":
            bucket = inputs.get("name") or name
            return {"name": bucket, "url": f"gs://{bucket}"}
        if type_token == "gcp:compute/resourcePolicy:ResourcePolicy":
            policy = inputs.get("name") or name
            return {"name": policy, "selfLink": f"projects/{inputs.get('project')}/regions/"
                    f"{inputs.get('region')}/resourcePolicies/{policy}"}
        if type_token == "gcp:serviceaccount/account:Account":
            return {"email": f"{inputs.get('accountId')}@{inputs.get('project')}"
                             ".iam.gserviceaccount.com"}
        if type_token == "gcp:projects/iAMCustomRole:IAMCustomRole":
            return {"name": f"projects/{inputs.get('project')}/roles/{inputs.get('roleId')}"}
        if type_token == "gcp:lustre/instance:Instance":  # 192.0.2.0/24: documentation-only range
            return {"mountPoint": f"192.0.2.1@tcp:/{inputs.get('filesystem')}"}
        return super().offline_attributes(type_token, name, inputs)

    def offline_invoke(self, token: str, args: dict):
        if token == "gcp:organizations/getProject:getProject":
            return {"projectId": args.get("projectId"), "number": "000000000000"}
        if token == "gcp:compute/getImage:getImage":  # the family's newest image, resolved offline
            name = f"{args.get('family')}-v00000000-offline"
            return {"name": name, "family": args.get("family"),
                    "selfLink": f"projects/{args.get('project')}/global/images/{name}"}
        return None

    def component(self):
        from trainstack_components.gcp.cluster import GcpGpuCluster
        return GcpGpuCluster
