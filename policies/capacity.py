"""Compute the pack sizes beyond plain groups and instances, and GPU signs it cannot size.

inventory.node_groups() reads autoscaling groups, fleets, managed pools, scale sets and
instances. This module adds what bills GPU hours through other doors, each as a NodeGroup:
capacity reservations (AWS ODCR, GCP reservations, Azure and Alibaba Cloud capacity reservations:
billed whether used or not; inventory.reservations keeps the nodes launched into them from being priced twice), SageMaker
endpoint variants, Azure ML compute clusters, AKS and ACK node pools, Azure classic scale sets
and VMs, aws-native groups and instances. `gpu_signs()` then sweeps every other resource for a
GPU type or accelerator in any of the fields where clouds put them, so a GPU resource the pack
does not size is named ("cannot be estimated"), never passed in silence.
"""
from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any, Iterable, Optional

from trainstack_policies.model import (
    UNKNOWN,
    BadNumber,
    Resource,
    as_list,
    checked_number,
    dict_entries,
    last_segment,
    name_list,
    number,
    reach,
    short_repr,
)
from trainstack_policies.template_refs import tie_overrides, untied_count

AWS_CAPACITY_RESERVATION = "aws:ec2/capacityReservation:CapacityReservation"
# CloudFormation AWS::EC2::CapacityReservation: the same inputs (instanceType, instanceCount,
# availabilityZone, instancePlatform, tenancy, instanceMatchCriteria, endDate/endDateType).
AWS_NATIVE_CAPACITY_RESERVATION = "aws-native:ec2:CapacityReservation"
GCP_RESERVATION = "gcp:compute/reservation:Reservation"
# A future reservation: capacity delivered later (calendar mode), not sized here; it is GPU
# capacity by its own type fields or by the instance template it is built from (gpu_signs).
GCP_FUTURE_RESERVATION = "gcp:compute/futureReservation:FutureReservation"
AZ_CAPACITY_RESERVATION = "azure-native:compute:CapacityReservation"
# The classic azure provider's (pulumi-azure compute.CapacityReservation, azurerm
# capacity_reservation): sku {name, capacity}, one zone, its location its group's.
AZ_CLASSIC_CAPACITY_RESERVATION = "azure:compute/capacityReservation:CapacityReservation"
AZ_CLASSIC_CAPACITY_RESERVATION_GROUP = \
    "azure:compute/capacityReservationGroup:CapacityReservationGroup"
ALI_CAPACITY_RESERVATION = "alicloud:ecs/capacityReservation:CapacityReservation"
SAGEMAKER_ENDPOINT_CONFIG = "aws:sagemaker/endpointConfiguration:EndpointConfiguration"
AZ_ML_COMPUTE = "azure-native:machinelearningservices:Compute"
# The classic azure provider's Azure ML compute (pulumi-azure machinelearning).
AZ_CLASSIC_ML_INSTANCE = "azure:machinelearning/computeInstance:ComputeInstance"
AKS_AGENT_POOL = "azure-native:containerservice:AgentPool"
AKS_CLUSTER = "azure-native:containerservice:ManagedCluster"
GKE_CLUSTER = "gcp:container/cluster:Cluster"
ACK_NODE_POOL = "alicloud:cs/nodePool:NodePool"
# Alibaba's fleet (pulumi-alicloud ecs.AutoProvisioningGroup, CreateAutoProvisioningGroup):
# totalTargetCapacity in weighted units over launchTemplateConfigs (instanceType, vswitchId,
# weightedCapacity), from launchTemplateId.
ALI_AUTO_PROVISIONING_GROUP = "alicloud:ecs/autoProvisioningGroup:AutoProvisioningGroup"
ALI_LAUNCH_TEMPLATES = ("alicloud:ecs/launchTemplate:LaunchTemplate",
                        "alicloud:ecs/ecsLaunchTemplate:EcsLaunchTemplate")
# The classic azure provider's AKS (pulumi-azure containerservice.KubernetesCluster's
# defaultNodePool, KubernetesClusterNodePool): vmSize, nodeCount, maxCount when autoscaling.
AZ_CLASSIC_AKS_CLUSTER = "azure:containerservice/kubernetesCluster:KubernetesCluster"
AZ_CLASSIC_AKS_POOL = ("azure:containerservice/kubernetesClusterNodePool:"
                       "KubernetesClusterNodePool")
AZ_CLASSIC_VMSS = ("azure:compute/linuxVirtualMachineScaleSet:LinuxVirtualMachineScaleSet",
                   "azure:compute/windowsVirtualMachineScaleSet:WindowsVirtualMachineScaleSet",
                   # The classic provider's Flexible scale set: skuName and instances.
                   "azure:compute/orchestratedVirtualMachineScaleSet:"
                   "OrchestratedVirtualMachineScaleSet",
                   # The legacy set the Linux and Windows ones replaced (pulumi-azure
                   # compute.ScaleSet, azurerm virtual_machine_scale_set): sku {name, tier,
                   # capacity}, priority Regular or Low.
                   "azure:compute/scaleSet:ScaleSet")
AZ_LEGACY_VMSS = AZ_CLASSIC_VMSS[-1]
AZ_CLASSIC_VM = ("azure:compute/linuxVirtualMachine:LinuxVirtualMachine",
                 "azure:compute/windowsVirtualMachine:WindowsVirtualMachine")
# Batch capacity, sized where its inputs bound it (_batch_environment, _batch_pool); one they
# do not bound is left to gpu_signs() (BATCH), which names any GPU type in it.
AWS_BATCH_CE = "aws:batch/computeEnvironment:ComputeEnvironment"
AZ_BATCH_POOL = "azure-native:batch:Pool"
BATCH = frozenset({AWS_BATCH_CE, AZ_BATCH_POOL})
AWS_NATIVE_ASG = "aws-native:autoscaling:AutoScalingGroup"
AWS_NATIVE_INSTANCE = "aws-native:ec2:Instance"
AWS_NATIVE_LT = "aws-native:ec2:LaunchTemplate"
_AWS_SUBNETS = ("aws:ec2/subnet:Subnet", "aws-native:ec2:Subnet")
AWS_LTS = ("aws:ec2/launchTemplate:LaunchTemplate", AWS_NATIVE_LT)
# An existing network interface of the stack an instance attaches: it lives in its subnet.
_AWS_NICS = ("aws:ec2/networkInterface:NetworkInterface", "aws-native:ec2:NetworkInterface")
GCP_TEMPLATES = ("gcp:compute/instanceTemplate:InstanceTemplate",
                 "gcp:compute/regionInstanceTemplate:RegionInstanceTemplate")

# Resources that only describe nodes for another resource to launch: they bill nothing alone.
TEMPLATES = frozenset({
    "aws:ec2/launchTemplate:LaunchTemplate", AWS_NATIVE_LT,
    "gcp:compute/instanceTemplate:InstanceTemplate",
    "gcp:compute/regionInstanceTemplate:RegionInstanceTemplate",
    "alicloud:ess/scalingConfiguration:ScalingConfiguration",
    "alicloud:ecs/launchTemplate:LaunchTemplate", "alicloud:ecs/ecsLaunchTemplate:EcsLaunchTemplate",
    "aws:ec2/ami:Ami", "aws:ec2/launchConfiguration:LaunchConfiguration",
})

# Types this module or inventory sizes (RESERVATIONS are not placed by the rdma rule).
RESERVATIONS = (AWS_CAPACITY_RESERVATION, AWS_NATIVE_CAPACITY_RESERVATION, GCP_RESERVATION,
                AZ_CAPACITY_RESERVATION, AZ_CLASSIC_CAPACITY_RESERVATION, ALI_CAPACITY_RESERVATION)
MANAGED = (SAGEMAKER_ENDPOINT_CONFIG, AZ_ML_COMPUTE, AKS_AGENT_POOL, AKS_CLUSTER, ACK_NODE_POOL,
           AZ_CLASSIC_AKS_CLUSTER, AZ_CLASSIC_AKS_POOL, AWS_BATCH_CE, AZ_BATCH_POOL,
           AZ_CLASSIC_ML_INSTANCE)
