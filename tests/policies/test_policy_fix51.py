"""Issue 35, helper fix51: the classes of review51's five pack defects, where its own cases
(tests/policies/test_policy_review51.py) do not pin the fix. Over gRPC as `pulumi preview`
drives the pack (tests/policy_harness.py). Each case states every policy's verdict (those not
named pass); expectations were worked by hand from docs/policies.md, the providers' public
docs and the catalog's rows, and committed with the code's first run after them.

Prices (policies/catalog_data/prices.csv, aws us-east-1 on-demand USD/h, a month 730 h):
g5.xlarge 1.006, g5.12xlarge 5.672 (efa). A weighted Auto Scaling group is priced at maxSize
plus its largest weight, in units, each unit at its type's price per unit (docs, Sizes).

1. Weights of overrides that name only a launch template (defect 1). Each override launches
   its own template's type with its own weight. The pack ties an override to a template of the
   stack by the template's id or name as the engine shows it (a stack policy sees outputs);
   the engine lists dependencies without order (the Python SDK gathers them in a set), so:
   f01 the dependencies listed [big, small] while the overrides name [small, big];
   f02 where it cannot tie them (ids unknown at preview), and f08 where the templates show no
   id: never below the truth, every unit may be the dearest type at the lightest weight.
2. A launch template by a literal id the stack does not create (defect 2), through aws-native
   fleets (f04, f05), and a control with two templates both the stack's (f03).
3. A resize-to-0 job whose URL names the project by number (defect 3) is the group's stop
   only where the budgets rule takes a number as the stack's own project, that is where the
   group's project is read (g01): a group whose project is unknown at preview is not stopped
   by a literal URL (g02).
4. Inbound NAT of a public load balancer of the stack (defect 4): an inline inbound NAT rule
   (n01) fails as the pool does; an internal balancer's NAT pool, or an InboundNatRule on an
   internal balancer, passes (n02, n03): Azure load balancers are public or internal, by
   their frontend.
5. Customer-managed keys that are full key names pass (e01-e03), one that is no key fails
   (e04).
f06, f07 and g03 were added after the code, when a planted bug (a fleet flagged only when
every config needs its template's type; any project id read as the stack's) passed every case
before them; f08 when the tie by dependency order was dropped (the Python SDK gathers an
input's dependency URNs in a set: no order to read). Their expectations are worked by hand as
the others'.
"""
from __future__ import annotations

from tests.policies.test_policy_review51 import (
    AWS, AZS, ENC, GCP, LABELS, NPI, POLICIES, RDMA, SPEND, SUB, TAGS, UNKNOWN, ZONAL, _amlfs,
    _ec2_fleet, _lb, _mixed_by_templates, _t4_set, _verdict, az_budget, az_subnet, aws_budget,
    gcp_budget, lt, mig, res, resize_job, subnet, template,
)
from tests.policy_harness import run


def check(pack, stack, provider, expected, contains=()):
    urns = [r.urn for r in stack]
    assert len(urns) == len(set(urns)), "every resource its own URN"
    found = run(pack, stack, None, provider=provider)
    got = {p: _verdict(found, p) for p in POLICIES}
    detail = " | ".join(f"{d.policy}[{d.level}]: {d.message}" for d in found)
    assert all(got[p] == expected.get(p, "pass") for p in POLICIES), (got, detail)
    for text in contains:
        assert any(text in d.message for d in found), (text, detail)
    return found


# ------------------------------------------------------ 1. weights of template-only overrides

def _big_first(sn, small, big, amount):
    """Overrides [lt-small "1", lt-big "4"], maxSize 8, the policy's own template lt-big: the
    engine lists the policy's dependencies as the value names them, [big, small]."""
    g = _mixed_by_templates("mixed-big-first", sn, [small, big], ["1", "4"], 8)
    g.props["mixedInstancesPolicy"]["launchTemplate"]["launchTemplateSpecification"] = {
        "launchTemplateId": "lt-big-id", "version": "$Latest"}
    g.deps["mixedInstancesPolicy"] = [big, small]   # the builder gave each template its id
    return [sn, small, big, g, aws_budget(amount=amount)]


