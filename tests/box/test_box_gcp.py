"""GCP A3 Ultra in node boxes (issue 31): the user data as the instance template's metadata
carries it boots for real on the Ubuntu accelerator image's contents (no Docker, no container
toolkit, no python3-venv: the packages step installs them from signed repositories); the gIB
repository works only with Google's key imported; a box runs and benches (fabric, storage)
through docker. A3 Mega pulls Google's gce-ai-infra images after logging Docker in with its
service account; two A3 Mega boxes run and bench (training too). The two shapes' boot scripts
differ only in what each box does alone (fabric, NCCL environment, node.env, health): the
two-box run of the ranks step, the rendezvous and the training is A3 Mega's."""
from __future__ import annotations

import pytest

from tests.box.box_helpers import (one_box_failures, planted, refused_run_logs, run_and_bench,
                                   through_step)
from tests.box.cases import gcp
from tools.nodebox.box import Cluster

pytestmark = [pytest.mark.box, pytest.mark.xdist_group("torchrun")]


def test_an_a3_ultra_box_boots_runs_and_benches_in_the_container(tmp_path):
    case = gcp("a3-ultra")
    cluster = Cluster(case, tmp_path, nodes=1)
    try:
        cluster.boot(timeout=400, keep=True)
        # two boxes and the training part through this container path: A3 Mega's test below
        run_and_bench(cluster, case, tmp_path, training=False)
        for box in cluster.boxes:
            assert (box.root / "usr/local/gib/lib64").is_dir()          # nccl-gib installed
            assert "/usr/local/gib" in (box.root / "etc/trainstack/container-mounts").read_text()
    finally:
        cluster.close()


def test_the_gib_repository_without_its_key_fails_the_fabric_step(tmp_path):
    key = ("curl -fsSL https://packages.cloud.google.com/apt/doc/apt-key.gpg | gpg --dearmor "
           "--yes -o /etc/apt/keyrings/cloud.google.gpg")
    text = through_step(planted(gcp("a3-ultra").user_data, key, "true"), "fabric")
    failures = one_box_failures(gcp("a3-ultra", text), tmp_path, timeout=300)
    assert any("step `fabric` exited" in f and "packages.cloud.google.com" in f
               and ("NO_PUBKEY" in f or "not signed" in f or "keyring" in f)
               for f in failures), failures


def test_the_registry_stand_in_refuses_googles_images_without_the_service_accounts_login(tmp_path):
    """No box booted: the world's registry for A3 Mega. The gce-ai-infra repositories refuse an
    anonymous pull with Artifact Registry's words and take the node's service-account token as
    the password of `oauth2accesstoken` (the boot's REGISTRY_LOGIN); NGC's image stays open."""
    import base64
    import json
    from types import SimpleNamespace
    from tools.nodebox.clouds import gcp_world
    from tools.nodebox.world import World
    case = gcp("a3-mega")
    world = World({"cloud": "gcp", "node": {"id": "n0", "name": "n0", "ip": "10.0.0.2"},
                   "state_dir": str(tmp_path), "bucket_dir": str(tmp_path), "credential": "s3cret",
                   "registry": gcp_world({"runtime_image": case.runtime_image}).registry})

    def ask(path, user=None, password=None):
        headers = {} if user is None else {"Authorization": "Basic " + base64.b64encode(
            f"{user}:{password}".encode()).decode()}
        return world.registry(SimpleNamespace(headers=headers), "us-docker.pkg.dev", path)

    rxdm = "/v2/gce-ai-infra/gpudirect-tcpxo/tcpgpudmarxd-dev/manifests/v1.0.21"
    code, body, _ = ask(rxdm)
    assert code == 401 and ('Unauthenticated requests do not have permission '
                            '"artifactregistry.repositories.downloadArtifacts" on resource '
                            '"projects/gce-ai-infra/locations/us/repositories/gpudirect-tcpxo"'
                            in json.loads(body)["errors"][0]["message"])
    assert ask("/v2/", "oauth2accesstoken", "gcp:wrong")[0] == 401
    assert ask("/v2/", "oauth2accesstoken", "gcp:s3cret")[0] == 200           # docker login
    assert ask(rxdm, "oauth2accesstoken", "gcp:s3cret")[0] == 200             # the pull after it
    ngc, _, ref = case.runtime_image.partition("@")
    host, _, name = ngc.rpartition(":")[0].partition("/")
    assert world.registry(SimpleNamespace(headers={}), host, f"/v2/{name}/manifests/{ref}")[0] \
        == 200


