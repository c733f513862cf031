"""Moved to components/catalog/run_prices.py (one catalog home); kept for old imports."""
from components.catalog.run_prices import *  # noqa: F401,F403
from components.catalog.run_prices import (  # noqa: F401
    _ALIBABA_NON_MAINLAND,
    BUCKET_ITEMS,
    CATALOG_CLOUD,
    EGRESS_ITEMS,
    FILESYSTEM_PRODUCTS,
    GIB_PER_GB,
    HOURS_PER_MONTH,
    RunPrice,
    _convert,
    _lookup,
)
