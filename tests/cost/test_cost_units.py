"""trainstack/cost/sizing_cost.py and sizing_time.py by hand: every term, default, bound and the field
a bad input names (issue 26: tests that notice a wrong number)."""
import pytest

from trainstack.cost import sizing
from trainstack.cost.sizing_cost import monthly_run_rate, run_cost
from trainstack.cost.sizing_time import default_scaling_efficiency, fabric_class, training_flops, training_hours
from trainstack_components.errors import SizingError


def test_run_cost_defaults_by_hand():
    # 1 node x 1 USD/h x 1 h x 1.15 idle = 1.15; nothing else priced; overhead 0.15 of it
    c = run_cost(nodes=1, price_per_node_hour=1.0, hours=1.0)
    assert (c.currency, c.hours, c.billed_hours, c.needed_hours, c.max_hours) == (
        "USD", 1.0, pytest.approx(1.15), pytest.approx(1.15), None)
    assert (c.filesystem, c.bucket, c.transfer) == (0, 0, 0)
    assert c.compute == pytest.approx(1.15) and c.overhead == pytest.approx(0.15)
    assert c.storage == 0 and c.total == pytest.approx(1.15)


def test_run_cost_every_term_by_hand():
    # billed = 100 x 1.2 x 1.5 = 180 h (spot); compute = 3 x 2 x 180 = 1,080
    # filesystem = 1,000 GiB x 0.73 USD/GiB-month x 180/730 = 180; bucket = 500 x 0.073 x
    # 180/730 = 9; transfer = 40 GB x 0.5 = 20; overhead = (1080 + 189) x (1 - 100/180) = 564
    c = run_cost(nodes=3, price_per_node_hour=2.0, hours=100, filesystem_gib=1000,
                 filesystem_price_per_gib_month=0.73, bucket_gb=500, bucket_price_per_gb_month=0.073,
                 transfer_gb=40, transfer_price_per_gb=0.5, idle_overhead=0.2, spot=True,
                 preemption_overhead=0.5, currency="EUR")
    assert c.billed_hours == pytest.approx(180)
    assert c.compute == pytest.approx(1080)
    assert c.filesystem == pytest.approx(180) and c.bucket == pytest.approx(9)
    assert c.storage == pytest.approx(189) and c.transfer == pytest.approx(20)
    assert c.total == pytest.approx(1289)
    assert c.overhead == pytest.approx(1269 * (1 - 100 / 180))
    assert c.currency == "EUR"
    # without spot the 50 % preemption allowance is not added: 100 x 1.2 = 120 h
    assert run_cost(nodes=1, price_per_node_hour=1, hours=100, idle_overhead=0.2,
                    preemption_overhead=0.5).billed_hours == pytest.approx(120)
    # the default preemption allowance is 10 %: 10 x 1.15 x 1.1 = 12.65 h
    assert run_cost(nodes=1, price_per_node_hour=1, hours=10,
                    spot=True).billed_hours == pytest.approx(12.65)


def test_zero_hours_cost_nothing_and_no_overhead():
    c = run_cost(nodes=1, price_per_node_hour=5, hours=0)
    assert (c.compute, c.overhead, c.total, c.done_fraction, c.finishes) == (0, 0.0, 0, 1.0, True)


@pytest.mark.parametrize("field, value", [
    ("hours", -1), ("price_per_node_hour", -0.01), ("filesystem_gib", -1),
    ("filesystem_price_per_gib_month", -1), ("bucket_gb", -1), ("bucket_price_per_gb_month", -1),
    ("transfer_gb", -1), ("transfer_price_per_gb", -1), ("idle_overhead", -0.01),
    ("idle_overhead", 10.01), ("preemption_overhead", -0.01), ("preemption_overhead", 10.01),
    ("max_hours", 0), ("hours", 1e9 + 1), ("price_per_node_hour", float("nan")),
])
def test_run_cost_refuses_bad_input_naming_the_field(field, value):
    args = dict(nodes=1, price_per_node_hour=1.0, hours=1.0)
    args[field] = value
    with pytest.raises(SizingError) as raised:
        run_cost(**args)
    assert raised.value.field == field


@pytest.mark.parametrize("field, value", [("idle_overhead", 10), ("idle_overhead", 0),
                                          ("preemption_overhead", 10), ("hours", 1e9),
                                          ("price_per_node_hour", 0)])
def test_run_cost_bounds_are_inclusive(field, value):
    args = dict(nodes=1, price_per_node_hour=1.0, hours=1.0)
    args[field] = value
    run_cost(**args)


