"""Issue 35, a BLIND hostile review (helper review57) of the CrossGuard pack over gRPC, driven as
`pulumi preview --policy-pack policies` drives it (tests/policy_harness.py). The pack's code was
not read: every verdict comes from docs/policies.md, docs/billing-after-stop.md and the catalog
CSVs, and each batch's expectations were committed before its first run.

Focus: stacks written FROM PUBLIC BLUEPRINTS, as teams copy them into a Pulumi program (the
engine's camelCase inputs, the provider SDKs' type tokens), each complete, then one realistic
mistake each, and controls that should pass.

RESULTS (agreed / cases on the first run of each batch; 136 cases, 131 agree, 5 strict xfails):
  batch 1: 40/42 (the commit said 40 cases: a miscount). e05 and m05 were MY mistakes, fixed in a
    commit of their own: e05's mutation moved the node group into the public subnet without the
    engine's dependency on it (a builder bug: no public subnet was behind the group); m05 expected
    rdma to ask a3-megagpu-8g for placement, but its catalog row has no RDMA fabric
    (gpudirect-tcpxo, rdma false), and docs say such a type is not asked.
  batch 2: 27/29. c04 MY mistake (Standard_ND96isr_MI300X_v5 is in the catalog, infiniband, not
    priced in eastus: spend fails closed, rdma passes; I had read a truncated grep). f03: DEFECT 1.
  batch 3: 19/22; d1a, d1b, d1c: defect 1's reach.
  batch 4: 12/13; g02 MY mistake (a GKE pool over two zones that does not visibly mount the Lustre
    is matched at steps 3-5, where a filesystem in one of its zones passes; spend counted 4 nodes).
  batch 5: 17/17. batch 6: 8/9 (d1h: defect 1's reach). batch 7: 4/4.

DEFECT 1 (spend-limit; budgets that do not cover the compute, both ways). Smallest: f03 = the GKE
  A3 Ultra stack whose budget has `budgetFilter.labels` {team: pretrain} and whose pool's
  `nodeConfig.resourceLabels` (pulumi-gcp: "The GCP labels (key/value pairs) to be applied to each
  node") carry team=pretrain: the pack reports "the stack has no budget alarm on gcp ... no budget
  resource takes in its GPU compute". It reads the pool's `nodeConfig.labels` instead (pulumi-gcp:
  "The Kubernetes labels (key/value pairs) to be applied to each node"), which never reach billing:
  d1a (GCP labels team=platform, Kubernetes labels team=pretrain) PASSES although the budget takes
  none of the pool's spend in (the blind-spot direction). Docs (spend-limit, Budgets): "The tags
  and labels compared are those the GPU instances carry". Reach: a pool inline in the cluster's
  `nodePools` (d1b), the cluster's own `nodeConfig` / default pool (d1h). Not reached: AKS
  AgentPool `tags` vs Kubernetes `nodeLabels` (d1d, d1e agree), EKS instances' tags from the
  launch template's instance tagSpecifications vs the node group's labels (d1f, f01), a MIG's
  template labels and `allInstancesConfig.labels` (f02, d1g).

Controls that agree (selection): every blueprint's control (e01, p01, k01, m01, z01, a01, l01);
capacity counted once for a stack reservation a GKE pool names (r01, r02) or takes by
ANY_RESERVATION (o01), Slurm VMs in a reservation (g03), a classic Azure capacity reservation
group (g09), an Alibaba private pool under maxMonthlyUsd (g10), an ODCR with its ASG (r03, r04),
an open ODCR and an EKS group (o03), and not matched across zones or CPU platforms (o02, o04);
EKS Capacity Blocks priced at the configured fee in EKS's own form (capacityType CAPACITY_BLOCK,
no marketType: r07), with marketType (r05), bought in the stack (r08), and failing closed without
a fee (r06); GKE sizes per zone and by totalMaxNodeCount (g01, g02); DWS flex-start resize
requests (g06-g08); stops undone by morning schedules or an autoscaler, a desired-0 under a
minimum, a regional URL for a zonal MIG, a disabled autoscale setting (p07, s02, s04, s06, z04);
HyperPod ml.p5 and p5e failing closed (c01, c02); unpriced regions named (m02, c03, z05); public
exposure in the blueprints' own forms (EKS remoteAccess, PCluster head node IP / EIP / SSH, GKE
without private nodes, Toolkit accessConfigs, Azure scale-set and NIC public IPs, Internet NSG
rule, Alibaba EIP / DNAT / bandwidth / SLB, balancers on three clouds, each with its internal
control); budget filters as copied between regions (f04, h01-h04); encryption and retention of
the blueprints' storage (h07-h15); ADT's provider defaultTags (h16, h17).

Planted bug (then reverted): eks() ignoring `fs_zone` (the FSx always behind the nodes' private-a
subnet): e04 failed, every other case passed.

Each case states the verdict of EVERY policy (those not named stay "pass"): "fail", "advisory",
"undecided" ("cannot decide") or "pass"; its `why` is the hand calculation.

The blueprints (my own builders):
  EKS (awsome-distributed-training 1.architectures/4.amazon-eks, us-west-2a): an EKS cluster with
    private endpoint, a managed node group of 2 p5.48xlarge (55.04 USD/h, prices.csv us-west-2)
    from a launch template with 32 EFA interfaces in a cluster placement group, FSx for Lustre
    PERSISTENT_2 250 of 4,800 GB on the nodes' subnet with an S3 data repository association, a
    NAT gateway with its EIP in an edge subnet, a 100,000 USD budget with an e-mail. No lifetime:
    2 x 55.04 x 730 = 80,358.40 + FSx 4,800 x 0.28211 = 1,354.13 + bucket 4,800 x 0.023 =
    110.40 -> 81,822.93 < 100,000.
  PCluster (awsome-distributed-training 1.architectures/2.aws-parallelcluster, as an EC2 program,
    us-east-2a): a head node c6i.2xlarge in the private subnet, an Auto Scaling group of 4
    p5en.48xlarge (63.296 USD/h us-east-2; 16 EFA cards) from a template with 16 EFA interfaces in a
    cluster placement group, a Schedule to 0 in 96 h, FSx PERSISTENT_2 125 of 9,600 GB with a DRA,
    budget 40,000. 4 x 63.296 x 96 = 24,305.66 + FSx 9,600 x 0.18858 = 1,810.37 + bucket 9,600 x
    0.023 = 220.80 -> 26,336.83 (+ the head node, a CPU node, at most ~0.4 USD/h x 730 = ~300).
  GKE A3 Ultra (Cluster Toolkit examples/gke-a3-ultragpu, us-central1-b): a private GKE cluster
    with multi-networking, a node pool of 2 a3-ultragpu-8g (86.7599 USD/h us-central1) with 8 RDMA
    additional node networks, COMPACT placement, a SPECIFIC reservation named by a literal (created
    outside the program, as the blueprint's `reservation` setting names it), Managed Lustre 500 of
    36,000 GiB in us-central1-b, a bucket, budget 150,000. No lifetime: 2 x 86.7599 x 730 =
    126,669.45 + Lustre 36,000 x 0.34 = 12,240.00 + bucket 38,654.71 GB x 0.02 = 773.09 ->
    139,682.54 < 150,000.
  A3 Mega Slurm-like MIG (Cluster Toolkit examples/machine-learning/a3-megagpu-8g, us-east4-a):
    instance template of a3-megagpu-8g (92.9376 USD/h us-east4) with 1 system + 8 GPU gVNIC NICs
    (9 VPCs), a COLLOCATED resource policy, a MIG of 2, a Cloud Scheduler resize-to-0 in 96 h, a
    BASIC_SSD Filestore of 2,560 GB for /home in us-east4-a, a bucket in US-EAST4, budget 25,000.
    2 x 92.9376 x 96 = 17,844.02 + Filestore (not in the catalog: the lowest parallel-filesystem
    price, at most 0.28211 USD/GB-month) <= 722.20 + bucket <= 2,560 GiB = 2,748.78 GB x 0.023 =
    63.22 -> <= 18,629.44 < 25,000.
  Azure NDv5 (azhpc / CycleCloud-like, classic azurerm provider, eastus zone 1): a
    LinuxVirtualMachineScaleSet of 4 Standard_ND96isr_H100_v5 (98.32 USD/h eastus;
    singlePlacementGroup left to its default, true), a classic autoscale setting to 0 in 96 h, AMLFS
    Durable Premium 250 of 16 TiB in zone 1, a storage account, a classic subscription budget of
    60,000. 4 x 98.32 x 96 = 37,754.88 + AMLFS 16,384 GiB x 0.000373 x 730 = 4,461.21 + account
    17,592.19 GB x 0.02024 = 356.07 -> <= 42,572.16 < 60,000.
  AKS (AKS GPU pool with AMLFS CSI, azure-native, eastus2): a private AKS cluster with a system
    pool of 2 Standard_D4s_v5 and an AgentPool of Standard_ND96isr_H200_v5 (84.8 USD/h eastus2)
    autoscaling 0-4 in zone 1, AMLFS 8 TiB in zone 1, a storage account, a subscription budget of
    300,000. 4 x 84.8 x 730 = 247,616.00 + AMLFS 2,230.60 + account 178.03 + the system pool (a
    CPU pool, a few hundred USD at most) -> about 250,325 < 300,000.
  Alibaba eRDMA (PAI-Lingjun-like ECS, eu-central-1a): 4 ecs.ebmgn8v.48xlarge (58.2708 USD/h,
    erdma) ecs.Instance nodes in a LowLatency deployment set, HighPerformance traffic mode,
    autoReleaseTime in 72 h (no budget resource in pulumi-alicloud: it stands in for the alarm),
    CPFS in eu-central-1a, an OSS bucket (KMS), an Internet NAT gateway with an EIP for egress.
    4 x 58.2708 x 72 = 16,781.99.
"""
from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any, Optional

import pytest

from tests.policy_fixtures import AWS_ALERTS, AZURE_ALERTS, GCP_ALERTS, hours_from_now, res
from tests.policy_harness import PolicyPackProcess, run, verdict


def _next_month() -> str:
    """The first of next month, 00:00 UTC, read when the case runs (x07's literal 2027-01-01
    began on that day, and "not begun" with it)."""
    now = datetime.now(timezone.utc)
    return f"{now.year + now.month // 12:04d}-{now.month % 12 + 1:02d}-01T00:00:00Z"

SSZ, SPEND, TAGS_P, RDMA = "storage-same-zone", "spend-limit", "required-tags", "rdma-for-multinode"
NPI, ENC, RET = "no-public-ingress", "encryption-at-rest", "bucket-retained"
POLICIES = (SSZ, SPEND, TAGS_P, RDMA, NPI, ENC, RET)
TAGS = {"owner": "carol", "team": "pretrain", "cost-center": "9001"}
LABELS = {"owner": "carol", "team": "pretrain", "cost_center": "9001"}


def named(stack: list, name: str):
    return next(r for r in stack if r.name == name)


def _set(stack, name, key, value):
    named(stack, name).props[key] = value
    return stack


def _add(stack, *extra):
    return stack + list(extra)


def _drop(stack, name):
    return [r for r in stack if r.name != name]


def _asg_tags():
    return [{"key": k, "value": v, "propagateAtLaunch": True} for k, v in TAGS.items()]


def _efa_nics(cards: int, public: Optional[str] = None) -> list:
    """EFA interfaces as the ADT templates write them: card 0 an `efa` at device 0, every other
    card an `efa-only` at device 1 (p5's 32 cards, p5en's 16)."""
    out = []
    for c in range(cards):
        nic = {"networkCardIndex": float(c), "deviceIndex": 0.0 if c == 0 else 1.0,
               "interfaceType": "efa" if c == 0 else "efa-only", "deleteOnTermination": "true"}
        if public is not None:
            nic["associatePublicIpAddress"] = public
        out.append(nic)
    return out


# --------------------------------------------------------------------------- AWS: EKS (ADT)

def eks(zone: str = "us-west-2a", fs_zone: Optional[str] = None, budget: Any = "100000",
        max_size: Any = 2.0) -> list:
    vpc = res("aws:ec2/vpc:Vpc", "ml-vpc", {"cidrBlock": "10.0.0.0/16", "enableDnsHostnames": True,
                                           "tags": dict(TAGS)})
    pub = res("aws:ec2/subnet:Subnet", "public-a",
              {"vpcId": "vpc-x", "availabilityZone": zone, "cidrBlock": "10.0.0.0/24",
               "mapPublicIpOnLaunch": True, "tags": {**TAGS, "kubernetes.io/role/elb": "1"}},
              deps={"vpcId": [vpc]})
    priv = res("aws:ec2/subnet:Subnet", "private-a",
               {"vpcId": "vpc-x", "availabilityZone": zone, "cidrBlock": "10.0.64.0/18",
                "tags": {**TAGS, "kubernetes.io/role/internal-elb": "1"}}, deps={"vpcId": [vpc]})
    out = [vpc, pub, priv]
    fs_sub = priv
    if fs_zone:
        fs_sub = res("aws:ec2/subnet:Subnet", "private-b",
                     {"vpcId": "vpc-x", "availabilityZone": fs_zone, "cidrBlock": "10.0.128.0/18",
                      "tags": dict(TAGS)}, deps={"vpcId": [vpc]})
        out.append(fs_sub)
    eip = res("aws:ec2/eip:Eip", "nat-eip", {"domain": "vpc", "tags": dict(TAGS)})
    nat = res("aws:ec2/natGateway:NatGateway", "nat",
              {"subnetId": "public-a-id", "allocationId": "eipalloc-x", "tags": dict(TAGS)},
              deps={"subnetId": [pub], "allocationId": [eip]})
    cluster = res("aws:eks/cluster:Cluster", "ml-cluster",
                  {"name": "ml-cluster", "version": "1.31", "roleArn": "arn:aws:iam::111122223333:role/eks",
                   "vpcConfig": {"subnetIds": ["private-a-id"], "endpointPrivateAccess": True,
                                 "endpointPublicAccess": False},
                   "tags": dict(TAGS)}, deps={"vpcConfig": [priv]})
    pg = res("aws:ec2/placementGroup:PlacementGroup", "p5-pg", {"strategy": "cluster", "tags": dict(TAGS)})
    lt = res("aws:ec2/launchTemplate:LaunchTemplate", "p5-lt",
             {"networkInterfaces": _efa_nics(32), "placement": {"groupName": "p5-pg"},
              "blockDeviceMappings": [{"deviceName": "/dev/xvda", "ebs": {
                  "volumeSize": 500.0, "volumeType": "gp3", "encrypted": "true"}}],
              "tagSpecifications": [{"resourceType": "instance", "tags": dict(TAGS)}],
              "tags": dict(TAGS)}, deps={"placement": [pg]})
    ng = res("aws:eks/nodeGroup:NodeGroup", "p5-nodes",
             {"clusterName": "ml-cluster", "nodeGroupName": "p5-nodes",
              "nodeRoleArn": "arn:aws:iam::111122223333:role/eks-node", "subnetIds": ["private-a-id"],
              "instanceTypes": ["p5.48xlarge"], "amiType": "AL2023_x86_64_NVIDIA",
              "capacityType": "ON_DEMAND",
              "scalingConfig": {"desiredSize": 2.0, "minSize": 0.0, "maxSize": max_size},
              "launchTemplate": {"id": "lt-x", "version": "1"},
              "labels": {"nvidia.com/gpu.present": "true"}, "tags": dict(TAGS)},
             deps={"clusterName": [cluster], "subnetIds": [priv], "launchTemplate": [lt]})
    bucket = res("aws:s3/bucket:Bucket", "ml-datasets",
                 {"forceDestroy": False, "tags": {**TAGS, "trainstack:retain": "true"}}, retain=True)
    fsg = res("aws:ec2/securityGroup:SecurityGroup", "fsx-sg",
              {"vpcId": "vpc-x", "description": "FSx for Lustre", "tags": dict(TAGS)}, deps={"vpcId": [vpc]})
    lustre_in = res("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule", "fsx-lustre",
                    {"securityGroupId": "sg-x", "cidrIpv4": "10.0.0.0/16", "ipProtocol": "tcp",
                     "fromPort": 988.0, "toPort": 988.0, "tags": dict(TAGS)},
                    deps={"securityGroupId": [fsg]})
    fs = res("aws:fsx/lustreFileSystem:LustreFileSystem", "fsx",
             {"subnetIds": "private-a-id", "storageCapacity": 4800.0, "deploymentType": "PERSISTENT_2",
              "perUnitStorageThroughput": 250.0, "dataCompressionType": "LZ4",
              "securityGroupIds": ["sg-x"], "fileSystemTypeVersion": "2.15", "tags": dict(TAGS)},
             deps={"subnetIds": [fs_sub], "securityGroupIds": [fsg]})
    dra = res("aws:fsx/dataRepositoryAssociation:DataRepositoryAssociation", "fsx-s3",
              {"fileSystemPath": "/", "dataRepositoryPath": "s3://ml-datasets/",
               "batchImportMetaDataOnCreate": True, "tags": dict(TAGS)},
              deps={"fileSystemId": [fs], "dataRepositoryPath": [bucket]})
    bud = res("aws:budgets/budget:Budget", "ml-budget",
              {"budgetType": "COST", "timeUnit": "MONTHLY", "limitAmount": budget, "limitUnit": "USD",
               "notifications": AWS_ALERTS, "tags": dict(TAGS)})
    return out + [eip, nat, cluster, pg, lt, ng, bucket, fsg, lustre_in, fs, dra, bud]


