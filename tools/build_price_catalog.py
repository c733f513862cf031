"""Regenerate components/catalog/prices.csv and storage_prices.csv from the shared price data.

The shared CSVs (../shared/reference/prices/) hold one row per zone for AWS and some GCP types;
trainstack prices per region, so rows are folded here and the fold is stated in `notes`.
components/catalog/filesystem_prices.csv (the filesystem tier prices cited for trainstack, same
columns as storage_prices.csv) is curated by hand and not touched here. Every row written must
name its source and date; a row without them stops the build.
Run by hand when the reference data changes:  python tools/build_price_catalog.py
"""
from __future__ import annotations

import csv
import shutil
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "reference" / "prices"
OUT = ROOT / "components" / "catalog"
FIELDS = ["cloud", "instance_type", "region", "zones", "ondemand_usd_hr", "spot_usd_hr",
          "source", "as_of", "notes"]


def fold(rows: list[dict]) -> dict:
    first = rows[0]
    ondemand = max(float(r["price_ondemand_usd_hr"]) for r in rows)
    spots = [float(r["price_spot_usd_hr"]) for r in rows if r["price_spot_usd_hr"]]
    zones = sorted({r["zone"] for r in rows if r["zone"]})
    notes = [first["notes"]] if first["notes"] else []
    if len(rows) > 1:
        # The highest figure is kept so that spend checks never under-estimate.
        notes.append(f"folded from {len(rows)} zone rows: highest on-demand and highest spot kept")
    return {
        "cloud": first["cloud"], "instance_type": first["instance_type"], "region": first["region"],
        "zones": ";".join(zones), "ondemand_usd_hr": f"{ondemand:g}",
        "spot_usd_hr": f"{max(spots):g}" if spots else "", "source": first["source"],
        "as_of": first["as_of"], "notes": "; ".join(notes),
    }


def main() -> int:
    if not SHARED.is_dir():
        print(f"shared price data not found at {SHARED}", file=sys.stderr)
        return 2
    undated = [f"{name}: {r.get('instance_type') or r.get('item')}"
               for name in ("gpu_instances.csv", "storage_network.csv")
               for r in csv.DictReader(open(SHARED / name, newline=""))
               if not (r.get("source") or "").strip() or not (r.get("as_of") or "").strip()]
    if undated:
        print("rows without a source or date: " + "; ".join(undated), file=sys.stderr)
        return 2
    groups: dict[tuple, list[dict]] = defaultdict(list)
    with open(SHARED / "gpu_instances.csv", newline="") as fh:
        for row in csv.DictReader(fh):
            if row["accelerator_count"] == "8":
                groups[(row["cloud"], row["instance_type"], row["region"])].append(row)
    with open(OUT / "prices.csv", "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=FIELDS, lineterminator="\n")
        writer.writeheader()
        for key in sorted(groups):
            writer.writerow(fold(groups[key]))
    shutil.copyfile(SHARED / "storage_network.csv", OUT / "storage_prices.csv")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