def test_f01_policy_template_second_override_under_budget(pack):
    """12 units; g5.12xlarge at 5.672 / 4 = 1.418 per unit, g5.xlarge 1.006: 12 x 1.418 x 730
    = 12,421.68 < 13,000: pass (rdma advisory: g5.12xlarge has EFA, no placement). Tied the
    wrong way round (big weighing 1) it would be 12 x 5.672 x 730 = 49,686.72."""
    sn = subnet()
    small, big = lt("lt-small", "g5.xlarge"), lt("lt-big", "g5.12xlarge")
    check(pack, _big_first(sn, small, big, "13000.00"), AWS, {RDMA: "advisory"})


def test_f01b_policy_template_second_override_over_budget(pack):
    """f01 under a 12,000 budget: 12,421.68 > 12,000: spend fail."""
    sn = subnet()
    small, big = lt("lt-small", "g5.xlarge"), lt("lt-big", "g5.12xlarge")
    check(pack, _big_first(sn, small, big, "12000.00"), AWS,
          {SPEND: "fail", RDMA: "advisory"})


def _untied(sn, small, big, amount):
    """a01's group with every template id unknown at preview (templates created by this
    update): which override is which template cannot be read."""
    g = _mixed_by_templates("mixed-untied", sn, [small, big], ["1", "4"], 8)
    spec = g.props["mixedInstancesPolicy"]["launchTemplate"]
    spec["launchTemplateSpecification"]["launchTemplateId"] = UNKNOWN
    for o in spec["overrides"]:
        o["launchTemplateSpecification"]["launchTemplateId"] = UNKNOWN
    return [sn, small, big, g, aws_budget(amount=amount)]


def test_f02_untied_overrides_priced_at_the_dearest_lightest(pack):
    """12 units (maxSize 8 + largest weight 4), each possibly a g5.12xlarge of weight 1:
    12 x 5.672 x 730 = 49,686.72 > 45,000: spend fail (as 8 instances it would be 33,124.48,
    under; below what the group may run)."""
    sn = subnet()
    small, big = lt("lt-small", "g5.xlarge"), lt("lt-big", "g5.12xlarge")
    check(pack, _untied(sn, small, big, "45000.00"), AWS, {SPEND: "fail", RDMA: "advisory"})


def test_f08_templates_showing_no_id(pack):
    """a02's group (overrides naming "lt-small-id" "1" and "lt-big-id" "4", maxSize 8, budget
    13,000) with templates whose outputs show no id or name: nothing ties an override to its
    template: 12 x 5.672 x 730 = 49,686.72 > 13,000: spend fail (rdma advisory)."""
    sn = subnet()
    small, big = lt("lt-small", "g5.xlarge"), lt("lt-big", "g5.12xlarge")
    g = _mixed_by_templates("mixed-by-lt", sn, [small, big], ["1", "4"], 8)
    for t in (small, big):
        del t.props["id"]
    check(pack, [sn, small, big, g, aws_budget(amount="13000.00")], AWS,
          {SPEND: "fail", RDMA: "advisory"})


def test_f02b_untied_overrides_under_a_budget_above_the_bound(pack):
    """f02 under 50,000: 49,686.72 < 50,000: pass."""
    sn = subnet()
    small, big = lt("lt-small", "g5.xlarge"), lt("lt-big", "g5.12xlarge")
    check(pack, _untied(sn, small, big, "50000.00"), AWS, {RDMA: "advisory"})


# ------------------------------------------------- 2. templates the stack does not create

