"""spend-limit: a budget alarm exists, and the cluster left running stays under the cap.

The cap is the policy config's `maxMonthlyUsd` when set (on the whole stack), else, per cloud,
that cloud's own budget amount against that cloud's share of the estimate (a budget watches its
own cloud's bill); a budget above `maxMonthlyUsd` is itself a violation. Budgets are judged
per GPU group: a budget whose scope or filters take in some GPU groups is the alarm for those
only, and caps its cloud's share of the estimate less what the groups it leaves out add. A
budget that notifies no one (no notification with a recipient, no budget action, no Pub/Sub
topic) still states the cap but is no alarm; one whose notification list is unknown at preview
may be that: "cannot decide" where no other budget is the alarm. The estimate is
policies/pricing.py's: the same catalog the components pick instance types from.
pulumi-alicloud has no budget resource (cloud-map §4.2), so on Alibaba Cloud an auto-release time
on every node stands in for the alarm.
"""
from __future__ import annotations

import math
from datetime import datetime
from typing import Any, Mapping, Optional

from trainstack_policies import capacity, pricing
from trainstack_policies.exemptions import own_tag
from trainstack_policies.inventory import (
    ALI_CAPACITY_RESERVATION,
    ALI_INSTANCE,
    ALI_INSTANCE_SET,
    AWS_BUDGET,
    AZ_BUDGETS,
    GCP_BUDGET,
    NodeGroup,
    buckets,
    budgets,
    filesystems,
    gpu_groups,
    node_groups,
)
from trainstack_policies.inventory.gpu_names import gpu_named
from trainstack_policies.inventory.groups import launch_settings
from trainstack_policies.inventory.lifetimes import _hours_until, ali_release, prepaid
from trainstack_policies.model import (
    UNKNOWN,
    Resource,
    UnknownValue,
    Violation,
    number,
    violation,
)

NAME = "spend-limit"
DESCRIPTION = ("GPU capacity has a budget alarm, and the stack's estimated monthly cost if left "
               "running (nodes at their maximum x catalog price x 730 h or an enforced lifetime, "
               "plus storage) stays under the cap; GPU capacity it cannot price fails closed.")
ENFORCEMENT_LEVEL = "mandatory"
# GPU spend the pack cannot size or price blocks by default: an unpriced 512-node group is the
# case the policy exists for.
UNDECIDED_DEFAULT = "mandatory"
KIND = "stack"
SEVERITY = "critical"
REMEDIATION = (
    'Add a budget alarm (budget.monthly_usd and budget.emails in the spec, or a budget '
    'resource); keep the estimate under the cap with fewer nodes, spot capacity or a smaller '
    'type; or enforce a lifetime the plan can show (AWS autoscaling Schedule to 0, a GCP '
    'Cloud Scheduler job that resizes the instance group to 0 (scheduling.maxRunDuration on '
    'a single VM), Alibaba autoReleaseTime, Azure autoscale profile of capacity 0); a '
    "filesystem bills for the whole month whatever the nodes' lifetime: a smaller one costs "
    'less. GPU capacity the catalog cannot price fails closed: use a catalogued type and '
    "region, set the group's maximum size, or exempt it with the trainstack:policy-skip tag "
    'when it is budgeted elsewhere.'
)
SCOPE = (
    'GPU capacity (as in storage-same-zone) needs a budget on its cloud that notifies someone '
    "and takes it in (each GPU group by the budget's scope and filters), and is priced at its "
    'maximum size; every other node is priced where the catalog lists '
    'it and otherwise named and left out; parallel filesystems and the bucket fed from them '
    "are priced from the catalog, or at the catalog's lowest parallel-filesystem price when "
    'their own is not cited. '
)
CONFIG_SCHEMA = {
    "maxMonthlyUsd": {
        "type": "number", "exclusiveMinimum": 0,
        "description": "Monthly spend cap in USD. Unset: the stack's own budget amount is the cap.",
    },
    "capacityBlockFeesUsd": {
        "type": "object", "additionalProperties": {"type": "number", "minimum": 0},
        "description": "The upfront fee in USD of each EC2 Capacity Block the stack's nodes run "
                       "in, keyed by the node group's resource name (the offering's UpfrontFee: "
                       "`aws ec2 describe-capacity-block-offerings`). Unset for a group: its "
                       "block cannot be priced.",
    },
}

