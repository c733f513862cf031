"""Which launch template each launchTemplateSpecification of an AWS group or fleet names.

An Auto Scaling group's mixed instances overrides and an EC2 Fleet's or Spot Fleet's launch
template configs each name a launch template by id or name. The engine records dependencies
per top-level input (`mixedInstancesPolicy`, `launchTemplateConfigs`), not per entry, and a
template's id is known only once it exists: an entry is tied to a template of the stack by
the template's id or name where the engine shows it (tie()). A distinct reference more than
the templates behind the input names a template the stack does not create: its type is read
nowhere (docs/policies.md, Scope), so the compute fails closed.
"""
from __future__ import annotations

import math
from typing import Any, Optional

from trainstack_policies.model import UNKNOWN, Resource, as_list, checked_number

_REF_KEYS = ("id", "name", "launchTemplateId", "launchTemplateName")
_NATIVE_LT = "aws-native:ec2:LaunchTemplate"


def lt_ref(spec: Any) -> Any:
    """What a launchTemplateSpecification names its template by (UNKNOWN at preview), or None."""
    if spec is UNKNOWN:
        return UNKNOWN
    if not isinstance(spec, dict):
        return None
    return next((spec[k] for k in _REF_KEYS if spec.get(k) is not None and spec.get(k) != ""),
                None)


def _type(lt: Resource) -> Any:
    return lt.get("launchTemplateData.instanceType") if lt.type == _NATIVE_LT \
        else lt.get("instanceType")


def _identities(lt: Resource) -> set:
    """What a template of the stack is named by where the engine shows it: its id (a stack
    policy sees each resource's outputs, pulumi's stepGenerator.AnalyzeResources; a template
    of an earlier update has its id there, a new one's is unknown until apply; aws-native's
    output is launchTemplateId) and its name (classic `name`, aws-native launchTemplateName)."""
    return {v for k in ("id", "launchTemplateId", "name", "launchTemplateName")
            for v in [lt.get(k)] if isinstance(v, str) and v}


def tie(refs: list[Any], templates: list[Resource]) -> tuple[Optional[dict], str]:
    """({reference: template} for `refs`, or None where some cannot be tied; what names a
    template the stack does not create, or ""). A reference is tied to the template whose id
    or name it is. The engine lists an input's dependencies without their order (the Python
    SDK gathers their URNs in a set), so the rest are tied only where one template is left
    for one reference; more distinct references than templates left name one the stack does
    not create (an id unknown at preview counts as one reference)."""
    named = [x for x in refs if x is not None]
    if not named:
        return {}, ""
    out: dict = {}
    for t in templates:
        for x in _identities(t) & {x for x in named if isinstance(x, str)}:
            out[x] = t
    rest = [t for t in templates if t not in out.values()]
    left = list(dict.fromkeys(x for x in named if x not in out))
    if len(left) > len(rest):
        known = [x for x in left if x is not UNKNOWN]
        shown = "unknown until apply" if not known else repr(known[0]) if len(known) == 1 \
            else "one of " + ", ".join(map(repr, known))
        return None, (f"from launch template {shown}, which the stack does not create (its "
                      "type is read nowhere in the stack)")
    if len(left) == 1 and len(rest) == 1:
        out[left[0]] = rest[0]
    return (out if all(x in out for x in named) else None), ""


def tie_overrides(mixed: Any, templates: list[Resource]) -> tuple[Any, bool, str]:
    """An Auto Scaling group's mixed instances policy (classic or aws-native) with each
    override that names only a launch template given that template's instanceType, so its
    weight counts for the type it launches; whether such an override could not be tied to a
    template; and what names a template the stack does not create ("" if none)."""
    spec = mixed.get("launchTemplate") if isinstance(mixed, dict) else None
    if isinstance(spec, dict) and isinstance(spec.get("overrides"), dict):
        # One override written for the list: a list of that one (model.as_list), so its type
        # and weight are read wherever the group's overrides are.
        spec = {**spec, "overrides": as_list(spec["overrides"])}
        mixed = {**mixed, "launchTemplate": spec}
    if not isinstance(spec, dict) or not isinstance(spec.get("overrides"), list):
        return mixed, False, ""
    overrides = spec["overrides"]
    own = lt_ref(spec.get("launchTemplateSpecification"))
    by_template = [o for o in overrides if isinstance(o, dict) and o.get("instanceType") is None
                   and o.get("launchTemplateSpecification") is not None]
    if not by_template:
        return mixed, False, ""   # every override names its type: no template to tie
    refs = [own] + [lt_ref(o.get("launchTemplateSpecification")) if isinstance(o, dict)
                    else None for o in overrides]
    tied, outside = tie(refs, templates)
    untied = False
    given = []
    for o in overrides:
        if o in by_template:
            lt = tied.get(lt_ref(o["launchTemplateSpecification"])) if tied is not None else None
            if lt is None:
                untied = True
            else:
                o = {**o, "instanceType": _type(lt)}
        given.append(o)
    return {**mixed, "launchTemplate": {**spec, "overrides": given}}, untied, outside


def untied_count(mixed: Any, count: int) -> int:
    """The most instances a group of `count` capacity units may run when its overrides cannot
    be tied to their types: maxSize plus the largest weight, every unit filled at the lightest
    weight (never below the truth: any type may be the one of weight 1). Weights are read and
    valid (capacity.asg_weights refused any other)."""
    spec = mixed.get("launchTemplate") if isinstance(mixed, dict) else None
    overrides = spec.get("overrides") if isinstance(spec, dict) else None
    weights = [checked_number(o.get("weightedCapacity")) for o in overrides or []
               if isinstance(o, dict) and o.get("weightedCapacity") is not None]
    weights = [w for w in weights if isinstance(w, float) and w >= 1]
    if not weights:
        return count
    return int(math.ceil((count + math.ceil(max(weights))) / min(weights) - 1e-9))
