"""The neutral resource view every rule reads, and adapters to it from both runners.

A rule never sees `pulumi_policy` objects or trainstack `Plan`s: it sees `Resource`s (type token,
name, URN, plain props keyed by engine (camelCase) names, property dependencies resolved to other
`Resource`s, and the retain-on-delete flag when the runner can see it). `from_plan` builds them
from an offline mock-engine plan; `from_policy_resources` / `from_resource_args` build them inside
the CrossGuard pack. The same rule code then runs in `trainstack check` and in `pulumi preview`.

Values the engine cannot know during a preview arrive as sentinel strings; the adapters turn them
into `UNKNOWN`, and `known()` raises `UnknownValue` when a rule needs one. The pack turns that into
pulumi_policy's own UnknownValueError, so the engine reports its usual advisory "can't run policy
... during preview" instead of a false pass or a false violation.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, replace
from typing import Any, Mapping, Optional, Sequence

# pulumi_policy/proxy.py: the engine's sentinels for values unknown during a preview.
_UNKNOWN_SENTINELS = frozenset({
    "1c4a061d-8072-4f0a-a4cb-0ff528b18fe7",  # boolean
    "3eeb2bf0-c639-47a8-9e75-3b44932eb421",  # number
    "04da6b54-80e4-46f7-96ec-b56ff0331ba9",  # string
    "6a19a0b0-7e62-4c92-b797-7f8e31da9cc2",  # array
    "030794c1-ac77-496b-92df-f27374a8bd58",  # asset
    "e48ece36-62e2-4504-bad9-02848725956a",  # archive
    "dd056dcd-154b-4c76-9bd3-c8f88648b5ff",  # object
})
UNKNOWN_STRING_SENTINEL = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"


class _Unknown:
    """A value the engine will only know after the resource is created."""

    _instance: Optional["_Unknown"] = None

    def __new__(cls):
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "<unknown during preview>"


UNKNOWN = _Unknown()

_CLOUD_OF_PREFIX = {"azure-native": "azure", "aws-native": "aws"}

# The keys rules read of each network interface of an AWS launch template (no-public-ingress:
# the public-IP flag; rdma-for-multinode: the interface type), asked of Resource.entries() /
# list_entries() together: the analyzer's view keeps a reading by path and keys, so the one
# reading Analyze makes of a p5 template's 33 interfaces serves both rules in AnalyzeStack.
AWS_INTERFACE_KEYS = ("associatePublicIpAddress", "interfaceType")
# Type token -> cloud, filled as types are met (a stack has tens of types, read per rule).
_CLOUD_OF_TYPE: dict[str, str] = {}


def _cloud_of(type_token: str) -> str:
    prefix = type_token.partition(":")[0]
    cloud = _CLOUD_OF_PREFIX.get(prefix, prefix)
    if len(_CLOUD_OF_TYPE) < 10_000:
        _CLOUD_OF_TYPE[type_token] = cloud
    return cloud


class UnknownValue(Exception):
    """A rule needed a value that is unknown during this preview."""

    # What a mandatory "cannot decide" says it found, expected and how to fix it: a subclass
    # for a decision apply would not settle either says what it is instead.
    FOUND = "a value unknown during preview"
    EXPECTED = "a value the policy can judge"
    FIX = ("set the value in the program (not from another resource's output), or exempt the "
           "resource if it is judged elsewhere")

    def __init__(self, resource: "Resource", path: str):
        super().__init__(f"{resource.name}: .{path} can't be known during preview")
        self.resource = resource
        self.path = path


class OutsideStack(UnknownValue):
    """A rule needed a fact about something the stack names but does not create (a subnet or
    file system made elsewhere): apply will not tell it either, only the pack's config can."""

    FOUND = "a fact about something this stack does not create"
    EXPECTED = "that fact, from the program or the policy's config"
    FIX = "tell the pack in this policy's config as the problem says, or exempt the resource"

    def __init__(self, resource: "Resource", what: str):
        super().__init__(resource, what)
        self.args = (f"{resource.name}: {what}",)


def undecided_message(err: "UnknownValue") -> str:
    """The advisory text for a decision that waits for values known only after apply, or for
    facts about things outside the stack."""
    if isinstance(err, OutsideStack):
        return f"cannot decide: {err}"
    return f"cannot decide until apply: {err}"


