"""Issue 35, "stops that do not stop", on Google Cloud: a managed instance group (MIG) keeps its
target size, so the instance template's scheduling.maxRunDuration is not a lifetime for the
GROUP (components/gcp/lifetime.py; Google: "When the MIG creates VMs based on the template, the
time limit is applied to each VM", cloud.google.com/compute/docs/instance-groups/
limit-vm-runtime-in-migs). What stops the group is a Cloud Scheduler job that calls the Compute
API's instanceGroupManagers.resize with size=0 on it (trainstack's own, at the deadline), or, for
flex-start, the ResizeRequest's requestedRunDuration ("At the end of the run duration, the MIG
deletes the created VMs", cloud.google.com/compute/docs/instance-groups/about-resize-requests-mig).

Verdicts written before the code, driven over gRPC as `pulumi preview --policy-pack` does.

Prices (policies/catalog_data/prices.csv): a3-ultragpu-8g us-west1 86.7599 USD/h on demand
(flex-start is priced on demand here: never below the truth). A month is 730 h; a lifetime
rounds up to whole hours. Storage (review46's worked figures): Lustre 36,000 GiB x 0.21 =
7,560.00 a month, the bucket fed from it 773.09: 8,333.09 whatever the nodes' lifetime.
  2 nodes x 86.7599 x 730 h = 126,669.45 -> 135,002.54 in all.
  2 nodes x 86.7599 x  96 h =  16,657.90 (97 h: 16,831.42) -> at most 25,164.51.
  2 nodes x 86.7599 x 200 h =  34,703.96 (201 h: 34,877.48) -> 43,037.05 .. 43,210.57.
Every case below budgets 30,000 USD (the fixture's 20,000 is below even the 96 h cluster),
except where it says otherwise.
"""
from __future__ import annotations

from tests.policy_fixtures import by_name, find, gcp_cluster, gcp_stop_job, res
from tests.policy_harness import run

SPEND = "spend-limit"
GCP = {"project": "ml-prod", "region": "us-west1"}
JOB = "cloudscheduler/job:Job"


def _spend(pack, stack):
    found = run(pack, stack, provider=GCP)
    text = " | ".join(f"{d.policy}[{d.level}]: {d.message}" for d in found)
    assert "Traceback" not in text and "internal error" not in text.lower(), text
    ds = [d for d in found if d.policy == SPEND]
    if any(d.level == "mandatory" and "cannot decide" not in d.message for d in ds):
        return "fail", text
    return ("undecided" if ds else "pass"), text


def _cluster(budget="30000", **kw):
    return gcp_cluster(budget_units=budget, **kw)


def _without_job(stack):
    return [r for r in stack if not r.type.endswith(JOB)]


def _with_job(stack, **kw):
    igm = by_name(stack, "nodes")
    return _without_job(stack) + [gcp_stop_job(igm, **kw)]


def test_template_run_duration_alone_is_no_lifetime_for_the_group(pack):
    """The template's maxRunDuration 96 h (DELETE), no job: the group recreates its VMs, so the
    month is priced: 135,002.54 > 30,000: fail, and the estimate says 730 h."""
    verdict, text = _spend(pack, _without_job(_cluster()))
    assert verdict == "fail", text
    assert "730 h" in text, text
    assert "maxRunDuration" not in text.split("lifetime enforced by")[-1] or \
        "lifetime enforced by" not in text, text


def test_template_run_duration_stop_action_alone_is_no_lifetime(pack):
    """The same with instanceTerminationAction STOP: a stopped VM is no running VM of the
    group's target size either: the month: fail."""
    stack = _without_job(_cluster())
    find(stack, "instanceTemplate:InstanceTemplate").props["scheduling"][
        "instanceTerminationAction"] = "STOP"
    verdict, text = _spend(pack, stack)
    assert verdict == "fail", text


def test_trainstack_job_stops_the_group(pack):
    """trainstack's own stack: the job resizes the group to 0 in 96 h: at most 25,164.51 <
    30,000: pass, now because of the job."""
    verdict, text = _spend(pack, _cluster())
    assert verdict == "pass", text


