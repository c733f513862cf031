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


def _run_step(tmp_path, reaper_body: str, timeout_value: str = "5s",
              pulumi_body: str = 'echo \'[{"name": "a"}, {"name": "b"}]\'\n'):
    """The step's script with a stand-in reaper and pulumi, as the runner runs it (bash -e)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "pulumi").write_text("#!/bin/bash\n" + pulumi_body)
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


def test_only_this_projects_stacks_are_reaped_on_a_shared_backend(tmp_path):
    """`pulumi stack ls` lists the current project's stacks; `--all` lists every project's on
    the backend, by fully qualified name (Pulumi CLI reference, `pulumi stack ls`: "--all  List
    all stacks instead of just stacks for the current project"). This project's reaper cannot
    select another project's stack (exit 2), so listing them failed the step every hour."""
    done = _run_step(tmp_path, 'case "$4" in */*) echo "no stack named $4" >&2; exit 2;; esac\n'
                               'echo "$4: reaped"\n',
                     pulumi_body='if [[ " $* " == *" --all "* ]]; then\n'
                                 '  echo \'[{"name": "organization/trainstack/aws"}, '
                                 '{"name": "organization/other-team/prod"}]\'\n'
                                 'else echo \'[{"name": "aws"}]\'; fi\n')
    assert done.returncode == 0, done.stdout + done.stderr
    assert "aws: reaped" in done.stdout and "other-team" not in done.stdout + done.stderr


def test_a_failing_reaper_fails_the_step_through_the_tee(tmp_path):
    done = _run_step(tmp_path, 'echo "$4: report"; [ "$4" != a ] || exit 1\n')
    assert done.returncode == 1 and "reaper failed or timed out for a" in done.stdout
    assert "b: report" in (tmp_path / "summary.md").read_text()  # the next stack still ran


def test_a_hanging_reaper_is_cut_at_the_stack_time_limit(tmp_path):
    done = _run_step(tmp_path, "exec sleep 600\n", timeout_value="1s")
    assert done.returncode == 1 and done.stdout.count("reaper failed or timed out") == 2


# -- issue 34 -------------------------------------------------------------------------------

def _minutes(value: str) -> float:
    number, unit = float(value[:-1]), value[-1]
    return number * {"s": 1 / 60, "m": 1, "h": 60}[unit]


def test_the_per_stack_limit_holds_an_export_and_a_scale_down_and_stays_under_the_lease():
    from trainstack.reap.cloud import EXPORT_TIMEOUT_S
    from trainstack.reap.store import LEASE
    job = flow()["jobs"]["reap"]
    limit = _minutes(job["env"]["STACK_TIME_LIMIT"])
    azure_scale_down = 1800 / 60          # AzureScaleSet.scale's own timeout
    assert limit > EXPORT_TIMEOUT_S / 60 + azure_scale_down
    assert limit + 2 < LEASE.total_seconds() / 60      # + timeout's --kill-after=120
    # GitHub-hosted jobs end at 360 min (Actions "Usage limits"); the job's own limit is below.
    assert limit < job["timeout-minutes"] <= 360


# The longest session each cloud gives by default, from its docs (cited in reap.yml too):
DEFAULT_SESSION_MAXIMUM_S = {
    # IAM role MaxSessionDuration: "the default value of one hour", settable 1 to 12 hours:
    # https://docs.aws.amazon.com/sdk-for-kotlin/api/latest/iam/aws.sdk.kotlin.services.iam.model/-create-role-request/max-session-duration.html
    "aws": 3600,
    # STS AssumeRoleWithOIDC DurationSeconds: 900 to the role's MaxSessionDuration, default 3600:
    # https://help.aliyun.com/en/ram/developer-reference/api-sts-2015-04-01-assumerolewithoidc
    "alibaba": 3600,
    # generateAccessToken lifetime: "By default, the maximum allowed value is 1 hour" (12 h
    # with constraints/iam.allowServiceAccountCredentialLifetimeExtension):
    # https://cloud.google.com/iam/credentials/reference/rest/v1/projects.serviceAccounts/generateAccessToken
    "gcp": 3600,
    # azure/login README: a service principal's access token from an OIDC login "is expected
    # to have an expiration of 1 hour by default".
    "azure": 3600,
}


def test_sessions_stay_within_the_roles_default_maximum_and_refresh():
    """No login asks for more than the cloud's default maximum (a longer request fails the
    login), and the reap step, which may run 230 min, refreshes every credential before it
    lapses."""
    import re
    (aws,) = [s for s in steps() if s.get("uses", "").startswith("aws-actions/")]
    assert int(aws["with"]["role-duration-seconds"]) <= DEFAULT_SESSION_MAXIMUM_S["aws"]
    text = WORKFLOW.read_text()
    asked = [int(n) for n in re.findall(r"--DurationSeconds (\d+)", text)]
    assert asked and max(asked) <= DEFAULT_SESSION_MAXIMUM_S["alibaba"]
    (gcp,) = [s for s in steps() if s.get("uses", "").startswith("google-github-actions/auth")]
    # No generated access token (it would not refresh); if one is asked for, within 1 h.
    assert "token_format" not in gcp["with"]
    lifetime = str(gcp["with"].get("access_token_lifetime", "0s")).rstrip("s")
    assert int(lifetime) <= DEFAULT_SESSION_MAXIMUM_S["gcp"]
    run = reap_step()["run"]
    for variable in ("AWS_WEB_IDENTITY_TOKEN_FILE", "AZURE_FEDERATED_TOKEN_FILE",
                     "ALIBABA_CLOUD_OIDC_TOKEN_FILE", "az login --service-principal"):
        assert variable in run
    # The OSS keys (ossfs signs with STS keys, not the token file) are renewed into the file the
    # reaper reads for each request, every N rounds, as `az` is logged in again.
    (alibaba,) = [s for s in steps() if "aliyun-cli" in s.get("run", "")]
    assert "TRAINSTACK_OSS_STS_FILE=" in alibaba["run"]
    assert "AssumeRoleWithOIDC" in run and '> "$TRAINSTACK_OSS_STS_FILE.new"' in run
    # `az` is logged in again every N rounds of the refresh loop: sooner than its token lapses.
    (sleep,) = [int(n) for n in re.findall(r"sleep (\d+)\s+done", run)]
    (rounds,) = set(int(n) for n in re.findall(r"round % (\d+)\)\)", run))
    assert sleep * rounds < min(DEFAULT_SESSION_MAXIMUM_S["azure"], DEFAULT_SESSION_MAXIMUM_S["alibaba"])


def test_the_install_honours_the_constraints_and_the_alibaba_cli_is_pinned_by_checksum():
    (install,) = [s for s in steps() if "-e '.[reap]'" in s.get("run", "")]
    assert "-c constraints.txt" in install["run"]
    (alibaba,) = [s for s in steps() if "aliyun-cli" in s.get("run", "")]
    assert "latest" not in alibaba["run"] and "$ALIYUN_CLI_VERSION" in alibaba["run"]
    assert "sha256sum -c" in alibaba["run"] and "vars.ALIYUN_CLI_SHA256" in str(alibaba["env"])


def test_a_reaper_outliving_the_per_stack_limit_gets_term_first_and_the_step_fails(tmp_path):
    """The stand-in does what the reaper does on TERM (gives its lease back, exits 1)."""
    body = ('trap \'echo "$4" >> released; exit 1\' TERM\n'
            'sleep 600 & wait\n')
    done = _run_step(tmp_path, body, timeout_value="2s")
    assert done.returncode == 1 and done.stdout.count("reaper failed or timed out") == 2
    assert (tmp_path / "released").read_text().split() == ["a", "b"]