def test_nodes_must_be_a_whole_positive_number():
    for nodes in (0, 1.5, True):
        with pytest.raises(SizingError) as raised:
            run_cost(nodes=nodes, price_per_node_hour=1, hours=1)
        assert raised.value.field == "nodes"


def test_overhead_hints_say_what_the_fraction_is():
    with pytest.raises(SizingError) as raised:
        run_cost(nodes=1, price_per_node_hour=1, hours=1, idle_overhead=11)
    assert "0.15 for 15%" in str(raised.value)
    with pytest.raises(SizingError) as raised:
        run_cost(nodes=1, price_per_node_hour=1, hours=1, preemption_overhead=11)
    assert "0.1 for 10%" in str(raised.value)
    with pytest.raises(SizingError) as raised:
        run_cost(nodes=1, price_per_node_hour=1, hours=-1)
    assert "cannot be negative" in str(raised.value)


def test_monthly_run_rate_by_hand():
    # 2 x 10 x 730 + 1,000 x 0.1 + 500 x 0.02 = 14,600 + 100 + 10 = 14,710
    assert monthly_run_rate(nodes=2, price_per_node_hour=10, filesystem_gib=1000,
                            filesystem_price_per_gib_month=0.1, bucket_gb=500,
                            bucket_price_per_gb_month=0.02) == pytest.approx(14710)
    assert monthly_run_rate(nodes=1, price_per_node_hour=1) == 730
    for field in ("filesystem_gib", "filesystem_price_per_gib_month", "bucket_gb",
                  "bucket_price_per_gb_month", "price_per_node_hour"):
        args = dict(nodes=1, price_per_node_hour=1.0)
        args[field] = -1
        with pytest.raises(SizingError) as raised:
            monthly_run_rate(**args)
        assert raised.value.field == field


def test_conversion_by_hand():
    c = run_cost(nodes=1, price_per_node_hour=2, hours=100, filesystem_gib=730,
                 filesystem_price_per_gib_month=1, bucket_gb=730, bucket_price_per_gb_month=1,
                 transfer_gb=1, transfer_price_per_gb=1, idle_overhead=0)
    # 200 compute, 100 filesystem, 100 bucket, 1 transfer; x 7 CNY per USD
    k = c.converted(7, "CNY")
    assert (k.currency, k.compute, k.filesystem, k.bucket, k.transfer, k.overhead, k.hours) == (
        "CNY", pytest.approx(1400), pytest.approx(700), pytest.approx(700), 7, 0, 100)
    assert k.total == pytest.approx(2807)
    for bad in (0, -1, 1e6 + 1):
        with pytest.raises(SizingError) as raised:
            c.converted(bad, "CNY")
        assert raised.value.field == "rate"
    assert c.converted(1e6, "X").compute == pytest.approx(200e6)


def test_as_dict_carries_every_figure():
    d = run_cost(nodes=1, price_per_node_hour=1, hours=100, max_hours=57.5).as_dict()
    # 100 x 1.15 = 115 needed, 57.5 run: half the job
    assert d["billed_hours"] == 57.5 and d["needed_hours"] == pytest.approx(115)
    assert d["finishes"] is False and d["done_fraction"] == pytest.approx(0.5)
    assert d["storage"] == 0 and d["total"] == pytest.approx(57.5) and d["max_hours"] == 57.5
    assert d["currency"] == "USD" and d["hours"] == 100


# ----------------------------------------------------------------------------- time

def test_training_flops_by_hand():
    assert training_flops(1e9, 1e6) == 6e15                    # 6 N T, full
    assert training_flops(1e9, 1e6, "lora") == 4e15            # 4 N T
    assert training_flops(1e9, 1e6, "qlora") == 4e15
    assert training_flops(1e9, 1e6, flops_factor=2) == 2e15
    assert training_flops(1e9, 1e6, flops_factor=100) == 1e17  # the top of the range
    for kwargs, field in ((dict(method="x"), "method"), (dict(flops_factor=0), "flops_factor"),
                          (dict(flops_factor=100.5), "flops_factor")):
        with pytest.raises(SizingError) as raised:
            training_flops(1e9, 1e6, **kwargs)
        assert raised.value.field == field
    with pytest.raises(SizingError) as raised:
        training_flops(1e9, 0)
    assert raised.value.field == "tokens"


