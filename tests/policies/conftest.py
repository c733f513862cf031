"""Plans read, never changed, here (and a test that patches what a render reads does it through
`monkeypatch`, which makes it render afresh): one render per distinct input (tests/conftest.py)."""
import pytest


@pytest.fixture(autouse=True)
def _shared_renders(shared_renders):
    del shared_renders


@pytest.fixture(autouse=True)
def _collector_released():
    """A test that sends Analyze calls to an in-process servicer and no AnalyzeStack leaves the
    collector held off (analyzer._Collector), as a pack process would until its operation
    ends; this process goes on to other tests, so it is turned back on after each."""
    yield
    from trainstack_policies import analyzer
    analyzer._release_collector()
