"""Fixtures shared by tests/measure's modules."""
import pytest

from tests.preemption_helpers import Cluster


@pytest.fixture(scope="session")
def uninterrupted(tmp_path_factory):
    """The two-node example job run straight through, never preempted (its two ranks started
    directly, Cluster.start_straight): the losses and final states test_preemption_e2e.py and
    test_preemption_run_e2e.py compare theirs with. Session scope: one run for both modules
    (both are in the "torchrun" xdist group, so one worker)."""
    pytest.importorskip("torch")
    cluster = Cluster(tmp_path_factory.mktemp("straight"))
    try:
        ranks = cluster.start_straight()
        assert ranks.wait(timeout=300) == 0, \
            cluster.log("ranks") + cluster.log("rank-0") + cluster.log("rank-1")
        return cluster.losses(), cluster.finals()
    finally:
        cluster.close()


@pytest.fixture(scope="session")
def preempted(tmp_path_factory):
    """The example job under `trainstack run` on job agents, its second node taken back once per
    cloud (tests/preemption_helpers.py, `preempted_job`): what test_preemption_e2e.py asserts per
    cloud and test_preemption_run_e2e.py asserts of the run. Session scope: one job for both
    modules (both are in the "torchrun" xdist group, so one worker)."""
    pytest.importorskip("torch")
    from tests.preemption_helpers import preempted_job
    return preempted_job(tmp_path_factory.mktemp("preempted"))


@pytest.fixture(autouse=True)
def _shared_renders(shared_renders):
    """tests/measure reads plans only through `compare` (the measured rows beside the assumed:
    test_measured.py and test_run_bench.py compare the same spec two and three times) and never
    changes what a render reads but through monkeypatch (which renders afresh): one render per
    distinct input (tests/conftest.py)."""
    del shared_renders
