"""The nodes' identity and the way in, under the mock engine: exactly the grants issue 9 names,
IMDSv2 with hop limit 2, a dedicated GCP service account, IAP for SSH, the plan saying how."""
from __future__ import annotations

import json

import pytest

from tests.conftest import plan_for
from trainstack_components.gcp.identity import service_account_id

ROLE = "aws:iam/role:Role"
PROFILE = "aws:iam/instanceProfile:InstanceProfile"
ATTACHMENT = "aws:iam/rolePolicyAttachment:RolePolicyAttachment"
INLINE = "aws:iam/rolePolicy:RolePolicy"
LT = "aws:ec2/launchTemplate:LaunchTemplate"
SA = "gcp:serviceaccount/account:Account"
PROJECT_MEMBER = "gcp:projects/iAMMember:IAMMember"
BUCKET_MEMBER = "gcp:storage/bucketIAMMember:BucketIAMMember"
TEMPLATE = "gcp:compute/instanceTemplate:InstanceTemplate"
FIREWALL = "gcp:compute/firewall:Firewall"


def one(plan, token):
    # The budget-stop function and the GCP deadline job have identities of their own
    # (tests/components/test_budget_action.py, tests/gcp/test_gcp_lifetime.py).
    found = [r for r in plan.of_type(token)
             if "budget-stop" not in r.name and "budget-build" not in r.name
             and not r.name.endswith(("-lifetime", "-lifetime-resize"))]
    assert len(found) == 1, [r.name for r in found]
    return found[0]


@pytest.fixture(scope="module")
def aws_plan():
    from tests.boot_helpers import family_plan
    return family_plan("p5")


@pytest.fixture(scope="module")
def gcp_plan():
    from tests.boot_helpers import family_plan
    return family_plan("a3-ultra")


# -- AWS -------------------------------------------------------------------------------------------

def test_aws_role_is_assumed_by_ec2_only(aws_plan):
    policy = json.loads(one(aws_plan, ROLE).inputs["assumeRolePolicy"])
    (statement,) = policy["Statement"]
    assert statement == {"Effect": "Allow", "Principal": {"Service": "ec2.amazonaws.com"},
                         "Action": "sts:AssumeRole"}


def test_aws_role_has_exactly_ssm_and_ecr_read_managed_policies(aws_plan):
    role = one(aws_plan, ROLE)
    attached = aws_plan.of_type(ATTACHMENT)
    assert sorted(a.inputs["policyArn"] for a in attached) == [
        "arn:aws:iam::aws:policy/AmazonEC2ContainerRegistryReadOnly",
        "arn:aws:iam::aws:policy/AmazonSSMManagedInstanceCore"]
    assert all(role.urn in a.property_dependencies["role"] for a in attached)


def test_aws_inline_policy_is_this_bucket_and_rank_discovery_only(aws_plan):
    bucket = one(aws_plan, "aws:s3/bucket:Bucket")
    arn = f"arn:aws:s3:::{bucket.name}"
    inline = one(aws_plan, INLINE)
    assert bucket.urn in inline.property_dependencies["policy"]
    statements = {s["Sid"]: s for s in json.loads(inline.inputs["policy"])["Statement"]}
    assert set(statements) == {"ClusterBucketList", "ClusterBucketObjects", "RankDiscovery"}
    assert statements["ClusterBucketList"]["Resource"] == arn
    assert statements["ClusterBucketObjects"]["Resource"] == f"{arn}/*"
    assert sorted(statements["ClusterBucketObjects"]["Action"]) == sorted([
        "s3:GetObject", "s3:PutObject", "s3:DeleteObject", "s3:AbortMultipartUpload",
        "s3:ListMultipartUploadParts"])
    assert sorted(statements["RankDiscovery"]["Action"]) == [
        "autoscaling:DescribeAutoScalingGroups", "autoscaling:DescribeAutoScalingInstances",
        "ec2:DescribeInstances"]
    assert all(s["Effect"] == "Allow" for s in statements.values())
    assert not any("*" in a for s in statements.values() for a in s["Action"])  # no wildcards


def test_aws_launch_template_uses_the_profile_and_imdsv2_with_hop_limit_2(aws_plan):
    lt, profile = one(aws_plan, LT), one(aws_plan, PROFILE)
    assert lt.inputs["iamInstanceProfile"]["arn"].endswith(f"instance-profile/{profile.name}")
    assert profile.urn in lt.property_dependencies["iamInstanceProfile"]
    assert one(aws_plan, ROLE).name == profile.inputs["role"]
    metadata = lt.inputs["metadataOptions"]
    assert metadata["httpTokens"] == "required"
    assert int(metadata["httpPutResponseHopLimit"]) == 2
    assert metadata["httpEndpoint"] == "enabled"


