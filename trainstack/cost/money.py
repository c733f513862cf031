"""Money terms that estimate, compare and report share: currencies, the exchange rate, which
catalog price a capacity type is charged at, and how a parameter count is written.

A module of its own so that compare, estimate and report each import it and none imports
another (they used to import each other in a circle).
"""
from __future__ import annotations

import math
from typing import Any, Optional

from trainstack.cost.sizing import SizingError
from trainstack_components.catalog import gpu_models as gpu_catalog

CURRENCIES = ("USD", "CNY")


def fx_rate(cny_rate: Optional[float] = None) -> dict[str, Any]:
    """CNY per USD: the --cny-rate override, else the catalog's stated rate (fx.csv)."""
    if cny_rate is not None:
        if (isinstance(cny_rate, bool) or not isinstance(cny_rate, (int, float))
                or not math.isfinite(cny_rate) or not 0 < cny_rate <= 1e4):
            raise SizingError("cny_rate", f"must be a positive rate in CNY per USD, got "
                              f"{cny_rate!r}, e.g. --cny-rate 7.1.")
        return {"cny_per_usd": float(cny_rate), "source": "--cny-rate", "as_of": None}
    row = gpu_catalog.load_fx_rates()["CNY"]
    return {"cny_per_usd": row.per_usd, "source": row.source, "as_of": row.as_of}


def check_currency(currency: str, field: str = "currency") -> str:
    code = str(currency).strip().upper()
    if code not in CURRENCIES:
        raise SizingError(field, f"unknown currency {currency!r}; use USD or CNY.")
    return code


def conversion_factor(from_currency: str, to_currency: str, fx: dict[str, Any]) -> float:
    """Units of `to_currency` per unit of `from_currency`."""
    if from_currency == to_currency:
        return 1.0
    rate = fx["cny_per_usd"]
    return rate if (from_currency, to_currency) == ("USD", "CNY") else 1 / rate


def priced_as(sel) -> str:
    """Which price of the catalog row the selection's capacity type is charged at."""
    kind = sel.capacity.type
    if kind == "spot":
        if sel.price.spot_usd_hr is None:
            return ("no spot price in the catalog: on-demand price used, no preemption "
                    "overhead added")
        if sel.price.spot_usd_hr >= sel.price.ondemand_usd_hr:
            return ("spot price equal to on-demand in the catalog snapshot (no discount): "
                    "priced as on-demand, no preemption overhead added")
        return "spot price"
    if kind == "on_demand":
        return "on-demand list price"
    # Reservations, Capacity Blocks and flex-start (DWS) have prices of their own, which the
    # catalog does not cite: the on-demand list price stands in for them.
    return (f"priced at on-demand list price (the catalog cites no {kind.replace('_', ' ')} "
            f"price)")


def human_params(n: float) -> str:
    """13e9 -> '13B', 6.7e9 -> '6.7B', 1.5e12 -> '1.5T', 350e6 -> '350M'."""
    for scale, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "K")):
        if n >= scale:
            return f"{n / scale:.4g}{suffix}"
    return f"{n:g}"
