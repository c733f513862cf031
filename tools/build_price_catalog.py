"""Regenerate components/catalog/prices.csv and storage_prices.csv from the vendored price sources.

The sources live in the repository (components/catalog/sources/, described with their public
URLs, commits and dates in sources/README.md), so a clone rebuilds the catalog byte for byte:

    python tools/build_price_catalog.py            # write prices.csv and storage_prices.csv
    python tools/build_price_catalog.py --check    # exit 1 when they differ from a rebuild

The source rows are per zone for AWS and some GCP types; trainstack prices per region, so rows
are folded here and the fold is stated in `notes`. Only types in instance_types.csv are kept
(a price row for a type the catalog cannot describe would be unusable). filesystem_prices.csv is
curated by hand and not touched. Every row written must name its source and date (an unknown
date is written as `unknown (...)`, which the outputs that use the row repeat); a row without
either stops the build.
"""
from __future__ import annotations

import argparse
import csv
import io
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CATALOG = ROOT / "components" / "catalog"
SOURCES = CATALOG / "sources"
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


def _read(path: Path) -> list[dict]:
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def build(sources: Path = SOURCES, catalog: Path = CATALOG) -> dict[str, bytes]:
    """The bytes of prices.csv and storage_prices.csv rebuilt from `sources`; raises ValueError
    naming the rows that lack a source or date."""
    gpu_rows = _read(sources / "gpu_instances.csv")
    storage_rows = _read(sources / "storage_network.csv")
    undated = [r.get("instance_type") or r.get("item") or "?" for r in gpu_rows + storage_rows
               if not (r.get("source") or "").strip() or not (r.get("as_of") or "").strip()]
    if undated:
        raise ValueError("rows without a source or date: " + "; ".join(undated))
    known = {(r["cloud"], r["instance_type"]) for r in _read(catalog / "instance_types.csv")}
    groups: dict[tuple, list[dict]] = defaultdict(list)
    for row in gpu_rows:
        if (row["cloud"], row["instance_type"]) in known:
            groups[(row["cloud"], row["instance_type"], row["region"])].append(row)
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=FIELDS, lineterminator="\n")
    writer.writeheader()
    for key in sorted(groups):
        writer.writerow(fold(groups[key]))
    return {"prices.csv": out.getvalue().encode(),
            "storage_prices.csv": (sources / "storage_network.csv").read_bytes()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="only report whether the catalog differs from a rebuild")
    args = parser.parse_args(argv)
    try:
        built = build()
    except (OSError, ValueError) as exc:
        print(f"cannot build the price catalog: {exc}", file=sys.stderr)
        return 2
    stale = [name for name, data in built.items()
             if not (CATALOG / name).is_file() or (CATALOG / name).read_bytes() != data]
    if args.check:
        for name in stale:
            print(f"components/catalog/{name} differs from a rebuild of components/catalog/"
                  "sources; run python tools/build_price_catalog.py", file=sys.stderr)
        return 1 if stale else 0
    for name, data in built.items():
        (CATALOG / name).write_bytes(data)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
