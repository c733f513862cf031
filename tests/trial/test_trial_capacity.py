"""A candidate stocked out everywhere the trial may try: each zone's attempt is destroyed as it
fails (data kept), each move is shown and journalled, the candidate is reported as having no
capacity with every error and its source, and the trial passes it over."""
import json

from typer.testing import CliRunner

from tests.trial_helpers import TrialWorld
from trainstack.cli.app import app
from trainstack.plan import engine
from trainstack.trial import runner as runner_module
from trainstack.trial.capacity import example

runner = CliRunner()


def test_stocked_out_in_every_zone_tried_is_no_capacity_with_nothing_left_up(tmp_path, monkeypatch):
    world = TrialWorld(tmp_path, monkeypatch, clouds=("aws",), up_errors={
        "trial-aws-us-east-1a": example("aws", "InsufficientInstanceCapacity"),
        "trial-aws-us-east-1b": example("aws", "InsufficientCapacity (Capacity Block)")})
    base = world.project / "stacks" / "Pulumi.aws.yaml"   # the candidate was deployed before
    base.write_text(base.read_text() + "  trainstack:lifetimeStart: '2020-01-01T00:00:00Z'\n"
                    "  trainstack:adopt: '{\"llm-finetune-data\": \"their-bucket\"}'\n")
    args = world.bench_args()
    args[args.index("--max-moves") + 1] = "1"
    priced = []         # the zone of every plan the trial rendered to price an attempt
    real_price = runner_module.price_attempt

    def price_attempt(project_dir, candidate, config, hours, data_gb):
        priced.append(json.loads(config["trainstack:overrides"])["clouds"]["aws"]["zone"])
        return real_price(project_dir, candidate, config, hours, data_gb)
    monkeypatch.setattr(runner_module, "price_attempt", price_attempt)
    rendered = []       # the cloud of every plan the trial rendered, pricing and comparison alike
    real_render = engine.render

    def render(config, *args, **kwargs):
        rendered.append(config["trainstack:cloud"])
        return real_render(config, *args, **kwargs)
    monkeypatch.setattr(engine, "render", render)
    result = runner.invoke(app, ["--project", str(world.project), "trial", "--candidates", "aws",
                                 "--budget-usd", "500", *args])
    assert result.exit_code == 0, result.output
    # Each zone's plan priced once: the up-front price is the first zone's attempt (its config,
    # so its plan, is the same); the zone it moves to is priced from its own plan.
    assert priced == ["us-east-1a", "us-east-1b"]
    # The comparison is over the candidates' clouds: the spec's gcp, alicloud and azure (not
    # candidates) are never rendered (each render is 0.5-3 CPU s).
    assert set(rendered) == {"aws"}, rendered
    assert "trial: aws: moving to us-east-1 us-east-1b" in result.output
    assert "no capacity (InsufficientInstanceCapacity)" in result.output
    assert "no capacity (InsufficientCapacity (Capacity Block))" in result.output
    assert "recommendation: none" in result.output
    assert "passed over aws: no capacity" in result.output
    journal = world.journal()
    assert [e["zone"] for e in journal["events"] if e["event"] == "move"] == ["us-east-1b"]
    assert [e["code"] for e in journal["events"] if e["event"] == "capacity"] == [
        "InsufficientInstanceCapacity", "InsufficientCapacity (Capacity Block)"]
    assert set(world.stacks()) == {"trial-aws-us-east-1a", "trial-aws-us-east-1b"}
    assert world.still_billing() == {}
    # each attempt had its own short declared lifetime in its stack file (2 h: 1.5 h rounded up)
    for zone in ("us-east-1a", "us-east-1b"):
        text = (world.project / "stacks" / f"Pulumi.trial-aws-{zone}.yaml").read_text()
        assert "max_hours: 2.0" in text and f"zone: {zone}" in text
        # its own lifetime counts from its own deploy; the candidate's bucket is not adopted
        assert "lifetimeStart" not in text and "their-bucket" not in text
    calls = [json.loads(line)["args"][:1] for line in open(tmp_path / "pulumi.jsonl")]
    assert calls.count(["up"]) == 4     # each attempt: the up, then the scale-back to 0 nodes


def test_up_scales_back_on_every_recorded_capacity_error():
    """`up` itself (deploy/capacity_guard.py) sizes the group to 0 on each of them, so even the
    attempt the trial is about to destroy holds no node meanwhile."""
    from trainstack.deploy.capacity_guard import is_capacity_failure
    from trainstack.trial.capacity import known_errors
    missed = [f"{e.cloud} {e.code}" for e in known_errors() if not is_capacity_failure(e.example)]
    assert missed == []
