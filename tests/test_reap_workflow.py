"""The hourly reaper workflow passes actionlint and runs `trainstack reap` as documented."""
import yaml

from tests.test_workflows import ROOT, actionlint

WORKFLOW = ROOT / ".github" / "workflows" / "reap.yml"


def test_reap_workflow_passes_actionlint():
    done = actionlint(WORKFLOW)
    assert done.returncode == 0, done.stdout + done.stderr


def test_reap_workflow_runs_hourly_with_the_backend_and_credentials_from_secrets():
    flow = yaml.safe_load(WORKFLOW.read_text())
    triggers = flow[True]  # YAML 1.1 reads the `on:` key as True
    (schedule,) = triggers["schedule"]
    minute, hour, *rest = schedule["cron"].split()
    assert minute.isdigit() and hour == "*" and rest == ["*", "*", "*"]
    job = flow["jobs"]["reap"]
    assert job["env"]["PULUMI_BACKEND_URL"] == "${{ secrets.PULUMI_BACKEND_URL }}"
    assert job["env"]["PULUMI_CONFIG_PASSPHRASE"].startswith("${{ secrets.")
    assert all(v.startswith("${{ secrets.") for v in job["env"].values())
    runs = "\n".join(step.get("run", "") for step in job["steps"])
    assert "trainstack reap" in runs and "--yes" in runs and "--audit-log" in runs
    assert flow["concurrency"]["cancel-in-progress"] is False  # never cut a destroy short
