"""Azure planning rules: numbered zones, the single-placement-group limit, capacity types Azure
sells, Managed Lustre sizes, and no 8-GPU B200 size."""
from __future__ import annotations

from trainstack_components import catalog
from trainstack_components.azure import planning
from trainstack_components.base import Cloud, Selection, register
from trainstack_components.catalog import Price
from trainstack_components.errors import SpecError
from trainstack_components.spec import ClusterSpec

# Azure's Blackwell VMs (ND GB200 v6 / GB300 v6) carry 4 GPUs each; trainstack's nodes are 8-GPU.
NOT_ON_AZURE = {"B200": "Azure has no 8x B200 VM size (its Blackwell sizes, ND GB200 v6 and "
                        "ND GB300 v6, have 4 GPUs per VM)"}


# Stack config a deploy cannot do without (docs/azure.md): `trainstack up`/`preview` refuse without
# them, offline commands warn (trainstack/plan/required_config.py). Key -> the value to set.
REQUIRED_CONFIG = {
    "trainstack:sshPublicKey": '"$(cat ~/.ssh/id_ed25519.pub)"',
    "trainstack:azureLustreProviderObjectId":
        "\"$(az ad sp list --display-name 'HPC Cache Resource Provider' --query '[0].id' -o tsv)\"",
}


@register
class AzureCloud(Cloud):
    name = "azure"
    required_config = REQUIRED_CONFIG
    # Capacity reservation groups serve as reservations; no blocks, no flex-start.
    _DEFAULT_CAPACITY = ("on_demand", "spot", "reservation")

    def validate_location(self, spec: ClusterSpec) -> None:
        loc = spec.location(self.name)
        planning.check_zone(loc.zone, loc.region)
        planning.check_nodes(spec.nodes)
        planning.check_capacity(spec.capacity(self.name), spec.interconnect)
        planning.budget_notifications(spec.budget.alert_percents, spec.budget.emails)
        sku = planning.lustre_sku(spec.filesystem.throughput_mbps_per_tib)
        planning.fs_subnet_prefix(planning.lustre_capacity_tib(spec.filesystem.capacity_gib, sku))

    def zone_offers(self, price: Price, zone: str) -> bool:
        # Azure prices are regional and zone availability is per subscription (az vm list-skus):
        # it cannot be checked offline.
        del price, zone
        return True

    def select(self, spec: ClusterSpec) -> Selection:
        offered = {t.gpu for t in catalog.instance_types() if t.cloud == self.name}
        wanted = [catalog.canonical_gpu(g) or g for g in spec.gpu]
        if not spec.location(self.name).instance_type and not any(g in offered for g in wanted):
            reasons = "; ".join(NOT_ON_AZURE.get(g, f"{g} is not in trainstack's Azure catalog")
                                for g in wanted)
            sizes = ", ".join(f"{t.gpu} ({t.name})" for t in sorted(
                catalog.instance_types(), key=lambda t: t.name) if t.cloud == self.name
                and t.gpu_count == 8 and t.rdma)
            raise SpecError("gpu", f"none of {spec.gpu} is offered on Azure: {reasons}.",
                            f"Azure offers 8-GPU sizes with InfiniBand for: {sizes}. Put one "
                            "of these GPUs in gpu, or drop clouds.azure.")
        return super().select(spec)

    # -- the offline plan --------------------------------------------------------------------

    # The input that names each resource in Azure; without it the provider autonames it.
    _NAME_INPUTS = {"azure-native:resources:ResourceGroup": "resourceGroupName",
                    "azure-native:network:VirtualNetwork": "virtualNetworkName",
                    "azure-native:network:Subnet": "subnetName",
                    "azure-native:network:BastionHost": "bastionHostName",
                    "azure-native:storage:BlobContainer": "containerName",
                    "azure-native:consumption:Budget": "budgetName"}

    def offline_attributes(self, type_token: str, name: str, inputs: dict) -> dict:
        if type_token == "azure-native:storage:StorageAccount":
            account = inputs.get("accountName") or name
            return {"name": account,
                    "primaryEndpoints": {"blob": f"https://{account}.blob.core.windows.net/"}}
        if type_token == "azure-native:storagecache:AmlFilesystem":
            # 192.0.2.0/24 is a documentation-only range: clearly not a real MGS address.
            return {"name": inputs.get("amlFilesystemName") or name,
                    "clientInfo": {"mgsAddress": "192.0.2.4",
                                   "mountCommand": planning.mount_command("192.0.2.4")}}
        if type_token == "azure-native:managedidentity:UserAssignedIdentity":
            return {"name": inputs.get("resourceName") or name,
                    "principalId": "00000000-0000-0000-0000-00000000beef",
                    "clientId": "00000000-0000-0000-0000-00000000c1e7"}
        if type_token == "azure-native:compute:VirtualMachineScaleSet":
            # The input lists identity ids; the response maps each id to its details.
            identity = dict(inputs.get("identity") or {})
            identity["userAssignedIdentities"] = {
                i: {} for i in identity.get("userAssignedIdentities") or []}
            return {"name": inputs.get("vmScaleSetName") or name, "identity": identity}
        if type_token == "azure-native:network:PublicIPAddress":
            return {"name": name, "ipAddress": "192.0.2.10"}
        if type_token in self._NAME_INPUTS:
            return {"name": inputs.get(self._NAME_INPUTS[type_token]) or name}
        return super().offline_attributes(type_token, name, inputs)

    def offline_invoke(self, token: str, args: dict):
        if token == "azure-native:authorization:getClientConfig":
            return {"subscriptionId": "00000000-0000-0000-0000-000000000000",
                    "tenantId": "00000000-0000-0000-0000-000000000000",
                    "clientId": "00000000-0000-0000-0000-000000000000",
                    "objectId": "00000000-0000-0000-0000-000000000000"}
        return None

    def component(self):
        from trainstack_components.azure.cluster import AzureGpuCluster
        return AzureGpuCluster