SIZED = frozenset({*RESERVATIONS, *MANAGED, *AZ_CLASSIC_VMSS, *AZ_CLASSIC_VM, AWS_NATIVE_ASG,
                   AWS_NATIVE_INSTANCE, ALI_AUTO_PROVISIONING_GROUP})
# CloudFormation AWS::EC2::SpotFleet, sized by inventory through a view of its config (a
# resource of its own, so it is passed over by type, not by the view's id).
AWS_NATIVE_SPOT_FLEET = "aws-native:ec2:SpotFleet"
# What gpu_signs() passes over by type: every SIZED type but Batch and Azure ML compute,
# which are sized only when their inputs bound them (Azure ML: an AmlCompute or a compute
# instance; an AKS compute that creates its cluster is not), a sized one passed over by its id.
_NO_SIGNS = (SIZED - BATCH - {AZ_ML_COMPUTE}) | {AWS_NATIVE_SPOT_FLEET}
# Azure ML compute types that launch VMs of their own: AmlCompute and ComputeInstance (sized),
# and an AKS compute, which creates its cluster where it names agentVmSize.
_ML_LAUNCHING = ("AmlCompute", "ComputeInstance", "AKS")

# Fields where a resource names its machine or its accelerators, on any cloud (keys read in
# the engine's camelCase; snake_case keys of JSON text, `instance_type`, read as camelCase).
# agentVmSize: an Azure ML AKS compute's node size (it creates the cluster).
_TYPE_KEYS = {"instanceType", "instanceTypes", "machineType", "vmSize", "size", "nodeType",
              "instanceClass", "skuName", "agentVmSize"}
# A key that names a machine by a suffix (GameLift's ec2InstanceType, EMR's
# masterInstanceType, WorkSpaces' computeTypeName, Container Apps' workloadProfileType) is a
# type field too: its value is judged as any type is, so a CPU type there is no sign.
_TYPE_SUFFIXES = ("Type", "Types", "TypeName")
# A key holding an instance family (an AWS Dedicated Host's instanceFamily, Alibaba Cloud's
# instanceTypeFamily).
_FAMILY_SUFFIXES = ("instanceFamily", "InstanceFamily", "TypeFamily")
# Accelerator fields: a type, a count or a list of them. A count of 0 (or an entry whose count
# is 0) declares none.
_ACCEL_KEYS = {"acceleratorType", "acceleratorCount", "guestAccelerators", "gpuCount",
               "acceleratorConfig", "acceleratorConfigs", "gpuType", "gpuSpec",
               # Cloud Workstations host.gceInstance.accelerators, Dataproc accelerators
               "accelerators",
               # Azure Container Instances resources.requests.gpu {count, sku}; PAI-EAS gpu
               "gpu", "gpus",
               # Cloud Run (service and job templates): nodeSelector.accelerator, a GPU type
               "accelerator"}
# An option name whose last word is "accelerator" is an accelerator field: Cloud Run v1's
# run.googleapis.com/accelerator, GKE's cloud.google.com/gke-accelerator, Dataflow's
# worker_accelerator service option (cloud.google.com/dataflow/docs/gpu/use-gpus).
_ACCEL_OPTION = re.compile(r"(?:^|.*[/_.-])accelerator", re.I)
# An option written as text, name=value (Dataflow additionalExperiments and service options).
_OPTION_TEXT = re.compile(r"([\w./-]*accelerator)=([^\s,\"']+)", re.I)
# Entries naming an option and its value: Elastic Beanstalk settings {namespace, name, value}
# (aws-native optionSettings: optionName).
_OPTION_NAME_KEYS = ("name", "optionName")
# Keys whose values are the owner's words (tags, labels): never a GPU sign.
_OWNER_WORDS = ("tags", "labels")
_SIGN_DEPTH = 12
# GKE node auto-provisioning limits: resourceType cpu, memory, or an accelerator (a GPU or TPU
# type) the cluster may create nodes with, up to `maximum` (container.v1
# ClusterAutoscaling.resourceLimits).
_NAP_RESOURCES = frozenset({"cpu", "memory"})


def _unread_pool(r: Resource, p: Any, node_group: Any) -> list:
    """An AKS pool that cannot be read (a classic cluster's defaultNodePool, an azure-native
    cluster's agentPoolProfiles entry), never a pool dropped: unknown at preview, a pool of a
    type and size unknown until apply, GPU capacity that cannot be sized (docs, Scope); of
    another shape than an object (a list of one), its size and type cannot be read (BadNumber
    naming it). None (no pool given): nothing."""
    if p is UNKNOWN:
        return [node_group(r, None, UNKNOWN, None, False, [UNKNOWN], _location(r))]
    if p is None:
        return []
    bad = BadNumber(short_repr(p))
    return [node_group(r, None, bad, bad, False, [""], _location(r))]


