"""The error every Automation API command raises when the Pulumi CLI ran and failed; its own
module so that the capacity guard and the lifecycle share it without importing each other."""


class DeployFailed(RuntimeError):
    """The Pulumi CLI ran and failed (credentials rejected, quota, a provider error)."""
