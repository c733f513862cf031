"""Alibaba Cloud in node boxes (issue 31). ebmgn8v (eRDMA): the instances' user data boots for
real on the public Ubuntu 22.04 image's contents (no driver, Docker, container toolkit,
python3-venv, RDMA stack or CPFS client: the boot installs them: the driver from NVIDIA's CUDA
repository through cuda-keyring, the eRDMA installer from Alibaba's mirror with its checksum,
aliyun-alinas-utils, the Alibaba Cloud CLI), the metadata server hands out the RAM role's STS
token, OSS takes only that token at the region's endpoint (the first step downloads the agents'
code the plan put there as oss.BucketObjects, checking each file's sha256); a box runs and
benches (fabric, storage) through docker with the host's erdma verbs provider mounted. sccgn7ex
(SCC RoCE): the box stands up the catalog's 8 RoCE devices (Alibaba's SCC family page: 4
dual-port 100 Gbit/s RDMA NICs, one port per GPU); two boxes boot, run and bench (training too)
with the host's /dev/infiniband passed in. The two shapes' boot scripts differ only in what
each box does alone (fabric, NCCL environment, node.env, health, the agent's environment): the
two-box run of the ranks step, the rendezvous and the training is sccgn7ex's."""
from __future__ import annotations

import dataclasses
import re

import pytest

from tests.alicloud.test_alicloud_shipping import fetch_calls
from tests.box.box_helpers import (one_box_failures, only_steps, planted, refused_run_logs,
                                   run_and_bench, through_step)
from tests.box.cases import alicloud
from tools.nodebox.box import Cluster

pytestmark = [pytest.mark.box, pytest.mark.xdist_group("torchrun")]
ROLE_LATE_S = 30    # on the box's clock: about five 6 s retries of the fetch step


def test_an_ebmgn8v_box_boots_runs_and_benches_in_the_container(tmp_path):
    case = alicloud("ebmgn8v")
    cluster = Cluster(case, tmp_path, nodes=1)
    try:
        cluster.boot(timeout=500, keep=True)
        # two boxes and the training part through this container path: sccgn7ex's test below
        url = run_and_bench(cluster, case, tmp_path, training=False)
        for box in cluster.boxes:
            record = box.health()
            assert record["runtime"]["driver"] == "550.127.08"     # the pinned driver
            assert record["rdma_devices"] == 2                     # 2 ERIs (the catalog)
            assert record["node_rank"] == case.extra["node_ips"].index(box.node.ip)
            assert (box.root / "etc/trainstack/container-mounts").read_text().split() == [
                "/etc/libibverbs.d/erdma.driver",
                "/usr/lib/x86_64-linux-gnu/libibverbs/liberdma-rdmav34.so"]
        # planted: the fabric step no longer lists the erdma verbs provider for the container
        for box in cluster.boxes:
            (box.root / "etc/trainstack/container-mounts").write_text("")
        logs = refused_run_logs(cluster, url)
        assert "NCCL_IB_HCA=erdma needs the erdma verbs provider /etc/libibverbs.d/erdma.driver" \
            in logs
    finally:
        cluster.close()


def test_an_erdma_installer_that_is_not_the_pinned_one_fails_the_fabric_step(tmp_path):
    """The box serves its own installer tarball; the case pins its checksum in place of the
    published one. A pin that does not match (here: one digit changed) fails the step at
    sha256sum, before anything of the tarball runs. (The boot is planted to end with that step.)"""
    text = through_step(alicloud("ebmgn8v").user_data, "fabric")
    pin = re.search(r'echo "([0-9a-f]{64})  /tmp/erdma_installer.tar.gz"', text).group(1)
    wrong = ("0" if pin[0] != "0" else "1") + pin[1:]
    failures = one_box_failures(alicloud("ebmgn8v", planted(text, pin, wrong)), tmp_path)
    assert any("step `fabric` exited 1" in f and "computed checksum did NOT match" in f
               for f in failures), failures


def test_oss_at_another_regions_endpoint_fails_the_fetch_and_health_steps(tmp_path):
    """Both ways: the agents' download (fetch, its try budget planted down from ten minutes to
    three tries) and the health record's upload are refused naming the bucket's endpoint. (The
    boot is planted down to those two steps.)"""
    text = planted(alicloud("ebmgn8v").user_data, '--endpoint "oss-$TS_REGION-internal.aliyuncs.com"',
                   '--endpoint "oss-cn-hangzhou-internal.aliyuncs.com"')
    text = only_steps(planted(text, "tries_left=100", "tries_left=3"), ["fetch", "health"])
    failures = one_box_failures(alicloud("ebmgn8v", text), tmp_path)
    for step in ("fetch", "health"):
        assert any(f"step `{step}` exited 1" in f and "must be addressed using the specified "
                   "endpoint oss-cn-wulanchabu.aliyuncs.com" in f for f in failures), failures


