"""Alibaba Cloud planning functions (issue 12), without the mock engine."""
import json
from datetime import datetime, timedelta, timezone

import pytest

from trainstack_components import catalog
from trainstack_components.alicloud import planning
from trainstack_components.errors import SpecError

NOW = datetime(2026, 12, 1, 8, 0, 0, tzinfo=timezone.utc)


def itype(name):
    return catalog.instance_type("alibaba", name)


# -- catalog -----------------------------------------------------------------------------------

@pytest.mark.parametrize("name, fabric, rdma, eris", [
    ("ecs.gn7e-c16g1.32xlarge", "tcp", False, 0),
    ("ecs.sccgn7ex.32xlarge", "roce", True, 8),   # RoCE ports: 4 dual-port NICs (overview-40)
    ("ecs.gn8v-8x.48xlarge", "erdma", True, 1),
    ("ecs.ebmgn8v.48xlarge", "erdma", True, 2),
])
def test_fabric_per_type_as_cloud_map_9_2_records_it(name, fabric, rdma, eris):
    t = itype(name)
    assert (t.fabric, t.rdma, t.rdma_nics, t.gpu_count) == (fabric, rdma, eris, 8)
    assert t.source


def test_unnamed_gpus_are_labelled_by_memory_never_as_h100_or_h200():
    for t in catalog.instance_types():
        # gn8v/ebmgn8v/gn8e/gn8ep: the source names no model. (gn8is/gn8ia carry an L20, which
        # the price source names: "L20 48GB".)
        family = t.name.split(".")[1].split("-")[0] if t.cloud == "alibaba" else ""
        if family in ("gn8v", "ebmgn8v", "gn8e", "gn8ep"):
            assert t.gpu in ("H(96GB)", "H-e(141GB)"), t
            assert str(t.gpu_memory_gb) in t.gpu


def test_every_alibaba_price_row_cites_a_source_and_a_zone():
    rows = [p for p in catalog.prices() if p.cloud == "alibaba"]
    assert rows
    for p in rows:
        assert p.source and p.zones and all(z.startswith(p.region) for z in p.zones)


# -- placement ---------------------------------------------------------------------------------

def test_twenty_nodes_fit_a_low_latency_set_and_twenty_one_do_not():
    assert planning.placement(itype("ecs.ebmgn8v.48xlarge"), 20).kind == "deployment_set"
    with pytest.raises(SpecError) as err:
        planning.placement(itype("ecs.ebmgn8v.48xlarge"), 21)
    assert err.value.field == "nodes" and "20" in err.value.problem
    assert "LowLatency" in err.value.problem


def test_scc_types_go_to_an_hpc_cluster():
    assert planning.placement(itype("ecs.sccgn7ex.32xlarge"), 4).kind == "hpc_cluster"


def test_eri_layout_one_per_erdma_card():
    assert planning.eri_layout(itype("ecs.ebmgn8v.48xlarge"), True) == (True, 1)
    assert planning.eri_layout(itype("ecs.gn8v-8x.48xlarge"), True) == (True, None)
    assert planning.eri_layout(itype("ecs.ebmgn8v.48xlarge"), False) == (False, None)
    assert planning.eri_layout(itype("ecs.gn7e-c16g1.32xlarge"), True) == (False, None)
    assert planning.eri_layout(itype("ecs.sccgn7ex.32xlarge"), True) == (False, None)


def test_node_addresses_are_fixed_and_inside_the_vswitch():
    import ipaddress
    net = ipaddress.ip_network(planning.NODE_CIDR)
    ips = [planning.node_ip(i, 20) for i in range(20)]
    assert len(set(ips)) == 20 and all(ipaddress.ip_address(ip) in net for ip in ips)


def test_node_addresses_come_from_the_subnet_size_not_a_fixed_offset():
    # 10.44.0.0/20: .15.255 broadcast, .15.253-.15.254 reserved by the vSwitch -> last usable
    # .15.252; 2 nodes take .15.251 and .15.252 (issue 21: 10.44.15.200+i left the /20 at 56).
    assert [planning.node_ip(i, 2) for i in range(2)] == ["10.44.15.251", "10.44.15.252"]
    # 100 nodes: the fixed block ends at the same top and stays in the upper half.
    ips = [planning.node_ip(i, 100) for i in range(100)]
    assert ips[-1] == "10.44.15.252" and ips[0] == "10.44.15.153"
    # The top half of a /20 holds 2048 - 3 - 1 = 2044 fixed addresses; a /24 holds 124.
    assert planning.max_nodes() == 2044 and planning.max_nodes("10.0.0.0/24") == 124
    top = [planning.node_ip(i, 2000) for i in (0, 1999)]
    assert top == ["10.44.8.45", "10.44.15.252"]  # 4092 - 2000 + 1 = 2093 = 8 x 256 + 45
    assert all(ipaddress_in(ip, "10.44.8.0/21") for ip in top)   # never the lower half
    with pytest.raises(ValueError):
        planning.node_ip(0, 2045)