# -------------------------------------------------------------- AWS: ParallelCluster-like (ADT)

def pcluster(zone: str = "us-east-2a", budget: Any = "40000", hours: Optional[float] = 96,
             strategy: str = "cluster", cards: int = 16, head_subnet: str = "private",
             head_public: Optional[bool] = None) -> list:
    vpc = res("aws:ec2/vpc:Vpc", "hpc-vpc", {"cidrBlock": "10.3.0.0/16", "tags": dict(TAGS)})
    pub = res("aws:ec2/subnet:Subnet", "hpc-public",
              {"vpcId": "vpc-x", "availabilityZone": zone, "cidrBlock": "10.3.0.0/24",
               "mapPublicIpOnLaunch": True, "tags": dict(TAGS)}, deps={"vpcId": [vpc]})
    priv = res("aws:ec2/subnet:Subnet", "hpc-private",
               {"vpcId": "vpc-x", "availabilityZone": zone, "cidrBlock": "10.3.128.0/17",
                "tags": dict(TAGS)}, deps={"vpcId": [vpc]})
    eip = res("aws:ec2/eip:Eip", "hpc-nat-eip", {"domain": "vpc", "tags": dict(TAGS)})
    nat = res("aws:ec2/natGateway:NatGateway", "hpc-nat",
              {"subnetId": "hpc-public-id", "allocationId": "eipalloc-x", "tags": dict(TAGS)},
              deps={"subnetId": [pub], "allocationId": [eip]})
    sg = res("aws:ec2/securityGroup:SecurityGroup", "hpc-sg",
             {"vpcId": "vpc-x", "description": "cluster", "tags": dict(TAGS)}, deps={"vpcId": [vpc]})
    intra = res("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule", "hpc-intra",
                {"securityGroupId": "sg-x", "referencedSecurityGroupId": "sg-x", "ipProtocol": "-1",
                 "tags": dict(TAGS)}, deps={"securityGroupId": [sg], "referencedSecurityGroupId": [sg]})
    ssh = res("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule", "hpc-ssh",
              {"securityGroupId": "sg-x", "cidrIpv4": "198.51.100.0/24", "ipProtocol": "tcp",
               "fromPort": 22.0, "toPort": 22.0, "tags": dict(TAGS)}, deps={"securityGroupId": [sg]})
    bucket = res("aws:s3/bucket:Bucket", "hpc-data",
                 {"forceDestroy": False, "tags": {**TAGS, "trainstack:retain": "true"}}, retain=True)
    fs = res("aws:fsx/lustreFileSystem:LustreFileSystem", "hpc-fsx",
             {"subnetIds": "hpc-private-id", "storageCapacity": 9600.0, "deploymentType": "PERSISTENT_2",
              "perUnitStorageThroughput": 125.0, "securityGroupIds": ["sg-x"], "tags": dict(TAGS)},
             deps={"subnetIds": [priv], "securityGroupIds": [sg]})
    dra = res("aws:fsx/dataRepositoryAssociation:DataRepositoryAssociation", "hpc-fsx-s3",
              {"fileSystemPath": "/", "dataRepositoryPath": "s3://hpc-data/", "tags": dict(TAGS)},
              deps={"fileSystemId": [fs], "dataRepositoryPath": [bucket]})
    head_props = {"instanceType": "c6i.2xlarge", "ami": "ami-0123456789abcdef0",
                  "subnetId": f"hpc-{head_subnet}-id", "vpcSecurityGroupIds": ["sg-x"],
                  "rootBlockDevice": {"volumeSize": 100.0, "volumeType": "gp3", "encrypted": True},
                  "userData": "bW91bnQgZnN4", "tags": dict(TAGS)}
    if head_public is not None:
        head_props["associatePublicIpAddress"] = head_public
    head = res("aws:ec2/instance:Instance", "head-node", head_props,
               deps={"subnetId": [pub if head_subnet == "public" else priv],
                     "vpcSecurityGroupIds": [sg], "userData": [fs]})
    pg = res("aws:ec2/placementGroup:PlacementGroup", "hpc-pg", {"strategy": strategy, "tags": dict(TAGS)})
    lt = res("aws:ec2/launchTemplate:LaunchTemplate", "compute-lt",
             {"instanceType": "p5en.48xlarge", "imageId": "ami-0123456789abcdef0",
              "networkInterfaces": [{**n, "securityGroups": ["sg-x"]} for n in _efa_nics(cards)],
              "blockDeviceMappings": [{"deviceName": "/dev/sda1", "ebs": {
                  "volumeSize": 200.0, "volumeType": "gp3", "encrypted": "true"}}],
              "userData": "bW91bnQgZnN4",
              "tagSpecifications": [{"resourceType": "instance", "tags": dict(TAGS)}],
              "tags": dict(TAGS)}, deps={"userData": [fs, bucket], "networkInterfaces": [sg]})
    asg = res("aws:autoscaling/group:Group", "compute-p5en",
              {"name": "compute-p5en", "minSize": 0.0, "maxSize": 4.0, "desiredCapacity": 4.0,
               "placementGroup": "hpc-pg", "vpcZoneIdentifiers": ["hpc-private-id"],
               "launchTemplate": {"id": "lt-x", "version": "$Latest"}, "tags": _asg_tags()},
              deps={"launchTemplate": [lt], "vpcZoneIdentifiers": [priv], "placementGroup": [pg]})
    bud = res("aws:budgets/budget:Budget", "hpc-budget",
              {"budgetType": "COST", "timeUnit": "MONTHLY", "limitAmount": budget, "limitUnit": "USD",
               "notifications": AWS_ALERTS, "tags": dict(TAGS)})
    out = [vpc, pub, priv, eip, nat, sg, intra, ssh, bucket, fs, dra, head, pg, lt, asg, bud]
    if hours is not None:
        out.append(res("aws:autoscaling/schedule:Schedule", "compute-stop",
                       {"autoscalingGroupName": "compute-p5en", "scheduledActionName": "stop",
                        "minSize": 0.0, "maxSize": 0.0, "desiredCapacity": 0.0,
                        "startTime": hours_from_now(hours)}, deps={"autoscalingGroupName": [asg]}))
    return out


# ---------------------------------------------------------- GCP: GKE A3 Ultra (Cluster Toolkit)

def gke(zone: str = "us-central1-b", fs_zone: Optional[str] = None, budget: Any = "150000",
        private: bool = True) -> list:
    region = zone[:-2]
    sysnet = res("gcp:compute/network:Network", "a3u-net-0", {"autoCreateSubnetworks": False, "mtu": 8896.0})
    syssub = res("gcp:compute/subnetwork:Subnetwork", "a3u-sub-0",
                 {"region": region, "ipCidrRange": "192.168.0.0/18", "network": "a3u-net-0-id",
                  "secondaryIpRanges": [{"rangeName": "pods", "ipCidrRange": "10.4.0.0/14"},
                                        {"rangeName": "services", "ipCidrRange": "10.0.32.0/20"}]},
                 deps={"network": [sysnet]})
    gnet = res("gcp:compute/network:Network", "a3u-net-1", {"autoCreateSubnetworks": False, "mtu": 8896.0})
    gsub = res("gcp:compute/subnetwork:Subnetwork", "a3u-sub-1",
               {"region": region, "ipCidrRange": "192.168.64.0/18", "network": "a3u-net-1-id"},
               deps={"network": [gnet]})
    rnet = res("gcp:compute/network:Network", "a3u-rdma-net",
               {"autoCreateSubnetworks": False, "mtu": 8896.0,
                "networkProfile": f"projects/ml/global/networkProfiles/{zone}-vpc-roce"})
    rsubs = [res("gcp:compute/subnetwork:Subnetwork", f"a3u-rdma-sub-{i}",
                 {"region": region, "ipCidrRange": f"192.168.{128 + i * 4}.0/22",
                  "network": "a3u-rdma-net-id"}, deps={"network": [rnet]}) for i in range(8)]
    fw = res("gcp:compute/firewall:Firewall", "a3u-internal",
             {"network": "a3u-net-0-id", "direction": "INGRESS", "sourceRanges": ["192.168.0.0/16"],
              "allows": [{"protocol": "tcp"}, {"protocol": "udp"}, {"protocol": "icmp"}]},
             deps={"network": [sysnet]})
    cluster_props = {"location": region, "nodeLocations": [zone], "network": "a3u-net-0-id",
                     "subnetwork": "a3u-sub-0-id", "removeDefaultNodePool": True,
                     "initialNodeCount": 1.0, "enableMultiNetworking": True,
                     "datapathProvider": "ADVANCED_DATAPATH", "deletionProtection": False,
                     "ipAllocationPolicy": {"clusterSecondaryRangeName": "pods",
                                            "servicesSecondaryRangeName": "services"},
                     "resourceLabels": dict(LABELS)}
    if private:
        cluster_props["privateClusterConfig"] = {"enablePrivateNodes": True,
                                                 "masterIpv4CidrBlock": "172.16.0.32/28"}
    cluster = res("gcp:container/cluster:Cluster", "a3u-gke", cluster_props,
                  deps={"network": [sysnet], "subnetwork": [syssub]})
    extra = [{"network": "a3u-net-1-id", "subnetwork": "a3u-sub-1-id"}] + [
        {"network": "a3u-rdma-net-id", "subnetwork": f"a3u-rdma-sub-{i}-id"} for i in range(8)]
    pool = res("gcp:container/nodePool:NodePool", "a3u-pool",
               {"cluster": "a3u-gke-id", "location": region, "nodeLocations": [zone], "nodeCount": 2.0,
                "nodeConfig": {"machineType": "a3-ultragpu-8g",
                               "guestAccelerators": [{"type": "nvidia-h200-141gb", "count": 8.0,
                                                      "gpuDriverInstallationConfig":
                                                          {"gpuDriverVersion": "LATEST"}}],
                               "gvnic": {"enabled": True}, "resourceLabels": dict(LABELS),
                               "reservationAffinity": {
                                   "consumeReservationType": "SPECIFIC_RESERVATION",
                                   "key": "compute.googleapis.com/reservation-name",
                                   "values": ["a3u-reservation"]},
                               "ephemeralStorageLocalSsdConfig": {"localSsdCount": 32.0}},
                "networkConfig": {"additionalNodeNetworkConfigs": extra},
                "placementPolicy": {"type": "COMPACT"},
                "management": {"autoRepair": True, "autoUpgrade": False}},
               deps={"cluster": [cluster], "networkConfig": [gnet, gsub, rnet, *rsubs]})
    lustre = res("gcp:lustre/instance:Instance", "a3u-lustre",
                 {"location": fs_zone or zone, "instanceId": "a3u-lustre", "capacityGib": "36000",
                  "perUnitStorageThroughput": "500", "filesystem": "lfs",
                  "network": "projects/ml/global/networks/a3u-net-0", "gkeSupportEnabled": True,
                  "labels": dict(LABELS)}, deps={"network": [sysnet]})
    bucket = res("gcp:storage/bucket:Bucket", "a3u-data",
                 {"location": region.upper(), "forceDestroy": False, "uniformBucketLevelAccess": True,
                  "labels": {**LABELS, "trainstack_retain": "true"}}, retain=True)
    bud = res("gcp:billing/budget:Budget", "a3u-budget",
              {"billingAccount": "000000-000000-000000",
               "amount": {"specifiedAmount": {"currencyCode": "USD", "units": budget}},
               "thresholdRules": GCP_ALERTS})
    return [sysnet, syssub, gnet, gsub, rnet, *rsubs, fw, cluster, pool, lustre, bucket, bud]


GCP_P = {"project": "ml", "region": "us-central1"}


# ------------------------------------------------------ GCP: A3 Mega MIG (Cluster Toolkit slurm)