# Types that run no instances: the GPU-sign sweep need not read them.
_NOT_COMPUTE = frozenset({
    "aws:ec2/vpc:Vpc", "aws:ec2/subnet:Subnet", "aws:ec2/securityGroup:SecurityGroup",
    "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule",
    "aws:ec2/placementGroup:PlacementGroup", "aws:budgets/budget:Budget",
    "aws:fsx/lustreFileSystem:LustreFileSystem", "aws:s3/bucket:Bucket", "aws:s3/bucketV2:BucketV2",
    "aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration",
    "aws:autoscaling/schedule:Schedule", "gcp:compute/resourcePolicy:ResourcePolicy",
    "gcp:compute/firewall:Firewall", "gcp:storage/bucket:Bucket", "gcp:billing/budget:Budget",
    "gcp:lustre/instance:Instance", "azure-native:storagecache:AmlFilesystem",
    "azure-native:storage:StorageAccount", "azure-native:consumption:Budget",
    "azure-native:network:NetworkSecurityGroup", "azure-native:monitor:AutoscaleSetting",
    "azure:monitoring/autoscaleSetting:AutoscaleSetting",
    "alicloud:vpc/switch:Switch", "alicloud:ecs/ecsDeploymentSet:EcsDeploymentSet",
    "alicloud:nas/fileSystem:FileSystem", "alicloud:oss/bucket:Bucket",
})


class _SignGroup:
    """A resource with a GPU sign the pack does not size: it needs the alarm like a group."""

    def __init__(self, resource: Resource):
        self.resource = resource
        self.cloud = resource.cloud


_BUDGET_TYPE = {"aws": AWS_BUDGET, "gcp": GCP_BUDGET, "azure": AZ_BUDGETS[0]}


def _cap_config(config: Mapping[str, Any]) -> Optional[float]:
    value = config.get("maxMonthlyUsd")
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) \
        else None


# Alibaba Cloud has no budget resource (pulumi-alicloud): trainstack's nodes carry the spec's
# budget.monthly_usd in their own tag. Like any budget it can only lower the cap; a missing or
# invalid tag leaves the cap as it was.
BUDGET_TAG = "trainstack:budget-usd"


def _declared_budgets(groups) -> list[float]:
    out = []
    for g in groups:
        if g.cloud != "alicloud":
            continue
        value = own_tag(g.resource, BUDGET_TAG)
        amount = number(value) if isinstance(value, str) else None
        if amount is not None and math.isfinite(amount) and amount > 0:
            out.append(amount)
    return out


def _is_time(value: Any) -> bool:
    """Alibaba reads autoReleaseTime as an ISO-8601 time (yyyy-MM-ddTHH:mm:ssZ)."""
    if not isinstance(value, str):
        return False
    try:
        datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        return False
    return True


def _reservation_stop(r: Resource) -> list[Violation]:
    """An Alibaba capacity reservation bills until released: its endTime ("Limited") is the
    stop that stands in for the budget alarm, as a node's autoReleaseTime does."""
    end = r.get("endTime")
    if end is UNKNOWN:
        raise UnknownValue(r, "endTime")
    if r.get("endTimeType") != "Unlimited" and _is_time(end):
        return []
    return [violation(
        r, "the capacity reservation has no end time, so it bills at the pay-as-you-go rate "
        "until released by hand, used or not, and Alibaba Cloud has no budget resource to warn",
        end or r.get("endTimeType") or None, "endTimeType Limited with an endTime "
        "(ISO-8601 UTC)", "set end_time_type=\"Limited\" and end_time on the "
        "ecs.CapacityReservation")]


AWS_CAPACITY_BLOCK = "aws:ec2/capacityBlockReservation:CapacityBlockReservation"


