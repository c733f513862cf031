"""rdma-for-multinode (advisory): more than one node means a placement construct and the fastest fabric.

Without RDMA, data-parallel training across nodes scales to a fraction of the GPUs paid for
(seed article §1-3). Per cloud (cloud-map §0, §9.2): AWS a cluster placement group and one EFA
interface per EFA-capable network card; GCP a compact/COLLOCATED or HIGH_THROUGHPUT placement and
the machine type's GPU NICs (MRDMA on RoCE types); Azure one scale set with
singlePlacementGroup (InfiniBand comes with the `r` size), azure-native or classic alike;
Alibaba a LowLatency deployment set and HighPerformance (eRDMA) traffic mode. The catalog says
which fabric each type has; GCP N1 machines with attached GPUs have no row and no RDMA fabric.

Capacity bought ahead fixes placement itself and counts as the construct: an AWS targeted
capacity reservation or Capacity Block (the launch template's capacityReservationTarget), a GCP
SPECIFIC_RESERVATION affinity (the reservation's dense placement), an Alibaba HPC cluster
(hpcClusterId, how SCC types such as sccgn7ex are placed instead of a deployment set; it places
no other type).
"""
from __future__ import annotations

from typing import Any, Mapping, Optional

from trainstack_policies import capacity
from trainstack_policies.capacity import AZ_CLASSIC_VM, AZ_CLASSIC_VMSS, takes_attached_gpus
from trainstack_policies.inventory import (
    ALI_DEPLOYMENT_SET,
    ALI_HPC_CLUSTER,
    ALI_INSTANCE_SET,
    ALI_SCALING_GROUP,
    AWS_ASG,
    AWS_PLACEMENT_GROUP,
    AZ_VMSS,
    GCP_RESOURCE_POLICY,
    NodeGroup,
    gpu_groups,
)
from trainstack_policies.inventory.groups import launch_settings
from trainstack_policies.model import (
    AWS_INTERFACE_KEYS,
    UNKNOWN,
    Resource,
    UnknownValue,
    Violation,
    dig,
    violation,
)
from trainstack_policies.pricing import instance_type_info

# The classic scale sets whose singlePlacementGroup the provider defaults to true (the legacy
# compute.ScaleSet's too: "Defaults to `true`", pulumi-azure ScaleSet single_placement_group).
_CLASSIC_SINGLE_BY_DEFAULT = frozenset({
    "azure:compute/linuxVirtualMachineScaleSet:LinuxVirtualMachineScaleSet",
    "azure:compute/windowsVirtualMachineScaleSet:WindowsVirtualMachineScaleSet",
    "azure:compute/scaleSet:ScaleSet"})

NAME = "rdma-for-multinode"
DESCRIPTION = ("With more than one node, the nodes sit in a placement construct and use the "
               "instance type's fastest fabric (RDMA where the type has it).")
ENFORCEMENT_LEVEL = "advisory"
KIND = "stack"
SEVERITY = "medium"
REMEDIATION = (
    'Put multi-node GPU groups in a placement construct (AWS cluster placement group, GCP '
    'COLLOCATED/HIGH_THROUGHPUT resource policy, Azure single placement group, Alibaba '
    "LowLatency deployment set) and give them the instance type's RDMA interfaces (EFA, "
    'MRDMA, InfiniBand, eRDMA). With trainstack: interconnect: fastest.'
)
SCOPE = (
    'GPU capacity of more than one node in total; managed pools and fleets (EKS node groups, '
    'GKE node pools, EC2 Fleet / Spot Fleet) are left to their services. A targeted AWS capacity '
    'reservation or Capacity Block, a GCP specific reservation and an Alibaba HPC cluster (of SCC '
    'types) count as placement.'
)


# GPU capacity this rule does not judge: placement and fabric belong to the managed service
# (EKS / GKE pools, EC2 fleets), which take them in settings this rule does not read.
_NOT_PLACEABLE = ("aws:eks/nodeGroup:NodeGroup", "gcp:container/nodePool:NodePool",
                  "gcp:container/cluster:Cluster",
                  "aws:ec2/spotFleetRequest:SpotFleetRequest", "aws:ec2/fleet:Fleet",
                  "aws-native:ec2:SpotFleet",
                  "aws-native:ec2:Ec2Fleet",
                  *capacity.RESERVATIONS, *capacity.MANAGED)


