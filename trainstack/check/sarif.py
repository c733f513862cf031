"""`trainstack check --format sarif`: the verdicts as SARIF 2.1.0, for GitHub code scanning.

One run per check, one rule per policy (id = the policy name, help = its remediation steps,
helpUri = its section of docs/policies.md, GitHub's `security-severity` from its severity),
one result per violation: level `error` for a mandatory policy, `warning` for an advisory one,
`note` for a policy that cannot decide until apply. A result's physical location is the file
the plan came from (the stack file or the spec), relative to the repository root when it lies
inside it; its logical location is the resource's URN. The run's properties carry the stack,
the cloud, whether it blocks, and the spend estimate (the workflow's cost line reads them).

Where a result points: the line of the spec field that fixes it (FIX_FIELDS: spend-limit at
budget.monthly_usd, storage-same-zone at location, ...), in the first of the given sources that
sets it (a stack file's overrides, then the spec it names), so the pull-request annotation
sits where the change belongs. URIs are relative to the repository root; a spec outside it is
relative to its own directory, named by the uriBaseId SPECDIR. Every exemption is a result with
a SARIF suppression (its justification says how it is exempt). helpUri comes from the given
docs URL (`trainstack check --docs-url`, or TRAINSTACK_DOCS_URL), else the pack's own.
"""
from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any, Optional, Sequence

import yaml

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
# GitHub code scanning ranks security alerts by this number (0.1-10): low/medium/high/critical.
SECURITY_SEVERITY = {"low": "3.0", "medium": "5.5", "high": "7.5", "critical": "9.5"}
LEVEL = {"mandatory": "error", "remediate": "error", "advisory": "warning"}


# The spec field whose change clears each policy's findings (first found wins).
FIX_FIELDS = {
    "spend-limit": ("budget.monthly_usd", "budget", "workload.max_hours", "nodes"),
    "storage-same-zone": ("location.zone", "location", "clouds"),
    "required-tags": ("tags",),
    "rdma-for-multinode": ("interconnect",),
    "no-public-ingress": ("access.ssh_cidrs", "access"),
    "encryption-at-rest": ("bucket", "filesystem"),
    "bucket-retained": ("bucket.retain_on_destroy", "bucket"),
}


def artifact_location(path: Path, root: Path) -> dict:
    """A repo-relative artifact location; outside the repo, relative to SPECDIR."""
    path = path.resolve()
    try:
        return {"uri": path.relative_to(root.resolve()).as_posix()}
    except ValueError:
        return {"uri": path.name, "uriBaseId": "SPECDIR"}


def artifact_uri(path: Path, root: Path) -> str:
    return artifact_location(path, root)["uri"]


def field_line(text: str, dotted: str) -> Optional[int]:
    """The 1-based line of the mapping key path `dotted` anywhere in a YAML document (a spec
    at top level, or nested under a stack file's overrides), or None."""
    try:
        node = yaml.compose(text)
    except yaml.YAMLError:
        return None
    want = dotted.split(".")

    def walk(n: Any, path: list[str]) -> Optional[int]:
        if isinstance(n, yaml.MappingNode):
            for key, value in n.value:
                here = path + [str(key.value)]
                if here[-len(want):] == want:
                    return key.start_mark.line + 1
                found = walk(value, here)
                if found:
                    return found
        elif isinstance(n, yaml.SequenceNode):
            for item in n.value:
                found = walk(item, path)
                if found:
                    return found
        return None
    return walk(node, []) if node is not None else None


def fix_location(policy: str, sources: Sequence[Path]) -> tuple[Path, int]:
    """(file, line) of the field that fixes `policy`'s findings, in the first source setting
    it; the first source's line 1 when none does."""
    texts = []
    for source in sources:
        try:
            texts.append((source, source.read_text(encoding="utf-8")))
        except (OSError, UnicodeDecodeError):
            continue
    for field in FIX_FIELDS.get(policy, ()):
        for source, text in texts:
            line = field_line(text, field)
            if line:
                return source, line
    return sources[0], 1


