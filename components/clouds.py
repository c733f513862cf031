"""Importing this module registers every implemented cloud (planning only; SDKs load lazily)."""
from components.alicloud.cloud import AlicloudCloud  # noqa: F401
from components.aws.cloud import AwsCloud  # noqa: F401
from components.azure.cloud import AzureCloud  # noqa: F401
from components.gcp.cloud import GcpCloud  # noqa: F401
