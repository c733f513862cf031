"""The Analyzer gRPC service the engine drives, reading each request once for every rule.

pulumi_policy's servicer hands each policy its own deserialised copy of the request (a stack of
20,000 resources is read once per stack policy, a resource once per resource policy). This
subclass reads the request's resources into `Resource` views once and runs every enabled rule on
them, with the servicer's own configuration, enforcement-level and reporting helpers, so the
diagnostics are the ones pulumi_policy would have sent, plus:
- an advisory note for every exemption ("<name> (<type>) is exempt from <policy> by ..."),
- "cannot decide: ..." as a violation where the policy's cannotDecide is mandatory, else the
  engine's advisory "can't run policy ... during preview" note.
"""
from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Any, Callable, Iterator, Mapping, Optional

from pulumi.runtime.proto import analyzer_pb2 as proto
from pulumi_policy import EnforcementLevel, ResourceValidationPolicy

from trainstack_policies.exemptions import skip_names
from trainstack_policies.model import (
    _CLOUD_OF_TYPE,
    _UNKNOWN_SENTINELS,
    UNKNOWN,
    Resource,
    UnknownValue,
    _cloud_of,
    _provider_region,
    dig,
    undecided_message,
)
from trainstack_policies.rules import RULES, Rule
from trainstack_policies.runner import undecided_violation

_HELPERS = ("_get_enforcement_level", "_get_policy_config", "_create_report_violation",
            "_map_enforcement_level", "_configure_runtime_settings", "Analyze", "AnalyzeStack",
            "Remediate")
_BY_NAME = {r.name: r for r in RULES}


def compatible(base: type) -> bool:
    return all(hasattr(base, h) for h in _HELPERS)


_SIG_KEY = "4dabf18193072939515e22adb298388d"      # pulumi_policy.deserialize.SPECIAL_SIG_KEY
_SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270"   # SPECIAL_SECRET_SIG


# Strings first, by their value: a oneof member that is not set reads as its default (""), so
# a non-empty string_value is a string, known without WhichOneof (which looks the oneof up by
# name on every call, dearer than the read). Anything else, "" included, asks WhichOneof; where
# only one kind matters, HasField (a little cheaper) asks for that one.

def _value(v: Any) -> Any:
    text = v.string_value
    if text:
        return UNKNOWN if text in _UNKNOWN_SENTINELS else text
    kind = v.WhichOneof("kind")
    if kind == "string_value":
        return text
    if kind == "struct_value":
        return _props(v.struct_value)
    if kind == "list_value":
        return _list(v.list_value.values)
    if kind == "number_value":
        return v.number_value
    if kind == "bool_value":
        return v.bool_value
    return None


def _list(values: Any) -> list:
    """A ListValue's values as _value() gives each: strings and structs decoded inline (a call
    less per entry of a rule list or a list of zones)."""
    out = []
    for x in values:
        text = x.string_value
        if text:
            out.append(UNKNOWN if text in _UNKNOWN_SENTINELS else text)
        elif x.HasField("struct_value"):
            out.append(_props(x.struct_value))
        else:
            out.append(_value(x))
    return out


def _props(struct: Any) -> Any:
    """A protobuf Struct as the plain values rules read, in one pass: what
    plain(deserialize_properties(MessageToDict(struct))) gives (unknown sentinels as UNKNOWN,
    secrets unwrapped), at a fraction of the cost; other signatures (assets, archives,
    resource references) stay the dicts they are, which no rule reads."""
    fields = struct.fields
    out = {}
    # Keys, then fields[key]: the map's .items() is a Python-level generator (collections.abc
    # ItemsView), its key iteration and lookup are C. The common kinds are decoded inline.
    for key in fields:
        v = fields[key]
        text = v.string_value
        if text:
            out[key] = UNKNOWN if text in _UNKNOWN_SENTINELS else text
        elif v.HasField("struct_value"):
            out[key] = _props(v.struct_value)
        else:
            out[key] = _value(v)
    if _SIG_KEY in out and out[_SIG_KEY] == _SECRET_SIG:
        return out.get("value")
    return out


# Serialised Value -> its decoding (_value), for the top-level inputs a view decodes that are
# not non-empty strings (structs, lists, numbers, flags; a NaN is not kept: _unstrung): the
# same tag map, interface list or rule list recurs across a stack's resources (every
# resource of a team carries its tags; every template of one instance type its interfaces),
# and serialising a Value (upb, in C) costs a fraction of decoding it in Python (a p5
# template's 33 interfaces: about 5 us against 90 us). Equal bytes are an equal Value, and
# the decoding is a function of the Value alone; rules only read values (a view's readings
# were already shared by its Analyze and AnalyzeStack calls). Bounded in entries and bytes.
_DECODED: dict[bytes, Any] = {}
_DECODED_ENTRIES = 200_000
_DECODED_BYTES = 64 << 20
_decoded_bytes = 0
# (serialised list Value, keys) -> what _View.entries reads of it, as _DECODED.
_CUT: dict[tuple[bytes, tuple[str, ...]], list] = {}


