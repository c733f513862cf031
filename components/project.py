"""Names the Pulumi project and its stacks share: the config namespace and each provider's region
key. A module of its own so the CLI can read stack files without loading the planners."""

PROJECT = "trainstack"
PROVIDER_REGION_KEYS = {"aws": "aws:region", "gcp": "gcp:region",
                        "azure": "azure-native:location", "alicloud": "alicloud:region"}