def groups(resources: list[Resource], node_group: Any, count: Any, zone: Any,
           gpu_family: Any = lambda name: False) -> list:
    """The NodeGroups of the types in SIZED (inventory passes its NodeGroup, _count, _zone, and
    whether a bare AWS family name such as "g5" is a GPU family)."""
    out = []
    for r in resources:
        t = r.type
        if t not in SIZED:
            continue   # one look-up for the many resources of no type below
        if t == AWS_CAPACITY_RESERVATION or t == AWS_NATIVE_CAPACITY_RESERVATION:
            z = zone(r.get("availabilityZone"))
            out.append(node_group(r, None, r.get("instanceType"), count(r.get("instanceCount")),
                                  False, [z], _region(r, z)))
        elif t == GCP_RESERVATION:
            props = "specificReservation.instanceProperties"
            # model.reach: a specificReservation or instanceProperties written as a list of one
            # gives BadNumber naming it, a type that cannot be read (GPU capacity failing
            # closed), never "no machine" (the reservation would vanish from the estimate).
            mtype = r.reach(f"{props}.machineType")
            z = zone(r.get("zone") or r.provider.get("zone"))
            accel = r.get(f"{props}.guestAccelerators")
            count_key, type_key = "acceleratorCount", "acceleratorType"
            source, unread = source_template(r, "specificReservation")
            if mtype is None and source is not None:
                # specificReservation.sourceInstanceTemplate instead of instanceProperties: the
                # template's machine type and accelerators are reserved (pulumi-gcp
                # compute.Reservation; the two fields exclude each other).
                mtype, accel, count_key, type_key = source.get("machineType"), \
                    source.get("guestAccelerators"), "count", "type"
            elif mtype is None and unread:
                mtype = UNKNOWN   # a template the stack does not create: read nowhere
            machine = last_segment(mtype) if isinstance(mtype, str) or mtype is None else mtype
            # The list, an entry of it or an entry's count unknown at preview: an attached GPU
            # of a type (or number) read after apply, which has no price, on a machine that may
            # take one (attached_entries).
            declared = attached_entries(accel, machine, count_key)
            counts = [checked_number(a.get(count_key)) for a in declared if isinstance(a, dict)]
            # Each reserved VM's attached GPUs, priced with its N1 machine as an instance's
            # guestAccelerators are (inventory.compute._accelerator_types): reserved VMs and
            # their GPUs bill at the on-demand rate, used or not (cloud.google.com/compute/docs/
            # instances/reservations-overview). A count that is no number still declares an
            # accelerator (1), and is refused; one unknown at preview has no price.
            kinds: list[tuple[Any, Any]] = []
            for a in declared:
                if not isinstance(a, dict):   # UNKNOWN
                    kinds.append((UNKNOWN, 1))
                    continue
                c = checked_number(a.get(count_key))
                kinds.append((_accelerator_name(a.get(type_key)), UNKNOWN if c is UNKNOWN else
                              int(c) if isinstance(c, float) and c >= 1 else 1))
            n = sum(per_node if isinstance(per_node, int) else 1 for _, per_node in kinds)
            out.append(node_group(r, None, machine,
                                  count(r.reach("specificReservation.count")), False, [z],
                                  _region(r, z), accelerators=n, accelerator_types=kinds,
                                  type_unread=unread if machine is UNKNOWN else "",
                                  invalid=[f"its accelerator count {c.text} is not a finite "
                                           "non-negative number" for c in counts
                                           if isinstance(c, BadNumber)]))
        elif t == AZ_CAPACITY_RESERVATION:
            # Billed at the pay-as-you-go rate of its size, whether VMs use it or not.
            out.append(node_group(r, None, r.reach("sku.name"), count(r.reach("sku.capacity")),
                                  False, _azure_zones(r.get("zones"), zone), _location(r)))
        elif t == AZ_CLASSIC_CAPACITY_RESERVATION:
            # The same bill as azure-native's: its size's pay-as-you-go rate, used or not
            # (learn.microsoft.com/azure/virtual-machines/capacity-reservation-overview).
            z = r.get("zone")
            out.append(node_group(r, None, r.reach("sku.name"), count(r.reach("sku.capacity")),
                                  False, _azure_zones(z if z is UNKNOWN else [z] if z else None,
                                                      zone),
                                  _location_via(r, "capacityReservationGroupId")))
        elif t == AZ_CLASSIC_ML_INSTANCE:
            # The classic provider's compute instance (pulumi-azure machinelearning.
            # ComputeInstance, azurerm machine_learning_compute_instance): one VM of its
            # virtualMachineSize, as the azure-native ComputeInstance.
            out.append(node_group(r, None, r.get("virtualMachineSize"), 1, False, [""],
                                  _location(r)))
        elif t == AZ_CLASSIC_AKS_POOL or t == AZ_CLASSIC_AKS_CLUSTER:
            pools = [r.get("defaultNodePool")] if t == AZ_CLASSIC_AKS_CLUSTER else [r.props]
            for p in pools:
                if not isinstance(p, dict):
                    out += _unread_pool(r, p, node_group)
                    continue
                # autoScalingEnabled (pulumi-azure v6) or enableAutoScaling (v5): at most
                # maxCount nodes, else nodeCount.
                auto = p.get("autoScalingEnabled") or p.get("enableAutoScaling")
                out.append(node_group(r, None, p.get("vmSize"), count(
                    _get(p, "maxCount") if auto else None, p.get("nodeCount")),
                    p.get("priority") == "Spot", _azure_zones(p.get("zones"), zone),
                    _location(r) if t == AZ_CLASSIC_AKS_CLUSTER
                    else _location_via(r, "kubernetesClusterId")))
        elif t == ALI_CAPACITY_RESERVATION:
            # An immediate capacity reservation: the pay-as-you-go rate of its type from purchase
            # until released or expired, used or not (CreateCapacityReservation, alibabacloud.com
            # /help/en/elastic-compute-service/latest/createcapacityreservation). One zone only.
            zone_ids = r.get("zoneIds")
            z = UNKNOWN if zone_ids is UNKNOWN else zone(
                zone_ids[0] if isinstance(zone_ids, list) and zone_ids else None)
            out.append(node_group(r, None, r.get("instanceType"), count(r.get("instanceAmount")),
                                  False, [z], _region(r, z)))
        elif t == SAGEMAKER_ENDPOINT_CONFIG:
            for v in as_list(r.get("productionVariants")):   # one object: a list of it
                if v is UNKNOWN:
                    out.append(node_group(r, None, UNKNOWN, None, False, [""], _region(r, "")))
                    continue
                if not isinstance(v, dict) or not v.get("instanceType"):
                    continue   # serverless variants carry no instances
                # model.reach: a managedInstanceScaling written as a list of one is a size that
                # is no number, never absent with initialInstanceCount standing in.
                out.append(node_group(r, None, v.get("instanceType"), count(
                    reach(v, "managedInstanceScaling.maxInstanceCount"),
                    v.get("initialInstanceCount")), False, [""], _region(r, "")))
        elif t == AZ_ML_COMPUTE:
            p = "properties.properties"
            kind = r.get("properties.computeType")
            if kind == "ComputeInstance":
                # "a managed cloud-based workstation" (learn.microsoft.com/azure/machine-
                # learning/concept-compute-instance): one VM of its vmSize, the month.
                out.append(node_group(r, None, r.get(f"{p}.vmSize"), 1, False, [""],
                                      _location(r)))
                continue
            if kind not in ("AmlCompute", None, UNKNOWN):
                # Attached compute (Kubernetes, VirtualMachine, HDInsight, Databricks, ...)
                # launches nothing of its own; an AKS compute that creates its cluster
                # (agentVmSize, agentCount) is left to gpu_signs(), which names a GPU size.
                continue
            out.append(node_group(r, None, r.get(f"{p}.vmSize"),
                                  count(r.reach(f"{p}.scaleSettings.maxNodeCount")),
                                  r.get(f"{p}.vmPriority") == "LowPriority", [""], _location(r)))
        elif t == AKS_AGENT_POOL:
            out.append(node_group(r, None, r.get("vmSize"), count(
                r.get("maxCount") if r.get("enableAutoScaling") else None, r.get("count")),
                r.get("scaleSetPriority") == "Spot", _azure_zones(r.get("availabilityZones"),
                                                                  zone), _location(r)))
        elif t == AKS_CLUSTER:
            for p in as_list(r.get("agentPoolProfiles")):   # one object: a list of it
                if not isinstance(p, dict):
                    out += _unread_pool(r, p, node_group)
                    continue
                out.append(node_group(r, None, p.get("vmSize"), count(
                    p.get("maxCount") if p.get("enableAutoScaling") else None, p.get("count")),
                    p.get("scaleSetPriority") == "Spot",
                    _azure_zones(p.get("availabilityZones"), zone), _location(r), pool_entry=p))
        elif t == ACK_NODE_POOL:
            types = name_list(r.get("instanceTypes"))   # one string: a list of it
            switches = r.dep("vswitchIds")
            zones = [zone(s.get("zoneId")) for s in switches] or (
                [UNKNOWN] if unread_placement(r, "vswitchIds") else [""])
            out.append(node_group(r, None, types[0] if types else None, count(
                r.reach("scalingConfig.maxSize"), r.get("desiredSize"), r.get("nodeCount")),
                str(r.get("spotStrategy") or "").startswith("Spot"), zones,
                r.provider_region or "", instance_types=list(types)))
        elif t == ALI_AUTO_PROVISIONING_GROUP:
            out.append(_auto_provisioning_group(r, node_group, count, zone))
        elif t in AZ_CLASSIC_VMSS or t in AZ_CLASSIC_VM:
            scale_set = t in AZ_CLASSIC_VMSS
            zs = r.get("zones") if scale_set else [r.get("zone")] if r.get("zone") else None
            size_key = "skuName" if t.endswith("OrchestratedVirtualMachineScaleSet") else \
                "sku.name" if t == AZ_LEGACY_VMSS else "sku" if scale_set else "size"
            size = r.get("sku.capacity") if t == AZ_LEGACY_VMSS else r.get("instances")
            # The legacy set's Low priority is the evicted-at-will tier Spot replaced, billed
            # at the Spot rate.
            out.append(node_group(r, None, r.get(size_key), count(size) if scale_set else 1,
                                  r.get("priority") in ("Spot", "Low"), _azure_zones(zs, zone),
                                  _location(r)))
        elif t == AWS_NATIVE_ASG:
            # Its launch template: launchTemplate, else its mixed instances policy's
            # (MixedInstancesPolicy.LaunchTemplate.LaunchTemplateSpecification).
            # Overrides that name only a launch template launch its type, at their own
            # weight (template_refs, as a classic group's).
            mixed, untied, unread = tie_overrides(r.get("mixedInstancesPolicy"), [
                d for d in r.dep("mixedInstancesPolicy") if d.type in AWS_LTS])
            lts = [d for d in (r.dep("launchTemplate") or r.dep("launchTemplate.launchTemplateId")
                               or r.dep("mixedInstancesPolicy")) if d.type in AWS_LTS]
            lt = next(iter(lts), None)
            spec = mixed.get("launchTemplate") if isinstance(mixed, dict) else None
            # Overrides naming every type replace the template's own (replaces_template).
            types = [] if replaces_template([spec]) else [lt_type(d) for d in lts]
            # Every override's instanceType may launch (CloudFormation LaunchTemplateOverrides,
            # as a classic group's): priced at the dearest, as the classic group is.
            overrides = spec.get("overrides") if isinstance(spec, dict) else None
            for o in overrides if isinstance(overrides, list) else []:
                ot = o.get("instanceType") if isinstance(o, dict) else UNKNOWN
                if ot is not None and ot not in types:
                    types.append(ot)
            types = [x for x in types if x is not None] or [None]
            if unread:   # an override from a template the stack does not create
                types = [x for x in types if x is not None] + [UNKNOWN]
            itype = types[0]
            market = lt.get("launchTemplateData.instanceMarketOptions.marketType") \
                if lt is not None and lt.type == AWS_NATIVE_LT else None
            # Its zones: the subnets of vpcZoneIdentifier, else availabilityZones (AWS::
            # AutoScaling::AutoScalingGroup); "" where neither reads.
            subnets = [s for s in r.dep("vpcZoneIdentifier") if s.type in _AWS_SUBNETS]
            azs = r.get("availabilityZones")
            zs = [zone(s.get("availabilityZone")) for s in subnets] if subnets else \
                [UNKNOWN] if unread_placement(r, "vpcZoneIdentifier") else \
                [zone(z) for z in azs] if isinstance(azs, list) and azs else [""]
            size = count(r.get("maxSize"), r.get("desiredCapacity"))
            weights = asg_weights(mixed)
            if weights is UNKNOWN:
                size = None   # units per instance unknown until apply: so is the node count
            elif untied and weights == {} and isinstance(size, int):
                size = untied_count(mixed, size)
            elif isinstance(weights, dict) and weights and isinstance(size, int):
                # Sizes in capacity units: maxSize plus the largest weight, as a classic
                # group's (inventory.compute_aws._aws_group).
                size += int(math.ceil(max(weights.values())))
            # Nodes chosen by attributes (instanceRequirements in an override, or in an aws-native
            # template's launchTemplateData) have no type to read: GPU capacity when they ask
            # for accelerators, as a classic group's (review71 DEFECT 1).
            accelerators = requirements_accelerators(lts, [spec] if isinstance(spec, dict) else [])
            if attribute_chosen([spec]) and None not in types:
                types.append(None)   # beside typed overrides: those nodes have no type to price
            group = node_group(r, lt, itype, size, market == "spot", zs, _region(r, zs[0]),
                               instance_types=types, type_unread=unread,
                               accelerators=accelerators)
            if isinstance(weights, BadNumber):
                weight_invalid(group, weights)
            elif isinstance(weights, dict) and weights and isinstance(group.count, int):
                group.weights = weights
            out.append(group)
        elif t == AWS_NATIVE_INSTANCE:
            # Its zone: availabilityZone, else the stack subnet it launches in (its subnetId,
            # its interfaces', its launch template's interfaces'), as for a classic instance.
            lt = next((d for d in r.deps.get("launchTemplate", []) if d.type in AWS_LTS), None)
            zs = [zone(z) for z in ([r.get("availabilityZone")] if r.get("availabilityZone")
                                    else launch_zones(r, lt))] or [""]
            # Its type: its own instanceType, else its launch template's (aws-native under
            # launchTemplateData): "Any additional parameters that you specify for the new
            # instance overwrite the corresponding parameters included in the launch template"
            # (EC2 API RunInstances, LaunchTemplate), as for a classic instance.
            itype = r.get("instanceType")
            if itype is None and lt is not None:
                itype = lt.get("launchTemplateData.instanceType") if lt.type == AWS_NATIVE_LT \
                    else lt.get("instanceType")
            out.append(node_group(r, lt, itype, 1, False, zs, _region(r, zs[0])))
        elif t == AWS_BATCH_CE:
            out += _batch_environment(r, node_group, count, zone, gpu_family)
        elif t == AZ_BATCH_POOL:
            out += _batch_pool(r, node_group, count)
    return out


