"""GCP A3 Ultra in node boxes (issue 31): the user data as the instance template's metadata
carries it boots for real on the Ubuntu accelerator image's contents (no Docker, no container
toolkit, no python3-venv: the packages step installs them from signed repositories); the gIB
repository works only with Google's key imported; two boxes run and bench through docker."""
from __future__ import annotations

import pytest

from tests.box.box_helpers import planted, run_and_bench
from tests.box.cases import gcp
from tools.nodebox.box import Cluster

pytestmark = [pytest.mark.box, pytest.mark.xdist_group("torchrun")]


def test_two_a3_ultra_boxes_boot_run_and_bench_in_the_container(tmp_path):
    case = gcp("a3-ultra")
    cluster = Cluster(case, tmp_path)
    try:
        cluster.boot(timeout=400, keep=True)
        run_and_bench(cluster, case, tmp_path)
        for box in cluster.boxes:
            assert (box.root / "usr/local/gib/lib64").is_dir()          # nccl-gib installed
            assert "/usr/local/gib" in (box.root / "etc/trainstack/container-mounts").read_text()
    finally:
        cluster.close()


def test_the_gib_repository_without_its_key_fails_the_fabric_step(tmp_path):
    key = ("curl -fsSL https://packages.cloud.google.com/apt/doc/apt-key.gpg | gpg --dearmor "
           "--yes -o /etc/apt/keyrings/cloud.google.gpg")
    text = planted(gcp("a3-ultra").user_data, key, "true")
    cluster = Cluster(gcp("a3-ultra", text), tmp_path, nodes=1)
    try:
        cluster.boot(timeout=300)
        failures = cluster.failures()
    finally:
        cluster.close()
    assert any("step `fabric` exited" in f and "packages.cloud.google.com" in f
               and ("NO_PUBKEY" in f or "not signed" in f or "keyring" in f)
               for f in failures), failures
