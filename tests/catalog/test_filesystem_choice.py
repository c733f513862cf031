"""components/catalog/filesystems.py by hand: the cheapest cited tier and size, and what happens
when a tier has no cited price. Prices here are made-up round figures so the sums are easy."""
import pytest

from trainstack_components.catalog import FilesystemPrice, StoragePrice
from trainstack_components.catalog.filesystems import choose, needed_capacity_gib

TIERS = (125, 250, 500, 1000)


def _price(value, in_region=True, region="us-east-1"):
    row = StoragePrice("aws", "x", "usd_per_gib_month", value, region, "https://example.org/p",
                       "2026-12-01")
    return FilesystemPrice(value, row, in_region)


def _pick(prices, requested=4800, tier=250, size_at=lambda gib, t: gib):
    return choose("lustre", requested, tier, TIERS, size_at, lambda t: prices.get(t))


def test_needed_capacity_by_hand():
    # 4,800 GiB at 250 MB/s/TiB is 1,171.9 MB/s: 9,600 GiB at 125, 4,800 GiB at 250/500/1000
    assert [needed_capacity_gib(4800, 250, t) for t in TIERS] == [9600, 4800, 4800, 4800]
    assert needed_capacity_gib(1000, 1000, 125) == 8000          # ceil(1000 x 1000 / 125)
    assert needed_capacity_gib(1001, 1000, 250) == 4004          # ceil(1001 x 4)


def test_the_cheapest_cited_tier_wins():
    # 125: 9,600 x 0.10 = 960; 250: 4,800 x 0.15 = 720; 500: 4,800 x 0.30 = 1,440;
    # 1000: 4,800 x 0.60 = 2,880  ->  250 MB/s/TiB at 4,800 GiB, 720 USD/month
    c = _pick({125: _price(0.10), 250: _price(0.15), 500: _price(0.30), 1000: _price(0.60)})
    assert (c.tier, c.capacity_gib, c.usd_per_gib_month, c.monthly_usd) == (250, 4800, 0.15, 720.0)
    assert c.unpriced_tiers == ()
    assert c.passed_over == ("125 MB/s/TiB at 9,600 GiB: 960 USD/month",
                             "500 MB/s/TiB at 4,800 GiB: 1,440 USD/month",
                             "1000 MB/s/TiB at 4,800 GiB: 2,880 USD/month")
    assert c.note == ("250 MB/s/TiB at 4,800 GiB = 720 USD/month, the cheapest tier that holds "
                      "4,800 GiB at 250 MB/s/TiB")
    assert (c.product, c.source, c.as_of) == ("lustre", "https://example.org/p", "2026-12-01")
    assert c.throughput_mbps == pytest.approx(4800 / 1024 * 250)


def test_a_tie_in_cost_takes_the_slower_tier():
    # 125: 9,600 x 0.10 = 960; 250: 4,800 x 0.20 = 960 -> equal cost, the lower tier number
    c = _pick({125: _price(0.10), 250: _price(0.20)})
    assert (c.tier, c.capacity_gib) == (125, 9600)


def test_an_unpriced_tier_that_may_be_cheaper_is_chosen_and_said_so():
    # only 125 is cited (0.10): 960 USD. 250/500/1000 are unpriced, each at least 0.10/GiB:
    # floors 4,800 x 0.10 = 480 each (< 960) -> the unpriced tier with the lowest floor,
    # smallest size, then the slowest (prices rise with the tier, so 250 <= 500 <= 1000 per
    # GiB): 250 MB/s/TiB at 4,800 GiB, no price
    c = _pick({125: _price(0.10)})
    assert (c.tier, c.capacity_gib, c.usd_per_gib_month, c.monthly_usd) == (250, 4800, None, None)
    assert c.unpriced_tiers == (250, 500, 1000)
    assert c.note == ("250 MB/s/TiB at 4,800 GiB: no cited price (at least 480 USD/month: a "
                      "faster tier never costs less per GiB than the cited slower one); chosen "
                      "over the cited tiers (125 MB/s/TiB at 9,600 GiB = 960 USD/month) because "
                      "it may cost less and is the smallest valid size")
    assert c.passed_over == ("125 MB/s/TiB at 9,600 GiB: 960 USD/month",
                             "500 MB/s/TiB at 4,800 GiB: no cited price",
                             "1000 MB/s/TiB at 4,800 GiB: no cited price")
    assert (c.source, c.as_of) == ("", "")        # nothing cited for what was chosen


def test_with_no_cited_price_at_all_the_smallest_size_is_taken_and_no_floor_claimed():
    # FSx-like: the 1000 tier starts at 12,000 GiB. Sizes: 125 -> 9,600, 250 -> 4,800,
    # 500 -> 4,800, 1000 -> 12,000. Nothing is cited, so no tier has a lower bound above 0:
    # the smallest size (4,800), the slower (cheaper) of 250/500 at it -> 250 MB/s/TiB.
    c = _pick({}, size_at=lambda gib, t: max(gib, 12000) if t == 1000 else gib)
    assert (c.tier, c.capacity_gib, c.usd_per_gib_month, c.monthly_usd) == (250, 4800, None, None)
    assert c.unpriced_tiers == (125, 250, 500, 1000)
    assert c.note == ("250 MB/s/TiB at 4,800 GiB: no cited price; no tier has a cited price, so "
                      "the smallest valid size is taken")
    assert c.passed_over == ("125 MB/s/TiB at 9,600 GiB: no cited price",
                             "500 MB/s/TiB at 4,800 GiB: no cited price",
                             "1000 MB/s/TiB at 12,000 GiB: no cited price")


def test_unpriced_tiers_that_cannot_be_cheaper_are_only_noted():
    # 125: 9,600 x 0.01 = 96; 250: 4,800 x 0.02 = 96 (tie -> 125). 500 and 1000 are unpriced,
    # each at least 0.02/GiB x 4,800 = 96, so neither can be cheaper: they are only noted.
    # (With 250 uncited instead, its floor would be 4,800 x 0.01 = 48 < 96 and it would win.)
    c = _pick({125: _price(0.01), 250: _price(0.02)})
    assert (c.tier, c.monthly_usd) == (125, 96.0)
    assert c.unpriced_tiers == (500, 1000)
    assert c.note == ("125 MB/s/TiB at 9,600 GiB = 96 USD/month, the cheapest tier that holds "
                      "4,800 GiB at 250 MB/s/TiB; no cited price for 500 MB/s/TiB, 1000 MB/s/TiB "
                      "(each costs at least the cited slower tier per GiB, so none is cheaper)")


def test_a_tier_that_cannot_hold_the_request_is_skipped_and_none_is_an_error():
    prices = {125: _price(0.10), 250: _price(0.15), 500: _price(0.30), 1000: _price(0.60)}
    c = _pick(prices, size_at=lambda gib, t: None if t == 250 else gib)
    assert c.tier == 125 and all(not p.startswith("250 ") for p in c.passed_over)
    with pytest.raises(ValueError, match="^no tier can hold the request$"):
        _pick(prices, size_at=lambda gib, t: None)


def test_a_price_from_another_region_is_named():
    c = _pick({125: _price(0.10), 250: _price(0.15, in_region=False, region="ap-northeast-1"),
               500: _price(0.30), 1000: _price(0.60)})
    assert c.note == ("250 MB/s/TiB at 4,800 GiB = 720 USD/month, the cheapest tier that holds "
                      "4,800 GiB at 250 MB/s/TiB; price quoted for ap-northeast-1, not the "
                      "cluster's region")
    assert c.source == "https://example.org/p" and c.as_of == "2026-12-01"