def _unused_blocks(resources: list[Resource], every: list[NodeGroup]) -> list[Resource]:
    """EC2 Capacity Blocks the stack buys (aws.ec2.CapacityBlockReservation) that no node group
    of the stack launches into: a block is GPU capacity paid up front for its duration whether
    used or not (Capacity Blocks are sold for GPU and Trainium types only). A block a group
    launches into (its capacityReservationSpecification depends on it) is priced with that
    group, once."""
    blocks = [r for r in resources if r.type == AWS_CAPACITY_BLOCK]
    if not blocks:
        return []
    used = {id(d) for g in every for h in (g.resource, g.template) if h is not None
            for d in launch_settings(h).deps.get("capacityReservationSpecification", [])}
    return [b for b in blocks if id(b) not in used]


def _price_block(block: Resource, est: pricing.Estimate,
                 fees: Optional[Mapping[str, Any]]) -> None:
    fee = (fees or {}).get(block.name)
    if isinstance(fee, (int, float)) and not isinstance(fee, bool):
        est.lines.append(pricing.Line(f"{block.name}: EC2 Capacity Block paid up front, "
                                      f"{fee:,.2f} USD (spend-limit capacityBlockFeesUsd)",
                                      float(fee), block.cloud))
        return
    est.missing.append(f"{block.name} ({block.type}): an EC2 Capacity Block, billed up front at "
                       "the block's price for its duration whether used or not (neither is in "
                       "the catalog or known at preview); give its fee in the spend-limit "
                       f'config, "capacityBlockFeesUsd": {{"{block.name}": <the offering\'s '
                       "UpfrontFee in USD>}")


def _evaluate(resources: list[Resource], config: Mapping[str, Any]):
    # Only GPU capacity needs a budget alarm; every group is priced where the catalog can.
    groups: list[NodeGroup | _SignGroup] = list(gpu_groups(resources))
    every = node_groups(resources)
    fees = config.get("capacityBlockFeesUsd")
    est = pricing.estimate(every, filesystems(resources), buckets(resources),
                           fees if isinstance(fees, Mapping) else None)
    sized = {id(g.resource) for g in every} | {id(g.template) for g in every
                                               if g.template is not None}
    signs = capacity.gpu_signs(resources, sized, gpu_named,
                               _NOT_COMPUTE)
    est.missing += [sign.what for sign in signs]
    groups = groups + [_SignGroup(sign.resource) for sign in signs]
    for block in _unused_blocks(resources, every):
        groups.append(_SignGroup(block))
        _price_block(block, est, fees if isinstance(fees, Mapping) else None)
    found_budgets = budgets(resources)
    cap_config = _cap_config(config)
    # A cloud's cap is the SMALLEST of its whole-cloud budgets: a budget watches its own
    # cloud's bill only (an AWS budget AWS charges, a GCP budget a billing account's), so it
    # caps that cloud's share of the estimate, never another cloud's. A budget with cost
    # filters (S3 only, one project's labels) watches part of the bill and caps nothing else.
    # One that may or may not take in some GPU groups (Budget.unsure) caps what it covers
    # (_over_budget, _maybe_cap), not the whole cloud. maxMonthlyUsd caps the whole stack.
    caps: dict[str, float] = {}
    for b in found_budgets:
        if b.monthly is not None and not b.scope and not b.leaves_out and not b.unsure:
            cloud = b.resource.cloud
            caps[cloud] = min(caps.get(cloud, b.monthly), b.monthly)
    declared = _declared_budgets(groups)
    if declared:
        caps["alicloud"] = min(declared + ([caps["alicloud"]] if "alicloud" in caps else []))
    return groups, est, found_budgets, cap_config, caps