def test_two_a3_mega_boxes_boot_run_and_bench_in_the_container(tmp_path):
    """A3 Mega (TCPXO): the fabric step installs Docker, runs Google's plugin installer image
    with the host's /var/lib mounted, installs dmabuf-import-helper through apt's ar+https
    transport, exposes the aperture devices and starts the RxDM container; the job container
    gets the plugin folder, /run/tcpx (the RxDM's socket) and /dev/aperture_devices."""
    case = gcp("a3-mega")
    cluster = Cluster(case, tmp_path)
    try:
        cluster.boot(timeout=500, keep=True)
        url = run_and_bench(cluster, case, tmp_path)
        for box in cluster.boxes:
            assert (box.root / "var/lib/tcpxo/lib64/libnccl-net.so").is_file()
            assert set((box.root / "etc/trainstack/container-mounts").read_text().split()) == {
                "/var/lib/tcpxo/lib64", "/run/tcpx", "/dev/aperture_devices"}
            assert box.exec("ls /dev/aperture_devices").stdout.split() == [
                f"0000:{0x81 + i:02x}:00.1" for i in range(8)]     # one per GPU NIC (catalog)
            assert box.exec("test -e /run/tcpx/rxdm.sock").returncode == 0   # RxDM is up
            # and said it is ready, where the fabric step looked before it let jobs in
            assert box.exec("cat /run/tcpx/health-check").stdout.strip() == \
                "Buffer manager initialization completed"
        # planted: the job container no longer gets /run/tcpx
        for box in cluster.boxes:
            mounts = box.root / "etc/trainstack/container-mounts"
            mounts.write_text(mounts.read_text().replace("/run/tcpx\n", ""))
        logs = refused_run_logs(cluster, url)
        assert "TCPXO (NCCL_FASTRAK_*) needs /run/tcpx (the RxDM's socket) in the container" \
            in logs
    finally:
        cluster.close()


def test_the_tcpxo_installer_without_the_hosts_var_lib_fails_the_fabric_step(tmp_path):
    """The installer image writes the plugin into whatever /var/lib it sees: without the host's
    mounted, the host gets nothing, and the fabric step names the missing plugin folder. (The
    boot is planted to end with that step.)"""
    text = through_step(planted(gcp("a3-mega").user_data, "docker run --rm -v /var/lib:/var/lib ",
                                "docker run --rm "), "fabric")
    failures = one_box_failures(gcp("a3-mega", text), tmp_path, timeout=400)
    assert any("step `fabric` exited 1" in f and "the fabric's paths for the job container are "
               "missing: /var/lib/tcpxo/lib64" in f for f in failures), failures


def test_an_rxdm_that_never_says_ready_fails_the_fabric_step(tmp_path):
    """A3 Mega's fabric step waits for the TCPXO daemon's own "ready" (Google's startup probe:
    `Buffer manager initialization completed` in $HEALTH_CHECK_LOG_FILE), not for its container
    to have started. Planted: the daemon is not told where to write it, so it never says so; the
    step fails after its deadline, naming the daemon, instead of letting jobs in. (The boot is
    planted to end with that step.)"""
    text = through_step(planted(gcp("a3-mega").user_data,
                                "-e HEALTH_CHECK_LOG_FILE=/run/tcpx/health-check",
                                "-e RXDM_UNUSED=1"), "fabric")
    failures = one_box_failures(gcp("a3-mega", text), tmp_path, timeout=400)
    assert any("step `fabric` exited 1" in f and "the RxDM (trainstack-rxdm.service) did not "
               "write 'Buffer manager initialization completed' to /run/tcpx/health-check "
               "within 120 s" in f for f in failures), failures