def test_f03_ec2_fleet_two_configs_both_from_stack_templates(pack):
    """CONTROL: review51 b02's fleet with its second config naming lt-small, a template of the
    stack (dependencies [big, small, subnet]): every type is read, nothing is outside. Target
    8 / lightest weight 4 = 2 instances of the dearest, g5.12xlarge: 2 x 5.672 x 730 =
    8,281.12 < 9,000: pass."""
    sn = subnet()
    big, small = lt("lt-big", "g5.12xlarge"), lt("lt-small", "g5.xlarge")
    f = _ec2_fleet("fleet", [
        {"launchTemplateSpecification": {"launchTemplateId": "lt-big-id", "version": "1"},
         "overrides": [{"subnetId": "sn-a-id", "weightedCapacity": 4.0}]},
        {"launchTemplateSpecification": {"launchTemplateId": "lt-small-id", "version": "1"},
         "overrides": [{"subnetId": "sn-a-id", "weightedCapacity": 4.0}]}], 8, [big, small, sn])
    check(pack, [sn, big, small, f, aws_budget(amount="9000.00")], AWS, {})


def test_f04_native_ec2_fleet_config_from_a_literal_template(pack):
    """An aws-native Ec2Fleet (target 2 on demand), configs from aws-native template nlt-big
    and from "lt-0cafe0cafe0cafe0", which the stack does not create: that config's type is
    read nowhere: spend fail under 90,000, naming the literal id."""
    sn = subnet()
    big = res("aws-native:ec2:LaunchTemplate", "nlt-big", {
        "launchTemplateData": {"instanceType": "g5.12xlarge", "imageId": "ami-0r51"}})
    f = res("aws-native:ec2:Ec2Fleet", "nfleet", {
        "type": "instant", "launchTemplateConfigs": [
            {"launchTemplateSpecification": {"launchTemplateId": "nlt-big-id", "version": "1"},
             "overrides": [{"subnetId": "sn-a-id"}]},
            {"launchTemplateSpecification": {"launchTemplateId": "lt-0cafe0cafe0cafe0",
                                             "version": "1"},
             "overrides": [{"subnetId": "sn-a-id"}]}],
        "targetCapacitySpecification": {"totalTargetCapacity": 2,
                                        "defaultTargetCapacityType": "on-demand"}},
        deps={"launchTemplateConfigs": [big, sn]})
    check(pack, [sn, big, f, aws_budget(amount="90000.00")], AWS, {SPEND: "fail"},
          contains=("lt-0cafe0cafe0cafe0",))


def test_f05_native_spot_fleet_from_a_literal_template_only(pack):
    """An aws-native SpotFleet (target 2) whose only config names "lt-0cafe0cafe0cafe0": type
    read nowhere: spend fail under 90,000, naming it."""
    sn = subnet()
    f = res("aws-native:ec2:SpotFleet", "nsfleet", {"spotFleetRequestConfigData": {
        "iamFleetRole": "arn:aws:iam::123456789012:role/fleet", "targetCapacity": 2,
        "launchTemplateConfigs": [{
            "launchTemplateSpecification": {"launchTemplateId": "lt-0cafe0cafe0cafe0",
                                            "version": "1"},
            "overrides": [{"subnetId": "sn-a-id"}]}]}},
        deps={"spotFleetRequestConfigData": [sn]})
    check(pack, [sn, f, aws_budget(amount="90000.00")], AWS, {SPEND: "fail"},
          contains=("lt-0cafe0cafe0cafe0",))


def test_f06_literal_config_beside_a_typed_one(pack):
    """An EC2 Fleet (target 8 on demand): config 1 from the stack's lt-big with an override
    naming instanceType g5.12xlarge (weight 4), config 2 from "lt-0cafe0cafe0cafe0" whose
    override names no type: config 2's type is read nowhere: spend fail under 90,000."""
    sn = subnet()
    big = lt("lt-big", "g5.12xlarge")
    f = _ec2_fleet("fleet", [
        {"launchTemplateSpecification": {"launchTemplateId": "lt-big-id", "version": "1"},
         "overrides": [{"subnetId": "sn-a-id", "instanceType": "g5.12xlarge",
                        "weightedCapacity": 4.0}]},
        {"launchTemplateSpecification": {"launchTemplateId": "lt-0cafe0cafe0cafe0",
                                         "version": "1"},
         "overrides": [{"subnetId": "sn-a-id", "weightedCapacity": 4.0}]}], 8, [big, sn])
    check(pack, [sn, big, f, aws_budget(amount="90000.00")], AWS, {SPEND: "fail"},
          contains=("lt-0cafe0cafe0cafe0",))


