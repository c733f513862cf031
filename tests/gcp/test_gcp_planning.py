"""Pure GCP planning (trainstack_components.gcp.planning): labels, zone facts, NIC layout, Managed Lustre
sizes and budget amounts, by hand and as properties. No mock engine."""
import ipaddress

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trainstack_components import catalog
from trainstack_components.errors import SpecError
from trainstack_components.gcp import planning
from trainstack_components.spec import zone_in_region


def gcp_type(name):
    return catalog.instance_type("gcp", name)


# ----------------------------------------------------------------------------- labels

@pytest.mark.parametrize("key, value, label", [
    ("Owner", "Alice.Smith", ("owner", "alice_smith")),
    ("Cost Center", "12/34", ("cost_center", "12_34")),
    ("cost-center", "1234", ("cost-center", "1234")),
    ("trainstack:cluster", "llm-finetune", ("trainstack_cluster", "llm-finetune")),
    ("1team", "ML", ("tag_1team", "ml")),
    ("_private", "", ("tag__private", "")),
    # GCP accepts international lowercase letters (\p{Ll}, \p{Lo}): kept, not rewritten
    ("Équipe", "Données", ("équipe", "données")),
    ("成本", "值", ("成本", "值")),
    ("team", "机器学习", ("team", "机器学习")),
    ("Team", "ML Team!", ("team", "ml_team_")),
])
def test_label_normalisation_by_hand(key, value, label):
    assert (planning.label_key(key), planning.label_value(value)) == label


def test_labels_are_truncated_to_63_characters():
    assert planning.label_key("K" * 100) == "k" * 63
    assert planning.label_value("v" * 100) == "v" * 63


@given(st.text(min_size=1, max_size=200), st.text(max_size=300))
@settings(max_examples=300, deadline=None)
def test_normalised_labels_always_follow_gcp_rules(key, value):
    k, v = planning.label_key(key), planning.label_value(value)
    import unicodedata
    assert 1 <= len(k) <= 63 and len(v) <= 63
    assert len(k.encode()) < 128 and len(v.encode()) < 128
    assert unicodedata.category(k[0]) in ("Ll", "Lo")      # the API's key pattern \p{Ll}\p{Lo}...
    assert all(c in "_-" or unicodedata.category(c) in ("Ll", "Lo")
               or unicodedata.category(c).startswith("N") for c in k + v)
    assert planning.label_key(k) == k and planning.label_value(v) == v   # what GCP takes stays


def test_awkward_tags_become_labels_sorted():
    labels = planning.gcp_labels({"Owner": "Alice.Smith", "Cost Center": "12/34",
                                  "trainstack:cluster": "c1"})
    assert labels == {"cost_center": "12_34", "owner": "alice_smith", "trainstack_cluster": "c1"}
    assert list(labels) == sorted(labels)


@pytest.mark.parametrize("tags, names", [
    ({"Cost Center": "1", "cost_center": "2"}, ("'Cost Center'", "'cost_center'")),
    ({"Owner": "a", "owner": "b"}, ("'Owner'", "'owner'")),
    ({"Managed-By": "me", "managed-by": "trainstack"}, ("'Managed-By'", "'managed-by'")),
    ({"a" * 70: "1", "a" * 63 + "b": "2"}, ("'" + "a" * 63,)),
])
def test_label_key_collisions_are_an_error_naming_both_tags(tags, names):
    with pytest.raises(SpecError) as raised:
        planning.gcp_labels(tags)
    assert raised.value.field == "tags"
    for name in names:
        assert name in raised.value.problem
    assert "Rename" in raised.value.fix


def test_more_than_64_labels_is_an_error():
    with pytest.raises(SpecError) as raised:
        planning.gcp_labels({f"k{i}": "v" for i in range(65)})
    assert "64" in raised.value.problem


