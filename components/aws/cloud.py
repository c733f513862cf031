"""AWS planning rules."""
from __future__ import annotations

import csv
from functools import lru_cache
from pathlib import Path

from trainstack_components.aws import planning
from trainstack_components.base import Cloud, register
from trainstack_components.catalog import InstanceType, Price
from trainstack_components.errors import SpecError
from trainstack_components.spec import ClusterSpec
from trainstack_components.tags import check_aws_tags

_AZ_FILE = Path(__file__).resolve().parents[1] / "catalog" / "aws_zones.csv"


@lru_cache(maxsize=1)
def zone_names() -> dict[str, tuple[str, ...]]:
    """Region -> every AZ name an account can be given there (catalog/aws_zones.csv, cited)."""
    with _AZ_FILE.open(newline="", encoding="utf-8") as handle:
        return {row["region"]: tuple(row["zones"].split(";")) for row in csv.DictReader(handle)}


@register
class AwsCloud(Cloud):
    name = "aws"
    _ZONE_SEPARATOR = ""

    def zone_offers(self, price: Price, zone: str) -> bool:
        # The price data names AZ *IDs* (use1-az4); AZ names map to IDs per account, so a name
        # cannot be checked offline. Region-level availability is checked instead.
        del price, zone
        return True

    def validate_location(self, spec: ClusterSpec) -> None:
        super().validate_location(spec)
        loc = spec.location(self.name)
        known = zone_names().get(loc.region)
        if known and loc.zone not in known:
            raise SpecError(f"clouds.{self.name}.zone",
                            f"{loc.zone!r} is not an Availability Zone of {loc.region} (it has "
                            f"{', '.join(known)}).",
                            "Pick one of those (`aws ec2 describe-availability-zones` lists the "
                            "ones your account sees).")
        check_aws_tags(spec)
        planning.budget_thresholds(spec.budget.alert_percents, spec.budget.emails)

    def check_capacity(self, spec: ClusterSpec, itype: InstanceType) -> None:
        super().check_capacity(spec, itype)
        cap = spec.capacity(self.name)
        planning.capacity_plan(cap.type, cap.reservation)  # the reservation ID's form

    def capacity_line(self, capacity_type: str) -> str:
        ids = {"reservation": "cr-... (an On-Demand Capacity Reservation)",
               "capacity_block": "cr-... (the purchased Capacity Block)"}
        if capacity_type in ids:
            return f"clouds.aws.capacity: {{type: {capacity_type}, reservation: {ids[capacity_type]}}}"
        return super().capacity_line(capacity_type)

    _OFFLINE_NAMED = ("aws:ec2/placementGroup:PlacementGroup", "aws:autoscaling/group:Group",
                      "aws:iam/role:Role", "aws:iam/instanceProfile:InstanceProfile")

    def offline_attributes(self, type_token: str, name: str, inputs: dict) -> dict:
        if type_token == "aws:s3/bucket:Bucket":
            return {"bucket": inputs.get("bucket") or name, "arn": f"arn:aws:s3:::{name}"}
        if type_token == "aws:ec2/launchTemplate:LaunchTemplate":  # a new template is version 1
            return {"latestVersion": 1}
        if type_token in ("aws:sns/topic:Topic", "aws:lambda/function:Function"):  # budget stop
            service, kind = ("sns", "") if "sns" in type_token else ("lambda", "function:")
            return {"arn": f"arn:aws:{service}:{inputs.get('region', 'offline')}:000000000000:"
                           f"{kind}{name}"}
        if type_token == "aws:iam/instanceProfile:InstanceProfile":
            return {"name": name, "arn": f"arn:aws:iam::000000000000:instance-profile/{name}"}
        if type_token == "aws:fsx/lustreFileSystem:LustreFileSystem":
            return {"dnsName": f"{name}.fsx.offline.invalid", "mountName": "offline"}
        return super().offline_attributes(type_token, name, inputs)

    def offline_invoke(self, token: str, args: dict):
        if token == "aws:index/getCallerIdentity:getCallerIdentity":
            return {"accountId": "000000000000", "arn": "arn:aws:iam::000000000000:user/offline",
                    "userId": "offline", "id": "000000000000"}
        if token == "aws:ssm/getParameter:getParameter":
            return {"name": args.get("name"), "type": "String", "value": "ami-0offline000000000"}
        return None

    def component(self):
        from trainstack_components.aws.cluster import AwsGpuCluster
        return AwsGpuCluster
