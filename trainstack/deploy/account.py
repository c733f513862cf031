"""What a cloud account needs before a first real deploy, and the checks that ask the cloud.

`needs(cloud, ...)` is data (the plan lists it offline); `check_account(cloud, ...)` runs each
need's read-only CLI query (aws, gcloud, az, aliyun) and returns what is missing, one line each.
Without the CLI or its credentials it fails with one line naming what it could not reach.

Sources:
- Azure: `securityProfile.securityType: Standard` needs the subscription feature
  Microsoft.Compute/UseStandardSecurityType registered (Compute REST API, SecurityTypes; the
  scale set is refused otherwise); the plan creates role assignments, which takes Owner or User
  Access Administrator (learn.microsoft.com role-based-access-control/role-assignments-steps,
  "Microsoft.Authorization/roleAssignments/write"); the role-propagation wait runs a container
  instance (Microsoft.ContainerInstance); every resource type's provider must be registered
  (azure-resource-manager/management/resource-providers-and-types).
- Google Cloud: the plan enables the APIs its resources call; Service Usage (which enables them)
  and Cloud Resource Manager (project IAM) must already be on; the deploying account creates
  service accounts (the nodes', the budget-stop build account) and grants them roles.
- AWS: Service Quotas, EC2 "Running On-Demand P instances" (quota code L-417A185B) and "All P
  Spot Instance Requests" (L-7212CCBC), counted in vCPUs (EC2 User Guide, "On-Demand Instance
  quotas").
"""
from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass, field
from typing import Callable, Optional, Sequence

from trainstack_components.errors import SpecError

AZURE_FEATURE = ("Microsoft.Compute", "UseStandardSecurityType")
AZURE_PROVIDERS = ("Microsoft.Compute", "Microsoft.Network", "Microsoft.Storage",
                   "Microsoft.StorageCache", "Microsoft.ManagedIdentity",
                   "Microsoft.ContainerInstance", "Microsoft.Consumption", "Microsoft.Insights")
AZURE_ROLES = ("Owner", "User Access Administrator")
# The plan enables the APIs its resources call (gcp.projects.Service, components/gcp); what it
# cannot enable for itself is the API that enables APIs and the one that sets project IAM.
GCP_APIS = ("serviceusage.googleapis.com", "cloudresourcemanager.googleapis.com")
GCP_DEPLOYER_ROLES = ("roles/owner",)
# EC2 Service Quotas for the P family (vCPUs): on-demand and spot.
AWS_P_QUOTAS = {"on_demand": "L-417A185B", "spot": "L-7212CCBC"}
CLI = {"aws": "aws", "gcp": "gcloud", "azure": "az", "alicloud": "aliyun"}
LOGIN = {"aws": "aws configure / AWS_PROFILE", "gcp": "gcloud auth login",
         "azure": "az login", "alicloud": "aliyun configure"}


@dataclass(frozen=True)
class Need:
    """One thing the account must have: what, why, the read-only query, and the way out."""

    cloud: str
    what: str
    why: str
    argv: tuple[str, ...] = ()
    satisfied: Callable[[str], bool] = field(default=lambda out: bool(out.strip()),
                                              compare=False)
    fix: str = ""


def _is(word: str) -> Callable[[str], bool]:
    return lambda out: out.strip() == word


def _any_of(words: Sequence[str]) -> Callable[[str], bool]:
    return lambda out: any(line.strip() in words for line in out.splitlines())


def _at_least(number: float) -> Callable[[str], bool]:
    def ok(out: str) -> bool:
        try:
            return float(out.strip()) >= number
        except ValueError:
            return False
    return ok


