"""Tests that notice the small planted bugs of issue 26 (each names the mutation it kills).
Expected values are worked out by hand or read from a cited table, never from the code."""
from datetime import datetime, timedelta, timezone

import pytest

from trainstack_components import base
from trainstack_components.memory import MemoryBreakdown, Workload, estimate_memory, fits
from trainstack_components.spec import parse_spec


def _gcp_h100(example_spec, region="europe-west4", zone="europe-west4-b"):
    example_spec["gpu"] = ["H100"]
    example_spec["interconnect"] = "fastest"
    gcp = example_spec["clouds"]["gcp"]
    gcp.update(region=region, zone=zone, instance_type=None)
    gcp.pop("capacity", None)
    example_spec["clouds"] = {"gcp": gcp}
    return parse_spec(example_spec, "test")


def test_fabric_preference_gcp_h100_takes_a3_mega_over_a3_high(example_spec):
    """Mutation: the fastest-fabric key dropped from the preference (a3-highgpu sorts first
    by name). instance_types.csv: a3-megagpu-8g GPUDirect-TCPXO 1,800 Gbps (8 GPU NICs),
    a3-highgpu-8g GPUDirect-TCPX 1,000 Gbps; neither is RDMA, both are priced in europe-west4."""
    sel = base.get_cloud("gcp").select(_gcp_h100(example_spec))
    assert sel.instance.name == "a3-megagpu-8g"


def test_fits_boundary_is_inclusive():
    """Mutation: `<=` -> `<` in fits(). 72 bytes used of 80 with 10 % headroom = exactly the
    72 usable bytes: it fits; one byte more does not."""
    assert fits(MemoryBreakdown(72, 0, 0, 0), 80, 0.10)
    assert not fits(MemoryBreakdown(72, 0, 0, 1), 80, 0.10)


@pytest.mark.parametrize("requested_gib, requested_tier, tier, expected", [
    (4800, 250, 125, 9600),   # 4,800 GiB at 250 MB/s/TiB = 1,172 MB/s; at 125 that needs 9,600 GiB
    (4800, 250, 1000, 4800),  # at 1000 MB/s/TiB 1,200 GiB would do, but the data needs 4,800
])
def test_filesystem_capacity_is_the_larger_of_data_and_throughput(requested_gib, requested_tier,
                                                                   tier, expected):
    """Mutation: max -> min in needed_capacity_gib (the tier floor)."""
    from trainstack_components.catalog.filesystems import needed_capacity_gib
    assert needed_capacity_gib(requested_gib, requested_tier, tier) == expected


def test_the_lifetime_has_ended_at_its_deadline():
    """Mutation: `now >= deadline` -> `now > deadline`. Start 2026-12-01 00:00 + 96 h =
    2026-12-05 00:00: at that instant the cluster must stop."""
    from trainstack_components.lifetime import Lifetime
    start = datetime(2026, 12, 1, tzinfo=timezone.utc)
    life = Lifetime(start=start, hours=96, source="test")
    deadline = datetime(2026, 12, 5, tzinfo=timezone.utc)
    assert life.deadline == deadline
    assert life.expired(deadline)
    assert not life.expired(deadline - timedelta(seconds=1))


def test_gcp_label_values_stop_at_127_bytes():
    """Mutation: the byte limit +8. GCP: values at most 63 characters and under 128 bytes.
    'あ' is 3 bytes in UTF-8 and a Lo letter (kept): 63 of them = 189 bytes, so the value is cut
    to 42 characters = 126 bytes (43 would be 129); 70 ASCII letters are cut to 63."""
    from trainstack_components.gcp.planning import label_value
    cut = label_value("あ" * 63)
    assert len(cut) == 42 and len(cut.encode("utf-8")) == 126
    assert label_value("a" * 70) == "a" * 63


def test_an_aws_capacity_error_is_recognised():
    """Mutation: the AWS marker dropped from the capacity markers. The EC2/Auto Scaling error
    code for a stockout is InsufficientInstanceCapacity (EC2 API error codes reference)."""
    from trainstack.deploy.capacity_guard import is_capacity_failure
    message = ("creating EC2 Instance: InsufficientInstanceCapacity: We currently do not have "
               "sufficient p5.48xlarge capacity in the Availability Zone you requested")
    assert is_capacity_failure(message)
    assert not is_capacity_failure("AccessDenied: not authorized to perform ec2:RunInstances")


def test_zero_shards_over_every_node_of_the_cluster(example_spec):
    """Mutation: ZeRO sharding over one node's GPUs only. 70B full, ZeRO-3, recompute full on
    H100: 1,120e9 B / n + 2.684e9 B <= 72e9 B needs n >= 17 (see test_memory_advice.py), so 3
    nodes x 8 = 24 GPUs fit and one node's 8 would not (1,120e9/8 = 140e9 B)."""
    example_spec["gpu"] = ["H100"]
    example_spec["nodes"] = 3
    example_spec["workload"].update(model_params=70e9, method="full", zero_stage=3,
                                    recompute=True, layers=80, hidden=8192, heads=64)
    example_spec["clouds"] = {"aws": example_spec["clouds"]["aws"]}
    sel = base.get_cloud("aws").select(parse_spec(example_spec, "test"))
    assert sel.instance.name == "p5.48xlarge" and sel.fits is True
    w8 = Workload(params=70e9, method="full", zero_stage=3, gpus=8, recompute="full",
                  layers=80, hidden=8192, heads=64)
    assert not fits(estimate_memory(w8), 80e9)
