"""Print the README's set-up commands (the bash blocks of its "## Set-up" section), one a line.

`.ci/run` runs exactly these, and tests/repo/test_install.py checks what they say, so the install a
user copies from the README is the one CI proves.
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def setup_commands(text: str) -> list[str]:
    start = text.index("## Set-up")
    end = text.find("\n## ", start + 1)
    section = text[start:end if end > 0 else None]
    return [block.strip() for block in re.findall(r"```bash\n(.*?)```", section, re.S)]


if __name__ == "__main__":
    sys.stdout.write("\n".join(setup_commands(README.read_text(encoding="utf-8"))) + "\n")
