"""`status` and `run` read a deployed stack's bucket, or the one --bucket-url names: with
neither they stop with one line naming --stack (exit 2), before anything is read."""
import pytest
from typer.testing import CliRunner

from trainstack.cli.app import app

runner = CliRunner()


@pytest.mark.parametrize("argv", [["status"], ["run", "--", "python", "train.py"]])
def test_without_a_stack_or_a_bucket_url_the_flag_is_named(argv):
    result = runner.invoke(app, argv)
    assert result.exit_code == 2
    assert "--stack: is required (or --bucket-url)" in result.output
    assert "Traceback" not in result.output
