"""Which failed `up` was the cloud saying "no capacity here" (try elsewhere), and which was
something else (stop). The error codes, one example text each and the public page that documents
them are in capacity_errors.csv; a code is matched as a word in the Pulumi error output (a
marker `A&&B` needs both words: a GCP ResizeRequest that ended FAILED)."""
from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Optional


@dataclass(frozen=True)
class CapacityError:
    cloud: str
    code: str
    marker: str
    example: str
    source: str


@cache
def known_errors() -> tuple[CapacityError, ...]:
    text = resources.files("trainstack.trial").joinpath("capacity_errors.csv").read_text("utf-8")
    return tuple(CapacityError(**row) for row in csv.DictReader(text.splitlines()))


def example(cloud: str, code: str) -> str:
    """The recorded text of `code` on `cloud` (what the stand-in CLI answers in tests)."""
    return next(e.example for e in known_errors() if e.cloud == cloud and e.code == code)


def _word(word: str, message: str) -> bool:
    return re.search(rf"(?<![A-Za-z0-9_.]){re.escape(word)}(?![A-Za-z0-9_])", message,
                     re.IGNORECASE) is not None


def capacity_error(message: str, cloud: Optional[str] = None) -> Optional[CapacityError]:
    """The recorded capacity error `message` carries (of `cloud` when given), else None. The
    longest marker wins, so ZONE_RESOURCE_POOL_EXHAUSTED_WITH_DETAILS is not its prefix."""
    found = [e for e in known_errors() if (cloud is None or e.cloud == cloud)
             and all(_word(part, message) for part in e.marker.split("&&"))]
    return max(found, key=lambda e: len(e.marker)) if found else None
