"""Moved to components/catalog/gpu_models.py (one catalog home); kept for old imports."""
from components.catalog.gpu_models import (  # noqa: F401
    CATALOG_DIR,
    FX_CSV,
    GPU_MODELS_CSV,
    FxRate,
    GpuModel,
    cny_per_usd,
    get_gpu_model,
    load_fx_rates,
    load_gpu_models,
)