def asg_weights(mixed: Any) -> Any:
    """{instance type: weightedCapacity} of an Auto Scaling group's mixed instances policy (a
    classic group's or an aws-native one's: the same LaunchTemplateOverrides), or:
    - UNKNOWN when a weight is unknown at preview (the units an instance fills cannot be read,
      so neither can the node count);
    - a BadNumber naming a weight that is given but is no number in AWS's range, 1-999 ("Valid
      Range: Minimum value of 1. Maximum value of 999.", docs.aws.amazon.com/autoscaling/ec2/
      APIReference/API_LaunchTemplateOverrides.html, WeightedCapacity): NaN, infinite, 0,
      negative, fractional below 1, above 999 or text ("two", ""). Never dropped: the group
      priced unweighted can be cheaper than its readable weights say (review49 a22);
    - {} when no override carries a weight, or one names no instance type (its nodes are
      priced as instances: each unit an instance, the most nodes a size can mean).
    AWS takes weights on all overrides or on none. A group given a BadNumber carries
    weight_invalid()'s finding and no size."""
    spec = mixed.get("launchTemplate") if isinstance(mixed, dict) else None
    overrides = spec.get("overrides") if isinstance(spec, dict) else None
    overrides = overrides if isinstance(overrides, list) else []
    out: dict = {}
    typed = True
    for o in overrides:
        if not isinstance(o, dict):
            typed = False
            continue
        raw = o.get("weightedCapacity")
        if raw is None:
            typed = False
            continue
        if raw is UNKNOWN:
            return UNKNOWN
        w = checked_number(raw, minimum=1.0)
        if w is None or isinstance(w, BadNumber) or w > 999:
            return BadNumber(f"{raw!r}")
        t = o.get("instanceType")
        if not isinstance(t, str):
            typed = False
            continue
        out[t] = max(w, out.get(t, w))
    return out if typed else {}


def lt_type(lt: Optional[Resource]) -> Any:
    """A launch template's (or configuration's) instanceType, an aws-native one's under
    launchTemplateData; None without a template. One written as a list, even of one name, is a
    type in another shape than a name, which cannot be read (BadNumber naming it: docs, Scope),
    never read as its item (values._types would flatten it; review73 a29)."""
    if lt is None:
        return None
    value = lt.get("launchTemplateData.instanceType") if lt.type == AWS_NATIVE_LT \
        else lt.get("instanceType")
    return BadNumber(short_repr(value)) if isinstance(value, (list, tuple)) else value


def weight_invalid(group: Any, bad: BadNumber) -> None:
    """Mark `group` as refused for the instance weight `bad` (asg_weights): its finding names
    the value; no size is read from weights that cannot be read."""
    group.invalid.append(f"its instance weight weightedCapacity {bad.text} is not a number "
                         "AWS takes (1-999)")
    group.count = None


