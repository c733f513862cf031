"""Budgets: the monthly cap each declares, its currency, and whether its filters cover compute."""
from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta, timezone
from typing import Any, Optional

from trainstack_policies.capacity import (
    AZ_CLASSIC_AKS_CLUSTER,
    AZ_CLASSIC_AKS_POOL,
    AZ_CLASSIC_CAPACITY_RESERVATION,
    AZ_CLASSIC_CAPACITY_RESERVATION_GROUP,
)
from trainstack_policies.inventory.tokens import AWS_BUDGET, AZ_BUDGETS, GCP_BUDGET

AWS_BUDGET_ACTION = "aws:budgets/budgetAction:BudgetAction"
from trainstack_policies.inventory.values import _dicts, _list, json_text
from trainstack_policies.model import (
    UNKNOWN,
    BadNumber,
    Resource,
    checked_number,
    number,
    short_repr,
)


@dataclass
class Budget:
    resource: Resource
    monthly: Optional[float]   # None: no fixed amount (e.g. GCP last_period_amount)
    currency: str
    amount_text: str
    unknown: str = ""          # the input path whose value is unknown at preview
    invalid: str = ""          # an amount that is NaN, infinite or not positive
    # Filters that leave out the GPU compute (an S3-only budget; a Region, tag/label, project
    # or instance type the GPU compute does not have): it watches part of the bill, not the
    # GPU spend, so it is neither the stack's cap nor its GPU alarm. Tag/label filters the GPU
    # compute carries keep it the stack's budget; an AWS LinkedAccount filter does when it
    # names the account(s) the compute's provider deploys to, and is undecided when the
    # program names none.
    scope: str = ""
    covers_compute: bool = True   # its filters still include the compute that runs GPU nodes
    # Filters (or an Azure scope) that cannot be read at preview: neither the cap nor, alone,
    # the alarm; "cannot decide" when no other budget covers the compute.
    filters_unknown: str = ""
    # Another currency: "" (USD), the rate it was converted at (monthly is then in USD), or
    # undecided text when no cited rate exists (monthly is then None).
    converted: str = ""
    no_rate: str = ""
    # Why the amount is set by the billing service, not the program (an AWS auto-adjusting
    # budget, a GCP budget of last period's spend): no cap the pack can read, before or after
    # apply ("cannot decide" where it would be the cap); monthly is then None.
    open_amount: str = ""
    # Why the budget tells no one when it is crossed ("" when it notifies someone, or when
    # that is unknown at preview): it still states the cap, but it is no alarm.
    silent: str = ""
    # The input unknown at preview that may leave it notifying no one (its notification list,
    # a notification that may be disabled): no alarm the pack can count, "cannot decide".
    silent_unknown: str = ""
    # Whether it covers the compute turns on a fact the pack cannot read (an AKS cluster's
    # node resource group unknown at preview or outside the stack): "cannot decide", as
    # filters_unknown, with this text.
    outside: str = ""
    # Per GPU group of its cloud (by id() of the group's resource): the groups its scope or
    # filters leave out (why), and those it may or may not take in (filters_unknown, outside).
    # A budget that takes in group A is no alarm for group B and caps the stack less B.
    leaves_out: dict[int, str] = field(default_factory=dict)
    unsure: dict[int, tuple[str, str]] = field(default_factory=dict)
    # A time period date that is there but no date the pack can read (text such as
    # "tomorrow", fullwidth digits, a month 13, a list): the input and its value. Never read as
    # "no end" (or "no start"): the budget is neither the cap nor the alarm, and a violation.
    unread_period: str = ""
    # A filter written in another shape than the provider's (a list of one where one object is
    # asked for, an entry that is no object), or a planned limit whose start does not read: the
    # input and its value. Never read as "no filter": neither the cap nor the alarm, a violation.
    unread_input: str = ""

    def coverage(self, group: Resource) -> Optional[bool]:
        """Whether it takes in one GPU group's cost: True, False, or None (cannot decide)."""
        if id(group) in self.unsure:
            return None
        if id(group) in self.leaves_out:
            return False
        if self.covers_compute:
            return True
        return None if self.filters_unknown or self.outside else False

    def why_unsure(self, group: Resource) -> tuple[str, str]:
        """(unknown path, outside text) that leaves its coverage of the group undecided."""
        return self.unsure.get(id(group), (self.filters_unknown, self.outside))


def _entries(value: Any) -> list:
    """A list input as its items; one object given where a list is asked for, as a list of it."""
    return [value] if isinstance(value, dict) else _list(value)


def _present(value: Any) -> bool:
    """A recipient list / topic that is set (a value unknown at preview will be set)."""
    return _has_unknown(value) or bool(value)


def _aws_silent(r: Resource, actions: list[Resource]) -> tuple[str, str]:
    """(why it notifies no one, the input unknown at preview that may make it so): an AWS
    budget with no notification that has a subscriber (e-mail or SNS topic) and no budget
    action with subscribers: AWS Budgets tells only a notification's subscribers (Budgets API
    CreateBudget, NotificationsWithSubscribers; BudgetAction subscribers). A notification
    entry unknown at preview is one: each takes a subscriber (e-mail or SNS topic, "Either
    this or subscriber_sns_topic_arns is required"); the list unknown may be empty."""
    notes = r.get("notifications")
    if notes is not UNKNOWN and any(
            n is UNKNOWN or isinstance(n, dict) and (_present(n.get("subscriberEmailAddresses"))
                                                    or _present(n.get("subscriberSnsTopicArns")))
            for n in _entries(notes)):
        return "", ""
    name = r.get("name")
    for a in actions:
        if any(d is r for d in a.deps.get("budgetName", [])) or \
                (isinstance(name, str) and name and a.get("budgetName") == name):
            if _present(a.get("subscribers")):
                return "", ""
    if notes is UNKNOWN:
        return "", "notifications"
    return ("no notification with an e-mail or SNS subscriber, and no budget action"
            if not _entries(notes) else "its notifications have no subscriber"), ""


def _gcp_silent(r: Resource) -> tuple[str, str]:
    """(why its alerts reach no one, the input unknown at preview that may make it so): e-mails
    go out when a threshold rule is crossed, to the billing account's administrators and users
    unless allUpdatesRule.disableDefaultIamRecipients, and to its monitoring channels; a
    Pub/Sub topic gets every update (cloud.google.com/billing/docs/reference/budget/rest/v1/
    billingAccounts.budgets#NotificationsRule)."""
    rules, every = r.get("thresholdRules"), r.get("allUpdatesRule")
    if every is UNKNOWN:
        return "", "allUpdatesRule"   # a topic may be there, or every recipient turned off
    every = every if isinstance(every, dict) else {}
    if _present(every.get("pubsubTopic")):
        return "", ""
    if rules is UNKNOWN:
        return "", "thresholdRules"   # may be empty: no threshold, no e-mail
    if not _entries(rules):
        return "no thresholdRules (alert e-mails go out only when a threshold is crossed) and " \
               "no allUpdatesRule.pubsubTopic", ""
    if _present(every.get("monitoringNotificationChannels")) or \
            every.get("enableProjectLevelRecipients") is True:
        return "", ""
    disable = every.get("disableDefaultIamRecipients")
    if disable is UNKNOWN:
        return "", "allUpdatesRule.disableDefaultIamRecipients"
    if disable is not True:
        return "", ""
    if every.get("enableProjectLevelRecipients") is UNKNOWN:
        return "", "allUpdatesRule.enableProjectLevelRecipients"
    return "allUpdatesRule.disableDefaultIamRecipients true with no monitoring channel and no " \
           "Pub/Sub topic", ""


def _azure_silent(r: Resource) -> tuple[str, str]:
    """(why it notifies no one, the input unknown at preview that may make it so): an Azure
    budget with no enabled notification that has a contact (contactEmails, contactRoles or
    contactGroups: learn.microsoft.com/rest/api/consumption/budgets/create-or-update,
    Notification). A notification unknown at preview, or its `enabled`, may be disabled."""
    notes = r.get("notifications")
    if notes is UNKNOWN:
        return "", "notifications"
    maybe = ""
    for key, n in (notes.items() if isinstance(notes, dict) else enumerate(_list(notes))):
        if n is UNKNOWN or isinstance(n, dict) and n.get("enabled") is UNKNOWN:
            maybe = maybe or (f"notifications.{key}" if n is UNKNOWN
                              else f"notifications.{key}.enabled")
            continue
        if not isinstance(n, dict) or str(n.get("enabled")).lower() == "false":
            continue
        if any(_present(n.get(k)) for k in ("contactEmails", "contactRoles", "contactGroups")):
            return "", ""
    if maybe:
        return "", maybe
    return "no enabled notification with a contact e-mail, role or action group", ""


