"""`trainstack check --format sarif`: the verdicts as SARIF 2.1.0, for GitHub code scanning.

One run per check, one rule per policy (id = the policy name, help = its remediation steps,
helpUri = its section of docs/policies.md, GitHub's `security-severity` from its severity),
one result per violation: level `error` for a mandatory policy, `warning` for an advisory one,
`note` for a policy that cannot decide until apply. A result's physical location is the file
the plan came from (the stack file or the spec), relative to the repository root when it lies
inside it; its logical location is the resource's URN. The run's properties carry the stack,
the cloud, whether it blocks, and the spend estimate (the workflow's cost line reads them).
"""
from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any, Optional

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
# GitHub code scanning ranks security alerts by this number (0.1-10): low/medium/high/critical.
SECURITY_SEVERITY = {"low": "3.0", "medium": "5.5", "high": "7.5", "critical": "9.5"}
LEVEL = {"mandatory": "error", "remediate": "error", "advisory": "warning"}


def artifact_uri(path: Path, root: Path) -> str:
    path = path.resolve()
    try:
        return path.relative_to(root.resolve()).as_posix()
    except ValueError:
        return path.as_uri()


def _rule(rule: Any) -> dict:
    return {
        "id": rule.name,
        "name": "".join(part.capitalize() for part in rule.name.split("-")),
        "shortDescription": {"text": rule.description},
        "fullDescription": {"text": f"{rule.description} Scope: {rule.scope}"},
        "help": {"text": rule.remediation, "markdown": f"{rule.remediation}\n\n"
                                                        f"[Documentation]({rule.url})"},
        "helpUri": rule.url,
        "defaultConfiguration": {"level": LEVEL.get(rule.enforcement_level, "none")},
        "properties": {"tags": ["trainstack", "pulumi", "policy"], "severity": rule.severity,
                       "security-severity": SECURITY_SEVERITY[rule.severity],
                       "enforcementLevel": rule.enforcement_level},
    }


def _location(uri: str, urn: str, resource: str) -> dict:
    location: dict[str, Any] = {"physicalLocation": {"artifactLocation": {"uri": uri},
                                                     "region": {"startLine": 1}}}
    if urn:
        location["logicalLocations"] = [{"name": resource.split(" (")[0],
                                         "fullyQualifiedName": urn, "kind": "resource"}]
    return location


def _fingerprint(*parts: str) -> str:
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:32]


def render(plan: Any, verdicts: list, source: Path, root: Path,
           version: Optional[str] = None) -> dict:
    from policies.rules import BY_NAME, DOCS_URL
    from policies.runner import blocking
    uri = artifact_uri(source, root)
    names = [v.policy for v in verdicts]
    results = []
    for v in verdicts:
        index = names.index(v.policy)
        for x in v.violations:
            results.append({
                "ruleId": v.policy, "ruleIndex": index,
                "level": LEVEL.get(v.enforcement_level, "none"),
                "message": {"text": x.message},
                "locations": [_location(uri, x.urn, x.resource)],
                "partialFingerprints": {"trainstackFinding/v1": _fingerprint(
                    plan.stack, v.policy, x.urn, x.problem)},
            })
        if v.status == "unknown":
            results.append({"ruleId": v.policy, "ruleIndex": index, "level": "note",
                            "message": {"text": v.unknown},
                            "locations": [_location(uri, "", "")],
                            "partialFingerprints": {"trainstackFinding/v1": _fingerprint(
                                plan.stack, v.policy, "unknown")}})
    spend = next((v for v in verdicts if v.policy == "spend-limit"), None)
    driver: dict[str, Any] = {"name": "trainstack-guardrails", "informationUri": DOCS_URL,
                              "rules": [_rule(BY_NAME[n]) for n in names]}
    if version:
        driver["version"] = version
    return {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": driver},
            "automationDetails": {"id": f"trainstack-check/{plan.stack}/"},
            "originalUriBaseIds": {"SRCROOT": {"uri": root.resolve().as_uri() + "/"}},
            "artifacts": [{"location": {"uri": uri}, "roles": ["analysisTarget"]}],
            "results": results,
            "properties": {"stack": plan.stack, "cloud": plan.cloud,
                           "blocking": blocking(verdicts),
                           "estimate": spend.note if spend else "",
                           "resources": len(plan.resources)},
        }],
    }
