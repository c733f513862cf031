"""policies/analyzer.py reads a request's inputs key by key as rules ask for them, and keeps what
Analyze read for the AnalyzeStack that follows. Neither may change what a rule sees: a key read
lazily is the value pulumi_policy's own deserialisation gives, and AnalyzeStack judges the inputs
it is sent, whatever an earlier Analyze of the same URN carried."""
from __future__ import annotations

from google.protobuf import json_format
from hypothesis import given, settings
from hypothesis import strategies as st
from pulumi.runtime.proto import analyzer_pb2 as apb
from pulumi_policy.deserialize import deserialize_properties

from tests.policy_fixtures import CLUSTERS, find
from tests.policy_harness import _struct, engine_value, provider_for
from trainstack_policies import analyzer
from trainstack_policies.model import (
    UNKNOWN,
    UNKNOWN_STRING_SENTINEL,
    Resource,
    UnknownValue,
    dig,
    plain,
)

_SECRET = {"4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270"}
_KEYS = st.sampled_from(["tags", "labels", "0", "1", "a", "b", "forceDestroy", ""])
_LEAVES = st.one_of(st.none(), st.booleans(), st.floats(allow_nan=False, allow_infinity=False),
                    st.sampled_from(["x", "", "true", "0.0.0.0/0", UNKNOWN_STRING_SENTINEL]))
_VALUES = st.recursive(_LEAVES, lambda inner: st.one_of(
    st.lists(inner, max_size=3),
    st.dictionaries(_KEYS, inner, max_size=4),
    inner.map(lambda v: {**_SECRET, "value": v})), max_leaves=12)
_PATHS = st.lists(st.sampled_from(["tags", "labels", "0", "1", "a", "b", "value", ""]),
                  min_size=1, max_size=4).map(".".join)


@settings(max_examples=300, deadline=None)
@given(props=st.dictionaries(_KEYS, _VALUES, max_size=5), paths=st.lists(_PATHS, max_size=6))
def test_a_lazily_read_input_is_what_pulumi_policy_deserialises(props, paths):
    """Each path read through the view (in any order, then .props whole) equals the same path
    read from plain(deserialize_properties(MessageToDict(...))), pulumi_policy's own reading;
    has() answers for a top-level key what `key in props` answers there."""
    message = _struct(props)
    expected = plain(deserialize_properties(json_format.MessageToDict(message)))
    expected = expected if isinstance(expected, dict) else {}
    view = analyzer._View("aws:s3/bucket:Bucket", "b", "urn:b", analyzer._Inputs(message))
    for path in paths:
        assert view.get(path, "absent") == dig(expected, path, "absent"), path
    for key in ("tags", "labels", "0", "a", "value", ""):
        assert view.has(key) == (key in expected), key
    assert view.props == expected


def _aws_provider(r):
    return provider_for("aws", {"region": r.provider_region})


def _stack(servicer, resources, provider=_aws_provider):
    response = servicer.AnalyzeStack(apb.AnalyzeStackRequest(resources=[apb.AnalyzerResource(
        type=r.type, name=r.name, urn=r.urn, properties=_struct(engine_value(r.props)),
        propertyDependencies={k: apb.AnalyzerPropertyDependencies(urns=[d.urn for d in ds])
                              for k, ds in r.deps.items()},
        provider=provider(r))
        for r in resources]), None)
    return sorted((d.policyName, d.urn, d.message) for d in response.diagnostics)


def _analyze_each(servicer, resources):
    for r in resources:
        servicer.Analyze(apb.AnalyzeRequest(
            type=r.type, name=r.name, urn=r.urn, properties=_struct(engine_value(r.props)),
            provider=provider_for("aws", {"region": r.provider_region})), None)


