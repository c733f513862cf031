"""AWS p5 in node boxes (issue 31): the user data exactly as the plan carries it (base64, gzip)
boots for real on the DLAMI's contents (components/catalog/node_images.csv); every step passes;
two boxes run the real job agent, and `trainstack run` and `trainstack bench` go end to end
through docker (the training image from the private ECR registry, after a login). Planted
findings make a box fail naming the step and the cause."""
from __future__ import annotations

import pytest

from tests.box.box_helpers import (one_box_failures, only_steps, planted, refused_run_logs,
                                   run_and_bench, through_step)
from tests.box.cases import aws_p5
from tools.nodebox.box import Cluster

pytestmark = [pytest.mark.box, pytest.mark.xdist_group("torchrun")]


def test_two_p5_boxes_boot_run_and_bench_in_the_container(tmp_path):
    case = aws_p5()
    cluster = Cluster(case, tmp_path)
    try:
        cluster.boot(timeout=400, keep=True)
        url = run_and_bench(cluster, case, tmp_path)
        for box in cluster.boxes:
            assert box.health()["runtime"]["driver"] == "595.91.07"   # the manifest's driver
        # planted: the NCCL environment names a file the container does not see
        profile = cluster.boxes[0].root / "etc/profile.d/trainstack-nccl.sh"
        profile.write_text(profile.read_text() + "export NCCL_TOPO_FILE=/etc/trainstack/topo.xml\n")
        (cluster.boxes[0].root / "etc/trainstack/topo.xml").write_text("<system/>\n")
        logs = refused_run_logs(cluster, url)
        assert "NCCL_TOPO_FILE names /etc/trainstack/topo.xml, which is neither mounted nor " \
               "in the image" in logs
    finally:
        cluster.close()


def one_box(tmp_path, text: str):
    return one_box_failures(aws_p5(text), tmp_path, timeout=300)


def test_the_ecr_pull_without_a_login_fails_the_runtime_step(tmp_path):
    """(Planted without the steps between runtime and health, jobs and preemption: the health
    record counts only the steps that ran, so its "not ok" is the runtime step's.)"""
    text = planted(aws_p5().user_data, "if ! registry_login; then", "if false; then")
    text = only_steps(text, ["fetch", "idle", "lustre", "scratch", "fabric", "ranks", "packages",
                             "runtime", "health"])
    failures = one_box(tmp_path, text)
    assert any("step `runtime` exited 1" in f and "no basic auth credentials" in f
               for f in failures), failures
    # and the health record does not say ok (the failed step counts)
    assert not any("says ok" in f for f in failures), failures


def test_a_boot_that_calls_a_command_the_image_lacks_fails(tmp_path):
    """Not a rubber stamp: the DLAMI has no Lustre client (its manifest), so a boot that skips
    installing it cannot mount /lustre; and one that runs `az` (no Azure CLI on the DLAMI)
    fails with the shell's own "command not found". (The boot is planted to end with the fabric
    step, and the lustre step's client install to three tries instead of ten.)"""
    text = planted(aws_p5().user_data, 'apt-get install -y -qq "lustre-client-modules-$(uname -r)"',
                   "true")
    text = planted(text, 'efa="$(/opt/amazon/efa/bin/fi_info', 'az version; efa="$(/opt/amazon/efa/bin/fi_info')
    text = planted(text, "for attempt in $(seq 1 10); do", "for attempt in $(seq 1 3); do")
    failures = one_box(tmp_path, through_step(text, "fabric"))
    assert any("step `lustre` exited 1" in f and "no Lustre client module" in f
               for f in failures), failures
    assert any("step `fabric` exited" in f and "az: command not found" in f for f in failures), failures


def test_python3_venv_not_installed_fails_the_packages_step(tmp_path):
    # the install asked for nothing: apt-get prints its version instead
    text = planted(aws_p5().user_data, "install -y -qq python3-venv; }", "--version >/dev/null; }")
    failures = one_box(tmp_path, through_step(text, "packages"))
    assert any("step `packages` exited 1" in f and "python3-venv is missing" in f
               for f in failures), failures
