"""The Alibaba Cloud GPU cluster component: thin wiring over trainstack_components.alicloud.planning."""
from __future__ import annotations

import dataclasses
import ipaddress
import json
import shlex

import pulumi
from pulumi_alicloud import cms, ecs, nas, oss, ram, vpc

from trainstack_components.alicloud import planning
from trainstack_components.alicloud.boot import AlicloudBoot, ecs_user_data
from trainstack_components.base import ClusterArgs
from trainstack_components.boot import (
    MOUNT_PATH,
    NodeContext,
    render_shipped,
    shipped_files,
    shipped_object_name,
)
from trainstack_components.gpu_cluster import GpuCluster
from trainstack_components.lifetime import LIFETIME_START_KEY, parse_iso
from trainstack_components.pinning import nodes_held
from trainstack_components.tags import BUDGET_TAG, RETAIN_TAG

# Alibaba's public Ubuntu 22.04 image, newest first, among those the instance type supports.
IMAGE_NAME_REGEX = "^ubuntu_22_04_x64"
SYSTEM_DISK_GIB = 500
CPFS_MOUNT = MOUNT_PATH          # one path on every cloud (components/boot)
BUCKET_FILESET = "/bucket/"       # the CPFS directory the OSS data flow imports to and exports from
DATAFLOW_TAG = {"cpfs-dataflow": "true"}  # CreateDataFlow refuses a bucket without it (§9.1)
NODES_ARE_PER_NODE = ("one ecs.Instance per node: eRDMA (network_interface_traffic_mode="
                      "HighPerformance) cannot be set through EcsInstanceSet, an ess scaling "
                      "configuration cannot join a deployment set, so no group resource gives "
                      "eRDMA nodes in a LowLatency set")