def _batch_environment(r: Resource, node_group: Any, count: Any, zone: Any,
                       gpu_family: Any) -> list:
    """An AWS Batch managed EC2 or SPOT compute environment: at most maxVcpus vCPUs, i.e.
    ceil(maxVcpus / the fewest vCPUs of its instanceTypes) nodes, each priced at the dearest
    of its types. "With any allocation strategy except BEST_FIT using On-Demand (EC2) compute
    resources, AWS Batch might need to exceed maxvCpus to meet your capacity requirements. In
    this event, AWS Batch never exceeds maxvCpus by more than a single instance"
    (docs.aws.amazon.com/batch/latest/APIReference/API_ComputeResource.html, maxvCpus): one
    node more, unless the type is EC2 and the strategy BEST_FIT (the default). vCPUs come from
    the catalog (instance_types.csv, each row with its source); a type it does not list with
    them ("optimal", a family such as "g5") bounds nothing: [] (gpu_signs() then names a GPU
    type in it). Fargate runs no instances: []."""
    from trainstack_policies.catalog import instance_type
    cr = r.get("computeResources")
    region = _region(r, "")
    if cr is UNKNOWN:
        return [node_group(r, None, UNKNOWN, None, False, [UNKNOWN], region)]
    if not isinstance(cr, dict) or str(cr.get("type") or "").startswith("FARGATE"):
        return []   # UNMANAGED (no computeResources: nothing it launches) or Fargate
    kind, types = cr.get("type"), cr.get("instanceTypes")
    # Its zones: its subnets' (computeResources.subnets), as an Auto Scaling group's are its
    # vpcZoneIdentifiers'; a subnet id unknown at preview with no stack subnet behind it is a
    # zone unknown at preview, not one that can never be read.
    zs = [zone(s.get("availabilityZone")) for s in r.dep("computeResources")
          if s.type in _AWS_SUBNETS] or (
        [UNKNOWN] if unread_placement(r, "computeResources.subnets", _AWS_SUBNETS) else [""])
    region = _region(r, zs[0])
    lt = _batch_template(r)
    if types is UNKNOWN or not isinstance(types, list) or UNKNOWN in types:
        return [node_group(r, lt, UNKNOWN, None, False, zs, region)]
    known = [instance_type("aws", t) if isinstance(t, str) else None for t in types]
    vcpus = [k.vcpus for k in known if k is not None and k.vcpus > 0]
    if not types or len(vcpus) != len(types):
        family = next((t for t in types if isinstance(t, str) and "." not in t
                       and gpu_family(t)), None)
        if family is None:
            if not types or any(not isinstance(t, str) for t in types):
                return []   # a type that is no name: gpu_signs() names a GPU type in it
            gpu = next((t for t in types if gpu_family(t.partition(".")[0])), None)
            if gpu is not None:
                # A GPU type beside one without catalog vCPUs ("optimal", c5.large): GPU
                # compute whose node count maxVcpus does not bound. Kept as a group of a size
                # not read (spend fails it closed), so that its zone and what its launch
                # template mounts are a GPU group's (review77 DEFECT 1: left out, the
                # filesystem only it mounts was matched to another GPU cluster).
                unsized = ", ".join(repr(t) for t, k in zip(types, known)
                                    if k is None or k.vcpus <= 0)
                return [node_group(r, lt, gpu, None, kind == "SPOT", zs, region,
                                   instance_types=list(types), size_unread=(
                                       f"GPU capacity (instanceTypes {', '.join(types)}) of a "
                                       f"size not read: {unsized} has no vCPUs in the catalog, "
                                       "so maxVcpus bounds no node count"))]
            # CPU types only ("optimal", c6i.8xlarge): CPU compute of a size not read (never
            # priced), kept as a group so that what its launch template mounts is seen as
            # CPU compute's, as a CPU Auto Scaling group's is.
            return [node_group(r, lt, types[0], None, kind == "SPOT", zs, region,
                               instance_types=list(types))]
        # A GPU family ("g5"): Batch launches any of its sizes, so no size bounds the nodes.
        return [node_group(r, lt, UNKNOWN, None, False, zs, region, type_unread=(
            f"{family!r}, a family (AWS Batch launches any of its sizes), so maxVcpus bounds "
            "no node count"))]
    raw = cr.get("maxVcpus")
    nodes = None if raw is None else count(raw)
    if isinstance(nodes, int):
        one_more = not (kind == "EC2" and (cr.get("allocationStrategy") or "BEST_FIT")
                        == "BEST_FIT")
        nodes = math.ceil(nodes / min(vcpus)) + (1 if one_more else 0)
    return [node_group(r, lt, types[0], nodes, kind == "SPOT", zs, region,
                       instance_types=list(types))]


def _batch_template(r: Resource) -> Optional[Resource]:
    """The launch template of the stack an AWS Batch compute environment launches its nodes
    from (computeResources.launchTemplate, by id or name), or None. It is the group's template
    as an Auto Scaling group's launchTemplate is, so what it sets (a Capacity Block's
    instanceMarketOptions, a capacityReservationSpecification, user data that mounts a
    filesystem) is read through the same NodeGroup.template. The engine records the
    dependencies of computeResources as one input: the template is the launch template among
    them. Batch takes the nodes' types from instanceTypes, never from the template."""
    spec = r.get("computeResources.launchTemplate")
    if spec is None or spec == {}:
        return None
    return next((d for d in r.dep("computeResources") if d.type in AWS_LTS), None)


def _batch_pool(r: Resource, node_group: Any, count: Any) -> list:
    """An Azure Batch pool of fixed size (scaleSettings.fixedScale): targetDedicatedNodes plus
    targetLowPriorityNodes of its vmSize, all at the regular rate (a low-priority node never
    bills more). An autoScale formula bounds nothing the pack reads: [] (gpu_signs() then
    names its GPU vmSize)."""
    scale = r.get("scaleSettings")
    fixed = scale.get("fixedScale") if isinstance(scale, dict) else UNKNOWN \
        if scale is UNKNOWN else None
    if fixed is UNKNOWN:
        return [node_group(r, None, r.get("vmSize"), None, False, [""], _location(r))]
    shaped = scale if scale is not None and not isinstance(scale, dict) else \
        fixed if fixed is not None and not isinstance(fixed, dict) else None
    if shaped is not None:
        # scaleSettings or fixedScale written in another shape than an object (a list of one):
        # a size that is no number, named (model.reach), neither absent nor its one item.
        return [node_group(r, None, r.get("vmSize"), BadNumber(short_repr(shaped)), False,
                           [""], _location(r))]
    if not isinstance(fixed, dict) or scale.get("autoScale") is not None:
        return []
    dedicated = count(fixed.get("targetDedicatedNodes"), 0)
    low = count(fixed.get("targetLowPriorityNodes"), 0)
    nodes = dedicated + low if isinstance(dedicated, int) and isinstance(low, int) else \
        dedicated if not isinstance(dedicated, int) else low
    return [node_group(r, None, r.get("vmSize"), nodes, False, [""], _location(r))]


def _auto_provisioning_group(r: Resource, node_group: Any, count: Any, zone: Any) -> Any:
    """An Alibaba auto provisioning group as a NodeGroup. Its target capacities are in weighted
    units: an instance of weightedCapacity w fills w units (CreateAutoProvisioningGroup,
    LaunchTemplateConfig.N.WeightedCapacity), so the lightest weight launches the most
    instances. Every type a config names (else the template's) may run. Only a group whose
    defaultTargetCapacityType is Spot is priced at spot, less its payAsYouGoTargetCapacity
    units (like an EC2 Fleet's on-demand target); one left out is priced pay-as-you-go, the
    dearer rate."""
    template = next((d for d in r.deps.get("launchTemplateId", [])
                     if d.type in ALI_LAUNCH_TEMPLATES), None)
    configs = as_list(r.get("launchTemplateConfigs"))   # one object: a list of it
    types: list[Any] = []
    for c in configs:
        t = UNKNOWN if c is UNKNOWN else c.get("instanceType") if isinstance(c, dict) else None
        if (t is UNKNOWN or (isinstance(t, str) and t)) and t not in types:
            types.append(t)
    if not types:
        types = [template.get("instanceType") if template is not None else None]
    switches = [d for key in ("launchTemplateConfigs", "vswitchId") for d in r.deps.get(key, [])
                if d.type == "alicloud:vpc/switch:Switch"]
    if not switches and template is not None:
        switches = [d for d in template.deps.get("vswitchId", [])
                    if d.type == "alicloud:vpc/switch:Switch"]
    zones = [zone(sw.get("zoneId")) for sw in switches] or [""]
    units = count(r.get("totalTargetCapacity"))
    paygo_in = r.get("payAsYouGoTargetCapacity")
    paygo = count(paygo_in) if paygo_in is not None else 0
    weights = [c.get("weightedCapacity") if isinstance(c, dict) else UNKNOWN for c in configs]
    weights = [w for w in weights if w is not None]
    if isinstance(units, int) and weights:
        # As an EC2 Fleet's weights (inventory.compute_aws._aws_fleet): one unknown at preview
        # leaves the size unknown; one that is no number, or 0, is refused.
        checked = [checked_number(w) for w in weights]
        bad = next((w for w in checked if isinstance(w, BadNumber) or w == 0), None)
        if UNKNOWN in weights:
            units = None
        elif bad is not None:
            units = bad if isinstance(bad, BadNumber) else BadNumber("weightedCapacity 0")
        elif all(isinstance(w, float) for w in checked):
            lightest = min(w for w in checked if isinstance(w, float))
            units = int(math.ceil(units / lightest - 1e-9))
            if isinstance(paygo, int):
                paygo = int(math.ceil(paygo / lightest - 1e-9))
    default = str(r.get("defaultTargetCapacityType") or "PayAsYouGo")
    spot = default.lower() == "spot"
    region = r.provider_region or (_region(r, zones[0]) if isinstance(zones[0], str) else "")
    group = node_group(r, template, types[0], units, spot, zones, region, types)
    if spot and isinstance(group.count, int) and paygo != 0:
        if isinstance(paygo, int):
            group.regular_base = paygo
        else:   # unknown at preview or no number: the pay-as-you-go rate, the dearer
            group.regular_percent = 100.0
    return group