def test_analyze_stack_judges_the_inputs_it_is_sent_not_those_analyze_saw():
    """Analyze sees the cluster as built; AnalyzeStack then gets the same URNs with the Lustre
    file system's capacity unknown. The stack's findings are those of a pack that never saw
    the Analyze calls, and differ from the unchanged stack's (so the change is visible)."""
    from tests.policies.test_policy_analyzer_fallback import _servicer
    from pulumi_policy import policy as stock

    make = analyzer.make(stock._PolicyAnalyzerServicer)
    built = CLUSTERS["aws"]()
    changed = CLUSTERS["aws"]()
    find(changed, "LustreFileSystem").props["storageCapacity"] = UNKNOWN

    seen_first = _servicer(make)
    _analyze_each(seen_first, built)
    after_analyze = _stack(seen_first, changed)

    fresh = _stack(_servicer(make), changed)
    unchanged = _stack(_servicer(make), built)
    assert after_analyze == fresh
    assert fresh != unchanged


def test_analyze_stack_judges_the_provider_it_is_sent_not_the_one_analyze_saw():
    """Analyze sees the Alibaba Cloud cluster under its own provider; AnalyzeStack then gets the
    same URNs and inputs under a provider of another region, and then with no provider at all.
    Each time its findings are those of a pack that never saw the Analyze calls; the first
    differs from the cluster's own (the group is priced in the provider's region), so a stack
    judged with the provider Analyze saw would show."""
    from tests.policies.test_policy_analyzer_fallback import _servicer
    from pulumi_policy import policy as stock

    make = analyzer.make(stock._PolicyAnalyzerServicer)
    built = CLUSTERS["alicloud"]()

    def own(r):
        return provider_for("alicloud", {"region": r.provider_region} if r.provider_region
                            else {})

    def elsewhere(r):
        return provider_for("alicloud", {"region": "ap-southeast-2"})

    def absent(r):
        return None

    for provider in (elsewhere, absent):
        seen_first = _servicer(make)
        for r in built:
            seen_first.Analyze(apb.AnalyzeRequest(
                type=r.type, name=r.name, urn=r.urn, properties=_struct(engine_value(r.props)),
                provider=own(r)), None)
        assert _stack(seen_first, built, provider) == \
            _stack(_servicer(make), built, provider), provider.__name__
    assert _stack(_servicer(make), built, elsewhere) != _stack(_servicer(make), built, own)


def _outcome(read):
    try:
        return ("value", read())
    except UnknownValue as err:
        return ("unknown", err.path)
    except TypeError:   # iterated: a number is no list, as `for e in 3.0` says
        return ("type error", None)


@settings(max_examples=300, deadline=None)
@given(props=st.dictionaries(_KEYS, _VALUES, max_size=5), path=_KEYS,
       keys=st.lists(_KEYS, max_size=3).map(tuple), iterated=st.booleans())
def test_entries_read_from_the_request_are_those_of_the_deserialised_inputs(
        props, path, keys, iterated):
    """entries() (each entry of a list input cut down to a few keys, which the view reads from
    the request without decoding the rest) gives what the same call gives on the inputs as
    pulumi_policy deserialises them, an unknown list or entry included; after a whole read too."""
    message = _struct(props)
    expected = plain(deserialize_properties(json_format.MessageToDict(message)))
    expected = expected if isinstance(expected, dict) else {}
    plain_resource = Resource("aws:ec2/launchTemplate:LaunchTemplate", "lt", "urn:lt", expected)
    view = analyzer._View("aws:ec2/launchTemplate:LaunchTemplate", "lt", "urn:lt",
                          analyzer._Inputs(message))
    want = _outcome(lambda: plain_resource.entries(path, keys, iterated))
    assert _outcome(lambda: view.entries(path, keys, iterated)) == want
    assert _outcome(lambda: view.entries(path, keys, iterated)) == want   # as kept
    want_list = _outcome(lambda: plain_resource.list_entries(path, keys))
    assert _outcome(lambda: view.list_entries(path, keys)) == want_list
    fresh = analyzer._View("aws:ec2/launchTemplate:LaunchTemplate", "lt", "urn:lt",
                           analyzer._Inputs(message))
    assert _outcome(lambda: fresh.list_entries(path, keys)) == want_list   # read first
    view.props   # decoded whole: the same answer from the decoded inputs
    assert _outcome(lambda: view.entries(path, keys, iterated)) == want
    assert _outcome(lambda: view.list_entries(path, keys)) == want_list