def ipaddress_in(ip: str, cidr: str) -> bool:
    import ipaddress
    return ipaddress.ip_address(ip) in ipaddress.ip_network(cidr)


def test_the_file_system_vpc_does_not_overlap_the_nodes():
    import ipaddress
    assert not ipaddress.ip_network(planning.VPC_CIDR).overlaps(
        ipaddress.ip_network(planning.FS_VPC_CIDR))
    assert ipaddress.ip_network(planning.FS_CIDR).subnet_of(
        ipaddress.ip_network(planning.FS_VPC_CIDR))


# -- capacity ----------------------------------------------------------------------------------

def test_capacity_types_alibaba_sells():
    assert planning.capacity_args("on_demand", None).spot_strategy == "NoSpot"
    assert planning.capacity_args("spot", None).spot_strategy == "SpotAsPriceGo"
    res = planning.capacity_args("reservation", "eap-0123")
    assert (res.private_pool_match, res.private_pool_id) == ("Target", "eap-0123")


@pytest.mark.parametrize("kind", ["capacity_block", "flex_start"])
def test_other_capacity_types_name_what_alibaba_offers(kind):
    with pytest.raises(SpecError) as err:
        planning.capacity_args(kind, "x")
    assert err.value.field == "clouds.alicloud.capacity.type"
    for offered in ("on_demand", "spot", "reservation", "elasticity assurance"):
        assert offered in err.value.fix


# -- CPFS --------------------------------------------------------------------------------------

@pytest.mark.parametrize("asked, got", [(1, 1200), (1200, 1200), (1201, 2400), (4800, 4800),
                                        (5000, 6000)])
def test_cpfs_capacity_in_1200_gib_steps(asked, got):
    assert planning.cpfs_capacity_gib(asked) == got


def test_cpfs_capacity_above_one_pib_is_refused():
    with pytest.raises(SpecError, match="1 PiB"):
        planning.cpfs_capacity_gib(2 * 1024 * 1024)


def test_storage_type_and_dataflow_throughput():
    assert planning.cpfs_storage_type(100) == "advance_100"
    assert planning.cpfs_storage_type(250) == "advance_200"
    # Strictly below the file system's bandwidth (nas.DataFlow `throughput` docstring):
    assert planning.dataflow_throughput(4800, "advance_200") == 600      # 960 MB/s (the example)
    assert planning.dataflow_throughput(7200, "advance_200") == 1200     # 1,440 MB/s
    assert planning.dataflow_throughput(7200, "advance_100") == 600      # 720 MB/s
    assert planning.dataflow_throughput(120000, "advance_200") == 1500   # the top tier
    # 7,500 GiB is 1,500 MB/s exactly: 1,500 is not below it, 1,200 is.
    assert planning.dataflow_throughput(7500, "advance_200") == 1200


@pytest.mark.parametrize("gib, kind, least", [(2400, "advance_200", "3,600"),
                                               (6000, "advance_100", "7,200")])
def test_a_file_system_too_slow_for_any_data_flow_is_refused(gib, kind, least):
    with pytest.raises(SpecError) as raised:
        planning.dataflow_throughput(gib, kind)
    assert raised.value.field == "filesystem.capacity_gib" and least in str(raised.value)


# -- budget ------------------------------------------------------------------------------------