# PAI-Lingjun (eflo) nodes, hyper nodes and node groups: GPU servers by what the service is.
LINGJUN_NODES = frozenset({"alicloud:eflo/node:Node", "alicloud:eflo/hyperNode:HyperNode",
                           "alicloud:eflo/nodeGroup:NodeGroup"})


def source_template(r: Resource, holder: str) -> tuple[Optional[Resource], str]:
    """The instance template of the stack a GCP reservation (`specificReservation`) or future
    reservation (`specificSkuProperties`) is built from by `<holder>.sourceInstanceTemplate`,
    and, where it names one the stack does not create, why its type is read nowhere ("").

    The field takes a template's full or partial URL, global (projects/P/global/
    instanceTemplates/T, global/instanceTemplates/T, https://www.googleapis.com/compute/v1/...)
    or regional (.../regions/R/instanceTemplates/T), and excludes instanceProperties
    (cloud.google.com/compute/docs/reference/rest/v1/reservations: AllocationSpecificSKU-
    Reservation.sourceInstanceTemplate; futureReservations: FutureReservationSpecificSKU-
    Properties.sourceInstanceTemplate, "used to populate the ReservedInstanceProperties"). As
    a MIG's versions and an InstanceFromTemplate, a template of the stack is the one the input
    depends on (a new template's self link is unknown until apply); a literal URL or a value
    from elsewhere with none behind it names a template the stack does not create."""
    template = next((d for d in r.deps.get(holder, []) if d.type in GCP_TEMPLATES), None)
    value = r.get(f"{holder}.sourceInstanceTemplate")
    if template is not None or value is None or value == "":
        return template, ""
    shown = "unknown until apply" if value is UNKNOWN else repr(value)
    return None, (f"from instance template {shown} (sourceInstanceTemplate), which the stack "
                  "does not create (its type is read nowhere in the stack)")


@dataclass(frozen=True)
class GpuSign:
    resource: Resource
    field: str
    value: Any

    @property
    def what(self) -> str:
        shown = "unknown until apply" if self.value is UNKNOWN else self.value
        return (f"{self.resource.name} ({self.resource.type}): GPU capacity ({self.field}="
                f"{shown}) of a resource type the pack does not size")


def gpu_signs(resources: Iterable[Resource], skip: set[int], gpu_named: Any,
              not_compute: frozenset = frozenset()) -> list[GpuSign]:
    """A GPU type or an accelerator named anywhere in a resource the pack does not size
    (`not_compute`: types the pack knows run no instances: buckets, subnets, rules, budgets).
    `gpu_named(cloud, value, kind)`: why a type field's value names GPU hardware, on any cloud
    (inventory.gpu_names), "" when it does not."""
    out = []
    for r in resources:
        if r.type == GKE_CLUSTER:
            nap = _auto_provisioned_gpus(r)
            if nap is not None:
                # Nodes GKE creates itself, of no machine the program names: whatever pools
                # the cluster also has, this is GPU capacity the pack cannot size.
                out.append(GpuSign(r, "clusterAutoscaling.resourceLimits", nap))
                continue
        if id(r) in skip or r.type in TEMPLATES or r.type in _NO_SIGNS or r.type in not_compute \
                or r.type.startswith("pulumi:"):
            continue
        if r.type == AZ_ML_COMPUTE and isinstance(r.get("properties.computeType"), str) and \
                r.get("properties.computeType") not in _ML_LAUNCHING:
            # Attached compute (Kubernetes, VirtualMachine, HDInsight, Databricks, ...) launches
            # nothing of its own: what it names (a Kubernetes compute's defaultInstanceType
            # "gpu" is a profile of the attached cluster) is no capacity of this resource.
            continue
        if r.type == GKE_CLUSTER and r.get("removeDefaultNodePool") is True \
                and not r.get("nodePools"):
            # Its nodeConfig describes a default pool deleted as soon as the cluster is up
            # (inventory.compute reads the pools it keeps).
            continue
        if r.type in LINGJUN_NODES:
            # Every PAI-Lingjun node is a GPU server ("Nodes are high-performance GPU servers
            # accelerated by the Lingjun optimization suite", alibabacloud.com/help/en/pai/
            # basic-concepts-1), whatever its machine type names: the type is the sign.
            kind = r.get("machineType")
            out.append(GpuSign(r, "machineType", kind if isinstance(kind, str) else
                               "(a Lingjun node: a GPU server)"))
            continue
        found = _sign(r.props, r, gpu_named, 0)
        if found is None and r.type == GCP_FUTURE_RESERVATION:
            found = _future_template_sign(r, gpu_named)
        if found is None and r.type in GCP_NOTEBOOK_VMS:
            found = _notebook_machine_unread(r)
        if found is not None:
            out.append(GpuSign(r, *found))
    return out


# GCP notebook VMs, each one Compute Engine VM, by the object holding its machine type and
# accelerators: a Vertex AI Workbench instance (Notebooks API v2 GceSetup), a user-managed
# notebook (notebooks v1 Instance: machineType, acceleratorConfig at the top) and a managed
# runtime (VirtualMachine.virtualMachineConfig).
GCP_NOTEBOOK_VMS = {"gcp:workbench/instance:Instance": "gceSetup",
                    "gcp:notebooks/instance:Instance": "",
                    "gcp:notebooks/runtime:Runtime": "virtualMachine.virtualMachineConfig"}


def _notebook_machine_unread(r: Resource) -> Optional[tuple[str, Any]]:
    """A GCP notebook VM with no GPU sign whose machine cannot be read (field, what it holds):
    the object holding it, or its machineType, unknown at preview (UNKNOWN: it may be an a2, as
    a VM whose machineType is unknown) or written in another shape (a list of one, a type that
    is no name), so GPU capacity failing closed. None where the machine reads (or is left to
    the default: Workbench's n1-standard-4)."""
    holder: Any = r.props
    path = ""
    for part in GCP_NOTEBOOK_VMS[r.type].split(".") if GCP_NOTEBOOK_VMS[r.type] else ():
        path = f"{path}.{part}" if path else part
        holder = holder.get(part)
        if holder is UNKNOWN:
            return path, UNKNOWN
        if holder is None:
            return None
        if not isinstance(holder, dict):
            return path, f"{short_repr(holder)} (no object: its machine cannot be read)"
    machine = holder.get("machineType")
    key = f"{path}.machineType" if path else "machineType"
    if machine is UNKNOWN:
        return key, UNKNOWN
    if machine is not None and not isinstance(machine, str):
        return key, f"{short_repr(machine)} (no machine type name)"
    return None


def _future_template_sign(r: Resource, gpu_named: Any) -> Optional[tuple[str, Any]]:
    """A future reservation built from an instance template (specificSkuProperties.
    sourceInstanceTemplate): the template's GPU sign (its machine type or accelerators) when
    the stack creates it; when it does not, or it is unknown at preview, the type is read
    nowhere: GPU capacity failing closed, named."""
    template, unread = source_template(r, "specificSkuProperties")
    key = "specificSkuProperties.sourceInstanceTemplate"
    if unread:
        value = r.get(key)
        return key, (f"{'unknown until apply' if value is UNKNOWN else value}: a template the "
                     "stack does not create, its type read nowhere in the stack")
    if template is None:
        return None
    found = _sign(template.props, template, gpu_named, 0)
    return None if found is None else (f"{key} -> {template.name}: {found[0]}", found[1])


def _auto_provisioned_gpus(r: Resource) -> Any:
    """The accelerator a GKE cluster's node auto-provisioning may create nodes with (a
    `clusterAutoscaling.resourceLimits` entry other than cpu and memory whose maximum is not 0),
    UNKNOWN where the limits are unknown at preview, or None. Not priced: a GPU count maps to
    more than one machine (64 H100s are eight a3-highgpu-8g or a3-megagpu-8g nodes)."""
    auto = r.get("clusterAutoscaling")
    if auto is UNKNOWN:
        return UNKNOWN
    if auto is not None and not isinstance(auto, dict):
        # Written in another shape than an object (a list of one): there, but neither absent
        # nor its one item; limits that cannot be read, named as limits unknown at preview are.
        return short_repr(auto)
    if not isinstance(auto, dict) or auto.get("enabled") is False:
        return None   # auto-provisioning off: its limits create nothing
    for limit in as_list(auto.get("resourceLimits")):
        if limit is UNKNOWN:
            return UNKNOWN
        kind = limit.get("resourceType") if isinstance(limit, dict) else None
        if kind is UNKNOWN:
            return UNKNOWN
        if isinstance(kind, str) and kind.lower() not in _NAP_RESOURCES and \
                limit.get("maximum") not in (0, 0.0, "0"):
            return kind
    return None


