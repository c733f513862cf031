"""AWS planning rules."""
from __future__ import annotations

from components.aws import planning
from components.base import Cloud, register
from components.catalog import Price
from components.spec import ClusterSpec


@register
class AwsCloud(Cloud):
    name = "aws"

    def zone_offers(self, price: Price, zone: str) -> bool:
        # The price data names AZ *IDs* (use1-az4); AZ names map to IDs per account, so a name
        # cannot be checked offline. Region-level availability is checked instead.
        del price, zone
        return True

    def validate_location(self, spec: ClusterSpec) -> None:
        super().validate_location(spec)
        planning.budget_thresholds(spec.budget.alert_percents, spec.budget.emails)

    _OFFLINE_NAMED = ("aws:ec2/placementGroup:PlacementGroup", "aws:autoscaling/group:Group",
                      "aws:iam/role:Role", "aws:iam/instanceProfile:InstanceProfile")

    def offline_attributes(self, type_token: str, name: str, inputs: dict) -> dict:
        if type_token == "aws:s3/bucket:Bucket":
            return {"bucket": inputs.get("bucket") or name, "arn": f"arn:aws:s3:::{name}"}
        if type_token == "aws:iam/instanceProfile:InstanceProfile":
            return {"name": name, "arn": f"arn:aws:iam::000000000000:instance-profile/{name}"}
        if type_token == "aws:fsx/lustreFileSystem:LustreFileSystem":
            return {"dnsName": f"{name}.fsx.offline.invalid", "mountName": "offline"}
        return super().offline_attributes(type_token, name, inputs)

    def offline_invoke(self, token: str, args: dict):
        if token == "aws:ssm/getParameter:getParameter":
            return {"name": args.get("name"), "type": "String", "value": "ami-0offline000000000"}
        return None

    def component(self):
        from components.aws.cluster import AwsGpuCluster
        return AwsGpuCluster