def _aws_reservation(g: NodeGroup) -> Any:
    """The targeted capacity reservation (ODCR or Capacity Block) the nodes launch into, if any.

    A targeted reservation fixes where the instances go: a Capacity Block is a set of co-located
    instances (EC2 UltraClusters), and an ODCR can itself be created in a cluster placement group.
    The launch template then carries no placement group of its own (trainstack's components
    leave it out, cloud-map §1), so the target counts as the placement construct.
    """
    for holder in (g.resource, g.template):
        if holder is None:
            continue
        holder = launch_settings(holder)   # an aws-native template: under launchTemplateData
        target = holder.get("capacityReservationSpecification.capacityReservationTarget")
        if target is UNKNOWN:
            raise UnknownValue(holder, "capacityReservationSpecification")
        if isinstance(target, dict):
            found = (target.get("capacityReservationId")
                     or target.get("capacityReservationResourceGroupArn"))
            if found is UNKNOWN or (isinstance(found, str) and found):
                return found
    return None


def _gcp_reservation(g: NodeGroup) -> Any:
    """The specific reservation the VMs consume, if any: its dense placement fixes theirs."""
    for holder in (g.template, g.resource):
        if holder is None:
            continue
        affinity = holder.get("reservationAffinity")
        if affinity is UNKNOWN:
            raise UnknownValue(holder, "reservationAffinity")
        if isinstance(affinity, dict) and affinity.get("type") == "SPECIFIC_RESERVATION":
            values = dig(affinity, "specificReservation.values") or []
            return ", ".join(str(v) for v in values) if isinstance(values, list) and values \
                else "a specific reservation"
    return None


# A placement group of the stack: classic, and CloudFormation AWS::EC2::PlacementGroup (Strategy
# cluster | partition | spread) through aws-native.
_AWS_PLACEMENT_GROUPS = (AWS_PLACEMENT_GROUP, "aws-native:ec2:PlacementGroup")

# Where an Azure VM names the construct that places it: azure-native, then the classic provider.
_AZ_VM_PLACEMENT = ("virtualMachineScaleSet", "availabilitySet", "proximityPlacementGroup")
_AZ_CLASSIC_VM_PLACEMENT = ("virtualMachineScaleSetId", "availabilitySetId",
                            "proximityPlacementGroupId")


def _attached_gpus_only(g: NodeGroup) -> bool:
    """Whether a GCP group's GPUs are attached to N1 machines (guestAccelerators on an n1-* or
    N1 custom-* machine, capacity.takes_attached_gpus), every type it may launch. Such a VM has
    no row in instance_types.csv and no RDMA network: GPUDirect-RDMA (RoCE) is the A3 Ultra /
    A4 / A4X machine types' (cloud.google.com/compute/docs/gpus/gpu-network-bandwidth; GKE's
    GPUDirectStrategy "RDMA: GPUDirect-RDMA on A3 Ultra, and A4 machine types"), and an N1 VM
    with GPUs talks over its ordinary VPC NIC, as a g2-standard-8 (a tcp row) does."""
    return (g.cloud == "gcp" and bool(g.accelerators) and all(
        isinstance(t, str) and t and takes_attached_gpus(t) for t in g.instance_types))