def test_release_time_is_what_the_budget_buys():
    rel = planning.release(20000, 116.5416, None, NOW)
    assert rel.bound_by == "budget"
    # 20,000 / 116.5416 = 171.61 h, whole hours rounded down: 171 h after 2026-12-01T08:00Z.
    assert (rel.hours, rel.at) == (171, "2026-12-08T11:00:00Z")
    # never later than the budget allows: the cluster's cost up to the release is within budget
    released = datetime.strptime(rel.at, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
    assert (released - NOW).total_seconds() / 3600 * 116.5416 <= 20000


def test_the_budget_buys_whole_hours_rounded_down():
    """The pack counts a started hour whole: 200.5 bought hours would be priced as 201, over
    the budget. 20,050 / 100 = 200.5 h -> 200 h (2026-12-09T16:00Z)."""
    rel = planning.release(20050, 100, None, NOW)
    assert (rel.hours, rel.at, rel.bound_by) == (200, "2026-12-09T16:00:00Z", "budget")
    assert planning.release_hours(20050, 100, None) == (200, "budget")
    assert planning.release_hours(20099.99, 100, None) == (200, "budget")   # 200.9999 h
    assert planning.release_hours(20100, 100, None) == (201, "budget")      # exactly 201 h
    # A declared lifetime shorter than the whole hours still wins, as declared.
    assert planning.release_hours(20050, 100, 150.5) == (150.5, "lifetime")


def test_the_storage_month_comes_out_of_the_budget_first():
    storage = planning.StorageMonth(1050.0, "CPFS and OSS for the month")
    # (21,100 - 1,050) / 100 = 200.5 h -> 200 h: the budget pays the month's storage first.
    rel = planning.release(21100, 100, None, NOW, storage=storage)
    assert (rel.hours, rel.at) == (200, "2026-12-09T16:00:00Z")
    note = planning.budget_note(rel, 100, storage)
    assert "after the storage month (CPFS and OSS for the month)" in note


@pytest.mark.parametrize("budget", [1050, 500])
def test_a_budget_that_does_not_cover_the_storage_month_is_refused(budget):
    storage = planning.StorageMonth(1050.0, "4,800 GiB CPFS ...")
    with pytest.raises(SpecError) as err:
        planning.release(budget, 100, None, NOW, storage=storage)
    assert err.value.field == "budget.monthly_usd"
    assert "does not cover the storage" in str(err.value)


def test_the_storage_month_of_the_example(example_spec):
    """CPFS at the catalog's cited row and OSS at its row, CNY converted at fx.csv, by hand:
    4,800 GiB (4 x 1,200 GiB steps) x 1.4 CNY/GiB-month (storage_prices.csv
    cpfs_200mbps_per_tib_EXAMPLE) / 7.2734 CNY per USD = 923.9145; the bucket at the data-size
    model's 26,400 MB (13e9 params x 2 B + 1e8 tokens x 4 B; LoRA: no full checkpoint) = 26.4 GB
    x 0.0173 USD/GB-month (oss_standard_lrs) = 0.4567; 924.3713 USD."""
    from trainstack_components.spec import parse_spec
    month = planning.storage_month(parse_spec(example_spec, "t"), "cn-beijing")
    assert month.usd == pytest.approx(4800 * 1.4 / 7.2734 + 26.4 * 0.0173)
    assert month.usd == pytest.approx(924.3713, abs=1e-4)
    # Without a workload the bucket holds what the filesystem holds: 4,800 GiB = 5,153.96 GB.
    # A 4,000 GiB request rounds up to 4,800 GiB (1,200 GiB steps).
    example_spec.pop("workload")
    example_spec["filesystem"]["capacity_gib"] = 4000
    month = planning.storage_month(parse_spec(example_spec, "t"), "cn-beijing")
    assert month.usd == pytest.approx(4800 * 1.4 / 7.2734 + 4800 * 2 ** 30 / 1e9 * 0.0173)


def test_a_shorter_lifetime_wins():
    rel = planning.release(20000, 116.5416, 96, NOW)
    assert (rel.bound_by, rel.at) == ("lifetime", "2026-12-05T08:00:00Z")
    assert planning.release(1000, 116.5416, 96, NOW).bound_by == "budget"


def test_release_is_utc_from_any_clock_zone():
    shifted = NOW.astimezone(timezone(timedelta(hours=8)))
    assert planning.release(20000, 100, 10, shifted).at == "2026-12-01T18:00:00Z"


def test_release_under_thirty_minutes_is_refused():
    with pytest.raises(SpecError) as err:
        planning.release(10, 100, None, NOW)
    assert err.value.field == "budget.monthly_usd"


def test_budget_note_says_there_is_no_budget_resource():
    note = planning.budget_note(planning.release(20000, 100, None, NOW), 100)
    assert "no budget resource" in note and "2026-12-09T16:00:00Z" in note  # 200 h later


# -- identity ----------------------------------------------------------------------------------

def test_bucket_policy_names_only_the_bucket():
    doc = json.loads(planning.bucket_policy("my-data"))
    resources = {r for s in doc["Statement"] for r in s["Resource"]}
    assert resources == {"acs:oss:*:*:my-data", "acs:oss:*:*:my-data/*"}
    actions = [a for s in doc["Statement"] for a in s["Action"]]
    assert all(a.startswith("oss:") and "*" not in a for a in actions)


def test_nodes_trust_ecs():
    doc = json.loads(planning.ecs_trust_policy())
    assert doc["Statement"][0]["Principal"] == {"Service": ["ecs.aliyuncs.com"]}


def test_idle_periods():
    assert planning.idle_alarm_times(60) == 12
    assert planning.idle_alarm_times(7) == 2


# -- tags --------------------------------------------------------------------------------------

def test_tag_count_and_reserved_prefixes(example_spec):
    from trainstack_components.spec import parse_spec
    from trainstack_components.tags import cluster_tags
    example_spec["tags"] = {}
    own = len(cluster_tags(parse_spec(example_spec, "t"), "stack"))  # trainstack's own tags
    room = planning.MAX_TAGS - planning.BUCKET_EXTRA_TAGS - own
    example_spec["tags"] = {f"t{i}": "x" for i in range(room)}
    planning.check_tags(cluster_tags(parse_spec(example_spec, "t"), "stack"))  # exactly 20
    example_spec["tags"][f"t{room}"] = "x"
    with pytest.raises(SpecError) as err:
        planning.check_tags(cluster_tags(parse_spec(example_spec, "t"), "stack"))
    assert err.value.field == "tags" and f"at most {room} tags" in err.value.fix
    with pytest.raises(SpecError) as err:
        planning.check_tags({"aliyun-team": "ml"})
    assert err.value.field == "tags.aliyun-team"