def _input(v: Any) -> Any:
    """_value(v) for a top-level input: a non-empty string read inline, anything else
    through _DECODED."""
    text = v.string_value
    if text:
        return UNKNOWN if text in _UNKNOWN_SENTINELS else text
    return _unstrung(v)


def _unstrung(v: Any) -> Any:
    """_input(v) for a Value whose string_value is "" (read already by the caller).

    Serialised first, kind asked only on a miss: WhichOneof costs about 1,700 instructions, a
    tag map's serialisation about 4,500 and it is the memo's key anyway; a number's or a bool's
    serialisation (about 2,200) and a hit cost what WhichOneof and the read would. The memo
    holds what _value() gives for the bytes, whatever the kind (equal bytes, equal Value),
    except a NaN: one NaN object shared would compare equal to itself inside a list or a set,
    where NaNs read apart do not."""
    key = v.SerializeToString()
    found = _DECODED.get(key, _MISSING)
    if found is _MISSING:
        found = _value(v)
        if type(found) is not float or found == found:
            _remember(_DECODED, key, len(key), found)
    return found


def _remember(table: dict, key: Any, size: int, value: Any) -> None:
    """table[key] = value, within the bound that _DECODED and _CUT share (entries, key bytes)."""
    global _decoded_bytes
    if len(table) < _DECODED_ENTRIES and _decoded_bytes + size <= _DECODED_BYTES:
        table[key] = value
        _decoded_bytes += size


class _Provider:
    def __init__(self, props: dict):
        self.props = props


_MISSING = object()


class _Inputs:
    """A resource's inputs (a protobuf Struct), decoded key by key as rules read them: most
    rules read a few keys of a few types (the tags of every resource, the ingress of a security
    group), so most of a request is never converted. `whole()` gives every key, as _props()."""

    __slots__ = ("struct", "fields", "values", "decoded", "cut")

    def __init__(self, struct: Any):
        self.struct = struct
        self.fields = struct.fields
        self.values: dict[str, Any] = {}
        self.decoded: Optional[dict] = None
        # (path, keys) -> what _View.entries read of a list input not decoded whole: a launch
        # template's 33 interfaces are read for one key by Analyze and again by AnalyzeStack.
        self.cut: Optional[dict[tuple[str, tuple[str, ...]], list]] = None
        if _SIG_KEY in self.fields:
            # The inputs themselves wrapped as a secret (or another signature): all at once.
            whole = _props(struct)
            self.decoded = whole if isinstance(whole, dict) else {}

    def whole(self) -> dict:
        if self.decoded is None:
            fields, values = self.fields, self.values
            self.decoded = {key: values[key] if key in values else _input(fields[key])
                            for key in fields}
        return self.decoded


