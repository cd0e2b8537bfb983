"""The known-failures file, and what a run's results mean against it.

The file lists, one per line, a case id or a glob (``*`` any run of
characters, ``?`` one character, ``[...]`` a set), optionally followed by a
comment starting with ``#``; blank lines and comment lines are ignored::

    # Our msgpack writer always uses float 64.
    Required.CanonicalMsgpack.*.MsgpackOutput   # float32 vectors not yet bin
    Recommended.Timestamps.LeapSecond.JsonInput.ErrorReason

A run fails on an unexpected failure (a failed case that no entry lists, at an
enforced level) and on a stale entry: an entry whose cases all passed, or one
that matches no case of the suite at all. Entries whose cases were all skipped
or not selected are left alone.
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from memorywire_conformance.cases import FAILED, SKIPPED, Result

__all__ = ["Assessment", "Entry", "KnownFailures", "KnownFailuresError", "assess"]

_PATTERN = re.compile(r"^[A-Za-z0-9_.*?\[\]!-]+$")


class KnownFailuresError(ValueError):
    """A line of the known-failures file is not a case id or glob."""


@dataclass(frozen=True)
class Entry:
    """One line of the known-failures file."""

    pattern: str
    comment: str = ""
    line: int = 0

    @property
    def is_glob(self) -> bool:
        return any(c in self.pattern for c in "*?[")

    def matches(self, case_id: str) -> bool:
        return fnmatch.fnmatchcase(case_id, self.pattern)

    def __str__(self) -> str:
        return f"{self.pattern}  # {self.comment}" if self.comment else self.pattern


@dataclass(frozen=True)
class KnownFailures:
    """The entries of a known-failures file, in file order."""

    entries: tuple[Entry, ...] = ()
    source: str = ""

    @classmethod
    def parse(cls, text: str, source: str = "<known failures>") -> KnownFailures:
        entries: list[Entry] = []
        seen: dict[str, int] = {}
        for number, raw in enumerate(text.splitlines(), start=1):
            body, _, comment = raw.partition("#")
            pattern = body.strip()
            if not pattern:
                continue
            if not _PATTERN.match(pattern):
                raise KnownFailuresError(
                    f"{source}:{number}: {pattern!r} is not a case id or glob")
            if pattern in seen:
                raise KnownFailuresError(
                    f"{source}:{number}: {pattern} is already listed on line {seen[pattern]}")
            seen[pattern] = number
            entries.append(Entry(pattern, comment.strip(), number))
        return cls(tuple(entries), source)

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> KnownFailures:
        try:
            text = Path(path).read_text("utf-8")
        except OSError as e:
            raise KnownFailuresError(f"{path}: {e.strerror or e}") from None
        return cls.parse(text, str(path))

    def match(self, case_id: str) -> Entry | None:
        """The first entry that lists a case id."""
        return next((e for e in self.entries if e.matches(case_id)), None)


@dataclass
class Assessment:
    """A run's results against the enforced levels and the known failures."""

    results: list[Result]
    unexpected: list[Result] = field(default_factory=list)
    known: list[Result] = field(default_factory=list)
    not_enforced: list[Result] = field(default_factory=list)
    #: Stale entries with the reason each is stale.
    stale: list[tuple[Entry, str]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Whether the run passes: no unexpected failure and no stale entry."""
        return not self.unexpected and not self.stale

    def count(self, status: str) -> int:
        return sum(1 for r in self.results if r.status == status)

    @property
    def to_add(self) -> list[str]:
        """Lines a known-failures file needs for this run to pass."""
        return [r.case.id for r in self.unexpected]

    @property
    def to_remove(self) -> list[str]:
        """Lines of the known-failures file this run shows to be stale."""
        return [e.pattern for e, _ in self.stale]


def assess(results: Sequence[Result], known: KnownFailures | None = None, *,
           enforced_levels: Collection[str] = ("required",),
           all_case_ids: Iterable[str] | None = None) -> Assessment:
    """Give every failed result its disposition and find the stale entries.

    ``all_case_ids`` are the ids of the whole suite (before any ``--case``
    selection): an entry matching none of them is stale.
    """
    known = known or KnownFailures()
    out = Assessment(list(results))
    for result in results:
        if result.status != FAILED:
            result.disposition = ""
            continue
        if known.match(result.case.id) is not None:
            result.disposition = "known"
            out.known.append(result)
        elif result.case.level not in enforced_levels:
            result.disposition = "not-enforced"
            out.not_enforced.append(result)
        else:
            result.disposition = "unexpected"
            out.unexpected.append(result)
    universe = list(all_case_ids) if all_case_ids is not None else [r.case.id for r in results]
    for entry in known.entries:
        if not any(entry.matches(i) for i in universe):
            out.stale.append((entry, "it matches no case of the suite"))
            continue
        ran = [r for r in results if r.status != SKIPPED and entry.matches(r.case.id)]
        if ran and not any(r.status == FAILED for r in ran):
            if len(ran) == 1:
                why = f"{ran[0].case.id} passes"
            else:
                why = f"all {len(ran)} cases it matches pass"
            out.stale.append((entry, why))
    return out