def test_inputs_of_equal_value_read_alike_and_any_difference_reads_apart():
    """A struct or list input is decoded once per distinct value in a process (analyzer._DECODED,
    _CUT: the same tag map or interface list on many resources): every resource still reads
    its own value. Values that differ only in kind or type (an empty map and an empty list,
    false and 0, a string and an unknown) or by one entry, each read twice, in both orders."""
    tags = [({}, "{}"), ([], "[]"), ({"team": "ml"}, "{'team': 'ml'}"),
            ({"team": "ml", "owner": "a"}, "{'team': 'ml', 'owner': 'a'}"),
            ({"team": False}, "{'team': False}"), ({"team": 0}, "{'team': 0.0}"),
            ({"team": UNKNOWN_STRING_SENTINEL}, "{'team': <unknown during preview>}"),
            ([{"key": "team"}], "[{'key': 'team'}]")]
    for given in (tags, tags[::-1], tags):
        for value, shown in given:
            view = analyzer._View("aws:s3/bucket:Bucket", "b", "urn:b",
                                  analyzer._Inputs(_struct({"tags": value})))
            assert repr(view.get("tags")) == shown
    # Two templates whose interface lists differ in one flag of one interface.
    nics = [{"associatePublicIpAddress": "false", "deviceIndex": i} for i in range(3)]
    public = [*nics[:2], {"associatePublicIpAddress": "true", "deviceIndex": 2}]
    for given, flags in ((nics, ["false"] * 3), (public, ["false", "false", "true"]),
                         (nics, ["false"] * 3), (public, ["false", "false", "true"])):
        view = analyzer._View("aws:ec2/launchTemplate:LaunchTemplate", "lt", "urn:lt",
                              analyzer._Inputs(_struct({"networkInterfaces": given})))
        assert view.entries("networkInterfaces", ("associatePublicIpAddress",)) == [
            {"associatePublicIpAddress": f} for f in flags]
    # The same list read for other keys, by another resource: those keys.
    other = analyzer._View("aws:ec2/launchTemplate:LaunchTemplate", "lt2", "urn:lt2",
                           analyzer._Inputs(_struct({"networkInterfaces": nics})))
    assert other.entries("networkInterfaces", ("deviceIndex",)) == [
        {"deviceIndex": 0.0}, {"deviceIndex": 1.0}, {"deviceIndex": 2.0}]


def test_entries_of_a_list_input_keep_only_the_keys_asked_for():
    """Three network interfaces, one of them unknown at preview: the view gives each known one
    with only the keys asked for, and raises for the unknown one's path."""
    nics = [{"associatePublicIpAddress": "true", "subnetId": "subnet-1", "deviceIndex": 0},
            {"deviceIndex": 1}, UNKNOWN_STRING_SENTINEL]
    view = analyzer._View("aws:ec2/launchTemplate:LaunchTemplate", "lt", "urn:lt",
                          analyzer._Inputs(_struct({"networkInterfaces": nics[:2]})))
    assert view.entries("networkInterfaces", ("associatePublicIpAddress",)) == [
        {"associatePublicIpAddress": "true"}, {}]
    unknown = analyzer._View("aws:ec2/launchTemplate:LaunchTemplate", "lt", "urn:lt",
                             analyzer._Inputs(_struct({"networkInterfaces": nics})))
    assert unknown.entries("networkInterfaces", ("deviceIndex",))[:2] == [
        {"deviceIndex": 0}, {"deviceIndex": 1}]
    assert unknown.entries("networkInterfaces", ("deviceIndex",))[2] is UNKNOWN