def _placement(g: NodeGroup) -> tuple[bool, Any, str, str]:
    """(ok, found, expected, fix) for the group's placement construct."""
    r = g.resource
    if g.cloud == "aws":
        reservation = _aws_reservation(g)
        if reservation is not None:
            return True, f"capacity reservation {reservation}", "", ""
        # The group's or instance's own placement group (classic instance and group, and
        # CloudFormation AWS::AutoScaling::AutoScalingGroup: placementGroup; an aws-native
        # AWS::EC2::Instance: placementGroupName), else its launch template's placement.groupName
        # (an aws-native template's under launchTemplateData). A placement group of the stack it
        # depends on (aws or aws-native AWS::EC2::PlacementGroup) must be a cluster one; a
        # literal name of one the stack does not create is taken as it is.
        own_key = "placementGroupName" if r.type == capacity.AWS_NATIVE_INSTANCE \
            else "placementGroup"
        template = launch_settings(g.template) if g.template is not None else None
        own = r.get(own_key)
        name = own or (template.get("placement.groupName") if template is not None else None)
        named_by, key = (r, own_key) if own or template is None else (template, "placement")
        pgs = [d for d in named_by.deps.get(key, []) if d.type in _AWS_PLACEMENT_GROUPS]
        strategy = pgs[0].get("strategy") if pgs else None
        if name and strategy is UNKNOWN:
            # cluster, spread or partition is read at apply: "cannot decide", not unplaced.
            raise UnknownValue(pgs[0], "strategy")
        ok = bool(name) and (not pgs or strategy == "cluster")
        found = f"placement group {name} (strategy {strategy})" if name and pgs else name
        return (ok, found, "a placement group with strategy \"cluster\"",
                "create an ec2.PlacementGroup(strategy=\"cluster\") and set placement_group on "
                "the group")
    if g.cloud == "gcp":
        reservation = _gcp_reservation(g)
        if reservation is not None:
            return True, f"reservation {reservation}", "", ""
        policies: list[Resource] = []
        for holder in (r, g.template):
            if holder is not None:
                policies += holder.dep("resourcePolicies", GCP_RESOURCE_POLICY)
        compact = [p for p in policies if p.get("groupPlacementPolicy.collocation") == "COLLOCATED"
                   or p.get("workloadPolicy.type") == "HIGH_THROUGHPUT"]
        unread = [(p, path) for p in policies for path in ("groupPlacementPolicy.collocation",
                                                           "workloadPolicy.type")
                  if p.get(path) is UNKNOWN]
        if not compact and unread:
            # A policy whose collocation (or workload type) is read at apply may be the compact
            # one: "cannot decide", not unplaced.
            raise UnknownValue(*unread[0])
        named = r.get("resourcePolicies.workloadPolicy") or (
            g.template.get("resourcePolicies") if g.template else None)
        ok = bool(compact) or (bool(named) and not policies)
        found = ", ".join(p.name for p in policies) or named or None
        return (ok, found, "a COLLOCATED or HIGH_THROUGHPUT compute.ResourcePolicy",
                "attach a compute.ResourcePolicy (workload_policy type HIGH_THROUGHPUT on the "
                "instance group manager, or group_placement_policy COLLOCATED)")
    if g.cloud == "azure":
        if r.type == AZ_VMSS or r.type in AZ_CLASSIC_VMSS:
            # The classic provider's scale sets (Linux, Windows and the Flexible "Orchestrated"
            # one) take the same switch, single_placement_group (pulumi-azure
            # compute.LinuxVirtualMachineScaleSet / WindowsVirtualMachineScaleSet /
            # OrchestratedVirtualMachineScaleSet), read as the azure-native set's. The
            # orchestrated set's required platformFaultDomainCount spreads VMs over fault
            # domains; it places nothing.
            single = r.get("singlePlacementGroup")
            if single is UNKNOWN:
                # One placement group or several is decided only at apply: "cannot decide".
                raise UnknownValue(r, "singlePlacementGroup")
            if single is None and r.type in _CLASSIC_SINGLE_BY_DEFAULT:
                # Left out on a classic Linux or Windows set: the provider's default, true
                # ("Should this Virtual Machine Scale Set be limited to a Single Placement
                # Group ... Defaults to `true`", pulumi-azure / azurerm
                # linux_virtual_machine_scale_set, windows_virtual_machine_scale_set). The
                # Orchestrated set documents none (the service picks it from the SKU:
                # azurerm orchestrated_virtual_machine_scale_set): left out, not placed.
                single = True
            kind = r.type.rsplit(":", 1)[-1]
            return (single is True, f"singlePlacementGroup={single}",
                    "singlePlacementGroup=true (InfiniBand joins only VMs of one placement group)",
                    f"set single_placement_group=True on the {kind}")
        # azure-native VMs name their set, availability set or PPG as a sub-resource; the
        # classic provider's Linux/WindowsVirtualMachine by its ID (virtual_machine_scale_set_id,
        # availability_set_id, proximity_placement_group_id).
        keys = _AZ_CLASSIC_VM_PLACEMENT if r.type in AZ_CLASSIC_VM else _AZ_VM_PLACEMENT
        holder = next((v for v in (r.get(k) for k in keys) if v), None)
        return (bool(holder), holder, "a scale set, availability set or proximity placement group",
                "put the VMs in one VirtualMachineScaleSet (Flexible) or availability set")
    if g.cloud == "alicloud":
        if r.type == ALI_SCALING_GROUP:
            return (False, "an ess scaling group (no deployment set)",
                    "nodes in a LowLatency deployment set",
                    "use ecs.Instance nodes with deployment_set_id (ess scaling configurations "
                    "cannot take a deployment set)")
        # SCC types (sccgn7ex) are placed by an HPC cluster instead of a deployment set.
        # The ID is unknown at preview when the cluster is created in the same stack; that it
        # is set is what places the nodes (only an HPC cluster's ID fits the field). Only SCC
        # types: for any other type (eRDMA ebmgn8v, gn8v-8x) hpcClusterId is "the ID of the
        # HPC cluster to which to assign the instance" (ECS RunInstances; pulumi-alicloud: the
        # E-HPC cluster), a grouping that places nothing, so the deployment set is still asked.
        hpc = r.get("hpcClusterId")
        scc = _scc_types(g)
        if scc and (hpc is UNKNOWN or (isinstance(hpc, str) and hpc)):
            clusters = r.dep("hpcClusterId", ALI_HPC_CLUSTER)
            return True, f"HPC cluster {clusters[0].name if clusters else hpc}", "", ""
        sets = r.dep("deploymentSetId", ALI_DEPLOYMENT_SET)
        strategy = sets[0].get("strategy") if sets else None
        if strategy is UNKNOWN:
            # LowLatency or Availability is read at apply: "cannot decide", not unplaced.
            raise UnknownValue(sets[0], "strategy")
        ok = bool(r.get("deploymentSetId")) and (not sets or strategy == "LowLatency")
        hpc_only = (f"HPC cluster {hpc if isinstance(hpc, str) else '(unknown at preview)'} "
                    "(it places SCC types only)" if hpc else None)
        return (ok, f"deployment set {r.get('deploymentSetId')} (strategy {strategy})"
                if r.get("deploymentSetId") else hpc_only,
                "a deployment set with strategy \"LowLatency\" (an HPC cluster for SCC types)",
                "create an ecs.EcsDeploymentSet(strategy=\"LowLatency\") and set "
                "deployment_set_id on the nodes")
    return True, None, "", ""


