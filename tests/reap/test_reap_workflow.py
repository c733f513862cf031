"""The hourly reaper workflow passes actionlint, reaches every cloud through OIDC with its CLI
logged in, and cannot turn a failing or hanging reaper into a green step."""
import subprocess

import yaml

from tests.repo.test_workflows import ROOT, actionlint

WORKFLOW = ROOT / ".github" / "workflows" / "reap.yml"


def flow():
    return yaml.safe_load(WORKFLOW.read_text())


def steps():
    return flow()["jobs"]["reap"]["steps"]


def reap_step():
    (step,) = [s for s in steps() if "trainstack reap" in s.get("run", "")]
    return step


def test_reap_workflow_passes_actionlint():
    done = actionlint(WORKFLOW)
    assert done.returncode == 0, done.stdout + done.stderr


def test_reap_workflow_runs_hourly_with_the_backend_from_secrets():
    triggers = flow()[True]  # YAML 1.1 reads the `on:` key as True
    (schedule,) = triggers["schedule"]
    minute, hour, *rest = schedule["cron"].split()
    assert minute.isdigit() and hour == "*" and rest == ["*", "*", "*"]
    job = flow()["jobs"]["reap"]
    assert job["env"]["PULUMI_BACKEND_URL"] == "${{ secrets.PULUMI_BACKEND_URL }}"
    assert job["env"]["PULUMI_CONFIG_PASSPHRASE"].startswith("${{ secrets.")
    run = reap_step()["run"]
    assert "trainstack reap" in run and "--yes" in run and "--audit-log" in run
    assert flow()["concurrency"]["cancel-in-progress"] is False  # never cut a destroy short


def test_every_cloud_is_reached_through_oidc_with_no_long_lived_keys():
    assert flow()["permissions"]["id-token"] == "write"
    uses = {s.get("uses", "").split("@")[0] for s in steps()}
    assert {"aws-actions/configure-aws-credentials", "google-github-actions/auth",
            "google-github-actions/setup-gcloud", "azure/login"} <= uses
    text = WORKFLOW.read_text()
    for key in ("AWS_SECRET_ACCESS_KEY", "GOOGLE_CREDENTIALS", "ARM_CLIENT_SECRET",
                "ALICLOUD_SECRET_KEY", "AZURE_STORAGE_CONNECTION_STRING"):
        assert f"secrets.{key}" not in text, key
    runs = "\n".join(s.get("run", "") for s in steps())
    assert "az extension add --name amlfs" in runs            # the archive guard's CLI
    assert "AssumeRoleWithOIDC" in runs and "aliyun" in runs  # Alibaba: CLI + STS keys


def test_each_stack_runs_under_a_time_limit_and_failures_fail_the_step():
    run = reap_step()["run"]
    assert run.lstrip().startswith("set -euo pipefail")
    assert 'timeout --kill-after=120 "$STACK_TIME_LIMIT"' in run and "--stack" in run
    assert "tee" in run and 'exit "$failed"' in run


def _run_step(tmp_path, reaper_body: str, timeout_value: str = "5s"):
    """The step's script with a stand-in reaper and pulumi, as the runner runs it (bash -e)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "pulumi").write_text('#!/bin/bash\necho \'[{"name": "a"}, {"name": "b"}]\'\n')
    venv = tmp_path / ".venv" / "bin"
    venv.mkdir(parents=True)
    (venv / "trainstack").write_text("#!/bin/bash\n" + reaper_body)
    for path in (bin_dir / "pulumi", venv / "trainstack"):
        path.chmod(0o755)
    script = reap_step()["run"]
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "DRY_RUN": "false", "STACK_TIME_LIMIT": timeout_value,
           "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md")}
    return subprocess.run(["bash", "-e", "-c", script], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=60)


def test_a_failing_reaper_fails_the_step_through_the_tee(tmp_path):
    done = _run_step(tmp_path, 'echo "$4: report"; [ "$4" != a ] || exit 1\n')
    assert done.returncode == 1 and "reaper failed or timed out for a" in done.stdout
    assert "b: report" in (tmp_path / "summary.md").read_text()  # the next stack still ran


def test_a_hanging_reaper_is_cut_at_the_stack_time_limit(tmp_path):
    done = _run_step(tmp_path, "exec sleep 600\n", timeout_value="1s")
    assert done.returncode == 1 and done.stdout.count("reaper failed or timed out") == 2
