"""The GPU models table and the currency rates: data files and loaders (issue 5, 10).

gpu_models.csv (beside this module): one row per GPU model.
  gpu                 the catalog's accelerator label (matches instance_types.csv `gpu`).
  memory_gb           the vendor's figure as printed, in decimal GB (NVIDIA: "80GB HBM3").
                      We keep the printed number rather than a GiB conversion because vendors
                      do not say which unit they mean; `memory_bytes` reads it as GB x 1e9,
                      which is the smaller reading (an H100 "80GB" reports 81,559 MiB =
                      85.5e9 bytes), so a fits check errs on the safe side.
  dense_tflops_<p>    dense (no 2:4 sparsity) tensor-core peak for precision p, from the
                      vendor datasheet named in `source`. NVIDIA prints Hopper/Blackwell peaks
                      "with sparsity"; the dense figure is half of that. Blank = no vendor
                      figure (or, for FP8 on Ampere, no FP8 support): the user must pass
                      --peak-tflops. Never filled in by guess.
  source, as_of, notes  where the figures come from and when they were read.

fx.csv: `currency,per_usd,source,as_of,notes` -- units of `currency` per USD.
"""
from __future__ import annotations

import csv
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Optional

from trainstack_components.errors import SizingError

PRECISIONS = ("bf16", "fp16", "fp8", "tf32")
CATALOG_DIR = Path(__file__).resolve().parent
GPU_MODELS_CSV = CATALOG_DIR / "gpu_models.csv"
FX_CSV = CATALOG_DIR / "fx.csv"


@dataclass(frozen=True)
class GpuModel:
    name: str
    memory_gb: float
    dense_tflops: dict = field(default_factory=dict)  # precision -> float, only known figures
    source: str = ""
    as_of: str = ""
    notes: str = ""

    @property
    def memory_bytes(self) -> int:
        return int(self.memory_gb * 1e9)

    def peak_tflops(self, precision: str) -> Optional[float]:
        """Dense datasheet peak for `precision`, or None when no vendor figure exists."""
        if precision not in PRECISIONS:
            raise SizingError("precision", f"unknown precision {precision!r}; "
                              f"use one of {', '.join(PRECISIONS)}.")
        return self.dense_tflops.get(precision)


@dataclass(frozen=True)
class FxRate:
    currency: str
    per_usd: float
    source: str
    as_of: str
    notes: str = ""


def _number(text: str, where: str) -> Optional[float]:
    text = text.strip()
    if not text:
        return None
    value = float(text)
    if value <= 0:
        raise SizingError(where, f"must be positive, got {value}; fix the catalog row.")
    return value


def load_gpu_models(path: Path = GPU_MODELS_CSV) -> dict[str, GpuModel]:
    models: dict[str, GpuModel] = {}
    with open(path, newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            name = row["gpu"].strip()
            peaks = {}
            for p in PRECISIONS:
                v = _number(row.get(f"dense_tflops_{p}", ""), f"{path.name}:{name}.dense_tflops_{p}")
                if v is not None:
                    peaks[p] = v
            memory = _number(row["memory_gb"], f"{path.name}:{name}.memory_gb")
            if memory is None:
                raise SizingError(f"{path.name}:{name}.memory_gb", "is blank; every GPU row needs it.")
            models[name] = GpuModel(name, memory, peaks, row.get("source", ""),
                                    row.get("as_of", ""), row.get("notes", ""))
    return models


def get_gpu_model(name: str, models: Optional[dict[str, GpuModel]] = None) -> GpuModel:
    models = load_gpu_models() if models is None else models
    if name in models:
        return models[name]
    folded = {k.lower(): v for k, v in models.items()}
    if name.lower() in folded:
        return folded[name.lower()]
    raise SizingError("gpu", f"unknown GPU model {name!r}; use one of {', '.join(models)}.")


def load_fx_rates(path: Path = FX_CSV) -> dict[str, FxRate]:
    return dict(_fx_rates(path))


@cache
def _fx_rates(path: Path) -> tuple[tuple[str, FxRate], ...]:
    with open(path, newline="", encoding="utf-8") as fh:
        rates = {}
        for row in csv.DictReader(fh):
            cur = row["currency"].strip().upper()
            rate = _number(row["per_usd"], f"{path.name}:{cur}.per_usd")
            if rate is None:
                raise SizingError(f"{path.name}:{cur}.per_usd",
                                  "is blank; give a rate or drop the row.")
            rates[cur] = FxRate(cur, rate, row.get("source", ""), row.get("as_of", ""),
                                row.get("notes", ""))
    return tuple(rates.items())


def cny_per_usd() -> float:
    """The catalog's CNY per USD rate (fx.csv)."""
    return load_fx_rates()["CNY"].per_usd
