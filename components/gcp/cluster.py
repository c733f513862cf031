"""The GCP GPU cluster component: thin wiring over trainstack_components.gcp.planning."""
from __future__ import annotations

import ipaddress

import pulumi
import pulumi_gcp as gcp
from pulumi_command import local

from trainstack_components import lifetime as shared_lifetime
from trainstack_components.base import ClusterArgs
from trainstack_components.boot import MOUNT_PATH, NodeContext, render_boot
from trainstack_components.gcp import budget_action, planning
from trainstack_components.gcp import lifetime as gcp_lifetime
from trainstack_components.gcp.boot import GcpBoot
from trainstack_components.gcp.identity import node_identity
from trainstack_components.gpu_cluster import GpuCluster
from trainstack_components.pinning import image_note, nodes_held, pinned_image
from trainstack_components.tags import RETAIN_TAG

# APIs the cluster calls, enabled in the project (and left enabled on destroy: other stacks and
# people may use them).
APIS = {
    "compute": "compute.googleapis.com",
    "storage": "storage.googleapis.com",
    "lustre": "lustre.googleapis.com",
    "servicenetworking": "servicenetworking.googleapis.com",
    "billingbudgets": "billingbudgets.googleapis.com",
    "monitoring": "monitoring.googleapis.com",
    "iam": "iam.googleapis.com",    # the nodes' own service account
    "iap": "iap.googleapis.com",    # the way in: IAP TCP forwarding
    "cloudscheduler": "cloudscheduler.googleapis.com",  # the resize to 0 at the declared lifetime
}


IAP_RANGE = "35.235.240.0/20"


def _scheduling(capacity: planning.CapacityPlan) -> gcp.compute.InstanceTemplateSchedulingArgs:
    limit = capacity.max_run_seconds
    return gcp.compute.InstanceTemplateSchedulingArgs(
        on_host_maintenance="TERMINATE", automatic_restart=capacity.automatic_restart,
        preemptible=capacity.preemptible, provisioning_model=capacity.provisioning_model,
        instance_termination_action=capacity.termination_action,
        max_run_duration=gcp.compute.InstanceTemplateSchedulingMaxRunDurationArgs(
            seconds=limit) if limit else None)


def _reservation_affinity(capacity: planning.CapacityPlan):
    if capacity.provisioning_model == "FLEX_START":  # flex-start never consumes a reservation
        return gcp.compute.InstanceTemplateReservationAffinityArgs(type="NO_RESERVATION")
    if not capacity.reservation:
        return None
    return gcp.compute.InstanceTemplateReservationAffinityArgs(
        type="SPECIFIC_RESERVATION",
        specific_reservation=gcp.compute.InstanceTemplateReservationAffinitySpecificReservationArgs(
            key=planning.RESERVATION_KEY, values=[capacity.reservation]))


