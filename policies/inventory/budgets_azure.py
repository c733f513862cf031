"""Azure budgets: who they notify, where the GPU compute bills (resource groups, subscriptions),
and a budget's scope and filter against it; the classic provider's budgets."""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Optional

from trainstack_policies.capacity import (
    AZ_CLASSIC_AKS_CLUSTER,
    AZ_CLASSIC_AKS_POOL,
    AZ_CLASSIC_CAPACITY_RESERVATION,
    AZ_CLASSIC_CAPACITY_RESERVATION_GROUP,
)
from trainstack_policies.inventory.budgets_common import (
    _UNREAD,
    _any_of,
    _Compute,
    _compute_of,
    _present,
    _tag_matches,
    _unread_text,
)
from trainstack_policies.inventory.values import _list
from trainstack_policies.model import UNKNOWN, Resource, has_unknown


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
    resource groups created with AKS?"): scale sets, VMs and capacity reservations
    (azure-native and classic) in their own group (a classic reservation has none of its own:
    its reservation group's); the GPU pools of an AKS cluster (azure-native or classic) in its
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


def _azure_cover(r: Resource, resources: list[Resource], groups: set[str], unread: str,
                 subscriptions: Optional[set[str]], cache: dict,
                 never: frozenset[str] = frozenset()) -> tuple[str, bool, str, str]:
    """(scope text, covers, unknown path, outside text) of an Azure budget's scope and filter
    against the compute billing in `groups` (the stack's, or one GPU group's)."""
    scope, covers, scope_unknown = _azure_scope(r, groups, subscriptions, unread, never)
    raw = r.get("scope")
    managed = isinstance(raw, str) and raw.lower().startswith(_MANAGEMENT_GROUP_SCOPE)
    outside = scope if managed or (unread and scope.endswith(f"(may be the {unread})")) else ""
    if has_unknown(r.get("filter")):
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
