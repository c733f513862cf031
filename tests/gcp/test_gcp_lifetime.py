"""Google Cloud enforces the declared lifetime itself: a Cloud Scheduler job resizes the managed
instance group to 0 at first deploy + lifetime (the group would otherwise recreate every VM that
`max_run_duration` deletes), and the deadline does not move on later `up`s."""
import copy

import pytest

from tests.conftest import edited, plan_for
from trainstack_components import lifetime as neutral
from trainstack_components.gcp import budget_action

JOB = "gcp:cloudscheduler/job:Job"
MIG = "gcp:compute/instanceGroupManager:InstanceGroupManager"
RESIZE = "gcp:compute/resizeRequest:ResizeRequest"
TEMPLATE = "gcp:compute/instanceTemplate:InstanceTemplate"
IAM = "gcp:projects/iAMMember:IAMMember"
ACCOUNT = "gcp:serviceaccount/account:Account"
SERVICE = "gcp:projects/service:Service"
FIRST_DEPLOY = "2026-12-01T08:00:00Z"


@pytest.fixture
def clock(monkeypatch):
    def set_now(text):
        monkeypatch.setattr(neutral, "utc_now", lambda: neutral.parse_iso(text))
    set_now("2026-12-01T09:30:00Z")
    return set_now


def started(spec, start=FIRST_DEPLOY):
    return plan_for(spec, "gcp", extra_config={neutral.LIFETIME_START_KEY: start})


def flex_start(spec):
    spec = copy.deepcopy(spec)
    spec["clouds"]["gcp"]["capacity"] = {"type": "flex_start"}
    return spec


def named(plan, token, part):
    (found,) = [r for r in plan.of_type(token) if part in r.name]
    return found


def test_the_job_resizes_this_group_to_zero_at_first_deploy_plus_lifetime(example_spec, clock):
    plan = started(example_spec)  # examples/cluster.yaml declares 96 hours
    (job,) = plan.of_type(JOB)
    (group,) = plan.of_type(MIG)
    target = job.inputs["httpTarget"]
    assert target["uri"] == (
        "https://compute.googleapis.com/compute/v1/projects/"
        f"{group.inputs['project']}/zones/us-central1-b/instanceGroupManagers/{group.name}"
        "/resize?size=0")
    assert job.property_dependencies["httpTarget"] and \
        group.urn in job.property_dependencies["httpTarget"]
    assert target["httpMethod"] == "POST"
    assert job.inputs["schedule"] == "0 8 5 12 *" and job.inputs["timeZone"] == "Etc/UTC"
    assert job.inputs["region"] == "us-central1" == plan.outputs["region"]
    assert plan.outputs["lifetime_deadline"] == "2026-12-05T08:00:00Z"
    assert plan.outputs["lifetime_start"] == FIRST_DEPLOY
    assert plan.outputs["lifetime_start_source"] == neutral.FROM_CONFIG
    assert plan.outputs["lifetime_expired"] is False


def test_the_job_calls_with_the_token_of_its_own_narrow_account(example_spec, clock):
    plan = started(example_spec)
    (job,) = plan.of_type(JOB)
    account = named(plan, ACCOUNT, "lifetime")
    email = job.inputs["httpTarget"]["oauthToken"]["serviceAccountEmail"]
    assert email == f"{account.inputs['accountId']}@{account.inputs['project']}.iam.gserviceaccount.com"
    assert email != plan.outputs["node_service_account"]
    assert account.urn in job.property_dependencies["httpTarget"]


def test_the_resize_permission_names_this_group_only(example_spec, clock):
    plan = started(example_spec)
    (group,) = plan.of_type(MIG)
    grant = named(plan, IAM, "lifetime")
    assert grant.inputs["role"] == budget_action.RESIZE_ROLE
    assert grant.inputs["condition"]["expression"] == (
        f'resource.name == "projects/{group.inputs["project"]}/zones/us-central1-b/'
        f'instanceGroupManagers/{group.name}"')
    account = named(plan, ACCOUNT, "lifetime")
    assert grant.inputs["member"].startswith("serviceAccount:" + account.inputs["accountId"])
    (job,) = plan.of_type(JOB)
    assert grant.urn in job.dependencies  # the grant exists before the job can fire


def test_the_scheduler_api_is_enabled_before_the_job(example_spec, clock):
    plan = started(example_spec)
    api = [s for s in plan.of_type(SERVICE) if s.inputs["service"] == "cloudscheduler.googleapis.com"]
    assert len(api) == 1 and api[0].inputs["disableOnDestroy"] is False
    assert api[0].urn in plan.of_type(JOB)[0].dependencies


def test_later_plans_keep_the_deadline(example_spec, clock):
    first = started(example_spec).of_type(JOB)[0].inputs["schedule"]
    clock("2026-12-03T17:45:00Z")  # two days later, another `up`
    later = started(example_spec)
    assert later.of_type(JOB)[0].inputs["schedule"] == first
    assert later.outputs["lifetime_deadline"] == "2026-12-05T08:00:00Z"


def test_a_deadline_between_minutes_fires_at_the_next_whole_minute(example_spec, clock):
    plan = started(example_spec, start="2026-12-31T23:59:30Z")
    assert plan.outputs["lifetime_deadline"] == "2027-01-04T23:59:30Z"
    assert plan.of_type(JOB)[0].inputs["schedule"] == "0 0 5 1 *"  # never before the deadline


