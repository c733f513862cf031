"""The Azure GPU cluster component: thin wiring over trainstack_components.azure.planning."""
from __future__ import annotations

import pulumi
from pulumi_azure_native import (
    authorization,
    compute,
    consumption,
    managedidentity,
    network,
    resources,
    storage,
    storagecache,
)

from trainstack_components import lifetime as shared_lifetime
from trainstack_components.azure import lifetime as azure_lifetime
from trainstack_components.azure import planning
from trainstack_components.azure.boot import AzureBoot, custom_data, filesystem_source, scale_in_step
from trainstack_components.base import ClusterArgs
from trainstack_components.boot import MOUNT_PATH, NodeContext, render_boot
from trainstack_components.gpu_cluster import GpuCluster
from trainstack_components.pinning import nodes_held
from trainstack_components.tags import RETAIN_TAG


class AzureGpuCluster(GpuCluster):
    """A resource group holding: a VNet clear of InfiniBand's 172.16.0.0/16 with a node subnet
    and a Managed Lustre subnet sized for the file system (both out through the NAT gateway, no
    public IPs; Lustre's subnet allowed out to AzureCloud) and an AzureBastionSubnet; one Uniform
    scale set with a single placement group (InfiniBand joins only its VMs) in one zone, Standard
    security type, scale-in that unmounts Lustre first; Managed Lustre in that zone with HSM on
    the cluster's blob container, created after its role grants have propagated; a user-assigned
    identity with blob data access on that container only; a monthly budget on the resource
    group; Azure Bastion as the way in. The StorageV2 account lives in its own resource group,
    kept on destroy. The spec's tags go on every resource that takes tags."""

    cloud = "azure"

    def _build(self, name: str, args: ClusterArgs) -> dict[str, object]:
        spec, sel = args.spec, args.selection
        self.region, self.zone, self.tags = sel.region, sel.zone, args.tags
        sku = planning.lustre_sku(spec.filesystem.throughput_mbps_per_tib)
        fs_tib = planning.lustre_capacity_tib(spec.filesystem.capacity_gib, sku)
        layout = planning.address_plan(fs_tib)
        self.rg = resources.ResourceGroup(
            f"{name}-rg", resource_group_name=planning.resource_group_name(name, args.stack),
            location=self.region, tags=self.tags, opts=self.child())
        subnets = self._network(name, layout, spec.access.ssh_cidrs)
        account, data, logs = self._storage(name, args, subnets)
        subscription_id = spec.location("azure").subscription_id
        self.subscription = pulumi.Output.from_input(
            subscription_id or authorization.get_client_config_output(
                opts=pulumi.InvokeOutputOptions(parent=self)).subscription_id)
        identity = self._identity(name, data)
        grants = self._lustre_blob_access(name, account)
        fs = self._filesystem(name, sku, fs_tib, subnets["filesystem"], data, logs,
                              self._role_propagation(name, grants))
        # The boot, rendered once for the user data and the plan's outline of it.
        boot = self._boot_context(args, fs, account, data, identity).apply(
            lambda ctx: render_boot(ctx, AzureBoot(), [scale_in_step(ctx)]))
        now = shared_lifetime.utc_now()
        lifetime = shared_lifetime.from_stack_config(spec.lifetime_hours)
        # `trainstack up` sets holdNodes for one deploy after a capacity failure
        # (trainstack/deploy/capacity_guard.py): the set goes to 0, the rest stays.
        capacity = 0 if nodes_held() else shared_lifetime.nodes_now(lifetime, spec.nodes, now)
        nodes = self._nodes(name, args, subnets["nodes"], identity, capacity,
                            boot.apply(lambda rendered: custom_data(rendered.text)))
        lifetime_outputs = azure_lifetime.enforce(self, name, nodes, self.rg.name, self.region,
                                                  spec.nodes, lifetime, now, self.tags)
        # Rank discovery: `az login --identity` then `az vmss nic list` on the nodes.
        authorization.RoleAssignment(
            f"{name}-nodes-peer-discovery", principal_id=identity.principal_id,
            principal_type="ServicePrincipal", scope=nodes.id,
            role_definition_id=self._role(planning.READER),
            description="trainstack: the nodes list their scale set's instances (ranks)",
            opts=self.child())
        bastion = self._bastion(name, subnets["bastion"])
        budget = self._budget(name, args)
        rg_name = self.rg.name
        export = pulumi.Output.all(fs.name, rg_name).apply(
            lambda a: planning.archive_command(a[0], a[1]))
        return {
            **lifetime_outputs,
            "resource_group": rg_name,
            "scale_set": nodes.name,
            "scale_set_id": nodes.id,
            # `trainstack connect` and `status` read the node group under the shared name.
            "node_group": nodes.name,
            "capacity": spec.capacity("azure").type,
            "mount_path": MOUNT_PATH,
            "node_boot": boot.apply(lambda rendered: rendered.outline),
            "filesystem_id": fs.id,
            "filesystem_mgs_address": fs.client_info.apply(lambda c: c.mgs_address if c else None),
            "filesystem_mount_command": fs.client_info.apply(
                lambda c: planning.mount_command(c.mgs_address) if c else None),
            "filesystem_sku": sku.name,
            "filesystem_capacity_tib": fs_tib,
            "filesystem_capacity_gib": fs_tib * 1024,
            "filesystem_throughput_mbps_per_tib": sku.mbps_per_tib,
            "filesystem_capacity_note": planning.lustre_note(
                spec.filesystem.capacity_gib, spec.filesystem.throughput_mbps_per_tib),
            "filesystem_subnet": layout.filesystem,
            "filesystem_blob_access": "granted to the HPC Cache Resource Provider" if grants else
            "MISSING: set trainstack:azureLustreProviderObjectId (see docs/azure.md) before "
            "pulumi up, or Managed Lustre cannot reach the container and its creation fails",
            # Lustre HSM archive: what the reaper runs before a destroy (data into the container).
            "filesystem_export_command": export,
            "storage_account": account.name,
            "storage_resource_group": self.data_rg.name,
            "bucket_name": data.name,
            "bucket_url": pulumi.Output.all(data.name, account.name).apply(
                lambda a: planning.abfs_url(a[0], a[1])),
            "heartbeat_url": pulumi.Output.all(data.name, account.name).apply(
                lambda a: planning.abfs_url(a[0], a[1], "heartbeats")),
            "node_identity_client_id": identity.client_id,
            "budget_name": budget.name,
            "way_in": "Azure Bastion (Standard, native client): nodes have no public IP",
            "bastion_name": bastion.name,
            "ssh_command": pulumi.Output.all(bastion.name, rg_name, nodes.id).apply(
                lambda a: f"az network bastion ssh --name {a[0]} --resource-group {a[1]} "
                f"--target-resource-id {a[2]}/virtualMachines/<instance-id> --auth-type AAD"),
            "rank_discovery": pulumi.Output.all(rg_name, nodes.name).apply(
                lambda a: f"az vmss nic list --resource-group {a[0]} --vmss-name {a[1]} --query "
                "\"[].ipConfigurations[0].privateIPAddress\" --output tsv"),
            "region": self.region,
            "zone": self.zone,
        }

    # -- network -------------------------------------------------------------------------------

    def _network(self, name, layout: planning.AddressPlan, ssh_cidrs):
        rg = self.rg.name
        rules = [network.SecurityRuleArgs(
            name=f"ssh-{i}", priority=100 + i, direction="Inbound", access="Allow",
            protocol="Tcp", source_address_prefix=cidr, source_port_range="*",
            destination_address_prefix="VirtualNetwork", destination_port_range="22")
            for i, cidr in enumerate(ssh_cidrs)]
        rules.append(network.SecurityRuleArgs(
            name="amlfs-to-azurecloud", priority=planning.AMLFS_OUTBOUND_PRIORITY,
            direction="Outbound", access="Allow", protocol="*",
            source_address_prefix="VirtualNetwork", source_port_range="*",
            destination_address_prefix=planning.AMLFS_OUTBOUND_TAG, destination_port_range="*",
            description="Managed Lustre reaches Azure services (amlfs-prerequisites)"))
        # Azure's default rules already drop Internet traffic; this one says so explicitly and
        # outranks any later allow rule added by hand.
        rules.append(network.SecurityRuleArgs(
            name="deny-internet-inbound", priority=4000, direction="Inbound", access="Deny",
            protocol="*", source_address_prefix="Internet", source_port_range="*",
            destination_address_prefix="*", destination_port_range="*"))
        nsg = network.NetworkSecurityGroup(
            f"{name}-nsg", resource_group_name=rg, location=self.region, security_rules=rules,
            tags=self.tags, opts=self.child())
        vnet = network.VirtualNetwork(
            f"{name}-vnet", resource_group_name=rg, location=self.region,
            address_space=network.AddressSpaceArgs(address_prefixes=[layout.vnet]),
            tags=self.tags, opts=self.child())
        # Egress for the nodes (packages, registries) without a public IP on any node.
        nat_ip = network.PublicIPAddress(
            f"{name}-nat-ip", resource_group_name=rg, location=self.region, zones=[self.zone],
            sku=network.PublicIPAddressSkuArgs(name="Standard"),
            public_ip_allocation_method="Static", tags=self.tags, opts=self.child())
        nat = network.NatGateway(
            f"{name}-nat", resource_group_name=rg, location=self.region, zones=[self.zone],
            sku=network.NatGatewaySkuArgs(name="Standard"),
            public_ip_addresses=[network.SubResourceArgs(id=nat_ip.id)], tags=self.tags,
            opts=self.child())
        subnet = self.child(depends_on=[vnet])
        # The storage service endpoint lets the bucket account admit these subnets while it
        # refuses every other network (_storage).
        storage_endpoint = [network.ServiceEndpointPropertiesFormatArgs(service="Microsoft.Storage")]
        nodes = network.Subnet(
            f"{name}-nodes", resource_group_name=rg, virtual_network_name=vnet.name,
            address_prefix=layout.nodes, network_security_group=network.NetworkSecurityGroupArgs(
                id=nsg.id), nat_gateway=network.SubResourceArgs(id=nat.id),
            service_endpoints=storage_endpoint, default_outbound_access=False, opts=subnet)
        filesystem = network.Subnet(
            f"{name}-fs", resource_group_name=rg, virtual_network_name=vnet.name,
            address_prefix=layout.filesystem,
            network_security_group=network.NetworkSecurityGroupArgs(id=nsg.id),
            nat_gateway=network.SubResourceArgs(id=nat.id), service_endpoints=storage_endpoint,
            default_outbound_access=False, opts=self.child(depends_on=[nodes]))
        # The name is Azure's rule; Bastion brings its own inbound 443 and takes no NSG here.
        bastion = network.Subnet(
            f"{name}-bastion", subnet_name="AzureBastionSubnet", resource_group_name=rg,
            virtual_network_name=vnet.name, address_prefix=layout.bastion,
            opts=self.child(depends_on=[filesystem]))
        return {"nodes": nodes, "filesystem": filesystem, "bastion": bastion}

    # -- bucket --------------------------------------------------------------------------------

    def _storage(self, name, args: ClusterArgs, subnets):
        """The bucket account, in its own resource group (kept on destroy when the spec says so):
        a destroy of the cluster, or deleting its group by hand, leaves the data where it is.

        Shared-key access stays on: Managed Lustre's blob integration requires "storage account
        key access ... Enabled" (amlfs-prerequisites.md, "Blob integration prerequisites"); the
        nodes and the reaper sign in with Entra ID (`--auth-mode login`) and OAuth is the
        default. The account answers only the cluster's subnets (service endpoints) and the
        addresses in `trainstack:storageAllowedCidrs` (the reaper's, an operator's)."""
        retain = args.spec.bucket.retain_on_destroy
        self.data_rg = resources.ResourceGroup(
            f"{name}-data-rg", resource_group_name=planning.data_resource_group_name(
                name, args.stack), location=self.region,
            tags={**self.tags, RETAIN_TAG: "true"} if retain else self.tags,
            opts=self.kept(f"{name}-data-rg", retain))
        rg = self.data_rg.name
        allowed = [c.strip() for c in (pulumi.Config("trainstack").get("storageAllowedCidrs")
                                       or "").split(",") if c.strip()]
        account = storage.StorageAccount(
            f"{name}-data", account_name=planning.storage_account_name(name, args.stack),
            resource_group_name=rg, location=self.region, kind="StorageV2",
            sku=storage.SkuArgs(name="Standard_LRS"), access_tier=storage.AccessTier.HOT,
            enable_https_traffic_only=True, minimum_tls_version="TLS1_2",
            allow_blob_public_access=False, allow_shared_key_access=True,
            default_to_o_auth_authentication=True, public_network_access="Enabled",
            network_rule_set=storage.NetworkRuleSetArgs(
                default_action=storage.DefaultAction.DENY, bypass="AzureServices",
                virtual_network_rules=[storage.VirtualNetworkRuleArgs(
                    virtual_network_resource_id=subnets[key].id, action=storage.Action.ALLOW)
                    for key in ("nodes", "filesystem")],
                ip_rules=[storage.IPRuleArgs(i_p_address_or_range=c, action=storage.Action.ALLOW)
                          for c in allowed]),
            encryption=storage.EncryptionArgs(
                key_source="Microsoft.Storage",
                services=storage.EncryptionServicesArgs(
                    blob=storage.EncryptionServiceArgs(enabled=True, key_type="Account"))),
            # RETAIN_TAG lets the policy pack see the retention, which the analyzer hides.
            tags={**self.tags, RETAIN_TAG: "true"} if retain else self.tags,
            opts=self.kept(f"{name}-data", retain))
        days = planning.SOFT_DELETE_DAYS
        storage.BlobServiceProperties(
            f"{name}-data-soft-delete", account_name=account.name, resource_group_name=rg,
            blob_services_name="default",
            delete_retention_policy=storage.DeleteRetentionPolicyArgs(enabled=True, days=days),
            container_delete_retention_policy=storage.DeleteRetentionPolicyArgs(
                enabled=True, days=days), opts=self.kept(f"{name}-data-soft-delete", retain))
        data = storage.BlobContainer(
            f"{name}-container", container_name="data", account_name=account.name,
            resource_group_name=rg, public_access=storage.PublicAccess.NONE,
            opts=self.kept(f"{name}-container", retain))
        logs = storage.BlobContainer(
            f"{name}-hsm-logs", container_name="amlfs-logs", account_name=account.name,
            resource_group_name=rg, public_access=storage.PublicAccess.NONE, opts=self.child())
        return account, data, logs

    # -- identity ------------------------------------------------------------------------------

    def _identity(self, name, container):
        identity = managedidentity.UserAssignedIdentity(
            f"{name}-nodes-identity", resource_group_name=self.rg.name, location=self.region,
            tags=self.tags, opts=self.child())
        # On the cluster's container only: not the account (the HSM log container, any other).
        authorization.RoleAssignment(
            f"{name}-nodes-blob-access", principal_id=identity.principal_id,
            principal_type="ServicePrincipal", scope=container.id,
            role_definition_id=self._role(planning.BLOB_DATA_CONTRIBUTOR),
            description="trainstack: the nodes read and write the cluster's blob container",
            opts=self.child())
        return identity

    # -- filesystem ----------------------------------------------------------------------------

    def _lustre_blob_access(self, name, account) -> list:
        """Managed Lustre reads and writes the HSM containers as the tenant's "HPC Cache Resource
        Provider" service principal, which needs two roles on the account before the file system
        is created (amlfs-prerequisites.md, "Access roles for blob integration"). Its object id
        differs per tenant and only Microsoft Graph can look it up, so it comes from config."""
        principal = pulumi.Config("trainstack").get("azureLustreProviderObjectId")
        if not principal:
            return []
        return [authorization.RoleAssignment(
            f"{name}-lustre-{key}", principal_id=principal, principal_type="ServicePrincipal",
            scope=account.id, role_definition_id=self._role(role),
            description="trainstack: Managed Lustre imports from and archives to the container",
            opts=self.child()) for key, role in planning.LUSTRE_PROVIDER_ROLES.items()]

    def _role_propagation(self, name, grants: list) -> list:
        """A wait after the grants: Microsoft documents up to five minutes for role assignments
        to propagate, and Managed Lustre's creation fails without blob access. There is no
        pulumi_time here, so the wait is an Azure deployment script (Microsoft.Resources/
        deploymentScripts, AzureCLI kind, no identity: it only sleeps) that depends on the
        grants; the file system depends on it. Azure runs it in a container instance and
        deletes it, its storage included, when done (cleanupPreference Always)."""
        if not grants:
            return []
        wait = planning.ROLE_PROPAGATION_WAIT_S
        return [resources.AzureCliScript(
            f"{name}-wait-role-propagation", resource_group_name=self.rg.name,
            location=self.region, kind="AzureCLI", az_cli_version="2.61.0",
            script_content=f"sleep {wait}", timeout="PT15M", retention_interval="PT1H",
            cleanup_preference="Always", tags=self.tags,
            opts=self.child(depends_on=grants))]

    def _role(self, role_id: str) -> pulumi.Output[str]:
        return self.subscription.apply(
            lambda s: f"/subscriptions/{s}/providers/Microsoft.Authorization/roleDefinitions/"
            f"{role_id}")

    def _filesystem(self, name, sku: planning.LustreSku, tib: int, subnet, data, logs, grants):
        day, time = planning.MAINTENANCE_WINDOW
        return storagecache.AmlFilesystem(
            f"{name}-fs", resource_group_name=self.rg.name, location=self.region,
            zones=[self.zone], filesystem_subnet=subnet.id,
            sku=storagecache.SkuNameArgs(name=sku.name), storage_capacity_ti_b=float(tib),
            maintenance_window=storagecache.AmlFilesystemMaintenanceWindowArgs(
                day_of_week=storagecache.MaintenanceDayOfWeekType(day), time_of_day_utc=time),
            # Import from and archive to the cluster's container (Lustre HSM).
            hsm=storagecache.AmlFilesystemHsmArgs(settings=storagecache.AmlFilesystemHsmSettingsArgs(
                container=data.id, logging_container=logs.id, import_prefix="/")),
            tags=self.tags, opts=self.child(depends_on=grants))

    # -- nodes ---------------------------------------------------------------------------------

    def _boot_context(self, args: ClusterArgs, fs, account, data, identity
                      ) -> pulumi.Output[NodeContext]:
        """What the nodes' boot steps (components/boot) need; rendered as the custom data."""

        def context(values) -> NodeContext:
            mgs, account_name, container, client_id = values
            return self.node_context(
                args, bucket=container, filesystem_source=filesystem_source(mgs),
                region=self.region, zone=self.zone,
                extra={"storage_account": account_name, "identity_client_id": client_id})

        mgs = fs.client_info.apply(lambda c: c.mgs_address if c else None)
        return pulumi.Output.all(mgs, account.name, data.name, identity.client_id).apply(context)

    def _nodes(self, name, args: ClusterArgs, subnet, identity, capacity: int, boot_data):
        sel = args.selection
        reservation = sel.capacity.reservation if sel.capacity.type == "reservation" else None
        key = pulumi.Config("trainstack").get("sshPublicKey")
        linux = compute.LinuxConfigurationArgs(
            disable_password_authentication=True,
            ssh=compute.SshConfigurationArgs(public_keys=[compute.SshPublicKeyArgs(
                path=f"/home/{planning.ADMIN_USER}/.ssh/authorized_keys", key_data=key)])
            if key else None)
        profile = compute.VirtualMachineScaleSetVMProfileArgs(
            storage_profile=compute.VirtualMachineScaleSetStorageProfileArgs(
                image_reference=compute.ImageReferenceArgs(**planning.IMAGE),
                os_disk=compute.VirtualMachineScaleSetOSDiskArgs(
                    create_option="FromImage", caching=compute.CachingTypes.READ_WRITE,
                    delete_option="Delete",
                    disk_size_gb=planning.OS_DISK_GIB,
                    managed_disk=compute.VirtualMachineScaleSetManagedDiskParametersArgs(
                        storage_account_type="Premium_LRS"))),
            os_profile=compute.VirtualMachineScaleSetOSProfileArgs(
                computer_name_prefix=planning.computer_name_prefix(name), admin_username=planning.ADMIN_USER,
                custom_data=boot_data, linux_configuration=linux),
            network_profile=compute.VirtualMachineScaleSetNetworkProfileArgs(
                network_interface_configurations=[
                    compute.VirtualMachineScaleSetNetworkConfigurationArgs(
                        name="primary", primary=True, enable_accelerated_networking=True,
                        ip_configurations=[compute.VirtualMachineScaleSetIPConfigurationArgs(
                            name="internal", primary=True,
                            subnet=compute.ApiEntityReferenceArgs(id=subnet.id))])]),
            # Entra ID sign-in, so `az network bastion ssh --auth-type AAD` needs no key.
            extension_profile=compute.VirtualMachineScaleSetExtensionProfileArgs(extensions=[
                compute.VirtualMachineScaleSetExtensionArgs(
                    name="aad-ssh-login", publisher="Microsoft.Azure.ActiveDirectory",
                    type="AADSSHLoginForLinux", type_handler_version="1.0",
                    auto_upgrade_minor_version=True)]),
            # Trusted Launch (becoming the default for Gen2 sets) enforces Secure Boot, which
            # refuses the Lustre client's unsigned kernel module: Standard, explicitly.
            security_profile=compute.SecurityProfileArgs(security_type="Standard"),
            # Scale-in (autoscale, the lifetime, a hand resize) gives each VM a Terminate
            # event first; the node's watcher unmounts Lustre, then approves it.
            scheduled_events_profile=compute.ScheduledEventsProfileArgs(
                terminate_notification_profile=compute.TerminateNotificationProfileArgs(
                    enable=True, not_before_timeout=planning.TERMINATE_NOTICE)),
            priority="Spot" if sel.spot else "Regular",
            eviction_policy="Deallocate" if sel.spot else None,
            billing_profile=compute.BillingProfileArgs(max_price=-1) if sel.spot else None,
            capacity_reservation=compute.CapacityReservationProfileArgs(
                capacity_reservation_group=compute.SubResourceArgs(id=reservation))
            if reservation else None)
        return compute.VirtualMachineScaleSet(
            f"{name}-nodes", resource_group_name=self.rg.name, location=self.region,
            zones=[self.zone], orchestration_mode="Uniform",
            sku=compute.SkuArgs(name=sel.instance.name, tier="Standard", capacity=capacity),
            # InfiniBand joins only VMs of one placement group; a reservation needs false
            # (planning.check_capacity allows that only with interconnect: tcp).
            single_placement_group=reservation is None, platform_fault_domain_count=1,
            overprovision=False,
            upgrade_policy=compute.UpgradePolicyArgs(mode=compute.UpgradeMode.MANUAL),
            scale_in_policy=compute.ScaleInPolicyArgs(rules=["NewestVM"], force_deletion=False),
            # AADSSHLoginForLinux signs in with the system-assigned identity (it fails, exit 22,
            # with only a user-assigned one); the user-assigned one is the nodes' data identity.
            identity=compute.VirtualMachineScaleSetIdentityArgs(
                type=compute.ResourceIdentityType.SYSTEM_ASSIGNED_USER_ASSIGNED,
                user_assigned_identities=[identity.id]),
            virtual_machine_profile=profile, tags=self.tags, opts=self.child())

    # -- way in --------------------------------------------------------------------------------

    def _bastion(self, name, subnet):
        # The only public address in the cluster: Bastion's own, never a node's.
        ip = network.PublicIPAddress(
            f"{name}-bastion-ip", resource_group_name=self.rg.name, location=self.region,
            sku=network.PublicIPAddressSkuArgs(name="Standard"),
            public_ip_allocation_method="Static", tags=self.tags, opts=self.child())
        return network.BastionHost(
            f"{name}-bastion", resource_group_name=self.rg.name, location=self.region,
            sku=network.SkuArgs(name="Standard"), enable_tunneling=True,
            ip_configurations=[network.BastionHostIPConfigurationArgs(
                name="bastion", subnet=network.SubResourceArgs(id=subnet.id),
                public_ip_address=network.SubResourceArgs(id=ip.id))],
            tags=self.tags, opts=self.child())

    # -- budget --------------------------------------------------------------------------------

    def _budget(self, name, args: ClusterArgs):
        budget = args.spec.budget
        recorded = pulumi.Config("trainstack").get(
            shared_lifetime.LIFETIME_START_KEY.partition(":")[2])
        return consumption.Budget(
            f"{name}-budget", scope=self.rg.id, amount=float(budget.monthly_usd),
            category="Cost", time_grain="Monthly",
            time_period=consumption.BudgetTimePeriodArgs(
                start_date=planning.budget_start(recorded)),
            notifications={key: consumption.NotificationArgs(enabled=True, **n) for key, n in
                           planning.budget_notifications(budget.alert_percents,
                                                         budget.emails).items()},
            # Without a recorded first deploy the clock stands in: the period it set stays.
            opts=self.child(ignore_changes=None if recorded else ["timePeriod"]))