def check(resources: list[Resource], config: Mapping[str, Any]) -> list[Violation]:
    groups, est, found_budgets, cap_config, caps = _evaluate(resources, config)
    if not groups:
        return []
    out: list[Violation] = []
    undecided: Optional[UnknownValue] = None
    clouds = sorted({g.cloud for g in groups})
    anchor = groups[0].resource

    # 1. The alarm (on Alibaba Cloud: the auto-release time standing in for it).
    for cloud in clouds:
        if cloud == "alicloud":
            for node in (g for g in groups if g.cloud == "alicloud"):
                if node.resource.type == ALI_CAPACITY_RESERVATION:
                    out += _reservation_stop(node.resource)
                    continue
                release = ali_release(node)
                if release is UNKNOWN:
                    # Asked about only where nothing else fails: the known rest of the
                    # estimate over maxMonthlyUsd is still reported (docs: "An unknown is only
                    # asked about where it could hide a violation").
                    undecided = undecided or UnknownValue(node.resource, "autoReleaseTime")
                    continue
                if release and node.resource.type in (ALI_INSTANCE, ALI_INSTANCE_SET) and \
                        prepaid(node.resource, getattr(node, "template", None)):
                    out.append(violation(
                        node.resource, "the auto-release time does not release a subscription "
                        "(PrePaid) instance, so it stands in for no budget alarm", release,
                        "a pay-as-you-go (PostPaid) or spot instance with an autoReleaseTime",
                        "use instance_charge_type=\"PostPaid\" with auto_release_time, or "
                        "budget the subscription elsewhere and exempt the node"))
                elif release and node.resource.type in (ALI_INSTANCE, ALI_INSTANCE_SET) and \
                        not _is_time(release):
                    out.append(violation(
                        node.resource, "the auto-release time is not a time, so it releases "
                        "nothing and stands in for no budget alarm", release,
                        "an ISO-8601 UTC time (yyyy-MM-ddTHH:mm:ssZ)",
                        "set auto_release_time to the release time in ISO-8601 UTC"))
                elif release and node.resource.type in (ALI_INSTANCE, ALI_INSTANCE_SET) and \
                        _hours_until(release) is None:
                    # A time already past: the API refuses it and nothing will release the
                    # node, so it is no lifetime (lifetimes.enforced_hours) and no stand-in.
                    out.append(violation(
                        node.resource, "the auto-release time is already past, so it releases "
                        "nothing and stands in for no budget alarm", release,
                        # No example date: any one written here is past some day.
                        "an ISO-8601 UTC time (yyyy-MM-ddTHH:mm:ssZ) later than now",
                        "set auto_release_time to a release time still to come"))
                elif node.resource.type not in (ALI_INSTANCE, ALI_INSTANCE_SET) or not release:
                    out.append(violation(
                        node.resource, "no auto-release time, which stands in for the budget alarm "
                        "on Alibaba Cloud (pulumi-alicloud has no budget resource)",
                        release or None, "an autoReleaseTime (ISO-8601 UTC) on every node",
                        "set auto_release_time on each pay-as-you-go ecs.Instance or "
                        "ecs.EcsInstanceSet (an ess scaling group cannot release itself)"))
        else:
            found, undecided = _alarm(cloud, groups, found_budgets, undecided)
            out += found

    # 2. Budgets above the configured cap, or in another currency; amounts that are no number.
    for b in found_budgets:
        if b.unknown:
            # An amount unknown at preview (monthly None: no cap from it) hides no violation
            # the rest gives, such as the known estimate over maxMonthlyUsd: asked about only
            # where nothing else fails.
            undecided = undecided or UnknownValue(b.resource, b.unknown)
        if b.invalid:
            out.append(violation(b.resource, "the budget amount is not a positive finite "
                                 "number", b.invalid, "a positive amount in USD",
                                 "set the budget's amount to the monthly cap in USD"))
        if b.unread_period:
            # A date that is there but no date: never "no end" (docs: a budget that cannot
            # be read is not "no cap"); it is neither the cap nor the alarm.
            out.append(violation(b.resource, "the budget's time period cannot be read, so "
                                 "the budget is neither the cap nor the alarm",
                                 b.unread_period, "a date in the provider's format (AWS "
                                 "2087-06-15_00:00, Azure ISO-8601, GCP {year, month, day})",
                                 "write the date in the provider's format, ASCII digits, or "
                                 "leave it out for a period with no end"))
        if b.unread_input:
            # A filter in another shape (or a planned limit whose start does not read): never
            # "no filter" (docs: a budget that cannot be read is not "no cap").
            out.append(violation(b.resource, "the budget cannot be read, so it is neither the "
                                 "cap nor the alarm", b.unread_input,
                                 "each filter one object as the provider takes it (a planned "
                                 "limit with a start time)",
                                 "write the filter as one object (not a list of one), or the "
                                 "planned limit's start as the provider writes it"))
        if b.no_rate and b.covers_compute and not b.scope:
            # Its amount in USD, and so the cap, cannot be told without a cited rate.
            undecided = undecided or _Undecidable(b.resource, b.no_rate)
        if b.open_amount and b.covers_compute and not b.scope:
            # The billing service sets the amount: no cap to hold the estimate to.
            undecided = undecided or _OpenAmount(b.resource, b.open_amount)
        if cap_config is not None and b.monthly is not None and b.monthly > cap_config:
            out.append(violation(
                b.resource, "the budget amount is above the policy's maxMonthlyUsd",
                f"{b.monthly:,.2f} USD/month", f"at most {cap_config:,.2f} USD/month",
                "lower budget.monthly_usd in the spec, or raise maxMonthlyUsd in the policy "
                "config"))

    # 3. The estimate against the cap. GPU spend that cannot be priced fails closed.
    for given_by, what in est.invalid + est.invalid_tags:
        # On the resource that gives the number (where the fix is), not the first GPU group.
        out.append(violation(given_by, "a number that sizes GPU capacity is not valid", what,
                             "finite, non-negative sizes and lifetimes",
                             "fix the value; a negative or NaN size is refused, not read as 0"))
    if est.missing:
        out.append(violation(anchor, "the monthly cost of GPU capacity cannot be estimated",
                             "; ".join(est.missing), "a catalog price and a known maximum size "
                             "for every GPU node group",
                             "use an instance type and region listed in trainstack's catalog "
                             "(components/catalog/prices.csv), set the group's maximum size, or "
                             "exempt the resource (trainstack:policy-skip tag) if it is "
                             "budgeted elsewhere"))
    # What the pack can price is a lower bound of the truth where some GPU capacity cannot be
    # priced or sized (it adds nothing to the figure, never less than nothing): that bound
    # alone over the cap is reported too, never hidden behind the finding that names the rest.
    bound = _lower_bound(est)
    if cap_config is not None and est.total > cap_config:
        out.append(violation(
            anchor, f"the estimated monthly cost exceeds the policy's maxMonthlyUsd{bound}",
            est.describe(), f"at most {cap_config:,.2f} USD/month", _SMALLER))
    elif cap_config is None and _over_caps(caps, est, groups, found_budgets):
        out += _over_caps(caps, est, groups, found_budgets, bound)
    elif cap_config is None and _over_budget(found_budgets, est, groups) is not None:
        b, covered, left = _over_budget(found_budgets, est, groups) or (None, 0.0, "")
        assert b is not None and b.monthly is not None
        out.append(violation(
            b.resource, f"the estimated monthly cost of what budget {b.resource.name} covers "
            f"exceeds it{bound}", f"{covered:,.2f} USD/month: the stack's "
            f"{est.describe(b.resource.cloud if len(est.clouds) > 1 else None)}, less the "
            f"GPU groups the budget leaves out ({left})",
            f"at most {b.monthly:,.2f} USD/month (budget {b.resource.name})",
            "use fewer nodes, spot: true, or a smaller instance type in the groups the budget "
            "covers; raise the budget; or enforce a lifetime (max_hours in the spec, with the "
            "schedule/maxRunDuration/autoReleaseTime that stops the nodes)"))
    elif bound:
        pass   # the findings above name what cannot be priced; the rest is under every cap
    elif est.undecided:
        # Asked only where nothing else fails (below): an invalid max-hours tag or a budget
        # that is no alarm, reported above, is not hidden behind the unknown size.
        undecided = undecided or UnknownValue(anchor, "capacity (" + "; ".join(est.undecided)
                                              + ")")
    elif cap_config is None:
        # A pass, unless a budget whose reach cannot be decided is below what it would cover:
        # it is the cap if it takes the compute in.
        undecided = undecided or _maybe_cap(found_budgets, est, groups)
    if undecided is not None and not out:
        # Undecided only where nothing else fails: one unreadable budget hides no violation.
        raise undecided
    return out