def test_f07_literal_template_whose_override_names_the_type(pack):
    """An EC2 Fleet (target 2 on demand) from "lt-0cafe0cafe0cafe0" only, its override naming
    instanceType g5.xlarge (weight 1): the override sets the type, read in the stack: 2 x
    1.006 x 730 = 1,468.76 < 2,000: pass."""
    sn = subnet()
    f = _ec2_fleet("fleet", [
        {"launchTemplateSpecification": {"launchTemplateId": "lt-0cafe0cafe0cafe0",
                                         "version": "1"},
         "overrides": [{"subnetId": "sn-a-id", "instanceType": "g5.xlarge",
                        "weightedCapacity": 1.0}]}], 2, [sn])
    check(pack, [sn, f, aws_budget(amount="2000.00")], AWS, {})


# ------------------------------------------------------------- 5. customer-managed keys

def _filestore(key):
    return res("gcp:filestore/instance:Instance", "share", {
        "location": "us-central1-a", "tier": "BASIC_SSD",
        "fileShares": {"capacityGb": 2560.0, "name": "share"},
        "networks": [{"network": "default", "modes": ["MODE_IPV4"]}],
        "kmsKeyName": key, "labels": dict(LABELS)})


def test_e01_filestore_with_a_full_kms_key_name(pack):
    """kmsKeyName projects/ml-prod/locations/us-central1/keyRings/kr/cryptoKeys/share (the
    Cloud KMS CryptoKey resource name): pass."""
    check(pack, [_filestore("projects/ml-prod/locations/us-central1/keyRings/kr/cryptoKeys/"
                            "share")], GCP, {})


def _amlfs_key(url):
    sn = az_subnet()
    fs = _amlfs(sn)
    fs.props["encryptionSettings"] = {"keyEncryptionKey": {
        "keyUrl": url, "sourceVault": {"id": f"/subscriptions/{SUB}/resourceGroups/ml/"
                                              "providers/Microsoft.KeyVault/vaults/kv51"}}}
    return [sn, fs]


def test_e02_amlfs_with_a_versioned_key_url(pack):
    """keyUrl https://kv51.vault.azure.net/keys/cmk-51/<32 hex version> (Key Vault object
    URL https://{vault}.vault.azure.net/keys/{name}/{version}): pass."""
    check(pack, _amlfs_key("https://kv51.vault.azure.net/keys/cmk-51/"
                           "0123456789abcdef0123456789abcdef"), AZS, {})


def test_e03_amlfs_with_a_key_url_without_version(pack):
    """Key Vault: the object version is optional in an object URL (the latest version):
    https://kv51.vault.azure.net/keys/cmk-51: pass."""
    check(pack, _amlfs_key("https://kv51.vault.azure.net/keys/cmk-51"), AZS, {})


def test_e04_amlfs_with_a_secret_url(pack):
    """A secret's URL (https://kv51.vault.azure.net/secrets/cmk-51/1) names no key: fail."""
    check(pack, _amlfs_key("https://kv51.vault.azure.net/secrets/cmk-51/1"), AZS, {ENC: "fail"})


def test_e05_filestore_key_unknown_at_preview(pack):
    """A kmsKeyName unknown at preview (a key created by this stack) names its key when
    created: pass, as a bucket's or Managed Lustre's."""
    check(pack, [_filestore(UNKNOWN)], GCP, {})


# ------------------------------------------------------- 3. a job naming the project by number

def _g2(project=None):
    """4 g2-standard-8 in MIG "train-g2" (4 x 0.853624 x 730 = 2,492.58 a month)."""
    t = template("g2-tpl")
    g = mig("train", t, 4, name="train-g2")
    if project is not None:
        g.props["project"] = project
    return [t, g]