def test_the_label_limit_counts_trainstacks_own_labels_and_the_bucket_marker():
    from trainstack_components.tags import CLUSTER_TAG, MANAGED_BY_TAG, MAX_HOURS_TAG, STACK_TAG
    own = {CLUSTER_TAG: "c", STACK_TAG: "s", MANAGED_BY_TAG: "trainstack", MAX_HOURS_TAG: "96"}
    fits = {**{f"k{i}": "v" for i in range(59)}, **own}   # 59 + 4 + the bucket's retain marker
    assert len(planning.gcp_labels(fits)) == 63
    with pytest.raises(SpecError) as raised:
        planning.gcp_labels({**fits, "one-more": "v"})
    assert raised.value.fix == "Keep at most 59 tags."


# ----------------------------------------------------------------------------- project, billing

@pytest.mark.parametrize("project", ["my-gcp-project", "abc123", "example.com:my-proj"])
def test_valid_project_ids(project):
    assert planning.check_project(project) == project


@pytest.mark.parametrize("project, fragment", [
    (None, "missing"), ("", "missing"), ("My Project", "not a GCP project ID"),
    ("123456789012", "not a GCP project ID"), ("proj-", "not a GCP project ID"),
])
def test_bad_project_ids(project, fragment):
    with pytest.raises(SpecError) as raised:
        planning.check_project(project)
    assert raised.value.field == "clouds.gcp.project" and fragment in raised.value.problem


def test_billing_accounts():
    assert planning.check_billing_account("01ab23-45CD67-89EF01") == "01AB23-45CD67-89EF01"
    assert planning.check_billing_account("billingAccounts/000000-000000-000000") == \
        "000000-000000-000000"
    for bad in (None, "", "0000-0000", "my-billing-account"):
        with pytest.raises(SpecError) as raised:
            planning.check_billing_account(bad)
        assert raised.value.field == "clouds.gcp.billing_account"


# ----------------------------------------------------------------------------- zone facts

def test_zone_facts_are_cited_and_consistent_with_the_catalog():
    facts = [f for f in catalog.zone_facts() if f.cloud == "gcp"]
    gcp_types = {t.name for t in catalog.instance_types() if t.cloud == "gcp"}
    assert facts
    for fact in facts:
        assert fact.source and fact.as_of and fact.zones
        assert all(zone_in_region(z, fact.region) for z in fact.zones), fact
        if fact.kind == "machine_type":
            assert fact.name in gcp_types
        else:
            assert (fact.kind, fact.name) == ("network_profile", "vpc-roce")
    # the two price rows that name zones agree with the zone data
    for price in catalog.prices():
        if price.cloud == "gcp" and price.zones:
            assert planning.type_zones(price.instance_type, price.region) == tuple(sorted(price.zones))


def test_type_zones_fall_back_to_the_price_row_and_then_to_unknown():
    assert planning.type_zones("a3-highgpu-8g", "us-west1") == ("us-west1-a", "us-west1-b")
    assert planning.type_zones("a3-highgpu-8g", "asia-northeast3") == ()   # regional price only
    assert planning.type_zones("nope", "us-west1", ("us-west1-z",)) == ("us-west1-z",)


def test_roce_zone_check():
    ultra = gcp_type("a3-ultragpu-8g")
    planning.check_roce_zone(ultra, "us-central1-b", "us-central1")
    with pytest.raises(SpecError) as raised:
        planning.check_roce_zone(ultra, "us-south1-b", "us-south1")
    err = raised.value
    assert err.field == "clouds.gcp.zone" and "us-south1-b-vpc-roce" in err.problem
    assert "us-central1-b" in err.fix and "us-west1-c" in err.fix and "interconnect: tcp" in err.fix
    assert "us-central1-a" not in err.fix   # has a profile but does not host a3-ultragpu-8g


# ----------------------------------------------------------------------------- networks

