"""fix75: three defects earlier fixers left, over gRPC as `pulumi preview --policy-pack policies`
drives the pack (tests/policy_harness.py).

1. storage-same-zone's `zones` config took any string as a zone ("banana" was compared as a zone
   name and simply mismatched). docs/policies.md: a value "takes a zone name (`us-east-1a`) or an
   AWS AZ ID (`use1-az4`)". Zone names as the providers write them:
   AWS us-east-1a, us-gov-west-1a, cn-north-1a; Local Zones us-west-2-lax-1a; Wavelength Zones
   us-east-1-wl1-bos-wlz-1 with the zone ID use1-wl1-bos-wlz1 (AWS Wavelength developer guide,
   "Available Wavelength Zones": name / ID columns); AZ IDs use1-az4, usw2-lax1-az1
   (docs.aws.amazon.com/ram/latest/userguide/working-with-az-ids.html); GCP us-central1-a,
   northamerica-northeast1-b (cloud.google.com/compute/docs/regions-zones); Azure zones "1", "2",
   "3" (the pack reads an Azure `zones` entry as the number); Alibaba Cloud cn-hangzhou-h,
   cn-shanghai-finance-1z, ap-southeast-1a, eu-central-1a. Any other value is refused as a
   misspelt setting is: INVALID_ARGUMENT naming the policy, the key, the value and the forms.
"""
from __future__ import annotations

import grpc
import jsonschema
import pytest

from tests.policies.test_policy_fix74 import LIT, NAME_VS_ID, _case
from tests.policies.test_policy_review74 import SSZ, _run_case

VALID_ZONES = [
    "us-east-1a", "us-gov-west-1a", "cn-north-1a", "ap-southeast-4c", "us-west-2-lax-1a",
    "us-east-1-bos-1a", "us-east-1-wl1-bos-wlz-1", "use1-az4", "usw2-lax1-az1", "cnn1-az1",
    "use1-wl1-bos-wlz1", "us-central1-a", "northamerica-northeast1-b", "europe-west4-c",
    "1", "2", "3", "cn-hangzhou-h", "cn-shanghai-finance-1z", "ap-southeast-1a", "eu-central-1a",
]
BAD_ZONES = ["banana", "", "US-EAST-1A", "us-east-1", "us-central1", "cn-hangzhou", "use1",
             "us-east-1a ", "zones/us-central1-a", "0", "eastus", "eastus-1"]


def _config(pack, zone: str) -> dict:
    config = pack.cli_config()
    config[SSZ]["zones"] = {"subnet-0abc": zone}
    return config


@pytest.mark.parametrize("zone", VALID_ZONES)
def test_zones_valid_forms_configure(pack, zone):
    """Every cloud's zone form is taken, by the CLI's schema check (cli_config validates with
    the schema GetAnalyzerInfo sends) and by the pack's Configure."""
    config = pack.cli_config({SSZ: {"zones": {"subnet-0abc": zone}}})
    pack.send_config(config)
    from trainstack_policies.pack_config import parse, reconcile
    reconcile(parse({SSZ: {"zones": {"subnet-0abc": zone}}}))


@pytest.mark.parametrize("zone", BAD_ZONES)
def test_zones_bad_value_refused_over_grpc(pack, zone):
    with pytest.raises(grpc.RpcError) as err:
        pack.send_config(_config(pack, zone))
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    text = err.value.details()
    for needle in ("storage-same-zone", "zones.subnet-0abc", repr(zone), "us-east-1a",
                   "use1-az4", "us-central1-a", "cn-hangzhou-h"):
        assert needle in text, (needle, text)
    pack.configure()   # the pack still configures after the refusal


@pytest.mark.parametrize("zone", BAD_ZONES)
def test_zones_bad_value_refused_by_cli_schema_and_check(pack, zone):
    """The CLI validates with the schema the pack sends (gojsonschema): it refuses too; and
    `trainstack check` (pack_config.reconcile) refuses in the pack's words."""
    with pytest.raises(jsonschema.ValidationError):
        pack.cli_config({SSZ: {"zones": {"subnet-0abc": zone}}})
    from trainstack_policies.pack_config import PolicyConfigError, parse, reconcile
    with pytest.raises(PolicyConfigError, match="zones.subnet-0abc") as err:
        reconcile(parse({SSZ: {"zones": {"subnet-0abc": zone}}}))
    assert repr(zone) in str(err.value)


