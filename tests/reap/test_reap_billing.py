"""What still bills after each kind of stop: the table in docs/, and `trainstack status` saying
it for the stack at hand, including what the AWS export leaves out of the bucket."""
from __future__ import annotations

from typer.testing import CliRunner

from tests.conftest import ROOT
from tests.measure.test_connect_status import _record, bucket, stand_ins  # noqa: F401 (fixtures)
from trainstack.measure import billing as reap_billing, status
from trainstack.cli.app import app

DOC = ROOT / "docs" / "billing-after-stop.md"


def test_the_table_has_a_row_per_cloud_and_a_column_per_kind_of_stop():
    text = DOC.read_text()
    header = next(line for line in text.splitlines() if line.startswith("| Cloud"))
    assert "budget stop" in header and "deadline" in header and "reaper scale-down" in header \
        and "reap / destroy" in header
    rows = {line.split("|")[1].strip() for line in text.splitlines()
            if line.startswith("| ") and not line.startswith("| Cloud")}
    assert rows == {"AWS", "Google Cloud", "Azure", "Alibaba Cloud"}
    for billed in ("NAT gateway", "Elastic IP", "Bastion", "FSx for Lustre", "Managed Lustre",
                   "CPFS"):
        assert billed in text, billed
    # The AWS export's gap is stated, not hidden.
    assert "files elsewhere under `/lustre` are deleted" in text


def test_the_status_line_names_what_bills_and_what_is_not_exported():
    line = reap_billing.status_line("aws", {"filesystem_bucket_path": "/bucket"})
    assert "FSx for Lustre" in line and "NAT gateway" in line and "Elastic IP" in line
    assert "only /lustre/bucket" in line and "deleted with the filesystem" in line
    assert "whole filesystem" in reap_billing.status_line("gcp", {})
    # As trainstack deploys it: the association links "/", so nothing is left out.
    whole = reap_billing.status_line("aws", {"filesystem_bucket_path": "/"})
    assert "the whole filesystem is exported" in whole and "deleted with" not in whole
    assert "Bastion" in reap_billing.status_line("azure", {})


def test_status_of_a_stack_prints_its_billing_line(stand_ins, bucket, monkeypatch):  # noqa: F811
    bucket("i-0a", _record("i-0a", 0))
    original = status.read_records
    monkeypatch.setattr(status, "read_records", lambda url: original(bucket.url))
    result = CliRunner().invoke(app, ["status", "--stack", "aws"])
    assert "after a stop still billing: FSx for Lustre" in result.output
    assert "docs/billing-after-stop.md" in result.output
