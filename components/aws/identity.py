"""The nodes' AWS identity: one IAM role and instance profile per cluster, least privilege.

Grants: Session Manager (AmazonSSMManagedInstanceCore, the way in), ECR read (pull training
images), read/write on the cluster's own bucket only (data, checkpoints, status/<node>.json),
and the three describe calls rank discovery makes (they support no resource-level scoping).
"""
from __future__ import annotations

import json
from dataclasses import dataclass

import pulumi
import pulumi_aws as aws

SSM_POLICY = "arn:aws:iam::aws:policy/AmazonSSMManagedInstanceCore"
ECR_READ_POLICY = "arn:aws:iam::aws:policy/AmazonEC2ContainerRegistryReadOnly"
MANAGED_POLICIES = {"ssm": SSM_POLICY, "ecr-read": ECR_READ_POLICY}
BUCKET_LIST_ACTIONS = ("s3:ListBucket", "s3:GetBucketLocation")
BUCKET_OBJECT_ACTIONS = ("s3:GetObject", "s3:PutObject", "s3:DeleteObject",
                         "s3:AbortMultipartUpload", "s3:ListMultipartUploadParts")
RANK_DISCOVERY_ACTIONS = ("autoscaling:DescribeAutoScalingInstances",
                          "autoscaling:DescribeAutoScalingGroups", "ec2:DescribeInstances")


@dataclass(frozen=True)
class NodeIdentity:
    role: aws.iam.Role
    profile: aws.iam.InstanceProfile


def assume_role_policy() -> str:
    return json.dumps({"Version": "2012-10-17", "Statement": [{
        "Effect": "Allow", "Principal": {"Service": "ec2.amazonaws.com"},
        "Action": "sts:AssumeRole"}]})


def node_policy(bucket_arn: str) -> str:
    """The inline policy: this bucket's objects and listing, and rank discovery."""
    return json.dumps({"Version": "2012-10-17", "Statement": [
        {"Sid": "ClusterBucketList", "Effect": "Allow", "Action": list(BUCKET_LIST_ACTIONS),
         "Resource": bucket_arn},
        {"Sid": "ClusterBucketObjects", "Effect": "Allow", "Action": list(BUCKET_OBJECT_ACTIONS),
         "Resource": f"{bucket_arn}/*"},
        {"Sid": "RankDiscovery", "Effect": "Allow", "Action": list(RANK_DISCOVERY_ACTIONS),
         "Resource": "*"},
    ]})


def node_identity(name: str, tags: dict[str, str], bucket: aws.s3.Bucket,
                  parent: pulumi.Resource) -> NodeIdentity:
    """Declare the role, its grants and the instance profile, all parented to `parent`."""
    opts = pulumi.ResourceOptions(parent=parent)
    role = aws.iam.Role(f"{name}-node-role", assume_role_policy=assume_role_policy(),
                        description="trainstack nodes: SSM, ECR read, the cluster bucket",
                        tags=tags, opts=opts)
    for key, arn in MANAGED_POLICIES.items():
        aws.iam.RolePolicyAttachment(f"{name}-node-{key}", role=role.name, policy_arn=arn,
                                     opts=opts)
    aws.iam.RolePolicy(f"{name}-node-access", role=role.id,
                       policy=bucket.arn.apply(node_policy), opts=opts)
    profile = aws.iam.InstanceProfile(f"{name}-node-profile", role=role.name, tags=tags,
                                      opts=opts)
    return NodeIdentity(role, profile)
