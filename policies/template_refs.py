"""Which launch template each launchTemplateSpecification of an AWS group or fleet names.

An Auto Scaling group's mixed instances overrides and an EC2 Fleet's or Spot Fleet's launch
template configs each name a launch template by id or name. The engine records dependencies
per top-level input (`mixedInstancesPolicy`, `launchTemplateConfigs`), not per entry, and a
template's id is an output, not an input the pack sees: an entry is tied to a template of the
stack by the template's name input where it names one, else by order (the SDKs list an
input's dependencies in the order its value names them, without repeats). A distinct
reference more than the templates behind the input names a template the stack does not
create: its type is read nowhere (docs/policies.md, Scope), so the compute fails closed.
"""
from __future__ import annotations

import math
from typing import Any, Optional

from trainstack_policies.model import UNKNOWN, Resource, checked_number

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


def tie(refs: list[Any], templates: list[Resource]) -> tuple[Optional[dict], str]:
    """({reference: template} for `refs` (in the order the input names them), or None where
    they cannot be tied; what names a template the stack does not create, or "")."""
    named = [x for x in refs if x is not None]
    if not named:
        return {}, ""
    if not templates:
        known = [x for x in named if x is not UNKNOWN]
        shown = repr(known[0]) if known else "unknown until apply"
        return None, (f"from launch template {shown}, which the stack does not create (its "
                      "type is read nowhere in the stack)")
    by_name = {t.get("launchTemplateData.launchTemplateName") if t.type == _NATIVE_LT
               else t.get("name"): t for t in templates}
    out: dict = {}
    rest = [t for t in templates]
    for x in named:
        if isinstance(x, str) and isinstance(by_name.get(x), Resource):
            out[x] = by_name[x]
            if out[x] in rest:
                rest.remove(out[x])
    left = list(dict.fromkeys(x for x in named if x is not UNKNOWN and x not in out))
    if len(left) > len(rest):
        shown = repr(left[0]) if len(left) == 1 else "one of " + ", ".join(map(repr, left))
        return None, (f"from launch template {shown}, which the stack does not create (its "
                      "type is read nowhere in the stack)")
    if len(templates) == 1:
        return {x: templates[0] for x in named if x is not UNKNOWN} | {UNKNOWN: templates[0]}, ""
    if UNKNOWN in named or len(left) != len(rest):
        return None, ""   # ids unknown at preview (or fewer than the templates): not tied
    return out | dict(zip(left, rest)), ""


def tie_overrides(mixed: Any, templates: list[Resource]) -> tuple[Any, bool, str]:
    """An Auto Scaling group's mixed instances policy (classic or aws-native) with each
    override that names only a launch template given that template's instanceType, so its
    weight counts for the type it launches; whether such an override could not be tied to a
    template; and what names a template the stack does not create ("" if none)."""
    spec = mixed.get("launchTemplate") if isinstance(mixed, dict) else None
    if not isinstance(spec, dict) or not isinstance(spec.get("overrides"), list):
        return mixed, False, ""
    overrides = spec["overrides"]
    own = lt_ref(spec.get("launchTemplateSpecification"))
    by_template = [o for o in overrides if isinstance(o, dict) and o.get("instanceType") is None
                   and o.get("launchTemplateSpecification") is not None]
    refs = [own] + [lt_ref(o.get("launchTemplateSpecification")) if isinstance(o, dict)
                    else None for o in overrides]
    tied, outside = tie(refs, templates)
    if not by_template:
        return mixed, False, ""
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