CASES = [
    # A Wavelength Zone ID is an AZ ID (its name is us-east-1-wl1-bos-wlz-1): against nodes
    # on the name us-east-1a it is "cannot decide", as usw2-az1 is (fix74 n03), not a name
    # that mismatches.
    _case("w01", LIT, "undecided", {"subnet-0lit": "use1-wl1-bos-wlz1"},
          "told a Wavelength Zone ID, nodes on a name: cannot decide", (NAME_VS_ID,)),
    _case("w02", LIT, "fail", {"subnet-0lit": "us-east-1-wl1-bos-wlz-1"},
          "told the Wavelength Zone's name, nodes in us-east-1a: fail",
          ("not in the GPU nodes' zone", "us-east-1-wl1-bos-wlz-1")),
]


@pytest.mark.parametrize("case", [pytest.param(c, id=c[0]) for c in CASES])
def test_zones_config_forms_judged(pack, case):
    _run_case(pack, case)


# --------------------------------------------------------------------------------------------
# 2. A blank trainstack:max-hours tag. docs/policies.md: the tag "never shortens the estimate"
# (lifetimes come from the stack's stops alone); it is only validated, so a NaN, negative or
# infinite one, which declares a lifetime that cannot be, is a violation. A blank value ("", or
# spaces; a tag or label may have an empty value) declares no lifetime at all:
# it is read as no tag, never as a number that fails (fix73 made blank text a violation where a
# number is needed, which a tag that prices nothing is not). So a blank tag beside a correct
# stop leaves a compliant stack compliant; a blank tag on the group does not hide a bad one on
# its template; and it never prices fewer hours than the stack's stops give.
# Figures (review74's header): AWS 2 p5.48xlarge to a stop at 96 h, estimate 16,831.42 +
# storage < budget 20,000: pass; without the stop the month, 135,002.54 > 20,000: fail.
# GCP 2 a3-ultragpu-8g to a Cloud Scheduler stop at 96 h: 25,164.51 < 30,000: pass. Azure 2
# Standard_ND96isr_H100_v5 96 h: <= 21,286.07 < 25,000: pass.
SPEND_P = "spend-limit"


def _asg_tag(value):
    def mutate(s):
        from tests.policies.test_policy_review74 import named
        named(s, "train-nodes").props["tags"].append(
            {"key": "trainstack:max-hours", "value": value, "propagateAtLaunch": True})
        return s
    return mutate


def _lt_tag(value):
    def mutate(s):
        from tests.policies.test_policy_review74 import named
        named(s, "train-lt").props["tags"]["trainstack:max-hours"] = value
        return s
    return mutate


def _blank(cid, cloud, kwargs, mutate, want, why):
    return (cid, cloud, kwargs, mutate, {SPEND_P: want} if want else {}, None, why)


def _gcp_label(value):
    def mutate(s):
        from tests.policies.test_policy_review74 import named
        named(s, "train-tpl").props["labels"]["trainstack_max_hours"] = value
        return s
    return mutate


def _azure_tag(value):
    def mutate(s):
        from tests.policies.test_policy_review74 import named
        named(s, "nodes").props["tags"]["trainstack:max-hours"] = value
        return s
    return mutate


BLANK = [
    _blank("h01", "aws", {}, _asg_tag(""), None, "blank tag on the group, stop at 96 h: pass"),
    _blank("h02", "aws", {}, _asg_tag("   "), None, "spaces only: blank, pass"),
    _blank("h03", "aws", {}, _lt_tag(""), None, "blank tag on the launch template: pass"),
    _blank("h04", "gcp", {}, _gcp_label(""), None, "blank GCP label on the template: pass"),
    _blank("h05", "azure", {}, _azure_tag(""), None,
           "the Azure tag \"96\" made blank, its autoscale stop at 96 h kept: pass"),
    # neighbours: blank never hides a bad value, and never shortens the estimate
    _blank("h06", "aws", {}, lambda s: _lt_tag("NaN")(_asg_tag("")(s)), "fail",
           "blank on the group, NaN on its template: the NaN is still a violation"),
    _blank("h07", "aws", {}, _asg_tag("0"), "fail", "0 hours: still not a positive number"),
    _blank("h08", "aws", {"hours": None}, _asg_tag(""), "fail",
           "blank tag, no stop: the month, 135,002.54 > 20,000: fail"),
    _blank("h09", "aws", {}, _asg_tag("abc"), "fail", "text that is no number: a violation"),
]


