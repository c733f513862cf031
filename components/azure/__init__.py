"""Azure: ND-series nodes in one Uniform scale set with a single placement group (InfiniBand),
Azure Managed Lustre in the same zone with HSM on a blob container, Bastion, a consumption budget."""
