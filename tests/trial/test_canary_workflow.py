"""The canary workflow passes actionlint, runs by hand or on a schedule, reaches each cloud
through OIDC (no keys), runs a one-node trial on the cheapest GPU type with a small budget, and
always runs `trial --resume` after it, so a cut-short trial leaves nothing up."""
import yaml

from tests.repo.test_workflows import ROOT, actionlint

WORKFLOW = ROOT / ".github" / "workflows" / "canary.yml"


def flow():
    return yaml.safe_load(WORKFLOW.read_text())


def test_canary_workflow_passes_actionlint():
    done = actionlint(WORKFLOW)
    assert done.returncode == 0, done.stdout + done.stderr


def test_canary_runs_by_hand_or_on_a_schedule_with_oidc_and_no_keys():
    workflow = flow()
    assert set(workflow[True]) == {"schedule", "workflow_dispatch"}
    assert workflow["permissions"]["id-token"] == "write"
    text = WORKFLOW.read_text()
    for secret_key in ("AWS_SECRET_ACCESS_KEY", "ARM_CLIENT_SECRET", "ALICLOUD_SECRET_KEY"):
        assert secret_key not in text
    job = workflow["jobs"]["canary"]
    assert job["strategy"]["matrix"]["cloud"] == ["aws", "gcp", "azure", "alicloud"]


def test_canary_trial_is_one_node_cheapest_gpu_small_budget_then_always_resumes():
    steps = flow()["jobs"]["canary"]["steps"]
    names = [s.get("name") for s in steps]
    trial = steps[names.index("One-node trial on the cheapest GPU type")]
    run = trial["run"]
    assert "trainstack trial" in run and "--cheapest-gpu" in run and "--nodes 1" in run
    assert '--budget-usd "$BUDGET_USD"' in run
    assert flow()["jobs"]["canary"]["env"]["BUDGET_USD"] == "${{ inputs.budget_usd || '100' }}"
    teardown = steps[names.index("Tear down what a cut-short trial left up")]
    assert teardown["if"].startswith("always()") and "trial --resume" in teardown["run"]
    assert names.index("Tear down what a cut-short trial left up") > names.index(
        "One-node trial on the cheapest GPU type")
    assert trial["timeout-minutes"] + teardown["timeout-minutes"] < flow()["jobs"]["canary"][
        "timeout-minutes"]
