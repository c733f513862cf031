"""`bench` that fails says why on the terminal: each failed node's exit code and the end of its
log (CI once showed only "failed: training all_nodes (see the job logs in the bucket)", with the
bucket gone when the run ended)."""
from __future__ import annotations

import json

from trainstack.measure.bench import failed_job_lines
from trainstack.measure.run import Target


def test_failed_nodes_show_their_exit_and_log_tail_and_the_good_ones_stay_quiet(tmp_path):
    job = tmp_path / "jobs" / "j1"
    (job / "node-0").mkdir(parents=True)
    (job / "node-0" / "exit.json").write_text(json.dumps({"rc": 0}))
    (job / "node-0" / "log.txt").write_text("all fine\n")
    (job / "node-1").mkdir()
    (job / "node-1" / "exit.json").write_text(json.dumps({"rc": 1}))
    (job / "node-1" / "log.txt").write_text(
        "".join(f"line {i}\n" for i in range(40)) + "RuntimeError: boom on rank 1\n")
    (job / "node-2").mkdir()           # started, never wrote its exit record
    (job / "node-3").mkdir()           # its agent stopped the run, and says why
    (job / "node-3" / "exit.json").write_text(json.dumps(
        {"rc": 241, "stopped": "stopped by the job agent: node-1 exited 1"}))
    target = Target(url=f"file://{tmp_path}", nodes=("node-0", "node-1", "node-2", "node-3"))

    lines = failed_job_lines(target, "training all_nodes", "j1", tail=5)

    text = "\n".join(lines)
    assert "node-0" not in text and "all fine" not in text
    assert lines[0] == ("--- training all_nodes, job j1, node node-1: exit 1; "
                        "the last lines of its log:")
    # the last 5 lines: 36..39 and the error, nothing older
    assert lines[1:6] == ["    line 36", "    line 37", "    line 38", "    line 39",
                          "    RuntimeError: boom on rank 1"]
    assert "line 35" not in text
    assert lines[6] == ("--- training all_nodes, job j1, node node-2: no exit record; "
                        "the last lines of its log:")
    assert lines[7:] == ["    (no log)",
                         "--- training all_nodes, job j1, node node-3: exit 241 (stopped by the "
                         "job agent: node-1 exited 1); the last lines of its log:",
                         "    (no log)"]