def a3mega(zone: str = "us-east4-a", fs_zone: Optional[str] = None, budget: Any = "25000",
           hours: Optional[float] = 96, nics: int = 9, collocation: Optional[str] = "COLLOCATED",
           tier: str = "BASIC_SSD") -> list:
    region = zone[:-2]
    nets, subs = [], []
    for i in range(nics):
        n = res("gcp:compute/network:Network", f"a3m-net-{i}", {"autoCreateSubnetworks": False,
                                                                "mtu": 8244.0})
        s = res("gcp:compute/subnetwork:Subnetwork", f"a3m-sub-{i}",
                {"region": region, "ipCidrRange": f"10.{i}.0.0/16", "network": f"a3m-net-{i}-id"},
                deps={"network": [n]})
        nets.append(n)
        subs.append(s)
    fws = [res("gcp:compute/firewall:Firewall", f"a3m-fw-{i}",
               {"network": f"a3m-net-{i}-id", "direction": "INGRESS", "sourceRanges": [f"10.{i}.0.0/16"],
                "allows": [{"protocol": "all"}]}, deps={"network": [nets[i]]}) for i in range(nics)]
    iap = res("gcp:compute/firewall:Firewall", "a3m-iap-ssh",
              {"network": "a3m-net-0-id", "direction": "INGRESS", "sourceRanges": ["35.235.240.0/20"],
               "allows": [{"protocol": "tcp", "ports": ["22"]}]}, deps={"network": [nets[0]]})
    placement = {"vmCount": 2.0, **({"collocation": collocation} if collocation else
                                    {"availabilityDomainCount": 2.0})}
    pol = res("gcp:compute/resourcePolicy:ResourcePolicy", "a3m-compact",
              {"region": region, "groupPlacementPolicy": placement})
    home = res("gcp:filestore/instance:Instance", "a3m-home",
               {"location": fs_zone or (region if tier in ("REGIONAL", "ENTERPRISE") else zone),
                "tier": tier, "fileShares": {"name": "nfsshare", "capacityGb": 2560.0},
                "networks": [{"network": "a3m-net-0", "modes": ["MODE_IPV4"]}],
                "labels": dict(LABELS)}, deps={"networks": [nets[0]]})
    bucket = res("gcp:storage/bucket:Bucket", "a3m-data",
                 {"location": region.upper(), "forceDestroy": False,
                  "labels": {**LABELS, "trainstack_retain": "true"}}, retain=True)
    tpl = res("gcp:compute/instanceTemplate:InstanceTemplate", "a3m-tpl",
              {"machineType": "a3-megagpu-8g", "namePrefix": "a3m-",
               "networkInterfaces": [{"network": f"a3m-net-{i}-id", "subnetwork": f"a3m-sub-{i}-id",
                                      "nicType": "GVNIC"} for i in range(nics)],
               "disks": [{"boot": True, "autoDelete": True, "diskSizeGb": 200.0,
                          "diskType": "pd-balanced", "sourceImage": "projects/ml/global/images/slurm-a3m"}],
               "scheduling": {"onHostMaintenance": "TERMINATE", "automaticRestart": True,
                              "provisioningModel": "STANDARD"},
               "resourcePolicies": "a3m-compact-id", "labels": dict(LABELS),
               "metadata": {"startup-script": "mount /home; gcsfuse a3m-data /data"}},
              deps={"resourcePolicies": [pol], "metadata": [home, bucket],
                    "networkInterfaces": [*nets, *subs]})
    mig = res("gcp:compute/instanceGroupManager:InstanceGroupManager", "a3m-mig",
              {"zone": zone, "name": "a3m-mig", "targetSize": 2.0, "baseInstanceName": "a3m",
               "versions": [{"instanceTemplate": "a3m-tpl-id"}]}, deps={"versions": [tpl]})
    bud = res("gcp:billing/budget:Budget", "a3m-budget",
              {"billingAccount": "000000-000000-000000",
               "amount": {"specifiedAmount": {"currencyCode": "USD", "units": budget}},
               "thresholdRules": GCP_ALERTS})
    out = [*nets, *subs, *fws, iap, pol, home, bucket, tpl, mig, bud]
    if hours is not None:
        from datetime import datetime, timedelta, timezone
        at = datetime.now(timezone.utc) + timedelta(hours=hours, minutes=1)
        uri = (f"https://compute.googleapis.com/compute/v1/projects/ml/zones/{zone}/"
               f"instanceGroupManagers/a3m-mig/resize?size=0")
        out.append(res("gcp:cloudscheduler/job:Job", "a3m-stop",
                       {"region": region, "schedule": f"{at.minute} {at.hour} {at.day} {at.month} *",
                        "timeZone": "Etc/UTC",
                        "httpTarget": {"uri": uri, "httpMethod": "POST", "oauthToken": {
                            "serviceAccountEmail": "stop@ml.iam.gserviceaccount.com"}}},
                       deps={"httpTarget": [mig]}))
    return out


GCP_E4 = {"project": "ml", "region": "us-east4"}


# ------------------------------------------------------- Azure: NDv5 on the classic provider

def ndv5(zone: str = "1", fs_zone: Optional[str] = None, budget: Any = 60000.0,
         hours: Optional[float] = 96, sku: str = "Standard_ND96isr_H100_v5",
         location: str = "eastus") -> list:
    rg = res("azure:core/resourceGroup:ResourceGroup", "hpc-rg", {"name": "hpc-rg", "location": location,
                                                                 "tags": dict(TAGS)})
    vnet = res("azure:network/virtualNetwork:VirtualNetwork", "hpc-vnet",
               {"name": "hpc-vnet", "resourceGroupName": "hpc-rg", "location": location,
                "addressSpaces": ["10.20.0.0/16"], "tags": dict(TAGS)}, deps={"resourceGroupName": [rg]})
    sub = res("azure:network/subnet:Subnet", "compute",
              {"name": "compute", "resourceGroupName": "hpc-rg", "virtualNetworkName": "hpc-vnet",
               "addressPrefixes": ["10.20.1.0/24"]}, deps={"virtualNetworkName": [vnet]})
    fsub = res("azure:network/subnet:Subnet", "lustre",
               {"name": "lustre", "resourceGroupName": "hpc-rg", "virtualNetworkName": "hpc-vnet",
                "addressPrefixes": ["10.20.2.0/24"]}, deps={"virtualNetworkName": [vnet]})
    nsg = res("azure:network/networkSecurityGroup:NetworkSecurityGroup", "hpc-nsg",
              {"name": "hpc-nsg", "resourceGroupName": "hpc-rg", "location": location, "tags": dict(TAGS),
               "securityRules": [{"name": "vnet-in", "priority": 100.0, "direction": "Inbound",
                                  "access": "Allow", "protocol": "*", "sourcePortRange": "*",
                                  "destinationPortRange": "*", "sourceAddressPrefix": "VirtualNetwork",
                                  "destinationAddressPrefix": "VirtualNetwork"}]},
              deps={"resourceGroupName": [rg]})
    amlfs = res("azure-native:storagecache:AmlFilesystem", "hpc-amlfs",
                {"amlFilesystemName": "hpc-amlfs", "resourceGroupName": "hpc-rg", "location": location,
                 "zones": [fs_zone or zone], "storageCapacityTiB": 16.0,
                 "sku": {"name": "AMLFS-Durable-Premium-250"}, "filesystemSubnet": "lustre-id",
                 "maintenanceWindow": {"dayOfWeek": "Saturday", "timeOfDayUTC": "22:00"},
                 "tags": dict(TAGS)}, deps={"filesystemSubnet": [fsub], "resourceGroupName": [rg]})
    acct = res("azure-native:storage:StorageAccount", "hpcdata",
               {"accountName": "hpcdata", "resourceGroupName": "hpc-data", "location": location,
                "kind": "StorageV2", "sku": {"name": "Standard_LRS"},
                "tags": {**TAGS, "trainstack:retain": "true"}}, retain=True)
    vmss = res("azure:compute/linuxVirtualMachineScaleSet:LinuxVirtualMachineScaleSet", "ndv5",
               {"name": "ndv5", "resourceGroupName": "hpc-rg", "location": location, "sku": sku,
                "instances": 4.0, "zones": [zone], "adminUsername": "hpcadmin",
                "adminSshKeys": [{"username": "hpcadmin", "publicKey": "ssh-ed25519 AAAA"}],
                "disablePasswordAuthentication": True, "overprovision": False,
                "sourceImageReference": {"publisher": "microsoft-dsvm", "offer": "ubuntu-hpc",
                                         "sku": "2204", "version": "latest"},
                "osDisk": {"caching": "ReadWrite", "storageAccountType": "Premium_LRS"},
                "networkInterfaces": [{"name": "nic", "primary": True, "enableAcceleratedNetworking": True,
                                       "networkSecurityGroupId": "hpc-nsg-id",
                                       "ipConfigurations": [{"name": "ip", "primary": True,
                                                             "subnetId": "compute-id"}]}],
                "customData": "bW91bnQgbHVzdHJl", "tags": dict(TAGS)},
               deps={"resourceGroupName": [rg], "networkInterfaces": [sub, nsg],
                     "customData": [amlfs, acct]})
    bud = res("azure:consumption/budgetSubscription:BudgetSubscription", "hpc-budget",
              {"name": "hpc-budget", "subscriptionId": "/subscriptions/00000000-0000-0000-0000-000000000001",
               "amount": budget, "timeGrain": "Monthly",
               "timePeriod": {"startDate": "2026-12-01T00:00:00Z"},
               "notifications": [{"enabled": True, "threshold": 80.0, "operator": "GreaterThan",
                                  "thresholdType": "Actual", "contactEmails": ["hpc@example.com"]}]})
    out = [rg, vnet, sub, fsub, nsg, amlfs, acct, vmss, bud]
    if hours is not None:
        out.append(res("azure:monitoring/autoscaleSetting:AutoscaleSetting", "ndv5-stop",
                       {"name": "ndv5-stop", "resourceGroupName": "hpc-rg", "location": location,
                        "targetResourceId": "ndv5-id", "enabled": True, "tags": dict(TAGS),
                        "profiles": [{"name": "end", "capacity": {"default": 0.0, "minimum": 0.0,
                                                                  "maximum": 0.0},
                                      "fixedDate": {"start": hours_from_now(hours),
                                                    "end": "2037-12-31T00:00:00Z", "timezone": "UTC"}}]},
                       deps={"targetResourceId": [vmss], "resourceGroupName": [rg]}))
    return out


AZ_P = {"location": "eastus"}


# ------------------------------------------------------------------ Azure: AKS GPU pool (native)

def aks(scope: str = "/subscriptions/00000000-0000-0000-0000-000000000001", max_count: Any = 4.0,
        public_ip: Optional[bool] = None, budget: Any = 300000.0) -> list:
    rg = res("azure-native:resources:ResourceGroup", "ml-rg", {"resourceGroupName": "ml-rg",
                                                               "location": "eastus2", "tags": dict(TAGS)})
    cluster = res("azure-native:containerservice:ManagedCluster", "aks",
                  {"resourceName": "aks", "resourceGroupName": "ml-rg", "location": "eastus2",
                   "dnsPrefix": "ml", "kubernetesVersion": "1.31",
                   "identity": {"type": "SystemAssigned"},
                   "agentPoolProfiles": [{"name": "system", "mode": "System", "vmSize": "Standard_D4s_v5",
                                          "count": 2.0, "osType": "Linux", "availabilityZones": ["1"]}],
                   "apiServerAccessProfile": {"enablePrivateCluster": True},
                   "networkProfile": {"networkPlugin": "azure", "networkPluginMode": "overlay",
                                      "outboundType": "loadBalancer"},
                   "tags": dict(TAGS)}, deps={"resourceGroupName": [rg]})
    pool_props = {"agentPoolName": "gpu", "resourceName": "aks", "resourceGroupName": "ml-rg",
                  "vmSize": "Standard_ND96isr_H200_v5", "count": 2.0, "enableAutoScaling": True,
                  "minCount": 0.0, "maxCount": max_count, "mode": "User", "osType": "Linux",
                  "availabilityZones": ["1"], "nodeTaints": ["nvidia.com/gpu=present:NoSchedule"],
                  "tags": dict(TAGS)}
    if public_ip is not None:
        pool_props["enableNodePublicIP"] = public_ip
    pool = res("azure-native:containerservice:AgentPool", "gpu", pool_props,
               deps={"resourceName": [cluster], "resourceGroupName": [rg]})
    amlfs = res("azure-native:storagecache:AmlFilesystem", "ml-amlfs",
                {"amlFilesystemName": "ml-amlfs", "resourceGroupName": "ml-rg", "location": "eastus2",
                 "zones": ["1"], "storageCapacityTiB": 8.0, "sku": {"name": "AMLFS-Durable-Premium-250"},
                 "filesystemSubnet": "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/"
                                     "ml-rg/providers/Microsoft.Network/virtualNetworks/aks-vnet/"
                                     "subnets/lustre",
                 "maintenanceWindow": {"dayOfWeek": "Sunday", "timeOfDayUTC": "02:00"},
                 "tags": dict(TAGS)}, deps={"resourceGroupName": [rg]})
    acct = res("azure-native:storage:StorageAccount", "mldata",
               {"accountName": "mldata", "resourceGroupName": "ml-data", "location": "eastus2",
                "kind": "StorageV2", "sku": {"name": "Standard_LRS"},
                "tags": {**TAGS, "trainstack:retain": "true"}}, retain=True)
    bud = res("azure-native:consumption:Budget", "ml-budget",
              {"budgetName": "ml-budget", "amount": budget, "category": "Cost", "timeGrain": "Monthly",
               "scope": scope, "timePeriod": {"startDate": "2026-12-01T00:00:00Z"},
               "notifications": AZURE_ALERTS})
    return [rg, cluster, pool, amlfs, acct, bud]


AZ2_P = {"location": "eastus2"}


# ------------------------------------------------------------------ Alibaba: eRDMA ECS nodes

