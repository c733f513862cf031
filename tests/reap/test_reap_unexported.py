"""Issue 34: "no way to make the reaper ... destroy data that was not exported". On AWS the export
(an FSx data repository task) reaches only the association's path (`filesystem_bucket_path`).
Every stack trainstack deploys links the whole filesystem ("/"), so its export reaches every file
and an idle stack is exported, then destroyed; a stack whose association names less (an older
deploy's "/bucket", or one edited by hand) keeps the files outside it, which a destroy deletes.
Through the real CLI with moto's Auto Scaling group and EC2 (the `aws` fixture of
tests/reap/test_reap_booting.py) and the real FsxExportGuard over a stand-in FSx client (moto has
no data repository tasks): the dry run and the audit name what would be lost, and the stack is
scaled to 0 and exported but not destroyed unless `--delete-unexported` says to lose it. Written
to fail on the code before (which destroyed it, exit 0, naming nothing)."""
from __future__ import annotations

import pytest

from tests.conftest import plan_for
from tests.reap.test_reap_booting import aws, desired  # noqa: F401 (fixture)
from tests.reap.test_reap_faults import FakeFsx
from tests.reap.test_reap_under_faults import audit_lines, world  # noqa: F401 (fixture)
from tests.reap_helpers import write_stacks
from trainstack.reap import reaper as reap
from trainstack.reap.cloud import FsxExportGuard

LOST = ("files on FSx fs-0123 outside /bucket (/lustre/bucket on the nodes, the only path linked "
        "to the bucket) are never exported and are deleted with the filesystem")


@pytest.fixture
def fsx(aws, monkeypatch):
    """The AWS stack of two idle instances, its association at `path`, the real FSx guard."""
    client = FakeFsx(["SUCCEEDED"])
    monkeypatch.setattr(reap, "default_guards", lambda: {"aws": FsxExportGuard(
        client_for=lambda region: client, poll_s=0)})

    def at(path, live=None):
        """The outputs say `path`; FSx links `live` (default: the same) now."""
        aws.stacks["aws"]["outputs"]["filesystem_bucket_path"] = path
        client.linked = [path] if live is None else list(live)
        write_stacks(aws.tmp / "stacks.json", aws.stacks)
    aws.at, aws.fsx = at, client
    return aws


def test_the_dry_run_names_the_files_the_export_never_reaches(fsx):
    fsx.at("/bucket")
    result = fsx.reap("--dry-run")
    assert result.exit_code == 1, result.output
    assert (f"aws: report - idle: would scale to 0 and export, but not destroy: {LOST}; destroy "
            "it by hand once they are saved (`trainstack destroy --stack aws`), or reap with "
            "--delete-unexported to lose them") in result.output
    assert desired(fsx.autoscaling) == 2 and fsx.fsx.created == [] and fsx.destroyed() == []


def test_a_stack_with_files_the_export_never_reaches_is_scaled_down_not_destroyed(fsx):
    fsx.at("/bucket")
    result = fsx.reap()
    assert result.exit_code == 1, result.output
    assert fsx.destroyed() == [], result.output
    assert desired(fsx.autoscaling) == 0          # the nodes stop billing; the data stays
    assert fsx.fsx.created[0]["Paths"] == ["bucket"]   # what it can reach is exported
    last = audit_lines(fsx.audit)[-1]
    assert last["alarm"] == "data the export does not reach: not destroyed"
    assert last["evidence"]["not_exported"] == LOST


def test_delete_unexported_destroys_and_says_what_was_lost_before_and_after(fsx):
    fsx.at("/bucket")
    result = fsx.reap("--delete-unexported")
    assert result.exit_code == 0 and fsx.destroyed() == ["aws"], result.output
    assert f"destroyed; bucket kept; deleted without an export: {LOST}" in result.output
    lines = audit_lines(fsx.audit)
    before = [d for d in lines if d["reason"] == "export confirmed: pulumi destroy"]
    assert before and before[0]["evidence"]["not_exported"] == LOST   # written before the destroy