def _lower_bound(est: pricing.Estimate) -> str:
    """"" when the estimate prices all GPU capacity; else the words that say its figure is a
    lower bound, naming what is left out of it (a size that is no valid number, GPU capacity
    the catalog cannot price or the pack cannot size: each adds nothing to the figure)."""
    names = [given_by.name for given_by, _ in est.invalid] + \
        [what.split(" (", 1)[0].split(": ", 1)[0] for what in est.missing]
    if not names:
        return ""
    left = ", ".join(dict.fromkeys(names))
    return (f", even as a lower bound (what cannot be priced, {left}, is left out of the "
            "figure)")


def _alarm(cloud: str, groups: list, found_budgets: list,
           undecided: Optional[UnknownValue]) -> tuple[list[Violation], Optional[UnknownValue]]:
    """The budget alarm of each GPU group on `cloud`: a budget of that cloud that notifies
    someone and takes the group in (Budget.coverage). A group no such budget takes in is
    "cannot decide" when one may, else the budget that would be its alarm is silent, else it
    has none: one violation for the cloud, naming the groups when others are covered."""
    mine = [b for b in found_budgets if b.resource.cloud == cloud]
    heard = [b for b in mine if not b.silent and not b.silent_unknown]
    bare = [g for g in groups if g.cloud == cloud
            and not any(b.coverage(g.resource) for b in heard)]
    if not bare:
        return [], undecided
    out: list[Violation] = []
    silent_for: list = []
    none_for: list = []
    for g in bare:
        unread = next((b for b in heard if b.coverage(g.resource) is None), None)
        if unread is not None:
            # Whether its filters (or its resource group) take in the group is known only after
            # apply, or not from the stack (an AKS node resource group).
            path, outside = unread.why_unsure(g.resource)
            undecided = undecided or (_NotShown(unread.resource, outside) if outside
                                      else UnknownValue(unread.resource, path))
            continue
        # A budget that may take the group in and whose notifying anyone is known only after
        # apply (its notification list unknown at preview) may be the alarm: cannot decide.
        maybe = next((b for b in mine if b.silent_unknown
                      and b.coverage(g.resource) is not False), None)
        if maybe is not None:
            undecided = undecided or UnknownValue(maybe.resource, maybe.silent_unknown)
            continue
        silent = next((b for b in mine if b.coverage(g.resource) and b.silent), None)
        (silent_for if silent is not None else none_for).append((g, silent))
    if silent_for:
        silent = silent_for[0][1]
        # A budget no one hears: it states the cap, but it is not the alarm.
        out.append(violation(
            silent.resource, f"the stack has no budget alarm on {cloud}: the budget "
            "notifies no one when it is crossed", silent.silent,
            "a notification (alert threshold) with at least one recipient",
            "add a notification with e-mail (or SNS / Pub/Sub / action group) "
            "recipients to the budget, or set budget.emails in the spec (trainstack "
            "creates the budget with them)"))
    if not none_for:
        return out, undecided
    if len(none_for) == len([g for g in groups if g.cloud == cloud]):
        # A budget of the cloud that leaves every GPU group out is named with why, not hidden
        # behind "no budget resource".
        # A budget that leaves a group out for its filters (leaves_out), or whole (its scope:
        # a Usage budget, a period that has ended).
        why = "; ".join(dict.fromkeys(
            f"budget {b.resource.name}: {b.leaves_out.get(id(g.resource)) or b.scope}"
            for g, _ in none_for for b in mine
            if id(g.resource) in b.leaves_out or (b.scope and b.coverage(g.resource) is False)))
        # On the cloud's own first GPU group (the stack's first may be another cloud's): the
        # finding names compute of the cloud that lacks the alarm.
        out.append(violation(
            none_for[0][0].resource, f"the stack has no budget alarm on {cloud}",
            f"no budget resource takes in its GPU compute ({why})" if why else
            "no budget resource",
            f"a {_BUDGET_TYPE.get(cloud, 'budget')} with alert thresholds",
            "set budget.monthly_usd and budget.emails in the spec (trainstack creates the "
            "budget), or add a budget resource to the program"))
        return out, undecided
    names = ", ".join(dict.fromkeys(g.resource.name for g, _ in none_for))
    reasons = "; ".join(f"budget {b.resource.name}: {b.leaves_out[id(g.resource)]}"
                        for g, _ in none_for[:1] for b in mine if id(g.resource) in b.leaves_out)
    out.append(violation(
        none_for[0][0].resource, f"the stack has no budget alarm on {cloud} for {names}: its "
        "budgets take in other GPU groups only", reasons or "no budget takes it in",
        "a budget with alert thresholds whose scope and filters take in every GPU group",
        "widen the budget's filters (or scope) to every GPU group, or add a budget for the "
        "groups it leaves out"))
    return out, undecided