def erdma(zone: str = "eu-central-1a", fs_zone: Optional[str] = None, release: Any = 72.0,
          mode: str = "HighPerformance", strategy: str = "LowLatency", n: int = 4) -> list:
    vpc = res("alicloud:vpc/network:Network", "lj-vpc", {"vpcName": "lj-vpc", "cidrBlock": "172.16.0.0/12",
                                                        "tags": dict(TAGS)})
    vsw = res("alicloud:vpc/switch:Switch", "lj-vsw",
              {"vpcId": "vpc-x", "zoneId": zone, "cidrBlock": "172.16.0.0/21", "tags": dict(TAGS)},
              deps={"vpcId": [vpc]})
    nat = res("alicloud:vpc/natGateway:NatGateway", "lj-nat",
              {"vpcId": "vpc-x", "vswitchId": "vsw-x", "natType": "Enhanced", "paymentType": "PayAsYouGo",
               "natGatewayName": "lj-nat", "tags": dict(TAGS)}, deps={"vpcId": [vpc], "vswitchId": [vsw]})
    eip = res("alicloud:ecs/eipAddress:EipAddress", "lj-nat-eip",
              {"bandwidth": "200", "internetChargeType": "PayByTraffic", "tags": dict(TAGS)})
    eip_nat = res("alicloud:ecs/eipAssociation:EipAssociation", "lj-nat-eip-assoc",
                  {"allocationId": "eip-x", "instanceId": "ngw-x", "instanceType": "Nat"},
                  deps={"allocationId": [eip], "instanceId": [nat]})
    ds = res("alicloud:ecs/ecsDeploymentSet:EcsDeploymentSet", "lj-ds",
             {"strategy": strategy, "deploymentSetName": "lj-ds", "domain": "Default", "granularity": "Host"})
    sg = res("alicloud:ecs/securityGroup:SecurityGroup", "lj-sg", {"vpcId": "vpc-x", "tags": dict(TAGS)},
             deps={"vpcId": [vpc]})
    rule = res("alicloud:ecs/securityGroupRule:SecurityGroupRule", "lj-intra",
               {"type": "ingress", "ipProtocol": "all", "portRange": "-1/-1", "cidrIp": "172.16.0.0/12",
                "nicType": "intranet", "policy": "accept", "securityGroupId": "sg-x"},
               deps={"securityGroupId": [sg]})
    cpfs = res("alicloud:nas/fileSystem:FileSystem", "lj-cpfs",
               {"fileSystemType": "cpfs", "protocolType": "cpfs", "storageType": "advance_200",
                "capacity": 3600.0, "zoneId": fs_zone or zone, "vpcId": "vpc-x", "vswitchId": "vsw-x",
                "tags": dict(TAGS)}, deps={"vpcId": [vpc], "vswitchId": [vsw]})
    bucket = res("alicloud:oss/bucket:Bucket", "lj-data",
                 {"forceDestroy": False, "serverSideEncryptionRule": {"sseAlgorithm": "KMS"},
                  "tags": {**TAGS, "trainstack:retain": "true"}}, retain=True)
    nodes = []
    for i in range(n):
        props = {"instanceType": "ecs.ebmgn8v.48xlarge", "imageId": "ubuntu_22_04_x64_20G_alibase",
                 "vswitchId": "vsw-x", "securityGroups": ["sg-x"], "deploymentSetId": "ds-x",
                 "networkInterfaceTrafficMode": mode, "internetMaxBandwidthOut": 0.0,
                 "instanceChargeType": "PostPaid", "systemDiskCategory": "cloud_essd",
                 "systemDiskSize": 200.0, "userData": "bW91bnQgY3Bmcw==", "tags": dict(TAGS),
                 "privateIp": f"172.16.0.{10 + i}"}
        if release is not None:
            props["autoReleaseTime"] = hours_from_now(release) if isinstance(release, float) else release
        nodes.append(res("alicloud:ecs/instance:Instance", f"lj-node-{i}", props,
                         deps={"vswitchId": [vsw], "securityGroups": [sg], "deploymentSetId": [ds],
                               "userData": [cpfs, bucket]}))
    return [vpc, vsw, nat, eip, eip_nat, ds, sg, rule, cpfs, bucket, *nodes]


ALI_P = {"region": "eu-central-1"}

PROVIDERS = {"eks": {"region": "us-west-2"}, "pc": {"region": "us-east-2"}, "gke": GCP_P,
             "a3m": GCP_E4, "ndv5": AZ_P, "aks": AZ2_P, "lj": ALI_P}
BUILD = {"eks": eks, "pc": pcluster, "gke": gke, "a3m": a3mega, "ndv5": ndv5, "aks": aks, "lj": erdma}


def check(pack, cid: str, kind: str, stack: list, expect: dict, config=None, provider=None) -> list:
    found = run(pack, stack, config, provider or PROVIDERS[kind])
    got = {p: verdict(found, p) for p in POLICIES}
    want = {p: expect.get(p, "pass") for p in POLICIES}
    assert got == want, (cid, [(d.policy, d.level, d.message[:400]) for d in found])
    return found


# DEFECT 1 fixed (lead, after the review): f03, d1b, d1c, d1h pass. d1a's expectation changed
# by the lead: GKE's API says the cluster's resourceLabels, too, "annotate any related Google
# Compute Engine resources" (Cluster.resourceLabels), so its nodes may carry the builder's cluster
# label team=pretrain as well as the pool's team=platform; which value a node gets is not stated
# (GKE's labels page): "cannot decide", never the pass the review saw.
XFAIL: dict[str, str] = {}


def _params(cases):
    return [pytest.param(c, id=c[0], marks=[pytest.mark.xfail(strict=True, reason=XFAIL[c[0]])]
                         if c[0] in XFAIL else []) for c in cases]


def _run_case(pack, case):
    cid, kind, kwargs, mutate, expect, config, _why = case[:7]
    provider = case[7] if len(case) > 7 else None
    stack = BUILD[kind](**kwargs)
    if mutate is not None:
        stack = mutate(stack)
    return check(pack, cid, kind, stack, expect, config, provider)


# ------------------------------------------------------------------------------------ batch 1

def _ng(**kw):
    def mutate(s):
        named(s, "p5-nodes").props.update(kw)
        return s
    return mutate


def _bucket_region(name, region):
    def mutate(s):
        named(s, name).props["region"] = region
        return s
    return mutate


def _world_ssh_ali(s):
    return _add(s, res("alicloud:ecs/securityGroupRule:SecurityGroupRule", "lj-ssh",
                       {"type": "ingress", "ipProtocol": "tcp", "portRange": "22/22", "cidrIp": "0.0.0.0/0",
                        "nicType": "intranet", "policy": "accept", "securityGroupId": "sg-x"},
                       deps={"securityGroupId": [named(s, "lj-sg")]}))


def _eip_on_node(s):
    eip = res("alicloud:ecs/eipAddress:EipAddress", "lj-node-eip",
              {"bandwidth": "100", "internetChargeType": "PayByTraffic", "tags": dict(TAGS)})
    return _add(s, eip, res("alicloud:ecs/eipAssociation:EipAssociation", "lj-node-eip-assoc",
                            {"allocationId": "eip-y", "instanceId": "i-node0", "instanceType": "EcsInstance"},
                            deps={"allocationId": [eip], "instanceId": [named(s, "lj-node-0")]}))


B1 = [
    # EKS (ADT)
    ("e01", "eks", {}, None, {}, None,
     "control: 81,822.93 < 100,000; FSx on the node group's subnet; NAT + EIP in an elb-tagged edge "
     "subnet; EKS node groups are left to their service by rdma"),
    ("e02", "eks", {}, _ng(remoteAccess={"ec2SshKey": "ops-key"}), {NPI: "fail"}, None,
     "remoteAccess with an SSH key and no sourceSecurityGroupIds: EKS opens 22 to 0.0.0.0/0"),
    ("e03", "eks", {"budget": "50000"}, None, {SPEND: "fail"}, None, "81,822.93 > 50,000"),
    ("e04", "eks", {"fs_zone": "us-west-2b"}, None, {SSZ: "fail"}, None,
     "the FSx on a us-west-2b subnet of the VPC, the only GPU group in us-west-2a: matched by VPC "
     "(step 3), one group in one zone, so 'not in the GPU nodes' zone'"),
    ("e05", "eks", {}, lambda s: (named(s, "p5-nodes").props.update(
                                      subnetIds=["private-a-id", "public-a-id"]),
                                  named(s, "p5-nodes").deps.update(subnetIds=[named(s, "private-a"),
                                                                              named(s, "public-a")]), s)[2],
     {NPI: "fail"}, None,
     "the node group also in the public (mapPublicIpOnLaunch) subnet; its template's interfaces do not "
     "turn public IPs off: a violation on the subnet (the subnet stays in us-west-2a: SSZ passes)"),
    ("e06", "eks", {"max_size": 16.0}, None, {SPEND: "fail"}, None,
     "maxSize 16 copied for autoscaling: 16 x 55.04 x 730 = 642,867.20 > 100,000"),
    ("e07", "eks", {}, _bucket_region("ml-datasets", "us-east-1"), {SSZ: "fail"}, None,
     "the DRA's bucket in us-east-1 (its own region input), nodes in us-west-2: the bucket is read "
     "(the association depends on the FSx and the bucket)"),
    # ParallelCluster-like
    ("p01", "pc", {}, None, {}, None,
     "control: 26,336.83 + a CPU head node < 40,000; p5en with 16 EFA in a cluster group"),
    ("p02", "pc", {"head_subnet": "public", "head_public": True}, None, {NPI: "fail"}, None,
     "the head node in the public subnet with associatePublicIpAddress true (the PCluster default)"),
    ("p03", "pc", {}, lambda s: _add(s, res("aws:ec2/eip:Eip", "head-eip",
                                            {"domain": "vpc", "instance": "i-head", "tags": dict(TAGS)},
                                            deps={"instance": [named(s, "head-node")]})),
     {NPI: "fail"}, None, "an Elastic IP attached to the head node (PCluster ElasticIp: true)"),
    ("p04", "pc", {}, lambda s: (named(s, "hpc-ssh").props.update(cidrIpv4="0.0.0.0/0"), s)[1],
     {NPI: "fail"}, None, "SSH from 0.0.0.0/0 (PCluster AllowedIps default) with no sshCidrs"),
    ("p05", "pc", {"strategy": "spread"}, None, {RDMA: "advisory"}, None,
     "a spread placement group places nothing for RDMA: 4 nodes not in a placement construct"),
    ("p06", "pc", {"cards": 1}, None, {RDMA: "advisory"}, None,
     "one EFA interface where p5en.48xlarge has 16 EFA cards: not the type's fastest fabric"),
    ("p07", "pc", {"hours": None}, lambda s: _add(
        s,
        res("aws:autoscaling/schedule:Schedule", "night-stop",
            {"autoscalingGroupName": "compute-p5en", "scheduledActionName": "night-stop", "minSize": 0.0,
             "maxSize": 0.0, "desiredCapacity": 0.0, "recurrence": "0 20 * * 1-5"},
            deps={"autoscalingGroupName": [named(s, "compute-p5en")]}),
        res("aws:autoscaling/schedule:Schedule", "morning-start",
            {"autoscalingGroupName": "compute-p5en", "scheduledActionName": "morning-start", "minSize": 0.0,
             "maxSize": 4.0, "desiredCapacity": 4.0, "recurrence": "0 7 * * 1-5"},
            deps={"autoscalingGroupName": [named(s, "compute-p5en")]})),
     {SPEND: "fail"}, None,
     "office-hours schedules: the evening stop is followed by a morning start, so no lifetime: "
     "4 x 63.296 x 730 = 184,824.32 > 40,000"),
    # GKE A3 Ultra
    ("k01", "gke", {}, None, {}, None,
     "control: 139,682.54 < 150,000; private nodes; the reservation is a literal (not in the stack) so "
     "the pool is priced whole; GKE pools are left to their service by rdma"),
    ("k02", "gke", {"private": False}, None, {NPI: "fail"}, None,
     "privateClusterConfig left out: GKE nodes get public IPs (clusters/pools without private nodes)"),
    ("k03", "gke", {}, lambda s: (named(s, "a3u-pool").props.update(
        autoscaling={"minNodeCount": 0.0, "maxNodeCount": 8.0}), s)[1], {SPEND: "fail"}, None,
     "autoscaling up to 8 nodes: 8 x 86.7599 x 730 = 506,677.82 > 150,000"),
    ("k04", "gke", {"fs_zone": "us-central1-a"}, None, {SSZ: "fail"}, None,
     "Managed Lustre in us-central1-a, the pool's nodeLocations us-central1-b (one group: fails)"),
    ("k05", "gke", {}, lambda s: _set(s, "a3u-budget", "budgetFilter",
                                      {"services": ["services/95FF-2EF5-5EA1"]}), {SPEND: "fail"}, None,
     "a budget filtered to Cloud Storage only: a services filter without Compute Engine leaves the "
     "GPU pool out: no budget alarm for it"),
    # A3 Mega MIG
    ("m01", "a3m", {}, None, {}, None,
     "control: <= 18,629.44 < 25,000; COLLOCATED; 1 + 8 gVNIC NICs (a3-mega's GPUDirect-TCPXO "
     "fabric, 8 data NICs in instance_types.csv)"),
    ("m02", "a3m", {"zone": "us-central1-a"}, None, {SPEND: "fail"}, None,
     "the blueprint's us-central1: a3-megagpu-8g there is in unpriced_regions.csv (listed, no public "
     "price): GPU capacity that cannot be estimated fails closed", GCP_P),
    ("m03", "a3m", {"fs_zone": "us-east4-b"}, None, {SSZ: "fail"}, None,
     "a zonal BASIC_SSD Filestore in us-east4-b mounted (metadata) by the MIG in us-east4-a"),
    ("m04", "a3m", {"tier": "ENTERPRISE"}, None, {}, None,
     "an ENTERPRISE (regional) Filestore in us-east4: compared by region only: passes (control)"),
    ("m05", "a3m", {"collocation": None}, None, {}, None,
     "a spread resource policy (availabilityDomainCount, no COLLOCATED): not asked, since "
     "a3-megagpu-8g's catalog row has no RDMA fabric (gpudirect-tcpxo, rdma false): docs 'Not asked: "
     "... a type whose catalog row has no RDMA fabric' (MY mistake on the first run: I expected "
     "'advisory')"),
    ("m06", "a3m", {}, lambda s: (named(s, "a3m-tpl").props["networkInterfaces"][0].update(
        accessConfigs=[{"networkTier": "PREMIUM"}]), s)[1], {NPI: "fail"}, None,
     "an accessConfigs entry on nic0 of the template: every node gets an external IP"),
    ("m07", "a3m", {}, lambda s: (named(s, "a3m-iap-ssh").props.update(sourceRanges=["0.0.0.0/0"]), s)[1],
     {NPI: "fail"}, None, "SSH from 0.0.0.0/0 instead of IAP's 35.235.240.0/20, no sshCidrs"),
    # Azure NDv5 classic
    ("z01", "ndv5", {}, None, {}, None,
     "control: <= 42,572.16 < 60,000; classic Linux VMSS without singlePlacementGroup: default true"),
    ("z02", "ndv5", {}, lambda s: _set(s, "ndv5", "singlePlacementGroup", False), {RDMA: "advisory"}, None,
     "singlePlacementGroup false (to go past 100 VMs): 4 NDv5 not placed, no InfiniBand between them"),
    ("z03", "ndv5", {"fs_zone": "2"}, None, {SSZ: "fail"}, None, "AMLFS in zone 2, the scale set in 1"),
    ("z04", "ndv5", {}, lambda s: _set(s, "ndv5-stop", "enabled", False), {SPEND: "fail"}, None,
     "a disabled autoscale setting stops nothing: 4 x 98.32 x 730 = 287,094.40 > 60,000"),
    ("z05", "ndv5", {"sku": "Standard_ND96isr_H200_v5"}, None, {SPEND: "fail"}, None,
     "ND96isr_H200_v5 in eastus: prices.csv lists it in eastus2, not eastus: cannot be estimated"),
    # AKS
    ("a01", "aks", {}, None, {}, None,
     "control: about 250,325 < 300,000 on the subscription budget; private cluster; AKS is managed"),
    ("a02", "aks", {"scope": "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/ml-rg"},
     None, {SPEND: "fail"}, None,
     "a budget on the cluster's own resource group: it holds only the Kubernetes service resource; the "
     "GPU pool bills in MC_ml-rg_aks_eastus2: no budget alarm for it"),
    ("a03", "aks", {"scope": "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/"
                             "MC_ml-rg_aks_eastus2"}, None, {}, None,
     "a budget on the default node resource group MC_<rg>_<cluster>_<location>: covers (control)"),
    ("a04", "aks", {"public_ip": True}, None, {NPI: "fail"}, None, "enableNodePublicIP on the GPU pool"),
    # Alibaba eRDMA
    ("l01", "lj", {}, None, {}, None,
     "control: autoReleaseTime on every node; LowLatency; HighPerformance; the EIP on the NAT passes"),
    ("l02", "lj", {}, lambda s: (named(s, "lj-node-3").props.pop("autoReleaseTime"), s)[1],
     {SPEND: "fail"}, None, "one node without autoReleaseTime: no alarm stands in for it"),
    ("l03", "lj", {"mode": "Standard"}, None, {RDMA: "advisory"}, None,
     "networkInterfaceTrafficMode Standard on ebmgn8v (erdma): not the fastest fabric"),
    ("l04", "lj", {}, _eip_on_node, {NPI: "fail"}, None, "an EIP associated with node 0 (EcsInstance)"),
    ("l05", "lj", {}, _world_ssh_ali, {NPI: "fail"}, None, "an SG rule 0.0.0.0/0 tcp 22/22, no sshCidrs"),
    ("l06", "lj", {"strategy": "Availability"}, None, {RDMA: "advisory"}, None,
     "an Availability deployment set spreads the nodes: not placed"),
    ("l07", "lj", {"fs_zone": "eu-central-1b"}, None, {SSZ: "fail"}, None,
     "CPFS zoneId eu-central-1b, nodes (mounting it) in eu-central-1a"),
]


