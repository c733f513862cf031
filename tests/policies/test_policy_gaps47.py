"""Issue 35, helper gaps47: two gaps review47 / fix47 left, driven over gRPC as `pulumi preview
--policy-pack` drives the pack (tests/policy_harness.py). Every expectation below was worked by
hand from docs/policies.md (the pack's promise), the providers' public docs and the catalog's
rows, and committed BEFORE the code.

1. spend-limit: the classic azure provider's autoscale setting (pulumi-azure
   monitoring.AutoscaleSetting, azure:monitoring/autoscaleSetting:AutoscaleSetting) read as the
   azure-native one is (docs/policies.md, Lifetimes): targetResourceId (an Output of the set's
   id, or a literal ARM id of a set named explicitly), `enabled` ("Defaults to true" in the
   classic provider's docs, unlike the ARM API's false), profiles[] with capacity {default,
   minimum, maximum} (numbers), fixedDate {start, end, timezone} (timezone "Defaults to UTC"; a
   Windows time zone id) and recurrence {timezone, days, hours, minutes} (the classic shape: no
   frequency/schedule wrapper). Prices (prices.csv, eastus): Standard_NC24ads_A100_v4 3.673 USD/h
   (a tcp row: RDMA is not asked); a month is 730 h; a lifetime is priced in whole started hours.
   2 nodes a month = 2 x 3.673 x 730 = 5,362.58; 2 nodes for 48 h = 352.61.
2. rdma-for-multinode: aws-native compute's placement read as its classic twins': an
   aws-native LaunchTemplate's launchTemplateData.placement.groupName (classic
   placement.groupName), an aws-native Instance's placementGroupName (classic placementGroup),
   an aws-native AutoScalingGroup's placementGroup (CloudFormation AWS::AutoScaling::
   AutoScalingGroup PlacementGroup); a placement group of the stack (aws or aws-native
   AWS::EC2::PlacementGroup, Strategy cluster | partition | spread) must be "cluster", a literal
   name is taken as the classic path takes it. The EFA interfaces are read where the aws-native
   template keeps them (launchTemplateData.networkInterfaces), as the classic template's.
   Prices (us-east-1): p4d.24xlarge 21.9576 USD/h, 4 EFA network cards (instance_types.csv):
   2 nodes a month = 2 x 21.9576 x 730 = 32,058.10 < 40,000 (the budget of each case).
"""
from __future__ import annotations

from tests.policies.test_policy_review35f import (
    AZ, MONTH, SUB, TAGS, az_autoscale, az_budget, estimate, near, vmss,
)
from tests.policies.test_policy_review43 import NC24, _lifetime_ok
from tests.policies.test_policy_review47 import RDMA, aws_budget, check
from tests.policy_fixtures import hours_from_now, res
from tests.policy_harness import run

# ------------------------------------------------------------------ 1. classic autoscale

NC = "Standard_NC24ads_A100_v4"
CLASSIC_AUTOSCALE = "azure:monitoring/autoscaleSetting:AutoscaleSetting"
AZ_SUB = {**AZ, "subscriptionId": SUB.rsplit("/", 1)[1]}
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]


def classic_set(kind="Linux", name="train", instances=2.0, set_name=None, **props):
    token = (f"azure:compute/{kind[0].lower()}{kind[1:]}VirtualMachineScaleSet:"
             f"{kind}VirtualMachineScaleSet")
    base = {"resourceGroupName": "ml-rg", "location": "eastus", "instances": instances,
            "zones": ["1"], "tags": dict(TAGS)}
    if kind == "Orchestrated":
        base.update(skuName=NC, platformFaultDomainCount=1.0)
    else:
        base.update(sku=NC, adminUsername="azureuser", networkInterfaces=[{
            "name": "nic", "primary": True, "ipConfigurations": [{
                "name": "ip", "primary": True,
                "subnetId": f"{SUB}/resourceGroups/ml-rg/providers/Microsoft.Network/"
                            "virtualNetworks/v/subnets/nodes"}]}])
        if kind == "Windows":
            base["adminPassword"] = "not-a-secret-1!"
    if set_name is not None:
        base["name"] = set_name   # the set's own name input (named explicitly)
    return res(token, name, {**base, **props})


def classic_setting(target, profiles, name=None, literal=None, **props):
    """A classic autoscale setting on `target` (its id Output: a dependency), or on a literal
    ARM id (`literal`, no dependency)."""
    deps = {} if literal is not None else {"targetResourceId": [target]}
    return res(CLASSIC_AUTOSCALE, name or f"{target.name}-autoscale", {
        "resourceGroupName": "ml-rg", "location": "eastus",
        "targetResourceId": literal if literal is not None else f"{target.name}-id",
        "profiles": profiles, **props}, deps=deps)


