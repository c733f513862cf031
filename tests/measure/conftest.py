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
        a, b = cluster.start_straight()
        assert a.wait(timeout=300) == 0, cluster.log("rank-0")
        assert b.wait(timeout=60) == 0, cluster.log("rank-1")
        return cluster.losses(), cluster.finals()
    finally:
        cluster.close()