def test_list_entries_are_those_of_a_list_input_and_none_for_anything_else():
    """list_entries() gives a list input's entries cut down to the keys asked for, and None for
    one interface given as an object, a value unknown at preview, a scalar or no value."""
    nics = [{"associatePublicIpAddress": "false", "deviceIndex": 0}, UNKNOWN_STRING_SENTINEL]
    for given, want in ((nics, [{"associatePublicIpAddress": "false"}, UNKNOWN]),
                        (nics[0], None), (UNKNOWN_STRING_SENTINEL, None), ("false", None),
                        ([], [])):
        view = analyzer._View("aws:ec2/launchTemplate:LaunchTemplate", "lt", "urn:lt",
                              analyzer._Inputs(_struct({"networkInterfaces": given})))
        assert view.list_entries("networkInterfaces", ("associatePublicIpAddress",)) == want
    absent = analyzer._View("aws:ec2/launchTemplate:LaunchTemplate", "lt", "urn:lt",
                            analyzer._Inputs(_struct({})))
    assert absent.list_entries("networkInterfaces", ("associatePublicIpAddress",)) is None


def test_the_garbage_collector_is_back_on_after_a_stack_is_judged(monkeypatch):
    """AnalyzeStack holds Python's cyclic collector off while it judges a stack; afterwards it
    is on again (a server left without it would never free a reference cycle), also when a
    rule fails, and the call does not turn it on where it was off before."""
    import gc

    from pulumi_policy import policy as stock

    from tests.policies.test_policy_analyzer_fallback import _servicer
    from trainstack_policies.rules import Rule

    servicer = _servicer(analyzer.make(stock._PolicyAnalyzerServicer))
    resources = CLUSTERS["aws"]()
    assert gc.isenabled()
    assert _stack(servicer, resources) == _stack(servicer, resources)
    assert gc.isenabled()

    during = []

    def failing(self, *args, **kwargs):
        during.append(gc.isenabled())
        raise RuntimeError("a rule that fails")

    with monkeypatch.context() as patch:
        patch.setattr(Rule, "run_stack", failing)
        try:
            _stack(servicer, resources)
        except RuntimeError:
            pass
    assert during and not any(during)   # held off while the rules ran
    assert gc.isenabled()

    gc.disable()
    try:
        _stack(servicer, resources)
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_a_process_freezes_what_its_first_stack_leaves_and_only_that(monkeypatch):
    """Before a process's first AnalyzeStack, Analyze calls hold the collector off (what they
    read is kept for the stack); the stack turns it back on, after moving what it leaves alive
    out of the collector's sight (gc.freeze) once. A later operation's Analyze calls and stack
    leave the collector as it was (frozen objects are never collected when they form a cycle,
    so the frozen set must not grow with every stack a long-lived process judges)."""
    import gc

    from pulumi_policy import policy as stock

    from tests.policies.test_policy_analyzer_fallback import _servicer

    froze: list[bool] = []
    # Recorded, not done: this test process's own objects stay where they are.
    monkeypatch.setattr(gc, "freeze", lambda: froze.append(gc.isenabled()))
    monkeypatch.setattr(analyzer, "_COLLECTOR", analyzer._Collector())   # a fresh process
    servicer = _servicer(analyzer.make(stock._PolicyAnalyzerServicer))
    resources = CLUSTERS["aws"]()
    try:
        _analyze_each(servicer, resources)
        assert not gc.isenabled()   # held off while Analyze readings are kept
        first = _stack(servicer, resources)
        assert froze == [False]   # once, while the collector was still off
        assert gc.isenabled()
        _analyze_each(servicer, resources)
        assert gc.isenabled()     # the next operation: as before
        assert _stack(servicer, resources) == first
        assert _stack(servicer, resources) == first
        assert froze == [False]   # not again
        assert gc.isenabled()
    finally:
        gc.enable()


def test_analyze_calls_hold_the_collector_off_only_while_readings_are_kept(monkeypatch):
    """Past _KEEP kept readings (a bound on what cycles made meanwhile could hold back) an
    Analyze call turns the collector back on, and later ones leave it on."""
    import gc

    from pulumi_policy import policy as stock

    from tests.policies.test_policy_analyzer_fallback import _servicer

    monkeypatch.setattr(analyzer, "_COLLECTOR", analyzer._Collector())
    monkeypatch.setattr(analyzer, "_KEEP", 3)
    servicer = _servicer(analyzer.make(stock._PolicyAnalyzerServicer))
    resources = CLUSTERS["aws"]()
    assert len(resources) > 5
    try:
        _analyze_each(servicer, resources[:3])
        assert not gc.isenabled()   # three kept: held
        _analyze_each(servicer, resources[3:4])
        assert gc.isenabled()       # the fourth finds three kept: back on
        _analyze_each(servicer, resources[4:])
        assert gc.isenabled()
    finally:
        gc.enable()