def test_training_hours_by_hand():
    # 3.6e18 FLOPs / (10 GPUs x 100 TFLOPS x 0.5) = 7,200 s = 2 h; / 0.8 = 2.5 h
    assert training_hours(3.6e18, 10, 100, 0.5) == pytest.approx(2)
    assert training_hours(3.6e18, 10, 100, 0.5, 0.8) == pytest.approx(2.5)
    assert training_hours(3.6e18, 10, 100) == pytest.approx(2 * 0.5 / sizing.DEFAULT_MFU)
    for args, field in (((0, 1, 1), "training_flops"), ((1e18, 0, 1), "gpus"),
                        ((1e18, 1, 0), "peak_tflops"), ((1e18, 1, 1e6 + 1), "peak_tflops")):
        with pytest.raises(SizingError) as raised:
            training_hours(*args)
        assert raised.value.field == field
    assert training_hours(3.6e18, 1, 1e6, 1.0) == pytest.approx(1e-3)


def test_scaling_efficiency_and_fabric_by_hand():
    assert default_scaling_efficiency(1, "tcp") == 1.0
    assert default_scaling_efficiency(2) == 0.9
    assert default_scaling_efficiency(2, "EFA") == 0.9
    assert default_scaling_efficiency(2, "gpudirect-tcpxo") == 0.625
    assert fabric_class(" InfiniBand ") == "rdma" and fabric_class("tcp") == "tcp"
    with pytest.raises(SizingError) as raised:
        fabric_class("carrier-pigeon")
    assert raised.value.field == "fabric" and "use rdma or tcp" in str(raised.value)
    with pytest.raises(SizingError) as raised:
        default_scaling_efficiency(0)
    assert raised.value.field == "nodes"


# ----------------------------------------------------------------------------- what a user reads

def _message(call, **kwargs):
    with pytest.raises(SizingError) as raised:
        call(**kwargs)
    return str(raised.value)


def test_conversion_below_one_and_of_the_overhead_by_hand():
    # 2 USD/h x 100 h x 1.15 idle = 230 USD, of which 230 x (1 - 1/1.15) = 30 is the idle share.
    # At 0.79 units per USD (a rate below 1, as USD -> GBP): 181.70, of which 23.70 overhead.
    c = run_cost(nodes=1, price_per_node_hour=2, hours=100).converted(0.79, "GBP")
    assert c.currency == "GBP"
    assert c.compute == pytest.approx(181.7) and c.overhead == pytest.approx(23.7)
    assert (c.hours, c.billed_hours) == (100, pytest.approx(115))     # hours are not money
    assert _message(c.converted, rate=0, currency="CNY") == (
        "rate: must be in (0, 1e+06], got 0. Give the exchange rate, e.g. --cny-rate 7.27.")


def test_an_unpriced_or_unsized_store_costs_nothing():
    # a price without a size (no filesystem declared) and a size without a cited price are 0
    base = dict(nodes=1, price_per_node_hour=1.0, hours=730, idle_overhead=0)
    for extra in (dict(filesystem_price_per_gib_month=0.1), dict(filesystem_gib=1000),
                  dict(bucket_price_per_gb_month=0.02), dict(bucket_gb=500),
                  dict(transfer_price_per_gb=0.09), dict(transfer_gb=200)):
        c = run_cost(**base, **extra)
        assert (c.filesystem, c.bucket, c.transfer, c.total) == (0, 0, 0, 730), extra
    for extra in (dict(filesystem_price_per_gib_month=0.1), dict(filesystem_gib=1000),
                  dict(bucket_price_per_gb_month=0.02), dict(bucket_gb=500)):
        assert monthly_run_rate(nodes=1, price_per_node_hour=1, **extra) == 730, extra


def test_cost_input_messages_name_the_field_and_the_way_out():
    args = dict(nodes=1, price_per_node_hour=1.0, hours=1.0)
    assert _message(run_cost, **{**args, "hours": -1}) == (
        "hours: must be in [0, 1e+09], got -1. Prices and sizes cannot be negative.")
    assert _message(run_cost, **{**args, "idle_overhead": 11}) == (
        "idle_overhead: must be in [0, 10], got 11. It is a fraction of the run, e.g. 0.15 for 15%.")
    assert _message(run_cost, **{**args, "preemption_overhead": -1}) == (
        "preemption_overhead: must be in [0, 10], got -1. It is a fraction of the run, e.g. 0.1 "
        "for 10%.")
    assert _message(run_cost, **{**args, "max_hours": 0}) == (
        "max_hours: must be in (0, 1e+07], got 0. It is the lifetime in hours.")
    assert _message(monthly_run_rate, nodes=0, price_per_node_hour=1) == (
        "nodes: must be a whole number from 1 to 1,000,000, got 0.")


