"""The consoles every command prints through, and the check of an output file it will write.
At the bottom of the package: everything may import it, it imports nothing of trainstack."""
from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Optional

from rich.console import Console

from trainstack_components.errors import SpecError


def check_output_file(path: Optional[Path], option: str) -> None:
    """An output file the command will write: its folder exists and it is not a folder itself."""
    if path is None:
        return
    if path.is_dir():
        raise SpecError(f"{option} {path}", "is a directory.", "Pass a file name, e.g. "
                        f"{path / 'report.html'}.")
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        raise SpecError(f"{option} {path}", f"cannot be written: the folder {parent} does not "
                        "exist.", f"Create it first (mkdir -p {parent}) or pick another path.")
    if path.exists() and not os.access(path, os.W_OK) or not os.access(parent, os.W_OK):
        raise SpecError(f"{option} {path}", "cannot be written (no permission).",
                        "Pick a path you can write.")


# -- output ------------------------------------------------------------------------------------
# Rich wraps at 80 columns when stdout is not a terminal; piped output (grep, less, a CI log)
# should keep each table row on one line instead. COLUMNS, when set, still wins.
PIPED_WIDTH = 1000


_PREPARED = False  # set by prepare_consoles(), for consoles a command creates later


def console(stderr: bool = False) -> Console:
    """A console for a command's output; on the real command line it has the piped-output
    behaviour prepare_consoles() gives the module-level ones."""
    # emoji=False: `trainstack:cloud:` in a message is a config key, not the ☁ emoji code.
    made = Console(stderr=stderr, soft_wrap=True, emoji=False)
    if _PREPARED:
        _fit(made)
    return made


def _reader_gone(stream_console: Console) -> None:
    """Rich's on_broken_pipe, but exit 0: `trainstack plan | head` closing the pipe is the
    reader saying "enough", not a failure."""
    stream_console.quiet = True
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    raise SystemExit(0)


def prepare_consoles() -> None:
    """For the real command line (main()): every trainstack console exits 0 on a closed pipe,
    and gets a wide page when its stream is not a terminal (unless COLUMNS is set)."""
    global _PREPARED
    _PREPARED = True
    for name, module in list(sys.modules.items()):
        if not name.startswith("trainstack") or module is None:
            continue
        for value in list(vars(module).values()):
            if isinstance(value, Console):
                _fit(value)


def _fit(stream_console: Console) -> None:
    # rich has no hook for a closed pipe but this method: the instance's own replaces it
    stream_console.on_broken_pipe = (  # type: ignore[method-assign]
        lambda: _reader_gone(stream_console))
    stream_console._emoji = False  # the modules' own consoles too: `:cloud:` is text (see console())
    if not os.environ.get("COLUMNS") and not stream_console.is_terminal:
        stream_console.width = PIPED_WIDTH
