"""The price catalog rebuilds from the repository alone, byte for byte (issue 26)."""
import csv
import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _builder():
    spec = importlib.util.spec_from_file_location("build_price_catalog",
                                                  ROOT / "tools" / "build_price_catalog.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_catalog_rebuilds_byte_for_byte_from_the_vendored_sources():
    builder = _builder()
    assert builder.SOURCES.is_relative_to(ROOT)      # no ../shared: a clone has everything
    for name, data in builder.build().items():
        assert (ROOT / "components" / "catalog" / name).read_bytes() == data, name


def test_a_source_row_without_a_date_stops_the_build(tmp_path):
    builder = _builder()
    rows = list(csv.reader(open(builder.SOURCES / "gpu_instances.csv", newline="")))
    rows[1][rows[0].index("as_of")] = ""
    with open(tmp_path / "gpu_instances.csv", "w", newline="") as fh:
        csv.writer(fh).writerows(rows)
    (tmp_path / "storage_network.csv").write_bytes(
        (builder.SOURCES / "storage_network.csv").read_bytes())
    try:
        builder.build(tmp_path)
    except ValueError as exc:
        assert rows[1][1] in str(exc)
    else:
        raise AssertionError("a row without a date was built")


def test_every_source_names_a_public_place_not_a_local_path():
    for name in ("gpu_instances.csv", "storage_network.csv"):
        for row in csv.DictReader(open(ROOT / "components/catalog/sources" / name, newline="")):
            assert "../shared" not in row["source"] and "shared/reference" not in row["source"]


def test_no_catalog_file_cites_a_path_outside_the_repository():
    """Citations resolve from the repository alone: no ../shared paths, no notes file that only
    the authors had (cloud-map.md)."""
    for path in sorted((ROOT / "components" / "catalog").glob("*.csv")):
        text = path.read_text()
        assert "../shared" not in text and "shared/reference" not in text, path.name
        assert "cloud-map" not in text, path.name