class _View(Resource):
    """A Resource whose props are decoded as they are read (see _Inputs): `get`/`known`/`items`
    decode the top-level key they need, reading `.props` decodes them all; `provider` and
    `provider_region` are read from the request when first asked for (_read_provider), and so
    are `name` and `protect` (most views never read either: 20,000 resources, no Analyze
    view's name is read and about 9,000 reads of the stack views' names; `protect` of the
    buckets alone).
    Everything else is Resource's, and a rule cannot tell the two apart."""

    # Set once per view (rules ask for it many times); the type of a view never changes.
    cloud: str = ""

    def __init__(self, type: str, name: Optional[str], urn: str, props: Any,  # noqa: A002
                 deps: Optional[dict] = None, retain: Optional[bool] = None,
                 provider_region: Optional[str] = None, provider: Optional[dict] = None,
                 protect: Optional[bool] = False, reader: Optional[_Reader] = None,
                 request: Any = None):
        # Resource's own fields, in Resource's order, so dataclasses.replace() works on a view
        # (replace() reads name, protect, provider and provider_region, and passes them on as
        # values). Every view sets the same attributes in the same order (CPython then shares
        # one key table among them, and attribute reads stay on their fast path). _Reader.view
        # makes its views without this call, with the same stores in the same order: keep the
        # two alike.
        # `request` (an AnalyzeRequest or AnalyzerResource): where a `name` or `protect` given
        # as None is read from when first asked for, and, with `reader`, the provider.
        self.type, self.urn = type, urn
        self._name = name
        self.cloud = _CLOUD_OF_TYPE.get(type) or _cloud_of(type)
        self._inputs = props
        self.deps = {} if deps is None else deps
        self.retain = retain
        self._request = request
        # reader: the _Reader that reads the request's provider on first use (_read_provider);
        # most views never read their provider (20,000 resources: about a third do, in either
        # call), and reading one serialises the provider message (its cache key).
        self._reader = reader
        self._provider: Optional[dict] = None if reader is not None else \
            ({} if provider is None else provider)
        self._provider_region = provider_region
        self._protect = protect

    @property
    def name(self) -> str:
        found = self._name
        if found is None:
            found = self._name = self._request.name
        return found

    @name.setter
    def name(self, value: str) -> None:
        self._name = value

    @property
    def protect(self) -> bool:
        found = self._protect
        if found is None:
            found = self._protect = bool(self._request.options.protect)
        return found

    @protect.setter
    def protect(self, value: bool) -> None:
        self._protect = value

    def _read_provider(self) -> dict:
        reader = self._reader
        if reader is not None:
            self._provider, self._provider_region = reader.provider(self._request)
            self._reader = None
        return self._provider if self._provider is not None else {}

    @property
    def provider(self) -> dict:
        found = self._provider
        return found if found is not None else self._read_provider()

    @provider.setter
    def provider(self, value: dict) -> None:
        self._read_provider()
        self._provider = value

    @property
    def provider_region(self) -> Optional[str]:
        if self._provider is None:
            self._read_provider()
        return self._provider_region

    @provider_region.setter
    def provider_region(self, value: Optional[str]) -> None:
        self._read_provider()
        self._provider_region = value

    @property
    def props(self) -> dict:
        inputs = self._inputs
        return inputs.whole() if isinstance(inputs, _Inputs) else inputs

    @props.setter
    def props(self, value: dict) -> None:
        self._inputs = value

    def get(self, path: str, default: Any = None) -> Any:
        # The commonest read of every rule, inlined (a call less per read): the decoded input,
        # each key decoded once, on first read.
        inputs = self._inputs
        if type(inputs) is _Inputs:
            # A key read before, the commonest read by far: `values` only ever holds top-level
            # keys without a dot (never "0"), and whole() puts the same objects in `decoded`,
            # so a hit is what the paths below would give.
            value = inputs.values.get(path, _MISSING)
            if value is not _MISSING:
                return value
            if "." not in path and path != "0":
                # One top-level key, not read yet: no split of the path.
                fields = inputs.fields
                if inputs.decoded is not None:
                    value = inputs.decoded.get(path, _MISSING)
                elif path in fields:
                    # A string inline, as _input() reads it (most inputs read once are).
                    given = fields[path]
                    text = given.string_value
                    value = inputs.values[path] = \
                        (UNKNOWN if text in _UNKNOWN_SENTINELS else text) if text else \
                        _unstrung(given)
                return default if value is _MISSING else value
        key, dot, rest = path.partition(".")
        if type(inputs) is not _Inputs or key == "0":
            return Resource.get(self, path, default)
        if inputs.decoded is not None:
            value = inputs.decoded.get(key, _MISSING)
        else:
            value = inputs.values.get(key, _MISSING)
            if value is _MISSING and key in inputs.fields:
                value = inputs.values[key] = _input(inputs.fields[key])
        if value is _MISSING:
            return default
        return dig(value, rest, default) if dot else value

    def has(self, key: str) -> bool:
        # Resource.has() without decoding every input: a Struct's keys are those of _props()
        # (only inputs wrapped whole as a secret differ, and those are decoded at once).
        inputs = self._inputs
        if type(inputs) is _Inputs and inputs.decoded is None:
            return key in inputs.fields
        return key in self.props

    def entries(self, path: str, keys: tuple[str, ...], iterated: bool = False) -> list:
        # Resource.entries() without decoding the rest of every entry: a list input not yet
        # decoded is read entry by entry, `keys` only; anything else as Resource reads it.
        inputs = self._inputs
        if type(inputs) is not _Inputs or inputs.decoded is not None or "." in path or \
                path == "0" or path in inputs.values or path not in inputs.fields:
            return Resource.entries(self, path, keys, iterated)
        cut = inputs.cut
        if cut is not None:
            found = cut.get((path, keys))
            if found is not None:
                return list(found)   # the entries themselves are only read, never changed
        given = inputs.fields[path]
        if not given.HasField("list_value"):
            return Resource.entries(self, path, keys, iterated)
        # The same list read for the same keys elsewhere in the process (see _DECODED).
        raw = given.SerializeToString()
        out = _CUT.get((raw, keys))
        if out is None:
            out = self._cut(given, keys)
            _remember(_CUT, (raw, keys), len(raw), out)
        if cut is None:
            cut = inputs.cut = {}
        cut[(path, keys)] = out
        return list(out)

    @staticmethod
    def _cut(given: Any, keys: tuple[str, ...]) -> list:
        out: list = []
        for x in given.list_value.values:
            # A Value that is no struct reads as an empty one: only an entry without fields
            # asks which kind it is (most entries are non-empty structs).
            entry = x.struct_value
            fields = entry.fields
            if not fields and not x.HasField("struct_value"):
                out.append(_value(x))
                continue
            if _SIG_KEY in fields:   # a secret entry: unwrapped whole, as _props() gives it
                whole = _props(entry)
                out.append({k: whole[k] for k in keys if k in whole}
                           if isinstance(whole, dict) else whole)
                continue
            cut_entry = {}
            for k in keys:
                if k in fields:
                    v = fields[k]
                    text = v.string_value   # strings inline, as _props() reads them
                    cut_entry[k] = (UNKNOWN if text in _UNKNOWN_SENTINELS else text) if text \
                        else _value(v)
            out.append(cut_entry)
        return out

    def list_entries(self, path: str, keys: tuple[str, ...]) -> Optional[list]:
        # Resource.list_entries() without decoding a list input whole: entries() reads it.
        inputs = self._inputs
        if type(inputs) is _Inputs and inputs.decoded is None and "." not in path and \
                path != "0" and path not in inputs.values and path in inputs.fields and \
                inputs.fields[path].HasField("list_value"):
            return self.entries(path, keys)
        return Resource.list_entries(self, path, keys)


