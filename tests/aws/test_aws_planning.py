"""Pure AWS planning: EFA layouts, FSx sizes, budget limits. No mock engine needed."""
import pytest

from trainstack_components import catalog
from trainstack_components.aws import planning
from trainstack_components.errors import SpecError


@pytest.mark.parametrize("type_name, efa", [
    ("p5.48xlarge", 32), ("p5en.48xlarge", 16), ("p6-b200.48xlarge", 8),
    ("p6-b300.48xlarge", 16), ("p4d.24xlarge", 4)])
def test_one_efa_interface_per_efa_capable_card(type_name, efa):
    nics = planning.efa_layout(catalog.instance_type("aws", type_name), use_rdma=True)
    efa_nics = [n for n in nics if n.interface_type == "efa-only"]
    assert len(efa_nics) == efa
    # one NIC per (card, device) slot, never two on the same slot
    assert len({(n.network_card_index, n.device_index) for n in nics}) == len(nics)


def test_layout_follows_current_aws_guidance():
    nics = planning.efa_layout(catalog.instance_type("aws", "p5.48xlarge"), use_rdma=True)
    assert nics[0] == planning.Nic(0, 0, "interface")       # ENA primary; efa-only can't be primary
    assert planning.Nic(0, 1, "efa-only") in nics            # card 0 has EFA on p5
    assert all(n.device_index == 0 for n in nics if n.network_card_index > 0)
    assert sorted({n.network_card_index for n in nics}) == list(range(32))


def test_b300_card_zero_is_ena_only():
    nics = planning.efa_layout(catalog.instance_type("aws", "p6-b300.48xlarge"), use_rdma=True)
    assert [n for n in nics if n.network_card_index == 0] == [planning.Nic(0, 0, "interface")]
    assert max(n.network_card_index for n in nics) == 16


def test_tcp_interconnect_gets_only_the_primary_interface():
    nics = planning.efa_layout(catalog.instance_type("aws", "p5.48xlarge"), use_rdma=False)
    assert nics == [planning.Nic(0, 0, "interface")]


@pytest.mark.parametrize("requested, size", [
    (1, 1200), (1200, 1200), (1201, 2400), (2400, 2400), (2401, 4800), (4800, 4800),
    (5000, 7200), (100_000, 100_800)])
def test_fsx_capacity_rounds_up_to_a_valid_size(requested, size):
    assert planning.fsx_capacity_gib(requested) == size


def test_more_than_five_budget_notifications_is_a_clear_error():
    with pytest.raises(SpecError) as raised:
        planning.budget_thresholds([10, 20, 30, 40, 50, 60], ["a@example.com"])
    assert raised.value.field == "budget.alert_percents"
    assert "at most 5" in str(raised.value)


def test_budget_tag_filter_uses_the_user_prefix():
    assert planning.cost_filter_value("trainstack:cluster", "c1") == "user:trainstack:cluster$c1"