def _camel(key: str) -> str:
    """A snake_case or kebab-case key (JSON text, option names) in the engine's camelCase."""
    if "_" not in key and "-" not in key:
        return key
    head, *rest = re.split(r"[_-]+", key)
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def _declares(value: Any) -> bool:
    """Whether an accelerator field's value declares at least one accelerator: a type, a count
    above 0, unknown at preview; a list where any entry does; an object by its count where it
    has one ({count: 0, sku: V100} none), else by any of its values."""
    if value is UNKNOWN:
        return True
    if value is None or isinstance(value, bool):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in ("", "false", "none"):
        return False
    if isinstance(value, (int, float, str)):
        # A type (text that is no number), a count above 0, or a count that is no number
        # (NaN, negative: refused, so failing closed), never 0.
        n = checked_number(value)
        return isinstance(n, BadNumber) or (n or 0) > 0
    if isinstance(value, list):
        return any(_declares(v) for v in value)
    if isinstance(value, dict):
        counts = [v for k, v in value.items() if k.lower().endswith("count")]
        return _declares(counts[0]) if counts else any(_declares(v) for v in value.values())
    return False


def _pairs(value: dict) -> list[tuple[str, Any]]:
    """A dict's (key, value) pairs, with an option entry {name: InstanceType, value: ...} also
    read as the pair (instanceType, ...)."""
    pairs = list(value.items())
    if "value" in value:
        name = next((value[k] for k in _OPTION_NAME_KEYS if isinstance(value.get(k), str)), None)
        if name:
            pairs.append((name[:1].lower() + name[1:], value["value"]))
    return pairs


def _sign(value: Any, r: Resource, gpu_named: Any, depth: int) -> Optional[tuple[str, Any]]:
    """The first GPU sign in a resource's inputs: (field, what it holds), or None."""
    if depth > _SIGN_DEPTH:
        return None
    if isinstance(value, dict):
        for k, v in _pairs(value):
            if not isinstance(k, str) or k.lower().endswith(_OWNER_WORDS):
                continue
            key = _camel(k)
            if key in _ACCEL_KEYS or ("ccelerator" in k and _ACCEL_OPTION.fullmatch(k)):
                if _declares(v):
                    return k, v if not isinstance(v, (list, dict)) else "declared"
            elif key in _TYPE_KEYS or key.endswith(_TYPE_SUFFIXES):
                for t in (v if isinstance(v, list) else [v]):
                    if isinstance(t, str) and gpu_named(r.cloud, t, "type"):
                        return k, t
            elif key == "type":
                if isinstance(v, str) and gpu_named(r.cloud, v, "name"):
                    return k, v
            elif key.endswith(_FAMILY_SUFFIXES):
                if isinstance(v, str) and gpu_named(r.cloud, v, "family"):
                    return k, v
            elif k == "sku" and isinstance(v, dict) and isinstance(v.get("name"), str) \
                    and gpu_named(r.cloud, v["name"], "name"):
                # Azure names a VM size in sku.name (scale sets, capacity reservations, a Lab
                # Services lab's virtualMachineProfile.sku).
                return "sku.name", v["name"]
            found = _sign(v, r, gpu_named, depth + 1)
            if found is not None:
                return found
    elif isinstance(value, list):
        for v in value:
            found = _sign(v, r, gpu_named, depth + 1)
            if found is not None:
                return found
    elif isinstance(value, str):
        text = value.lstrip()
        if text.startswith(("{", "[")):
            # JSON text: a PAI-EAS service's serviceConfig, a template body.
            try:
                return _sign(json.loads(text), r, gpu_named, depth + 1)
            except (ValueError, RecursionError):
                return None
        if "ccelerator=" in value:
            for name, given in _OPTION_TEXT.findall(value):
                if _ACCEL_OPTION.fullmatch(name) and _declares(given):
                    return name, given
    return None


# The N1 shared-core machines, which take no GPU.
_N1_SHARED_CORE = frozenset({"f1-micro", "g1-small"})


def takes_attached_gpus(machine: Any) -> bool:
    """Whether a GCP machine type may carry attached GPUs (guestAccelerators): only N1 machines,
    predefined (n1-...) or custom (custom-<cpus>-<mib>, N1 custom types carry no series
    prefix), and not the N1 shared-core f1-micro / g1-small; the accelerator-optimized series
    (A2, A3, A4, G2) have theirs attached when the VM is made, and "GPUs can't be used with
    other machine series" (cloud.google.com/compute/docs/gpus/about-gpus, "GPUs and machine
    series"). A machine unknown at preview, or not named, may be N1."""
    if not isinstance(machine, str) or not machine:
        return True
    m = machine.lower()
    return m not in _N1_SHARED_CORE and (m.startswith("n1-") or m.startswith("custom-"))


def replaces_template(configs: Any) -> bool:
    """Whether every launch template config's overrides name the instance types launched, so
    that no node runs the template's own type: each config has overrides, each override a known
    instanceType and no launch template of its own ("Any instance types that you specify
    override the instance type in the launch template", API_LaunchTemplateOverrides; EC2
    Fleet's FleetLaunchTemplateOverridesRequest alike). Else the template's type is kept
    beside them (never fewer types than may launch)."""
    confs = dict_entries(configs)
    if not confs or UNKNOWN in confs:
        return False
    for conf in confs:
        overrides = dict_entries(conf.get("overrides") or conf.get("override"))
        if not overrides or any(
                o is UNKNOWN or not isinstance(o.get("instanceType"), str)
                or not o.get("instanceType") or o.get("launchTemplateSpecification") is not None
                for o in overrides):
            return False
    return True


def attribute_chosen(configs: list[Any]) -> bool:
    """Whether an override of these launch template configs names no instanceType and asks for
    accelerators by attributes (instanceRequirements): its nodes may be any GPU type AWS picks,
    priced by nothing in the catalog, whatever types the other overrides name."""
    for conf in configs:
        if not isinstance(conf, dict):
            continue
        for o in dict_entries(conf.get("overrides") or conf.get("override")):
            if isinstance(o, dict) and not o.get("instanceType") and \
                    requirements_accelerators([], [{"overrides": [o]}]):
                return True
    return False


def requirements_accelerators(templates: list[Resource], configs: list[Any]) -> int:
    """Accelerators per node asked for by attributes (instanceRequirements) in launch templates
    (a classic one's top-level input, an aws-native one's launchTemplateData) or in the
    overrides of launch template configs (an ASG's mixed instances policy, an EC2 Fleet's or
    Spot Fleet's launchTemplateConfigs: the same InstanceRequirements shape,
    docs.aws.amazon.com/AWSEC2/latest/APIReference/API_InstanceRequirements.html):
    acceleratorCount.min, or 1 when GPU accelerators are asked for without a count (types
    [gpu], a manufacturer or a name), or when the count or types are unknown at preview. An
    acceleratorCount.max of 0 asks for none, whatever else is named ("To exclude
    accelerator-enabled instance types, set Max to 0"). The keys are the same on aws and
    aws-native (CloudFormation AcceleratorCount, AcceleratorTypes, AcceleratorManufacturers,
    AcceleratorNames, camel-cased), so an aws-native group or template reads here too."""
    holders: list[Any] = []
    for t in templates:
        holders.append(t.get("launchTemplateData.instanceRequirements")
                       if t.type == AWS_NATIVE_LT else t.get("instanceRequirements"))
    for conf in configs:
        if conf is UNKNOWN:
            continue   # an unknown config already leaves the type unknown (GPU capacity)
        for o in dict_entries(conf.get("overrides") or conf.get("override")):
            holders.append(o.get("instanceRequirements") if isinstance(o, dict) else UNKNOWN)
    most = 0
    for req in holders:
        if req is UNKNOWN:
            return 1   # an attribute set unknown until apply may ask for GPUs: not "no GPU"
        if not isinstance(req, dict):
            continue
        if checked_number(reach(req, "acceleratorCount.max")) == 0.0:
            continue   # accelerator-enabled types excluded: CPU nodes
        checked = checked_number(reach(req, "acceleratorCount.min"))
        # A minimum that is no number still asks for accelerators: at least 1, never 0.
        # One unknown at preview may ask for accelerators: 1 as well.
        low = checked if isinstance(checked, float) else 1.0 if isinstance(
            checked, BadNumber) or checked is UNKNOWN else None
        named = name_list(req.get("acceleratorTypes"))   # one string: a list of it
        kinds = ["gpu" if k is UNKNOWN else str(k).lower() for k in named]
        if (low or 0) > 0 or "gpu" in kinds or req.get("acceleratorManufacturers") or \
                req.get("acceleratorNames"):
            most = max(most, int(low or 1))
    return most


