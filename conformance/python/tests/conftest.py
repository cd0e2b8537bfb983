from __future__ import annotations

import io
import shlex
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
DATA = TESTS / "data" / "vectors" / "v1"
FAKE = TESTS / "fake_testee.py"
REPO = TESTS.parents[2]


def fake_command(*options: str) -> str:
    """The command of the fake testee with options."""
    return shlex.join([sys.executable, str(FAKE), *options])


class Run:
    """The outcome of one command line of the runner."""

    def __init__(self, status: int, stdout: str, stderr: str) -> None:
        self.status = status
        self.stdout = stdout
        self.stderr = stderr

    @property
    def last_line(self) -> str:
        return self.stdout.rstrip("\n").splitlines()[-1]


@pytest.fixture
def run_cli():
    from memorywire_conformance.cli import run

    def go(*argv: str) -> Run:
        out, err = io.StringIO(), io.StringIO()
        status = run(list(argv), out, err)
        return Run(status, out.getvalue(), err.getvalue())

    return go
