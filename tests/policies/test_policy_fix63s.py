"""Fix63s: review63's DEFECTS 1, 2, 3, 4 and 9 (tests/policies/test_policy_review63.py), and the
variants that review did not write, over gRPC as `pulumi preview --policy-pack policies` drives
the pack. The stacks are review63's (its builders, figures in its header); each case states the
verdict of every policy (those not named stay "pass") and `why` holds the hand calculation from
the catalog CSVs or the cited public source.
"""
from __future__ import annotations

import pytest

from tests.policies import test_policy_review63 as r63
from tests.policy_fixtures import res
from tests.policy_harness import PolicyPackProcess

SPEND, RDMA, SSZ, NPI = r63.SPEND, r63.RDMA, r63.SSZ, r63.NPI
AZ_TAGS, TAGS, LABELS = r63.AZ_TAGS, r63.TAGS, r63.LABELS
_new, _set, _setp, _add, named = r63._new, r63._set, r63._setp, r63._add, r63.named


# ------------------------------------------------------------------------------------ DEFECT 9
# A value written in another shape than the number, or the object holding it, that is asked
# for. Docs (Numbers are validated): a size or budget amount that is no number "is a violation
# naming that resource and value, never a zero and never left out"; "a budget that cannot be
# read is not 'no cap'". Scope: GPU capacity "whose type is ... read nowhere" is named and fails
# closed, so a scale set whose sku cannot be read does not vanish as "no GPU".

def _az_reservation(sku):
    return _new("azure-native:compute:CapacityReservation", "cr", {
        "resourceGroupName": "rg", "capacityReservationGroupName": "crg", "location": "eastus",
        "zones": ["1"], "sku": sku, "tags": dict(AZ_TAGS)})


D9 = [
    ("n01", "aws", {"max_size": {"value": 2.0}}, None,
     {SPEND: "fail", "_msg": {SPEND: ["{'value': 2.0}"]}}, None,
     "maxSize written as an object {value: 2}: no number; a violation naming the value"),
    ("n02", "aws", {"max_size": [2.0]}, None, {SPEND: "fail", "_msg": {SPEND: ["[2.0]"]}}, None,
     "maxSize [2] (review63 m06): the finding names the list, not a size read from it"),
    ("n03", "aws", {"budget": {"amount": "20000"}}, None,
     {SPEND: "fail", "_msg": {SPEND: ["{'amount': '20000'}"]}}, None,
     "limitAmount written as an object: the budget cannot be read; not 'no cap', a violation "
     "naming it"),
    ("n04", "gcp", {}, _set("train-budget", "amount", [
        {"specifiedAmount": {"currencyCode": "USD", "units": "30000"}}]),
     {SPEND: "fail", "_msg": {SPEND: ["'units': '30000'"]}}, None,
     "the whole `amount` a list of one (an object expected), one level above review63 q09: the "
     "amount cannot be read"),
    ("n05", "azure", {}, _set("nodes", "sku", 2.0),
     {SPEND: "fail", RDMA: "undecided", "_msg": {SPEND: ["its size 2.0 is not a finite"]}}, None,
     "the scale set's sku a number: neither its size nor its type reads (sku.capacity is not "
     "read as 2 from it); GPU capacity that fails closed; rdma cannot read the type: cannot "
     "decide (as for review53's group whose type is read nowhere)"),
    ("n06", "azure", {}, _set("nodes", "sku", [{"name": "Standard_ND96isr_H100_v5", "capacity": 2.0}]),
     {SPEND: "fail", RDMA: "undecided",
      "_msg": {SPEND: ["its size [{", "'name': 'Standard_ND96isr_H100_v5'", "}] is not"]}},
     None, "review63 r03's shape: the finding names the sku list (the size refused first; the "
     "type that cannot be read makes it GPU capacity, so the stack is judged at all)"),
    ("n07", "azure", {}, _az_reservation([{"name": "Standard_NC4as_T4_v3", "capacity": 1.0}]),
     {SPEND: "fail", "_msg": {SPEND: ["cr (azure-native:compute:CapacityReservation)",
                                      "is not a finite"]}}, None,
     "an Azure capacity reservation whose sku is a list of one: billed used or not, so its "
     "size that cannot be read is a violation naming it (reservations are not placed by rdma)"),
    ("n08", "azure", {}, _az_reservation({"name": "Standard_NC4as_T4_v3", "capacity": 1.0}), {},
     None,
     "control: the same reservation with sku an object: 1 x 0.526 USD/h (catalog, eastus) x 730 "
     "h = 383.98; <= 21,286.07 + 383.98 = 21,670.05 < 25,000"),
    ("n09", "aws", {}, _set("scratch", "storageCapacity", {"gb": 4800.0}),
     {SPEND: "fail", "_msg": {SPEND: ["{'gb': 4800.0}"]}}, None,
     "FSx storageCapacity written as an object: 'a filesystem capacity ... is a violation'"),
    ("n10", "ali", {}, r63._ali_set({"count": 2.0}), {SPEND: "fail"}, None,
     "an instance set amount written as an object: the set's size cannot be read"),
    ("n11", "gcp", {"target": {"size": 2.0}}, None, {SPEND: "fail"}, None,
     "MIG targetSize written as an object"),
]


