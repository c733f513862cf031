"""Azure ND H100 v5 in node boxes (issue 31): the scale set's custom data boots for real on the
ubuntu-hpc image's contents (driver, Docker with the container toolkit, DOCA/InfiniBand, the
Lustre client, the NCCL topology files under /opt/microsoft; no python3-venv, no Azure CLI: the
boot installs them from Microsoft's and Ubuntu's signed repositories). Azure IMDS answers only
with `Metadata: true` and an api-version; the blob container accepts only the user-assigned
identity's token. Two boxes run and bench through docker."""
from __future__ import annotations

import re

import pytest

from tests.box.box_helpers import one_box_failures, only_steps, refused_run_logs, run_and_bench
from tests.box.cases import azure_ndv5
from tools.nodebox.box import Cluster

pytestmark = [pytest.mark.box, pytest.mark.xdist_group("torchrun")]


def test_two_ndv5_boxes_boot_run_and_bench_in_the_container(tmp_path):
    case = azure_ndv5()
    cluster = Cluster(case, tmp_path)
    try:
        cluster.boot(timeout=500, keep=True)
        url = run_and_bench(cluster, case, tmp_path)
        for box in cluster.boxes:
            record = box.health()
            assert record["runtime"]["driver"] == "580.126.16"      # the manifest's driver
            assert record["rdma_devices"] == 8                      # 8 x NDR (the catalog)
            assert (box.root / "usr/bin/az").exists()               # installed by the boot
            assert "/opt/microsoft" in (box.root / "etc/trainstack/container-mounts").read_text()
        # planted: the fabric step no longer lists the topology folder for the container
        for box in cluster.boxes:
            (box.root / "etc/trainstack/container-mounts").write_text("")
        logs = refused_run_logs(cluster, url)
        assert "NCCL_TOPO_FILE names /opt/microsoft/ndv5-topo.xml, which is neither mounted " \
               "nor in the image" in logs
    finally:
        cluster.close()


def test_logging_in_as_the_system_identity_fails_the_health_step(tmp_path):
    """The scale set has a system-assigned identity too (no data role): `az login --identity`
    without the user-assigned client id logs in as it, and the blob upload is refused. (The
    ranks step, which lists the scale set's NICs as that identity too, waits for its peers: its
    wait is planted down from 90 tries to three, as the Alibaba tests plant their fetch budget;
    each try is an `az login` and an `az vmss nic list`, 180 CLI calls at the plan's budget.
    The steps between runtime and health, jobs, preemption and scale-in-unmount, are planted
    out: the health record counts only the steps that ran, and its upload is what is refused.)"""
    from trainstack_components.boot.steps import PEER_ATTEMPTS
    text = azure_ndv5().user_data
    assert "--client-id '" in text and "--username '" in text
    text = re.sub(r" --(client-id|username) '[0-9a-f-]+'", "", text)
    text, n = re.subn(rf"for attempt in \$\(seq 1 {PEER_ATTEMPTS}\); do(\s+mapfile -t addresses)",
                      r"for attempt in $(seq 1 3); do\1", text)
    assert n == 1, "the ranks step's peer wait is no longer where the plant looks: update it"
    text = only_steps(text, ["idle", "lustre", "scratch", "fabric", "ranks", "packages", "runtime",
                             "health"])
    failures = one_box_failures(azure_ndv5(text), tmp_path)
    assert any("step `health` exited 1" in f and "AuthorizationPermissionMismatch" in f
               for f in failures), failures
    assert not any("says ok" in f for f in failures), failures
