"""tests/cost reads plans and never changes what a render reads (or says so through monkeypatch,
which makes that test render afresh): one render per distinct input (tests/conftest.py)."""
import pytest


@pytest.fixture(autouse=True)
def _shared_renders(shared_renders):
    del shared_renders
