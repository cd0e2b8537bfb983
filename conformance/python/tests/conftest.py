from __future__ import annotations

import io

import pytest
from runner_support import DATA, FAKE, REPO, TESTS, fake_command  # noqa: F401


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