def test_the_largest_counts_and_lifetimes_allowed_are_the_ones_the_messages_state():
    # "from 1 to 1,000,000" nodes; max_hours in (0, 1e7]
    assert run_cost(nodes=1_000_000, price_per_node_hour=1, hours=1,
                    idle_overhead=0).compute == 1_000_000
    assert monthly_run_rate(nodes=1_000_000, price_per_node_hour=1) == 730_000_000
    for call in (run_cost, monthly_run_rate):
        extra = dict(hours=1) if call is run_cost else {}
        assert _message(call, nodes=1_000_001, price_per_node_hour=1, **extra) == (
            "nodes: must be a whole number from 1 to 1,000,000, got 1000001.")
    assert run_cost(nodes=1, price_per_node_hour=1, hours=2e7, max_hours=1e7).billed_hours == 1e7
    assert _message(run_cost, nodes=1, price_per_node_hour=1, hours=1, max_hours=1e7 + 1) \
        .startswith("max_hours: must be in (0, 1e+07], got 10000001.0.")
    # half an hour of lifetime is a lifetime: 10 h needed, 0.5 h run
    assert run_cost(nodes=1, price_per_node_hour=4, hours=10, max_hours=0.5).compute == 2.0


@pytest.mark.parametrize("spot, ondemand, spot_price, discounted", [
    (True, 55.04, 11.9912, True),    # p5.48xlarge us-east-2: a real discount
    (True, 55.04, 55.04, False),     # spot capped at on-demand: no discount, priced on demand
    (True, 55.04, None, False),      # no spot price cited
    (False, 55.04, 11.9912, False),  # not asked for spot
])
def test_spot_is_priced_as_spot_only_for_a_cited_discount(spot, ondemand, spot_price, discounted):
    assert sizing.spot_discounted(spot, ondemand, spot_price) is discounted


def test_time_input_messages_name_the_field_and_the_way_out():
    assert _message(training_flops, params=1e9, tokens=1e6, method="dpo") == (
        "method: unknown method 'dpo'; use one of full, lora, qlora.")
    assert _message(training_flops, params=1e9, tokens=1e6, flops_factor=0) == (
        "flops_factor: must be in (0, 100], got 0. It is FLOPs per parameter per token: 6 for "
        "full training, 4 for LoRA.")
    assert _message(fabric_class, fabric="carrier-pigeon") == (
        "fabric: unknown fabric 'carrier-pigeon'; use rdma or tcp (or one of efa, erdma, "
        "gpudirect-tcpx, gpudirect-tcpxo, ib, infiniband, rdma, roce, tcp).")
    assert _message(training_hours, flops=float("inf"), gpus=1, peak_tflops=1) == (
        "training_flops: must be positive, got inf.")
    assert _message(training_hours, flops=1e18, gpus=1, peak_tflops=-312) == (
        "peak_tflops: must be in (0, 1e+06], got -312. Give the GPU's dense peak in TFLOPS for "
        "the precision, e.g. 312 for A100.")
    for call, extra in ((default_scaling_efficiency, {}),
                        (training_hours, dict(flops=1e18, peak_tflops=1))):
        field = "nodes" if call is default_scaling_efficiency else "gpus"
        assert _message(call, **{field: 1_000_001}, **extra) == (
            f"{field}: must be a whole number from 1 to 1,000,000, got 1000001.")


def test_time_bounds_are_where_the_messages_say():
    # a FLOPs factor below 1 is in (0, 100]: 0.5 x 1e9 x 1e6
    assert training_flops(1e9, 1e6, flops_factor=0.5) == 5e14
    assert default_scaling_efficiency(1_000_000, "tcp") == 5 / 8
    # 3.6e15 FLOPs at 1 TFLOPS, MFU 1, one GPU: exactly 3,600 s, one hour (1 TFLOPS = 1e12)
    assert training_hours(3.6e15, 1, 1, 1.0) == 1.0
    assert training_hours(3.6e15, 1_000_000, 1, 1.0) == pytest.approx(1e-6)
    # less than one FLOP is still positive work: 0.5 / 1e12 / 3600 h
    assert training_hours(0.5, 1, 1, 1.0) == pytest.approx(0.5 / 1e12 / 3600)