_SMALLER = ("use fewer nodes, spot: true, or a smaller instance type; or enforce a lifetime "
            "(max_hours in the spec, with the schedule/maxRunDuration/autoReleaseTime that "
            "stops the nodes); or a smaller filesystem (it bills for the whole month, whatever "
            "the nodes' lifetime)")


def _over_caps(caps: Mapping[str, float], est: pricing.Estimate, groups: list,
               found_budgets: list, bound: str = "") -> list[Violation]:
    """Each cloud with GPU compute whose share of the estimate (its GPU groups, its other
    nodes, its storage: Estimate.share) is above its own cap (the smallest whole-cloud budget
    of that cloud): one violation per such cloud, on its first GPU group, naming the cloud,
    its estimate and its budget. A cloud's budget never caps another cloud's bill. In a stack
    on one cloud the share is the whole estimate, said as before. `bound`: the words that
    say the figure is a lower bound (_lower_bound), appended to each message."""
    out: list[Violation] = []
    several = len(est.clouds | {g.cloud for g in groups}) > 1
    for cloud in sorted({g.cloud for g in groups}):
        cap = caps.get(cloud)
        share = est.share(cloud)
        if cap is None or share <= cap:
            continue
        source = "the stack's budget" + (f" on {cloud}" if several else "")
        capping = next((b for b in found_budgets if b.resource.cloud == cloud
                        and b.monthly == cap and b.converted), None)
        if capping is not None:
            source += f" ({capping.converted})"
        first = next(g for g in groups if g.cloud == cloud)
        out.append(violation(
            first.resource, f"the estimated monthly cost{f' on {cloud}' if several else ''} "
            f"exceeds {source}{bound}", est.describe(cloud if several else None),
            f"at most {cap:,.2f} USD/month{f' (the budgets of {cloud})' if several else ''}",
            _SMALLER))
    return out


