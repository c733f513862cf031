"""`trainstack status` on Azure against a real Blob API (Azurite on loopback, through adlfs): the
health record a node uploads as `status/<node>.json` in the container, read back by the
`bucket_url` form the Azure stack exports (abfs://<container>@<account>.dfs.core.windows.net)."""
from __future__ import annotations

import json
import time

import pytest

from trainstack.measure import status
from trainstack_components.azure.planning import abfs_url


@pytest.fixture
def container(azurite, monkeypatch):  # the shared Azurite server (tests/conftest.py)
    import adlfs
    import fsspec
    monkeypatch.setenv("AZURE_STORAGE_CONNECTION_STRING", azurite)
    adlfs.AzureBlobFileSystem.clear_instance_cache()
    fs = fsspec.filesystem("abfs")
    name = f"data{time.monotonic_ns()}"
    fs.mkdir(name)
    yield name, fs
    adlfs.AzureBlobFileSystem.clear_instance_cache()


def test_status_reads_the_health_records_from_the_container_url_the_stack_exports(container):
    name, fs = container
    for node, rank, ok in (("llm-finetune-nodes_1", 1, False), ("llm-finetune-nodes_0", 0, True)):
        with fs.open(f"{name}/status/{node}.json", "wb") as f:
            f.write(json.dumps({"node": node, "cloud": "azure", "node_rank": rank,
                                "ok": ok}).encode())
    url = status.stack_bucket_url("azure", {"bucket_name": name,
                                            "bucket_url": abfs_url(name, "devstoreaccount1")})
    records = status.read_records(url)
    assert [h.node for h in records] == ["llm-finetune-nodes_0", "llm-finetune-nodes_1"]
    assert [h.ok for h in records] == [True, False]
    assert status.summary(records, 2) == ("1 of 2 node(s) ready", False)
