"""`trainstack status` counts spot preemptions, restarts and lost minutes from the events the
nodes leave in the bucket (events/<node>/*.json). Expected figures are worked by hand below."""
import json

from typer.testing import CliRunner

from trainstack.cli.app import app
from trainstack.measure.preemptions import summarize

runner = CliRunner()

NOTICE = {"event": "preemption-notice", "node": "i-0b", "cloud": "aws", "kind": "spot-interruption",
          "time": "2026-12-01T10:00:00Z", "deadline": "2026-12-01T10:02:00Z"}
# Resumed at 10:07:30 from a checkpoint written at 10:00:10: 7 min 20 s = 7.333 min lost.
RESTART_1 = {"event": "restart", "time": "2026-12-01T10:07:30Z",
             "checkpoint_time": "2026-12-01T10:00:10Z", "step": 400}
# Resumed at 11:00:00 from 10:45:00 (a crash, no notice): 15 min. Total 22.33 min.
RESTART_2 = {"event": "restart", "time": "2026-12-01T11:00:00Z",
             "checkpoint_time": "2026-12-01T10:45:00Z", "step": 900}
REBALANCE = {"event": "advisory", "node": "i-0a", "kind": "rebalance", "time": "2026-12-01T09:00:00Z"}
LATE = {"event": "checkpoint", "step": 400, "before_deadline": False}


def test_the_summary_counts_by_hand():
    s = summarize([NOTICE, RESTART_1, RESTART_2, REBALANCE, LATE])
    assert (s.preemptions, s.restarts, s.advisories, s.late_checkpoints) == (1, 2, 1, 1)
    assert s.lost_minutes == 22.33 and s.by_node == {"i-0b": 1}
    assert s.line() == ("spot: 1 preemption(s), 2 restart(s), 22.3 lost minute(s); "
                        "1 checkpoint(s) finished after the deadline")


def test_status_shows_them_from_the_bucket(tmp_path):
    root = tmp_path / "bucket"
    (root / "status").mkdir(parents=True)
    (root / "status" / "i-0a.json").write_text(json.dumps({"node": "i-0a", "ok": True, "node_rank": 0}))
    for node, name, event in [("i-0b", "a-notice", NOTICE), ("i-0a", "b-restart", RESTART_1),
                              ("i-0a", "c-restart", RESTART_2)]:
        (root / "events" / node).mkdir(parents=True, exist_ok=True)
        (root / "events" / node / f"{name}.json").write_text(json.dumps(event))
    (root / "events" / "i-0a" / "broken.json").write_text("{not json")
    text = runner.invoke(app, ["status", "--bucket-url", f"file://{root}"], env={"COLUMNS": "200"})
    assert text.exit_code == 0, text.output
    assert "spot: 1 preemption(s), 2 restart(s), 22.3 lost minute(s)" in text.output
    doc = json.loads(runner.invoke(app, ["status", "--bucket-url", f"file://{root}", "--json"]).output)
    assert doc["preemptions"]["restarts"] == 2 and doc["preemptions"]["lost_minutes"] == 22.33


def test_a_cluster_without_events_shows_no_spot_line(tmp_path):
    root = tmp_path / "bucket"
    (root / "status").mkdir(parents=True)
    (root / "status" / "i-0a.json").write_text(json.dumps({"node": "i-0a", "ok": True}))
    result = runner.invoke(app, ["status", "--bucket-url", f"file://{root}"])
    assert result.exit_code == 0 and "spot:" not in result.output
    doc = json.loads(runner.invoke(app, ["status", "--bucket-url", f"file://{root}", "--json"]).output)
    assert doc["preemptions"] is None
