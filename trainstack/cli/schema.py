"""`trainstack schema`: the JSON Schema of cluster.yaml."""
from __future__ import annotations

import json

from trainstack_components.spec import ClusterSpec


def schema():
    """Print the JSON Schema of cluster.yaml (for editors and CI validation)."""
    document = ClusterSpec.model_json_schema()
    document["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    document["title"] = "trainstack cluster.yaml"
    print(json.dumps(document, indent=2, sort_keys=True))