@pytest.mark.parametrize("type_name, interconnect, gvnic, mrdma, vpcs", [
    ("a3-ultragpu-8g", "fastest", 2, 8, 3),   # 2 gVNIC VPCs + 1 RoCE VPC (8 subnets)
    ("a4-highgpu-8g", "rdma", 2, 8, 3),
    ("a3-ultragpu-8g", "tcp", 2, 0, 2),
    ("a3-megagpu-8g", "fastest", 9, 0, 9),    # host + 8 GPU NIC VPCs (TCPXO)
    ("a3-highgpu-8g", "fastest", 5, 0, 5),    # host + 4 GPU NIC VPCs (TCPX)
    ("a3-megagpu-8g", "tcp", 1, 0, 1),
    ("a2-ultragpu-8g", "fastest", 1, 0, 1),
])
def test_nic_layout(type_name, interconnect, gvnic, mrdma, vpcs):
    itype = gcp_type(type_name)
    layout = planning.network_plan(itype, itype.rdma and interconnect != "tcp", interconnect)
    kinds = [n.nic_type for n in layout.nics]
    assert (kinds.count("GVNIC"), kinds.count("MRDMA"), len(layout.networks)) == (gvnic, mrdma, vpcs)
    assert layout.nics[0] == planning.Nic("vpc", "subnet", "GVNIC")   # nic0: the host network
    subnets = {s.key: net for net in layout.networks for s in net.subnets}
    assert all(subnets[n.subnet].key == n.network for n in layout.nics)
    assert len({n.subnet for n in layout.nics}) == len(layout.nics)   # one subnet per NIC
    for net in layout.networks:
        assert net.roce_profile == (net.role == "roce")
        assert net.internal_firewall == (net.role != "roce")
        if net.role == "roce":
            assert len(net.subnets) == itype.rdma_nics
            assert {n.nic_type for n in layout.nics if n.network == net.key} == {"MRDMA"}
        if net.role == "gpu":
            assert len(net.subnets) == 1


def test_subnet_ranges_do_not_overlap_and_hold_512_nodes():
    itype = gcp_type("a3-ultragpu-8g")
    ranges = [ipaddress.ip_network(s.cidr) for net in planning.network_plan(
        itype, True, "fastest").networks for s in net.subnets]
    ranges += [ipaddress.ip_network(s.cidr) for net in planning.network_plan(
        gcp_type("a3-megagpu-8g"), False, "fastest").networks for s in net.subnets]
    ranges = sorted(set(ranges))
    ranges.append(ipaddress.ip_network(planning.PSA_CIDR))
    for i, a in enumerate(ranges):
        assert a.num_addresses - 4 >= 512   # GCP keeps four addresses of every subnet
        assert not any(a.overlaps(b) for b in ranges[i + 1:]), a


def test_mtu_and_boot_disk_per_family():
    assert planning.network_plan(gcp_type("a3-megagpu-8g"), False, "fastest").networks[0].mtu == 8244
    assert planning.network_plan(gcp_type("a4-highgpu-8g"), True, "fastest").networks[0].mtu == 8896
    assert planning.boot_disk_type(gcp_type("a3-ultragpu-8g")) == "hyperdisk-balanced"
    assert planning.boot_disk_type(gcp_type("a2-ultragpu-8g")) == "pd-balanced"
    assert planning.roce_profile("p", "us-west1-c") == \
        "projects/p/global/networkProfiles/us-west1-c-vpc-roce"


def test_fabric_notes_say_what_fastest_takes():
    assert planning.fabric_note(gcp_type("a3-ultragpu-8g"), True, "fastest") == \
        "GPUDirect RDMA over RoCE v2 (8 MRDMA NICs, 3200 Gbps)"
    note = planning.fabric_note(gcp_type("a3-highgpu-8g"), False, "fastest")
    assert note.startswith("GPUDirect-TCPX (4 GPU NICs, 1000 Gbps") and "not RDMA" in note
    assert "GPUDirect-TCPXO (8 GPU NICs" in planning.fabric_note(gcp_type("a3-megagpu-8g"), False,
                                                                 "fastest")
    assert planning.fabric_note(gcp_type("a3-megagpu-8g"), False, "tcp").startswith("gVNIC only")


# ----------------------------------------------------------------------------- Managed Lustre

