"""AWS p5 in node boxes (issue 31): the user data exactly as the plan carries it (base64, gzip)
boots for real on the DLAMI's contents (components/catalog/node_images.csv); every step passes;
two boxes run the real job agent, and `trainstack run` and `trainstack bench` go end to end
through docker (the training image from the private ECR registry, after a login). Planted
findings make a box fail naming the step and the cause."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.box.cases import aws_p5
from tests.run_helpers import TRAIN_PY
from tests.checkout import PYTHONPATH
from tools.nodebox.box import Cluster

pytestmark = [pytest.mark.box, pytest.mark.xdist_group("torchrun")]


def trainstack(*args, timeout=300):
    return subprocess.run([sys.executable, "-m", "trainstack", *map(str, args)],
                          capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, "PYTHONPATH": PYTHONPATH, "OMP_NUM_THREADS": "1"})


def planted(text: str, old: str, new: str) -> str:
    assert old in text, f"the rendered user data no longer has {old!r}: update the plant"
    return text.replace(old, new)


def test_two_p5_boxes_boot_run_and_bench_in_the_container(tmp_path):
    case = aws_p5()
    cluster = Cluster(case, tmp_path)
    try:
        cluster.boot(timeout=400, keep=True)
        assert cluster.failures() == []
        for box in cluster.boxes:
            record = box.health()
            assert record["ok"] is True and set(record["steps"].values()) == {0}
            # the digest the node pulled is the pinned one; the driver is the manifest's
            assert record["runtime"]["image_digest"].endswith(case.runtime_image.split("@")[1])
            assert record["runtime"]["driver"] == "595.91.07"
            assert (cluster.world.bucket / f"status/{box.node.name}.json").exists()
        url = f"file://{cluster.world.bucket}"
        cluster.agents_on(url)
        (cluster.world.fs / "cluster" / "train.py").write_text(TRAIN_PY)
        ran = trainstack("run", "--bucket-url", url, "--cwd", "/lustre", "--timeout", "240",
                         "--nproc-per-node", "1", "--", "python", "train.py")
        assert ran.returncode == 0, ran.stdout[-3000:] + ran.stderr[-2000:] + cluster.agent_logs()
        job = next(line.split()[1] for line in ran.stdout.splitlines() if line.startswith("job "))
        sums = set()
        for box in cluster.boxes:
            exit_record = json.loads((cluster.world.bucket / f"jobs/{job}/{box.node.name}/exit.json")
                                     .read_text())
            assert exit_record["rc"] == 0
            # the container path: docker run of the pulled digest, not the host fallback
            assert exit_record["argv"][:2] == ["docker", "run"]
            assert any(a.endswith(case.runtime_image.split("@")[1]) for a in exit_record["argv"])
            for out in (cluster.world.bucket / f"jobs/{job}/{box.node.name}/out").glob("*.json"):
                sums.add(json.loads(out.read_text())["sum"])
        assert sums == {1.0}     # ranks 0 + 1, all-reduced across the two boxes
        benched = trainstack("bench", "--bucket-url", url, "--model", "tiny", "--steps", "2",
                             "--allreduce-mib", "1", "--checkpoint-mib", "1", "--lustre", "/lustre",
                             "--scratch", "/scratch", "--provisioned-mbps", "1000",
                             "--out-dir", tmp_path / "bench", "--timeout", "300", timeout=400)
        assert benched.returncode == 0, benched.stdout[-3000:] + benched.stderr[-2000:] \
            + cluster.agent_logs()
        result = json.loads((tmp_path / "bench" / "aws.json").read_text())
        assert result["training"]["all_nodes"]["nodes"] == 2
        assert result["readiness"]["all_healthy"] is True

        # planted: the NCCL environment names a file the container does not see
        profile = cluster.boxes[0].root / "etc/profile.d/trainstack-nccl.sh"
        profile.write_text(profile.read_text() + "export NCCL_TOPO_FILE=/etc/trainstack/topo.xml\n")
        (cluster.boxes[0].root / "etc/trainstack/topo.xml").write_text("<system/>\n")
        refused = trainstack("run", "--bucket-url", url, "--cwd", "/lustre", "--timeout", "120",
                             "--nproc-per-node", "1", "--", "python", "train.py")
        assert refused.returncode != 0
        logs = "".join(p.read_text() for p in cluster.world.bucket.glob("jobs/*/*/log.txt"))
        assert "NCCL_TOPO_FILE names /etc/trainstack/topo.xml, which is neither mounted nor " \
               "in the image" in logs
    finally:
        cluster.close()


def one_box(tmp_path, text: str):
    cluster = Cluster(aws_p5(text), tmp_path, nodes=1)
    try:
        cluster.boot(timeout=300)
        return cluster.failures()
    finally:
        cluster.close()


def test_the_ecr_pull_without_a_login_fails_the_runtime_step(tmp_path):
    text = planted(aws_p5().user_data, "if ! registry_login; then", "if false; then")
    failures = one_box(tmp_path, text)
    assert any("step `runtime` exited 1" in f and "no basic auth credentials" in f
               for f in failures), failures
    # and the health record does not say ok (the failed step counts)
    assert not any("says ok" in f for f in failures), failures


def test_a_boot_that_calls_a_command_the_image_lacks_fails(tmp_path):
    """Not a rubber stamp: the DLAMI has no Lustre client (its manifest), so a boot that skips
    installing it cannot mount /lustre; and one that runs `az` (no Azure CLI on the DLAMI)
    fails with the shell's own "command not found"."""
    text = planted(aws_p5().user_data, 'apt-get install -y -qq "lustre-client-modules-$(uname -r)"',
                   "true")
    text = planted(text, 'efa="$(/opt/amazon/efa/bin/fi_info', 'az version; efa="$(/opt/amazon/efa/bin/fi_info')
    failures = one_box(tmp_path, text)
    assert any("step `lustre` exited 1" in f and "no Lustre client module" in f
               for f in failures), failures
    assert any("step `fabric` exited" in f and "az: command not found" in f for f in failures), failures


def test_python3_venv_not_installed_fails_the_packages_step(tmp_path):
    text = planted(aws_p5().user_data, "python3 -c 'import ensurepip' 2>/dev/null || ",
                   "true || ")
    failures = one_box(tmp_path, text)
    assert any("step `packages` exited 1" in f and "python3-venv is missing" in f
               for f in failures), failures