def test_an_association_of_the_whole_filesystem_loses_nothing(fsx):
    fsx.at("/")
    result = fsx.reap()
    assert result.exit_code == 0 and fsx.destroyed() == ["aws"], result.output
    assert "deleted without an export" not in result.output
    assert "not_exported" not in audit_lines(fsx.audit)[-1]["evidence"]


def test_an_idle_default_aws_stack_is_exported_whole_then_destroyed(fsx, example_spec):
    """The stack as trainstack deploys it (its `filesystem_bucket_path` output from the AWS
    plan): the export task has no Paths, which FSx takes as the filesystem root ("If Paths is
    not specified, Amazon FSx uses the file system root directory", FSx API Reference,
    DataRepositoryTask Paths), and the stack is destroyed, exit 0, naming nothing lost. Failed
    on the code before (association at /bucket: scaled to 0, exported, not destroyed, exit 1)."""
    fsx.at(plan_for(example_spec, "aws").outputs["filesystem_bucket_path"])
    dry = fsx.reap("--dry-run")
    assert dry.exit_code == 0, dry.output
    assert ("aws: would-destroy - every node idle past the grace period (scale to 0, export, then "
            "destroy with the bucket kept)") in dry.output and "LOST" not in dry.output
    result = fsx.reap()
    assert result.exit_code == 0 and fsx.destroyed() == ["aws"], result.output
    assert desired(fsx.autoscaling) == 0
    (request,) = fsx.fsx.created
    assert request == {"FileSystemId": "fs-0123", "Type": "EXPORT_TO_REPOSITORY",
                       "Report": {"Enabled": False}}
    assert "deleted without an export" not in result.output
    lines = audit_lines(fsx.audit)
    assert all("not_exported" not in line["evidence"] for line in lines)
    assert [d["reason"] for d in lines if d["reason"].startswith("export confirmed")]


def test_the_dry_run_with_delete_unexported_says_what_would_be_lost(fsx):
    fsx.at("/bucket")
    result = fsx.reap("--dry-run", "--delete-unexported")
    assert result.exit_code == 0, result.output
    assert ("aws: would-destroy - every node idle past the grace period (scale to 0, export, then "
            f"destroy with the bucket kept); LOST with it: {LOST}") in result.output
    assert desired(fsx.autoscaling) == 2 and fsx.destroyed() == []


def test_outputs_saying_slash_are_not_taken_for_what_fsx_links(fsx):
    """The outputs say "/" (the last `up`'s), but FSx links /bucket and /scratch now (changed by
    hand since, or an `up` that failed after deleting the old association): the export task
    reaches those two only, so the stack is scaled to 0 and exported but not destroyed, naming
    what FSx links (both pages of the listing). Failed on the code before (it trusted the
    outputs: an export of the "root" that FSx limits to the linked paths, then destroyed)."""
    fsx.at("/", live=["/bucket", "/scratch"])
    result = fsx.reap()
    assert result.exit_code == 1 and fsx.destroyed() == [], result.output
    assert desired(fsx.autoscaling) == 0
    assert fsx.fsx.created[0]["Paths"] == ["bucket", "scratch"]
    lost = audit_lines(fsx.audit)[-1]["evidence"]["not_exported"]
    assert lost == ("files on FSx fs-0123 outside the paths FSx links to the bucket now (/bucket, "
                    "/scratch; the stack's outputs say /) are never exported and are deleted "
                    "with the filesystem")


@pytest.mark.parametrize("live", [[], None])
def test_no_association_or_none_readable_destroys_nothing(fsx, live):
    """No association left (nothing can be exported), or FSx refusing to describe them
    (AccessDenied): the reach is not "everything"; not destroyed, exit 1."""
    fsx.at("/", live=live or [])
    if live is None:
        fsx.fsx.unreadable = ("An error occurred (AccessDeniedException) when calling the "
                              "DescribeDataRepositoryAssociations operation")
    result = fsx.reap()
    assert result.exit_code == 1 and fsx.destroyed() == [], result.output
    assert fsx.fsx.created == []      # nothing to export to, or the reach unknown: no task
    assert desired(fsx.autoscaling) == 0      # the nodes stop billing; the data stays
    assert "not destroyed" in result.output, result.output