def attaches_none(entry: dict, count_key: str = "count") -> bool:
    """An accelerator entry whose count is 0: it attaches nothing, on any machine (programs
    write `count = var.gpus` set to 0 for no GPU; the docs: "{count: 0} declaring none")."""
    n = checked_number(entry.get(count_key))
    return isinstance(n, float) and n == 0


def accelerator_entries(declared: Any, count_key: str = "count") -> list[Any]:
    """The entries of an accelerators input (dict_entries: one object written for the list
    included, UNKNOWN entries kept) less those of count 0 (attaches_none)."""
    return [a for a in dict_entries(declared) if a is UNKNOWN or not attaches_none(a, count_key)]


def attached_entries(declared: Any, machine: Any, count_key: str = "count") -> list[Any]:
    """The entries of a guestAccelerators input (one object written for the list included,
    model.as_list) that attach GPUs to `machine`: each object, and UNKNOWN for an entry unknown
    at preview (an entry of count 0 attaches none: attaches_none). What is unknown at preview,
    the list, an entry, or an entry's count alone, is
    kept only on a machine that may take attached GPUs (takes_attached_gpus), where it is at
    least one GPU, of no price; on any other series, known at preview, it adds none, since
    "GPUs can't be used with other machine series" whatever their number. An entry whose count
    is known (or no number, which is refused) is kept on any machine. VMs, instance templates,
    GKE pools and reservations all read their accelerators here."""
    entries = accelerator_entries(declared, count_key)
    if takes_attached_gpus(machine):
        return entries
    return [a for a in entries
            if isinstance(a, dict) and checked_number(a.get(count_key)) is not UNKNOWN]


def _accelerator_name(kind: Any) -> Any:
    """A GPU type by its name (the last segment of a URL); UNKNOWN or "" where it cannot be
    read (then it has no price)."""
    if kind is UNKNOWN:
        return UNKNOWN
    return last_segment(kind) if isinstance(kind, str) and kind else ""


def _items(value: Any) -> list:
    if value is UNKNOWN:
        return [UNKNOWN]
    return list(value) if isinstance(value, list) else []


def _get(value: Any, path: str) -> Any:
    for part in path.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    return value


def unread_placement(r: Resource, key: str,
                     subnet_types: Optional[tuple[str, ...]] = None) -> bool:
    """Whether compute `r` is placed by a subnet or vSwitch id in `key` (the list, or an entry
    of it) unknown at preview with no subnet or vSwitch of the stack behind it (of
    `subnet_types`; any dependency where None): a stack reference, a data source. Its zone is
    read only at apply, so the nodes' zone is UNKNOWN ("cannot decide"), not one the pack can
    never read."""
    # A nested input's (computeResources.subnets) dependencies are recorded under its
    # top-level input, with the others of that input: only subnets of `subnet_types` count.
    if any(subnet_types is None or d.type in subnet_types
           for d in r.deps.get(key.partition(".")[0], [])):
        return False
    value = r.get(key)
    return value is UNKNOWN or (isinstance(value, list) and any(v is UNKNOWN for v in value))


def _named(value: Any) -> bool:
    """An input that is set (unknown at preview included): it places the node itself."""
    return value is UNKNOWN or value not in (None, "", [], {})


def _subnet_zones(subnets: Iterable[Resource]) -> list[Any]:
    out: list[Any] = []
    for s in subnets:
        z = s.get("availabilityZone")
        if z is not None and z not in out:
            out.append(z)
    return out


def _interfaces(template: Resource, native: bool) -> list[Any]:
    """A launch template's network interfaces as a list (one object or a list; aws-native:
    under launchTemplateData); [UNKNOWN] where the whole input is unknown at preview."""
    value = template.get("launchTemplateData.networkInterfaces" if native else "networkInterfaces")
    if isinstance(value, dict):
        return [value]
    return _items(value)


def template_zones(template: Optional[Resource]) -> list[Any]:
    """The availability zones of the stack subnets an AWS launch template's network interfaces
    name (aws: networkInterfaces, one object or a list; aws-native: under launchTemplateData),
    else its placement's availabilityZone (EC2 API RequestLaunchTemplateData NetworkInterfaces
    [].SubnetId, Placement.AvailabilityZone): where what launches from it names no subnet of
    its own, its nodes launch there. [] where none reads."""
    if template is None:
        return []
    native = template.type == AWS_NATIVE_LT
    key = "launchTemplateData" if native else "networkInterfaces"
    zones = _subnet_zones(d for d in template.deps.get(key, []) if d.type in _AWS_SUBNETS)
    if not zones and any(nic is UNKNOWN or (isinstance(nic, dict) and nic.get("subnetId") is UNKNOWN)
                         for nic in _interfaces(template, native)):
        return [UNKNOWN]     # a subnet read at apply (no stack subnet behind it): its zone too
    if not zones:
        placed = template.get("launchTemplateData.placement.availabilityZone" if native
                              else "placement.availabilityZone")
        zones = [placed] if placed else []
    return zones


def launch_zones(r: Resource, template: Optional[Resource]) -> list[Any]:
    """The availability zones an AWS instance (aws or aws-native) or Spot Instance request
    launches in, read through the stack's subnets: its own subnetId; else its own network
    interfaces (an interface's subnetId, or an existing interface of the stack and that
    interface's subnet); else, only where it names neither, its launch template's
    (template_zones). What the request names wins over the template: "Any additional
    parameters that you specify for the new instance overwrite the corresponding parameters
    included in the launch template" (EC2 API RunInstances, LaunchTemplate). [] where none
    reads (a subnet the stack does not create, one unknown at preview)."""
    if r.deps.get("subnetId") or _named(r.get("subnetId")):
        if not r.deps.get("subnetId") and r.get("subnetId") is UNKNOWN:
            return [UNKNOWN]     # a subnet read at apply (no stack subnet behind it): its zone too
        return _subnet_zones(d for d in r.deps.get("subnetId", []) if d.type in _AWS_SUBNETS)
    nics = r.deps.get("networkInterfaces", [])
    if nics or _named(r.get("networkInterfaces")):
        return _subnet_zones([d for d in nics if d.type in _AWS_SUBNETS] + [
            s for d in nics if d.type in _AWS_NICS
            for s in d.deps.get("subnetId", []) if s.type in _AWS_SUBNETS])
    return template_zones(template)


def _region(r: Resource, zone: Any) -> Any:
    """An AWS resource's region, placed by its one zone as inventory's groups are by theirs."""
    from trainstack_policies.model import aws_region
    return aws_region(r, [zone])


def _location(r: Resource) -> Any:
    value = r.get("location") or r.provider_region or ""
    return UNKNOWN if value is UNKNOWN else str(value).replace(" ", "").lower()


def _location_via(r: Resource, key: str) -> Any:
    """The location of a classic azure resource that has none of its own: the resource it
    belongs to (a reservation's group, a node pool's cluster), else its provider's."""
    for d in r.deps.get(key, []):
        if d.get("location") is not None:
            return _location(d)
    return _location(r)


def _azure_zones(value: Any, zone: Any) -> list:
    if value is UNKNOWN:
        return [UNKNOWN]
    return [zone(z) for z in value] if isinstance(value, list) and value else [""]