@pytest.mark.parametrize("spec, tier", [(40, 125), (125, 125), (200, 250), (250, 250),
                                        (500, 500), (1000, 1000)])
def test_throughput_maps_spec_values_to_lustre_tiers(spec, tier):
    assert planning.lustre_throughput(spec) == tier


@pytest.mark.parametrize("requested, tier, size", [
    (4_800, 250, 36_000), (1, 250, 36_000), (36_000, 250, 36_000), (36_001, 250, 72_000),
    (6_120_000, 250, 6_120_000), (6_120_001, 250, 6_336_000), (40_032_000, 250, 40_032_000),
    (1, 1000, 9_000), (9_001, 1000, 18_000), (1_530_000, 1000, 1_530_000),
    (1_530_001, 1000, 1_584_000), (10_008_000, 1000, 10_008_000),
    (1, 500, 18_000), (3_060_001, 500, 3_168_000),
    (4_800, 125, 72_000), (72_001, 125, 144_000), (12_240_000, 125, 12_240_000),
])
def test_capacity_rounding_by_hand(requested, tier, size):
    assert planning.lustre_capacity_gib(requested, tier) == size


@pytest.mark.parametrize("requested, tier", [(10_008_001, 1000), (20_016_001, 500),
                                             (40_032_001, 250), (12_240_001, 125)])
def test_capacity_above_the_tier_maximum_is_an_error(requested, tier):
    with pytest.raises(SpecError) as raised:
        planning.lustre_capacity_gib(requested, tier)
    assert raised.value.field == "filesystem.capacity_gib"
    assert f"{planning.LUSTRE_TIERS[tier].maximum:,}" in raised.value.problem


@given(st.integers(1, 40_032_000), st.sampled_from(sorted(planning.LUSTRE_TIERS)))
@settings(max_examples=400, deadline=None)
def test_capacity_is_the_smallest_valid_size_at_or_above_the_request(requested, tier):
    spec = planning.LUSTRE_TIERS[tier]
    try:
        size = planning.lustre_capacity_gib(requested, tier)
    except SpecError:
        assert requested > spec.maximum
        return
    assert requested <= size <= spec.maximum and size >= spec.minimum
    step = spec.step if size <= spec.threshold else spec.big_step
    assert size % step == 0
    smaller = size - step
    assert smaller < requested or smaller < spec.minimum or (
        size > spec.threshold >= smaller)   # the next step down is too small or the other rule


def test_capacity_note_gives_the_size_and_why():
    note = planning.lustre_note(4_800, 250)
    assert "36,000 GiB (rounded up from 4,800 GiB)" in note and "36,000 GiB" in note
    note = planning.lustre_note(36_000, 200)
    assert "200 MB/s/TiB is not a Managed Lustre tier" in note and "250 MB/s/TiB" in note
    assert "already a valid size" in note


def test_lustre_names():
    assert planning.lustre_filesystem_name("llm-finetune") == "llmfinet"
    assert planning.lustre_instance_id("llm-finetune", "Dev.Stack_1") == "llm-finetune-dev-stack-1"
    long = planning.lustre_instance_id("c" * 30, "s" * 60)
    assert len(long) <= 63 and not long.endswith("-")
    assert planning.transfer_command("export-data", "fs", "us-west1-c", "p", "b") == (
        "gcloud lustre instances export-data fs --location=us-west1-c --project=p "
        "--gcs-path-uri=gs://b/ --lustre-path=/")


# ----------------------------------------------------------------------------- budget

def test_budget_amount_and_thresholds():
    assert planning.budget_amount(20_000) == ("20000", 0)
    assert planning.budget_amount(1234.56) == ("1234", 560_000_000)
    assert planning.budget_thresholds([100, 50, 80, 120], ["a@example.com"]) == [0.5, 0.8, 1.0, 1.2]
    with pytest.raises(SpecError) as raised:
        planning.budget_thresholds([50], [f"u{i}@example.com" for i in range(6)])
    assert raised.value.field == "budget.emails"
    assert len(planning.budget_display_name("c" * 30, "s" * 40)) == 60