@dataclass(eq=False)
class Resource:
    type: str
    name: str
    urn: str
    props: dict[str, Any]
    # Property dependencies, resolved: input key -> the resources that input was computed from.
    deps: dict[str, list["Resource"]] = field(default_factory=dict)
    # retainOnDelete: True/False where the runner can see it (offline plans), None where it cannot
    # (the analyzer protocol's AnalyzerResourceOptions has no such field, pulumi-policy 1.21).
    retain: Optional[bool] = None
    # The region/location of the resource's provider, when the runner can see the provider.
    provider_region: Optional[str] = None
    # The provider's own inputs (defaultTags, defaultLabels, zone, region), when the runner sees it.
    provider: dict[str, Any] = field(default_factory=dict)
    # The `protect` resource option (the analyzer request carries it; offline plans too).
    protect: bool = False

    @property
    def cloud(self) -> str:
        try:
            return _CLOUD_OF_TYPE[self.type]
        except KeyError:
            return _cloud_of(self.type)

    def get(self, path: str, default: Any = None) -> Any:
        """A prop by dotted path (`sku.capacity`, `networkInterfaces.0.nicType`); may be UNKNOWN."""
        props = self.props
        if type(props) is dict and "." not in path and path != "0":
            # One key of plain props, the commonest read: what dig() gives, without the walk.
            return props.get(path, default)
        return dig(props, path, default)

    def reach(self, path: str) -> Any:
        """The input at a dotted path for a number to be read from it (model.reach): a list or
        a scalar met where the path needs an object is given back, not None (absent)."""
        key, dot, rest = path.partition(".")
        value = self.get(key)
        return reach(value, rest) if dot else value

    def known(self, path: str, default: Any = None) -> Any:
        """Like get(), but a value unknown during preview raises UnknownValue."""
        value = self.get(path, default)
        if value is UNKNOWN:
            raise UnknownValue(self, path)
        return value

    def has(self, key: str) -> bool:
        """Whether the inputs have the top-level key `key`, whatever its value (None and
        unknown included): `key in props`. The analyzer's view answers it without decoding."""
        return key in self.props

    def items(self, path: str, value: Any = None) -> list:
        """A list-valued prop (or `value`, read from inside one) as a list; [] when absent.
        Unknown during preview raises UnknownValue: a rule cannot look inside it."""
        value = self.get(path) if value is None else value
        if value is UNKNOWN:
            raise UnknownValue(self, path)
        if value is None or value == "":
            return []
        return list(value) if isinstance(value, (list, tuple)) else [value]

    def entries(self, path: str, keys: tuple[str, ...], iterated: bool = False) -> list:
        """items(path), with each dict entry cut down to `keys` (those it has): for a rule that
        reads only those keys of every entry (a launch template's 33 network interfaces, one
        key each). The analyzer's view reads just those keys from the request. `iterated`: a
        value that is no list gives what `for e in value or []` iterates (a dict its keys, a
        number TypeError) instead of [value], for a rule that reads it so."""
        if iterated:
            value = self.get(path)
            if value is UNKNOWN:
                raise UnknownValue(self, path)
            if not isinstance(value, (list, tuple)):
                return list(value or [])
        return [{k: e[k] for k in keys if k in e} if isinstance(e, dict) else e
                for e in self.items(path)]

    def list_entries(self, path: str, keys: tuple[str, ...]) -> Optional[list]:
        """entries(path, keys) when the value at `path` is a list; None when it is anything else
        (absent, unknown at preview, one object, a scalar), for a rule that judges a list input
        only when it is one. The analyzer's view reads just those keys from the request."""
        value = self.get(path)
        if not isinstance(value, list):
            return None
        return [{k: e[k] for k in keys if k in e} if isinstance(e, dict) else e for e in value]

    def dep(self, key: str, type_prefix: str = "") -> list["Resource"]:
        """The resources an input was computed from, optionally only those of one type."""
        return [r for r in self.deps.get(key, []) if r.type.startswith(type_prefix)]

    def without_deps(self) -> "Resource":
        return replace(self, deps={})


