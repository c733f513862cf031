"""AWS: EFA nodes in one subnet and cluster placement group, FSx for Lustre beside them, S3, Budgets."""
