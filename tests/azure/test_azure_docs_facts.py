"""docs/azure.md states what the plan does (issue 31): each fact the review found wrong is read
from the doc and checked against the example's plan, so the doc cannot drift again."""
import re

import yaml

from tests.conftest import EXAMPLE, ROOT, plan_for

DOC = (ROOT / "docs" / "azure.md").read_text()
AUTOSCALE = "azure-native:monitor:AutoscaleSetting"
ROLE = "azure-native:authorization:RoleAssignment"


def _plan():
    return plan_for(yaml.safe_load(EXAMPLE.read_text()), "azure")


def _lifetime_rows() -> dict[str, tuple[str, str, str]]:
    """profile name -> (min, max, default) from the doc's lifetime table."""
    rows = {}
    for line in DOC.splitlines():
        match = re.match(r"\| `([a-z-]+)` \((default|fixed date)[^|]*\| (\S+) / (\S+) / (\S+) \|",
                         line)
        if match:
            rows[match.group(1)] = (match.group(2), *match.group(3, 4, 5))
    return rows


def test_the_lifetime_table_is_the_plans_autoscale_profiles():
    plan = _plan()
    (setting,) = plan.of_type(AUTOSCALE)
    nodes = str(plan.inputs.spec.nodes)
    planned = {}
    for profile in setting.inputs["profiles"]:
        cap = profile["capacity"]
        kind = "fixed date" if profile.get("fixedDate") else "default"
        planned[profile["name"]] = (kind, cap["minimum"], cap["maximum"], cap["default"])
    documented = {name: (kind, lo, nodes if hi == "nodes" else hi, d)
                  for name, (kind, lo, hi, d) in _lifetime_rows().items()}
    assert documented == planned


def test_the_blob_role_scope_in_the_doc_is_the_plans():
    plan = _plan()
    (grant,) = [r for r in plan.of_type(ROLE) if r.name.endswith("nodes-blob-access")]
    (container,) = plan.of_type("azure-native:storage:BlobContainer")[:1]
    assert container.urn in grant.property_dependencies["scope"]
    identity = DOC[DOC.index("- **Identity**"):DOC.index("- **Parallel filesystem**")]
    assert "scoped to the cluster's blob container" in " ".join(identity.split())
    assert "scoped to the cluster's storage account" not in " ".join(identity.split())


def test_the_doc_says_the_idle_agent_runs_where_the_plan_boots_it():
    assert "idle: " in _plan().outputs["node_boot"]
    assert "not wired" not in DOC
    assert "`idle` boot step" in " ".join(DOC.split())


def test_the_boot_steps_the_doc_lists_are_the_plans_in_order():
    """The doc's step list is the plan's `node_boot` outline ("name: what; name: what; ...")."""
    paragraph = " ".join(DOC[DOC.index("## Boot: the shared steps"):].split("\n\n")[1].split())
    # The list is an inline fact (tools/deploy_docs.py writes it from the plan; gen_docs --check
    # holds it): read between its markers.
    listed = re.search(r"in this order \(output `node_boot`\): "
                       r"<!-- fact:azure-boot-steps -->([^<]+)<!-- /fact -->", paragraph).group(1)
    planned = [entry.split(":", 1)[0] for entry in _plan().outputs["node_boot"].split("; ")
               if ":" in entry]
    assert [name.strip() for name in listed.split(",")] == planned
