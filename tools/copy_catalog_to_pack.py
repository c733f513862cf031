"""Copy the catalog data the policy pack reads from components/catalog/ into policies/catalog_data/.

The catalog has one home, components/catalog/. The CrossGuard pack must run from its own
directory alone (`pulumi policy publish` uploads only that directory), so it carries a copy of the
few CSV files it prices with. Run this after editing the catalog:

    python tools/copy_catalog_to_pack.py          # write the copy
    python tools/copy_catalog_to_pack.py --check  # exit 1 when the copy is stale

tests/policies/test_policy_pack_selfcontained.py fails when the copy differs from the source.
"""
from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "components" / "catalog"
TARGET = ROOT / "policies" / "catalog_data"
# What policies/catalog.py reads: GPU facts, instance prices, storage prices, the CNY rate,
# GCP N1 machines and the GPUs attached to them, the listed-but-unpriced GPU types and the regions
# a priced type is listed in without a price there.
FILES = ("instance_types.csv", "prices.csv", "storage_prices.csv", "filesystem_prices.csv",
         "fx.csv", "gcp_attached_gpus.csv", "unpriced.csv", "unpriced_regions.csv")


def stale(source: Path = SOURCE, target: Path = TARGET) -> list[str]:
    return [name for name in FILES if not (target / name).is_file()
            or (target / name).read_bytes() != (source / name).read_bytes()]


def copy(source: Path = SOURCE, target: Path = TARGET) -> list[str]:
    target.mkdir(parents=True, exist_ok=True)
    for name in FILES:
        shutil.copyfile(source / name, target / name)
    return list(FILES)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only report a stale copy")
    args = parser.parse_args(argv)
    if args.check:
        names = stale()
        for name in names:
            print(f"policies/catalog_data/{name} differs from components/catalog/{name}; "
                  "run python tools/copy_catalog_to_pack.py", file=sys.stderr)
        return 1 if names else 0
    for name in copy():
        print(f"copied components/catalog/{name} -> policies/catalog_data/{name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