@pytest.mark.parametrize("case", _params(B1))
def test_batch1(pack, case):
    _run_case(pack, case)


# ------------------------------------------------------------------------------------ batch 2
# Issue 35's classes on the blueprints: reservations and capacity blocks counted once, stops that
# do not stop, budgets that do not cover, compute not seen as compute, public exposure.

def _gke_reservation(count: float):
    def mutate(s):
        resv = res("gcp:compute/reservation:Reservation", "a3u-reservation",
                   {"name": "a3u-reservation", "zone": "us-central1-b", "specificReservationRequired": True,
                    "specificReservation": {"count": count, "instanceProperties": {
                        "machineType": "a3-ultragpu-8g",
                        "guestAccelerators": [{"acceleratorType": "nvidia-h200-141gb",
                                               "acceleratorCount": 8.0}]}}})
        named(s, "a3u-pool").deps["nodeConfig"] = [resv]
        return _add(s, resv)
    return mutate


def _pc_odcr(s):
    odcr = res("aws:ec2/capacityReservation:CapacityReservation", "p5en-odcr",
               {"instanceType": "p5en.48xlarge", "instancePlatform": "Linux/UNIX",
                "availabilityZone": "us-east-2a", "instanceCount": 4.0, "instanceMatchCriteria": "targeted",
                "endDateType": "unlimited", "tags": dict(TAGS)})
    lt = named(s, "compute-lt")
    lt.props["capacityReservationSpecification"] = {"capacityReservationTarget": {
        "capacityReservationId": "cr-x"}}
    lt.deps["capacityReservationSpecification"] = [odcr]
    return _add(s, odcr)


def _eks_block(market: bool, fee: bool = True):
    def mutate(s):
        lt = named(s, "p5-lt")
        lt.props["capacityReservationSpecification"] = {"capacityReservationTarget": {
            "capacityReservationId": "cr-0123456789abcdef0"}}
        if market:
            lt.props["instanceMarketOptions"] = {"marketType": "capacity-block"}
        named(s, "p5-nodes").props["capacityType"] = "CAPACITY_BLOCK"
        return s
    return mutate


def _pc_sched(**kw):
    def mutate(s):
        named(s, "compute-stop").props.update(kw)
        return s
    return mutate


def _a3m_uri(uri: str):
    def mutate(s):
        named(s, "a3m-stop").props["httpTarget"]["uri"] = uri
        return s
    return mutate


def _hyperpod():
    hp = res("aws-native:sagemaker:Cluster", "hyperpod",
             {"clusterName": "ml-hyperpod",
              "instanceGroups": [
                  {"instanceGroupName": "controller", "instanceType": "ml.m5.12xlarge", "instanceCount": 1.0,
                   "executionRole": "arn:aws:iam::111122223333:role/hp",
                   "lifeCycleConfig": {"sourceS3Uri": "s3://hp-lifecycle/", "onCreate": "on_create.sh"}},
                  {"instanceGroupName": "workers", "instanceType": "ml.p5.48xlarge", "instanceCount": 2.0,
                   "executionRole": "arn:aws:iam::111122223333:role/hp", "threadsPerCore": 1.0,
                   "lifeCycleConfig": {"sourceS3Uri": "s3://hp-lifecycle/", "onCreate": "on_create.sh"}}],
              "vpcConfig": {"securityGroupIds": ["sg-0123"], "subnets": ["subnet-0123"]},
              "tags": [{"key": k, "value": v} for k, v in TAGS.items()]})
    bud = res("aws:budgets/budget:Budget", "hp-budget",
              {"budgetType": "COST", "timeUnit": "MONTHLY", "limitAmount": "200000", "limitUnit": "USD",
               "notifications": AWS_ALERTS, "tags": dict(TAGS)})
    return [hp, bud]


BUILD["hp"] = lambda: _hyperpod()
PROVIDERS["hp"] = {"region": "us-east-1"}


def _a3m_login(s):
    return _add(s, res("gcp:compute/instance:Instance", "a3m-login",
                       {"zone": "us-east4-a", "machineType": "n2-standard-4",
                        "bootDisk": {"initializeParams": {"image": "projects/ml/global/images/slurm"}},
                        "networkInterfaces": [{"network": "a3m-net-0-id", "subnetwork": "a3m-sub-0-id",
                                               "accessConfigs": [{}]}],
                        "labels": dict(LABELS)},
                       deps={"networkInterfaces": [named(s, "a3m-net-0"), named(s, "a3m-sub-0")]}))


def _dnat_node0(s):
    return _add(s, res("alicloud:vpc/forwardEntry:ForwardEntry", "lj-dnat-ssh",
                       {"forwardTableId": "ftb-x", "externalIp": "47.1.2.3", "externalPort": "2222",
                        "ipProtocol": "tcp", "internalIp": "172.16.0.10", "internalPort": "22"},
                       deps={"forwardTableId": [named(s, "lj-nat")]}))


B2 = [
    # reservations and capacity blocks: counted once
    ("r01", "gke", {}, _gke_reservation(2.0), {}, None,
     "the SPECIFIC reservation of 2 created in the stack and named by the pool: counted once: "
     "126,669.45 + 12,240.00 + 773.09 = 139,682.54 < 150,000 (twice would be 266,351.99)"),
    ("r02", "gke", {}, _gke_reservation(1.0), {}, None,
     "a reservation of 1 for a pool of 2: 1 in it + 1 beyond = the same 139,682.54 < 150,000"),
    ("r03", "pc", {}, _pc_odcr, {SPEND: "fail"}, None,
     "a targeted ODCR of 4 p5en (unlimited) bills all month whatever the Schedule stop: "
     "4 x 63.296 x 730 = 184,824.32 + 2,031.17 storage > 40,000"),
    ("r04", "pc", {"budget": "200000"}, _pc_odcr, {}, None,
     "the same ODCR under 200,000: counted once (the group's 4 nodes inside it, priced there): "
     "184,824.32 + 2,031.17 = 186,855.49 < 200,000 (ODCR + group's 96 h would be 211,161.15)"),
    ("r05", "eks", {"budget": "40000"}, _eks_block(market=True), {}, {SPEND: {"capacityBlockFeesUsd": {
        "p5-nodes": 31000.0}}},
     "an ADT capacity-block node group (launch template marketType capacity-block + the block's id, "
     "capacityType CAPACITY_BLOCK) priced at its fee: 31,000 + 1,464.53 storage = 32,464.53 < 40,000"),
    ("r06", "eks", {"budget": "40000"}, _eks_block(market=True), {SPEND: "fail"}, None,
     "the same block without capacityBlockFeesUsd: GPU capacity that cannot be estimated (fails closed)"),
    ("r07", "eks", {"budget": "40000"}, _eks_block(market=False), {}, {SPEND: {"capacityBlockFeesUsd": {
        "p5-nodes": 31000.0}}},
     "EKS's own form (capacityType CAPACITY_BLOCK, template targeting the block, no marketType in the "
     "template): launched into the block, so the fee, never the on-demand month (81,822.93)"),
    # stops that do not stop
    ("s01", "pc", {}, _pc_sched(minSize=-1.0, maxSize=-1.0, desiredCapacity=0.0), {}, None,
     "a Schedule of desired 0 keeping min (-1: the group's own, 0) and max: desired and min 0 stop "
     "the group: 26,336.83 < 40,000"),
    ("s02", "pc", {}, lambda s: _pc_sched(minSize=-1.0, maxSize=-1.0, desiredCapacity=0.0)(
        _set(s, "compute-p5en", "minSize", 2.0)), {SPEND: "fail"}, None,
     "the same Schedule on a group of minSize 2: desired 0 under min 2 is refused: no stop: "
     "4 x 63.296 x 730 = 184,824.32 > 40,000"),
    ("s03", "a3m", {}, _a3m_uri("https://www.googleapis.com/compute/v1/projects/ml/zones/us-east4-a/"
                                "instanceGroupManagers/a3m-mig/resize?size=0"), {}, None,
     "the job on www.googleapis.com (the selfLink host) is a stop too: <= 18,629.44"),
    ("s04", "a3m", {}, _a3m_uri("https://compute.googleapis.com/compute/v1/projects/ml/regions/us-east4/"
                                "regionInstanceGroupManagers/a3m-mig/resize?size=0"), {SPEND: "fail"}, None,
     "a regional-group URL for a zonal MIG names another group: no stop: 2 x 92.9376 x 730 = "
     "135,688.90 > 25,000"),
    ("s05", "lj", {"release": (datetime.now(timezone.utc) + timedelta(hours=66)).astimezone(
        timezone(timedelta(hours=8))).strftime("%Y-%m-%dT%H:%M:%S+08:00")}, None, {}, None,
     "an autoReleaseTime with a +08:00 offset is ISO-8601 (about 66 h away): 4 x 58.2708 x <= 73 h; "
     "it stands in for the alarm. (Alibaba's API asks for UTC; the time still reads.)"),
    # budgets that do not cover
    ("f01", "eks", {}, lambda s: _set(s, "ml-budget", "costFilters",
                                      [{"name": "TagKeyValue", "values": ["user:team$pretrain"]}]), {}, None,
     "the node group's instances carry team=pretrain from the launch template's instance "
     "tagSpecifications (EKS launches them from that template): covered"),
    ("f02", "a3m", {}, lambda s: _set(s, "a3m-budget", "budgetFilter", {"labels": {"team": "pretrain"}}),
     {}, None, "the MIG's VMs carry the template's labels, team=pretrain: covered"),
    ("f03", "gke", {}, lambda s: _set(s, "a3u-budget", "budgetFilter", {"labels": {"team": "pretrain"}}),
     {}, None, "the GKE nodes carry nodeConfig.resourceLabels team=pretrain as GCE labels: covered"),
    ("f04", "pc", {}, lambda s: _set(s, "hpc-budget", "costFilters",
                                     [{"name": "Region", "values": ["us-east-1"]}]), {SPEND: "fail"}, None,
     "a Region filter copied from ADT's us-east-1 while the stack runs in us-east-2: no alarm"),
    ("f05", "eks", {}, lambda s: _set(s, "ml-budget", "costFilters",
                                      [{"name": "InstanceType", "values": ["p5.48xlarge"]}]), {}, None,
     "an InstanceType filter on the group's type: covered (81,822.93 < 100,000)"),
    ("f06", "ndv5", {}, lambda s: _add(_drop(s, "hpc-budget"), res(
        "azure:consumption/budgetResourceGroup:BudgetResourceGroup", "hpc-rg-budget",
        {"name": "hpc-rg-budget", "resourceGroupId": "hpc-rg-id", "amount": 60000.0, "timeGrain": "Monthly",
         "timePeriod": {"startDate": "2026-12-01T00:00:00Z"},
         "notifications": [{"enabled": True, "threshold": 80.0, "operator": "GreaterThan",
                            "contactEmails": ["hpc@example.com"]}]},
        deps={"resourceGroupId": [named(s, "hpc-rg")]})), {}, None,
     "a classic resource-group budget built from the scale set's own ResourceGroup: covers it"),
    # compute the pack does not see as compute / catalog reach
    ("c01", "hp", {}, None, {SPEND: "fail"}, None,
     "a SageMaker HyperPod cluster (aws-native:sagemaker:Cluster) of 2 ml.p5.48xlarge: a SageMaker "
     "ml.* GPU variant is GPU capacity that cannot be estimated: fails closed"),
    ("c02", "eks", {}, _ng(instanceTypes=["p5e.48xlarge"]), {SPEND: "fail"}, None,
     "p5e.48xlarge is in unpriced.csv (Capacity Blocks only): fails closed naming the source"),
    ("c03", "lj", {"zone": "cn-wulanchabu-c"}, None, {SPEND: "fail"}, None,
     "the Lingjun region cn-wulanchabu: ebmgn8v has no prices.csv row there: fails closed",
     {"region": "cn-wulanchabu"}),
    ("c04", "ndv5", {"sku": "Standard_ND96isr_MI300X_v5"}, None, {SPEND: "fail"}, None,
     "ND MI300X v5 IS in instance_types.csv (infiniband) and prices.csv, but not in eastus (eastus2 "
     "and others): fails closed naming where it is priced; placed, InfiniBand: rdma passes. (MY "
     "mistake on the first run: a truncated grep made me think the type was outside the catalog.)"),
    # public exposure
    ("n01", "gke", {}, lambda s: (named(s, "a3u-pool").props.update(
        networkConfig={**named(s, "a3u-pool").props["networkConfig"], "enablePrivateNodes": False}), s)[1],
     {NPI: "fail"}, None, "a pool of a private cluster that turns private nodes off itself"),
    ("n02", "a3m", {}, _a3m_login, {NPI: "fail"}, None,
     "a CPU login node with an ephemeral external IP (accessConfigs [{}]): a node's public IP"),
    ("n03", "lj", {}, _dnat_node0, {NPI: "fail"}, None,
     "a DNAT entry on the Internet NAT to node 0's literal private IP 172.16.0.10, port 22"),
    ("n04", "lj", {}, lambda s: _set(s, "lj-node-1", "internetMaxBandwidthOut", 100.0), {NPI: "fail"}, None,
     "internetMaxBandwidthOut 100 gives the node a public IPv4 address"),
    ("n05", "ndv5", {}, lambda s: (named(s, "ndv5").props["networkInterfaces"][0]["ipConfigurations"][0]
                                   .update(publicIpAddresses=[{"name": "pip"}]), s)[1], {NPI: "fail"}, None,
     "a public IP per scale-set instance (classic publicIpAddresses)"),
    # malformed values
    ("v01", "gke", {}, lambda s: _set(s, "a3u-lustre", "capacityGib", "36,000"), {SPEND: "fail"}, None,
     "capacityGib '36,000' (a string input in pulumi-gcp) is text that is no number: a violation"),
    ("v02", "aks", {"max_count": "four"}, None, {SPEND: "fail"}, None, "maxCount 'four': a violation"),
]


