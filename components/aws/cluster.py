"""The AWS GPU cluster component: thin wiring over trainstack_components.aws.planning."""
from __future__ import annotations

import ipaddress

import pulumi
import pulumi_aws as aws

from trainstack_components import lifetime as shared_lifetime
from trainstack_components.aws import budget_action, planning
from trainstack_components.aws import lifetime as aws_lifetime
from trainstack_components.aws.boot import AwsBoot
from trainstack_components.aws.identity import node_identity
from trainstack_components.base import ClusterArgs
from trainstack_components.boot import (
    MOUNT_PATH,
    NodeContext,
    aws_user_data,
    render_shipped,
    shipped_files,
    shipped_object_name,
)
from trainstack_components.gpu_cluster import GpuCluster
from trainstack_components.pinning import image_note, nodes_held, pinned_image
from trainstack_components.spec import AwsLocation, ClusterSpec
from trainstack_components.tags import CLUSTER_TAG, MANAGED_BY_TAG, RETAIN_TAG, STACK_TAG

# AWS Deep Learning Base AMI (NVIDIA driver, EFA installer, Ubuntu 22.04), resolved at deploy time.
DLAMI_PARAMETER = ("/aws/service/deeplearning/ami/x86_64/"
                   "base-oss-nvidia-driver-gpu-ubuntu-22.04/latest/ami-id")
VPC_CIDR = "10.42.0.0/16"
PRIVATE_CIDR = "10.42.0.0/18"   # nodes, their EFA NICs and the filesystem
PUBLIC_CIDR = "10.42.64.0/24"   # only the NAT gateway lives here
ROOT_VOLUME_GIB = 500
S3_OBJECT_MAX_TAGS = 10  # S3 "Categorizing your storage using tags": up to 10 tags per object