def stop_at(hours, end="2037-12-31T00:00:00Z", zone="UTC"):
    return {"name": "stop", "capacity": {"default": 0.0, "minimum": 0.0, "maximum": 0.0},
            "fixedDate": {"timezone": zone, "start": hours_from_now(hours), "end": end}}


def running(n=2.0, **more):
    return {"name": "run", "capacity": {"default": n, "minimum": n, "maximum": n}, **more}


def test_classic_linux_set_stopped_by_a_classic_fixed_date_profile(pack):
    """A classic LinuxVirtualMachineScaleSet of 2 x NC24ads A100 v4 and a classic setting on
    its id (enabled left out: the classic default is true) with one capacity-0 fixedDate
    profile from +48 h to 2037: a stop at 48 h. Expect 2 x 3.673 x 48 = 352.61 (not the
    month, 5,362.58)."""
    ss = classic_set()
    got = estimate(pack, [ss, classic_setting(ss, [stop_at(48)]), az_budget()], AZ)
    assert _lifetime_ok(got, 2 * NC24, 48), got


def test_classic_windows_and_orchestrated_sets_stopped_alike(pack):
    """The same stop on a classic WindowsVirtualMachineScaleSet and on an
    OrchestratedVirtualMachineScaleSet (skuName, instances 2): each 352.61."""
    for kind in ("Windows", "Orchestrated"):
        ss = classic_set(kind)
        got = estimate(pack, [ss, classic_setting(ss, [stop_at(48)]), az_budget()], AZ)
        assert _lifetime_ok(got, 2 * NC24, 48), (kind, got)


def test_classic_setting_enabled_true_stops_and_disabled_does_not(pack):
    """enabled true: the stop, 352.61. enabled false: "Specifies whether automatic scaling is
    enabled": a disabled setting scales nothing, its stop included: the month, 5,362.58."""
    ss = classic_set()
    got = estimate(pack, [ss, classic_setting(ss, [stop_at(48)], enabled=True), az_budget()],
                   AZ)
    assert _lifetime_ok(got, 2 * NC24, 48), got
    ss = classic_set()
    got = estimate(pack, [ss, classic_setting(ss, [stop_at(48)], enabled=False), az_budget()],
                   AZ)
    assert near(got, 2 * NC24 * MONTH), got


def test_classic_setting_on_another_set_leaves_this_one_the_month(pack):
    """Two classic sets: "train" (2 nodes) and "other" (1 node); the stop setting targets
    "other" (its id Output). "train" runs the month, "other" 48 h: 5,362.58 + 1 x 3.673 x 48
    = 5,362.58 + 176.30 = 5,538.88."""
    train, other = classic_set(), classic_set(name="other", instances=1.0)
    got = estimate(pack, [train, other, classic_setting(other, [stop_at(48)]), az_budget()], AZ)
    assert 2 * NC24 * MONTH + NC24 * 48 - 2 <= got <= 2 * NC24 * MONTH + NC24 * 49 + 2, got


def test_classic_setting_by_a_literal_id(pack):
    """A literal ARM id names the stack's set when the set is named explicitly (name
    "train-vmss") in the provider's subscription, case-insensitively (ARM ids are): the stop,
    352.61. The same literal naming another set ("other-vmss") stops nothing here: the
    month."""
    sid = SUB.rsplit("/", 1)[1]

    def literal(name):
        return (f"/subscriptions/{sid}/resourceGroups/ML-RG/providers/Microsoft.Compute/"
                f"virtualMachineScaleSets/{name}")
    ss = classic_set(set_name="train-vmss")
    setting = classic_setting(ss, [stop_at(48)], literal=literal("train-vmss"))
    got = estimate(pack, [ss, setting, az_budget()], AZ_SUB)
    assert _lifetime_ok(got, 2 * NC24, 48), got
    ss = classic_set(set_name="train-vmss")
    setting = classic_setting(ss, [stop_at(48)], literal=literal("other-vmss"))
    got = estimate(pack, [ss, setting, az_budget()], AZ_SUB)
    assert near(got, 2 * NC24 * MONTH), got


def test_classic_recurring_zero_profile_leaves_capacity_outside_it(pack):
    """A default profile of 2 and a capacity-0 recurrence profile every night at 20:00 UTC
    (classic recurrence {timezone, days, hours, minutes}): the nodes run again outside it, and
    a recurrence is no lifetime: the month, 5,362.58."""
    ss = classic_set()
    night = {"name": "night", "capacity": {"default": 0.0, "minimum": 0.0, "maximum": 0.0},
             "recurrence": {"timezone": "UTC", "days": DAYS, "hours": [20.0],
                            "minutes": [0.0]}}
    got = estimate(pack, [ss, classic_setting(ss, [running(), night]), az_budget()], AZ)
    assert near(got, 2 * NC24 * MONTH), got