# object.__new__, typed for a view (see _Reader.view).
_new_view: Callable[[type], Any] = object.__new__


# Decoded inputs kept from Analyze calls for AnalyzeStack, at most this many resources (the
# engine sends every resource to Analyze and then the whole stack once; past this many, later
# resources are simply read again).
_KEEP = 200_000


class _Reader:
    """Each resource's inputs read once per process. The engine sends every resource to Analyze
    and then all of them again to AnalyzeStack; a resource whose type and inputs are those of
    its Analyze request reuses what that call decoded, and its skip-tag names, instead of
    converting the Struct a second time (neither depends on the provider, which each view
    reads from its own request when asked: _View._read_provider). Rules only read values. The inputs are
    compared with protobuf's own equality against the Struct the kept reading holds anyway
    (upb's is that of the deterministic serialisations: 0.0 is not -0.0, NaN is NaN): one
    comparison in AnalyzeStack instead of a serialisation in each call."""

    def __init__(self) -> None:
        # serialised provider -> (props, region)
        self.providers: dict[bytes, tuple[dict, Optional[str]]] = {}
        # provider URN -> (a copy of the inputs last read for it, what was read)
        self.by_urn: dict[str, tuple[Any, tuple[dict, Optional[str]]]] = {}
        # resource URN -> [type, _Inputs, skip names or None]
        self.seen: dict[str, list] = {}

    def provider(self, r: Any) -> tuple[dict, Optional[str]]:
        """The provider's inputs and region of request message `r` (an AnalyzeRequest or an
        AnalyzerResource)."""
        given = r.provider   # each attribute read of a message makes a new wrapper: read once
        # What is read depends on the provider's inputs alone. First the last inputs read for
        # its URN, compared by protobuf equality (cheaper than serialising the provider).
        urn, properties = given.urn, given.properties
        last = self.by_urn.get(urn)
        if last is not None and last[0] == properties:
            return last[1]
        # Else keyed by the whole serialised provider: its URN and its inputs (a provider's
        # URN names it, its inputs may differ by run). A request without a provider reads as
        # an empty one (b""): no inputs, no region, as a provider set with nothing in it.
        key = given.SerializeToString(deterministic=True)
        found = self.providers.get(key)
        if found is None:
            props = _props(properties) if key else {}
            props = props if isinstance(props, dict) else {}
            found = self.providers[key] = (props, _provider_region(_Provider(props)))
        kept = type(properties)()
        kept.CopyFrom(properties)   # its own copy: the request's would keep the whole request
        self.by_urn[urn] = (kept, found)
        return found

    def view(self, r: Any, keep: bool, urn: Optional[str] = None,
             type_: Optional[str] = None) -> tuple[Resource, frozenset]:
        """The resource's view and its skip-tag names (exemptions.skip_names). `keep`: an
        Analyze request, kept for the AnalyzeStack that follows. `urn` and `type_`: the
        message's, where the caller has read them already (each read makes a new string)."""
        if urn is None or type_ is None:
            urn, type_ = r.urn, r.type
        properties = r.properties
        entry = self.seen.get(urn)
        # A reading that cut a list input (_View.entries: a p5 launch template's 33 interfaces)
        # is not reused: those inputs are large, and upb's equality walks every entry's map
        # (about 180,000 instructions for that template) where reading the list again costs
        # its serialisation, which finds the cut in _CUT (about 85,000), and only for a rule
        # that reads it. A small reading is cheaper to compare than to read again.
        if entry is not None and (entry[0] != type_ or entry[1].cut is not None or
                                  entry[1].struct != properties):
            entry = None
        if entry is None:
            entry = [type_, _Inputs(properties), None]
            if keep and (urn in self.seen or len(self.seen) < _KEEP):
                self.seen[urn] = entry
        # The name and the protect option are read from the request when first asked for.
        # _View(type_, None, urn, entry[1], {}, None, None, None, None, self, r), without the
        # call: the same attributes in the same order (about a third of a view's making).
        view = _new_view(_View)
        view.type = type_
        view.urn = urn
        view._name = None
        view.cloud = _CLOUD_OF_TYPE.get(type_) or _cloud_of(type_)
        view._inputs = entry[1]
        view.deps = {}
        view.retain = None
        view._request = r
        view._reader = self
        view._provider = None
        view._provider_region = None
        view._protect = None
        if entry[2] is None:
            entry[2] = skip_names(view)
        return view, entry[2]

    def done(self) -> None:
        """The stack has been judged: what Analyze kept for it is not needed again."""
        self.seen.clear()


