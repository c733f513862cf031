"""Issue 20, both clouds: the README never walks to `torchrun` on a bare node image (the AWS Base
DLAMI installs no framework; Google's accelerator image has no CUDA toolkit)."""
from __future__ import annotations

import re

from tests.conftest import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_readme_says_the_bare_images_have_no_pytorch():
    assert "`torchrun` is not on a bare node's PATH" in README


def test_every_torchrun_block_is_introduced_with_its_pytorch_environment():
    blocks = [m.start() for m in re.finditer(r"```bash\n(?:[^`]*\n)?torchrun ", README)]
    assert blocks, "the README has torchrun examples"
    for start in blocks:
        lead = README[:start].rstrip().rsplit("\n\n", 1)[-1]
        assert "with PyTorch there" in lead, lead