def needs(cloud: str, *, region: str = "", instance_type: str = "", vcpus: int = 0,
          capacity: str = "on_demand", project: str = "", account: str = "") -> list[Need]:
    """What `cloud`'s account needs for this cluster (the plan lists these offline)."""
    if cloud == "azure":
        namespace, feature = AZURE_FEATURE
        out = [Need("azure", f"feature {namespace}/{feature} registered",
                    "the scale set sets securityType Standard (Trusted Launch's Secure Boot "
                    "refuses the Lustre client's module); Azure refuses it without the feature",
                    ("az", "feature", "show", "--namespace", namespace, "--name", feature,
                     "--query", "properties.state", "-o", "tsv"), _is("Registered"),
                    f"az feature register --namespace {namespace} --name {feature} && "
                    f"az provider register -n {namespace}")]
        out += [Need("azure", f"resource provider {p} registered",
                     "the plan creates its resource types"
                     + (" (the role-propagation wait runs a container instance)"
                        if p == "Microsoft.ContainerInstance" else ""),
                     ("az", "provider", "show", "-n", p, "--query", "registrationState",
                      "-o", "tsv"), _is("Registered"), f"az provider register -n {p}")
                for p in AZURE_PROVIDERS]
        out.append(Need("azure", "deploying identity has Owner or User Access Administrator",
                        "the plan creates role assignments (blob data, Reader on the scale set)",
                        ("az", "role", "assignment", "list", "--assignee", account or "<account>",
                         "--all", "--include-inherited", "--query", "[].roleDefinitionName",
                         "-o", "tsv"), _any_of(AZURE_ROLES),
                        "az role assignment create --role 'User Access Administrator' "
                        "--assignee <you> --scope /subscriptions/<subscription>"))
        return out
    if cloud == "gcp":
        flag = ("--project", project) if project else ()
        out = [Need("gcp", f"API {api} enabled", "the plan enables the other APIs and sets "
                    "project IAM through it, so it cannot enable it itself",
                    ("gcloud", "services", "list", "--enabled", *flag,
                     "--filter", f"config.name={api}", "--format", "value(config.name)"),
                    _is(api), f"gcloud services enable {api}" + (f" --project {project}"
                                                                  if project else ""))
               for api in GCP_APIS]
        out.append(Need("gcp", "deploying account may create service accounts and grant roles",
                        "the plan creates the nodes' and the budget-stop build account and "
                        "grants them roles (roles/owner, or IAM admin + service account admin)",
                        ("gcloud", "projects", "get-iam-policy", project or "<project>",
                         "--flatten", "bindings[].members",
                         "--filter", f"bindings.members:{account or '<account>'}",
                         "--format", "value(bindings.role)"),
                        _any_of(("roles/owner", "roles/resourcemanager.projectIamAdmin")),
                        "ask a project owner for roles/owner, or roles/resourcemanager."
                        "projectIamAdmin with roles/iam.serviceAccountAdmin"))
        return out
    if cloud == "aws":
        if not instance_type.startswith("p"):
            return []
        code = AWS_P_QUOTAS["spot" if capacity == "spot" else "on_demand"]
        return [Need("aws", f"EC2 quota {code} (P instances, {capacity}) of at least {vcpus} "
                     f"vCPUs in {region}",
                     f"{vcpus} vCPUs of {instance_type}: the group cannot launch above the quota",
                     ("aws", "service-quotas", "get-service-quota", "--service-code", "ec2",
                      "--quota-code", code, "--region", region, "--query", "Quota.Value",
                      "--output", "text"), _at_least(vcpus),
                     f"aws service-quotas request-service-quota-increase --service-code ec2 "
                     f"--quota-code {code} --desired-value {vcpus} --region {region}")]
    return []


# What a placeholder in a need's query stands for, asked of the CLI once per check.
WHOAMI: dict[str, dict[str, tuple[str, ...]]] = {
    "azure": {"<account>": ("az", "account", "show", "--query", "user.name", "-o", "tsv")},
    "gcp": {"<account>": ("gcloud", "config", "get-value", "account"),
                  "<project>": ("gcloud", "config", "get-value", "project")}}


class AccountUnreachable(SpecError):
    pass