def test_a_longer_lifetime_counts_from_the_first_deploy(example_spec, clock):
    plan = started(edited(example_spec, max_hours=120, workload__max_hours=None))
    assert plan.of_type(JOB)[0].inputs["schedule"] == "0 8 6 12 *"


def test_after_the_deadline_the_group_is_declared_at_zero_and_no_job_exists(example_spec, clock):
    clock("2026-12-05T08:00:01Z")
    plan = started(example_spec)
    assert plan.of_type(JOB) == []
    assert [a for a in plan.of_type(ACCOUNT) if "lifetime" in a.name] == []
    assert plan.of_type(MIG)[0].inputs["targetSize"] == 0
    assert plan.outputs["lifetime_expired"] is True


def test_before_the_deadline_the_group_has_its_nodes(example_spec, clock):
    assert started(example_spec).of_type(MIG)[0].inputs["targetSize"] == example_spec["nodes"]


def test_flex_start_keeps_its_run_duration_and_gets_the_job_too(example_spec, clock):
    plan = started(flex_start(example_spec))
    assert plan.of_type(TEMPLATE)[0].inputs["scheduling"]["maxRunDuration"] == {
        "seconds": 96 * 3600}
    assert plan.of_type(JOB)[0].inputs["schedule"] == "0 8 5 12 *"
    assert plan.of_type(RESIZE)[0].inputs["resizeBy"] == example_spec["nodes"]


def test_after_the_deadline_flex_start_asks_for_no_nodes(example_spec, clock):
    clock("2026-12-06T00:00:00Z")
    plan = started(flex_start(example_spec))
    assert plan.of_type(RESIZE) == [] and plan.of_type(JOB) == []
    assert plan.of_type(MIG)[0].inputs["targetSize"] == 0


def test_without_a_lifetime_there_is_no_job(example_spec, clock):
    plan = plan_for(edited(example_spec, max_hours=None, workload=None), "gcp")
    assert plan.of_type(JOB) == [] and "lifetime_deadline" not in plan.outputs
    assert [a for a in plan.of_type(ACCOUNT) if "lifetime" in a.name] == []
    assert plan.of_type(MIG)[0].inputs["targetSize"] == example_spec["nodes"]


def test_an_unpersisted_start_uses_the_clock_and_a_plain_up_keeps_it(example_spec, clock):
    plan = plan_for(example_spec, "gcp")
    (job,) = plan.of_type(JOB)
    assert plan.outputs["lifetime_deadline"] == "2026-12-05T09:30:00Z"
    assert plan.outputs["lifetime_start_source"] == neutral.FROM_CLOCK
    assert job.inputs["schedule"] == "30 9 5 12 *"
    assert "schedule" in job.ignore_changes
    assert not started(example_spec).of_type(JOB)[0].ignore_changes


# -- limits and lead time (issue 19) --------------------------------------------------------------

def test_a_lifetime_over_compute_engines_120_day_run_limit_is_refused(example_spec, clock):
    from trainstack_components.errors import SpecError
    with pytest.raises(SpecError) as refused:
        started(edited(example_spec, workload__max_hours=2881))
    assert refused.value.field == "max_hours" and "2880" in str(refused.value)
    assert started(edited(example_spec, workload__max_hours=2880)).of_type(JOB)  # 120 days exactly is fine


def test_a_lifetime_shorter_than_a_deploy_is_refused(example_spec, clock):
    from trainstack_components.errors import SpecError
    with pytest.raises(SpecError, match="below the 1 h minimum.*a deploy takes"):
        started(edited(example_spec, workload__max_hours=0.25))


def test_a_deadline_closer_than_a_deploy_fires_after_it_never_next_year(example_spec, clock):
    # First deploy 08:00 with a 2 h lifetime; this `up` runs at 09:45, 15 min before the
    # deadline. A cron for 10:00 created after 10:00 would fire on 1 Dec NEXT year.
    clock("2026-12-01T09:45:00Z")
    plan = started(edited(example_spec, workload__max_hours=2))
    (job,) = plan.of_type(JOB)
    assert job.inputs["schedule"] == "15 10 1 12 *"   # 09:45 + 30 min lead, this year
    assert "late by 15 min" in plan.outputs["lifetime_enforcement"]


def test_flex_start_cancels_its_waiting_resize_request_at_the_deadline(example_spec, clock):
    plan = started(flex_start(example_spec))
    jobs = {j.name: j for j in plan.of_type(JOB)}
    cancel = jobs["llm-finetune-lifetime-cancel-request"]
    (request,) = plan.of_type(RESIZE)
    assert cancel.inputs["schedule"] == "0 8 5 12 *" == jobs["llm-finetune-lifetime-end"].inputs["schedule"]
    assert cancel.inputs["httpTarget"]["httpMethod"] == "POST"
    assert request.urn in cancel.property_dependencies["httpTarget"]
    assert "cancels the flex-start request" in plan.outputs["lifetime_enforcement"]
    assert [j.name for j in started(example_spec).of_type(JOB)] == ["llm-finetune-lifetime-end"]