def dig(value: Any, path: str, default: Any = None) -> Any:
    for part in path.split("."):
        if value is UNKNOWN:
            return UNKNOWN
        # Plain dicts first: the abstract Mapping/Sequence checks cost more than the lookup.
        if type(value) is dict:
            if part not in value:
                if part == "0":
                    continue   # a list input given as one object is a list of that one
                return default
            value = value[part]
        elif isinstance(value, Mapping):
            if part not in value:
                return default
            value = value[part]
        elif isinstance(value, Sequence) and not isinstance(value, str) and part.isdigit():
            index = int(part)
            if index >= len(value):
                return default
            value = value[index]
        else:
            return default
    return value


def reach(value: Any, path: str) -> Any:
    """dig(value, path) for a size, amount or type to be read: where the path meets a value
    that is no object before its last key (a list of one written for an object, `sku: [{name,
    capacity}]` read for sku.capacity; a number, or text), BadNumber naming that value, which
    checked_number passes on and a NodeGroup reads as a type that cannot be read, never None: a
    value written in the wrong shape is there, and reading it as absent would let a smaller
    value, or no cap, stand in for it. None where a key is absent or None."""
    for part in path.split("."):
        if value is UNKNOWN:
            return UNKNOWN
        if isinstance(value, Mapping):
            if part not in value:
                if part == "0":
                    continue   # a list input given as one object is a list of that one
                return None
            value = value[part]
        elif isinstance(value, (list, tuple)) and part.isdigit():
            index = int(part)
            if index >= len(value):
                return None
            value = value[index]
        elif value is None:
            return None
        else:
            return BadNumber(short_repr(value))
    return value


def as_list(value: Any) -> list:
    """A list input as its items: one object written where a list is asked for is a list of
    that one (the engine passes what the program wrote, and the providers take either);
    [UNKNOWN] where the whole input is unknown at preview; [] where it is absent or a scalar.
    Items are kept as they are (a caller skips or fails closed on an unknown one)."""
    if value is UNKNOWN:
        return [UNKNOWN]
    if isinstance(value, (list, tuple)):
        return list(value)
    return [value] if isinstance(value, Mapping) else []


def dict_entries(value: Any) -> list:
    """The object entries of a list input (launch template configs, their overrides, Spot Fleet
    launch specifications, attached accelerators), one object written for the list read as a
    list of that one (as_list); UNKNOWN entries kept, so a caller can fail closed on them."""
    return [v for v in as_list(value) if isinstance(v, Mapping) or v is UNKNOWN]


def name_list(value: Any) -> list:
    """A list of names (instance types) as its items: one string written where the list is
    asked for is a list of that one, as one object is (as_list); [UNKNOWN] where the input is
    unknown at preview; [] where it is absent."""
    if isinstance(value, str):
        return [value] if value else []
    return as_list(value) if value is UNKNOWN or isinstance(value, (list, tuple)) else []


def plain(value: Any) -> Any:
    """Engine values as plain Python: sentinels become UNKNOWN, pulumi_policy proxies unwrapped."""
    kind = type(value)   # exact types first: plans are mostly plain JSON values
    if kind is str:
        return UNKNOWN if value in _UNKNOWN_SENTINELS else value
    if kind is dict:
        return {str(k): plain(v) for k, v in value.items()}
    if kind is list:
        return [plain(v) for v in value]
    if kind in (float, int, bool) or value is None:
        return value
    if type(value).__name__ in ("_DictProxy", "_ListProxy"):
        # pulumi_policy's unknown-checking proxies hand out their raw container as "__target";
        # reading items through the proxy would raise on the first unknown instead.
        value = value["__target"]
    if isinstance(value, str):
        return UNKNOWN if value in _UNKNOWN_SENTINELS else value
    if type(value) is dict:   # the common case, before the costlier abstract Mapping check
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


# A number written as text, as the clouds' APIs and cron read one: ASCII digits, an optional
# sign, point and exponent, ASCII blanks around it (and the words nan / inf / infinity, which
# checked_number refuses by value). Python's float() and int() also take any Unicode decimal
# digit ('０' U+FF10, '٠' U+0660), Unicode blanks and '_' between digits ('1_000'): no cloud
# does, so such text does not read here (review76 DEFECT B: an Azure capacity '０' read as 0
# was a stop that Azure refuses, so no stop at all).
_NUMBER_TEXT = re.compile(r"[ \t\n\r\f\v]*[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
                          r"|inf|infinity|nan)[ \t\n\r\f\v]*", re.ASCII | re.IGNORECASE)
