"""The catalog is data with sources: every figure cited, every price tied to a known type."""
import pytest

from trainstack_components import catalog


def test_every_instance_row_is_a_gpu_type_with_a_source_and_date():
    types = catalog.instance_types()
    assert {t.cloud for t in types} == {"aws", "gcp", "azure", "alibaba"}
    for t in types:
        assert t.gpu_count >= 1 and t.gpu_memory_gb > 0 and t.vcpus > 0 and t.memory_gib > 0
        # The planner places nodes of 1, 2, 4 or 8 GPUs; larger accelerator counts (a2-megagpu-16g,
        # trn1.32xlarge) are priced for spend checks only.
        assert not t.auto_choice or t.gpu_count in (1, 2, 4, 8), t.name
        assert t.source and t.as_of, t.name
        assert not t.rdma or t.rdma_nics > 0 or t.fabric == "roce", t.name


def test_every_price_row_is_cited_positive_and_for_a_catalog_type():
    known = {(t.cloud, t.name) for t in catalog.instance_types()}
    for p in catalog.prices():
        assert (p.cloud, p.instance_type) in known, p
        assert p.ondemand_usd_hr > 0 and p.source and p.as_of
        if p.spot_usd_hr is not None:
            assert 0 < p.spot_usd_hr <= p.ondemand_usd_hr, p


def test_every_catalog_type_has_at_least_one_price():
    priced = {(p.cloud, p.instance_type) for p in catalog.prices()}
    assert all((t.cloud, t.name) in priced for t in catalog.instance_types())


def test_aws_efa_counts_match_the_network_cards():
    efa = {t.name: (t.rdma_nics, t.network_cards) for t in catalog.instance_types()
           if t.cloud == "aws"}
    assert efa["p5.48xlarge"] == (32, 32)
    assert efa["p5en.48xlarge"] == (16, 16)
    assert efa["p6-b200.48xlarge"] == (8, 8)
    assert efa["p6-b300.48xlarge"] == (16, 17)


def test_spot_falls_back_to_on_demand_when_the_source_has_none():
    row = catalog.price("azure", "Standard_ND96isr_H200_v5", "swedencentral")
    assert row.spot_usd_hr is None and row.hourly(spot=True) == row.ondemand_usd_hr


@pytest.mark.parametrize("name, canonical", [("h100", "H100"), (" A100-80gb ", "A100-80GB"),
                                             ("H-E(141GB)", "H-e(141GB)"), ("X9", None)])
def test_gpu_names_are_matched_case_insensitively(name, canonical):
    assert catalog.canonical_gpu(name) == canonical


def test_a_feature_a_cloud_cannot_provide_is_a_clear_error(example_spec):
    from trainstack_components.base import Cloud, Feature
    from trainstack_components.errors import SpecError
    from trainstack_components.spec import parse_spec

    class NoSpot(Cloud):
        name = "aws"
        _UNSUPPORTED = {Feature.SPOT: "this cloud sells no spot capacity."}

    example_spec["spot"] = True
    with pytest.raises(SpecError) as raised:
        NoSpot().check_features(parse_spec(example_spec))
    assert raised.value.field == "spot" and "no spot capacity" in str(raised.value)
    example_spec["spot"] = False
    NoSpot().check_features(parse_spec(example_spec))
