"""Paths and helpers the runner's tests share."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent
DATA = TESTS / "data" / "vectors" / "v1"
FAKE = TESTS / "fake_testee.py"
REPO = TESTS.parents[2]


def fake_command(*options: str) -> str:
    """The command of the fake testee with options."""
    return shlex.join([sys.executable, str(FAKE), *options])