@pytest.mark.parametrize("case", _params(B2))
def test_batch2(pack, case):
    _run_case(pack, case)


# ------------------------------------------------------------------------------------ batch 3
# Defect 1's reach (labels a budget filter compares, per managed pool), then more blueprint
# variants: a second (inference / system) pool, an AZ-spread group, CycleCloud's exposure,
# Alibaba ESS / ACK instead of ECS nodes, encryption of data disks, balancers.

def _gke_labels(resource: dict, k8s: Optional[dict]):
    def mutate(s):
        cfg = named(s, "a3u-pool").props["nodeConfig"]
        cfg["resourceLabels"] = resource
        if k8s is not None:
            cfg["labels"] = k8s
        return _set(s, "a3u-budget", "budgetFilter", {"labels": {"team": "pretrain"}})
    return mutate


def _gke_inline(s):
    pool = named(s, "a3u-pool")
    cluster = named(s, "a3u-gke")
    cluster.props.pop("removeDefaultNodePool")
    cluster.props.pop("initialNodeCount")
    cluster.props["nodePools"] = [{"name": "a3u-pool", "nodeCount": 2.0, "nodeLocations": ["us-central1-b"],
                                   "nodeConfig": pool.props["nodeConfig"],
                                   "networkConfig": pool.props["networkConfig"],
                                   "placementPolicy": {"type": "COMPACT"}}]
    cluster.deps["nodePools"] = pool.deps["networkConfig"]
    return _set(_drop(s, "a3u-pool"), "a3u-budget", "budgetFilter", {"labels": {"team": "pretrain"}})


def _aks_tags(pool_tags: dict, node_labels: Optional[dict]):
    def mutate(s):
        pool = named(s, "gpu")
        pool.props["tags"] = pool_tags
        if node_labels is not None:
            pool.props["nodeLabels"] = node_labels
        return _set(s, "ml-budget", "filter", {"tags": {"name": "team", "operator": "In",
                                                        "values": ["pretrain"]}})
    return mutate


def _eks_inst_tags(s):
    named(s, "p5-lt").props["tagSpecifications"] = [{"resourceType": "instance",
                                                     "tags": {**TAGS, "team": "platform"}}]
    named(s, "p5-nodes").props["labels"] = {"team": "pretrain"}
    return _set(s, "ml-budget", "costFilters", [{"name": "TagKeyValue", "values": ["user:team$pretrain"]}])


def _mig_override(s):
    named(s, "a3m-mig").props["allInstancesConfig"] = {"labels": {"team": "platform"}}
    return _set(s, "a3m-budget", "budgetFilter", {"labels": {"team": "pretrain"}})


def _eks_second_pool(itype: str, zone: str, max_size: float, name: str):
    def mutate(s):
        sub = res("aws:ec2/subnet:Subnet", f"{name}-sub",
                  {"vpcId": "vpc-x", "availabilityZone": zone, "cidrBlock": "10.0.192.0/20",
                   "tags": dict(TAGS)},
                  deps={"vpcId": [named(s, "ml-vpc")]})
        ng = res("aws:eks/nodeGroup:NodeGroup", name,
                 {"clusterName": "ml-cluster", "nodeRoleArn": "arn:aws:iam::111122223333:role/eks-node",
                  "subnetIds": [f"{name}-sub-id"], "instanceTypes": [itype], "capacityType": "ON_DEMAND",
                  "scalingConfig": {"desiredSize": 1.0, "minSize": 0.0, "maxSize": max_size},
                  "tags": dict(TAGS)},
                 deps={"clusterName": [named(s, "ml-cluster")], "subnetIds": [sub]})
        return _add(s, sub, ng)
    return mutate


def _eks_spread(s):
    sub = res("aws:ec2/subnet:Subnet", "private-b",
              {"vpcId": "vpc-x", "availabilityZone": "us-west-2b", "cidrBlock": "10.0.128.0/18",
               "tags": dict(TAGS)},
              deps={"vpcId": [named(s, "ml-vpc")]})
    ng = named(s, "p5-nodes")
    ng.props["subnetIds"] = ["private-a-id", "private-b-id"]
    ng.deps["subnetIds"] = [named(s, "private-a"), sub]
    return _add(s, sub)


def _ndv5_cyclecloud(public_ip: bool):
    def mutate(s):
        extra = []
        ipcfg = {"name": "ip", "primary": True, "subnetId": "compute-id",
                 "privateIpAddressAllocation": "Dynamic"}
        deps = {"ipConfigurations": [named(s, "compute")]}
        if public_ip:
            pip = res("azure:network/publicIp:PublicIp", "cc-pip",
                      {"name": "cc-pip", "resourceGroupName": "hpc-rg", "location": "eastus",
                       "allocationMethod": "Static", "sku": "Standard", "tags": dict(TAGS)})
            ipcfg["publicIpAddressId"] = "cc-pip-id"
            deps["ipConfigurations"] = [named(s, "compute"), pip]
            extra.append(pip)
        nic = res("azure:network/networkInterface:NetworkInterface", "cc-nic",
                  {"name": "cc-nic", "resourceGroupName": "hpc-rg", "location": "eastus",
                   "ipConfigurations": [ipcfg], "tags": dict(TAGS)}, deps=deps)
        vm = res("azure:compute/linuxVirtualMachine:LinuxVirtualMachine", "cyclecloud",
                 {"name": "cyclecloud", "resourceGroupName": "hpc-rg", "location": "eastus",
                  "size": "Standard_D8s_v5", "adminUsername": "ccadmin", "networkInterfaceIds": ["cc-nic-id"],
                  "adminSshKeys": [{"username": "ccadmin", "publicKey": "ssh-ed25519 AAAA"}],
                  "osDisk": {"caching": "ReadWrite", "storageAccountType": "Premium_LRS"},
                  "sourceImageReference": {"publisher": "azurecyclecloud", "offer": "azure-cyclecloud",
                                           "sku": "cyclecloud8-gen2", "version": "latest"},
                  "tags": dict(TAGS)}, deps={"networkInterfaceIds": [nic]})
        return _add(s, *extra, nic, vm)
    return mutate


def _nsg_internet_https(s):
    named(s, "hpc-nsg").props["securityRules"].append(
        {"name": "cyclecloud-https", "priority": 200.0, "direction": "Inbound", "access": "Allow",
         "protocol": "Tcp", "sourcePortRange": "*", "destinationPortRange": "443",
         "sourceAddressPrefix": "Internet", "destinationAddressPrefix": "*"})
    return s


def _ess(s):
    nodes = [r for r in s if r.name.startswith("lj-node-")]
    s = [r for r in s if r not in nodes]
    sgrp = res("alicloud:ess/scalingGroup:ScalingGroup", "lj-ess",
               {"scalingGroupName": "lj-ess", "minSize": 0.0, "maxSize": 4.0, "vswitchIds": ["vsw-x"],
                "multiAzPolicy": "PRIORITY", "tags": dict(TAGS)}, deps={"vswitchIds": [named(s, "lj-vsw")]})
    conf = res("alicloud:ess/scalingConfiguration:ScalingConfiguration", "lj-ess-conf",
               {"scalingGroupId": "asg-x", "instanceType": "ecs.ebmgn8v.48xlarge",
                "imageId": "ubuntu_22_04_x64_20G_alibase", "securityGroupId": "sg-x",
                "systemDiskCategory": "cloud_essd", "internetMaxBandwidthOut": 0.0,
                "userData": "bW91bnQgY3Bmcw==",
                "active": True, "enable": True, "tags": dict(TAGS)},
               deps={"scalingGroupId": [sgrp], "securityGroupId": [named(s, "lj-sg")],
                     "userData": [named(s, "lj-cpfs"), named(s, "lj-data")]})
    return _add(s, sgrp, conf)


def _ack(s):
    nodes = [r for r in s if r.name.startswith("lj-node-")]
    s = [r for r in s if r not in nodes]
    ack = res("alicloud:cs/managedKubernetes:ManagedKubernetes", "lj-ack",
              {"name": "lj-ack", "clusterSpec": "ack.pro.small", "vswitchIds": ["vsw-x"],
               "podCidr": "10.96.0.0/16", "serviceCidr": "192.168.0.0/16", "tags": dict(TAGS)},
              deps={"vswitchIds": [named(s, "lj-vsw")]})
    pool = res("alicloud:cs/nodePool:NodePool", "lj-gpu-pool",
               {"clusterId": "c-x", "nodePoolName": "gpu", "vswitchIds": ["vsw-x"],
                "instanceTypes": ["ecs.ebmgn8v.48xlarge"], "desiredSize": 4.0,
                "systemDiskCategory": "cloud_essd", "systemDiskSize": 200.0, "securityGroupIds": ["sg-x"],
                "labels": [{"key": "accelerator", "value": "h20"}], "tags": dict(TAGS)},
               deps={"clusterId": [ack], "vswitchIds": [named(s, "lj-vsw")]})
    return _add(s, ack, pool)


def _data_disk(encrypted: Optional[bool]):
    def mutate(s):
        for r in s:
            if r.name.startswith("lj-node-"):
                disk = {"category": "cloud_essd", "size": 2000.0, "performanceLevel": "PL1"}
                if encrypted is not None:
                    disk["encrypted"] = encrypted
                r.props["dataDisks"] = [disk]
        return s
    return mutate


def _pc_import_path(s):
    fs = named(s, "hpc-fsx")
    fs.props.update(deploymentType="SCRATCH_2", importPath="s3://hpc-data/data")
    fs.props.pop("perUnitStorageThroughput")
    fs.deps["importPath"] = [named(s, "hpc-data")]
    named(s, "hpc-data").props["region"] = "us-west-2"
    return _drop(s, "hpc-fsx-s3")


def _pc_alb(internal: bool):
    def mutate(s):
        lb = res("aws:lb/loadBalancer:LoadBalancer", "jupyter-alb",
                 {"loadBalancerType": "application", "internal": internal, "subnets": ["hpc-public-id"],
                  "securityGroups": ["sg-x"], "tags": dict(TAGS)},
                 deps={"subnets": [named(s, "hpc-public")], "securityGroups": [named(s, "hpc-sg")]})
        tg = res("aws:lb/targetGroup:TargetGroup", "jupyter-tg",
                 {"port": 8888.0, "protocol": "HTTP", "vpcId": "vpc-x", "targetType": "instance",
                  "tags": dict(TAGS)}, deps={"vpcId": [named(s, "hpc-vpc")]})
        ls = res("aws:lb/listener:Listener", "jupyter-https",
                 {"loadBalancerArn": "alb-arn", "port": 443.0, "protocol": "HTTPS",
                  "certificateArn": "arn:aws:acm:us-east-2:111122223333:certificate/x",
                  "defaultActions": [{"type": "forward", "targetGroupArn": "tg-arn"}], "tags": dict(TAGS)},
                 deps={"loadBalancerArn": [lb], "defaultActions": [tg]})
        asg = named(s, "compute-p5en")
        asg.props["targetGroupArns"] = ["tg-arn"]
        asg.deps["targetGroupArns"] = [tg]
        return _add(s, lb, tg, ls)
    return mutate


B3 = [
    # defect 1's reach
    ("d1a", "gke", {}, _gke_labels({"team": "platform", "owner": "carol", "cost_center": "9001"},
                                   {"team": "pretrain"}), {SPEND: "undecided"}, None,
     "GCP labels team=platform on the nodes, Kubernetes labels team=pretrain: a budget on GCP label "
     "team=pretrain does not take the pool in: no budget alarm for it"),
    ("d1b", "gke", {}, _gke_inline, {}, None,
     "the pool inline in the cluster's nodePools, resourceLabels team=pretrain: covered (139,682.54 < "
     "150,000)"),
    ("d1c", "gke", {}, _gke_labels(dict(LABELS), None), {}, None,
     "the separate pool with only GCP labels team=pretrain (the builder's own, again): covered (= f03)"),
    ("d1d", "aks", {}, _aks_tags(dict(TAGS), None), {}, None,
     "an Azure budget tags filter team In [pretrain]; the AgentPool's tags (on its scale set) match"),
    ("d1e", "aks", {}, _aks_tags({**TAGS, "team": "platform"}, {"team": "pretrain"}), {SPEND: "fail"}, None,
     "the pool's Azure tags team=platform, its Kubernetes nodeLabels team=pretrain: not covered"),
    ("d1f", "eks", {}, _eks_inst_tags, {SPEND: "fail"}, None,
     "the instances' tags (the template's instance tagSpecifications) say team=platform; only the "
     "node group's Kubernetes labels and own tags say pretrain: not covered"),
    ("d1g", "a3m", {}, _mig_override, {SPEND: "fail"}, None,
     "the MIG's allInstancesConfig.labels team=platform override the template's: not covered"),
    # a second pool; a spread group
    ("x01", "eks", {}, _eks_second_pool("m5.xlarge", "us-west-2b", 4.0, "system"), {}, None,
     "a CPU system node group in us-west-2b: not GPU capacity, never compared with the FSx; priced "
     "or named (4 x m5.xlarge ~0.19 USD/h x 730 = ~561): < 100,000"),
    ("x02", "eks", {}, _eks_second_pool("g5.12xlarge", "us-west-2b", 2.0, "inference"), {}, None,
     "a g5.12xlarge inference group in us-west-2b: the FSx shares the p5 group's subnet (step 2) and "
     "passes; 81,822.93 + 2 x 5.672 x 730 = 90,104.05 < 100,000; managed pools: rdma not asked"),
    ("x03", "eks", {}, _eks_spread, {SSZ: "fail"}, None,
     "the p5 group spread over us-west-2a and 2b for availability while it shares the FSx's subnet: "
     "a span, one of its zones is not the filesystem's"),
    # Azure CycleCloud exposure, budget period
    ("x04", "ndv5", {}, _ndv5_cyclecloud(True), {NPI: "fail"}, None,
     "the CycleCloud server VM's NIC with a public IP (publicIpAddressId)"),
    ("x05", "ndv5", {}, _ndv5_cyclecloud(False), {}, None,
     "the same server without a public IP: a CPU VM, priced or named (D8s_v5 ~0.38 x 730 = ~280)"),
    ("x06", "ndv5", {}, _nsg_internet_https, {NPI: "fail"}, None,
     "an NSG rule from the service tag Internet to 443 (CycleCloud's web UI)"),
    ("x07", "ndv5", {}, lambda s: (named(s, "hpc-budget").props.update(
        timePeriod={"startDate": _next_month()}), s)[1], {SPEND: "fail"}, None,
     "a budget whose period begins next month tracks nothing now: no alarm on azure"),
    ("x08", "aks", {"budget": 200000.0}, None, {SPEND: "fail"}, None,
     "about 250,325 > 200,000"),
    # Alibaba: ESS, ACK, data disks
    ("x09", "lj", {}, _ess, {SPEND: "fail", RDMA: "advisory"}, None,
     "an ESS scaling group of up to 4 ebmgn8v: never placed (no deployment set): advisory; no "
     "autoReleaseTime stands in for the alarm: fails"),
    ("x10", "lj", {}, _ack, {SPEND: "fail"}, None,
     "an ACK node pool of 4 ebmgn8v: managed (rdma not asked), no autoReleaseTime: no alarm"),
    ("x11", "lj", {}, _data_disk(None), {ENC: "fail"}, None,
     "a 2 TB ESSD data disk on every node without `encrypted`: instance data disks need it"),
    ("x12", "lj", {}, _data_disk(True), {}, None, "the same data disks encrypted: passes"),
    # AWS: FSx importPath, balancers
    ("x13", "pc", {}, _pc_import_path, {SSZ: "fail"}, None,
     "a SCRATCH_2 FSx with importPath from a bucket in us-west-2, nodes in us-east-2: the bucket is "
     "read by the filesystem the cluster mounts"),
    ("x14", "pc", {}, _pc_alb(False), {NPI: "fail"}, None,
     "an internet-facing ALB forwarding to the GPU ASG's target group"),
    ("x15", "pc", {}, _pc_alb(True), {}, None, "the same ALB internal: passes"),
]