def _over_budget(found_budgets: list, est: pricing.Estimate,
                 groups: list) -> Optional[tuple[Any, float, str]]:
    """The first budget (smallest first) that takes in some GPU groups and leaves out (or may
    leave out) others, and whose share of the estimate is above its amount for certain:
    (budget, its share, the groups left out with their cost). Its share is its cloud's share
    of the estimate (a budget watches its own cloud's bill) less what those groups add, and
    less the groups whose coverage cannot be read (the least it covers; whether more is over
    is _maybe_cap's "cannot decide"): the cloud's storage and other nodes stay in."""
    names = {id(g.resource): g.resource.name for g in groups}
    partial = sorted((b for b in found_budgets
                      if b.monthly is not None and not b.scope and (b.leaves_out or b.unsure)),
                     key=lambda b: b.monthly)
    for b in partial:
        out = {k: est.by_group.get(k, 0.0) for k in b.leaves_out}
        maybe = {k: est.by_group.get(k, 0.0) for k in b.unsure if k not in b.leaves_out}
        covered = est.share(b.resource.cloud) - sum(out.values()) - sum(maybe.values())
        if covered > b.monthly:
            left = ", ".join([f"{names.get(k, '?')} = {usd:,.0f}" for k, usd in out.items()]
                             + [f"{names.get(k, '?')} = {usd:,.0f}, which it may take in"
                                for k, usd in maybe.items()])
            return b, covered, left
    return None


