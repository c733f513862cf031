"""Plans read, never changed, here (and a test that patches what a render reads does it through
`monkeypatch`, which makes it render afresh): one render per distinct input (tests/conftest.py).
The tests that must render for themselves import `render` directly (a render's own loop, a
leftover loop closed), and the command-line children render in their own process."""
import pytest


@pytest.fixture(autouse=True)
def _shared_renders(shared_renders):
    del shared_renders
