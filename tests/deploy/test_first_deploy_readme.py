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


def test_the_review_checklists_name_tests_that_exist():
    """docs/reviews/review-aws.md and docs/reviews/review-gcp.md point each rule at a test: every one exists."""
    defined = set()
    for path in (ROOT / "tests").rglob("test_*.py"):
        defined |= set(re.findall(r"^def (test_\w+)", path.read_text(), re.M))
    for name in ("review-aws.md", "review-gcp.md"):
        text = (ROOT / "docs" / "reviews" / name).read_text(encoding="utf-8")
        # module names (tests/test_x.py) are files, the rest test functions
        files = set(re.findall(r"tests/(?:\w+/)?(test_\w+)\.py", text))
        assert all(list((ROOT / "tests").rglob(f"{f}.py")) for f in files), files
        named = set(re.findall(r"\b(test_\w+)\b", text)) - files
        assert named, name
        assert named <= defined, f"{name} names missing tests: {sorted(named - defined)}"