def _has_unknown(value: Any) -> bool:
    if value is UNKNOWN:
        return True
    if isinstance(value, dict):
        return any(_has_unknown(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(_has_unknown(v) for v in value)
    return False


def _in_usd(b: Budget) -> Budget:
    """A budget in another currency, converted at the catalog's cited rate (fx.csv), or left
    without an amount ("cannot decide") when none is cited."""
    currency = b.currency.strip().upper()
    if currency in ("", "USD") or b.monthly is None:
        return b
    from trainstack_policies.catalog import fx_rate
    rate = fx_rate(currency)
    if rate is None:
        b.no_rate = (f"amount in {currency} (the catalog cites no {currency}-USD rate to "
                     "convert it at)")
        b.monthly = None
        return b
    per_usd, source, as_of = rate
    b.converted = (f"{b.amount_text} {currency} at {per_usd:g} {currency} per USD, {source}, "
                   f"as of {as_of}")
    b.monthly = b.monthly / per_usd
    return b


# A set: _compute_groups asks it of every resource of the stack (one look-up each).
_AZ_COMPUTE_IN_GROUPS = frozenset({
    "azure-native:compute:VirtualMachineScaleSet", "azure-native:compute:VirtualMachine",
    # The classic provider's scale sets and VMs name their resource group the same way.
    "azure:compute/linuxVirtualMachineScaleSet:LinuxVirtualMachineScaleSet",
    "azure:compute/windowsVirtualMachineScaleSet:WindowsVirtualMachineScaleSet",
    "azure:compute/orchestratedVirtualMachineScaleSet:OrchestratedVirtualMachineScaleSet",
    "azure:compute/scaleSet:ScaleSet",   # the legacy classic set
    "azure:compute/linuxVirtualMachine:LinuxVirtualMachine",
    "azure:compute/windowsVirtualMachine:WindowsVirtualMachine",
    # A capacity reservation bills in its own group (azure-native names it).
    "azure-native:compute:CapacityReservation"})


def _compute_groups(resources: list[Resource],
                    only: Any = None) -> tuple[set[str], str, frozenset[str]]:
    """The resource groups (lower case) the stack's Azure compute bills in, what keeps one
    of them from being read ("" when nothing does), and the groups that are certainly none of
    those unread ones (empty unless every unread one is the node resource group of an AKS
    cluster of the stack: never that cluster's own group, which "contains only the Kubernetes
    service resource" while AKS creates the node resource group itself, AKS FAQ "Why are two
    resource groups created with AKS?"): scale sets, VMs and capacity reservations (azure-native and classic) in their own group (a classic reservation
    has none of its own: its reservation group's); the GPU pools of an AKS cluster (azure-native or classic) in its
    node resource group, not the cluster's own (the cluster's group holds only the Kubernetes
    service resource; the node VMs are in
    `nodeResourceGroup`, default MC_<group>_<cluster>_<location>: learn.microsoft.com/azure/
    aks/faq, "Why are two resource groups created with AKS?"); Azure ML compute in its
    workspace's group (the Compute's resourceGroupName). `only`: one GPU group's alone."""
    out: set[str] = set()
    unread = ""
    # Per unread group, the groups it is certainly not; their intersection is returned.
    never: list[set[str]] = []
    for c in (resources if only is None else [only.resource]):
        if c.type in _AZ_COMPUTE_IN_GROUPS:
            why = _own_group(c, c, out)
            unread = unread or why
            never += [set()] if why else []
    from trainstack_policies.inventory.compute import gpu_groups
    for g in (gpu_groups(resources) if only is None else [only]):
        r = g.resource
        if r.type == _AML_COMPUTE:
            group = r.get("resourceGroupName")
            if isinstance(group, str) and group:
                out.add(group.lower())
            else:
                unread = unread or f"resource group of Azure ML compute {r.name}"
                never.append(set())
        elif r.type in _AKS:
            cluster = r if r.type in _AKS_CLUSTERS else _pool_cluster(r, resources)
            group, why = _node_resource_group(cluster) if cluster is not None else \
                (None, f"node resource group of AKS agent pool {r.name}'s cluster (the "
                       "cluster is not in the stack)")
            if group is not None:
                out.add(group)
            else:
                unread = unread or why
                # Not the group of a cluster of the stack: it "contains only the Kubernetes
                # service resource" (AKS FAQ); the node resource group is AKS's own.
                own: set[str] = set()
                if cluster is not None:
                    _own_group(cluster, r, own)
                never.append(own)
        elif r.type == AZ_CLASSIC_CAPACITY_RESERVATION:
            why = _reservation_group(r, out)
            unread = unread or why
            never += [set()] if why else []
    return out, unread, frozenset(set.intersection(*never) if never and unread else ())


def _own_group(c: Resource, whose: Resource, out: set[str]) -> str:
    """Add to `out` the billing group `c` names (its resourceGroupName, or the ResourceGroup
    of the stack that input is built from); what keeps it from being read ("" when nothing
    does), said of `whose` resource group."""
    own = c.get("resourceGroupName")
    if isinstance(own, str):
        out.add(own.lower())
        return ""
    unread = ""
    for d in c.deps.get("resourceGroupName", []):
        key = resource_group_key(d)
        if key is not None:
            out.add(key)
        if key is None or key.startswith("<"):
            unread = unread or (
                f"resource group of {whose.name} (ResourceGroup {d.name} is auto-named: "
                f"{d.name} plus a random suffix)" if key else
                f"resource group of {whose.name} (from {d.name}, unknown until apply)")
    return unread


def _reservation_group(r: Resource, out: set[str]) -> str:
    """Add to `out` the billing group of a classic capacity reservation: that of the
    capacity reservation group it names (the group of the stack it depends on, or the
    resourceGroups/<name> segment of a literal ARM id); what keeps it from being read."""
    crg = next((d for d in r.deps.get("capacityReservationGroupId", [])
                if d.type == AZ_CLASSIC_CAPACITY_RESERVATION_GROUP), None)
    if crg is not None:
        if crg.get("resourceGroupName") is None and not crg.deps.get("resourceGroupName"):
            return f"resource group of {r.name} (its reservation group {crg.name} names none)"
        return _own_group(crg, r, out)
    ident = r.get("capacityReservationGroupId")
    if isinstance(ident, str) and "/resourcegroups/" in ident.lower():
        out.add(ident.lower().split("/resourcegroups/")[1].split("/")[0])
        return ""
    return (f"resource group of {r.name} (its capacityReservationGroupId is "
            f"{'unknown until apply' if ident is UNKNOWN or ident is None else 'not an ARM id'})")


# A resource group's own name input per provider. Left out, the provider names the group
# `<logical name><random suffix>` (pulumi-azure-native auto-naming of top-level resources,
# "rg" becomes e.g. "rg8a43bc22": github.com/pulumi/pulumi-azure-native/pull/519; the classic
# provider the same: github.com/pulumi/pulumi-azure/issues/131), and auto-naming can be
# reconfigured per project or provider (pulumi.com/docs/iac/concepts/resources/names): the
# real name cannot be known at preview.
RESOURCE_GROUPS = {"azure-native:resources:ResourceGroup": "resourceGroupName",
                   "azure:core/resourceGroup:ResourceGroup": "name"}


def resource_group_key(d: Resource) -> Optional[str]:
    """The billing group (lower case) that a resource the compute's or a budget's group is
    built from stands for: its resourceGroupName (a ResourceGroup's own name input); for an
    auto-named ResourceGroup a key of its own, "<urn>", that no literal name equals (only a
    value built from that same ResourceGroup matches it); None when it does not say."""
    name = d.get(RESOURCE_GROUPS.get(d.type, "resourceGroupName"))
    if isinstance(name, str) and name:
        return name.lower()
    if d.type in RESOURCE_GROUPS and d.get(RESOURCE_GROUPS[d.type]) is None:
        return f"<{d.urn}>"
    return None


_AKS_CLUSTER = "azure-native:containerservice:ManagedCluster"
_AKS_POOL = "azure-native:containerservice:AgentPool"
_AKS_CLUSTERS = (_AKS_CLUSTER, AZ_CLASSIC_AKS_CLUSTER)
_AKS = (_AKS_CLUSTER, _AKS_POOL, AZ_CLASSIC_AKS_CLUSTER, AZ_CLASSIC_AKS_POOL)
_AML_COMPUTE = "azure-native:machinelearningservices:Compute"


def _pool_cluster(pool: Resource, resources: list[Resource]) -> Optional[Resource]:
    """The ManagedCluster of the stack an AgentPool belongs to: its resourceName depends on
    it, or names the cluster's resourceName in the same resource group; the classic
    KubernetesCluster a classic KubernetesClusterNodePool's kubernetesClusterId depends on."""
    if pool.type == AZ_CLASSIC_AKS_POOL:
        return next((d for d in pool.deps.get("kubernetesClusterId", [])
                     if d.type == AZ_CLASSIC_AKS_CLUSTER), None)
    for d in pool.deps.get("resourceName", []):
        if d.type == _AKS_CLUSTER:
            return d
    name, group = pool.get("resourceName"), pool.get("resourceGroupName")
    if not isinstance(name, str) or not isinstance(group, str):
        return None
    return next((c for c in resources if c.type == _AKS_CLUSTER
                 and c.get("resourceName") == name
                 and str(c.get("resourceGroupName")).lower() == group.lower()), None)


def _node_resource_group(cluster: Resource) -> tuple[Optional[str], str]:
    """(the node resource group in lower case, or None and why it cannot be read) of an AKS
    cluster: its nodeResourceGroup, else MC_<resourceGroupName>_<name>_<location> (the default
    name, AKS FAQ; the cluster's name is an azure-native cluster's resourceName, a classic
    one's name; an Azure resource group name has at most 90 characters, so a longer default is
    not guessed)."""
    own = cluster.get("nodeResourceGroup")
    if own is not None:
        if isinstance(own, str) and own:
            return own.lower(), ""
        return None, (f"node resource group of AKS cluster {cluster.name} (nodeResourceGroup "
                      f"{'unknown until apply' if own is UNKNOWN else 'is not a name'})")
    name = "name" if cluster.type == AZ_CLASSIC_AKS_CLUSTER else "resourceName"
    parts = [cluster.get(k) for k in ("resourceGroupName", name, "location")]
    if all(isinstance(p, str) and p for p in parts):
        default = "mc_{}_{}_{}".format(parts[0], parts[1], parts[2].replace(" ", "")).lower()
        if len(default) <= 90:
            return default, ""
        return None, (f"node resource group of AKS cluster {cluster.name} (its default name "
                      "would pass the 90 characters of a resource group name, and AKS's "
                      "shortened form is not documented)")
    return None, (f"node resource group of AKS cluster {cluster.name} (no nodeResourceGroup, "
                  f"and the default MC_<resourceGroupName>_<{name}>_<location> needs all "
                  "three, one of which is not known at preview)")


# Azure compute whose nodes bill in the subscription its provider deploys into: scale sets and
# VMs, AKS agent pools (alone or as a managed cluster's agentPoolProfiles: their node scale sets
# are made in the cluster's subscription), Azure ML compute clusters and capacity reservations
# (billed where they are made, used or not), azure-native and classic (the classic provider
# names its subscription by the same subscriptionId).
_AZ_SUBSCRIBED = frozenset({
    "azure-native:compute:VirtualMachineScaleSet", "azure-native:compute:VirtualMachine",
    "azure-native:containerservice:AgentPool", "azure-native:containerservice:ManagedCluster",
    "azure-native:machinelearningservices:Compute", "azure-native:compute:CapacityReservation",
    "azure:compute/linuxVirtualMachineScaleSet:LinuxVirtualMachineScaleSet",
    "azure:compute/windowsVirtualMachineScaleSet:WindowsVirtualMachineScaleSet",
    "azure:compute/orchestratedVirtualMachineScaleSet:OrchestratedVirtualMachineScaleSet",
    "azure:compute/scaleSet:ScaleSet",   # the legacy classic set
    "azure:compute/linuxVirtualMachine:LinuxVirtualMachine",
    "azure:compute/windowsVirtualMachine:WindowsVirtualMachine",
    AZ_CLASSIC_AKS_CLUSTER, AZ_CLASSIC_AKS_POOL, AZ_CLASSIC_CAPACITY_RESERVATION,
})


def _compute_subscriptions(resources: list[Resource]) -> Optional[set[str]]:
    """The subscriptions (lower case) the stack's Azure compute (_AZ_SUBSCRIBED) deploys into,
    from their providers' subscriptionId; None when one of them does not say (the
    ARM_SUBSCRIPTION_ID environment or the CLI login chooses it, which the pack cannot see)."""
    out: set[str] = set()
    for c in resources:
        if c.type in _AZ_SUBSCRIBED:
            sub = (c.provider or {}).get("subscriptionId")
            if not isinstance(sub, str) or not sub:
                return None
            out.add(sub.lower())
    return out


def _azure_scope(r: Resource, compute_groups: set[str],
                 subscriptions: Optional[set[str]] = None,
                 unread: str = "", never: frozenset[str] = frozenset()) -> tuple[str, bool, str]:
    """(scope text, covers compute, unknown path) of an Azure budget scoped to a subscription
    or a resource group: it covers the compute only when Azure compute of the stack bills in
    that subscription (when their providers name theirs) and that group (_compute_groups: a
    scale set's or VM's resourceGroupName, or the ResourceGroup resource it depends on; an AKS
    pool's node resource group; Azure ML compute's workspace group). A group that is none of
    them while one of those groups cannot be read (`unread`) is undecided, unless it is
    certainly not the unread one (`never`: an AKS cluster's own group, which never holds its
    nodes): the unknown path is then "" and the scope text says why (Budget.outside)."""
    scope = r.get("scope")
    built = [(k, d) for d in r.deps.get("scope", []) + r.deps.get("resourceGroupId", [])
             if d.type in RESOURCE_GROUPS for k in [resource_group_key(d)] if k is not None]
    if scope is UNKNOWN and built:
        # Built from a ResourceGroup of the stack (its id output): that group.
        key, maker = built[0]
        if key in compute_groups:
            return "", True, ""
        text = f"scope (built from ResourceGroup {maker.name})"
        if unread and key in never:
            return f"{text} {_AKS_OWN_GROUP}", False, ""
        if unread:
            return f"{text} (may be the {unread})", False, ""
        return f"{text} (another resource group than the compute's)", False, ""
    if scope is UNKNOWN:
        return "scope (unknown until apply)", False, "scope"
    if isinstance(scope, str) and scope.lower().startswith(_MANAGEMENT_GROUP_SCOPE):
        return _in_management_group(scope), False, ""
    if isinstance(scope, str) and subscriptions and scope.lower().startswith("/subscriptions/"):
        sub = scope.lower().split("/subscriptions/")[1].split("/")[0]
        if sub not in subscriptions:
            return f"scope {scope} (another subscription than the compute's)", False, ""
    if not isinstance(scope, str) or "/resourcegroups/" not in scope.lower():
        return "", True, ""
    group = scope.lower().split("/resourcegroups/")[1].split("/")[0]
    if group in compute_groups:
        return "", True, ""
    if unread and group in never:
        return f"scope {scope} {_AKS_OWN_GROUP}", False, ""
    if unread:
        return f"scope {scope} (may be the {unread})", False, ""
    return f"scope {scope} (another resource group than the compute's)", False, ""


# A budget on an AKS cluster's own resource group, beside its unread node resource group.
_AKS_OWN_GROUP = ("(the AKS cluster's own resource group, which holds only the Kubernetes "
                  "service resource: its nodes bill in the node resource group AKS creates)")


# A management group's id (learn.microsoft.com/rest/api/consumption/budgets: a budget's scope
# may be "/providers/Microsoft.Management/managementGroups/{managementGroupId}").
_MANAGEMENT_GROUP_SCOPE = "/providers/microsoft.management/managementgroups/"


def _in_management_group(scope: str) -> str:
    """The outside text of a budget scoped to a management group: which subscriptions are in
    it is set outside the program, so whether it takes in the compute's cannot be read."""
    return (f"scope {scope}: whether the GPU compute's subscription is in that management "
            "group is not in the program (budget the subscription or the compute's resource "
            "group instead)")


def _azure_filter_covers(f: Any, compute_groups: set[str], resources: list[Resource],
                         cache: dict, subscriptions: Optional[set[str]] = None,
                         unread: str = "", never: frozenset[str] = frozenset()) -> Any:
    """Whether an Azure budget's filter takes in the GPU compute billing in `compute_groups`:
    True, False, None (a ResourceGroupName or ResourceId naming none of the compute's known
    groups while the compute is in an auto-named ResourceGroup of the stack, whose real name is
    read only after apply, or one of the compute's groups is not read at all (`unread`: an
    AKS pool's node resource group when its cluster is not in the stack) and the literal is
    not certainly another (`never`): the literal may be it, as for a budget's scope), UNKNOWN (the
    compute's location or name is read only after apply) or _UNREAD (a dimension, operator or
    key the pack does not read). The filter's `and` clauses, `dimensions` and `tags` all apply,
    `not` negates (Microsoft.Consumption budgets 2019-10-01 BudgetFilter: and, dimensions,
    tags, not; operator "In")."""
    if not isinstance(f, dict):
        return True
    def may_be(group: str) -> bool:
        """Whether a group none of the compute's known ones may still be one of them."""
        return any(g.startswith("<") for g in compute_groups) or \
            (bool(unread) and group not in never)
    return _azure_part(f, compute_groups, resources, cache, subscriptions, False, may_be)


def _azure_part(part: Any, groups: set[str], resources: list[Resource], cache: dict,
                subscriptions: Optional[set[str]], negated: bool, may_be: Any) -> Any:
    if not isinstance(part, dict):
        return _UNREAD
    results: list[Any] = []
    for key, value in part.items():
        if value is None or value == [] or value == {}:
            continue
        if key == "and":
            results += [_azure_part(p, groups, resources, cache, subscriptions, negated, may_be)
                        for p in _list(value)]
        elif key == "not":
            inner = _azure_part(value, groups, resources, cache, subscriptions, not negated,
                                may_be)
            results.append(not inner if isinstance(inner, bool) else inner)
        elif key == "dimensions":
            results.append(_azure_dimension(value, groups, resources, cache, subscriptions,
                                            may_be))
        elif key == "tags":
            results.append(_azure_tag(value, resources, cache, negated))
        else:
            results.append(_UNREAD)
    if False in results:
        return False
    for undecided in (_UNREAD, None, UNKNOWN):
        if any(r is undecided for r in results):
            return undecided
    return True


def _azure_tag(tag: Any, resources: list[Resource], cache: dict, negated: bool) -> Any:
    """A tag expression: True when the GPU compute carries the tag with one of the values (a
    compute whose tags are unknown at preview is taken to carry it, UNKNOWN under `not`)."""
    if not isinstance(tag, dict) or not isinstance(tag.get("name"), str) or \
            str(tag.get("operator") or "In").lower() != "in":
        return _UNREAD
    compute = _compute_of(resources, "azure", cache)
    lowered = [{str(k).lower(): v for k, v in t.items()} if isinstance(t, dict) else t
               for t in compute.tags]
    hits = [_tag_matches(lowered, tag["name"].lower(), v) for v in _list(tag.get("values"))]
    if True in hits:
        return True
    if any(h is UNKNOWN for h in hits):
        return UNKNOWN if negated else True
    return False


# Dimension values of the meters that bill VM hours (scale sets, VMs, AKS nodes, Azure ML
# compute, capacity reservations): serviceName / meter category "Virtual Machines", service
# family "Compute" (learn.microsoft.com/rest/api/cost-management/retail-prices/
# azure-retail-prices).
_AZ_VM_SERVICE = {"metercategory": "virtual machines", "servicename": "virtual machines",
                  "servicefamily": "compute"}


def _azure_dimension(dim: Any, groups: set[str], resources: list[Resource], cache: dict,
                     subscriptions: Optional[set[str]], may_be: Any) -> Any:
    """A dimension expression: ResourceGroupName (the compute's billing groups), ResourceLocation
    (its location), ResourceId (its ARM id), MeterCategory / ServiceName / ServiceFamily (VM
    meters or not); any other dimension or operator is _UNREAD. A group none of the compute's
    known ones is None (may be it) where `may_be` says the compute may bill there."""
    if not isinstance(dim, dict) or str(dim.get("operator") or "In").lower() != "in":
        return _UNREAD
    name = str(dim.get("name")).lower()
    values = [str(v) for v in _list(dim.get("values"))]
    if name in ("resourcegroupname", "resourcegroup"):
        if {v.lower() for v in values} & groups:
            return True
        return None if any(may_be(v.lower()) for v in values) else False
    if name in _AZ_VM_SERVICE:
        return _AZ_VM_SERVICE[name] in {v.strip().lower() for v in values}
    compute = _compute_of(resources, "azure", cache)
    if name == "resourcelocation":
        if any(not isinstance(r, str) or not r for r in compute.regions):
            return UNKNOWN
        wanted = {v.replace(" ", "").lower() for v in values}
        return any(r.replace(" ", "").lower() in wanted for r in compute.regions)
    if name == "resourceid":
        return _any_of([_resource_id(v, groups, compute, subscriptions, may_be) for v in values])
    return _UNREAD


def _resource_id(value: str, groups: set[str], compute: _Compute,
                 subscriptions: Optional[set[str]], may_be: Any) -> Any:
    """Whether a ResourceId value is the GPU compute's ARM id
    (/subscriptions/{sub}/resourceGroups/{group}/providers/{namespace}/{type}/{name})."""
    parts = value.strip().lower().strip("/").split("/")
    if len(parts) != 8 or parts[0] != "subscriptions" or parts[2] != "resourcegroups" or \
            parts[4] != "providers":
        return _UNREAD
    sub, group, kind, name = parts[1], parts[3], f"{parts[5]}/{parts[6]}", parts[7]
    if subscriptions and sub not in subscriptions:
        return False
    if group not in groups:
        return None if may_be(group) else False
    out: list[Any] = []
    for arm in compute.arm:
        if arm is None:
            out.append(_UNREAD)          # AKS / AML nodes: ids the pack does not build
        elif arm[0] != kind:
            out.append(False)
        elif arm[1] is None:
            out.append(UNKNOWN)          # auto-named: its name is read after apply
        else:
            out.append(arm[1] == name)
    return _any_of(out)


_PERIODS = {"MONTHLY": 1, "MONTH": 1, "BILLINGMONTH": 1, "QUARTERLY": 3,
            "QUARTER": 3, "BILLINGQUARTER": 3, "ANNUALLY": 12, "YEAR": 12, "BILLINGANNUAL": 12,
            "DAILY": 24 / 730}

# GCP: Compute Engine's Cloud Billing service id, as a budgetFilter.services entry names it.
_GCP_COMPUTE_SERVICE = "services/6f81-5844-456a"
# AWS: the Service filter's values are Cost Explorer's service names. Instance hours are
# "Amazon Elastic Compute Cloud - Compute" (shown as "EC2-Instances"); "EC2 - Other" is EBS,
# snapshots, NAT gateways, data transfer and idle addresses, never instance hours.
# Compared exactly, as AWS compares a filter value ("The default values for MatchOptions are
# EQUALS and CASE_SENSITIVE", Cost Explorer API DimensionValues): a value in another case or
# spacing names no service AWS bills under and matches nothing.
_AWS_INSTANCE_HOURS = {"Amazon Elastic Compute Cloud - Compute", "EC2-Instances"}
_AWS_NOT_INSTANCE_HOURS = {"EC2 - Other", "EC2-Other"}


def _folded(value: str) -> str:
    """A value with case and runs of spaces folded: to tell a near miss of a value AWS bills
    under (which matches nothing) from a value the pack does not know."""
    return " ".join(value.lower().split())


def _near_miss(value: str, known: set) -> bool:
    """Another spelling (case, spaces) of one of the `known` values, not the value itself."""
    return value not in known and _folded(value) in {_folded(k) for k in known}


def _aws_service(value: str) -> Any:
    """Whether one Service filter value takes in EC2 instance hours: True, False, or _UNREAD
    for a value that names EC2 otherwise (what it holds is not the pack's to guess)."""
    if value in _AWS_INSTANCE_HOURS:
        return True
    if value in _AWS_NOT_INSTANCE_HOURS or \
            _near_miss(value, _AWS_INSTANCE_HOURS | _AWS_NOT_INSTANCE_HOURS):
        return False   # EC2 - Other, or a near miss that matches no cost at all
    text = _folded(value)
    if "ec2" in text or "elastic compute cloud" in text:
        return _UNREAD
    return False


def _per_month(amount: Optional[float], period: Any) -> Optional[float]:
    if amount is None:
        return None
    months = _PERIODS.get(str(period or "MONTHLY").replace(" ", "").upper(), 1)
    return amount / months


def _amount(r: Resource, path: str) -> tuple[Optional[float], str, str]:
    """(amount, unknown path, invalid text) of a budget amount input."""
    value = checked_number(r.reach(path))
    if value is UNKNOWN:
        return None, path, ""
    if isinstance(value, BadNumber) or value == 0:
        return None, "", value.text if value else "0"
    return value, "", ""


class _Compute:
    """What the stack's GPU compute of one cloud is, for matching a budget's filters: its
    regions, tags/labels, projects and types (read once per stack, only for a budget with a
    filter that names them)."""

    def __init__(self, resources: list[Resource], cloud: str, only: Optional[list] = None):
        from trainstack_policies.inventory.compute import gpu_groups
        from trainstack_policies.inventory.tags import instance_tags
        self.regions: list[str] = []
        self.tags: list[Any] = []          # per group: a dict, or UNKNOWN
        self.projects: list[Any] = []
        self.types: list[Any] = []
        self.zones: list[Any] = []         # every group's zones ("" unread, UNKNOWN)
        self.spot: list[bool] = []         # per group: spot (else On-Demand)
        # per group (AWS): (accounts its provider may deploy to or None, accounts it may not)
        self.accounts: list[tuple[Any, set]] = []
        # per group (Azure): (ARM resource type, name) of a scale set or VM, the name None
        # when auto-named; None for compute whose ARM id the pack does not build (AKS, AML)
        self.arm: list[Any] = []
        for g in (gpu_groups(resources) if only is None else only):
            if g.cloud != cloud:
                continue
            self.regions.append(g.region)
            self.zones += list(g.zones)
            self.spot.append(bool(g.spot))
            self.types += list(g.instance_types)
            if cloud == "aws":
                self.accounts.append(_aws_accounts(g.resource))
            if cloud == "azure":
                self.arm.append(_arm_name(g.resource))
            self.tags.append(instance_tags(g.resource, g.template))
            if cloud == "gcp":
                project = g.resource.get("project") or (
                    g.template.get("project") if g.template is not None else None) \
                    or g.resource.provider.get("project")
                self.projects.append(project)


# The ARM resource type and name input of the Azure compute whose id is
# /subscriptions/{sub}/resourceGroups/{group}/providers/{type}/{name} (azure-native and
# classic scale sets and VMs).
_ARM_NAMES = {
    "azure-native:compute:VirtualMachineScaleSet": ("microsoft.compute/virtualmachinescalesets",
                                                    "vmScaleSetName"),
    "azure-native:compute:VirtualMachine": ("microsoft.compute/virtualmachines", "vmName"),
    **{t: ("microsoft.compute/virtualmachinescalesets", "name") for t in (
        "azure:compute/linuxVirtualMachineScaleSet:LinuxVirtualMachineScaleSet",
        "azure:compute/windowsVirtualMachineScaleSet:WindowsVirtualMachineScaleSet",
        "azure:compute/orchestratedVirtualMachineScaleSet:OrchestratedVirtualMachineScaleSet",
        "azure:compute/scaleSet:ScaleSet")},
    **{t: ("microsoft.compute/virtualmachines", "name") for t in (
        "azure:compute/linuxVirtualMachine:LinuxVirtualMachine",
        "azure:compute/windowsVirtualMachine:WindowsVirtualMachine")},
}


def _arm_name(r: Resource) -> Any:
    """(ARM type, lower-case name or None when auto-named / unknown) of a scale set or VM; None
    for other compute."""
    if r.type not in _ARM_NAMES:
        return None
    kind, key = _ARM_NAMES[r.type]
    name = r.get(key)
    return (kind, name.lower() if isinstance(name, str) and name else None)


def _aws_accounts(r: Resource) -> tuple[Any, set]:
    """(the accounts r's AWS provider may deploy to, the accounts it may not): its
    allowedAccountIds, else the account of the role it assumes (the last of assumeRoles, an
    arn:aws:iam::<account>:role/... ARN); None where the program names no account, UNKNOWN
    where that is unknown at preview; forbiddenAccountIds (pulumi-aws provider inputs)."""
    provider = r.provider
    forbidden = json_text(provider.get("forbiddenAccountIds"))
    refused = {str(a) for a in forbidden if isinstance(a, (str, int))} \
        if isinstance(forbidden, list) else set()
    allowed = json_text(provider.get("allowedAccountIds"))
    if _has_unknown(allowed):
        return UNKNOWN, refused
    if isinstance(allowed, list) and allowed:
        return {str(a) for a in allowed}, refused
    roles: Any = []
    for key in ("assumeRoles", "assumeRole"):
        value = json_text(provider.get(key))
        roles = roles or ([value] if isinstance(value, dict) else _list(value))
    arns = [role.get("roleArn") if isinstance(role, dict) else UNKNOWN for role in roles
            if isinstance(role, dict) or role is UNKNOWN]
    arn = arns[-1] if arns else None
    if _has_unknown(arn):
        return UNKNOWN, refused
    account = str(arn).split(":")[4] if isinstance(arn, str) and arn.count(":") >= 5 else ""
    return ({account} if account.isdigit() else None), refused


def _compute_of(resources: list[Resource], cloud: str, cache: dict) -> _Compute:
    if cloud not in cache:
        cache[cloud] = _Compute(resources, cloud)
    return cache[cloud]


def _tag_matches(tags: list[Any], key: str, value: Any) -> Any:
    """True when a group carries tag key=value, UNKNOWN when a group's tags are unknown."""
    if any(t is UNKNOWN for t in tags):
        return UNKNOWN
    return any(str(t.get(key)) == str(value) for t in tags if key in t)


# A filter whose reach the pack does not read (an AWS CostCategory, a GCP subaccount, an Azure
# dimension or operator it does not know): the budget's coverage of the GPU compute is then
# "cannot decide" (Budget.outside), never "covers". No apply would tell it either.
_UNREAD = object()


def _unread_text(what: str) -> str:
    return (f"{what}: the pack does not read which costs this filter takes in, so whether it "
            "takes in the GPU compute cannot be decided (filter on a dimension the pack reads: "
            "docs/policies.md, budgets)")


# AWS Region billing codes, the prefix of a usage type (docs.aws.amazon.com/global-
# infrastructure/latest/regions/aws-region-billing-codes.html); us-east-1 usage types also
# appear with no prefix. A prefix not listed here is "cannot decide".
_AWS_BILLING_REGIONS = {
    "USE1": "us-east-1", "USE2": "us-east-2", "USW1": "us-west-1", "USW2": "us-west-2",
    "CAN1": "ca-central-1", "CAN2": "ca-west-1", "MXC1": "mx-central-1", "AFS1": "af-south-1",
    "APE1": "ap-east-1", "APE2": "ap-east-2", "APN1": "ap-northeast-1",
    "APN2": "ap-northeast-2", "APN3": "ap-northeast-3", "APS1": "ap-southeast-1",
    "APS2": "ap-southeast-2", "APS3": "ap-south-1", "APS4": "ap-southeast-3",
    "APS5": "ap-south-2", "APS6": "ap-southeast-4", "APS7": "ap-southeast-5",
    "EU": "eu-west-1", "EUC1": "eu-central-1", "EUW2": "eu-west-2", "EUW3": "eu-west-3",
    "SAE1": "sa-east-1", "UGW1": "us-gov-west-1"}
_REGION_PREFIX = re.compile(r"^([A-Z]{2,4}[0-9]?)-(.*)$")
_INSTANCE_TYPE = re.compile(r"^[a-z][a-z0-9-]*\.[a-z0-9-]+$")
# EC2 usage types that bill instance hours (docs.aws.amazon.com/AWSEC2/latest/UserGuide/
# ec2-billing-usage-reports.html): BoxUsage (On-Demand) and SpotUsage (Spot) are compared with
# the GPU groups; the others (Dedicated Instances, Dedicated Hosts, capacity reservations)
# turn on a tenancy or reservation the pack does not compare: "cannot decide". Spelt as AWS
# bills them and compared case and all (CASE_SENSITIVE, the default): "USE1-boxusage:..."
# names no usage type and matches nothing.
_AWS_HOURS = {"BoxUsage": False, "SpotUsage": True}
_AWS_OTHER_HOURS = ("DedicatedUsage", "HostBoxUsage", "HostUsage", "Reservation", "UnusedBox",
                    "UnusedDed", "DedicatedRes", "HeavyUsage")


def _usage_type(value: str, compute: _Compute) -> Any:
    """Whether one UsageType value takes in the GPU nodes' instance hours: True, False (another
    region, instance type or purchase option, or not instance hours: storage, transfer, EBS),
    UNKNOWN (the compute's type or region is unknown), _UNREAD."""
    m = _REGION_PREFIX.match(value)
    prefix, rest = (m.group(1), m.group(2)) if m else ("", value)
    family, _, itype = rest.partition(":")
    typed = bool(_INSTANCE_TYPE.match(itype))
    if family not in _AWS_HOURS and not family.startswith(_AWS_OTHER_HOURS):
        return False   # not instance hours (TimedStorage-ByteHrs, EBS:VolumeUsage.gp3, ...)
    if not typed and _INSTANCE_TYPE.match(itype.lower()):
        return False   # a type in upper case (P5.48XLARGE): EC2 bills none under that name
    if any(t is UNKNOWN for t in compute.types):
        return UNKNOWN
    if typed and itype not in compute.types:
        return False   # another instance type's hours
    if family not in _AWS_HOURS or not typed:
        return _UNREAD
    region = _AWS_BILLING_REGIONS.get(prefix) if prefix else "us-east-1"
    if region is None:
        return _UNREAD
    if any(not isinstance(r, str) or not r for r in compute.regions):   # unread or unknown
        return UNKNOWN
    return any(r == region and spot == _AWS_HOURS[family]
               for r, spot in zip(compute.regions, compute.spot))


def _any_of(results: list[Any]) -> Any:
    """Alternatives (the values of one filter): True if one takes the compute in, else
    undecided if one may (_UNREAD, None: a group that may be the compute's, UNKNOWN, as
    _azure_part orders them), else False."""
    if True in results:
        return True
    if any(r is _UNREAD for r in results):
        return _UNREAD
    if any(r is None for r in results):
        return None
    if any(r is UNKNOWN for r in results):
        return UNKNOWN
    return False


# AWS Budgets cost filters compared with the GPU compute (docs.aws.amazon.com/cost-management/
# latest/userguide/budgets-create-filters; API_budgets_Budget CostFilters): Service, Region,
# TagKeyValue ("user:<key>$<value>"), InstanceType, AZ, LinkedAccount, PurchaseType,
# UsageType (_usage_type), BillingEntity ("AWS": AWS services; "AWS Marketplace": Marketplace
# purchases, which EC2 instance hours are not). Any other name (CostCategory, Operation,
# UsageTypeGroup, ...) is _UNREAD.
def _aws_filter_covers(name: str, values: list[str], compute: _Compute) -> Any:
    if name == "region":
        if any(not isinstance(r, str) or not r for r in compute.regions):   # unread or unknown
            return UNKNOWN
        return any(r in values for r in compute.regions)
    if name == "tagkeyvalue":
        out: Any = False
        for v in values:
            key, sep, wanted = v.partition("$")
            if not sep:
                continue
            key = key[len("user:"):] if key.startswith("user:") else key
            hit = _tag_matches(compute.tags, key, wanted)
            if hit is True:
                return True
            if hit is UNKNOWN:
                out = UNKNOWN
        return out
    if name == "instancetype":
        if any(t is UNKNOWN for t in compute.types):
            return UNKNOWN
        # Exactly, case and all: "The default values for MatchOptions are EQUALS and
        # CASE_SENSITIVE" (Cost Explorer API, DimensionValues); a value in another case
        # (P5.48XLARGE) counts none of the hours EC2 bills as p5.48xlarge.
        return any(t in values for t in compute.types)
    if name == "az":
        # Availability zone names (us-east-1a): the budget watches spend in those zones only.
        if any(not isinstance(z, str) or not z for z in compute.zones):
            return UNKNOWN
        return any(z in values for z in compute.zones)
    if name == "linkedaccount":
        # The member accounts whose spend the budget counts: it covers a group whose provider
        # deploys only to those accounts; one that deploys elsewhere (or only to accounts the
        # filter leaves out) is left out; a provider that names no account may deploy to any
        # (the credentials decide, which the program does not hold): undecided.
        accounts = set(values)
        found: Any = False
        for allowed, refused in compute.accounts:
            if accounts and accounts <= refused:
                continue
            if allowed is None or allowed is UNKNOWN:
                found = UNKNOWN
            elif allowed <= accounts:
                return True
            elif allowed & accounts:
                found = UNKNOWN
        return found
    if name == "service":
        return _any_of([_aws_service(v) for v in values])
    if name == "usagetype":
        return _any_of([_usage_type(v, compute) for v in values])
    if name == "billingentity":
        # "AWS" / "AWS Marketplace" (China: "Amazon" / "Amazon Web Services Marketplace"),
        # exactly: another case or spacing ("aws") matches nothing.
        if set(values) & _AWS_ENTITIES:
            return True
        if values and all(v in _AWS_MARKETPLACE or _near_miss(v, _AWS_ENTITIES | _AWS_MARKETPLACE)
                          for v in values):
            return False
        return _UNREAD
    if name == "purchasetype":
        # Purchase option, as Cost Explorer bills it ("On Demand Instances", "Spot Instances",
        # "Standard Reserved Instances", "Savings Plans"...), exactly: On-Demand GPU nodes need
        # "On Demand Instances", spot nodes "Spot Instances"; "on demand instances" or
        # "On-Demand Instances" matches nothing.
        return any(("Spot Instances" if spot else "On Demand Instances") in values
                   for spot in compute.spot)
    return _UNREAD


_AWS_ENTITIES = {"AWS", "Amazon"}
_AWS_MARKETPLACE = {"AWS Marketplace", "Amazon Web Services Marketplace"}

# costFilters names as AWS Budgets spells them (the map keys of CostFilters), and the pack's
# name for those it compares. AWS refuses another case: "service is not in the supported in cost
# budget dimension set: [PurchaseType, TagKeyValue, UsageTypeGroup, Service, AZ, Region,
# Operation, InstanceType, UsageType, BillingEntity, LinkedAccount]" (hashicorp/terraform#19370).
_COST_FILTER_NAMES = {"Region": "region", "TagKeyValue": "tagkeyvalue",
                      "InstanceType": "instancetype", "AZ": "az", "LinkedAccount": "linkedaccount",
                      "Service": "service", "UsageType": "usagetype",
                      "BillingEntity": "billingentity", "PurchaseType": "purchasetype"}
_AWS_FILTER_NAMES = set(_COST_FILTER_NAMES) | {
    "CostCategory", "InvoicingEntity", "LegalEntityName", "Operation", "UsageTypeGroup"}
# filterExpression dimension Keys AWS takes (an enum: API_budgets_ExpressionDimensionValues).
_AWS_EXPRESSION_KEYS = {
    "AZ", "INSTANCE_TYPE", "LINKED_ACCOUNT", "LINKED_ACCOUNT_NAME", "OPERATION", "PURCHASE_TYPE",
    "REGION", "SERVICE", "SERVICE_CODE", "USAGE_TYPE", "USAGE_TYPE_GROUP", "RECORD_TYPE",
    "OPERATING_SYSTEM", "TENANCY", "SCOPE", "PLATFORM", "SUBSCRIPTION_ID", "LEGAL_ENTITY_NAME",
    "INVOICING_ENTITY", "DEPLOYMENT_OPTION", "DATABASE_ENGINE", "CACHE_ENGINE",
    "INSTANCE_TYPE_FAMILY", "BILLING_ENTITY", "RESERVATION_ID", "RESOURCE_ID", "RIGHTSIZING_TYPE",
    "SAVINGS_PLANS_TYPE", "SAVINGS_PLAN_ARN", "PAYMENT_OPTION", "RESERVATION_MODIFIED",
    "TAG_KEY", "COST_CATEGORY_NAME"}


def _misspelt(name: str, known: set) -> str:
    """The name AWS spells `name` as, when `name` is it in another case ("" otherwise)."""
    return next((k for k in sorted(known) if k != name and k.lower() == name.lower()), "")


def _aws_refused(filters: Any, expression: Any) -> str:
    """Why AWS refuses the budget ("" when it does not, as far as the pack reads): a costFilters
    name or a filterExpression dimension key in another case than AWS's. AWS creates no such
    budget, so it is no cap and no alarm, whatever the rest of its filters say."""
    for f in _dicts(filters):
        if isinstance(f, dict) and isinstance(f.get("name"), str):
            right = _misspelt(f["name"], _AWS_FILTER_NAMES)
            if right:
                return (f"costFilters name {f['name']!r}: AWS refuses the budget (filter names are "
                        f"case-sensitive; the name is {right!r}), so it caps and watches nothing")
    stack = [expression]
    while stack:
        e = stack.pop()
        if not isinstance(e, dict):
            continue
        dims = e.get("dimensions")
        if isinstance(dims, dict) and isinstance(dims.get("key"), str):
            right = _misspelt(dims["key"], _AWS_EXPRESSION_KEYS)
            if right:
                return (f"filterExpression dimension key {dims['key']!r}: AWS refuses the budget "
                        f"(the key is one of its upper-case names, {right!r}), so it caps and "
                        "watches nothing")
        stack += _list(e.get("ands")) + _list(e.get("ors")) + [e.get("not")]
    return ""


def _aws_filters(r: Resource, resources: list[Resource], cache: dict
                 ) -> tuple[str, bool, str, str]:
    """(scope text, covers compute, undecided filter, outside text) of an AWS budget's cost
    filters. Filters of different names all apply (AND); the values of one name are
    alternatives (OR). A filter on a region, tag, instance type or linked account the stack's
    GPU compute does not have leaves it out; a linked account the program does not say it
    deploys to is "cannot decide" (outside text: no apply would tell it either)."""
    filters = r.get("costFilters")
    refused = _aws_refused(filters, r.get("filterExpression"))
    if refused:
        return refused, False, "", ""
    if _has_unknown(filters):
        return "costFilters (unknown until apply)", False, "costFilters", ""
    parts, covers, undecided, outside = [], True, "", ""
    for f in _dicts(filters):
        if not isinstance(f, dict):
            continue
        values = [str(v) for v in _list(f.get("values"))]
        name = str(f.get("name"))
        parts.append(f"{name}={','.join(values)}")
        hit = _aws_filter_covers(_COST_FILTER_NAMES[name], values,
                                 _compute_of(resources, "aws", cache)) \
            if name in _COST_FILTER_NAMES else _UNREAD
        if hit is _UNREAD:
            outside = outside or _unread_text(f"costFilters {name}={','.join(values)}")
        elif hit is UNKNOWN and name == "LinkedAccount":
            outside = outside or _unnamed_account(name, values)
        elif hit is UNKNOWN:
            undecided = undecided or f"costFilters {name} (the GPU compute's is unknown)"
        elif not hit:
            covers = False
    expression = r.get("filterExpression")
    if _has_unknown(expression):
        return "filterExpression (unknown until apply)", False, "filterExpression", ""
    if isinstance(expression, dict) and expression:
        hit = _aws_expression(expression, resources, cache)
        if hit is _UNREAD:
            outside = outside or _unread_text(f"filterExpression {expression}")
        elif hit is UNKNOWN:
            undecided = undecided or "filterExpression (the GPU compute's is unknown)"
        elif hit is False:
            covers = False
            parts.append(f"filterExpression {expression}")
    if undecided and covers:
        return f"costFilters ({undecided})", False, "costFilters", ""
    if outside and covers:
        return outside, False, "", outside
    return ("; ".join(parts) if not covers else ""), covers, "", ""


def _unnamed_account(name: str, values: list[str]) -> str:
    return (f"costFilters {name}={','.join(values)}: whether that is the account the GPU "
            "compute is deployed to is not in the program (its AWS provider names no "
            "allowedAccountIds or assumed role; set allowed_account_ids on the provider)")


# filterExpression dimension keys compared with the GPU compute (pulumi-aws Budget
# filter_expression; the Budgets API Expression: Dimensions, Tags, And, Or, Not).
_EXPRESSION_KEYS = {"REGION": "region", "INSTANCE_TYPE": "instancetype", "AZ": "az",
                    "PURCHASE_TYPE": "purchasetype", "LINKED_ACCOUNT": "linkedaccount",
                    "SERVICE": "service", "USAGE_TYPE": "usagetype",
                    "BILLING_ENTITY": "billingentity"}


def _aws_expression(expr: Any, resources: list[Resource], cache: dict) -> Any:
    """Whether an AWS budget's filterExpression takes in the stack's GPU compute: True, False,
    UNKNOWN (the compute's own value is unknown), _UNREAD (a dimension key, match option or
    CostCategories root the pack does not read), or None (an empty expression). Roots present
    together all apply (API_budgets_Expression: Dimensions, Tags, CostCategories, And, Or,
    Not; ExpressionDimensionValues MatchOptions: only EQUALS, the default, is compared)."""
    if not isinstance(expr, dict):
        return _UNREAD
    results: list[Any] = []
    for root, part in expr.items():
        if part is None or part == [] or part == {}:
            continue
        if root in ("ands", "ors", "not"):
            continue
        if root not in ("dimensions", "tags") or not isinstance(part, dict):
            results.append(_UNREAD)   # costCategories, or a root the pack does not know
            continue
        # As AWS spells them (an upper-case enum): "equals" is no EQUALS.
        options = [str(o) for o in _list(part.get("matchOptions"))]
        if options and options != ["EQUALS"]:
            results.append(_UNREAD)   # ABSENT, STARTS_WITH, CONTAINS ...: not compared
            continue
        key, values = str(part.get("key")), [str(v) for v in _list(part.get("values"))]
        compute = _compute_of(resources, "aws", cache)
        if root == "tags":
            results.append(_aws_filter_covers("tagkeyvalue",
                                              [f"{key}${v}" for v in values], compute))
        elif key in _EXPRESSION_KEYS:
            results.append(_aws_filter_covers(_EXPRESSION_KEYS[key], values, compute))
        else:
            results.append(_UNREAD)
    ands = [_aws_expression(e, resources, cache) for e in _list(expr.get("ands"))]
    if ands:
        results.append(_all_of(ands))
    ors = [_aws_expression(e, resources, cache) for e in _list(expr.get("ors"))]
    if ors:
        results.append(None if all(o is None for o in ors) else
                       _any_of([o for o in ors if o is not None]))
    if expr.get("not") is not None:
        inner = _aws_expression(expr["not"], resources, cache)
        results.append(not inner if isinstance(inner, bool) else inner)
    return _all_of(results)


def _all_of(results: list[Any]) -> Any:
    """Clauses that all apply: False if one leaves the compute out, else undecided if one
    cannot be decided (_UNREAD before UNKNOWN), else True (None: nothing to compare)."""
    if False in results:
        return False
    if any(r is _UNREAD for r in results):
        return _UNREAD
    if any(r is UNKNOWN for r in results):
        return UNKNOWN
    return True if True in results else None


def _gcp_filters(r: Resource, resources: list[Resource],
                 cache: dict) -> tuple[str, bool, str, str]:
    """(scope text, covers compute, undecided filter, outside text) of a GCP budget's
    budgetFilter: its services must take in Compute Engine, its projects the GPU compute's
    project, its labels a label the GPU compute carries (cloud.google.com/billing/docs/
    reference/budget/rest/v1/billingAccounts.budgets#filter). Its resourceAncestors (folders,
    organizations: "usage from only this set of folders and organizations") take in the
    compute only if its project is under one of them, which the program does not show (the
    google provider names a project, never its folder or organization): "cannot decide"
    (outside text) where the other filters take the compute in."""
    f = r.get("budgetFilter")
    if _has_unknown({k: v for k, v in f.items() if k != "calendarPeriod"}
                    if isinstance(f, dict) else f):
        return "budgetFilter (unknown until apply)", False, "budgetFilter", ""
    if not isinstance(f, dict):
        return "", True, "", ""
    parts = [f"{k}={v}" for k, v in f.items() if k in (
        "services", "labels", "subaccounts", "resourceAncestors", "projects") and v]
    services = [str(v).lower() for v in _list(f.get("services"))]
    covers: Any = not services or _GCP_COMPUTE_SERVICE in services
    undecided = ""
    projects = [str(v) for v in _list(f.get("projects"))]
    if covers and projects:
        compute = _compute_of(resources, "gcp", cache)
        ids = {p.split("/")[-1] for p in projects}
        if any(not isinstance(p, str) or not p for p in compute.projects):
            undecided = "budgetFilter.projects (the GPU compute's project is not known)"
        elif not any(p in ids for p in compute.projects) and not any(i.isdigit() for i in ids):
            # Only a project id the compute does not run in leaves it out. The API takes
            # project numbers (projects/{number}, as trainstack's own budget writes it), and
            # which project a number is the stack does not say: a number is taken as the
            # stack's own project.
            covers = False
    labels = f.get("labels")
    if covers and isinstance(labels, dict) and labels:
        compute = _compute_of(resources, "gcp", cache)
        for key, value in labels.items():
            hit = _tag_matches(compute.tags, key, value)
            if hit is UNKNOWN:
                undecided = undecided or "budgetFilter.labels (the GPU compute's are unknown)"
            elif not hit:
                covers = False
    if undecided and covers:
        return f"budgetFilter ({undecided})", False, "budgetFilter", ""
    ancestors = [str(v) for v in _list(f.get("resourceAncestors")) if v]
    if covers and ancestors:
        outside = (f"budgetFilter.resourceAncestors {', '.join(ancestors)}: whether the GPU "
                   "compute's project is under "
                   f"{'that' if len(ancestors) == 1 else 'one of those'} folder or "
                   "organization is not in the program (budget the project instead)")
        return outside, False, "", outside
    # subaccounts: which billing subaccount pays for the compute's project is set outside the
    # program; it, and any field the pack does not know, is "cannot decide" while nothing else
    # leaves the compute out. creditTypes and creditTypesTreatment change how credits count,
    # not whose usage counts.
    unread = [f"{k}={v}" for k, v in f.items() if v not in (None, [], {}, "")
              and k not in _GCP_READ]
    if covers and unread:
        text = _unread_text(f"budgetFilter {'; '.join(unread)}")
        return text, False, "", text
    return ("; ".join(parts) if not covers else ""), bool(covers), "", ""


# budgetFilter fields the pack reads (cloud.google.com/python/docs/reference/billingbudgets/
# latest/google.cloud.billing.budgets_v1.types.Filter).
_GCP_READ = frozenset({"services", "projects", "labels", "calendarPeriod", "customPeriod",
                       "creditTypes", "creditTypesTreatment", "resourceAncestors"})


def _planned(r: Resource) -> tuple[Optional[float], str, str, str]:
    """(amount, unknown path, invalid text, unread text) of an AWS budget given plannedLimits
    instead of a limitAmount (pulumi-aws Budget planned_limits: an amount per period from its
    start_time). The limit in force is the one whose period has begun last: "The key is the
    start of the month ... After all of the BudgetLimit values in PlannedBudgetLimits are used,
    the budget continues to use the last limit" (AWS Budgets API, Budget.PlannedBudgetLimits).
    An entry that is no object, or whose startTime is left out or does not read, may be that
    one: the budget cannot be read (unread text naming it), never its largest amount. Where
    none has begun, the largest."""
    from trainstack_policies.inventory import lifetimes
    planned = r.get("plannedLimits")
    if _has_unknown(planned):
        return None, "plannedLimits", "", ""
    now = lifetimes._now()
    current: Optional[tuple[datetime, float]] = None
    largest: Optional[float] = None
    for i, p in enumerate(_dicts(planned)):
        if not isinstance(p, dict):
            return None, "", "", (f"plannedLimits.{i} {short_repr(p)} (no {{amount, "
                                  "startTime}} object: which limit is in force cannot be read)")
        value = checked_number(p.get("amount"))
        if isinstance(value, BadNumber) or value == 0:
            return None, "", value.text if value else "0", ""
        if value is None:
            continue
        largest = value if largest is None else max(largest, value)
        start = _end_time(p.get("startTime"))
        if start is None:
            return None, "", "", (f"plannedLimits.{i}.startTime {short_repr(p.get('startTime'))}"
                                  " (no start the pack can read: which limit is in force "
                                  "cannot be read)")
        if start <= now and (current is None or start > current[0]):
            current = (start, value)
    return (current[1] if current else largest), "", "", ""


def _end_time(value: Any) -> Optional[datetime]:
    """A budget's end as a UTC time: AWS "2025-12-31_23:59", Azure ISO-8601, GCP
    {year, month, day} (the end of that day, each a whole number); None when absent or not a
    time. Text reads only in ASCII (as model.number reads numbers): Python's strptime would
    read fullwidth digits (its digit class matches any Unicode digit), no cloud's date format does."""
    try:
        if isinstance(value, dict):
            y, m, d = (number(value.get(k)) for k in ("year", "month", "day"))
            if y is None or m is None or d is None or not all(
                    float(n).is_integer() for n in (y, m, d)):
                return None
            return datetime(int(y), int(m), int(d), tzinfo=timezone.utc) + timedelta(days=1)
        if not isinstance(value, str) or not value.strip() or not value.isascii():
            return None
        text = value.strip()
        if "_" in text:
            return datetime.strptime(text, "%Y-%m-%d_%H:%M").replace(tzinfo=timezone.utc)
        when = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except (ValueError, OverflowError):
        return None
    return when if when.tzinfo is not None else when.replace(tzinfo=timezone.utc)


def _unread_period(r: Resource, *paths: str) -> tuple[str, str]:
    """(path unknown at preview, unread text) of a budget's time period dates (AWS
    timePeriodEnd / timePeriodStart, Azure timePeriod.endDate / startDate, GCP
    budgetFilter.customPeriod.endDate / startDate): a date that is there but reads as no date
    (docs: "a budget that cannot be read is not 'no cap'") names the input and its value; one
    unknown at preview (or under a holder unknown at preview) gives its path. ("", "") when
    each is absent or reads."""
    for path in paths:
        value = r.reach(path)   # a holder in another shape: BadNumber naming it
        if value is None:
            continue
        if _has_unknown(value):
            return path, ""
        if isinstance(value, BadNumber) or _end_time(value) is None:
            shown = value.text if isinstance(value, BadNumber) else short_repr(value)
            return "", f"{path} {shown} (no date the pack can read)"
    return "", ""


def _unread_shape(r: Resource, objects: tuple[str, ...], lists: tuple[str, ...] = ()) -> str:
    """The input and value of a budget filter written in another shape than the provider's
    ("" when none): one of `objects` that is there but no object (GCP budgetFilter, Azure filter,
    AWS filterExpression: a list of one, text), or an entry of one of `lists` that is no object
    (AWS costFilters "Region=us-east-1"). Docs: "a budget that cannot be read is not 'no cap'";
    read as no filter, it would be the whole account's budget, the stack's cap."""
    for path in objects:
        value = r.get(path)
        if value is not None and value is not UNKNOWN and not isinstance(value, dict):
            return f"{path} {short_repr(value)} (no object: a filter the pack cannot read)"
    for path in lists:
        value = r.get(path)
        if value is None or value is UNKNOWN or isinstance(value, dict):
            continue
        entries = value if isinstance(value, (list, tuple)) else [value]
        odd = [e for e in entries if e is not UNKNOWN and not isinstance(e, dict)]
        if odd:
            return (f"{path} {short_repr(value)} (an entry that is no {{name, values}} object: "
                    "a filter the pack cannot read)")
    return ""


def _ended(r: Resource, path: str) -> str:
    """The scope text of a budget whose time period ended before now ("" when it runs on): it
    tracks nothing from then on, so it is neither the cap nor the alarm (AWS TimePeriod.End,
    Azure timePeriod.endDate, GCP customPeriod.endDate)."""
    from trainstack_policies.inventory import lifetimes
    end = _end_time(r.get(path))
    if end is None or end > lifetimes._now():
        return ""
    return f"{path} {r.get(path)} (the budget's time period has ended)"


def _not_started(r: Resource, path: str) -> str:
    """The scope text of a budget whose time period starts after now ("" when it has begun):
    until then it tracks nothing, so it is neither the cap nor the alarm (AWS TimePeriod.Start,
    Azure timePeriod.startDate, GCP customPeriod.startDate)."""
    from trainstack_policies.inventory import lifetimes
    start = _end_time(r.get(path))
    if start is None:
        return ""
    if isinstance(r.get(path), dict):
        start -= timedelta(days=1)   # _end_time gives a {year, month, day}'s end; it starts then
    if start <= lifetimes._now():
        return ""
    return f"{path} {r.get(path)} (the budget's time period has not begun)"


def _custom_months(period: Any) -> float:
    """The months a GCP customPeriod spans (its amount is for the whole period), at least 1;
    1 when it has no end (open-ended: the whole amount may go in its first month)."""
    if not isinstance(period, dict):
        return 1.0
    start, end = _end_time(period.get("startDate")), _end_time(period.get("endDate"))
    if start is None or end is None or end <= start:
        return 1.0
    # _end_time gives the end of each day: the period runs from the start day's beginning.
    hours = (end - start).total_seconds() / 3600 + 24
    return max(1.0, hours / 730)


_CLASSIC_SCOPE_KEYS = ("subscriptionId", "resourceGroupId", "managementGroupId")


def _classic_azure_budget(r: Resource) -> Resource:
    """A classic azure budget (pulumi-azure consumption.Budget*) read as an azure-native one:
    its scope from subscriptionId / resourceGroupId / managementGroupId (a resource group id
    unknown at preview is named by the ResourceGroup it depends on, when the stack makes it),
    and its filter's `dimensions` / `tags` lists (all apply) as one `and` of expressions."""
    scope: Any = None
    for key in _CLASSIC_SCOPE_KEYS:
        value = r.get(key)
        if value is UNKNOWN and key == "resourceGroupId":
            group = next((d for d in r.deps.get(key, []) if isinstance(d.get("name"), str)),
                         None)
            value = f"/subscriptions/*/resourceGroups/{group.get('name')}" if group else value
        if value is not None:
            scope = value
            break
    if isinstance(scope, str) and scope.lower().startswith("/subscriptions/*/"):
        scope = scope.split("/", 3)[3]   # "resourceGroups/<name>": the group, no subscription
        scope = "/" + scope
    f = r.get("filter")
    if isinstance(f, dict):
        parts: list[Any] = [{"dimensions": d} for d in _list(f.get("dimensions"))]
        parts += [{"tags": t} for t in _list(f.get("tags"))]
        # A `not` block holds one `dimension` or `tag` (azurerm consumption budget filter).
        n = f.get("not")
        if isinstance(n, dict) and n:
            parts.append({"not": {{"dimension": "dimensions", "tag": "tags"}.get(k, k): v
                                  for k, v in n.items()}})
        elif n:
            parts.append({"not": n})
        others = {k: v for k, v in f.items() if k not in ("dimensions", "tags", "not")}
        f = {"and": parts, **others} if parts or others else None
    return replace(r, props={**r.props, "scope": scope, "filter": f})


def _per_group(b: Budget, classes: list, judge: Any) -> None:
    """Judge the budget against each GPU group of its cloud alone, and set what it covers from
    that: the alarm for the groups it takes in, none for the others. Groups that read the
    same to a budget (`classes`: (their own _Compute cache, Azure billing groups, members))
    are judged once: judge(cache, azure) gives (scope text, covers, unknown path, outside
    text). With no GPU group the stack-wide reading stays (it is what a GPU sign or capacity
    block outside the groups is judged by)."""
    if not classes:
        return
    scopes: list[tuple[str, str, str]] = []
    covered = False
    for cache, azure, members in classes:
        scope, covers, unknown, outside = judge(cache, azure)
        if unknown or outside:
            b.unsure.update((id(g.resource), (unknown, outside)) for g in members)
            scopes.append((scope, unknown, outside))
        elif covers:
            covered = True
        else:
            b.leaves_out.update((id(g.resource), scope) for g in members)
            scopes.append((scope, "", ""))
    if covered:
        b.covers_compute, b.scope, b.filters_unknown, b.outside = True, "", "", ""
        return
    unread = next((x for x in scopes if x[1] or x[2]), None) or scopes[0]
    b.covers_compute = False
    b.scope, b.filters_unknown, b.outside = unread


def _azure_cover(r: Resource, resources: list[Resource], groups: set[str], unread: str,
                 subscriptions: Optional[set[str]], cache: dict,
                 never: frozenset[str] = frozenset()) -> tuple[str, bool, str, str]:
    """(scope text, covers, unknown path, outside text) of an Azure budget's scope and filter
    against the compute billing in `groups` (the stack's, or one GPU group's)."""
    scope, covers, scope_unknown = _azure_scope(r, groups, subscriptions, unread, never)
    raw = r.get("scope")
    managed = isinstance(raw, str) and raw.lower().startswith(_MANAGEMENT_GROUP_SCOPE)
    outside = scope if managed or (unread and scope.endswith(f"(may be the {unread})")) else ""
    if _has_unknown(r.get("filter")):
        scope, covers, scope_unknown = "filter (unknown until apply)", False, "filter"
    elif covers:
        takes_in = _azure_filter_covers(r.get("filter"), groups, resources, cache,
                                        subscriptions, unread, never)
        if takes_in is _UNREAD:
            scope = _unread_text(f"filter {r.get('filter')}")
            return scope, False, "", scope
        if takes_in is UNKNOWN:
            return (f"filter {r.get('filter')} (the GPU compute's location or name is "
                    "unknown until apply)"), False, "filter", ""
        if takes_in is None:
            # Its ResourceGroupName (or ResourceId's group) may be the compute's auto-named
            # group, or one the program does not show (an AKS node resource group): cannot
            # decide.
            scope, covers = f"filter {r.get('filter')} (may be the {unread})", False
            return scope, covers, "", scope
        if not takes_in:
            scope, covers = f"filter {r.get('filter')} (leaves out the GPU compute)", False
    if scope_unknown or not scope.startswith("scope "):
        outside = ""
    return scope, covers, scope_unknown, outside


def _not_spend(r: Resource, why: str) -> Budget:
    """A budget that is no spend limit (an AWS USAGE budget, an Azure Usage budget): neither the
    cap nor the alarm, kept so a finding names it and why it does not count."""
    return Budget(r, None, "USD", "", scope=why, covers_compute=False)


def budgets(resources: list[Resource]) -> list[Budget]:
    out: list[Budget] = []
    azure_groups: Optional[set[str]] = None
    azure_unread = ""
    azure_never: frozenset[str] = frozenset()
    azure_subscriptions: Optional[set[str]] = None
    cache: dict = {}
    actions = [r for r in resources if r.type == AWS_BUDGET_ACTION]
    by_cloud: dict[str, list] = {}

    def gpu(cloud: str) -> list:
        """The cloud's GPU groups, in classes that read the same to any budget (per stack, so
        a stack of many like groups judges each budget once per kind, not once per group)."""
        if cloud not in by_cloud:
            from trainstack_policies.inventory.compute import gpu_groups
            kinds: dict[str, tuple[dict, Any, list]] = {}
            for g in gpu_groups(resources):
                if g.cloud != cloud:
                    continue
                c = _Compute(resources, cloud, [g])
                azure: Any = None
                if cloud == "azure":
                    names, unread, never = _compute_groups(resources, g)
                    subs = _compute_subscriptions([g.resource])
                    azure = (names, unread, subs, never)
                # Every field a budget's filters read (_aws_filter_covers' LinkedAccount reads the
                # accounts: two groups that differ only in their provider's account are two
                # classes), sets sorted so that equal ones key alike.
                accounts = [(a if a is None or a is UNKNOWN else sorted(a), sorted(refused))
                            for a, refused in c.accounts]
                key = repr((c.regions, c.tags, c.projects, c.types, c.zones, c.spot, c.arm,
                            accounts,
                            azure and (sorted(azure[0]), azure[1],
                                       None if azure[2] is None else sorted(azure[2]),
                                       sorted(azure[3]))))
                kinds.setdefault(key, ({cloud: c}, azure, []))[2].append(g)
            by_cloud[cloud] = list(kinds.values())
        return by_cloud[cloud]

    for r in resources:
        if r.type == AWS_BUDGET:
            kind = str(r.get("budgetType") or "COST").upper()
            if kind != "COST":
                # USAGE / RI_* / SAVINGS_PLANS_* budgets count hours, GB or coverage, not USD
                out.append(_not_spend(r, f"budgetType {kind} (it counts usage or reservation "
                                         "coverage, not cost: no spend limit)"))
                continue
            amount, unknown, invalid = _amount(r, "limitAmount")
            planned_unread = ""
            if r.get("limitAmount") is None and r.get("plannedLimits") is not None:
                amount, unknown, invalid, planned_unread = _planned(r)
            # AutoAdjustData: "the parameters that determine the budget amount for an
            # auto-adjusting budget" (docs.aws.amazon.com/aws-cost-management/latest/
            # APIReference/API_budgets_AutoAdjustData.html): AWS sets the amount from past
            # spend (HISTORICAL) or its forecast (FORECAST), whatever limitAmount says.
            auto = r.get("autoAdjustData")
            open_amount = ""
            if auto is UNKNOWN:
                amount, unknown, invalid = None, "autoAdjustData", ""
            elif isinstance(auto, dict) and auto:
                amount, unknown, invalid = None, "", ""
                open_amount = (f"amount is set by AWS Budgets ({auto.get('autoAdjustType')} "
                               "auto-adjusting budget, autoAdjustData), not by the program")
            scope, covers, undecided, outside = _aws_filters(r, resources, cache)
            ended = _ended(r, "timePeriodEnd") or _not_started(r, "timePeriodStart")
            at, unread = _unread_period(r, "timePeriodEnd", "timePeriodStart")
            if ended:
                scope, covers, undecided, outside = ended, False, "", ""
            elif unread or at:
                ended = unread or f"{at} (unknown until apply)"
                scope, covers, undecided, outside = ended, False, at, ""
            shape = planned_unread or _unread_shape(r, ("filterExpression",), ("costFilters",))
            if shape and not ended:
                ended = shape
                scope, covers, undecided, outside = shape, False, "", ""
            silent, maybe = _aws_silent(r, actions)
            b = Budget(r, _per_month(amount, r.get("timeUnit")), str(r.get("limitUnit") or "USD"),
                       str(r.get("limitAmount")), unknown, invalid, scope, covers, undecided,
                       silent=silent, silent_unknown=maybe, outside=outside,
                       open_amount=open_amount, unread_period=unread, unread_input=shape)
            if not ended:
                _per_group(b, gpu("aws"), lambda cache, _, r=r: _aws_filters(r, resources,
                                                                             cache))
            out.append(_in_usd(b))
        elif r.type == GCP_BUDGET:
            last = r.get("amount.lastPeriodAmount")
            open_amount = ""
            if r.get("amount.specifiedAmount.units") is None and last is UNKNOWN:
                amount, unknown, invalid = None, "amount.lastPeriodAmount", ""
            elif r.get("amount.specifiedAmount.units") is None and last is not None:
                # lastPeriodAmount: the amount is last period's spend, known only to Cloud
                # Billing (cloud.google.com/billing/docs/reference/budget/rest/v1/
                # billingAccounts.budgets#LastPeriodAmount).
                amount, unknown, invalid = None, "", ""
                open_amount = ("amount is last period's spend (amount.lastPeriodAmount), "
                               "known only to Cloud Billing") if last else ""
            else:
                amount, unknown, invalid = _amount(r, "amount.specifiedAmount.units")
                nanos = number(r.get("amount.specifiedAmount.nanos")) or 0
                amount = amount + nanos / 1e9 if amount is not None else None
            period = r.get("budgetFilter.calendarPeriod") or "MONTH"
            custom = r.get("budgetFilter.customPeriod")
            if isinstance(custom, dict) and amount is not None:
                period, amount = "MONTH", amount / _custom_months(custom)
            scope, covers, undecided, outside = _gcp_filters(r, resources, cache)
            ended = _ended(r, "budgetFilter.customPeriod.endDate") or \
                _not_started(r, "budgetFilter.customPeriod.startDate")
            at, unread = _unread_period(r, "budgetFilter.customPeriod.endDate",
                                        "budgetFilter.customPeriod.startDate")
            if ended:
                scope, covers, undecided, outside = ended, False, "", ""
            elif unread or at:
                ended = unread or f"{at} (unknown until apply)"
                scope, covers, undecided, outside = ended, False, at, ""
            shape = _unread_shape(r, ("budgetFilter",))
            if shape and not ended:
                ended = shape
                scope, covers, undecided, outside = shape, False, "", ""
            silent, maybe = _gcp_silent(r)
            b = Budget(r, _per_month(amount, period),
                       str(r.get("amount.specifiedAmount.currencyCode") or "USD"),
                       str(r.get("amount.specifiedAmount.units")), unknown, invalid, scope,
                       covers, undecided, silent=silent, silent_unknown=maybe,
                       open_amount=open_amount,
                       outside=outside, unread_period=unread, unread_input=shape)
            if not ended:
                _per_group(b, gpu("gcp"), lambda cache, _, r=r: _gcp_filters(r, resources,
                                                                             cache))
            out.append(_in_usd(b))
        elif r.type in AZ_BUDGETS:
            category = str(r.get("category") or "Cost")
            if category.lower() != "cost":
                out.append(_not_spend(r, f"category {category} (a {category} budget counts "
                                         "usage, not cost: no spend limit)"))
                continue
            if r.type.startswith("azure:"):
                r = _classic_azure_budget(r)
            amount, unknown, invalid = _amount(r, "amount")
            if azure_groups is None:
                # once per stack, not per budget
                azure_groups, azure_unread, azure_never = _compute_groups(resources)
                azure_subscriptions = _compute_subscriptions(resources)
            scope, covers, scope_unknown, outside = _azure_cover(
                r, resources, azure_groups, azure_unread, azure_subscriptions, cache,
                azure_never)
            ended = _ended(r, "timePeriod.endDate") or _not_started(r, "timePeriod.startDate")
            at, unread = _unread_period(r, "timePeriod.endDate", "timePeriod.startDate")
            if ended:
                scope, covers, scope_unknown, outside = ended, False, "", ""
            elif unread or at:
                ended = unread or f"{at} (unknown until apply)"
                scope, covers, scope_unknown, outside = ended, False, at, ""
            shape = _unread_shape(r, ("filter",))
            if shape and not ended:
                ended = shape
                scope, covers, scope_unknown, outside = shape, False, "", ""
            # Azure budgets are in the billing account's currency; trainstack bills in USD.
            silent, maybe = _azure_silent(r)
            b = Budget(r, _per_month(amount, r.get("timeGrain")), "USD", str(r.get("amount")),
                       unknown, invalid, scope, covers, scope_unknown,
                       silent=silent, silent_unknown=maybe, outside=outside,
                       unread_period=unread, unread_input=shape)
            if not ended:
                _per_group(b, gpu("azure"), lambda cache, azure, r=r: _azure_cover(
                    r, resources, azure[0], azure[1], azure[2], cache, azure[3]))
            out.append(b)
    return out