def test_a_view_reads_its_provider_from_its_own_request_when_first_asked():
    """A view reads its provider only when a rule asks for it, from the request it was made
    from: the stack's view of a resource Analyze saw under another provider (same URN, same
    inputs, so the decoded inputs are reused) has the stack's provider, read before or after
    the Analyze view's; a copy (dataclasses.replace) and a region set on a view not yet read
    keep the rest of what the request says."""
    from dataclasses import replace

    def request(region):
        return apb.AnalyzeRequest(type="aws:s3/bucket:Bucket", name="b", urn="urn:b",
                                  properties=_struct({"bucket": "b"}),
                                  provider=provider_for("aws", {"region": region}))

    reader = analyzer._Reader()
    seen, _ = reader.view(request("us-east-1"), keep=True)
    stack, _ = reader.view(apb.AnalyzerResource(
        type="aws:s3/bucket:Bucket", name="b", urn="urn:b", properties=_struct({"bucket": "b"}),
        provider=provider_for("aws", {"region": "eu-west-1"})), keep=False)
    assert stack.get("bucket") == "b"
    assert stack.provider_region == "eu-west-1"
    assert seen.provider == {"region": "us-east-1"}
    assert seen.provider_region == "us-east-1"
    assert stack.provider == {"region": "eu-west-1"}
    unread, _ = reader.view(request("ap-south-1"), keep=False)
    copy = replace(unread, deps={})
    assert (copy.provider, copy.provider_region) == ({"region": "ap-south-1"}, "ap-south-1")
    moved, _ = reader.view(request("ap-south-1"), keep=False)
    moved.provider_region = "ap-south-2"
    assert (moved.provider, moved.provider_region) == ({"region": "ap-south-1"}, "ap-south-2")
    bare, _ = reader.view(apb.AnalyzeRequest(type="aws:s3/bucket:Bucket", name="b", urn="urn:c",
                                             properties=_struct({})), keep=False)
    assert (bare.provider, bare.provider_region) == ({}, None)


def test_a_view_reads_its_name_and_protect_from_its_own_request():
    """A view's name and `protect` option are those of the request it was made from (read
    when first asked for): the stack's view of a resource Analyze saw under the same URN and
    inputs but another name and protect has the stack's; a copy (dataclasses.replace) keeps
    them, and a name or protect set on a view not yet read is what it then says."""
    from dataclasses import replace

    def request(name, protect):
        return apb.AnalyzeRequest(type="aws:s3/bucket:Bucket", name=name, urn="urn:b",
                                  properties=_struct({"bucket": "b"}),
                                  options=apb.AnalyzerResourceOptions(protect=protect))

    reader = analyzer._Reader()
    seen, _ = reader.view(request("first", True), keep=True)
    stack, _ = reader.view(apb.AnalyzerResource(
        type="aws:s3/bucket:Bucket", name="second", urn="urn:b",
        properties=_struct({"bucket": "b"})), keep=False)
    assert stack.get("bucket") == "b"
    assert (stack.name, stack.protect) == ("second", False)
    assert (seen.name, seen.protect) == ("first", True)
    copy = replace(reader.view(request("third", True), keep=False)[0], deps={})
    assert (copy.name, copy.protect, copy.urn) == ("third", True, "urn:b")
    renamed, _ = reader.view(request("fourth", True), keep=False)
    renamed.name, renamed.protect = "fifth", False
    assert (renamed.name, renamed.protect) == ("fifth", False)
    assert analyzer.Resource.__repr__(copy).startswith(
        "_View(type='aws:s3/bucket:Bucket', name='third', urn='urn:b'")