def test_classic_zero_window_then_a_default_profile_is_a_pause(pack):
    """A capacity-0 window +24 h to +10 days and a default profile of 2: once the window ends
    the default applies again (autoscale-multiprofile): a pause, the month, 5,362.58."""
    ss = classic_set()
    window = stop_at(24, end=hours_from_now(240))
    got = estimate(pack, [ss, classic_setting(ss, [window, running()]), az_budget()], AZ)
    assert near(got, 2 * NC24 * MONTH), got


def test_classic_zero_window_past_the_month_beside_a_recurrence_stops(pack):
    """The window +24 h to +40 days (past the month) beside a classic daily recurrence of
    capacity 2 at 06:00: within the month the fixed-date window is the first profile that
    applies. Expect 24 h: 2 x 3.673 x 24 = 176.30."""
    ss = classic_set()
    window = stop_at(24, end=hours_from_now(24 * 40))
    daily = running(recurrence={"timezone": "UTC", "days": DAYS, "hours": [6.0],
                                "minutes": [0.0]})
    got = estimate(pack, [ss, classic_setting(ss, [window, daily]), az_budget()], AZ)
    assert _lifetime_ok(got, 2 * NC24, 24), got


def test_classic_fixed_date_in_a_windows_time_zone(pack):
    """The classic fixedDate's own `timezone` (Windows id) reads a start with no offset:
    "Tokyo Standard Time" is UTC+9 all year (no daylight saving), so a wall-clock start 48 h
    after the current UTC time is 39 h away. Expect 2 x 3.673 x 39 = 286.49 (not 352.61, the
    reading as UTC)."""
    ss = classic_set()
    profile = stop_at(48, zone="Tokyo Standard Time")
    profile["fixedDate"]["start"] = profile["fixedDate"]["start"].rstrip("Z")
    got = estimate(pack, [ss, classic_setting(ss, [profile]), az_budget()], AZ)
    assert _lifetime_ok(got, 2 * NC24, 39), got


def test_classic_setting_maximum_sizes_the_set(pack):
    """A classic set of instances 2 under a classic setting whose only profile scales between
    2 and 4 (no stop): the set may run 4 nodes, as an azure-native set under its setting's
    maximum: 4 x 3.673 x 730 = 10,725.16."""
    ss = classic_set()
    scale = {"name": "scale", "capacity": {"default": 2.0, "minimum": 2.0, "maximum": 4.0}}
    got = estimate(pack, [ss, classic_setting(ss, [scale]), az_budget()], AZ)
    assert near(got, 4 * NC24 * MONTH), got


def test_control_native_setting_still_stops_the_native_set(pack):
    """Control: the azure-native set of 2 NC24ads A100 v4 and an azure-native setting (enabled
    true) with the capacity-0 fixedDate profile from +48 h (timeZone, the native key): 352.61;
    with `enabled` left out (the native default is false): the month, 5,362.58."""
    ss = vmss("native-vmss", NC, 2.0)
    stop = {"name": "stop", "rules": [], "capacity": {"minimum": "0", "maximum": "0",
                                                       "default": "0"},
            "fixedDate": {"timeZone": "UTC", "start": hours_from_now(48),
                          "end": "2037-12-31T00:00:00Z"}}
    got = estimate(pack, [ss, az_autoscale(ss, [stop]), az_budget()], AZ)
    assert _lifetime_ok(got, 2 * NC24, 48), got
    ss = vmss("native-vmss", NC, 2.0)
    got = estimate(pack, [ss, az_autoscale(ss, [stop], enabled=None), az_budget()], AZ)
    assert near(got, 2 * NC24 * MONTH), got


# ------------------------------------------------------------------ 2. aws-native placement

AWS = {"region": "us-east-1"}
P4D = "p4d.24xlarge"
NTAGS = [{"key": k, "value": v} for k, v in TAGS.items()]


def subnet():
    return res("aws:ec2/subnet:Subnet", "p4d-subnet", {
        "availabilityZone": "us-east-1a", "vpcId": "vpc-0team", "tags": dict(TAGS)})


def native_pg(strategy="cluster"):
    return res("aws-native:ec2:PlacementGroup", "p4d-pg", {"strategy": strategy})


def native_template(sn, pg=None, placed=True):
    """An aws-native LaunchTemplate of p4d.24xlarge with one EFA interface per network card
    (4), all in the stack's subnet; placement.groupName the placement group's name (an Output:
    launchTemplateData depends on it) when `pg` is given and `placed`."""
    nics = [{"networkCardIndex": float(i), "deviceIndex": 0.0 if i == 0 else 1.0,
             "interfaceType": "efa", "subnetId": "p4d-subnet-id"} for i in range(4)]
    data = {"instanceType": P4D, "imageId": "ami-0abc", "networkInterfaces": nics}
    deps = [sn]
    if pg is not None and placed:
        data["placement"] = {"groupName": "p4d-pg-name"}
        deps.append(pg)
    return res("aws-native:ec2:LaunchTemplate", "p4d-lt", {"launchTemplateData": data},
               deps={"launchTemplateData": deps})