def _maybe_cap(found_budgets: list, est: pricing.Estimate,
               groups: list) -> Optional[UnknownValue]:
    """"Cannot decide" for the smallest budget whose coverage of some GPU group of its cloud
    cannot be decided (Budget.coverage None: a management-group scope, filters unknown at
    preview, an account or resource group the program does not show) and whose amount is
    below the most it would cover: its cloud's share of the estimate less the groups it
    leaves out for certain. If it takes those groups in it is the cap, and the stack is over
    it; if not, a larger budget decides. At or above that figure it changes no verdict. None when no such
    budget is below it."""
    for b in sorted((b for b in found_budgets if b.monthly is not None),
                    key=lambda b: b.monthly):
        unsure = [g for g in groups if g.cloud == b.resource.cloud
                  and b.coverage(g.resource) is None]
        if not unsure:
            continue
        most = est.share(b.resource.cloud) - sum(est.by_group.get(k, 0.0)
                                                 for k in b.leaves_out)
        if most > b.monthly:
            return _MaybeCap(b, most, unsure)
    return None


class _Undecidable(UnknownValue):
    """A decision no value at apply would settle either (a currency without a cited rate)."""

    FOUND = "a budget amount in a currency the catalog cites no USD rate for"
    EXPECTED = "a budget in USD, or a currency with a cited rate"
    FIX = "give the budget in USD, or in a currency the catalog's fx.csv cites a rate for"

    def __init__(self, resource: Resource, what: str):
        super().__init__(resource, what)
        self.args = (f"{resource.name}: its {what}",)


class _NotShown(_Undecidable):
    """Whether a budget takes in the GPU compute turns on a fact the program does not state
    (the account or subscription the compute deploys to, an AKS node resource group): no
    apply would tell it either."""

    FOUND = "a budget whose reach over the GPU compute the program does not show"
    EXPECTED = "a budget the program shows takes in the GPU compute"
    FIX = ("scope the budget to what the program shows the compute is in (its subscription, "
           "resource group or account, named on the provider), or exempt the resource")


class _MaybeCap(_Undecidable):
    """A budget below the estimate that is the cap if it takes in GPU compute whose coverage
    cannot be decided (_maybe_cap)."""

    FOUND = ("a budget below the estimate that is the stack's cap if it takes in the GPU "
             "compute, which the pack cannot decide")
    EXPECTED = ("every budget below the estimate shown to leave the GPU compute out, or the "
                "estimate under every budget that may take it in")
    FIX = ("scope or filter the budget so the program shows what it takes in (the compute's "
           "subscription, resource group, account, project or tags, known at preview), or "
           "keep the estimate under it")

    def __init__(self, b: Any, most: float, unsure: list):
        path, outside = b.why_unsure(unsure[0].resource)
        why = outside or f"{path} is unknown until apply"
        names = ", ".join(dict.fromkeys(g.resource.name for g in unsure))
        super().__init__(b.resource, why)
        self.args = (f"{b.resource.name}: budget {b.resource.name} of {b.monthly:,.2f} "
                     f"USD/month is the cap if it takes in {names}, and the estimate of what "
                     f"it would cover is {most:,.2f} USD/month; whether it does cannot be "
                     f"decided ({why})",)


def summary(resources: list[Resource], config: Mapping[str, Any]) -> str:
    groups, est, _, cap_config, caps = _evaluate(resources, config)
    if not groups:
        return "no node groups"
    if est.missing:
        return "cannot price GPU capacity: " + "; ".join(est.missing)
    if cap_config is not None:
        return f"estimate {est.describe()} vs cap {cap_config:,.0f} USD (maxMonthlyUsd)"
    clouds = sorted({g.cloud for g in groups})
    if len(est.clouds | set(clouds)) <= 1:
        cap = caps.get(clouds[0]) if clouds else None
        capped = f" vs cap {cap:,.0f} USD (budget)" if cap is not None else " (no cap set)"
        return f"estimate {est.describe()}{capped}"
    # Each cloud's share against its own budgets (a budget watches its cloud's bill only).
    return "; ".join(f"estimate {est.describe(c)} vs cap "
                     + (f"{caps[c]:,.0f} USD (budget on {c})" if c in caps else "none set")
                     for c in clouds)


class _OpenAmount(_Undecidable):
    """A budget whose amount the billing service sets (auto-adjusting, last period's spend):
    neither the preview nor apply tells the cap."""

    FOUND = "a budget amount the billing service sets, not the program"
    EXPECTED = "a budget with a fixed amount (the monthly cap)"
    FIX = ("give the budget a fixed amount (limitAmount / specifiedAmount), or set "
           "maxMonthlyUsd in the policy config")