def test_g01_number_job_on_a_group_given_its_project_id(pack):
    """The group names its project, ml-prod, itself; the job's literal URL names project
    123456789012 and the group: a number is the stack's own project: a stop in 48 h,
    48 x 3.414496 = 163.90 < 500: pass."""
    job = resize_job("g2-end", ZONAL.format(p="123456789012"))
    check(pack, _g2("ml-prod") + [job, gcp_budget(units="500")], GCP, {})


def test_g02_number_job_on_a_group_whose_project_is_unknown(pack):
    """The group's project unknown at preview: which project it runs in is not read (the
    budgets rule too cannot tell), so a literal URL is no stop: the month, 2,492.58 > 500:
    spend fail."""
    job = resize_job("g2-end", ZONAL.format(p="123456789012"))
    check(pack, _g2(UNKNOWN) + [job, gcp_budget(units="500")], GCP, {SPEND: "fail"})


def test_g03_job_naming_another_project_id(pack):
    """CONTROL: the URL names project id "mlstaging" (another project, a valid id: letters
    only), the group's is ml-prod: no stop: the month, 2,492.58 > 500: spend fail."""
    job = resize_job("g2-end", ZONAL.format(p="mlstaging"))
    check(pack, _g2("ml-prod") + [job, gcp_budget(units="500")], GCP, {SPEND: "fail"})


# --------------------------------------------- 4. inbound NAT of a public load balancer

FE = (f"/subscriptions/{SUB}/resourceGroups/ml/providers/Microsoft.Network/loadBalancers/"
      "lb51/frontendIPConfigurations/fe")


def test_n01_public_balancer_inline_nat_rule(pack):
    """z18's public balancer with an inline inbound NAT rule 50022 -> 22 that no node joins:
    docs, inbound NAT rules of a public load balancer of the stack are a violation: npi fail,
    on the balancer."""
    stack = _t4_set() + _lb()
    stack[-1].props["inboundNatRules"] = [{
        "name": "ssh", "protocol": "Tcp", "frontendPort": 50022.0, "backendPort": 22.0,
        "frontendIPConfiguration": {"id": FE}}]
    found = check(pack, stack + [az_budget(amount=5000.0)], AZS, {NPI: "fail"})
    assert any(d.policy == NPI and d.urn == stack[-1].urn for d in found), found


def _internal(stack):
    lb = stack[-1]
    lb.props["frontendIPConfigurations"] = [{"name": "fe", "privateIPAllocationMethod":
                                             "Dynamic", "subnet": {"id": "sub-a-id"}}]
    lb.deps = {"frontendIPConfigurations": [stack[0]]}
    return [s for s in stack if s.type != "azure-native:network:PublicIPAddress"]


def test_n02_internal_balancer_nat_pool(pack):
    """An internal balancer (frontend on the subnet, no public IP) with a NAT pool to 22:
    reachable only inside the network: pass."""
    stack = _internal(_t4_set() + _lb(nat_pools=[{
        "name": "ssh", "protocol": "Tcp", "frontendPortRangeStart": 50000.0,
        "frontendPortRangeEnd": 50100.0, "backendPort": 22.0,
        "frontendIPConfiguration": {"id": FE}}]))
    check(pack, stack + [az_budget(amount=5000.0)], AZS, {})


def test_n03_inbound_nat_rule_resource_on_an_internal_balancer(pack):
    """review51 b05's InboundNatRule on n02's internal balancer: pass."""
    stack = _internal(_t4_set() + _lb())
    rule = res("azure-native:network:InboundNatRule", "ssh-rule", {
        "resourceGroupName": "ml", "loadBalancerName": "lb51", "inboundNatRuleName": "ssh",
        "protocol": "Tcp", "frontendPort": 50022.0, "backendPort": 22.0,
        "frontendIPConfiguration": {"id": FE}}, deps={"loadBalancerName": [stack[-1]]})
    check(pack, stack + [rule, az_budget(amount=5000.0)], AZS, {})