@pytest.mark.parametrize("case", [pytest.param(c, id=c[0]) for c in BLANK])
def test_blank_max_hours_tag(pack, case):
    _run_case(pack, case)


# --------------------------------------------------------------------------------------------
# 3. An AWS budget's instance type filter, costFilters InstanceType or filterExpression
# dimension INSTANCE_TYPE, and the case of its values. AWS compares dimension values exactly,
# case and all: "The default values for MatchOptions are EQUALS and CASE_SENSITIVE" (Cost
# Explorer API, DimensionValues; the Budgets Expression takes the same ExpressionDimensionValues),
# and EC2 bills an instance's hours under its type as EC2 names it, lowercase (p5.48xlarge). So a
# budget filtered on "P5.48XLARGE" counts no p5.48xlarge hours: it is no alarm and no cap for
# the GPU group, and with no other budget the stack has "no budget alarm" (mandatory fail).
# Figures (review74's AWS cluster): estimate 16,831.42 + storage < 20,000 with a budget that
# covers the group: pass.
def _abud(**props):
    def mutate(s):
        from tests.policies.test_policy_review74 import named
        named(s, "train-budget").props.update(props)
        return s
    return mutate


def _dim(key, *values, match=None):
    d: dict = {"key": key, "values": list(values)}
    if match:
        d["matchOptions"] = match
    return {"dimensions": d}


def _itype(*values):
    return _abud(costFilters=[{"name": "InstanceType", "values": list(values)}])


def _case3(cid, mutate, want, why):
    return (cid, "aws", {}, mutate, {SPEND_P: want} if want else {}, None, why)


CASE_CASES = [
    _case3("i01", _itype("p5.48xlarge"), None, "InstanceType p5.48xlarge: covers, 16,831 < 20,000"),
    _case3("i02", _itype("P5.48XLARGE"), "fail",
           "InstanceType P5.48XLARGE: AWS compares case-sensitively, no p5.48xlarge hours: fail"),
    _case3("i03", _itype("P5.48xlarge"), "fail", "P5.48xlarge: another case, no cap: fail"),
    _case3("i04", _itype("P5.48XLARGE", "p5.48xlarge"), None, "one value matches exactly: pass"),
    _case3("i05", _abud(filterExpression=_dim("INSTANCE_TYPE", "P5.48XLARGE")), "fail",
           "filterExpression INSTANCE_TYPE P5.48XLARGE (EQUALS, case-sensitive default): fail"),
    _case3("i06", _abud(filterExpression=_dim("INSTANCE_TYPE", "p5.48xlarge")), None,
           "filterExpression INSTANCE_TYPE p5.48xlarge: pass"),
    _case3("i07", _abud(filterExpression=_dim("INSTANCE_TYPE", "P5.48XLARGE",
                                              match=["EQUALS"])), "fail",
           "matchOptions EQUALS written out: the same, case-sensitive: fail"),
    _case3("i08", _abud(filterExpression={"not": _dim("INSTANCE_TYPE", "P5.48XLARGE")}), None,
           "NOT P5.48XLARGE: every p5.48xlarge hour is in: pass"),
    _case3("i09", _abud(filterExpression=_dim("INSTANCE_TYPE", "P5.48XLARGE",
                                              match=["CASE_INSENSITIVE"])), ("fail", "undecided"),
           "a match option the pack does not compare: never counted as the cap"),
    # (A group whose own type is written in another case, 'P5.48xlarge', is no catalog type: GPU
    # capacity the pack cannot price, failing closed whatever the budget: review73 a24.)
]


@pytest.mark.parametrize("case", [pytest.param(c, id=c[0]) for c in CASE_CASES])
def test_budget_instance_type_case(pack, case):
    _run_case(pack, case)