def native_asg(lt, sn, pg=None, **props):
    deps = {"launchTemplate": [lt], "vpcZoneIdentifier": [sn]}
    if pg is not None:
        deps["placementGroup"] = [pg]
    return res("aws-native:autoscaling:AutoScalingGroup", "p4d", {
        "minSize": "2", "maxSize": "2", "desiredCapacity": "2",
        "launchTemplate": {"launchTemplateId": "p4d-lt-id", "version": "1"},
        "vpcZoneIdentifier": ["p4d-subnet-id"],
        "tags": [{"key": k, "value": v, "propagateAtLaunch": True} for k, v in TAGS.items()],
        **props}, deps=deps)


def test_native_asg_in_a_cluster_group_through_its_template(pack):
    """An aws-native AutoScalingGroup of 2 p4d.24xlarge from an aws-native LaunchTemplate whose
    launchTemplateData.placement.groupName is an aws-native PlacementGroup of strategy
    cluster, 4 EFA interfaces: placed, on its fabric: RDMA pass; 32,058.10 < 40,000: spend
    pass."""
    sn, pg = subnet(), native_pg()
    lt = native_template(sn, pg)
    check(pack, [sn, pg, lt, native_asg(lt, sn), aws_budget(amount="40000.00")], AWS, {})


def test_native_asg_in_a_cluster_group_of_its_own(pack):
    """The group names the cluster placement group itself (placementGroup, an Output of the
    group's name), its template none: RDMA pass; spend pass."""
    sn, pg = subnet(), native_pg()
    lt = native_template(sn)
    stack = [sn, pg, lt, native_asg(lt, sn, pg, placementGroup="p4d-pg-name"),
             aws_budget(amount="40000.00")]
    check(pack, stack, AWS, {})


def test_native_instance_pair_with_placement_group_name(pack):
    """Two aws-native Instances from the EFA template (launchTemplate), each with
    placementGroupName the cluster group's name (an Output): RDMA pass; 32,058.10: spend
    pass."""
    sn, pg = subnet(), native_pg()
    lt = native_template(sn)
    nodes = [res("aws-native:ec2:Instance", f"p4d-{i}", {
        "launchTemplate": {"launchTemplateId": "p4d-lt-id", "version": "1"},
        "placementGroupName": "p4d-pg-name", "subnetId": "p4d-subnet-id", "tags": NTAGS},
        deps={"launchTemplate": [lt], "placementGroupName": [pg], "subnetId": [sn]})
        for i in range(2)]
    check(pack, [sn, pg, lt, *nodes, aws_budget(amount="40000.00")], AWS, {})


def test_native_template_naming_an_existing_group_by_literal(pack):
    """The template's placement.groupName a literal ("training-cluster-pg", a group the stack
    does not create), as the classic path takes a literal placementGroup: RDMA pass."""
    sn = subnet()
    lt = native_template(sn)
    lt.props["launchTemplateData"]["placement"] = {"groupName": "training-cluster-pg"}
    check(pack, [sn, lt, native_asg(lt, sn), aws_budget(amount="40000.00")], AWS, {})


def test_control_native_group_in_a_spread_group_is_asked(pack):
    """Control: the template names an aws-native PlacementGroup of strategy spread: not a
    cluster group: RDMA advisory ("not in a placement construct", naming the strategy)."""
    sn, pg = subnet(), native_pg("spread")
    lt = native_template(sn, pg)
    stack = [sn, pg, lt, native_asg(lt, sn), aws_budget(amount="40000.00")]
    check(pack, stack, AWS, {RDMA: "advisory"})
    text = " ".join(d.message for d in run(pack, stack, None, provider=AWS) if d.policy == RDMA)
    assert "placement construct" in text and "spread" in text, text


def test_control_native_group_without_placement_stays_asked(pack):
    """Control: the same group and EFA template with no placement anywhere: RDMA advisory,
    one finding, "not in a placement construct" (its fabric is right: no fabric finding)."""
    sn = subnet()
    lt = native_template(sn)
    stack = [sn, lt, native_asg(lt, sn), aws_budget(amount="40000.00")]
    check(pack, stack, AWS, {RDMA: "advisory"})
    found = [d for d in run(pack, stack, None, provider=AWS) if d.policy == RDMA]
    assert len(found) == 1 and "placement construct" in found[0].message, \
        [d.message for d in found]
