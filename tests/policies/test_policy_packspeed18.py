"""What AnalyzeStack and the analyzer's views read stays what the request sends.

A resource's skip tags as the stack sends them exempt it, also where its Analyze call saw other
tags (the stack reuses an Analyze reading only where the inputs are equal: analyzer._Reader;
packspeed18 tried comparing only the tag key's Value and did not keep it). Top-level numbers
and flags, kept per serialised value since packspeed18 (analyzer._unstrung), read as before.
"""
from __future__ import annotations

from pulumi_policy import policy as stock

from tests.policies.test_policy_analyzer_fallback import _servicer
from tests.policies.test_policy_analyzer_reads import _analyze_each, _stack
from tests.policy_fixtures import CLUSTERS, find
from tests.policy_harness import _struct
from trainstack_policies import analyzer
from trainstack_policies.model import UNKNOWN

SKIP = "trainstack:policy-skip"


def _skipped(resources):
    # The Lustre file system's own skip tag names storage-same-zone, a stack policy: the
    # stack's answer then carries an advisory "exempt" note for it (rules.Rule.exemptions).
    fs = find(resources, "LustreFileSystem")
    fs.props["tags"] = {**fs.props.get("tags", {}), SKIP: "storage-same-zone"}
    return resources


def _exempt_notes(diagnostics):
    return [(policy, urn) for policy, urn, message in diagnostics
            if "exempt" in message and SKIP in message]


def test_analyze_stack_exempts_by_the_tags_it_is_sent_after_analyze_saw_others():
    make = analyzer.make(stock._PolicyAnalyzerServicer)
    fs_urn = find(CLUSTERS["aws"](), "LustreFileSystem").urn
    for analyzed, judged in ((CLUSTERS["aws"](), _skipped(CLUSTERS["aws"]())),
                             (_skipped(CLUSTERS["aws"]()), CLUSTERS["aws"]())):
        seen_first = _servicer(make)
        _analyze_each(seen_first, analyzed)
        after_analyze = _stack(seen_first, judged)
        fresh = _stack(_servicer(make), judged)
        assert after_analyze == fresh
        tagged = SKIP in find(judged, "LustreFileSystem").props["tags"]
        assert _exempt_notes(after_analyze) == ([("storage-same-zone", fs_urn)] if tagged else [])


def test_analyze_stack_keeps_the_skip_tag_and_reads_other_inputs_as_sent():
    """The same tags in both calls (the skip names are Analyze's), another input changed: the
    exemption still holds and the changed input is judged as the stack sends it."""
    make = analyzer.make(stock._PolicyAnalyzerServicer)
    built = _skipped(CLUSTERS["aws"]())
    changed = _skipped(CLUSTERS["aws"]())
    find(changed, "LustreFileSystem").props["storageCapacity"] = UNKNOWN
    seen_first = _servicer(make)
    _analyze_each(seen_first, built)
    after_analyze = _stack(seen_first, changed)
    fresh = _stack(_servicer(make), changed)
    unchanged = _stack(_servicer(make), built)
    assert after_analyze == fresh
    assert fresh != unchanged   # the capacity unknown at preview is seen
    fs_urn = find(built, "LustreFileSystem").urn
    assert _exempt_notes(after_analyze) == [("storage-same-zone", fs_urn)]


def test_number_and_flag_inputs_read_alike_across_resources_and_a_nan_stays_a_nan():
    """Top-level numbers and flags are kept per distinct serialised value (analyzer._unstrung,
    as struct and list inputs are): each resource still reads its own value, and 0 and -0,
    false and 0, null and an absent key read apart. A NaN is read afresh for every resource:
    two NaNs, like two NaNs read from JSON, are unequal, alone or inside a list."""
    given = [(0, "0.0"), (-0.0, "-0.0"), (False, "False"), (True, "True"), (None, "None"),
             (2.5, "2.5"), (1e300, "1e+300")]
    for order in (given, given[::-1]):
        for value, shown in order:
            view = analyzer._View("aws:s3/bucket:Bucket", "b", "urn:b",
                                  analyzer._Inputs(_struct({"forceDestroy": value})))
            assert repr(view.get("forceDestroy")) == shown
    nans = [analyzer._View("aws:s3/bucket:Bucket", n, f"urn:{n}",
                           analyzer._Inputs(_struct({"size": float("nan")}))).get("size")
            for n in ("a", "b")]
    assert repr(nans) == "[nan, nan]"
    assert [nans[0]] != [nans[1]]
