"""Choosing a parallel filesystem's tier and size by cited price (pure; each cloud's planning
module supplies its valid sizes).

A request is (capacity GiB, throughput MB/s per TiB); what it needs is the capacity and the
aggregate throughput `capacity / 1024 x tier`. Every tier of a product can meet both, at a
size of its own: a faster tier meets the throughput at a smaller size, a slower one needs more
capacity. The choice is the cheapest valid candidate when the cited prices prove it (an
unpriced tier is bounded below by the cited price of the next slower tier, since per-GiB
prices rise with the tier); otherwise the unpriced candidate with the lowest such bound, said
to be unpriced. No price is ever guessed: unpriced tiers are named in the note.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Iterable, Optional

from trainstack_components.catalog import FilesystemPrice


@dataclass(frozen=True)
class FilesystemChoice:
    product: str                       # catalog product key, e.g. managed_lustre
    tier: int                          # MB/s per TiB
    capacity_gib: int
    usd_per_gib_month: Optional[float]
    source: str = ""
    as_of: str = ""
    note: str = ""
    passed_over: tuple[str, ...] = field(default_factory=tuple)
    unpriced_tiers: tuple[int, ...] = field(default_factory=tuple)

    @property
    def monthly_usd(self) -> Optional[float]:
        if self.usd_per_gib_month is None:
            return None
        return round(self.capacity_gib * self.usd_per_gib_month, 2)

    @property
    def throughput_mbps(self) -> float:
        return self.capacity_gib / 1024 * self.tier


def needed_capacity_gib(requested_gib: int, requested_mbps_per_tib: int, tier: int) -> int:
    """The least capacity at `tier` that holds `requested_gib` and delivers the requested
    aggregate throughput (requested_gib / 1024 x requested tier MB/s)."""
    for_throughput = math.ceil(requested_gib * requested_mbps_per_tib / tier)
    return max(requested_gib, for_throughput)


def choose(product: str, requested_gib: int, requested_mbps_per_tib: int,
           tiers: Iterable[int], size_at: Callable[[int, int], Optional[int]],
           price_at: Callable[[int], Optional[FilesystemPrice]]) -> FilesystemChoice:
    """The cheapest cited (tier, size) meeting the request.

    size_at(needed_gib, tier) -> the valid size at that tier, or None when the tier cannot
    hold it (over its maximum). price_at(tier) -> the cited price, or None.
    """
    candidates: list[tuple[int, int, Optional[FilesystemPrice]]] = []
    for tier in sorted(tiers):
        size = size_at(needed_capacity_gib(requested_gib, requested_mbps_per_tib, tier), tier)
        if size is not None:
            candidates.append((tier, size, price_at(tier)))
    if not candidates:
        raise ValueError("no tier can hold the request")
    priced = [(t, s, p) for t, s, p in candidates if p is not None]
    unpriced = tuple(t for t, _, p in candidates if p is None)
    floors = {t: s * _floor(t, candidates) for t, s, p in candidates if p is None}
    best = min(priced, key=lambda c: (c[1] * c[2].usd_per_gib_month, c[0])) if priced else None
    best_cost = best[1] * best[2].usd_per_gib_month if best else None
    price: Optional[FilesystemPrice]
    if best is not None and best_cost is not None and all(best_cost <= f for f in floors.values()):
        tier, size, price = best
    else:
        # Some unpriced tier might be cheaper. Per-GiB prices rise with the tier on every
        # Lustre product, so an unpriced tier costs at least the cited price of the next tier
        # below it: take the unpriced candidate with the lowest such floor (on ties the
        # smallest size, then the slowest tier, which by the same rule costs the least), and
        # say that it is unpriced.
        tier, size, price = min((c for c in candidates if c[2] is None),
                                key=lambda c: (floors[c[0]], c[1], c[0]))
    passed = tuple(
        f"{t} MB/s/TiB at {s:,} GiB: " + (f"{s * p.usd_per_gib_month:,.0f} USD/month"
                                         if p is not None else "no cited price")
        for t, s, p in candidates if t != tier)
    if price is not None:
        notes = [f"{tier} MB/s/TiB at {size:,} GiB = {size * price.usd_per_gib_month:,.0f} "
                 f"USD/month, the cheapest tier that holds {requested_gib:,} GiB at "
                 f"{requested_mbps_per_tib} MB/s/TiB"]
        if not price.in_region:
            notes.append(f"price quoted for {price.row.region}, not the cluster's region")
    else:
        floor = floors[tier]
        notes = [f"{tier} MB/s/TiB at {size:,} GiB: no cited price"
                 + (f" (at least {floor:,.0f} USD/month: a faster tier never costs less per "
                    f"GiB than the cited slower one)" if floor else "")
                 + (f"; chosen over the cited tiers ({best[0]} MB/s/TiB at {best[1]:,} GiB = "
                    f"{best_cost:,.0f} USD/month) because it may cost less and is the smallest "
                    "valid size" if best else
                    "; no tier has a cited price, so the smallest valid size is taken")]
    if unpriced and price is not None:
        notes.append("no cited price for " + ", ".join(f"{t} MB/s/TiB" for t in unpriced)
                     + " (each costs at least the cited slower tier per GiB, so none is cheaper)")
    return FilesystemChoice(product, tier, size,
                            price.usd_per_gib_month if price is not None else None,
                            price.row.source if price is not None else "",
                            price.row.as_of if price is not None else "",
                            "; ".join(notes), passed, unpriced)


def _floor(tier: int, candidates) -> float:
    """The least per-GiB price an unpriced `tier` can have: the cited price of the fastest
    priced tier below it (0 when none is cited)."""
    below = [p.usd_per_gib_month for t, _, p in candidates if p is not None and t < tier]
    return max(below, default=0.0)
