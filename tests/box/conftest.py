"""The node box needs root, Linux namespaces and a few Debian tools (mmdebstrap, iproute2,
dpkg-dev, gnupg, openssl); where one is missing the test FAILS naming it (never skips: a box that
did not run proves nothing). .ci/run installs them and builds the root."""
from __future__ import annotations

import os

import pytest

from tools.nodebox.root import need


@pytest.fixture(autouse=True)
def box_tools():
    if os.geteuid() != 0:
        pytest.fail("the node box runs as root (it enters Linux namespaces and chroots)")
    need("mmdebstrap", "ip", "unshare", "nsenter", "chroot", "dpkg-deb", "dpkg-scanpackages",
         "gpg", "openssl")