def test_aws_plan_says_the_way_in_is_session_manager(aws_plan, example_spec):
    assert "Session Manager" in aws_plan.outputs["node_access"]
    assert "access.ssh_cidrs" not in aws_plan.outputs["node_access"]
    example_spec["access"] = {"ssh_cidrs": ["10.8.0.0/16"]}
    plan = plan_for(example_spec, "aws")
    assert "access.ssh_cidrs (10.8.0.0/16)" in plan.outputs["node_access"]
    ssh = [r for r in plan.of_type("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule")
           if r.inputs.get("fromPort") == 22]
    assert [r.inputs["cidrIpv4"] for r in ssh] == ["10.8.0.0/16"]


# -- GCP -------------------------------------------------------------------------------------------

def test_gcp_nodes_run_as_their_own_service_account(gcp_plan):
    sa = one(gcp_plan, SA)
    email = f"{sa.inputs['accountId']}@my-gcp-project.iam.gserviceaccount.com"
    template = one(gcp_plan, TEMPLATE)
    assert template.inputs["serviceAccount"]["email"] == email
    assert sa.urn in template.property_dependencies["serviceAccount"]
    assert "compute@developer" not in json.dumps(template.inputs)
    assert gcp_plan.outputs["node_service_account"] == email


def test_gcp_service_account_has_exactly_the_grants(gcp_plan):
    sa = one(gcp_plan, SA)
    member = f"serviceAccount:{sa.inputs['accountId']}@my-gcp-project.iam.gserviceaccount.com"
    project_roles = sorted((m.inputs["role"], m.inputs["project"]) for m in
                           gcp_plan.of_type(PROJECT_MEMBER) if m.inputs["member"] == member)
    # rank discovery: a custom role of its own, never roles/compute.viewer (issue 20)
    assert project_roles == [("projects/my-gcp-project/roles/trainstack_llm_finetune_test_ranks",
                              "my-gcp-project"),
                             ("roles/logging.logWriter", "my-gcp-project"),
                             ("roles/monitoring.metricWriter", "my-gcp-project")]
    node_grants = [m for m in gcp_plan.of_type(PROJECT_MEMBER)
                   if "budget-stop" not in m.name and "budget-build" not in m.name
                   and not m.name.endswith("-lifetime-resize")]
    assert len(node_grants) == 3  # nothing else at project level for the nodes
    bucket = one(gcp_plan, "gcp:storage/bucket:Bucket")
    mine = [m for m in gcp_plan.of_type(BUCKET_MEMBER) if m.inputs["member"] == member]
    assert [(m.inputs["role"], m.inputs["bucket"]) for m in mine] == [
        ("roles/storage.objectUser", bucket.inputs.get("name") or bucket.name)]


def test_gcp_lustre_service_agent_can_reach_the_bucket(gcp_plan):
    agent = [m for m in gcp_plan.of_type(BUCKET_MEMBER) if "gcp-sa-lustre" in m.inputs["member"]]
    assert [m.inputs["member"] for m in agent] == [
        "serviceAccount:service-000000000000@gcp-sa-lustre.iam.gserviceaccount.com"]
    identity = one(gcp_plan, "gcp:projects/serviceIdentity:ServiceIdentity")
    assert identity.inputs["service"] == "lustre.googleapis.com"
    assert identity.urn in agent[0].dependencies


def test_gcp_iap_firewall_opens_port_22_from_the_iap_range_only(gcp_plan):
    iap = [f for f in gcp_plan.of_type(FIREWALL) if f.name.endswith("-iap-ssh")]
    assert len(iap) == 1
    rule = iap[0].inputs
    assert rule["sourceRanges"] == ["35.235.240.0/20"]
    assert rule["allows"] == [{"protocol": "tcp", "ports": ["22"]}]
    assert rule["direction"] == "INGRESS"
    (host,) = [n for n in gcp_plan.of_type("gcp:compute/network:Network")
               if n.name == "llm-finetune-vpc"]  # the host VPC, where the nodes' first NIC is
    assert iap[0].property_dependencies["network"] == [host.urn]
    # No other rule admits traffic from outside the cluster's own ranges.
    outside = [f.name for f in gcp_plan.of_type(FIREWALL)
               if not f.name.endswith("-iap-ssh")
               and any(not r.startswith("10.") for r in f.inputs["sourceRanges"])]
    assert outside == []


def test_gcp_os_login_and_the_plan_says_iap(gcp_plan):
    metadata = one(gcp_plan, TEMPLATE).inputs["metadata"]
    assert metadata["enable-oslogin"] == "TRUE"
    assert metadata["user-data"].startswith("#cloud-config\n")
    assert "IAP TCP forwarding with OS Login" in gcp_plan.outputs["node_access"]


@pytest.mark.parametrize("name, stack", [("llm-finetune", "gcp"), ("abc", "x"),
                                         ("a-very-long-cluster-name-here", "production-eu")])
def test_service_account_ids_are_valid_and_per_stack(name, stack):
    account = service_account_id(name, stack)
    assert 6 <= len(account) <= 30
    assert account[0].isalpha() and account[-1].isalnum()
    assert set(account) <= set("abcdefghijklmnopqrstuvwxyz0123456789-")
    assert account != service_account_id(name, stack + "2")
