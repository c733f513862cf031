"""Done-when (issue 33): one trial over three candidates on a fresh clone -- AWS stocked out in
its first zone (the stand-in `pulumi up` answers EC2's recorded InsufficientInstanceCapacity),
GCP that succeeds, Azure whose node never becomes healthy -- runs to a measured comparison and a
recommendation, with every stack it created destroyed and only the buckets left."""
import json

import yaml
from typer.testing import CliRunner

from tests.run_helpers import LocalCluster, health_record
from tests.trial_helpers import TrialWorld
from trainstack.cli.app import app
from trainstack.trial.capacity import example
from trainstack.trial.plan import stack_name

runner = CliRunner()


def test_three_candidates_to_a_recommendation_with_every_stack_destroyed(tmp_path, monkeypatch):
    stockout = example("aws", "InsufficientInstanceCapacity")
    world = TrialWorld(tmp_path, monkeypatch, up_errors={"trial-aws-us-east-1a": stockout})
    for cloud in ("aws", "gcp", "azure"):
        (tmp_path / f"nodes-{cloud}").mkdir()
    clusters = {
        cloud: LocalCluster(tmp_path / f"nodes-{cloud}", nodes=1,
                            bucket_url=f"file://{world.buckets[cloud]}",
                            records={"node-0": health_record("node-0", 0, cloud=cloud)})
        for cloud in ("aws", "gcp")}
    # Azure's only node reports its fabric step failed: it never becomes healthy.
    LocalCluster(tmp_path / "nodes-azure", nodes=1, bucket_url=f"file://{world.buckets['azure']}",
                 records={"node-0": health_record("node-0", 0, cloud="azure", ok=False,
                                                  steps={"drivers": 0, "fabric": 1})})
    data = tmp_path / "data"
    data.mkdir()
    (data / "shard-0.jsonl").write_text('{"text": "hello"}\n')
    report = tmp_path / "trial.html"
    for cluster in clusters.values():
        cluster.start()
    try:
        result = runner.invoke(app, ["--project", str(world.project), "trial",
                                     "--candidates", "aws,gcp,azure", "--budget-usd", "1000",
                                     "--data", str(data), "--json", "--html", str(report),
                                     *world.bench_args()])
    finally:
        for cluster in clusters.values():
            cluster.stop()
    assert result.exit_code == 0, result.output + "".join(c.agent_logs() for c in clusters.values())
    doc = json.loads(result.stdout[result.stdout.index("{\n"):])
    by = {c["candidate"]: c for c in doc["candidates"]}

    # AWS: the stockout in us-east-1a is recorded with its source, the next zone is measured
    aws = by["aws"]
    assert [(a["zone"], a["outcome"]) for a in aws["attempts"]] == [
        ("us-east-1a", "capacity"), ("us-east-1b", "measured")], aws["attempts"]
    assert "InsufficientInstanceCapacity" in aws["attempts"][0]["detail"]
    assert "docs.aws.amazon.com" in aws["attempts"][0]["detail"]
    assert doc["capacity"]["aws"]["found"]["zone"] == "us-east-1b"
    assert doc["capacity"]["aws"]["not_found"][0]["zone"] == "us-east-1a"
    # GCP measured in its first zone; Azure named by node and step, and passed over for it
    assert by["gcp"]["outcome"] == "measured", by["gcp"]["detail"]
    assert by["azure"]["outcome"] == "unhealthy"
    assert "node-0: step fabric exited 1" in by["azure"]["detail"]
    rec = doc["recommendation"]
    assert "unhealthy" in rec["passed_over"]["azure"] and "fabric" in rec["passed_over"]["azure"]

    # the recommendation is the lower measured cost per trained token of the two measured
    measured = doc["comparison"]["measured"]["clouds"]
    per_token = {c: measured[c]["cost_per_million_tokens"] for c in ("aws", "gcp")}
    assert rec["chosen"] == min(per_token, key=per_token.get)
    other = ({"aws", "gcp"} - {rec["chosen"]}).pop()
    assert "more than" in rec["passed_over"][other]

    # every stack it created is destroyed: nothing but providers in any state; the buckets stay
    stacks = world.stacks()
    assert set(stacks) == {"trial-aws-us-east-1a", "trial-aws-us-east-1b",
                           "trial-gcp-us-central1-b", "trial-azure-eastus-1"}
    # each attempt's stack is its own candidate's, in the attempt's zone: its cloud's region key
    # and zone override, no other cloud's (every candidate is priced before the first is tried)
    region_keys = {"aws": "aws:region", "gcp": "gcp:region", "azure": "azure-native:location"}
    for stack in stacks:
        cloud = stack.split("-")[1]
        config = yaml.safe_load((world.project / "stacks" / f"Pulumi.{stack}.yaml").read_text())[
            "config"]
        assert config["trainstack:cloud"] == cloud
        assert [k for k in region_keys.values() if k in config] == [region_keys[cloud]], config
        assert list(config["trainstack:overrides"]["clouds"]) == [cloud], config
        moved_to = config["trainstack:overrides"]["clouds"][cloud]
        assert moved_to["region"] == config[region_keys[cloud]]
        assert stack_name(cloud, moved_to["region"], moved_to["zone"]) == stack
    assert world.still_billing() == {}
    assert all(s["state"] == "destroyed" for s in world.journal()["stacks"].values())
    assert doc["left_behind"].startswith("only the buckets")
    for cloud in ("aws", "gcp", "azure"):
        bucket = world.buckets[cloud]
        assert (bucket / "data" / "shard-0.jsonl").is_file()      # the staged data is kept
        assert list(bucket.glob("trial/*/journal.json"))           # the journal is in the bucket
    assert list(world.buckets["gcp"].glob("bench/*.json"))         # bench results in the bucket
    # the trial's own cost per cloud, and the HTML report carries the trial section
    assert all(c["spent_usd"] > 0 for c in doc["candidates"])
    page = report.read_text()
    assert 'id="trial"' in page and 'id="measured"' in page