@pytest.mark.parametrize("case", _params(B3))
def test_batch3(pack, case):
    _run_case(pack, case)


# ------------------------------------------------------------------------------------ batch 4
# Capacity counted twice or not at all in the blueprints' own forms: GKE pool sizes per zone and
# total, Slurm static VMs in a reservation, an Azure classic capacity reservation group, an
# Alibaba private pool, DWS flex-start resize requests; EKS / AKS types read from elsewhere.

def _pool(**kw):
    def mutate(s):
        named(s, "a3u-pool").props.update(kw)
        return s
    return mutate


def a3u_vms(budget: Any = "150000", count: float = 2.0, in_stack: bool = True, hours: float = 96) -> list:
    """Cluster Toolkit a3-ultragpu Slurm's static nodes: 2 VMs in a SPECIFIC reservation, each with
    maxRunDuration; Managed Lustre 500 of 36,000 GiB, bucket, budget."""
    pol = res("gcp:compute/resourcePolicy:ResourcePolicy", "a3u-compact",
              {"region": "us-central1",
               "groupPlacementPolicy": {"collocation": "COLLOCATED", "vmCount": 2.0}})
    resv = res("gcp:compute/reservation:Reservation", "a3u-res",
               {"name": "a3u-res", "zone": "us-central1-b", "specificReservationRequired": True,
                "specificReservation": {"count": count,
                                        "instanceProperties": {"machineType": "a3-ultragpu-8g"}}})
    lustre = res("gcp:lustre/instance:Instance", "a3u-lustre",
                 {"location": "us-central1-b", "instanceId": "a3u-lustre", "capacityGib": "36000",
                  "perUnitStorageThroughput": "500", "filesystem": "lfs",
                  "network": "projects/ml/global/networks/a3u-net-0", "labels": dict(LABELS)})
    bucket = res("gcp:storage/bucket:Bucket", "a3u-data",
                 {"location": "US-CENTRAL1", "forceDestroy": False,
                  "labels": {**LABELS, "trainstack_retain": "true"}}, retain=True)
    nics = [{"nicType": "GVNIC", "network": "a3u-net-0"}, {"nicType": "GVNIC", "network": "a3u-net-1"}] + \
        [{"nicType": "MRDMA", "network": "a3u-rdma-net", "subnetwork": f"a3u-rdma-sub-{i}"} for i in range(8)]
    vms = []
    for i in range(2):
        deps = {"resourcePolicies": [pol], "metadata": [lustre, bucket]}
        if in_stack:
            deps["reservationAffinity"] = [resv]
        vms.append(res("gcp:compute/instance:Instance", f"a3u-node-{i}",
                       {"zone": "us-central1-b", "machineType": "a3-ultragpu-8g", "networkInterfaces": nics,
                        "bootDisk": {"initializeParams": {"image": "projects/ml/global/images/slurm-a3u"}},
                        "resourcePolicies": "a3u-compact-id", "labels": dict(LABELS),
                        "metadata": {"startup-script": "mount lustre"},
                        "reservationAffinity": {"type": "SPECIFIC_RESERVATION", "specificReservation": {
                            "key": "compute.googleapis.com/reservation-name", "values": ["a3u-res"]}},
                        "scheduling": {"onHostMaintenance": "TERMINATE", "provisioningModel": "STANDARD",
                                       "maxRunDuration": {"seconds": float(hours * 3600)},
                                       "instanceTerminationAction": "DELETE"}}, deps=deps))
    bud = res("gcp:billing/budget:Budget", "a3u-budget",
              {"billingAccount": "000000-000000-000000",
               "amount": {"specifiedAmount": {"currencyCode": "USD", "units": budget}},
               "thresholdRules": GCP_ALERTS})
    return [pol, *([resv] if in_stack else []), lustre, bucket, *vms, bud]


BUILD["a3uvm"] = a3u_vms
PROVIDERS["a3uvm"] = GCP_P


def _ndv5_crg(s):
    crg = res("azure:compute/capacityReservationGroup:CapacityReservationGroup", "nd-crg",
              {"name": "nd-crg", "resourceGroupName": "hpc-rg", "location": "eastus", "zones": ["1"],
               "tags": dict(TAGS)}, deps={"resourceGroupName": [named(s, "hpc-rg")]})
    cr = res("azure:compute/capacityReservation:CapacityReservation", "nd-cr",
             {"name": "nd-cr", "capacityReservationGroupId": "nd-crg-id", "zone": "1",
              "sku": {"name": "Standard_ND96isr_H100_v5", "capacity": 4.0}, "tags": dict(TAGS)},
             deps={"capacityReservationGroupId": [crg]})
    vmss = named(s, "ndv5")
    vmss.props["capacityReservationGroupId"] = "nd-crg-id"
    vmss.deps["capacityReservationGroupId"] = [crg]
    vmss.deps.setdefault("customData", []).append(cr)   # the set is created after the reservation
    return _add(s, crg, cr)


def _ali_private_pool(s):
    cr = res("alicloud:ecs/capacityReservation:CapacityReservation", "lj-cr",
             {"capacityReservationName": "lj-cr", "instanceType": "ecs.ebmgn8v.48xlarge",
              "instanceAmount": 4.0,
              "zoneIds": ["eu-central-1a"], "matchCriteria": "Target", "platform": "linux",
              "endTimeType": "Limited", "endTime": hours_from_now(72.0), "tags": dict(TAGS)})
    for r in s:
        if r.name.startswith("lj-node-"):
            r.props.update(privatePoolOptionsMatchCriteria="Target", privatePoolOptionsId="crp-x")
            r.deps["privatePoolOptionsId"] = [cr]
    return _add(s, cr)


def _flex(run_seconds: Optional[str]):
    def mutate(s):
        mig = named(s, "a3m-mig")
        mig.props["targetSize"] = 0.0
        rr = {"name": "a3m-flex", "instanceGroupManager": "a3m-mig", "zone": "us-east4-a", "resizeBy": 2.0}
        if run_seconds is not None:
            rr["requestedRunDuration"] = {"seconds": run_seconds}
        return _add(s, res("gcp:compute/resizeRequest:ResizeRequest", "a3m-flex", rr,
                           deps={"instanceGroupManager": [mig]}))
    return mutate


def _eks_lt_type(s):
    named(s, "p5-lt").props["instanceType"] = "p5.48xlarge"
    named(s, "p5-nodes").props.pop("instanceTypes")
    return s


def _aks_inline(scope_rg: bool):
    def mutate(s):
        pool = named(s, "gpu")
        cluster = named(s, "aks")
        cluster.props["agentPoolProfiles"].append(
            {"name": "gpu", "mode": "User", "vmSize": "Standard_ND96isr_H200_v5", "count": 2.0,
             "enableAutoScaling": True, "minCount": 0.0, "maxCount": 4.0, "osType": "Linux",
             "availabilityZones": ["1"], "tags": dict(TAGS)})
        s = [r for r in s if r is not pool]
        if scope_rg:
            named(s, "ml-budget").props["scope"] = \
                "/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/ml-rg"
        return s
    return mutate


B4 = [
    ("g01", "gke", {}, _pool(autoscaling={"totalMinNodeCount": 0.0, "totalMaxNodeCount": 8.0,
                                          "locationPolicy": "ANY"}), {SPEND: "fail"}, None,
     "autoscaling by totalMaxNodeCount 8 (the Toolkit's total limits): 8 x 86.7599 x 730 = "
     "506,677.82 > 150,000"),
    ("g02", "gke", {}, _pool(nodeLocations=["us-central1-b", "us-central1-c"]), {SPEND: "fail"}, None,
     "nodeCount is per zone: 2 zones x 2 = 4 nodes = 253,338.91 + 13,013.09 > 150,000 (2 nodes would "
     "pass at 139,682.54). SSZ passes: a GKE pool is not seen to mount the Lustre (CSI) nor shares a "
     "subnet with it, so it is matched at steps 3-5, where groups of two or more known zones may be "
     "separate clusters and a filesystem in one of their zones passes (MY mistake on the first run: "
     "I expected the span verdict, which the docs keep for groups seen to mount it)"),
    ("g03", "a3uvm", {}, None, {}, None,
     "Slurm static VMs in a reservation of the stack: the reservation bills all month, 2 x 86.7599 x "
     "730 = 126,669.45, the VMs inside it counted once; + 13,013.09 = 139,682.54 < 150,000 (the VMs' "
     "96 h on top would be 156,340.44)"),
    ("g04", "a3uvm", {"in_stack": False}, None, {}, None,
     "the same VMs naming a reservation created outside (billed elsewhere): priced for their 96 h "
     "(maxRunDuration on single VMs): 16,657.90 + 13,013.09 = 29,670.99 < 150,000"),
    ("g05", "a3uvm", {"in_stack": False, "budget": "25000"}, None, {SPEND: "fail"}, None,
     "the same under 25,000: 29,670.99 > 25,000"),
    ("g06", "a3m", {"hours": None, "budget": "40000"}, _flex("604800"), {}, None,
     "DWS flex-start: target 0, a ResizeRequest of 2 for 7 days: 2 x 92.9376 x 168 = 31,226.03 + "
     "<= 785.42 < 40,000"),
    ("g07", "a3m", {"hours": None, "budget": "25000"}, _flex("604800"), {SPEND: "fail"}, None,
     "the same under 25,000: 31,226.03 > 25,000"),
    ("g08", "a3m", {"hours": None, "budget": "40000"}, _flex(None), {SPEND: "fail"}, None,
     "a resize request with no requestedRunDuration: the VMs stay: the month, 135,688.90 > 40,000"),
    ("g09", "ndv5", {"budget": 300000.0}, _ndv5_crg, {}, None,
     "a classic capacity reservation of 4 ND H100 v5 the scale set uses (capacityReservationGroupId): "
     "the reservation bills all month, 4 x 98.32 x 730 = 287,094.40, the set inside it counted once: "
     "+ <= 4,817.28 = 291,911.68 < 300,000 (the set's 96 h on top: 329,666.56)"),
    ("g10", "lj", {}, _ali_private_pool, {}, {SPEND: {"maxMonthlyUsd": 30000.0}},
     "an Alibaba private pool (Target) of 4 ebmgn8v until 72 h, the nodes inside it: counted once, "
     "4 x 58.2708 x 72 = 16,781.99 + CPFS 3,600 GiB (at most 0.28211/GB, ~1,090) + OSS ~67 < 30,000 "
     "(twice: > 33,563)"),
    ("g11", "eks", {}, _eks_lt_type, {}, None,
     "the p5 type only in the launch template (no instanceTypes on the node group): 81,822.93"),
    ("g12", "aks", {}, _aks_inline(False), {}, None,
     "the GPU pool inline in agentPoolProfiles (0-4 autoscaling): about 250,325 < 300,000"),
    ("g13", "aks", {}, _aks_inline(True), {SPEND: "fail"}, None,
     "the same inline pool, the budget on the cluster's own group: no alarm for the pool"),
]


@pytest.mark.parametrize("case", _params(B4))
def test_batch4(pack, case):
    _run_case(pack, case)


# ------------------------------------------------------------------------------------ batch 5
# Budget filters as the blueprints' regions write them, the storage the Toolkit offers
# (Parallelstore), encryption and retention of the blueprints' buckets and filesystems, and
# tags the blueprint leaves to the provider (ADT's default tags).

def _cost_filter(name: str, values: list, budget: str = "ml-budget"):
    return lambda s: _set(s, budget, "costFilters", [{"name": name, "values": values}])


def _parallelstore(zone: str):
    def mutate(s):
        ps = res("gcp:parallelstore/instance:Instance", "a3m-pstore",
                 {"location": zone, "instanceId": "a3m-pstore", "capacityGib": "12000",
                  "network": "projects/ml/global/networks/a3m-net-0", "labels": dict(LABELS)},
                 deps={"network": [named(s, "a3m-net-0")]})
        named(s, "a3m-tpl").deps["metadata"].append(ps)
        return _add(s, ps)
    return mutate


def _oss_no_sse(s):
    named(s, "lj-data").props.pop("serverSideEncryptionRule")
    return s


def _nas_extreme(encrypt: float):
    def mutate(s):
        nas = res("alicloud:nas/fileSystem:FileSystem", "lj-home",
                  {"fileSystemType": "extreme", "protocolType": "NFS", "storageType": "standard",
                   "capacity": 100.0, "zoneId": "eu-central-1a", "encryptType": encrypt, "tags": dict(TAGS)})
        for r in s:
            if r.name.startswith("lj-node-"):
                r.deps["userData"].append(nas)
        return _add(s, nas)
    return mutate


def _gcs_cmek(key: str):
    return lambda s: _set(s, "a3m-data", "encryption", {"defaultKmsKeyName": key})


def _amlfs_key(url: str):
    return lambda s: _set(s, "hpc-amlfs", "encryptionSettings", {"keyEncryptionKey": {
        "keyUrl": url, "sourceVault": {"id": "/subscriptions/00000000-0000-0000-0000-000000000001/"
                                             "resourceGroups/hpc-rg/providers/Microsoft.KeyVault/"
                                             "vaults/hpc-kv"}}})


def _untag(s):
    for r in s:
        r.props.pop("tags", None)
        if "tagSpecifications" in r.props:
            r.props.pop("tagSpecifications")
    named(s, "ml-datasets").props["tags"] = {"trainstack:retain": "true"}
    return s