@pytest.mark.parametrize("case", D9, ids=[c[0] for c in D9])
def test_defect9_shapes(pack, case):
    r63._run_case(pack, case)


# ---------------------------------------------------------------------------- DEFECTS 1 to 4
# GPU signs in any type field, on any cloud (inventory/gpu_names.py): a type of any of the four
# catalogs as the whole value or inside a service's own name, a graphics class, a GPU model of
# the catalog's GPU column, an instance family; accelerator fields at any depth (a list, an
# object by its count, an option name=value); option entries {name, value}; JSON text. Docs
# (Coverage): such a resource is "GPU capacity it cannot estimate": spend-limit fails. Controls:
# the same fields holding CPU shapes pass (every base stack is under its budget, review63), and
# tags / labels are the owner's words, never a sign.
def _eas(config: dict):
    import json
    return _new("alicloud:pai/service:Service", "eas", {
        "serviceConfig": json.dumps(config), "tags": dict(AZ_TAGS)}, region=r63.ALI)


def _workstation(host: dict, labels: dict = LABELS):
    return _new("gcp:workstations/workstationConfig:WorkstationConfig", "wsc", {
        "location": "us-west1", "workstationClusterId": "wc", "workstationConfigId": "wsc",
        "labels": dict(labels), "host": {"gceInstance": host}})


def _aca(profile_type: str):
    return _new("azure-native:app:ManagedEnvironment", "aca", {
        "resourceGroupName": "rg", "location": "eastus", "tags": dict(AZ_TAGS),
        "workloadProfiles": [{"name": "p", "workloadProfileType": profile_type,
                              "minimumCount": 0.0, "maximumCount": 2.0}]})


def _gke_aws(itype: str):
    return _new("gcp:container/awsNodePool:AwsNodePool", "anp", {
        "location": "us-west1", "cluster": "c", "name": "p", "subnetId": "sub", "version": "1.29",
        "autoscaling": {"minNodeCount": 1.0, "maxNodeCount": 3.0},
        "maxPodsConstraint": {"maxPodsPerNode": 110.0},
        "config": {"instanceType": itype, "iamInstanceProfile": "p",
                   "configEncryption": {"kmsKeyArn": "arn:aws:kms:us-east-1:1:key/k"}}})


def _gke_azure(size: str):
    return _new("gcp:container/azureNodePool:AzureNodePool", "anp", {
        "location": "us-west1", "cluster": "c", "name": "p", "subnetId": "sub", "version": "1.29",
        "autoscaling": {"minNodeCount": 1.0, "maxNodeCount": 3.0},
        "maxPodsConstraint": {"maxPodsPerNode": 110.0},
        "config": {"vmSize": size, "sshConfig": {"authorizedKey": "k"}}})


def _flex(parameters: dict):
    return _new("gcp:dataflow/flexTemplateJob:FlexTemplateJob", "flex", {
        "region": "us-west1", "name": "flex", "containerSpecGcsPath": "gs://t/spec.json",
        "labels": dict(LABELS), "parameters": parameters})