class AwsGpuCluster(GpuCluster):
    """EFA nodes (an Auto Scaling group in one subnet on a fixed launch-template version, in a
    cluster placement group or a targeted reservation / Capacity Block), FSx for Lustre in the
    same subnet linked to an S3 bucket, an AWS Budgets alarm, tags everywhere."""

    cloud = "aws"

    def _build(self, name: str, args: ClusterArgs) -> dict[str, object]:
        spec, sel, tags = args.spec, args.selection, args.tags
        region, zone = sel.region, sel.zone
        net = self._network(name, region, zone, tags, spec.access.ssh_cidrs)
        bucket = self._bucket(name, region, tags, spec.bucket.retain_on_destroy)
        fs, dra = self._filesystem(name, args, net, bucket)
        identity = node_identity(name, tags, bucket, parent=self)
        shipped, objects = self._ship_boot_files(name, args, bucket)
        # The boot, rendered once for the user data and the plan's outline of it.
        boot = self._boot_context(args, fs, bucket).apply(
            lambda ctx: render_shipped(ctx, AwsBoot(), shipped))
        user_data = boot.apply(lambda rendered: aws_user_data(rendered.text))
        now = shared_lifetime.utc_now()
        lifetime = shared_lifetime.from_stack_config(spec.lifetime_hours)
        group, pg, lt, image = self._nodes(name, args, net,
                                           shared_lifetime.nodes_now(lifetime, spec.nodes, now),
                                           profile=identity.profile, user_data=user_data,
                                           boot_objects=objects)
        lifetime_outputs = aws_lifetime.enforce(self, name, group, lifetime, region, now)
        stop_topic = budget_action.budget_stop(self, name, group, region, tags,
                                               budget_name=planning.budget_name(name, args.stack))
        budget = self._budget(name, args, stop_topic)
        return {
            **lifetime_outputs,
            "node_group": group.name,
            # None with a targeted reservation or Capacity Block: it fixes placement itself.
            "placement_group": pg.name if pg else None,
            "capacity": spec.capacity("aws").type,
            "image": image,
            "image_pin": image_note(f"SSM parameter {DLAMI_PARAMETER}", _aws(spec).image_id),
            "launch_template_version": lt.latest_version,
            "filesystem_id": fs.id,
            "filesystem_dns": fs.dns_name,
            "filesystem_mount_name": fs.mount_name,
            **self._fs_outputs,
            "filesystem_bucket_path": dra.file_system_path,
            "filesystem_bucket_prefix": planning.FSX_LINKED_PREFIX,
            "bucket_name": bucket.bucket,
            "budget_name": budget.name,
            "region": region,
            "zone": zone,
            "node_role": identity.role.name,
            "node_access": node_access(spec.access.ssh_cidrs),
            "mount_path": MOUNT_PATH,
            "node_boot": boot.apply(lambda rendered: rendered.outline),
        }

    # -- network -------------------------------------------------------------------------------

    def _network(self, name, region, zone, tags, ssh_cidrs):
        vpc = aws.ec2.Vpc(f"{name}-vpc", cidr_block=VPC_CIDR, enable_dns_hostnames=True,
                          enable_dns_support=True, region=region,
                          tags={**tags, "Name": f"{name}-vpc"}, opts=self.child())
        private = aws.ec2.Subnet(f"{name}-subnet", vpc_id=vpc.id, cidr_block=PRIVATE_CIDR,
                                 availability_zone=zone, map_public_ip_on_launch=False,
                                 region=region, tags={**tags, "Name": f"{name}-nodes"},
                                 opts=self.child())
        public = aws.ec2.Subnet(f"{name}-public-subnet", vpc_id=vpc.id, cidr_block=PUBLIC_CIDR,
                                availability_zone=zone, map_public_ip_on_launch=False,
                                region=region, tags={**tags, "Name": f"{name}-nat"},
                                opts=self.child())
        igw = aws.ec2.InternetGateway(f"{name}-igw", vpc_id=vpc.id, region=region, tags=tags,
                                      opts=self.child())
        eip = aws.ec2.Eip(f"{name}-nat-ip", domain="vpc", region=region, tags=tags,
                          opts=self.child(depends_on=[igw]))
        nat = aws.ec2.NatGateway(f"{name}-nat", subnet_id=public.id, allocation_id=eip.id,
                                 region=region, tags=tags, opts=self.child())
        public_rt = aws.ec2.RouteTable(
            f"{name}-public-rt", vpc_id=vpc.id, region=region, tags=tags,
            routes=[aws.ec2.RouteTableRouteArgs(cidr_block="0.0.0.0/0", gateway_id=igw.id)],
            opts=self.child())
        private_rt = aws.ec2.RouteTable(
            f"{name}-private-rt", vpc_id=vpc.id, region=region, tags=tags,
            routes=[aws.ec2.RouteTableRouteArgs(cidr_block="0.0.0.0/0", nat_gateway_id=nat.id)],
            opts=self.child())
        aws.ec2.RouteTableAssociation(f"{name}-public-rta", subnet_id=public.id,
                                      route_table_id=public_rt.id, region=region,
                                      opts=self.child())
        aws.ec2.RouteTableAssociation(f"{name}-private-rta", subnet_id=private.id,
                                      route_table_id=private_rt.id, region=region,
                                      opts=self.child())
        # Bucket traffic stays off the NAT gateway (and its per-GB charge).
        aws.ec2.VpcEndpoint(f"{name}-s3-endpoint", vpc_id=vpc.id,
                            service_name=f"com.amazonaws.{region}.s3",
                            vpc_endpoint_type="Gateway", route_table_ids=[private_rt.id],
                            region=region, tags=tags, opts=self.child())
        sg = aws.ec2.SecurityGroup(f"{name}-sg", vpc_id=vpc.id, region=region,
                                   description="trainstack cluster: EFA, Lustre and node traffic",
                                   tags={**tags, "Name": f"{name}-cluster"}, opts=self.child())
        # EFA needs both a self-referencing ingress and egress rule; all protocols, no ports.
        rules = [
            aws.vpc.SecurityGroupIngressRule(f"{name}-sg-self-in", security_group_id=sg.id,
                                             referenced_security_group_id=sg.id, ip_protocol="-1",
                                             region=region, tags=tags, opts=self.child()),
            aws.vpc.SecurityGroupEgressRule(f"{name}-sg-self-out", security_group_id=sg.id,
                                            referenced_security_group_id=sg.id, ip_protocol="-1",
                                            region=region, tags=tags, opts=self.child()),
            aws.vpc.SecurityGroupEgressRule(f"{name}-sg-internet-out", security_group_id=sg.id,
                                            cidr_ipv4="0.0.0.0/0", ip_protocol="-1",
                                            region=region, tags=tags, opts=self.child()),
        ]
        for i, cidr in enumerate(ssh_cidrs):
            family = ipaddress.ip_network(cidr, strict=False).version
            aws.vpc.SecurityGroupIngressRule(
                f"{name}-sg-ssh-{i}", security_group_id=sg.id, ip_protocol="tcp",
                from_port=22, to_port=22, region=region, tags=tags, opts=self.child(),
                **({"cidr_ipv4": cidr} if family == 4 else {"cidr_ipv6": cidr}))
        # The rules are resources of their own: whatever needs them (FSx) must wait for them.
        return {"vpc": vpc, "subnet": private, "sg": sg, "sg_rules": rules}

    # -- bucket --------------------------------------------------------------------------------

    def _bucket(self, name, region, tags, retain):
        # The bucket and its protections outlive `pulumi destroy` unless the spec says otherwise.
        # RETAIN_TAG lets the policy pack see the retention, which the analyzer protocol hides.
        bucket = aws.s3.Bucket(f"{name}-data", force_destroy=not retain, region=region,
                               tags={**tags, RETAIN_TAG: "true"} if retain else tags,
                               opts=self.kept(f"{name}-data", retain))
        versioning = aws.s3.BucketVersioning(
            f"{name}-data-versioning", bucket=bucket.id, region=region,
            versioning_configuration=aws.s3.BucketVersioningVersioningConfigurationArgs(
                status="Enabled"), opts=self.kept(f"{name}-data-versioning", retain))
        aws.s3.BucketServerSideEncryptionConfiguration(
            f"{name}-data-encryption", bucket=bucket.id, region=region,
            rules=[aws.s3.BucketServerSideEncryptionConfigurationRuleArgs(
                apply_server_side_encryption_by_default=aws.s3.
                BucketServerSideEncryptionConfigurationRuleApplyServerSideEncryptionByDefaultArgs(
                    sse_algorithm="aws:kms"),
                bucket_key_enabled=True)], opts=self.kept(f"{name}-data-encryption", retain))
        aws.s3.BucketPublicAccessBlock(
            f"{name}-data-public-access", bucket=bucket.id, region=region,
            block_public_acls=True, block_public_policy=True, ignore_public_acls=True,
            restrict_public_buckets=True, opts=self.kept(f"{name}-data-public-access", retain))
        # Every node rewrites heartbeats/<node>.json each minute (and status/<node>.json at
        # boot) in a versioned bucket: without a rule 16 nodes leave 23,040 noncurrent versions
        # a day. Only the superseded versions of those two prefixes expire; data is untouched.
        aws.s3.BucketLifecycleConfiguration(
            f"{name}-data-lifecycle", bucket=bucket.id, region=region,
            rules=[aws.s3.BucketLifecycleConfigurationRuleArgs(
                id=f"expire-noncurrent-{prefix.rstrip('/')}", status="Enabled",
                filter=aws.s3.BucketLifecycleConfigurationRuleFilterArgs(prefix=prefix),
                noncurrent_version_expiration=aws.s3.
                BucketLifecycleConfigurationRuleNoncurrentVersionExpirationArgs(
                    noncurrent_days=planning.NONCURRENT_DAYS))
                for prefix in planning.AGENT_PREFIXES],
            opts=self.kept(f"{name}-data-lifecycle", retain, depends_on=[versioning]))
        return bucket

    # -- filesystem ----------------------------------------------------------------------------

    def _filesystem(self, name, args: ClusterArgs, net, bucket):
        spec, region, tags = args.spec, args.selection.region, args.tags
        sel = args.selection
        fsx = planning.fsx_plan(sel.instance, sel.use_rdma, spec.filesystem.capacity_gib,
                                spec.filesystem.throughput_mbps_per_tib, region,
                                asked=_aws(spec).fsx_efa)
        choice, efa = fsx.choice, fsx.efa
        self._fs_outputs = {
            "filesystem_capacity_gib": choice.capacity_gib,
            "filesystem_throughput_mbps_per_tib": choice.tier,
            "filesystem_efa_enabled": efa,
            "filesystem_monthly_usd": choice.monthly_usd,
            "filesystem_choice_note": choice.note,
        }
        fs = aws.fsx.LustreFileSystem(
            f"{name}-fs", subnet_ids=net["subnet"].id, security_group_ids=[net["sg"].id],
            deployment_type="PERSISTENT_2", storage_type="SSD",
            storage_capacity=choice.capacity_gib, per_unit_storage_throughput=choice.tier,
            # EFA and GPUDirect Storage to Lustre: creation-time only, PERSISTENT_2 with a
            # metadata configuration and an EFA-enabled security group (the cluster's own).
            efa_enabled=efa or None,
            file_system_type_version="2.15", data_compression_type="LZ4",
            metadata_configuration=aws.fsx.LustreFileSystemMetadataConfigurationArgs(
                mode="AUTOMATIC"),
            # CreateFileSystem checks the group's rules (port 988 for Lustre; all-traffic self
            # rules for EFA) and answers 400 InvalidNetworkSettings if they do not exist yet:
            # the self-referencing rules are separate resources, so FSx waits for them
            # (aws-parallelcluster fixed the same race).
            region=region, tags=tags, opts=self.child(depends_on=net["sg_rules"]))
        events = ["NEW", "CHANGED", "DELETED"]
        dra = aws.fsx.DataRepositoryAssociation(
            f"{name}-fs-bucket-link", file_system_id=fs.id,
            # The whole filesystem, so the export before a destroy reaches every file.
            file_system_path=planning.FSX_LINKED_PATH,
            # Only the data prefix: the agents' heartbeats/ and status/ keys change every
            # minute and must not churn through auto-import into /lustre (an association
            # has no exclude list, so it is scoped to a prefix instead).
            data_repository_path=bucket.bucket.apply(
                lambda b: f"s3://{b}/{planning.FSX_LINKED_PREFIX}"),
            batch_import_meta_data_on_create=True,
            # Replaced or deleted, the association leaves the files on the filesystem (the
            # provider's default, said here because a replacement deletes it).
            delete_data_in_filesystem=False,
            s3=aws.fsx.DataRepositoryAssociationS3Args(
                auto_import_policy=aws.fsx.DataRepositoryAssociationS3AutoImportPolicyArgs(
                    events=events),
                auto_export_policy=aws.fsx.DataRepositoryAssociationS3AutoExportPolicyArgs(
                    events=events)),
            # A stack deployed with the older "/bucket" association replaces it (the path is
            # fixed at creation): "/" may not sit beside another association, so the old one
            # goes first. Deleting an association leaves the files on the filesystem.
            region=region, tags=tags, opts=self.child(delete_before_replace=True))
        return fs, dra

    # -- boot ----------------------------------------------------------------------------------

    def _boot_extra(self, args: ClusterArgs) -> dict:
        spec, sel = args.spec, args.selection
        # The boot configures LNet for EFA only when the file system was created EFA-enabled.
        efa = self._fs_outputs["filesystem_efa_enabled"]
        return {"fsx_efa": efa,
                "fsx_efa_interfaces": planning.fsx_efa_interfaces(sel.instance, spec.nodes)
                if efa else 0}

    def _boot_context(self, args: ClusterArgs, fs, bucket) -> pulumi.Output[NodeContext]:
        """What the nodes' boot steps (components/boot) need, once the cloud has assigned it."""
        sel = args.selection

        def context(values) -> NodeContext:
            dns, mount_name, bucket_name = values
            return self.node_context(
                args, bucket=bucket_name, filesystem_source=f"{dns}@tcp:/{mount_name}",
                region=sel.region, zone=sel.zone, extra=self._boot_extra(args))

        return pulumi.Output.all(fs.dns_name, fs.mount_name, bucket.bucket).apply(context)

    def _ship_boot_files(self, name, args: ClusterArgs, bucket):
        """EC2 takes 16 KiB of (gzipped) user data and the agents' code alone is more: it goes
        to the bucket as one object per file, which the boot's first step fetches. Which files
        and their bytes are known before the bucket or filesystem exist (the agents' code reads
        none of those values), so the objects are planned here rather than inside an apply;
        render_shipped checks the rendered boot asks for exactly these keys."""
        sel = args.selection
        planned = self.node_context(args, bucket="", filesystem_source="", region=sel.region,
                                    zone=sel.zone, extra=self._boot_extra(args))
        shipped = shipped_files(planned, AwsBoot())
        tags = object_tags(args.tags, args.spec.tags)
        objects = []
        for f in shipped:   # a loop, not a comprehension: one frame less in each object's trace
            objects.append(aws.s3.BucketObjectv2(
                shipped_object_name(name, f),
                bucket=bucket.id, key=f.key, content=f.content, content_type="text/plain",
                region=sel.region, tags=tags, opts=self.child()))
        return shipped, objects

    # -- nodes ---------------------------------------------------------------------------------

    def _nodes(self, name, args: ClusterArgs, net, nodes: int, profile=None, user_data=None,
               boot_objects=()):
        spec, sel, tags = args.spec, args.selection, args.tags
        region = sel.region
        cap = spec.capacity("aws")
        capacity = planning.capacity_plan(cap.type, cap.reservation)
        pg = aws.ec2.PlacementGroup(f"{name}-pg", strategy="cluster", region=region, tags=tags,
                                    opts=self.child()) if capacity.placement_group else None
        # The spec's image, else the one pinned in stack config, else today's DLAMI: the SSM
        # parameter moves with every release, the cluster must not.
        fixed = _aws(spec).image_id or pinned_image()
        image = fixed or aws.ssm.get_parameter_output(
            name=DLAMI_PARAMETER, region=region, opts=pulumi.InvokeOutputOptions(parent=self)).value
        # No subnet on the interfaces: the group's vpc_zone_identifiers places every interface.
        # EKS (whose node groups are Auto Scaling groups) documents that a SubnetId in the
        # launch template makes the deployment fail, and EFA templates for groups leave it out.
        nics = [aws.ec2.LaunchTemplateNetworkInterfaceArgs(
            network_card_index=nic.network_card_index, device_index=nic.device_index,
            interface_type=nic.interface_type,
            security_groups=[net["sg"].id], delete_on_termination="true",
            associate_public_ip_address="false")
            for nic in planning.efa_layout(sel.instance, sel.use_rdma)]
        lt = aws.ec2.LaunchTemplate(
            f"{name}-lt", image_id=image, instance_type=sel.instance.name,
            network_interfaces=nics,
            instance_market_options=aws.ec2.LaunchTemplateInstanceMarketOptionsArgs(
                market_type=capacity.market_type) if capacity.market_type else None,
            capacity_reservation_specification=aws.ec2.
            LaunchTemplateCapacityReservationSpecificationArgs(
                capacity_reservation_target=aws.ec2.
                LaunchTemplateCapacityReservationSpecificationCapacityReservationTargetArgs(
                    capacity_reservation_id=capacity.reservation_id))
            if capacity.reservation_id else None,
            block_device_mappings=[aws.ec2.LaunchTemplateBlockDeviceMappingArgs(
                device_name="/dev/sda1", ebs=aws.ec2.LaunchTemplateBlockDeviceMappingEbsArgs(
                    volume_size=ROOT_VOLUME_GIB, volume_type="gp3", encrypted="true",
                    delete_on_termination="true"))],
            # IMDSv2 only; hop limit 2 so containers on the node (one more hop) reach it too.
            metadata_options=aws.ec2.LaunchTemplateMetadataOptionsArgs(
                http_endpoint="enabled", http_tokens="required", http_put_response_hop_limit=2),
            iam_instance_profile=aws.ec2.LaunchTemplateIamInstanceProfileArgs(
                arn=profile.arn) if profile is not None else None,
            user_data=user_data,
            # Instances and volumes launched by the group get the tags here, not from the group.
            tag_specifications=[aws.ec2.LaunchTemplateTagSpecificationArgs(resource_type=kind,
                                                                           tags=tags)
                                for kind in ("instance", "volume", "network-interface")],
            # The program pins the resolved AMI itself, not only `trainstack up`: a plain
            # `pulumi up` re-reads the parameter, and without this a new DLAMI release would
            # become a new template version that later heals boot beside the running nodes.
            # The template keeps the image in its state (set once, at creation); an image
            # from the spec or stack config is a deliberate choice and goes through.
            region=region, tags=tags,
            # The boot fetches its agents from the bucket: they are there before any node is.
            opts=self.child(ignore_changes=None if fixed else list(planning.PINNED_IMAGE_FIELDS),
                            depends_on=list(boot_objects)))
        # A failed capacity request must not leave part of a cluster billing: `up` waits for all
        # nodes (wait_for_capacity_timeout) and, when they do not come, deploys once more with
        # trainstack:holdNodes, which sizes the group to zero (trainstack/deploy/capacity_guard.py).
        size = 0 if nodes_held() else nodes
        group = aws.autoscaling.Group(
            f"{name}-nodes", min_size=size, max_size=nodes,
            desired_capacity=size, vpc_zone_identifiers=[net["subnet"].id],
            placement_group=pg.name if pg else None,
            # A fixed version, never $Latest: a new template version must not reach heals and
            # spot replacements before a deliberate `up`.
            launch_template=aws.autoscaling.GroupLaunchTemplateArgs(
                id=lt.id, version=lt.latest_version.apply(str)),
            wait_for_capacity_timeout="30m",
            tags=[aws.autoscaling.GroupTagArgs(key=k, value=v, propagate_at_launch=True)
                  for k, v in sorted(tags.items())],
            region=region, opts=self.child())
        # What the nodes really boot: the template's own (state) image, not today's parameter.
        return group, pg, lt, lt.image_id

    # -- budget --------------------------------------------------------------------------------

    def _budget(self, name, args: ClusterArgs, stop_topic):
        spec, tags = args.spec, args.tags
        thresholds = planning.budget_thresholds(spec.budget.alert_percents, spec.budget.emails)
        # The filter needs CLUSTER_TAG active as a cost-allocation tag. That is one account-wide,
        # one-time step (`trainstack bootstrap aws`), never a per-stack resource: deleting such a
        # resource deactivates the key for every cluster in the account (cloud-map §10).
        return aws.budgets.Budget(
            f"{name}-budget", name=planning.budget_name(name, args.stack), budget_type="COST",
            time_unit="MONTHLY", limit_amount=f"{spec.budget.monthly_usd:.2f}", limit_unit="USD",
            cost_filters=[aws.budgets.BudgetCostFilterArgs(
                name="TagKeyValue", values=[planning.cost_filter_value(CLUSTER_TAG, spec.name)])],
            # E-mails at each threshold; the forecast and a capped actual threshold also stop
            # the nodes (components/aws/budget_action.py).
            notifications=budget_action.notifications(thresholds, spec.budget.emails,
                                                      stop_topic.arn),
            tags=tags, opts=self.child())


def _aws(spec: ClusterSpec) -> AwsLocation:
    """The spec's aws section (the selection that planned this cluster required one)."""
    location: AwsLocation = spec.location("aws")
    return location


def object_tags(tags: dict[str, str], spec_tags: dict[str, str]) -> dict[str, str]:
    """The tags an S3 object takes (10 at most): the spec's own (cost allocation) first, then
    trainstack's identity of the cluster, then the rest, in that order until 10."""
    own = (CLUSTER_TAG, STACK_TAG, MANAGED_BY_TAG)
    ordered = {k: tags[k] for k in (*spec_tags, *own, *tags) if k in tags}
    return dict(list(ordered.items())[:S3_OBJECT_MAX_TAGS])


def node_access(ssh_cidrs) -> str:
    """How a person reaches a node (the plan shows it): Session Manager, no open port."""
    way = ("AWS Systems Manager Session Manager (`trainstack connect --stack NAME`); nodes "
           "have no public address and no inbound rule for it")
    if ssh_cidrs:
        way += (f"; access.ssh_cidrs ({', '.join(ssh_cidrs)}) may also reach port 22 on the "
                "nodes' private addresses (through a VPN, peering or Direct Connect)")
    return way
