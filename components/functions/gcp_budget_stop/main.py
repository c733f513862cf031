"""Cloud Function (2nd gen, Pub/Sub trigger): resize the managed instance group to 0 when the
budget's forecast reaches it, or the actual cost reaches the stop threshold.

Cloud Billing publishes every budget update (several a day) to the budget's topic as JSON:
{"budgetDisplayName", "costAmount", "costIntervalStart", "budgetAmount", "budgetAmountType",
"currencyCode", "alertThresholdExceeded"?, "forecastThresholdExceeded"?}. This function stops
the nodes when costAmount >= budgetAmount * STOP_FRACTION (at most 0.9: billing reports actual
cost hours late), or when forecastThresholdExceeded >= STOP_FORECAST_FRACTION (the budget's
FORECASTED_SPEND rule crossed). The filesystem and the bucket stay; a later `trainstack up`
brings the nodes back.
Environment: PROJECT, ZONE, GROUP (the MIG name), STOP_FRACTION, STOP_FORECAST_FRACTION.
"""
from __future__ import annotations

import base64
import json
import os


def notification(event) -> dict:
    """The budget JSON out of a CloudEvent (or its plain-dict form)."""
    data = getattr(event, "data", None)
    if data is None and isinstance(event, dict):
        data = event.get("data", event)
    if data is None:
        raise ValueError("the event carries no data: not a Pub/Sub budget notification")
    encoded = data["message"]["data"]
    return json.loads(base64.b64decode(encoded).decode("utf-8"))


def should_stop(budget: dict, stop_fraction: float, forecast_fraction: float = 1.0) -> bool:
    cost, amount = float(budget["costAmount"]), float(budget["budgetAmount"])
    forecast = budget.get("forecastThresholdExceeded")
    return amount > 0 and (cost >= amount * stop_fraction
                           or (forecast is not None and float(forecast) >= forecast_fraction))


def resize_with_api(project: str, zone: str, group: str, size: int) -> None:
    from google.cloud import compute_v1  # in the function's runtime (requirements.txt)
    compute_v1.InstanceGroupManagersClient().resize(
        project=project, zone=zone, instance_group_manager=group, size=size).result(timeout=120)


def stop_on_budget(event, resize=resize_with_api) -> dict:
    budget = notification(event)
    fraction = float(os.environ.get("STOP_FRACTION", "0.9"))
    forecast = float(os.environ.get("STOP_FORECAST_FRACTION", "1.0"))
    where = {k: os.environ[k.upper()] for k in ("project", "zone", "group")}
    if not should_stop(budget, fraction, forecast):
        return {"stopped": False, **where, "cost": budget["costAmount"],
                "budget": budget["budgetAmount"]}
    resize(where["project"], where["zone"], where["group"], 0)
    result = {"stopped": True, **where, "cost": budget["costAmount"], "budget": budget["budgetAmount"]}
    print(json.dumps(result))  # Cloud Logging: why the nodes went away
    return result


try:  # the entry point Cloud Functions calls; functions-framework exists only in the runtime
    import functions_framework

    @functions_framework.cloud_event
    def entry(cloud_event):
        stop_on_budget(cloud_event)
except ImportError:  # offline (tests, plans)
    pass
