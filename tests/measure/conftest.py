"""Fixtures shared by tests/measure's modules."""
import pytest

from tests.preemption_helpers import Cluster


@pytest.fixture(scope="session")
def uninterrupted(tmp_path_factory):
    """The two-node example job run straight through, never preempted: the losses and final
    states test_preemption_e2e.py and test_preemption_run_e2e.py compare theirs with. Session
    scope: one run for both modules (both are in the "torchrun" xdist group, so one worker)."""
    pytest.importorskip("torch")
    cluster = Cluster(tmp_path_factory.mktemp("straight"))
    try:
        _, a = cluster.start_node("node-0", host=True)
        _, b = cluster.start_node("node-1", host=False)
        assert a.wait(timeout=300) == 0, cluster.log("node-0")
        assert b.wait(timeout=60) == 0, cluster.log("node-1")
        return cluster.losses(), cluster.finals()
    finally:
        cluster.close()