ADT_DEFAULT_TAGS = {"region": "us-west-2", "defaultTags": {"tags": dict(TAGS)}}

B5 = [
    ("h01", "eks", {}, _cost_filter("PurchaseType", ["Spot"]), {SPEND: "fail"}, None,
     "a Spot-only budget: the node group is ON_DEMAND: no alarm for it"),
    ("h02", "eks", {}, _cost_filter("UsageType", ["USW2-BoxUsage:p5.48xlarge"]), {}, None,
     "the group's instance hours are USW2-BoxUsage:p5.48xlarge (us-west-2, On-Demand): covered"),
    ("h03", "eks", {}, _cost_filter("UsageType", ["USE1-BoxUsage:p5.48xlarge"]), {SPEND: "fail"}, None,
     "the us-east-1 usage type copied from another region's budget: leaves the us-west-2 hours out"),
    ("h04", "a3m", {}, lambda s: _set(s, "a3m-budget", "budgetFilter",
                                      {"projects": ["projects/123456789012"]}),
     {}, None, "a budget on the project by number: taken as the stack's own project: covered"),
    ("h05", "a3m", {}, _parallelstore("us-east4-a"), {}, None,
     "a 12,000 GiB Parallelstore in the nodes' zone beside the Filestore: 12,000 x 0.0001917808 x 730 "
     "= 1,680.00 more: <= 20,309.44 < 25,000"),
    ("h06", "a3m", {}, _parallelstore("us-east4-b"), {SSZ: "fail"}, None,
     "the Parallelstore the template mounts in us-east4-b, the MIG in us-east4-a"),
    ("h07", "lj", {}, _oss_no_sse, {ENC: "fail"}, None,
     "an OSS bucket without a server-side encryption rule (the docs' remediation asks for one)"),
    ("h08", "lj", {}, _nas_extreme(0.0), {ENC: "fail"}, None,
     "an extreme NAS for /home with encryptType 0: standard and extreme NAS need 1 or 2"),
    ("h09", "lj", {}, _nas_extreme(1.0), {}, None, "the same NAS with encryptType 1: passes"),
    ("h10", "a3m", {}, _gcs_cmek("a3m-key"), {ENC: "fail"}, None,
     "a bucket CMEK given as a bare key name, not projects/.../cryptoKeys/<k>"),
    ("h11", "a3m", {}, _gcs_cmek("projects/ml/locations/us-east4/keyRings/ml/cryptoKeys/a3m-key"), {}, None,
     "the full Cloud KMS key name: passes"),
    ("h12", "ndv5", {}, _amlfs_key("https://hpc-kv.vault.azure.net/secrets/amlfs"), {ENC: "fail"}, None,
     "an AMLFS key-encryption key given as a Key Vault SECRET URL"),
    ("h13", "ndv5", {}, _amlfs_key("https://hpc-kv.vault.azure.net/keys/amlfs/0123456789abcdef"), {}, None,
     "a Key Vault key URL with its version: passes"),
    ("h14", "a3m", {}, lambda s: _set(s, "a3m-data", "forceDestroy", True), {RET: "fail"}, None,
     "forceDestroy true on the Toolkit bucket (protected, tagged, but destroy empties it)"),
    ("h15", "aks", {}, lambda s: (named(s, "mldata").props["tags"].pop("trainstack:retain"),
                                  setattr(named(s, "mldata"), "retain", None), s)[2], {RET: "fail"}, None,
     "the storage account neither protected nor tagged trainstack:retain"),
    ("h16", "eks", {}, _untag, {}, None,
     "ADT leaves tags to the provider's defaultTags (owner, team, cost-center): counted", ADT_DEFAULT_TAGS),
    ("h17", "eks", {}, _untag, {TAGS_P: "fail"}, None,
     "the same stack without the provider's defaultTags: untagged resources"),
]


@pytest.mark.parametrize("case", _params(B5))
def test_batch5(pack, case):
    _run_case(pack, case)


# ------------------------------------------------------------------------------------ batch 6
# Defect 1 on a GKE cluster's own nodeConfig; GPU nodes behind the blueprints' balancers; stops an
# autoscaler undoes; a Capacity Block bought in the stack; a node group from eksctl's template.

def _gke_default_pool(s):
    pool = named(s, "a3u-pool")
    cluster = named(s, "a3u-gke")
    cluster.props.pop("removeDefaultNodePool")
    cluster.props["initialNodeCount"] = 2.0
    cluster.props["nodeConfig"] = pool.props["nodeConfig"]
    return _set(_drop(s, "a3u-pool"), "a3u-budget", "budgetFilter", {"labels": {"team": "pretrain"}})


def _gcp_lb(scheme: str):
    def mutate(s):
        mig = named(s, "a3m-mig")
        hc = res("gcp:compute/regionHealthCheck:RegionHealthCheck", "tb-hc",
                 {"region": "us-east4", "tcpHealthCheck": {"port": 6006.0}})
        be = res("gcp:compute/regionBackendService:RegionBackendService", "tb-backend",
                 {"region": "us-east4", "protocol": "TCP", "loadBalancingScheme": scheme,
                  "healthChecks": "tb-hc-id", "backends": [{"group": "a3m-mig-instance-group",
                                                            "balancingMode": "CONNECTION"}]},
                 deps={"backends": [mig], "healthChecks": [hc]})
        fr = res("gcp:compute/forwardingRule:ForwardingRule", "tb-fr",
                 {"region": "us-east4", "loadBalancingScheme": scheme, "ports": ["6006"],
                  "backendService": "tb-backend-id", "ipProtocol": "TCP",
                  **({"network": "a3m-net-0-id", "subnetwork": "a3m-sub-0-id"}
                     if scheme == "INTERNAL" else {})},
                 deps={"backendService": [be]})
        return _add(s, hc, be, fr)
    return mutate


def _azure_public_lb(s):
    pip = res("azure:network/publicIp:PublicIp", "lb-pip",
              {"name": "lb-pip", "resourceGroupName": "hpc-rg", "location": "eastus",
               "allocationMethod": "Static",
               "sku": "Standard", "tags": dict(TAGS)})
    lb = res("azure:lb/loadBalancer:LoadBalancer", "hpc-lb",
             {"name": "hpc-lb", "resourceGroupName": "hpc-rg", "location": "eastus", "sku": "Standard",
              "frontendIpConfigurations": [{"name": "public", "publicIpAddressId": "lb-pip-id"}],
              "tags": dict(TAGS)}, deps={"frontendIpConfigurations": [pip]})
    pool = res("azure:lb/backendAddressPool:BackendAddressPool", "hpc-pool",
               {"name": "nodes", "loadbalancerId": "hpc-lb-id"}, deps={"loadbalancerId": [lb]})
    rule = res("azure:lb/rule:Rule", "jupyter",
               {"name": "jupyter", "loadbalancerId": "hpc-lb-id", "protocol": "Tcp", "frontendPort": 443.0,
                "backendPort": 8888.0, "frontendIpConfigurationName": "public",
                "backendAddressPoolIds": ["hpc-pool-id"]}, deps={"loadbalancerId": [lb],
                                                                 "backendAddressPoolIds": [pool]})
    vmss = named(s, "ndv5")
    ipcfg = vmss.props["networkInterfaces"][0]["ipConfigurations"][0]
    ipcfg["loadBalancerBackendAddressPoolIds"] = ["hpc-pool-id"]
    vmss.deps["networkInterfaces"].append(pool)
    return _add(s, pip, lb, pool, rule)


def _ali_slb(address_type: str):
    def mutate(s):
        slb = res("alicloud:slb/loadBalancer:LoadBalancer", "lj-slb",
                  {"loadBalancerName": "lj-slb", "addressType": address_type,
                   "loadBalancerSpec": "slb.s2.small",
                   "vswitchId": "vsw-x" if address_type == "intranet" else None, "tags": dict(TAGS)},
                  deps={"vswitchId": [named(s, "lj-vsw")]} if address_type == "intranet" else {})
        if slb.props["vswitchId"] is None:
            slb.props.pop("vswitchId")
        nodes = [r for r in s if r.name.startswith("lj-node-")]
        be = res("alicloud:slb/backendServer:BackendServer", "lj-slb-nodes",
                 {"loadBalancerId": "lb-x", "backendServers": [{"serverId": f"i-{i}", "weight": 100.0}
                                                               for i in range(len(nodes))]},
                 deps={"loadBalancerId": [slb], "backendServers": nodes})
        ls = res("alicloud:slb/listener:Listener", "lj-slb-https",
                 {"loadBalancerId": "lb-x", "frontendPort": 443.0, "backendPort": 8888.0, "protocol": "tcp",
                  "bandwidth": 10.0}, deps={"loadBalancerId": [slb]})
        return _add(s, slb, be, ls)
    return mutate


def _a3m_autoscaler(s):
    return _add(s, res("gcp:compute/autoscaler:Autoscaler", "a3m-as",
                       {"zone": "us-east4-a", "target": "a3m-mig-id",
                        "autoscalingPolicy": {"minReplicas": 0.0, "maxReplicas": 4.0,
                                              "cooldownPeriod": 600.0,
                                              "cpuUtilization": {"target": 0.6}}},
                       deps={"target": [named(s, "a3m-mig")]}))


def _eks_bought_block(s):
    cb = res("aws:ec2/capacityBlockReservation:CapacityBlockReservation", "p5-block",
             {"capacityBlockOfferingId": "cb-0123456789abcdef0", "instancePlatform": "Linux/UNIX",
              "tags": dict(TAGS)})
    lt = named(s, "p5-lt")
    lt.props["capacityReservationSpecification"] = {"capacityReservationTarget": {
        "capacityReservationId": "cr-x"}}
    lt.props["instanceMarketOptions"] = {"marketType": "capacity-block"}
    lt.deps["capacityReservationSpecification"] = [cb]
    named(s, "p5-nodes").props["capacityType"] = "CAPACITY_BLOCK"
    return _add(s, cb)


def _eksctl_template(s):
    ng = named(s, "p5-nodes")
    ng.props.pop("instanceTypes")
    ng.props["launchTemplate"] = {"name": "eksctl-ml-cluster-nodegroup-p5", "version": "3"}
    ng.deps.pop("launchTemplate")
    return s


B6 = [
    ("d1h", "gke", {}, _gke_default_pool, {}, None,
     "the GPU nodes in the cluster's own default pool (cluster nodeConfig, resourceLabels "
     "team=pretrain, 2 nodes in us-central1-b): a budget on team=pretrain covers them"),
    ("n06", "a3m", {}, _gcp_lb("EXTERNAL"), {NPI: "fail"}, None,
     "TensorBoard on the GPU MIG behind an EXTERNAL forwarding rule -> regional backend service"),
    ("n07", "a3m", {}, _gcp_lb("INTERNAL"), {}, None, "the same balancer INTERNAL: passes"),
    ("n08", "ndv5", {}, _azure_public_lb, {NPI: "fail"}, None,
     "a classic public load balancer whose rule forwards 443 to the scale set's backend pool"),
    ("n09", "lj", {}, _ali_slb("internet"), {NPI: "fail"}, None,
     "an internet SLB with the GPU nodes as backend servers"),
    ("n10", "lj", {}, _ali_slb("intranet"), {}, None, "the same SLB intranet: passes"),
    ("s06", "a3m", {}, _a3m_autoscaler, {SPEND: "fail"}, None,
     "an autoscaler (max 4) on the MIG may size it up after the stop job: no lifetime, and the "
     "group at its autoscaler's maximum: 4 x 92.9376 x 730 = 271,377.79 > 25,000"),
    ("r08", "eks", {"budget": "40000"}, _eks_bought_block, {}, {SPEND: {"capacityBlockFeesUsd": {
        "p5-nodes": 31000.0}}},
     "a Capacity Block the stack buys and the node group launches into: priced once, with the "
     "group, at the fee given for the group: 32,464.53 < 40,000"),
    ("r09", "eks", {}, _eksctl_template, {SPEND: "fail"}, None,
     "the node group from eksctl's launch template (a literal name) with no instanceTypes: GPU "
     "capacity whose type is read nowhere fails closed"),
]


@pytest.mark.parametrize("case", _params(B6))
def test_batch6(pack, case):
    _run_case(pack, case)


# ------------------------------------------------------------------------------------ batch 7
# Reservations consumed without being named (GKE ANY_RESERVATION, an open ODCR taking an EKS
# group's On-Demand nodes) and not consumed (another zone, another CPU platform).

def _gke_any_reservation(s):
    resv = res("gcp:compute/reservation:Reservation", "a3u-open-res",
               {"name": "a3u-open-res", "zone": "us-central1-b",
                "specificReservation": {"count": 2.0,
                                        "instanceProperties": {"machineType": "a3-ultragpu-8g"}}})
    named(s, "a3u-pool").props["nodeConfig"]["reservationAffinity"] = {
        "consumeReservationType": "ANY_RESERVATION"}
    return _add(s, resv)


def _vms_platform(s):
    named(s, "a3u-res").props["specificReservation"]["instanceProperties"]["minCpuPlatform"] = \
        "Intel Sapphire Rapids"
    for r in s:
        if r.name.startswith("a3u-node-"):
            r.props["minCpuPlatform"] = "Intel Emerald Rapids"
    return s


def _eks_open_odcr(zone: str):
    def mutate(s):
        return _add(s, res("aws:ec2/capacityReservation:CapacityReservation", "p5-odcr",
                           {"instanceType": "p5.48xlarge", "instancePlatform": "Linux/UNIX",
                            "availabilityZone": zone, "instanceCount": 2.0, "instanceMatchCriteria": "open",
                            "endDateType": "unlimited", "tags": dict(TAGS)}))
    return mutate


B7 = [
    ("o01", "gke", {}, _gke_any_reservation, {}, None,
     "an open reservation of 2 a3-ultragpu-8g in us-central1-b (specificReservationRequired left "
     "false) and a pool of 2 there with ANY_RESERVATION: counted once, 139,682.54 < 150,000 (twice: "
     "266,351.99)"),
    ("o02", "a3uvm", {}, _vms_platform, {SPEND: "fail"}, None,
     "the reservation's minCpuPlatform is not the VMs': they are not matched, both priced: 126,669.45 "
     "+ 16,657.90 + 13,013.09 = 156,340.44 > 150,000"),
    ("o03", "eks", {}, _eks_open_odcr("us-west-2a"), {}, None,
     "an open ODCR of 2 p5.48xlarge in us-west-2a takes the node group's On-Demand nodes (open "
     "preference by default): counted once, 81,822.93 < 100,000 (twice: 162,181.33)"),
    ("o04", "eks", {}, _eks_open_odcr("us-west-2b"), {SPEND: "fail"}, None,
     "the same ODCR in us-west-2b takes nothing of the group in 2a: both priced, 162,181.33 > 100,000; "
     "the FSx shares the node group's subnet (step 2): SSZ passes"),
]


@pytest.mark.parametrize("case", _params(B7))
def test_batch7(pack, case):
    _run_case(pack, case)