class AlicloudGpuCluster(GpuCluster):
    """Per-node ECS instances with eRDMA in one vSwitch and a LowLatency deployment set (or an HPC
    cluster for SCC types), CPFS in the same zone in its own VPC, exported over NFS into the
    nodes' vSwitch, with a data flow to a private, versioned, encrypted OSS bucket, a RAM role
    scoped to that bucket, an auto-release time counted from the first deploy that keeps compute
    inside the budget at the on-demand price, CloudMonitor idle-GPU alarms, tags everywhere."""

    cloud = "alicloud"

    def _build(self, name: str, args: ClusterArgs) -> dict[str, object]:
        spec, sel, tags = args.spec, args.selection, args.tags
        self.tags = tags
        net = self._network(name, sel.zone, spec.access.ssh_cidrs)
        bucket = self._bucket(name, spec.bucket.retain_on_destroy)
        fs = self._filesystem(name, args, net, bucket)
        role = self._identity(name, args, bucket, fs)
        place = planning.placement(sel.instance, spec.nodes, sel.spot)
        holder = self._placement(name, place)
        # SpotAsPriceGo bills up to the on-demand price: the budget buys hours at that price,
        # counted from the first deploy `trainstack up` recorded (the clock stands in before).
        ondemand = round(spec.nodes * sel.price.ondemand_usd_hr, 4)
        now = planning.utc_now()
        recorded = pulumi.Config("trainstack").get(LIFETIME_START_KEY.partition(":")[2])
        storage = planning.storage_month(spec, sel.region)
        rel = planning.release(spec.budget.monthly_usd, ondemand, spec.lifetime_hours,
                               parse_iso(recorded) if recorded else now, now, storage)
        # holdNodes: `trainstack up` scales back after a capacity failure (capacity_guard.py).
        count = 0 if nodes_held() or rel.spent else spec.nodes
        shipped, objects = self._ship_boot_files(name, args, bucket)
        # The boot, rendered once for the plan's outline of it and the user data of every node
        # (a node finds its rank by its own fixed address).
        boot = self._boot_context(args, fs, bucket, role).apply(
            lambda ctx: render_shipped(ctx, AlicloudBoot(), shipped))
        nodes = self._nodes(name, args, net, holder, place, role, fs, rel, count,
                            boot.apply(lambda rendered: ecs_user_data(rendered.text)), objects)
        alarm = self._idle_alarm(name, args, nodes) if nodes else None
        release_at = nodes[0].auto_release_time if nodes else pulumi.Output.from_input(rel.at)
        return {
            "nodes": [n.instance_name for n in nodes],
            # No group resource (NODES_ARE_PER_NODE): the placement holds every node, and
            # `trainstack connect` reads the ids in node order.
            "node_group": holder.id,
            "node_ids": [n.id for n in nodes],
            "node_boot": boot.apply(lambda rendered: rendered.outline),
            "heartbeat_url": bucket.bucket.apply(lambda b: f"oss://{b}/heartbeats"),
            "filesystem_export_command": pulumi.Output.all(fs["fs"].id, fs["flow"].data_flow_id)
            .apply(lambda v: export_command(sel.region, v[0], v[1])),
            "node_private_ips": [planning.node_ip(i, spec.nodes) for i in range(count)],
            "nodes_note": NODES_ARE_PER_NODE,
            "placement_group": holder.id,
            "placement": place.why,
            # The nodes' own value: after the first deploy it stays what that deploy set.
            "auto_release_time": release_at,
            "budget_protection": release_at.apply(
                lambda at: planning.budget_note(dataclasses.replace(rel, at=at), ondemand, storage)),
            "idle_alarm": alarm.name if alarm else None,
            "access": ("Cloud Assistant / Session Manager (no public IP on any node): "
                       "`trainstack connect --stack NAME` (Cloud Assistant "
                       "StartTerminalSession) or the ECS console's Workbench; SSH only from "
                       "access.ssh_cidrs through your own VPN/peering"),
            "filesystem_id": fs["fs"].id,
            "filesystem_dns": fs["mount"].mount_target_domain,
            "filesystem_mount_name": CPFS_MOUNT,
            "filesystem_capacity_gib": fs["size"],
            "filesystem_storage_type": fs["storage_type"],
            "filesystem_throughput_mbps_per_tib": planning.cpfs_tier_mbps_per_tib(
                fs["storage_type"]),
            "filesystem_bucket_path": BUCKET_FILESET,
            # What the nodes mount: the exported fileset itself (the reaper checks the two).
            "filesystem_node_path": BUCKET_FILESET,
            "filesystem_dataflow_mbps": fs["dataflow_mbps"],
            "filesystem_vpc_cidr": planning.FS_VPC_CIDR,
            "bucket_name": bucket.bucket,
            "node_role": role.role_name,
            "region": sel.region,
            "zone": sel.zone,
        }

    # -- network -------------------------------------------------------------------------------

    def _network(self, name, zone, ssh_cidrs):
        tags = self.tags
        net = vpc.Network(f"{name}-vpc", vpc_name=f"{name}-vpc", cidr_block=planning.VPC_CIDR,
                          description="trainstack cluster network", tags=tags, opts=self.child())
        vsw = vpc.Switch(f"{name}-vsw", vswitch_name=f"{name}-nodes", vpc_id=net.id,
                         cidr_block=planning.NODE_CIDR, zone_id=zone, tags=tags,
                         opts=self.child())
        # Inner accept: every member talks to every other (eRDMA, NCCL, CPFS); nothing else in.
        sg = ecs.SecurityGroup(f"{name}-sg", security_group_name=f"{name}-cluster",
                               vpc_id=net.id, inner_access_policy="Accept",
                               description="trainstack cluster: node, eRDMA and CPFS traffic",
                               tags=tags, opts=self.child())
        for i, cidr in enumerate(ssh_cidrs):
            family = ipaddress.ip_network(cidr, strict=False).version
            ecs.SecurityGroupRule(
                f"{name}-sg-ssh-{i}", security_group_id=sg.id, type="ingress",
                ip_protocol="tcp", port_range="22/22", policy="accept", nic_type="intranet",
                description="trainstack: SSH from access.ssh_cidrs only", opts=self.child(),
                **({"cidr_ip": cidr} if family == 4 else {"ipv6_cidr_ip": cidr}))
        # No public IP on a node: egress (packages, images, the CPFS client) through NAT.
        nat = vpc.NatGateway(f"{name}-nat", vpc_id=net.id, vswitch_id=vsw.id,
                             nat_gateway_name=f"{name}-nat", nat_type="Enhanced",
                             payment_type="PayAsYouGo", network_type="internet", tags=tags,
                             opts=self.child())
        eip = ecs.EipAddress(f"{name}-nat-ip", address_name=f"{name}-nat",
                             internet_charge_type="PayByTraffic", payment_type="PayAsYouGo",
                             bandwidth="200", tags=tags, opts=self.child())
        link = ecs.EipAssociation(f"{name}-nat-ip-link", allocation_id=eip.id,
                                  instance_id=nat.id, instance_type="Nat", opts=self.child())
        snat = vpc.SnatEntry(f"{name}-snat", snat_table_id=nat.snat_table_ids,
                             source_vswitch_id=vsw.id, snat_ip=eip.ip_address,
                             opts=self.child(depends_on=[link]))
        # CPFS's own VPC: its NFS export must land in a VPC that does not overlap it (the nodes').
        planning.check_networks_apart()
        fs_net = vpc.Network(f"{name}-fs-vpc", vpc_name=f"{name}-fs-vpc",
                             cidr_block=planning.FS_VPC_CIDR,
                             description="trainstack cluster file system (CPFS)", tags=tags,
                             opts=self.child())
        fs_vsw = vpc.Switch(f"{name}-fs-vsw", vswitch_name=f"{name}-fs", vpc_id=fs_net.id,
                            cidr_block=planning.FS_CIDR, zone_id=zone, tags=tags,
                            opts=self.child())
        fs_sg = ecs.SecurityGroup(f"{name}-fs-sg", security_group_name=f"{name}-fs",
                                  vpc_id=fs_net.id, inner_access_policy="Accept",
                                  description="trainstack: the CPFS mount target", tags=tags,
                                  opts=self.child())
        return {"vpc": net, "vswitch": vsw, "sg": sg, "snat": snat, "fs_vpc": fs_net,
                "fs_vswitch": fs_vsw, "fs_sg": fs_sg}

    # -- bucket --------------------------------------------------------------------------------

    def _bucket(self, name, retain):
        # RETAIN_TAG lets the policy pack see the retention, which the analyzer protocol hides.
        tags = {**self.tags, **DATAFLOW_TAG, **({RETAIN_TAG: "true"} if retain else {})}
        bucket = oss.Bucket(
            f"{name}-data", storage_class="Standard", redundancy_type="LRS",
            force_destroy=not retain,
            versioning=oss.BucketVersioningArgs(status="Enabled"),
            server_side_encryption_rule=oss.BucketServerSideEncryptionRuleArgs(
                sse_algorithm="AES256"),
            tags=tags, opts=self.kept(f"{name}-data", retain))
        oss.BucketAcl(f"{name}-data-acl", bucket=bucket.bucket, acl="private",
                      opts=self.kept(f"{name}-data-acl", retain))
        oss.BucketPublicAccessBlock(f"{name}-data-public-access", bucket=bucket.bucket,
                                    block_public_access=True,
                                    opts=self.kept(f"{name}-data-public-access", retain))
        return bucket

    # -- filesystem ----------------------------------------------------------------------------

    def _filesystem(self, name, args: ClusterArgs, net, bucket):
        spec, zone, tags = args.spec, args.selection.zone, self.tags
        size = planning.cpfs_capacity_gib(spec.filesystem.capacity_gib)
        storage_type = planning.cpfs_storage_type(spec.filesystem.throughput_mbps_per_tib)
        # No encrypt_type/KMS key: the SDK allows a user-managed key (encrypt_type=2) only for
        # extreme NAS, and a NAS-managed key (1) only for standard/extreme (nas.FileSystem
        # `encrypt_type`); CPFS takes neither.
        fs = nas.FileSystem(
            f"{name}-fs", file_system_type="cpfs", protocol_type="cpfs",
            storage_type=storage_type, capacity=size, zone_id=zone,
            vpc_id=net["fs_vpc"].id, vswitch_id=net["fs_vswitch"].id,
            description=f"trainstack {name}: shared training data", tags=tags,
            opts=self.child())
        mount = nas.MountTarget(f"{name}-fs-mount", file_system_id=fs.id,
                                vpc_id=net["fs_vpc"].id, vswitch_id=net["fs_vswitch"].id,
                                security_group_id=net["fs_sg"].id, network_type="Vpc",
                                opts=self.child())
        fileset = nas.Fileset(f"{name}-fs-bucket-fileset", file_system_id=fs.id,
                              file_system_path=BUCKET_FILESET,
                              description="trainstack: the OSS bucket's data in CPFS",
                              opts=self.child(depends_on=[mount]))
        # The NFS side the nodes mount (CPFS-NFS client): a protocol service in the file
        # system's VPC (CreateProtocolService: "must be consistent with the VPC of the file
        # system") and one export of the whole file system in the nodes' vSwitch, whose VPC may
        # not overlap the file system's (CreateProtocolMountTarget; an export takes up to 32 of
        # the vSwitch's addresses).
        protocol = nas.ProtocolService(f"{name}-fs-nfs", file_system_id=fs.id,
                                       protocol_type="NFS", protocol_spec="General",
                                       vpc_id=net["fs_vpc"].id,
                                       vswitch_id=net["fs_vswitch"].id,
                                       description="trainstack: NFS for the nodes",
                                       opts=self.child())
        # The nodes mount the bucket's fileset, never the root: the data flow (and so the
        # reaper's export) reaches only a fileset (CreateDataFlow FsetId), so a node that could
        # write outside it would leave files no export copies. CreateProtocolMountTarget takes
        # "FsetId or Path, exactly one" (help.aliyun.com/zh/cpfs/api-createprotocolmounttarget).
        export = nas.ProtocolMountTarget(f"{name}-fs-export", file_system_id=fs.id,
                                         protocol_service_id=protocol.protocol_service_id,
                                         vpc_id=net["vpc"].id, vswitch_id=net["vswitch"].id,
                                         fset_id=fileset.fileset_id,
                                         description="trainstack: the bucket fileset",
                                         opts=self.child())
        mbps = planning.dataflow_throughput(size, storage_type)
        flow = nas.DataFlow(f"{name}-fs-bucket-flow", file_system_id=fs.id,
                     fset_id=fileset.fileset_id,
                     source_storage=bucket.bucket.apply(lambda b: f"oss://{b}"),
                     throughput=mbps, source_security_type="SSL",
                     description="trainstack: import from and export to the cluster bucket",
                     opts=self.child(depends_on=[bucket]))  # the bucket carries its tag first
        return {"fs": fs, "mount": mount, "flow": flow, "export": export, "size": size,
                "storage_type": storage_type, "dataflow_mbps": mbps}

    # -- identity ------------------------------------------------------------------------------

    def _identity(self, name, args: ClusterArgs, bucket, fs):
        role = ram.Role(f"{name}-node-role",
                        role_name=planning.ram_name(name, args.stack, "node"),
                        assume_role_policy_document=planning.ecs_trust_policy(),
                        description=f"trainstack {name}: the GPU nodes", tags=self.tags,
                        opts=self.child())
        policy = ram.Policy(f"{name}-bucket-policy",
                            policy_name=planning.ram_name(name, args.stack, "bucket"),
                            policy_document=pulumi.Output.all(bucket.bucket, fs["fs"].id)
                            .apply(lambda v: planning.bucket_policy(v[0], v[1])),
                            description=f"trainstack {name}: the cluster bucket only",
                            tags=self.tags, opts=self.child())
        ram.RolePolicyAttachment(f"{name}-node-bucket", role_name=role.role_name,
                                 policy_name=policy.policy_name, policy_type="Custom",
                                 opts=self.child())
        return role

    # -- placement -----------------------------------------------------------------------------

    def _placement(self, name, place: planning.Placement):
        if place.kind == "hpc_cluster":
            return ecs.HpcCluster(f"{name}-hpc", name=f"{name}-hpc",
                                  description="trainstack: SCC RoCE network", opts=self.child())
        return ecs.EcsDeploymentSet(f"{name}-placement", strategy="LowLatency",
                                    deployment_set_name=f"{name}-placement",
                                    description="trainstack: eRDMA nodes close together",
                                    opts=self.child())

    # -- nodes ---------------------------------------------------------------------------------

    def _nodes(self, name, args: ClusterArgs, net, holder, place, role, fs, rel, count: int,
               user_data: pulumi.Output[str], boot_objects=()):
        spec, sel, tags = args.spec, args.selection, self.tags
        cap = planning.capacity_args(sel.capacity.type, sel.capacity.reservation)
        primary_eri, second_eri_card = planning.eri_layout(sel.instance, sel.use_rdma)
        image = ecs.get_images_output(name_regex=IMAGE_NAME_REGEX, owners="system",
                                      most_recent=True, instance_type=sel.instance.name,
                                      opts=pulumi.InvokeOutputOptions(parent=self)).ids
        image_id = image.apply(lambda ids: ids[0])
        nodes = []
        for i in range(count):
            node = planning.node_name(name, i)
            instance = ecs.Instance(
                node, instance_name=node, host_name=node, instance_type=sel.instance.name,
                image_id=image_id,
                vswitch_id=net["vswitch"].id, security_groups=[net["sg"].id],
                private_ip=planning.node_ip(i, spec.nodes),
                internet_max_bandwidth_out=0,  # no public IP
                instance_charge_type="PostPaid", spot_strategy=cap.spot_strategy,
                private_pool_options_match_criteria=cap.private_pool_match,
                private_pool_options_id=cap.private_pool_id,
                deployment_set_id=holder.id if place.kind == "deployment_set" else None,
                hpc_cluster_id=holder.id if place.kind == "hpc_cluster" else None,
                network_interface_traffic_mode="HighPerformance" if primary_eri else "Standard",
                network_interfaces=ecs.InstanceNetworkInterfacesArgs(
                    network_card_index=second_eri_card, vswitch_id=net["vswitch"].id,
                    security_group_ids=[net["sg"].id],
                    network_interface_traffic_mode="HighPerformance")
                if second_eri_card is not None else None,
                auto_release_time=rel.at,
                system_disk_category="cloud_essd", system_disk_size=SYSTEM_DISK_GIB,
                system_disk_encrypted=True,
                user_data=user_data,
                description=f"trainstack {name}: node {i} of {spec.nodes}",
                # No budget resource exists here: the node says what the spec's budget is, so
                # spend-limit (`pulumi preview --policy-pack`) compares against it.
                tags={**tags, BUDGET_TAG: f"{spec.budget.monthly_usd:g}"}, volume_tags=tags,
                # The release time is fixed at first deploy: a later `up` must not move it.
                # The boot's first step fetches the agents from the bucket, through the NAT
                # gateway's SNAT entry (the CLI comes from its public CDN): both are there first.
                opts=self.child(ignore_changes=["autoReleaseTime", "imageId"],
                                depends_on=[fs["mount"], fs["export"], net["snat"],
                                            *boot_objects]))
            ecs.RamRoleAttachment(f"{node}-role", instance_id=instance.id,
                                  ram_role_name=role.role_name, opts=self.child())
            nodes.append(instance)
        return nodes

    def _node_context(self, args: ClusterArgs, bucket_name: str, role_name: str, fs_id: str,
                      export_id: str) -> NodeContext:
        spec, sel = args.spec, args.selection
        return self.node_context(
            # The export's mount address is looked up on the node (AlicloudBoot).
            args, bucket=bucket_name, filesystem_source="", region=sel.region, zone=sel.zone,
            extra={"node_addresses": [planning.node_ip(i, spec.nodes) for i in range(spec.nodes)],
                   "node_role": role_name, "filesystem_id": fs_id, "export_id": export_id,
                   "export_path": BUCKET_FILESET})

    def _boot_context(self, args: ClusterArgs, fs, bucket, role) -> pulumi.Output:
        def context(values) -> NodeContext:
            fs_id, export_id, bucket_name, role_name = values
            return self._node_context(args, bucket_name, role_name, fs_id, export_id)

        return pulumi.Output.all(fs["fs"].id, fs["export"].export_id, bucket.bucket,
                                 role.role_name).apply(context)

    def _ship_boot_files(self, name, args: ClusterArgs, bucket):
        """ECS takes 32 KB of user data and the agents' code is most of the boot: it goes to
        the bucket as one object per file, which the boot's first step fetches. Which files
        and their bytes are known before the bucket, role or file system exist (the agents'
        code reads none of those values), so the objects are planned here rather than inside an
        apply; render_shipped checks the rendered boot asks for exactly these keys."""
        planned = self._node_context(args, bucket_name="", role_name="", fs_id="", export_id="")
        shipped = shipped_files(planned, AlicloudBoot())
        objects = []
        for f in shipped:   # a loop, not a comprehension: one frame less in each object's trace
            objects.append(oss.BucketObject(
                shipped_object_name(name, f),
                bucket=bucket.bucket, key=f.key, content=f.content, content_type="text/plain",
                opts=self.child()))
        return shipped, objects

    # -- idle GPUs -----------------------------------------------------------------------------

    def _idle_alarm(self, name, args: ClusterArgs, nodes):
        spec, tags = args.spec, self.tags
        contacts = [cms.AlarmContact(f"{name}-contact-{i}", alarm_contact_name=f"{name}-{i}",
                                     describe=f"trainstack {name} budget and idle alarms",
                                     channels_mail=email, opts=self.child())
                    for i, email in enumerate(spec.budget.emails)]
        group = cms.AlarmContactGroup(
            f"{name}-contacts", alarm_contact_group_name=f"{name}-{args.stack}",
            describe=f"trainstack {name}: who hears about idle GPUs",
            contacts=[c.alarm_contact_name for c in contacts], opts=self.child())
        dims = pulumi.Output.all(*[n.id for n in nodes]).apply(
            lambda ids: json.dumps([{"instanceId": i} for i in ids]))
        return cms.Alarm(
            f"{name}-idle-gpus", name=f"{name}-idle-gpus", project=planning.GPU_METRIC_NAMESPACE,
            metric=planning.GPU_UTILIZATION_METRIC, metric_dimensions=dims,
            period=planning.ALARM_PERIOD_S, contact_groups=[group.alarm_contact_group_name],
            escalations_warn=cms.AlarmEscalationsWarnArgs(
                comparison_operator="<=", statistics="Average",
                threshold=str(planning.IDLE_GPU_PERCENT),
                times=planning.idle_alarm_times(spec.idle.teardown_after_minutes)),
            tags=tags, opts=self.child())