class _Collector:
    """How this process holds Python's cyclic garbage collector off around judging (the
    collector is process-wide: one of these per process).

    Analyze calls before the process's first AnalyzeStack hold it off (`held`): what they read
    is kept for AnalyzeStack (_Reader), and the collections their allocations set off walked
    those readings again and again to free nothing (20,000 resources: 229 collections,
    0 objects collected, 20-30 ms). At most while the reader keeps readings (_KEEP resources,
    a bound on what a cycle made meanwhile could hold back) and for _KEEP Analyze calls (the
    same resource sent again keeps one reading); the first AnalyzeStack, or any Analyze past
    either bound, turns it back on.

    The first stack of a process is followed by gc.freeze() (`frozen`) before the collector
    comes back: what the call leaves alive (the per-stack memos hold every view and group
    until the next stack) would otherwise be walked by the collection that turning it on sets
    off (40-60 ms at 20,000 resources, to free nothing). Frozen objects are still freed by
    refcounting; only a reference cycle among them is never collected, so a process freezes
    once and holds the collector off for Analyze only before that: a later stack is judged as
    before, and what was frozen is bounded by the one stack it followed."""

    held = False
    frozen = False
    calls = 0   # Analyze calls so far


_COLLECTOR = _Collector()


def _hold_collector(kept: int) -> None:
    """An Analyze call, the reader keeping `kept` readings: see _Collector."""
    # Calls, not only readings: the same resource sent again and again keeps one reading but
    # may make a cycle each time.
    calls = _COLLECTOR.calls   # before this one, as `kept`
    _COLLECTOR.calls = calls + 1
    if _COLLECTOR.held:
        if kept >= _KEEP or calls >= _KEEP:
            _release_collector()
    elif not _COLLECTOR.frozen and kept < _KEEP and calls < _KEEP and gc.isenabled():
        gc.disable()
        _COLLECTOR.held = True