def test_priced_until_the_job_fires_not_the_template(pack):
    """Template 96 h, job at 200 h: priced 200 h (201 at most): 43,037.05 > 30,000: fail; under
    a 50,000 budget: pass. The estimate names the job and not the template's 96 h."""
    verdict, text = _spend(pack, _with_job(_cluster(), hours=200))
    assert verdict == "fail", text
    assert ("200 h" in text or "201 h" in text) and "96 h" not in text, text
    verdict, text = _spend(pack, _with_job(_cluster(budget="50000"), hours=200))
    assert verdict == "pass", text


def test_job_on_another_group_does_not_stop_it(pack):
    """A job resizing ANOTHER group (a literal name, no dependency on this one) to 0: the
    month: fail."""
    verdict, text = _spend(pack, _with_job(_cluster(), group="other-group", depends=False))
    assert verdict == "fail", text


def test_literal_resource_name_against_auto_named_group(pack):
    """The group is auto-named (no `name` input: its cloud name is `nodes` plus a random
    suffix); a job with the literal `nodes` and no dependency names another group: fail."""
    verdict, text = _spend(pack, _with_job(_cluster(), group="nodes", depends=False))
    assert verdict == "fail", text


def test_literal_name_of_an_explicitly_named_group(pack):
    """The group named `train-nodes` explicitly; a job with that literal (no dependency) resizes
    it to 0 at 96 h: pass."""
    stack = _cluster()
    by_name(stack, "nodes").props["name"] = "train-nodes"
    verdict, text = _spend(pack, _with_job(stack, group="train-nodes", depends=False))
    assert verdict == "pass", text


def test_dependency_but_uri_names_another_group(pack):
    """The job depends on the named group `train-nodes` but its URI resizes `other`: no stop."""
    stack = _cluster()
    by_name(stack, "nodes").props["name"] = "train-nodes"
    verdict, text = _spend(pack, _with_job(stack, group="other"))
    assert verdict == "fail", text


def test_job_in_another_zone_does_not_stop_it(pack):
    """The URI's zone is us-east1-b; the group is in us-west1-c: another group: fail."""
    verdict, text = _spend(pack, _with_job(_cluster(), zone="us-east1-b"))
    assert verdict == "fail", text


def test_cron_that_cannot_be_dated(pack):
    """A cron the pack cannot turn into a date (February 31st never comes; a text that is no
    cron) stops nothing it can price: fail."""
    for cron in ("0 0 31 2 *", "at the deadline"):
        stack = _cluster()
        find(stack, JOB).props["schedule"] = cron
        verdict, text = _spend(pack, stack)
        assert verdict == "fail", (cron, text)


def test_unknown_time_zone(pack):
    """A timeZone that is no IANA zone: the time cannot be told: fail."""
    stack = _cluster()
    find(stack, JOB).props["timeZone"] = "Mars/Olympus"
    verdict, text = _spend(pack, stack)
    assert verdict == "fail", text


def test_paused_job(pack):
    """paused: true: Cloud Scheduler runs nothing: fail."""
    stack = _cluster()
    find(stack, JOB).props["paused"] = True
    verdict, text = _spend(pack, stack)
    assert verdict == "fail", text


def test_resize_to_another_size(pack):
    """A job that resizes the group to 3 (or 1) leaves nodes running: fail."""
    for size in (3, 1):
        verdict, text = _spend(pack, _with_job(_cluster(), size=size))
        assert verdict == "fail", (size, text)


def test_job_that_is_no_compute_call(pack):
    """A GET of the resize URL changes nothing, and a POST without an OAuth token is refused
    by the Compute API (it takes OAuth access tokens): fail."""
    stack = _cluster()
    find(stack, JOB).props["httpTarget"]["httpMethod"] = "GET"
    verdict, text = _spend(pack, stack)
    assert verdict == "fail", text
    stack = _cluster()
    del find(stack, JOB).props["httpTarget"]["oauthToken"]
    verdict, text = _spend(pack, stack)
    assert verdict == "fail", text


def test_second_job_resizing_it_up_again(pack):
    """A second job that resizes the group to 2 (a cron of every day at 08:00) starts it again
    after the stop: no lifetime: fail."""
    stack = _cluster()
    up = gcp_stop_job(by_name(stack, "nodes"), size=2, name="nodes-start")
    up.props["schedule"] = "0 8 * * *"
    verdict, text = _spend(pack, stack + [up])
    assert verdict == "fail", text


