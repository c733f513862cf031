"""`leave_together`'s store barrier: no rank leaves before every rank has arrived, and a peer
that never arrives ends the wait at its deadline, naming the key it waited for. (The race it
guards against -- a gloo teardown while a peer finishes its last collective -- is timing-bound;
the two-rank runs of the example and of `bench` go through the real thing.)"""
from __future__ import annotations

import threading
import time

import pytest

torch = pytest.importorskip("torch")
import torch.distributed as dist  # noqa: E402

from trainstack_components.training.resumable import _store_barrier  # noqa: E402


def test_the_first_rank_waits_for_the_last_and_then_both_leave():
    store = dist.HashStore()
    left: dict[str, float] = {}

    def rank(name: str) -> None:
        _store_barrier(store, "k", 2, timeout_s=30)
        left[name] = time.monotonic()

    first = threading.Thread(target=rank, args=("first",))
    first.start()
    first.join(timeout=1.0)
    assert first.is_alive() and "first" not in left     # still waiting for its peer
    arrived = time.monotonic()
    rank("last")
    first.join(timeout=30)
    assert not first.is_alive()
    assert left["first"] >= arrived


def test_a_peer_that_never_arrives_ends_the_wait_at_the_deadline_naming_the_key():
    store = dist.HashStore()
    started = time.monotonic()
    with pytest.raises(RuntimeError) as waited:
        _store_barrier(store, "trainstack-leave/collectives-done", 2, timeout_s=1)
    assert time.monotonic() - started < 20
    assert str(waited.value).startswith(
        "waited 1 s in the c10d store at 'trainstack-leave/collectives-done' for all 2 ranks; "
        "1 arrived: a peer is stuck or gone"), str(waited.value)
