"""The one error type users see for bad input: what is wrong, where, and the way out."""
from __future__ import annotations


class SpecError(ValueError):
    """A spec, stack or catalog problem the user can fix.

    `field` is the dotted path in cluster.yaml (or the stack key / file) that is wrong, so that the
    CLI can print one paragraph that names it and exit 2 before any resource is declared.
    """

    def __init__(self, field: str, problem: str, fix: str):
        self.field = field
        self.problem = problem
        self.fix = fix
        super().__init__(f"{field}: {problem} {fix}".strip())


class SizingError(ValueError):
    """Bad sizing input (estimate/compare flags, catalog GPU rows): `field` names the input, the
    message says the way out. Lives here so the catalog can raise it without importing the CLI."""

    def __init__(self, field: str, message: str):
        self.field = field
        self.message = message
        super().__init__(f"{field}: {message}")