def test_two_sccgn7ex_boxes_boot_run_and_bench_in_the_container(tmp_path):
    """SCC RoCE: every step passes on both boxes, with the RoCE device count the catalog cites
    (help.aliyun.com/zh/ecs/user-guide/overview-40#sccgn7ex: "4 * 双口100 Gbit/s RDMA ...
    每颗GPU直连一个100 Gbit/s网口", 4 NICs x 2 ports = 8, one per GPU); `trainstack run` and
    `bench` go through docker with NCCL on the mlx5 devices, which the job agent passes in.
    (A node with fewer devices than the catalog's 8 fails the fabric step naming the count:
    tests/alicloud/test_alicloud_review.py, without a box.) The RAM role reaches the metadata
    server ROLE_LATE_S after boot starts (ecs.RamRoleAttachment runs once the instance is
    Running): the first step, which fetches the agents' code from OSS under that role, waits
    for it."""
    case = alicloud("sccgn7ex", role_after_s=ROLE_LATE_S)
    cluster = Cluster(case, tmp_path)
    try:
        cluster.boot(timeout=500, keep=True)
        run_and_bench(cluster, case, tmp_path)
        for box in cluster.boxes:
            # the RAM role came late: the fetch step waited for it, then got every file
            assert "retrying in 6 s" in box.step_log("fetch")
            for key, path, _, _ in fetch_calls(case.user_data):
                assert (box.root / path.lstrip("/")).read_text() == case.bucket_objects[key]
            record = box.health()
            assert record["rdma_devices"] == 8 and record["rdma_expected"] == 8
            assert record["node_rank"] == case.extra["node_ips"].index(box.node.ip)
            assert record["fabric"] == "roce"
            assert "export NCCL_IB_HCA=mlx5" in box.exec(
                "cat /etc/profile.d/trainstack-nccl.sh").stdout
    finally:
        cluster.close()


def test_a_shipped_file_whose_bytes_differ_from_the_plan_fails_the_fetch_step(tmp_path):
    """The nodes may write to their bucket, so the fetch step checks each file against the
    sha256 the plan put in the user data: an idle agent that is not the planned one is refused
    by name and never lands. (Its try budget is planted down from ten minutes to three tries,
    and the boot to end with that step.)"""
    case = alicloud("ebmgn8v")
    idle_key = next(k for k in case.bucket_objects if k.endswith("/idle_agent.py"))
    tampered = {**case.bucket_objects,
                idle_key: case.bucket_objects[idle_key] + "import os; os.system('true')\n"}
    text = through_step(planted(case.user_data, "tries_left=100", "tries_left=3"), "fetch")
    box_case = dataclasses.replace(alicloud("ebmgn8v", text), bucket_objects=tampered)
    cluster = Cluster(box_case, tmp_path, nodes=1)
    try:
        cluster.boot(timeout=400)
        failures = cluster.failures()
        (box,) = cluster.boxes
        assert not (box.root / "opt/trainstack/idle_agent.py").exists()
        assert (box.root / "opt/trainstack/job_agent.py").read_text() == next(
            v for k, v in case.bucket_objects.items() if k.endswith("/job_agent.py"))
    finally:
        cluster.close()
    assert any("step `fetch` exited 1" in f and f"{idle_key}: not fetched" in f
               for f in failures), failures


def test_a_hardened_metadata_server_refuses_the_boots_normal_mode_requests(tmp_path):
    """The stand-in enforces security hardening mode when the instance asks for it
    (HttpTokens=required: alibabacloud.com/help/en/ecs/user-guide/view-instance-metadata). The
    plan leaves the instances in normal mode, which the boot, the agents and the CLI use; a plan
    that hardens them would fail the boot here, at its first metadata request: the CLI's STS
    token for the fetch step (its try budget planted down from ten minutes to three tries), then
    the ranks step's own address. (The boot is planted to end with the ranks step, and the
    lustre step, whose CLI calls for the mount target are refused too, to three mount tries
    instead of MOUNT_ATTEMPTS: each was an `aliyun` call refused with 403.)"""
    from trainstack_components.boot.steps import MOUNT_ATTEMPTS
    text = planted(alicloud("ebmgn8v").user_data, "tries_left=100", "tries_left=3")
    text = planted(text, f"for attempt in $(seq 1 {MOUNT_ATTEMPTS}); do\n      if mountpoint -q",
                   "for attempt in $(seq 1 3); do\n      if mountpoint -q")
    text = through_step(text, "ranks")
    failures = one_box_failures(alicloud("ebmgn8v", text, hardened=True), tmp_path)
    assert any("step `fetch` exited 1" in f and "403" in f for f in failures), failures
    assert any("step `ranks` exited" in f and "403" in f for f in failures), failures