_DIGITS = re.compile(r"[0-9]+", re.ASCII)


def digits(text: str) -> Optional[int]:
    """A whole number written in ASCII digits alone (a cron field, a rate's count), else None:
    no sign, blank or '_', and no other script's digits (int() takes '５' as 5)."""
    return int(text) if _DIGITS.fullmatch(text) else None


def number(value: Any) -> Optional[float]:
    """Engine numbers arrive as floats, sometimes as strings ("20000.00", capacity_gib="9000");
    text reads only as _NUMBER_TEXT (ASCII digits), else None."""
    if value is None or value is UNKNOWN or isinstance(value, bool):
        return None
    if isinstance(value, str) and not _NUMBER_TEXT.fullmatch(value):
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


@dataclass(frozen=True)
class BadNumber:
    """A number the pack refuses (NaN, infinite, negative where a size or amount is meant): a
    violation to report, never a zero to add (a decoy maxSize -510 must not cancel 512 nodes)."""

    text: str


def checked_number(value: Any, minimum: float = 0.0) -> Any:
    """number(), but NaN, +-inf, values below `minimum`, text that is no number (blank text
    included), a boolean and a list or object (no number at all) come back as BadNumber;
    UNKNOWN stays UNKNOWN, None (absent) stays None."""
    if value is UNKNOWN or isinstance(value, BadNumber):
        return value   # UNKNOWN, or refused already (model.reach)
    if isinstance(value, (list, tuple, Mapping)):
        # [2], ["5000"], {...}: a value that is there in another shape than a number is
        # refused, never read as absent (a list of one is not read as its item either: the
        # shape is wrong, and which item would be meant is a guess).
        return BadNumber(short_repr(value))
    if isinstance(value, bool):
        # true / false: no number (number() reads a boolean as absent, and Python's bool is an
        # int); refused, never read as absent nor as 1 or 0 (review73 D1, D4).
        return BadNumber(f"{value!r}")
    n = number(value)
    if n is None and isinstance(value, str):
        # "many", "100,000", and blank text ("", "  ": review73 D1, D4): a value that is there
        # but is no number is refused, never read as absent (absent lets the next, smaller value
        # or no cap stand in for it).
        return BadNumber(f"{value!r}")
    if n is not None and (not math.isfinite(n) or n < minimum):
        return BadNumber(f"{value!r}")
    return n