def _scc_types(g: NodeGroup) -> bool:
    """Whether every type the group may launch is a Super Computing Cluster (SCC) type: a family
    named scc* (sccgn7ex, the catalog's one; "超级计算集群实例规格族", help.aliyun.com/zh/ecs/
    user-guide/overview-40#sccgn7ex), whose RoCE network is reached inside an HPC cluster."""
    types = list(g.instance_types or [g.instance_type])
    return bool(types) and all(isinstance(t, str) and t.lower().removeprefix("ecs.").startswith(
        "scc") for t in types)


def _fabric(g: NodeGroup, itype: Any) -> Optional[tuple[Any, str, str]]:
    """(found, expected, fix) when the group does not use the type's fastest fabric."""
    t = g.template
    if g.cloud == "aws" and itype.fabric == "efa":
        # An aws-native template keeps its interfaces under launchTemplateData.
        t = launch_settings(t) if t is not None else None
        # Only each interface's type is read; an unknown list raises, and a value that is no
        # list is iterated (a number: TypeError, "cannot decide"), as before.
        nics = t.entries("networkInterfaces", AWS_INTERFACE_KEYS, iterated=True) if t else []
        efa = sum(1 for n in nics if isinstance(n, dict)
                  and n.get("interfaceType") in ("efa", "efa-only"))
        if efa < itype.rdma_nics:
            return (f"{efa} EFA interface(s)", f"{itype.rdma_nics} EFA interfaces "
                    f"({itype.name} has {itype.rdma_nics} EFA-capable network cards)",
                    "set interconnect: fastest (or rdma) in the spec, or give the launch template "
                    "one efa/efa-only interface per EFA network card")
    elif g.cloud == "gcp" and itype.rdma_nics:
        nics = (t.get("networkInterfaces") if t else None) or []
        if t is not None and nics is UNKNOWN:
            raise UnknownValue(t, "networkInterfaces")
        if itype.fabric == "roce":
            have = sum(1 for n in nics if isinstance(n, dict) and n.get("nicType") == "MRDMA")
            what = "MRDMA NICs"
        else:
            have = max(len(nics) - 1, 0)
            what = f"GPU NICs ({itype.fabric})"
        if have < itype.rdma_nics:
            return (f"{have} {what}", f"{itype.rdma_nics} {what}",
                    "give the template one NIC per GPU NIC of the machine type, each in its own "
                    "VPC (MRDMA NICs in a RoCE VPC for A3 Ultra / A4)")
    elif g.cloud == "alicloud" and itype.fabric == "erdma":
        r = g.resource
        modes = [r.get("networkInterfaceTrafficMode"),
                 r.get("networkInterfaces.networkInterfaceTrafficMode")]
        if t is not None:
            modes += [n.get("networkInterfaceTrafficMode") for n in t.entries(
                "networkInterfaces", ("networkInterfaceTrafficMode",)) if isinstance(n, dict)]
        if UNKNOWN in modes:
            raise UnknownValue(r, "networkInterfaceTrafficMode")
        if "HighPerformance" not in modes:
            fix = ("use ecs.Instance nodes (EcsInstanceSet has no traffic-mode field) with "
                   "network_interface_traffic_mode=\"HighPerformance\""
                   if r.type == ALI_INSTANCE_SET
                   else "set network_interface_traffic_mode=\"HighPerformance\" (an ERI)")
            return ("Standard traffic mode (no ERI)", "HighPerformance (eRDMA)", fix)
    return None


