"""The case and result model every suite shares.

A case id has the form ``Level.Area.Name.Detail...``: the level
(``Required`` or ``Recommended``), the area, the name of the vector or
scenario, then what the suite varies (for the codec suite, the input and the
output encoding). Reports, the known-failures file and ``--case`` globs work on
these ids alone, whatever suite made them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["FAILED", "LEVELS", "PASSED", "SKIPPED", "Case", "Result", "Shown", "level_label"]

#: The levels, weakest last: every implementation MUST pass the required
#: cases and SHOULD pass the recommended ones.
LEVELS = ("required", "recommended")

PASSED = "passed"
FAILED = "failed"
SKIPPED = "skipped"


def level_label(level: str) -> str:
    """The first component of a case id for a level: "Required", "Recommended"."""
    return level.capitalize()


@dataclass(frozen=True)
class Case:
    """One check with a stable id."""

    id: str
    #: The suite that made the case, e.g. "codec".
    suite: str
    #: "required" or "recommended".
    level: str
    area: str
    name: str
    #: The sections of spec/v1 the case tests, e.g. "json-format.md#3.6".
    spec: tuple[str, ...]
    description: str

    @property
    def classname(self) -> str:
        """``Level.Area``: the JUnit class of the case."""
        return ".".join(self.id.split(".", 2)[:2])

    @property
    def testname(self) -> str:
        """The id without its ``Level.Area.`` prefix."""
        return self.id.split(".", 2)[2]


@dataclass(frozen=True)
class Shown:
    """An expected or received value, as a report shows it: bytes of an
    encoding, or a description."""

    text: str = ""
    data: bytes | None = None
    #: The encoding of ``data``: "json" shows as text, the others as hex.
    encoding: str | None = None


@dataclass
class Result:
    """The outcome of one case."""

    case: Case
    status: str
    message: str = ""
    expected: Shown | None = None
    got: Shown | None = None
    #: Seconds the testee took for the request behind the case.
    duration: float = 0.0
    #: For a failed case, set when the run is assessed: "unexpected", "known"
    #: (listed in the known-failures file) or "not-enforced" (a recommended
    #: case in a run at the required level).
    disposition: str = ""
    #: Lines the testee wrote to stderr around a crash.
    stderr: str = field(default="", repr=False)

    @property
    def failed(self) -> bool:
        return self.status == FAILED