def has_unknown(value: Any) -> bool:
    """Whether a value holds UNKNOWN anywhere, in nested objects and lists alike."""
    if value is UNKNOWN:
        return True
    if isinstance(value, Mapping):
        return any(has_unknown(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(has_unknown(v) for v in value)
    return False


def short_repr(value: Any) -> str:
    """repr(value), cut to 200 characters, for a finding that names a value."""
    text = repr(value)
    return text if len(text) <= 200 else text[:197] + "..."


def truthy(value: Any) -> bool:
    """AWS takes some booleans as strings ("true"/"false")."""
    if isinstance(value, str):
        return value.strip().lower() == "true"
    return value is True


def last_segment(value: Any) -> str:
    """`zones/us-central1-a/machineTypes/a3-ultragpu-8g` -> `a3-ultragpu-8g`."""
    if value is UNKNOWN:
        return UNKNOWN
    return str(value).rstrip("/").rsplit("/", 1)[-1] if value else ""


_ZONE_SUFFIX = re.compile(r"-?[a-z]$")


def region_of_zone(zone: Any) -> str:
    """us-east-1a -> us-east-1, us-central1-a -> us-central1, cn-hangzhou-b -> cn-hangzhou."""
    return _ZONE_SUFFIX.sub("", zone) if isinstance(zone, str) and zone else ""


def first_zone_region(zones: list) -> str:
    """The region of the first zone known among `zones` (a zone URL read by its last segment),
    "" where none is: a group's zones all lie in its region, so any one known places it."""
    return region_of_zone(next((last_segment(z) for z in zones if isinstance(z, str) and z), ""))


def aws_region(r: Resource, zones: list) -> Any:
    """An AWS resource's region: its own `region` (pulumi-aws v7), else its provider's, else
    the region of its first known zone name. Its own `region` unknown at preview overrides the
    provider's, so the provider's does not place it; a known zone name does (its own, or its
    stack subnet's: a subnet lies in one AZ of one region, and a group or instance launches only
    in subnets of its own region), else UNKNOWN. (A subnet named by its AZ ID alone gives no
    zone here: it places nothing.)"""
    region = r.get("region")
    if isinstance(region, str) and region:
        return region
    zone = first_zone_region(zones)
    if region is UNKNOWN:
        return zone or UNKNOWN
    return r.provider_region or zone


# ---------------------------------------------------------------------------------- violations

@dataclass(frozen=True)
class Violation:
    """One finding: which resource, what was found, what was expected, and how to fix it."""

    urn: str
    resource: str        # "<name> (<type token>)", or a stack-wide subject
    problem: str
    found: str
    expected: str
    fix: str

    @property
    def message(self) -> str:
        return (f"{self.resource}: {self.problem}. Found: {self.found}. "
                f"Expected: {self.expected}. Fix: {self.fix}")


def violation(resource: Optional[Resource], problem: str, found: Any, expected: Any,
              fix: str) -> Violation:
    subject = f"{resource.name} ({resource.type})" if resource else "stack"
    return Violation(resource.urn if resource else "", subject, problem, _show(found),
                     _show(expected), fix)


def _show(value: Any) -> str:
    if value is None:
        return "nothing"
    if value is UNKNOWN:
        return "a value unknown during preview"
    return value if isinstance(value, str) else repr(value)


# ------------------------------------------------------------------------------------ adapters

def from_plan(plan: Any) -> list[Resource]:
    """The custom resources of a trainstack `Plan` (components and providers are left out)."""
    views = {r.urn: Resource(type=r.type, name=r.name, urn=r.urn, props=plain(r.inputs),
                             retain=bool(r.retain_on_delete), protect=bool(r.protect))
             for r in plan.resources if r.custom and not r.type.startswith("pulumi:")}
    for r in plan.resources:
        if r.urn in views:
            # Only inputs that depend on something: the engine lists every input, mostly empty.
            views[r.urn].deps = {k: [views[u] for u in urns if u in views]
                                 for k, urns in r.property_dependencies.items() if urns}
    return list(views.values())


def _provider_props(provider: Any) -> dict[str, Any]:
    props = plain(getattr(provider, "props", None) or {}) if provider is not None else {}
    return props if isinstance(props, dict) else {}


def _provider_region(provider: Any) -> Optional[str]:
    if provider is None:
        return None
    props = _provider_props(provider)
    for key in ("region", "location"):
        value = props.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def from_policy_resources(resources: Sequence[Any]) -> list[Resource]:
    """StackValidationArgs.resources (pulumi_policy PolicyResource) as views.

    The pack cannot tell components from custom resources; components carry no cloud token, so
    no rule matches them. Providers and the stack itself are left out.
    """
    views: dict[int, Resource] = {}
    for r in resources:
        if r.resource_type.startswith("pulumi:"):
            continue
        views[id(r)] = Resource(type=r.resource_type, name=r.name, urn=r.urn,
                                props=plain(r.props), retain=None,
                                provider_region=_provider_region(r.provider),
                                provider=_provider_props(r.provider), protect=_protect(r))
    for r in resources:
        if id(r) in views:
            views[id(r)].deps = {k: [views[id(d)] for d in deps if id(d) in views]
                                 for k, deps in (r.property_dependencies or {}).items()}
    return list(views.values())


def from_resource_args(args: Any) -> Resource:
    """ResourceValidationArgs (one resource's inputs, no dependencies) as a view."""
    return Resource(type=args.resource_type, name=args.name, urn=args.urn, props=plain(args.props),
                    retain=None, provider_region=_provider_region(args.provider),
                    provider=_provider_props(args.provider), protect=_protect(args))


def _protect(r: Any) -> bool:
    options = getattr(r, "opts", None)
    return bool(getattr(options, "protect", False))