GPU = [
    ("s01", "aws", {}, _new("aws:appstream/fleet:Fleet", "vdi", {
        "name": "vdi", "instanceType": "stream.graphics.g6.xlarge", "fleetType": "ON_DEMAND",
        "computeCapacity": {"desiredInstances": 2.0}, "imageName": "img", "tags": dict(TAGS)}),
     {SPEND: "fail", "_msg": {SPEND: ["instanceType=stream.graphics.g6.xlarge"]}}, None,
     "AppStream's G6 fleet type (Fleet.InstanceType list, AWS SDK for Kotlin appstream Fleet "
     "instanceType): g6.xlarge, the catalog's 1 x L4, inside it"),
    ("s02", "aws", {}, _new("aws:workspaces/workspace:Workspace", "ws", {
        "bundleId": "wsb-1", "directoryId": "d-1", "userName": "bob",
        "workspaceProperties": {"computeTypeName": "GRAPHICS_G4DN"}, "tags": dict(TAGS)}),
     {SPEND: "fail"}, None,
     "WorkSpaces compute type GRAPHICS_G4DN (API_ComputeType valid values; a GPU-based bundle, "
     "API_WorkspaceProperties: 'GPU-based bundles (Graphics, GraphicsPro, Graphics.g4dn, "
     "GraphicsPro.g4dn)')"),
    ("s03", "aws", {}, _new("aws:workspaces/workspace:Workspace", "ws", {
        "bundleId": "wsb-1", "directoryId": "d-1", "userName": "bob",
        "workspaceProperties": {"computeTypeName": "GENERALPURPOSE_4XLARGE"},
        "tags": {**TAGS, "instanceType": "p4d.24xlarge", "gpu": "1"}}), {}, None,
     "control: a general-purpose WorkSpace whose TAGS name a GPU type and a gpu count: tags are "
     "the owner's words, never a sign"),
    ("s04", "aws", {}, _new("aws:rds/instance:Instance", "db", {
        "instanceClass": "db.t4g.micro", "engine": "postgres", "allocatedStorage": 20.0,
        "storageEncrypted": True,
        "tags": dict(TAGS)}), {}, None,
     "control: an RDS db.t4g.micro (instanceClass, a type field): T4G is also the catalog's GPU "
     "of g5g, but t4g is AWS's Graviton burstable family: no sign"),
    ("s05", "aws", {}, _new("aws:elasticache/cluster:Cluster", "cache", {
        "engine": "redis", "nodeType": "cache.t4g.small", "numCacheNodes": 1.0,
        "tags": dict(TAGS)}), {}, None, "control: ElastiCache cache.t4g.small (nodeType)"),
    ("s06", "aws", {}, _new("aws-native:elasticbeanstalk:Environment", "eb", {
        "applicationName": "app", "solutionStackName": "64bit Amazon Linux 2023 running Docker",
        "optionSettings": [{"namespace": "aws:ec2:instances", "optionName": "InstanceTypes",
                            "value": "t3.small, g6.2xlarge"}]}), {SPEND: "fail"}, None,
     "the aws-native Beanstalk environment's optionSettings (optionName / value): the second "
     "type of the list is the catalog's g6.2xlarge (1 x L4)"),
    ("s07", "aws", {}, _new("aws:ec2/dedicatedHost:DedicatedHost", "host", {
        "availabilityZone": "us-east-1a", "instanceFamily": "m5", "tags": dict(TAGS)}), {}, None,
     "control: a Dedicated Host of the m5 family"),
    ("s08", "aws", {}, _new("aws:ec2/dedicatedHost:DedicatedHost", "host", {
        "availabilityZone": "us-east-1a", "instanceFamily": "p5", "tags": dict(TAGS)}),
     {SPEND: "fail"}, None, "a Dedicated Host of the p5 family (AWS GPU family p, docs)"),
    # ----- GCP
    ("s10", "gcp", {}, _gke_aws("m5.xlarge"), {}, None,
     "control: GKE on AWS with m5.xlarge (no GPU on any cloud)"),
    ("s11", "gcp", {}, _gke_azure("Standard_D4s_v5"), {}, None,
     "control: GKE on Azure with Standard_D4s_v5"),
    ("s12", "gcp", {}, _gke_azure("Standard_NC4as_T4_v3"), {SPEND: "fail"}, None,
     "GKE on Azure with the catalog's Standard_NC4as_T4_v3 (1 x T4), an Azure type on a gcp: "
     "resource"),
    ("s13", "gcp", {}, _workstation({"machineType": "n1-standard-8",
                                     "accelerators": [{"type": "nvidia-tesla-t4", "count": 0.0}]}),
     {}, None, "control: an accelerator entry whose count is 0 attaches no GPU"),
    ("s14", "gcp", {}, _workstation({"machineType": "e2-standard-8"},
                                    labels={**LABELS, "accelerator": "nvidia-tesla-t4",
                                            "machine_type": "a3-highgpu-8g"}), {}, None,
     "control: an e2 workstation whose LABELS name an accelerator and a GPU machine"),
    ("s15", "gcp", {}, _flex({"dataflow_service_options":
                              "worker_accelerator=type:nvidia-l4;count:1;install-nvidia-driver"}),
     {SPEND: "fail"}, None,
     "a Dataflow Flex Template job asking for L4 workers through the dataflow_service_options "
     "parameter (cloud.google.com/dataflow/docs/gpu/use-l4-gpus: --dataflow_service_options="
     "\"worker_accelerator=type:nvidia-l4;count:GPU_COUNT;install-nvidia-driver\")"),
    ("s16", "gcp", {}, _flex({"dataflow_service_options": "enable_prime"}), {}, None,
     "control: a Flex Template job with another service option"),
    ("s17", "gcp", {}, _new("gcp:dataflow/job:Job", "df", {
        "region": "us-west1", "name": "df", "templateGcsPath": "gs://t/x",
        "tempGcsLocation": "gs://t/tmp", "machineType": "n1-standard-8", "maxWorkers": 10.0,
        "labels": dict(LABELS), "additionalExperiments": ["use_runner_v2"]}), {}, None,
     "control: review63 g13's Dataflow job without worker_accelerator"),
    # ----- Azure
    ("s20", "azure", {}, _aca("Consumption-GPU-NC24-A100"), {SPEND: "fail"}, None,
     "Container Apps serverless GPU profile Consumption-GPU-NC24-A100 (Microsoft Learn, "
     "workload profiles: the Consumption GPU profile names)"),
    ("s21", "azure", {}, _aca("E16"), {}, None, "control: a memory-optimized E16 profile"),
    ("s22", "azure", {}, _new("azure-native:containerinstance:ContainerGroup", "aci", {
        "resourceGroupName": "rg", "location": "eastus", "osType": "Linux", "tags": dict(AZ_TAGS),
        "containers": [{"name": "c", "image": "img", "resources": {"requests": {
            "cpu": 2.0, "memoryInGB": 4.0, "gpu": {"count": 0.0, "sku": "V100"}}}}]}), {}, None,
     "control: an ACI gpu request of count 0 declares none"),
    ("s23", "azure", {}, _new("azure-native:devtestlab:VirtualMachine", "dtl", {
        "resourceGroupName": "rg", "labName": "lab", "location": "eastus", "tags": dict(AZ_TAGS),
        "size": "Standard_A10", "userName": "u"}), {}, None,
     "control: Standard_A10 is a classic CPU size (an Azure name, judged as a name: the A10 GPU "
     "model word in it is no sign)"),
    ("s24", "azure", {}, _new("azure-native:machinelearningservices:Compute", "attached", {
        "resourceGroupName": "rg", "workspaceName": "ws", "location": "eastus",
        "properties": {"computeType": "Kubernetes", "properties": {
            "namespace": "default", "defaultInstanceType": "gpu",
            "instanceTypes": {"gpu": {"resources": {"limits": {"nvidia.com/gpu": "1"}}}}},
            "resourceId": "/subscriptions/s/resourceGroups/rg/providers/"
                          "Microsoft.ContainerService/managedClusters/aks"}}), {}, None,
     "control: attached Azure ML Kubernetes compute whose default instance type (a profile of "
     "the attached cluster) is called gpu: docs, attached compute launches nothing of its own"),
    ("s25", "azure", {}, _new("azure-native:machinelearningservices:Compute", "aks-ml", {
        "resourceGroupName": "rg", "workspaceName": "ws", "location": "eastus",
        "properties": {"computeType": "AKS", "properties": {
            "agentCount": 3.0, "agentVmSize": "Standard_NC24ads_A100_v4"}}}),
     {SPEND: "fail"}, None,
     "an Azure ML AKS compute that creates its cluster of Standard_NC24ads_A100_v4 (agentVmSize): "
     "docs, GPU capacity it cannot estimate (kept while attached compute is passed over)"),
    # ----- Alibaba Cloud
    ("s30", "ali", {}, _eas({"metadata": {"name": "llm", "instance": 2},
                             "cloud": {"computing": {"instances": [
                                 {"type": "ecs.gn7i-c8g1.2xlarge"}]}},
                             "containers": [{"image": "img", "port": 8000}]}),
     {SPEND: "fail"}, None,
     "a PAI-EAS service in today's JSON form, cloud.computing.instances[].type (alibabacloud.com "
     "help pai parameters-of-model-services): the catalog's ecs.gn7i-c8g1.2xlarge (1 x A10)"),
    ("s31", "ali", {}, _eas({"metadata": {"name": "web", "instance": 1, "cpu": 2, "memory": 4000},
                             "cloud": {"computing": {"instances": [{"type": "ecs.c7a.large"}]}},
                             "containers": [{"image": "img", "port": 8000}]}), {}, None,
     "control: the docs' own example, ecs.c7a.large"),
]


@pytest.mark.parametrize("case", GPU, ids=[c[0] for c in GPU])
def test_gpu_signs_anywhere(pack, case):
    r63._run_case(pack, case)