def _rule(rule: Any, docs_url: Optional[str] = None) -> dict:
    return {
        "id": rule.name,
        "name": "".join(part.capitalize() for part in rule.name.split("-")),
        "shortDescription": {"text": rule.description},
        "fullDescription": {"text": f"{rule.description} Scope: {rule.scope}"},
        "help": {"text": rule.remediation, "markdown": f"{rule.remediation}\n\n"
                                                        f"[Documentation]({rule.url})"},
        "helpUri": f"{docs_url}#{rule.name}" if docs_url else rule.url,
        "defaultConfiguration": {"level": LEVEL.get(rule.enforcement_level, "none")},
        # GitHub shows security-severity only for rules tagged "security".
        "properties": {"tags": ["security", "trainstack", "pulumi", "policy"],
                       "severity": rule.severity,
                       "security-severity": SECURITY_SEVERITY[rule.severity],
                       "enforcementLevel": rule.enforcement_level},
    }


def _location(artifact: dict, urn: str, resource: str, line: int = 1) -> dict:
    location: dict[str, Any] = {"physicalLocation": {"artifactLocation": dict(artifact),
                                                     "region": {"startLine": line}}}
    if urn:
        location["logicalLocations"] = [{"name": resource.split(" (")[0],
                                         "fullyQualifiedName": urn, "kind": "resource"}]
    return location


def _fingerprint(*parts: str) -> str:
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:32]


def render(plan: Any, verdicts: list, source: Path, root: Path,
           version: Optional[str] = None, sources: Sequence[Path] = (),
           docs_url: Optional[str] = None) -> dict:
    from trainstack_policies.rules import BY_NAME, DOCS_URL
    from trainstack_policies.runner import blocking
    sources = list(sources) or [source]
    artifacts: dict[str, dict] = {}

    def where(policy: str) -> tuple[dict, int]:
        path, line = fix_location(policy, sources)
        artifact = artifact_location(path, root)
        artifacts.setdefault(artifact["uri"], artifact)
        return artifact, line

    names = [v.policy for v in verdicts]
    results = []
    spec_dirs = {str(p.resolve().parent) for p in sources
                 if artifact_location(p, root).get("uriBaseId") == "SPECDIR"}
    for v in verdicts:
        index = names.index(v.policy)
        artifact, line = where(v.policy)
        for x in v.violations:
            results.append({
                "ruleId": v.policy, "ruleIndex": index,
                "level": LEVEL.get(v.enforcement_level, "none"),
                "message": {"text": x.message},
                "locations": [_location(artifact, x.urn, x.resource, line)],
                "partialFingerprints": {"trainstackFinding/v1": _fingerprint(
                    plan.stack, v.policy, x.urn, x.problem)},
            })
        if v.unknown:
            results.append({"ruleId": v.policy, "ruleIndex": index, "level": "note",
                            "message": {"text": v.unknown},
                            "locations": [_location(artifact, "", "", line)],
                            "partialFingerprints": {"trainstackFinding/v1": _fingerprint(
                                plan.stack, v.policy, "unknown")}})
        for e in getattr(v, "exemptions", []):
            results.append({
                "ruleId": v.policy, "ruleIndex": index, "level": "note",
                "message": {"text": e.message},
                "locations": [_location(artifact, e.urn, f"{e.name} ({e.type})", line)],
                "suppressions": [{"kind": "external", "status": "accepted",
                                  "justification": f"exempt by {e.how}"}],
                "partialFingerprints": {"trainstackFinding/v1": _fingerprint(
                    plan.stack, v.policy, e.urn, "exempt")}})
    spend = next((v for v in verdicts if v.policy == "spend-limit"), None)
    driver: dict[str, Any] = {"name": "trainstack-guardrails",
                              "informationUri": docs_url or DOCS_URL,
                              "rules": [_rule(BY_NAME[n], docs_url) for n in names]}
    if version:
        driver["version"] = version
    for source in sources:
        artifact = artifact_location(source, root)
        artifacts.setdefault(artifact["uri"], artifact)
    base_ids = {"SRCROOT": {"uri": root.resolve().as_uri() + "/"}}
    if spec_dirs:
        base_ids["SPECDIR"] = {"uri": Path(sorted(spec_dirs)[0]).as_uri() + "/"}
    return {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": driver},
            "automationDetails": {"id": f"trainstack-check/{plan.stack}/"},
            "originalUriBaseIds": base_ids,
            "artifacts": [{"location": a, "roles": ["analysisTarget"]}
                          for a in artifacts.values()],
            "results": results,
            "properties": {"stack": plan.stack, "cloud": plan.cloud,
                           "blocking": blocking(verdicts),
                           "estimate": spend.note if spend else "",
                           "resources": len(plan.resources)},
        }],
    }
