"""Issue 32: `trainstack local-nodes` starts stand-in nodes in one command, and the README's
local walk-through runs as written, from the repository root, through `compare --measured`."""
from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.checkout import PYTHONPATH as CHECKOUT_PATH
from tests.conftest import ROOT
from trainstack.cli.app import app
from trainstack.measure.run import resolve

pytestmark = pytest.mark.xdist_group("torchrun")


def readme_block() -> str:
    text = (ROOT / "README.md").read_text()
    found = re.search(r"<!-- local-walkthrough -->\s*```bash\n(.*?)```\s*<!-- /local-walkthrough -->",
                      text, re.S)
    assert found, "README.md lost its local walk-through block"
    return found.group(1)


def test_up_writes_what_a_node_needs_and_down_withdraws_it(tmp_path):
    bucket = tmp_path / "bucket"
    runner = CliRunner()
    started = runner.invoke(app, ["local-nodes", "up", "2", "--bucket-url", f"file://{bucket}",
                                  "--root", str(tmp_path / "nodes"), "--cloud", "aws"])
    try:
        assert started.exit_code == 0, started.output
        target = resolve(None, f"file://{bucket}")
        assert target.nodes == ("node-0", "node-1") and target.cloud == "aws"
        profile = (tmp_path / "nodes/node-1/etc/profile.d/trainstack-ranks.sh").read_text()
        assert "NNODES=2" in profile and "NODE_RANK=1" in profile
        assert (bucket / "heartbeat/node-0.json").exists()
        again = runner.invoke(app, ["local-nodes", "up", "2", "--bucket-url", f"file://{bucket}",
                                    "--root", str(tmp_path / "nodes")])
        assert again.exit_code == 2 and "already has running" in again.output
    finally:
        stopped = runner.invoke(app, ["local-nodes", "down", "--root", str(tmp_path / "nodes")])
    assert "node-0, node-1" in stopped.output
    record = json.loads((bucket / "status/node-0.json").read_text())
    assert record["ok"] is False and "local-nodes down" in record["withdrawn"]
    bad = runner.invoke(app, ["local-nodes", "up", "2"])
    assert bad.exit_code == 2 and "--bucket-url" in bad.output


def test_the_readme_walkthrough_runs_as_written(tmp_path):
    pytest.importorskip("torch")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "trainstack"      # what `pip install -e .` puts on PATH
    shim.write_text(f"#!/bin/sh\nexec {sys.executable} -m trainstack \"$@\"\n")
    shim.chmod(shim.stat().st_mode | stat.S_IEXEC)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
           "PYTHONPATH": CHECKOUT_PATH, "TMPDIR": str(tmp_path), "OMP_NUM_THREADS": "1",
           "COLUMNS": "250"}
    done = subprocess.run(["bash", "-euo", "pipefail", "-c", readme_block()], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=540)
    out = done.stdout + done.stderr
    assert done.returncode == 0, out[-4000:]
    assert "2 of 2 node(s) ready" in out
    assert "rank 0 of 2" in out and "rank 1 of 2" in out
    assert "measured beside assumed" in out and "aws: measured by" in out
    assert "stopped: node-0, node-1" in out
    # torchrun's per-job temp folders went to each node's own tmp under --root ($W/nodes), not
    # to the machine's temp folder (here $TMPDIR, which holds $W itself)
    assert list(tmp_path.glob("torchelastic_*")) == []
    for node in ("node-0", "node-1"):
        assert list(tmp_path.glob(f"tmp.*/nodes/{node}/tmp/torchelastic_*")), node
