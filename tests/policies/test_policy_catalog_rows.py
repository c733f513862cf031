"""The pack reads its catalog CSVs (policies/catalog_data/) with csv.reader, and makes a Price
only for a row asked for: what it reads must be what csv.DictReader gives, row for row, and a
price looked up must be the row's own figures."""
from __future__ import annotations

import csv
import io

import pytest

from trainstack_policies import catalog


@pytest.mark.parametrize("name", sorted(p.name for p in catalog.DATA.glob("*.csv")))
def test_every_catalog_file_reads_as_dictreader_reads_it(name):
    with open(catalog.DATA / name, newline="", encoding="utf-8") as fh:
        assert catalog._rows(name) == list(csv.DictReader(fh))


@pytest.mark.parametrize("text", [
    "a,b,c\n1,2\n\n1,2,3,4\n\"x\ny\",2,3\n",   # short, blank, long, a quoted newline
    "",                                          # no header
    "a,b\n",                                     # a header only
    "a,b\r\n1,\"2,3\"\r\n,\r\n",                 # CRLF, a quoted comma, empty fields
])
def test_odd_shapes_read_as_dictreader_reads_them(tmp_path, monkeypatch, text):
    (tmp_path / "t.csv").write_text(text, encoding="utf-8", newline="")
    monkeypatch.setattr(catalog, "DATA", tmp_path)
    assert catalog._rows("t.csv") == list(csv.DictReader(io.StringIO(text, newline="")))


def test_a_looked_up_price_is_its_rows_figures():
    # policies/catalog_data/prices.csv: aws p5.48xlarge us-east-1, on-demand 55.04 USD/h
    # (the figure the review35c tests cite).
    with open(catalog.DATA / "prices.csv", newline="", encoding="utf-8") as fh:
        row = next(r for r in csv.DictReader(fh) if r["cloud"] == "aws" and
                   r["instance_type"] == "p5.48xlarge" and r["region"] == "us-east-1")
    got = catalog.price("aws", "p5.48xlarge", "us-east-1")
    assert got is not None and got.ondemand_usd_hr == 55.04 == float(row["ondemand_usd_hr"])
    assert got.spot_usd_hr == (float(row["spot_usd_hr"]) if row["spot_usd_hr"] else None)
    assert got.as_of == row["as_of"]
    assert got in catalog.prices()
    assert catalog.dearest("aws", "p5.48xlarge").ondemand_usd_hr == max(
        p.ondemand_usd_hr for p in catalog.prices()
        if p.cloud == "aws" and p.instance_type == "p5.48xlarge")
