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

    def component(self):
        from components.aws.cluster import AwsGpuCluster
        return AwsGpuCluster