def export_command(region: str, filesystem_id: str, data_flow_id: str) -> str:
    """The reaper's data guard: export the bucket fileset to OSS and wait until the task is
    Completed (exit 0), or exit 1 when it Failed or was Canceled (CreateDataFlowTask and
    DescribeDataFlowTasks, CPFS API reference)."""
    q = shlex.quote
    create = (f"aliyun nas CreateDataFlowTask --RegionId {q(region)} --FileSystemId "
              f"{q(filesystem_id)} --DataFlowId {q(data_flow_id)} --TaskAction Export "
              f"--DataType MetaAndData --Directory {BUCKET_FILESET}")
    status = (f"aliyun nas DescribeDataFlowTasks --RegionId {q(region)} --FileSystemId "
              f"{q(filesystem_id)} --Filters.1.Key TaskIds --Filters.1.Value \"$task\"")
    py_task = "import json,sys; print(json.load(sys.stdin)['TaskId'])"
    # Any object in the answer that is this task and carries its Status (the nesting of the
    # answer is not relied on).
    py_state = ("import json,os,sys\n"
                "def walk(o):\n"
                " if isinstance(o, dict):\n"
                "  if o.get('TaskId') == os.environ['task'] and 'Status' in o: yield o['Status']\n"
                "  for v in o.values(): yield from walk(v)\n"
                " elif isinstance(o, list):\n"
                "  for v in o: yield from walk(v)\n"
                "print(next(walk(json.load(sys.stdin)), 'Missing'))")
    return (f"task=\"$({create} | python3 -c {q(py_task)})\" && export task && "
            f"while :; do state=\"$({status} | python3 -c {q(py_state)})\"; "
            'case "$state" in Completed) exit 0;; Failed|Canceled|Missing) '
            'echo "export task $task: $state" >&2; exit 1;; esac; sleep 30; done')