def test_autoscaler_on_the_group(pack):
    """An autoscaler on the group sets its size again after the resize to 0 (min 2): fail."""
    stack = _cluster()
    igm = by_name(stack, "nodes")
    scaler = res("gcp:compute/autoscaler:Autoscaler", "scaler",
                 {"zone": "us-west1-c", "autoscalingPolicy": {"minReplicas": 2.0,
                                                              "maxReplicas": 2.0}},
                 deps={"target": [igm]})
    verdict, text = _spend(pack, stack + [scaler])
    assert verdict == "fail", text


def _flex(run_seconds):
    stack = _without_job(_cluster())
    template = find(stack, "instanceTemplate:InstanceTemplate")
    template.props["scheduling"] = {"provisioningModel": "FLEX_START",
                                    "instanceTerminationAction": "DELETE"}
    igm = by_name(stack, "nodes")
    igm.props["targetSize"] = 0.0
    props = {"zone": "us-west1-c", "resizeBy": 2.0, "instanceGroupManager": "nodes-1a2b3c4"}
    if run_seconds is not None:
        props["requestedRunDuration"] = {"seconds": str(run_seconds)}
    rr = res("gcp:compute/resizeRequest:ResizeRequest", "request", props,
             deps={"instanceGroupManager": [igm]})
    return stack + [rr]


def test_flex_start_request_run_duration(pack):
    """Flex-start: target size 0, a ResizeRequest of 2 VMs for 96 h (345,600 s), which Compute
    Engine deletes at its end and does not recreate: 96 h: 25,164.51 at most < 30,000: pass."""
    verdict, text = _spend(pack, _flex(345600))
    assert verdict == "pass", text


def test_flex_start_request_without_run_duration(pack):
    """A ResizeRequest without requestedRunDuration (its VMs run until deleted): the month:
    fail."""
    verdict, text = _spend(pack, _flex(None))
    assert verdict == "fail", text


def test_standalone_vm_keeps_its_own_run_duration(pack):
    """A single VM (compute.Instance) is no group: its maxRunDuration 96 h DELETE deletes it
    for good (cloud.google.com/compute/docs/instances/limit-vm-runtime): 2 VMs x 96 h:
    pass."""
    stack = _without_job(_cluster())
    template = find(stack, "instanceTemplate:InstanceTemplate")
    igm = by_name(stack, "nodes")
    stack = [r for r in stack if r is not igm]
    for i in range(2):
        vm = res("gcp:compute/instance:Instance", f"vm{i}",
                 {"zone": "us-west1-c", "machineType": "a3-ultragpu-8g",
                  "networkInterfaces": template.props["networkInterfaces"],
                  "labels": template.props["labels"],
                  "scheduling": dict(template.props["scheduling"]),
                  "metadata": template.props["metadata"],
                  "resourcePolicies": ["placement-id"]},
                 deps={"metadata": template.deps["metadata"],
                       "resourcePolicies": template.deps["resourcePolicies"]})
        stack.append(vm)
    verdict, text = _spend(pack, stack)
    assert verdict == "pass", text


def test_flex_start_run_duration_from_the_template(pack):
    """trainstack's flex-start: the request sets no requestedRunDuration and the FLEX_START
    template carries maxRunDuration 96 h (components/gcp/cluster.py): Flex-start VMs are deleted
    at the end of their run duration ("Compute Engine deletes the Flex-start VMs at the end of
    their run duration", about-resize-requests-mig): 96 h: pass."""
    stack = _flex(None)
    find(stack, "instanceTemplate:InstanceTemplate").props["scheduling"]["maxRunDuration"] = {
        "seconds": 345600.0}
    verdict, text = _spend(pack, stack)
    assert verdict == "pass", text


def test_standard_template_run_duration_with_a_resize_request(pack):
    """The same with a STANDARD (not flex-start) template: its maxRunDuration is the group's
    template limit, no lifetime for the group: the month: fail."""
    stack = _flex(None)
    find(stack, "instanceTemplate:InstanceTemplate").props["scheduling"] = {
        "provisioningModel": "STANDARD", "instanceTerminationAction": "DELETE",
        "maxRunDuration": {"seconds": 345600.0}}
    verdict, text = _spend(pack, stack)
    assert verdict == "fail", text