class GcpGpuCluster(GpuCluster):
    """Nodes from an instance template in one zonal managed instance group, obtained the way
    `clouds.gcp.capacity` says (spot, flex-start through a ResizeRequest, a reservation) under a
    HIGH_THROUGHPUT workload policy or the reservation's own placement, wired to a host VPC and
    the RoCE or GPUDirect NIC VPCs their type needs; Managed Lustre in the same zone; a GCS bucket
    in the region; a billing budget with e-mail channels; the spec's tags as GCP labels."""

    cloud = "gcp"

    def _build(self, name: str, args: ClusterArgs) -> dict[str, object]:
        spec, sel = args.spec, args.selection
        loc = spec.location("gcp")
        self.project, self.region, self.zone = loc.project, sel.region, sel.zone
        self.labels = planning.gcp_labels(args.tags)
        self.apis = {key: gcp.projects.Service(
            f"{name}-api-{key}", project=self.project, service=service, disable_on_destroy=False,
            opts=self.child()) for key, service in APIS.items()}
        layout = planning.network_plan(sel.instance, sel.use_rdma, spec.interconnect)
        nets = self._networks(name, layout, spec.access.ssh_cidrs)
        bucket = self._bucket(name, spec.bucket.retain_on_destroy)
        capacity = planning.spec_capacity_plan(spec, sel.instance)
        policy = self._workload_policy(
            name, planning.max_topology_distance(sel.instance, loc.topology_distance)) \
            if capacity.workload_policy else None
        fs, fs_size, fs_tier = self._filesystem(name, args, nets)
        identity = node_identity(name, args.stack, self.project, bucket, self.apis,
                                 parent=self)
        self._import_at_create(name, args, fs, bucket, identity.lustre_agent_access)
        self._iap_ssh(name, nets["vpc"])
        # The boot, rendered once for the user data and the plan's outline of it.
        boot = self._boot_context(args, fs, bucket).apply(
            lambda ctx: render_boot(ctx, GcpBoot()))
        fixed_image = pinned_image()
        image = fixed_image or gcp.compute.get_image_output(
            family=planning.IMAGE_FAMILY, project=planning.IMAGE_PROJECT,
            opts=pulumi.InvokeOutputOptions(parent=self)).self_link
        now = shared_lifetime.utc_now()
        lifetime = shared_lifetime.from_stack_config(spec.lifetime_hours)
        group, resize = self._nodes(
            name, args, layout, nets, policy, capacity, image, image_fixed=bool(fixed_image),
            service_account=identity.account,
            user_data=boot.apply(lambda rendered: rendered.text),
            nodes=shared_lifetime.nodes_now(lifetime, spec.nodes, now))
        lifetime_outputs = gcp_lifetime.enforce(
            self, name, args.stack, project=self.project, region=self.region, zone=self.zone,
            group=group, api=self.apis["cloudscheduler"], lifetime=lifetime, now=now,
            resize_request=resize)
        budget = self._budget(name, args, budget_action.budget_stop(
            self, name, project=self.project, region=self.region, zone=self.zone, group=group,
            bucket=bucket, labels=self.labels, stop_fraction=max(planning.budget_thresholds(
                spec.budget.alert_percents, spec.budget.emails))))
        instance_id = planning.lustre_instance_id(name, args.stack)
        policy_distance = planning.max_topology_distance(sel.instance, loc.topology_distance) \
            if policy else None

        def command(verb: str) -> pulumi.Output[str]:
            return bucket.name.apply(
                lambda b: planning.transfer_command(verb, instance_id, self.zone, self.project, b))

        return {
            "node_group": group.name,
            # None: the reservation's own placement (a workload policy would conflict with it).
            "placement_group": policy.name if policy else None,
            "capacity": capacity.provisioning_model,
            "capacity_request": resize.name if resize else None,
            "max_run_seconds": capacity.max_run_seconds,
            # What the template really holds (its state), not today's newest image in the family.
            "image": self._template.disks.apply(lambda disks: disks[0].source_image),
            "image_pin": image_note(f"image family {planning.IMAGE_PROJECT}/{planning.IMAGE_FAMILY}"),
            "filesystem_id": fs.id,
            "filesystem_dns": fs.mount_point,
            "filesystem_mount_name": fs.filesystem,
            "filesystem_capacity_gib": fs_size,
            "filesystem_capacity_note": self._fs_choice.note,
            "filesystem_monthly_usd": self._fs_choice.monthly_usd,
            "filesystem_throughput_mbps_per_tib": fs_tier,
            # The bucket is imported once at creation (the fs-import command); Managed Lustre
            # exports nothing by itself (pulumi_gcp 10.2.0 lustre.Instance has no
            # data-repository argument): these run later transfers by hand.
            "filesystem_import_command": command("import-data"),
            "filesystem_imported_at_create": True,
            "filesystem_location_note": planning.check_lustre_zone(self.region, self.zone),
            "topology_distance": policy_distance,
            "filesystem_export_command": command("export-data"),
            "bucket_name": bucket.name,
            "budget_name": budget.display_name,
            "project": self.project,
            "region": self.region,
            "zone": self.zone,
            "node_service_account": identity.account.email,
            "node_access": node_access(spec.access.ssh_cidrs),
            "mount_path": MOUNT_PATH,
            "node_boot": boot.apply(lambda rendered: rendered.outline),
            **lifetime_outputs,
        }

    # -- network -------------------------------------------------------------------------------

    def _networks(self, name, layout: planning.NetworkPlan, ssh_cidrs):
        project, region = self.project, self.region
        compute = self.child(depends_on=[self.apis["compute"]])
        nets: dict[str, gcp.compute.Network | gcp.compute.Subnetwork] = {}
        for net in layout.networks:
            vpc = gcp.compute.Network(
                f"{name}-{net.key}", project=project, auto_create_subnetworks=False, mtu=net.mtu,
                routing_mode="REGIONAL", description=f"trainstack {name}: {net.role} network",
                network_profile=planning.roce_profile(project, self.zone) if net.roce_profile else None,
                opts=compute)
            nets[net.key] = vpc
            for subnet in net.subnets:
                nets[subnet.key] = gcp.compute.Subnetwork(
                    f"{name}-{subnet.key}", project=project, region=region, network=vpc.id,
                    ip_cidr_range=subnet.cidr, private_ip_google_access=net.role == "host",
                    opts=self.child())
            if net.internal_firewall:
                ranges = [s.cidr for s in net.subnets]
                if net.role == "host":
                    ranges.append(planning.PSA_CIDR)  # Managed Lustre's servers
                gcp.compute.Firewall(
                    f"{name}-{net.key}-internal", project=project, network=vpc.id,
                    direction="INGRESS", priority=1000, source_ranges=ranges,
                    allows=[gcp.compute.FirewallAllowArgs(protocol="all")],
                    description="trainstack: all traffic between the cluster's own addresses",
                    opts=self.child())
        host = nets["vpc"]
        by_family: dict[int, list[str]] = {}
        for cidr in ssh_cidrs:
            by_family.setdefault(ipaddress.ip_network(cidr, strict=False).version, []).append(cidr)
        for family, cidrs in sorted(by_family.items()):  # a rule holds one address family
            gcp.compute.Firewall(
                f"{name}-ssh-v{family}", project=project, network=host.id, direction="INGRESS",
                priority=1000, source_ranges=cidrs,
                allows=[gcp.compute.FirewallAllowArgs(protocol="tcp", ports=["22"])],
                description="trainstack: SSH from access.ssh_cidrs only", opts=self.child())
        # Nodes have no external address: Cloud NAT for egress, Private Google Access for GCS.
        router = gcp.compute.Router(f"{name}-router", project=project, region=region,
                                    network=host.id, opts=self.child())
        gcp.compute.RouterNat(f"{name}-nat", project=project, region=region, router=router.name,
                              nat_ip_allocate_option="AUTO_ONLY",
                              source_subnetwork_ip_ranges_to_nat="ALL_SUBNETWORKS_ALL_IP_RANGES",
                              opts=self.child())
        return nets

    # -- a way in: IAP TCP forwarding with OS Login ----------------------------------------------

    def _iap_ssh(self, name, host):
        # Identity-Aware Proxy's TCP forwarding range (cloud.google.com/iap/docs/using-tcp-forwarding).
        return gcp.compute.Firewall(
            f"{name}-iap-ssh", project=self.project, network=host.id, direction="INGRESS",
            priority=1000, source_ranges=[IAP_RANGE],
            allows=[gcp.compute.FirewallAllowArgs(protocol="tcp", ports=["22"])],
            description="trainstack: SSH through IAP TCP forwarding only", opts=self.child())

    # -- boot ----------------------------------------------------------------------------------

    def _boot_context(self, args: ClusterArgs, fs, bucket) -> pulumi.Output[NodeContext]:
        """What the nodes' boot steps (components/boot) need; rendered as `user-data` metadata."""

        def context(values) -> NodeContext:
            mount_point, bucket_name = values
            return self.node_context(
                args, bucket=bucket_name, filesystem_source=mount_point, region=self.region,
                zone=self.zone, project=self.project)

        return pulumi.Output.all(fs.mount_point, bucket.name).apply(context)

    # -- bucket --------------------------------------------------------------------------------

    def _bucket(self, name, retain):
        # Kept on `pulumi destroy` unless the spec says otherwise; never a multi-region.
        return gcp.storage.Bucket(
            f"{name}-data", project=self.project, location=self.region.upper(),
            storage_class="STANDARD", uniform_bucket_level_access=True,
            public_access_prevention="enforced",
            versioning=gcp.storage.BucketVersioningArgs(enabled=True),
            force_destroy=not retain,
            # RETAIN_TAG lets the policy pack see the retention, which the analyzer protocol hides.
            labels={**self.labels, planning.label_key(RETAIN_TAG): "true"} if retain
            else self.labels,
            opts=self.kept(f"{name}-data", retain, depends_on=[self.apis["storage"]]))

    # -- placement -----------------------------------------------------------------------------

    def _workload_policy(self, name, distance):
        # A workload policy, not COLLOCATED with vm_count: vm_count needs every VM created at the
        # same moment, which a MIG never does when it heals or resizes (cloud-map §10). Without
        # maxTopologyDistance dense placement is only best effort; with it Compute Engine keeps
        # every node within one block (or sub-block) or creates none.
        return gcp.compute.ResourcePolicy(
            f"{name}-placement", project=self.project, region=self.region,
            description="trainstack: dense placement for the node group",
            workload_policy=gcp.compute.ResourcePolicyWorkloadPolicyArgs(
                type="HIGH_THROUGHPUT", max_topology_distance=distance),
            opts=self.child(depends_on=[self.apis["compute"]]))

    # -- filesystem ----------------------------------------------------------------------------

    def _filesystem(self, name, args: ClusterArgs, nets):
        spec = args.spec
        host = nets["vpc"]
        # Private Service Access on the host VPC (cloud-map §9.1: Managed Lustre needs it).
        psa_net = ipaddress.ip_network(planning.PSA_CIDR)
        psa_range = gcp.compute.GlobalAddress(
            f"{name}-psa-range", project=self.project, network=host.id, purpose="VPC_PEERING",
            address_type="INTERNAL", address=str(psa_net.network_address),
            prefix_length=psa_net.prefixlen, labels=self.labels, opts=self.child())
        psa = gcp.servicenetworking.Connection(
            f"{name}-psa", network=host.id, service="servicenetworking.googleapis.com",
            reserved_peering_ranges=[psa_range.name],
            # ABANDON: deleting the peering fails while the producer still holds it; the peering
            # goes with the network (pulumi-gcp #3354).
            deletion_policy="ABANDON",
            opts=self.child(depends_on=[self.apis["servicenetworking"]]))
        # The cheapest cited tier and size that hold the capacity and the aggregate throughput.
        self._fs_choice = planning.lustre_choice(spec.filesystem.capacity_gib,
                                                 spec.filesystem.throughput_mbps_per_tib,
                                                 self.region)
        tier, size = self._fs_choice.tier, self._fs_choice.capacity_gib
        fs = gcp.lustre.Instance(
            f"{name}-fs", project=self.project, location=self.zone,
            instance_id=planning.lustre_instance_id(name, args.stack),
            filesystem=planning.lustre_filesystem_name(name), network=host.id,
            capacity_gib=str(size), per_unit_storage_throughput=str(tier),
            description=f"trainstack {name}: shared training data (import/export: see outputs)",
            labels=self.labels, opts=self.child(
                depends_on=[psa, self.apis["lustre"]],
                custom_timeouts=pulumi.CustomTimeouts(create=planning.LUSTRE_TIMEOUT,
                                                      update=planning.LUSTRE_TIMEOUT,
                                                      delete=planning.LUSTRE_TIMEOUT)))
        return fs, size, tier

    def _import_at_create(self, name, args: ClusterArgs, fs, bucket, agent_access):
        """The bucket's contents into the new file system, once, as Cluster Toolkit's
        managed-lustre module does with its import_gcs_bucket_uri (a local-exec calling
        importData after the instance exists): pulumi_gcp's lustre.Instance has no import
        argument. It runs where `pulumi up` runs (gcloud there), again only if the file system
        is replaced; the import itself is an asynchronous Managed Lustre operation."""
        instance_id = planning.lustre_instance_id(name, args.stack)
        command = bucket.name.apply(lambda b: planning.transfer_command(
            "import-data", instance_id, self.zone, self.project, b) + " --async")
        return local.Command(
            f"{name}-fs-import", create=command, triggers=[fs.id],
            opts=self.child(depends_on=[fs, agent_access]))

    # -- nodes ---------------------------------------------------------------------------------

    def _nodes(self, name, args: ClusterArgs, layout: planning.NetworkPlan, nets, policy,
               capacity: planning.CapacityPlan, image, image_fixed=True, service_account=None,
               user_data=None, nodes=None):
        spec, sel = args.spec, args.selection
        nodes = spec.nodes if nodes is None else nodes  # 0 once the declared lifetime has ended
        nics = [gcp.compute.InstanceTemplateNetworkInterfaceArgs(
            network=nets[nic.network].id, subnetwork=nets[nic.subnet].id, nic_type=nic.nic_type)
            for nic in layout.nics]
        template = gcp.compute.InstanceTemplate(
            f"{name}-template", project=self.project, region=self.region,
            machine_type=sel.instance.name,
            description=f"trainstack {name}: {sel.fabric_note}",
            disks=[gcp.compute.InstanceTemplateDiskArgs(
                boot=True, auto_delete=True, source_image=image,
                disk_type=planning.boot_disk_type(sel.instance),
                disk_size_gb=planning.BOOT_DISK_GIB, labels=self.labels)],
            network_interfaces=nics,
            scheduling=_scheduling(capacity),
            reservation_affinity=_reservation_affinity(capacity),
            # The cluster's own account; IAM roles, not scopes, limit what it can do.
            service_account=gcp.compute.InstanceTemplateServiceAccountArgs(
                email=service_account.email if service_account is not None else None,
                scopes=["cloud-platform"]),
            metadata={"enable-oslogin": "TRUE",
                      **({"user-data": user_data} if user_data is not None else {})},
            # As on AWS, the program pins a family-resolved image itself: a plain `pulumi up`
            # after a new image in the family must not replace the template (and so the
            # image of every VM the group recreates); stack config pins it deliberately.
            labels=self.labels, opts=self.child(
                ignore_changes=None if image_fixed else list(planning.PINNED_IMAGE_FIELDS)))
        self._template = template
        held = nodes_held()
        # Flex-start: the group starts empty and one ResizeRequest asks for every node at once,
        # so no partial cluster ever bills (about-resize-requests-mig).
        group = gcp.compute.InstanceGroupManager(
            f"{name}-nodes", project=self.project, zone=self.zone,
            base_instance_name=f"{name}-node",
            target_size=0 if capacity.resize_request or held else nodes,
            resource_policies=gcp.compute.InstanceGroupManagerResourcePoliciesArgs(
                workload_policy=policy.self_link) if policy else None,
            instance_lifecycle_policy=gcp.compute.InstanceGroupManagerInstanceLifecyclePolicyArgs(
                default_action_on_failure="DO_NOTHING") if capacity.resize_request else None,
            versions=[gcp.compute.InstanceGroupManagerVersionArgs(
                name="primary", instance_template=template.id)],
            # A new template must not recreate running training nodes on its own.
            update_policy=gcp.compute.InstanceGroupManagerUpdatePolicyArgs(
                type="OPPORTUNISTIC", minimal_action="REPLACE"),
            wait_for_instances=not capacity.resize_request,
            wait_for_instances_status="STABLE" if not capacity.resize_request else None,
            opts=self.child())
        if not capacity.resize_request or held or not nodes:
            return group, None
        resize = gcp.compute.ResizeRequest(
            f"{name}-nodes-request", project=self.project, zone=self.zone,
            instance_group_manager=group.name, resize_by=nodes,
            # The run duration travels in the template (FLEX_START + max_run_duration).
            description=f"trainstack {name}: all {nodes} flex-start nodes at once",
            opts=self.child())
        return group, resize

    # -- budget --------------------------------------------------------------------------------

    def _budget(self, name, args: ClusterArgs, stop_topic):
        spec = args.spec
        loc = spec.location("gcp")
        channels = [gcp.monitoring.NotificationChannel(
            f"{name}-budget-email-{i}", project=self.project, type="email",
            display_name=f"trainstack {name} budget: {email}", labels={"email_address": email},
            user_labels=self.labels, opts=self.child(depends_on=[self.apis["monitoring"]]))
            for i, email in enumerate(spec.budget.emails)]
        number = gcp.organizations.get_project_output(
            project_id=self.project, opts=pulumi.InvokeOutputOptions(parent=self)).number
        units, nanos = planning.budget_amount(spec.budget.monthly_usd)
        return gcp.billing.Budget(
            f"{name}-budget", billing_account=planning.check_billing_account(loc.billing_account),
            display_name=planning.budget_display_name(name, args.stack),
            amount=gcp.billing.BudgetAmountArgs(
                specified_amount=gcp.billing.BudgetAmountSpecifiedAmountArgs(
                    currency_code="USD", units=units, nanos=nanos or None)),
            budget_filter=gcp.billing.BudgetBudgetFilterArgs(
                projects=[number.apply(lambda n: f"projects/{n}")],
                labels={planning.CLUSTER_LABEL: self.labels[planning.CLUSTER_LABEL]},
                calendar_period="MONTH"),
            threshold_rules=[gcp.billing.BudgetThresholdRuleArgs(
                threshold_percent=p, spend_basis="CURRENT_SPEND")
                for p in planning.budget_thresholds(spec.budget.alert_percents, spec.budget.emails)]
            + budget_action.forecast_rules(),  # the stop on the forecast (budget_action.py)
            all_updates_rule=gcp.billing.BudgetAllUpdatesRuleArgs(
                monitoring_notification_channels=[c.id for c in channels],
                pubsub_topic=stop_topic.id, schema_version="1.0"),
            opts=self.child(depends_on=[self.apis["billingbudgets"]]))


def node_access(ssh_cidrs) -> str:
    """How a person reaches a node (the plan shows it): IAP TCP forwarding with OS Login."""
    way = (f"IAP TCP forwarding with OS Login (`trainstack connect --stack NAME`): port 22 from "
           f"{IAP_RANGE} only; nodes have no external address")
    if ssh_cidrs:
        way += (f"; access.ssh_cidrs ({', '.join(ssh_cidrs)}) may also reach port 22 on the "
                "nodes' internal addresses (through a VPN or Interconnect)")
    return way