def _spread(g: NodeGroup) -> bool:
    """Whether the group's nodes are placed in more than one zone it names (unread or unknown
    zones are no evidence of a spread)."""
    zones = g.zones if isinstance(g.zones, list) else []
    return len({z for z in zones if isinstance(z, str) and z}) > 1


def check(resources: list[Resource], config: Mapping[str, Any]) -> list[Violation]:
    out: list[Violation] = []
    # A parked group (maximum 0) runs nothing; managed pools, fleets and reservations are
    # placed by their services.
    groups = [g for g in gpu_groups(resources) if g.count != 0
              and g.resource.type not in _NOT_PLACEABLE]
    # Nodes may be one group of N or N single-node resources (ecs.Instance, compute.Instance).
    if sum(2 if g.count is None else g.count for g in groups) <= 1:
        return out
    unknown: Optional[UnknownValue] = None
    for g in groups:
        if _attached_gpus_only(g):
            # N1 with attached GPUs: no RDMA fabric (no catalog row says so; see the helper).
            continue
        try:
            _check_group(g, out)
        except UnknownValue as undecided:
            # That group alone cannot be decided: the others are still judged, and "cannot
            # decide" is the answer only where nothing else is found (a finding elsewhere
            # must not be hidden by it).
            unknown = unknown or undecided
    if unknown is not None and not out:
        raise unknown
    return out


def _check_group(g: NodeGroup, out: list[Violation]) -> None:
    """One group's placement and fabric findings, added to `out`; UnknownValue where a value
    they rest on is unknown at preview."""
    asked = _asked_types(g)
    if not asked:
        return
    ok, found, expected, fix = _placement(g)
    if not ok:
        out.append(violation(g.resource, "the nodes are not in a placement construct",
                             found, expected, fix))
    for t, itype in asked:
        if itype is None:
            out.append(violation(g.resource, "the instance type's fabric is unknown",
                                 t, "a type in trainstack's catalog",
                                 "use a type listed in components/catalog/instance_types.csv"))
    # The fabric of the type that needs the most RDMA interfaces: a node of any of them
    # may launch from the group's one template.
    typed = sorted((i for _, i in asked if i is not None), key=lambda i: -i.rdma_nics)
    for itype in typed:
        gap = _fabric(g, itype)
        if gap:
            out.append(violation(g.template if g.template is not None
                                 and g.resource.type == AWS_ASG else g.resource,
                                 f"the nodes do not use {itype.name}'s fastest fabric "
                                 f"({itype.fabric})", *gap))
            break


def _asked_types(g: NodeGroup) -> list[tuple[Any, Any]]:
    """(type, catalog row or None) of every type the group may launch that asks for placement
    and fabric: a type with an RDMA fabric, or one not in the catalog. A mixed instances group
    (or any group of several types) may launch every node of any of its types, so each is
    judged, not only the first (as spend-limit prices the dearest); a type unknown at preview
    may be one with RDMA: "cannot decide"."""
    out: list[tuple[Any, Any]] = []
    types = list(dict.fromkeys(g.instance_types or [g.instance_type]))
    for t in types:
        if t is UNKNOWN:
            raise UnknownValue(g.template or g.resource, "instanceType")
    for t in types:
        itype = instance_type_info(g.cloud, str(t))
        if itype is None and g.cloud == "gcp" and g.accelerators and isinstance(t, str) \
                and takes_attached_gpus(t):
            continue   # an N1 machine with attached GPUs: no RDMA fabric (_attached_gpus_only)
        if itype is not None and not itype.rdma:
            # A type with no RDMA fabric: nodes that talk over TCP gain nothing from packing.
            continue
        if itype is not None and itype.gpu_count < 8 and _spread(g):
            # An inference size (1-4 GPUs; G5/G6 sizes from 8xlarge up have EFA) spread over
            # zones for availability: a cluster placement group is one Availability Zone's and
            # EFA traffic does not leave it (docs.aws.amazon.com/AWSEC2/latest/UserGuide/
            # placement-strategies.html), so the group has no fabric to share.
            continue
        out.append((t, itype))
    return out