def _release_collector() -> None:
    """The collector back on where Analyze calls held it off (see _Collector)."""
    if _COLLECTOR.held:
        _COLLECTOR.held = False
        gc.enable()


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector off for the length of one AnalyzeStack call. Judging a
    stack allocates views, groups and indexes by the hundred thousand, nearly none of them in a
    reference cycle: refcounting frees them when the call ends, and the collections their
    allocations trigger meanwhile found nothing to free (20,000 resources: 231 collections,
    0 objects collected, about 0.04 s of CPU). Whatever cycles the call does make
    (an exception kept with its traceback) are collected after it, once the collector is back
    on; it is only turned back on if it was on, or held off by Analyze calls (another
    thread's call may hold it off). The first such call of a process freezes what it leaves
    (_Collector)."""
    if not _COLLECTOR.held and not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        _COLLECTOR.held = False
        if not _COLLECTOR.frozen:
            _COLLECTOR.frozen = True
            gc.freeze()
        gc.enable()


def _struct_plain(value: Any) -> Any:
    """A Struct, ListValue or value as plain Python (numbers as the floats the Struct holds,
    Infinity and NaN included)."""
    from google.protobuf import struct_pb2
    if isinstance(value, struct_pb2.Struct):
        return {k: _struct_plain(v) for k, v in value.items()}
    if isinstance(value, struct_pb2.ListValue):
        return [_struct_plain(v) for v in value]
    return value


def rule_config(rule: Rule, given: Optional[Mapping[str, Any]]) -> dict[str, Any]:
    """The policy's properties: schema defaults under what the engine sent (the CLI sends the
    defaults too; a bare Configure may not). Both serving paths use it (pack.py imports it)."""
    out = {k: v["default"] for k, v in rule.schema.items() if "default" in v}
    out.update(given or {})
    return out


# The per-Configure key of the resource policies' (policy, rule, level, properties) list.
_RESOURCE_RULES = ("rules", "resource")


def make(base: type) -> type:
    class Analyzer(base):
        # Set on the instance once done / made (_settings, _reader).
        _trainstack_settings = False
        _trainstack_reader: Optional[_Reader] = None
        _trainstack_configured: Optional[tuple[Any, Any, dict]] = None

        def _configured(self) -> dict:
            """What is worked out once per Configure (not per request): kept until the
            enforcement levels or the properties change, the servicer's answers depending on
            nothing else besides the request (pulumi_policy replaces both dicts in Configure).
            Read on every request, so read in one call."""
            # Attribute reads, not getattr() calls (a builtin call each, twice per resource):
            # pulumi_policy's __init__ and Configure set both; a servicer made otherwise reads
            # as one with neither.
            try:
                levels = self._PolicyAnalyzerServicer__policy_pack_config_enforcement_level
                config = self._PolicyAnalyzerServicer__policy_pack_config
            except AttributeError:
                levels = getattr(self, "_PolicyAnalyzerServicer__policy_pack_config_enforcement_"
                                 "level", None)
                config = getattr(self, "_PolicyAnalyzerServicer__policy_pack_config", None)
            cache = self._trainstack_configured
            if cache is None or cache[0] is not levels or cache[1] is not config:
                cache = (levels, config, {})
                self._trainstack_configured = cache
            return cache[2]

        def _per_configure(self, key: Any, compute: Callable[[], Any]) -> Any:
            """compute(), worked out once per Configure (see _configured)."""
            found = self._configured()
            if key not in found:
                found[key] = compute()
            return found[key]

        def _rules(self, kind: str) -> Optional[list[tuple[Any, Rule, Any, dict]]]:
            """(policy, rule, enforcement level, properties) for each enabled policy of `kind`;
            None when a policy is not one of ours (then pulumi_policy's own path runs)."""
            found = self._configured().get(("rules", kind), _MISSING)
            if found is not _MISSING:
                return found   # kept only where the servicer had its policies
            try:
                policies = self._PolicyAnalyzerServicer__policies
            except AttributeError:
                return None

            def enabled() -> Optional[list[tuple[Any, Rule, Any, dict]]]:
                out = []
                for policy in policies:
                    rule = _BY_NAME.get(policy.name)
                    if rule is None:
                        return None
                    level = self._get_enforcement_level(policy)
                    if rule.kind != kind or level == EnforcementLevel.DISABLED:
                        continue
                    if level == EnforcementLevel.REMEDIATE:
                        level = EnforcementLevel.MANDATORY   # none of these policies remediates
                    out.append((policy, rule, level, self._config(policy, rule)))
                return out
            return self._per_configure(("rules", kind), enabled)

        def _note(self, response: Any, policy: Any, message: str, urn: str = "") -> None:
            response.diagnostics.append(proto.AnalyzeDiagnostic(
                policyName=policy.name,
                policyPackName=self._PolicyAnalyzerServicer__policy_pack_name,
                policyPackVersion=self._PolicyAnalyzerServicer__policy_pack_version,
                message=message, urn=urn, description=policy.description,
                enforcementLevel=self._map_enforcement_level(EnforcementLevel.ADVISORY)))

        def _config(self, policy: Any, rule: Rule) -> dict:
            """The policy's properties, worked out once per Configure (pulumi_policy copies
            them on every request)."""
            given = getattr(self, "_PolicyAnalyzerServicer__policy_pack_config", None)
            cache: Optional[tuple[Any, dict[str, dict]]] = getattr(
                self, "_trainstack_configs", None)
            if cache is None or cache[0] is not given:
                cache = (given, {})
                self._trainstack_configs = cache
            if policy.name not in cache[1]:
                cache[1][policy.name] = rule_config(rule, self._get_policy_config(policy.name))
            return cache[1][policy.name]

        def _settings(self) -> None:
            # Reads PULUMI_CONFIG and the stack's settings: they do not change while the
            # engine talks to this process, so once is enough (pulumi_policy does it per call).
            if not getattr(self, "_trainstack_settings", False):
                self._configure_runtime_settings()
                self._trainstack_settings = True

        def _reader(self) -> _Reader:
            reader = getattr(self, "_trainstack_reader", None)
            if reader is None:
                reader = self._trainstack_reader = _Reader()
            return reader

        def _judge(self, response: Any, policy: Any, rule: Rule, level: Any, config: dict,
                   resources: list[Resource], skips: dict, run: Any,
                   notes: bool = True, flagged: Optional[list[Resource]] = None) -> None:
            """Run one policy over `resources`: its exemptions worked out once (an advisory note
            each when `notes`), then `run(config, skips, exempt URNs)`. `flagged`: those of
            `resources`, in order, whose skip names are not empty (the only ones exemptions()
            looks at when the policy has no skipResources), when the caller has them."""
            if len(resources) == 1 and not skips.get(id(resources[0]), True) and \
                    not config.get("skipResources"):
                exempt = []   # no skip tag and no skipResources: what exemptions() would give
            elif flagged is not None and not config.get("skipResources"):
                exempt = rule.exemptions(flagged, config, skips)
            else:
                exempt = rule.exemptions(resources, config, skips)
            if notes:
                for e in exempt:
                    self._note(response, policy, f"{policy.description}\nexempt: {e.message}",
                               e.urn)
            try:
                try:
                    found = run(config, skips, {e.urn for e in exempt})
                except UnknownValue:
                    raise
                except Exception as crash:  # noqa: BLE001
                    # A shape no rule expected (a string where a list goes): a crash would fail
                    # the whole preview; say what could not be read instead.
                    subject = resources[0] if notes and len(resources) == 1 else Resource(
                        "stack", "the stack", "", {})
                    raise UnknownValue(subject, f"(inputs of a shape the policy cannot read: "
                                                f"{type(crash).__name__}: {crash})") from None
            except UnknownValue as err:
                if config.get("cannotDecide", rule.undecided_default) != "mandatory":
                    pack = self._PolicyAnalyzerServicer__policy_pack_name
                    version = self._PolicyAnalyzerServicer__policy_pack_version
                    self._note(response, policy, f"can't run policy '{policy.name}' from policy "
                               f"pack '{pack}@v{version}' during preview: "
                               f"{undecided_message(err)}")
                    return
                found = [undecided_violation(err)]
            if found:
                report = self._create_report_violation(response, policy.name,
                                                       policy.description, level,
                                                       policy.severity)
                for v in found:
                    report(v.message, v.urn or None)

        def Configure(self, request, context):  # noqa: N802
            """pulumi_policy takes any property; a misspelt one (maxMonthlyUSD) would then be
            ignored and the cap dropped. Refused as `trainstack check` refuses it: the engine
            stops with the message instead of running without the setting."""
            from trainstack_policies.pack_config import (
                schema_errors,
                unknown_names,
                unknown_properties,
            )
            # Read as the Struct holds them, not with MessageToDict, which raises on an
            # Infinity or NaN a runner sent: the schema refuses those as check refuses 1e400.
            given = {name: _struct_plain(c.properties)
                     for name, c in request.policyConfig.items()}
            # In the order `trainstack check` says them: a policy the pack does not have, then
            # a known setting of a type or value its schema refuses (maxMonthlyUsd "1000", which
            # the rule would drop in silence; pack_config.schema_errors, the validator check
            # uses), then a setting the policy does not take.
            import grpc
            spelling = ". Fix the spelling (a setting the pack does not know is never applied)."
            if unknown_names(given):
                context.abort(grpc.StatusCode.INVALID_ARGUMENT,
                              "; ".join(unknown_names(given)) + spelling)
            wrong = [p for name, props in given.items() if name in _BY_NAME
                     for p in schema_errors(_BY_NAME[name], props)]
            if wrong:
                context.abort(grpc.StatusCode.INVALID_ARGUMENT, "; ".join(wrong) + ". Fix the "
                              "value (a setting the policy cannot read is never applied).")
            problems = [p for name, props in given.items() if name in _BY_NAME
                        for p in unknown_properties(_BY_NAME[name], props)]
            if problems:
                context.abort(grpc.StatusCode.INVALID_ARGUMENT, "; ".join(problems) + spelling)
            return super().Configure(request, context)

        def Analyze(self, request, context):  # noqa: N802 (the gRPC method name)
            # Called once per resource: what _rules, _settings and _reader give, read inline
            # where already worked out.
            rules = self._configured().get(_RESOURCE_RULES, _MISSING)
            if rules is _MISSING:
                rules = self._rules("resource")
            if rules is None:
                return super().Analyze(request, context)
            if not self._trainstack_settings:
                self._settings()
            response = proto.AnalyzeResponse()
            if not rules:
                return response
            reader = self._trainstack_reader or self._reader()
            _hold_collector(len(reader.seen))
            r, names = reader.view(request, keep=True)
            for policy, rule, level, config in rules:
                if not names and not config.get("skipResources"):
                    types = rule.types
                    if types is not None and r.type not in types:
                        continue   # a type the rule does not judge: its check gives []
                    # Nothing can exempt it: the rule's own check, as _judge would run it. A
                    # check that raises is judged again by _judge, which says why (rules are
                    # pure functions of the view: the second run raises the same).
                    try:
                        found = rule.check(r, config)
                    except Exception:  # noqa: BLE001
                        pass
                    else:
                        if found:
                            report = self._create_report_violation(
                                response, policy.name, policy.description, level,
                                policy.severity)
                            for v in found:
                                report(v.message, v.urn or None)
                        continue
                self._judge(response, policy, rule, level, config, [r], {id(r): names},
                            lambda config, skips, exempt, rule=rule:
                            [] if exempt else rule.check(r, config))
            return response

        def _remediate_not_applicable(self) -> Optional[list[str]]:
            """The policies Remediate reports not applicable (those set to `remediate`), or None
            when pulumi_policy's own Remediate must answer."""
            def names() -> Optional[list[str]]:
                out = []
                for policy in self._PolicyAnalyzerServicer__policies:
                    if _BY_NAME.get(policy.name) is None:
                        return None
                    if not isinstance(policy, ResourceValidationPolicy):
                        continue   # pulumi_policy asks only resource policies to remediate
                    if policy.has_remediation():
                        return None
                    if self._get_enforcement_level(policy) == EnforcementLevel.REMEDIATE:
                        out.append(policy.name)
                return out
            return self._per_configure("remediate", names)

        def Remediate(self, request, context):  # noqa: N802
            """The engine calls Remediate before Analyze on every resource (step_generator.go:
            a remediation pass, then an analysis pass). pulumi_policy deserialises the whole
            resource on every call before looking for a remediation; none of these policies
            remediates, so the answer is known without reading the request: each policy set to
            `remediate` is reported not applicable, exactly as pulumi_policy reports it."""
            names = self._configured().get("remediate", _MISSING)   # kept: it had policies
            if names is _MISSING:
                try:
                    self._PolicyAnalyzerServicer__policies
                except AttributeError:
                    return super().Remediate(request, context)
                self._settings()
                names = self._remediate_not_applicable()
            elif not self._trainstack_settings:
                self._settings()
            if names is None:
                return super().Remediate(request, context)
            response = proto.RemediateResponse()
            if not names:
                return response
            for name in names:
                response.not_applicable.append(proto.PolicyNotApplicable(
                    policy_name=name, reason="Policy does not implement remediate"))
            return response

        def AnalyzeStack(self, request, context):  # noqa: N802
            rules = self._rules("stack")
            across = self._rules("resource")
            if rules is None or across is None:
                _release_collector()
                return super().AnalyzeStack(request, context)
            across = [(p, r, level, c) for p, r, level, c in across if r.stack_check is not None]
            self._settings()
            response = proto.AnalyzeResponse()
            reader = self._reader()
            if not rules and not across:
                reader.done()
                _release_collector()
                return response
            with _collector_paused():
                return self._analyze_stack(request, response, reader, rules, across)

        def _analyze_stack(self, request: Any, response: Any, reader: _Reader, rules: list,
                           across: list) -> Any:
            try:
                views: dict[str, tuple[Resource, frozenset]] = {}
                # Each view with its request message, read once (a second walk of
                # request.resources would make every message wrapper and read its URN again).
                read: list[tuple[Resource, Any]] = []
                for r in request.resources:
                    type_ = r.type
                    if not type_.startswith("pulumi:"):
                        urn = r.urn
                        views[urn] = pair = reader.view(r, False, urn, type_)
                        read.append((pair[0], r))
            finally:
                reader.done()
            for view, r in read:
                deps = r.propertyDependencies
                if deps:
                    # Keys, then deps[key]: the map's .items() is a Python-level generator.
                    view.deps = {k: [found[0] for u in deps[k].urns
                                     if (found := views.get(u)) is not None]
                                 for k in deps}
            resources = [view for view, _ in views.values()]
            skips = {id(view): names for view, names in views.values()}
            flagged = [view for view, names in views.values() if names]
            for policy, rule, level, config in rules:
                self._judge(response, policy, rule, level, config, resources, skips,
                            lambda config, skips, exempt, rule=rule:
                            rule.run_stack(resources, config, skips, exempt), flagged=flagged)
            for policy, rule, level, config in across:
                # No exemption notes: each resource's Analyze call gave them.
                self._judge(response, policy, rule, level, config, resources, skips,
                            lambda config, skips, exempt, rule=rule:
                            rule.run_across(resources, config, skips, exempt), notes=False,
                            flagged=flagged)
            return response

    return Analyzer