def check_account(cloud: str, wanted: Sequence[Need],
                  run: Optional[Callable[[Sequence[str]], subprocess.CompletedProcess]] = None
                  ) -> list[str]:
    """Ask the cloud about each need; return one line per missing one (empty: all there).
    Raises AccountUnreachable (one line) when the CLI or its credentials are absent."""
    cli = CLI.get(cloud, "")
    if not wanted:
        return []
    if run is None:
        if not shutil.which(cli):
            raise AccountUnreachable(f"bootstrap {cloud}", f"cannot check the account: `{cli}` "
                                     "is not installed.", f"Install it and sign in "
                                     f"({LOGIN[cloud]}), then run this again.")

        def run(argv):
            return subprocess.run(list(argv), capture_output=True, text=True, timeout=120)
    values: dict[str, str] = {}
    missing = []
    for need in wanted:
        argv = list(need.argv)
        for i, arg in enumerate(argv):
            for placeholder, ask in WHOAMI.get(cloud, {}).items():
                if placeholder not in arg:
                    continue
                if placeholder not in values:
                    answer = run(ask)
                    values[placeholder] = answer.stdout.strip() if answer.returncode == 0 else ""
                    if not values[placeholder]:
                        raise AccountUnreachable(
                            f"bootstrap {cloud}", f"cannot check the account: {cli} names no "
                            f"{placeholder.strip('<>')} ({' '.join(ask)}).",
                            f"Sign in ({LOGIN[cloud]}), then run this again.")
                arg = arg.replace(placeholder, values[placeholder])
            argv[i] = arg
        done = run(argv)
        if done.returncode != 0:
            said = (done.stderr or done.stdout).strip().splitlines()
            if _credentials_problem(" ".join(said)):
                raise AccountUnreachable(
                    f"bootstrap {cloud}", f"cannot check the account: {cli} has no credentials "
                    f"({said[-1] if said else 'no answer'}).",
                    f"Sign in ({LOGIN[cloud]}), then run this again.")
            missing.append(f"{need.what}: could not be read ({said[-1] if said else 'no answer'})"
                           f"; {need.fix}")
            continue
        if not need.satisfied(done.stdout):
            missing.append(f"{need.what}: missing ({need.why}); {need.fix}")
    return missing


_CREDENTIAL_WORDS = ("az login", "Please run 'az login'", "Unable to locate credentials",
                     "gcloud auth login", "You do not currently have an active account",
                     "ExpiredToken", "InvalidClientTokenId", "could not find default credentials",
                     "No subscription found")


def _credentials_problem(text: str) -> bool:
    return any(word.lower() in text.lower() for word in _CREDENTIAL_WORDS)


def cluster_needs(cloud: str, spec, selection) -> list[Need]:
    """The needs of the cluster a spec plans (region, instance family and its vCPUs, project)."""
    loc = spec.location(cloud)
    capacity = getattr(getattr(loc, "capacity", None), "type", None) or (
        "spot" if spec.spot else "on_demand")
    return needs(cloud, region=loc.region, instance_type=selection.instance.name,
                 vcpus=selection.instance.vcpus * spec.nodes, capacity=capacity,
                 project=getattr(loc, "project", None) or "")


def needs_lines(wanted: Sequence[Need]) -> list[str]:
    """One line per need, for the plan (offline: nothing is asked)."""
    return [f"{n.what}: {n.why}" for n in wanted]


FIRST_DEPLOY_BEGIN = "<!-- generated: trainstack.deploy.account.first_deploy_block -->"
FIRST_DEPLOY_END = "<!-- end generated -->"


def first_deploy_block(clusters: dict) -> str:
    """docs/first-deploy.md's list: for each cloud's example cluster ({cloud: (spec,
    selection)}), every need, why, and the command that fixes it."""
    lines = []
    for cloud, (spec, selection) in clusters.items():
        wanted = cluster_needs(cloud, spec, selection)
        lines.append(f"### {cloud} (`trainstack bootstrap {cloud}` checks these)")
        lines.append("")
        if not wanted:
            lines.append("- nothing trainstack can check from here")
        for need in wanted:
            lines.append(f"- **{need.what}**: {need.why}. Fix: `{need.fix}`")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"
