"""Spec coverage: which codec cases and service scenarios test each requirement.

The traceability file (``conformance/traceability/requirements.json``, checked
by ``requirements.schema.json`` beside it) maps every requirement id of spec/v1
(:mod:`memorywire_conformance.requirements`) to

* the vectors (``Area.Name``; each vector makes several codec cases) and the
  service scenarios (their ids) that test it, with the ``basis`` of the link:
  ``reviewed`` (each listed test was read and exercises the rule), ``matched``
  (found automatically: the test cites the requirement's section and expects
  an error reason the sentence names, at the field the sentence is about) or
  ``section`` (the test only cites the requirement's section; unreviewed);
* or, when nothing tests it, ``untested``: why (``outside``: no case can
  observe it from outside an implementation; ``reference-tests``: the
  reference implementation's own tests check it, named in ``tests``;
  ``restates``: the rule is the one of the requirements named in ``ids``;
  ``gap``: a case could test it and none does yet) and a sentence saying so.

Removed requirements are listed under ``retired`` so that their ids are never
given again. One file rather than a field in every vector and scenario: the
reasons need a home anyway, a requirement's whole trace reads in one place,
and the vectors, generated files that several people edit, stay untouched.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from jsonschema import Draft202012Validator

from memorywire_conformance.requirements import (
    DOCUMENTS,
    KEYWORDS,
    Requirement,
    SpecRequirements,
    assign_ids,
    read_spec,
)
from memorywire_conformance.vectors import Vector

__all__ = [
    "BASES",
    "TRACEABILITY_FILE",
    "UNTESTED",
    "Coverage",
    "Trace",
    "TraceError",
    "Untested",
    "find_traceability_file",
    "load_traceability",
    "measure",
    "seed",
    "tag_and_seed",
]

#: Where the traceability file lives, relative to the vector directory.
TRACEABILITY_FILE = Path("..", "..", "traceability", "requirements.json")
SCHEMA_NAME = "requirements.schema.json"
#: The bases of a link between a requirement and its tests, strongest first.
BASES = ("reviewed", "matched", "section")
#: Why a requirement has no test.
UNTESTED = ("outside", "reference-tests", "restates", "gap")
#: An error reason token in code font.
_REASON = re.compile(r"`([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|[A-Z]{4,})`")


class TraceError(Exception):
    """The traceability file cannot be read or breaks its schema."""


@dataclass(frozen=True)
class Untested:
    why: str
    text: str
    tests: tuple[str, ...] = ()
    ids: tuple[str, ...] = ()


@dataclass(frozen=True)
class Trace:
    """The entry of one requirement in the traceability file."""

    vectors: tuple[str, ...] = ()
    scenarios: tuple[str, ...] = ()
    basis: str | None = None
    untested: Untested | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.vectors:
            out["vectors"] = list(self.vectors)
        if self.scenarios:
            out["scenarios"] = list(self.scenarios)
        if self.basis:
            out["basis"] = self.basis
        if self.untested:
            reason: dict[str, Any] = {"why": self.untested.why, "text": self.untested.text}
            if self.untested.tests:
                reason["tests"] = list(self.untested.tests)
            if self.untested.ids:
                reason["ids"] = list(self.untested.ids)
            out["untested"] = reason
        return out


@dataclass
class Traceability:
    path: Path
    traces: dict[str, Trace]
    retired: dict[str, str]
    #: The members of the file other than the two maps, kept when it is rewritten.
    header: dict[str, Any] = field(default_factory=dict)

    def write(self) -> None:
        document = dict(self.header)
        document["requirements"] = {rid: self.traces[rid].to_json()
                                    for rid in sorted(self.traces, key=_id_order)}
        document["retired"] = dict(sorted(self.retired.items(), key=lambda i: _id_order(i[0])))
        self.path.write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n", "utf-8")


def _id_order(rid: str) -> tuple[int, int, str]:
    prefix, _, number = rid[2:].rpartition("-")
    order = list(DOCUMENTS.values())
    return (order.index(prefix) if prefix in order else len(order),
            int(number) if number.isdigit() else 0, rid)


def find_traceability_file(vectors_dir: Path, explicit: str | None = None) -> Path:
    """``--traceability FILE``, else the file beside the vectors of a checkout."""
    if explicit:
        return Path(explicit)
    return (vectors_dir / TRACEABILITY_FILE).resolve()


def load_traceability(path: Path) -> Traceability:
    try:
        document = json.loads(path.read_text("utf-8"))
        schema = json.loads((path.parent / SCHEMA_NAME).read_text("utf-8"))
    except (OSError, ValueError) as e:
        raise TraceError(f"{path}: {e}") from None
    errors = sorted(Draft202012Validator(schema).iter_errors(document),
                    key=lambda e: list(e.absolute_path))
    if errors:
        raise TraceError("\n".join(
            f"{path}: /{'/'.join(str(p) for p in e.absolute_path)}: {e.message}"
            for e in errors))
    traces = {}
    for rid, entry in document["requirements"].items():
        reason = entry.get("untested")
        traces[rid] = Trace(
            vectors=tuple(entry.get("vectors", ())),
            scenarios=tuple(entry.get("scenarios", ())),
            basis=entry.get("basis"),
            untested=Untested(reason["why"], reason["text"], tuple(reason.get("tests", ())),
                              tuple(reason.get("ids", ()))) if reason else None)
    header = {k: v for k, v in document.items() if k not in ("requirements", "retired")}
    return Traceability(path, traces, dict(document.get("retired", {})), header)


# Seeding.


@dataclass(frozen=True)
class Catalog:
    """The tests a requirement can be linked to: vectors and scenarios."""

    vectors: Mapping[str, Vector]
    #: Scenario id -> the spec sections it cites.
    scenarios: Mapping[str, tuple[str, ...]]


def _reasons_named(requirement: Requirement) -> set[str]:
    """The error reasons a requirement names (``KIND_MISMATCH`` in code
    font), and REQUIRED_FIELD_MISSING for a REQUIRED constraint."""
    named = set(_REASON.findall(requirement.sentence.text))
    if "REQUIRED" in requirement.sentence.keywords:
        named.add("REQUIRED_FIELD_MISSING")
    return named


def _expected_errors(vector: Vector) -> list[tuple[str, str]]:
    errors = list(vector.conversion_errors.values())
    if vector.reason is not None:
        errors.append((vector.reason, vector.pointer or ""))
    return errors


def _field_of(heading: str) -> str:
    """The field a field heading names: "Transition.trigger" -> "trigger"."""
    return heading.rpartition(".")[2].split()[0] if heading else ""


def seed(requirement: Requirement, index: Catalog) -> Trace:
    """A first trace for a new requirement: the vectors that cite its section
    and expect an error reason it names at the field it is about (basis
    ``matched``), else every vector and scenario citing its section (basis
    ``section``), else nothing (a reason must be written)."""
    ref = requirement.ref
    citing = [key for key, v in index.vectors.items() if ref in v.spec]
    scenarios = tuple(sid for sid, spec in index.scenarios.items() if ref in spec)
    named = _reasons_named(requirement)
    name = _field_of(requirement.sentence.heading)
    matched = []
    for key in citing:
        for reason, pointer in _expected_errors(index.vectors[key]):
            last = pointer.rsplit("/", 1)[-1]
            if reason in named and (not name or last == name or f"/{name}/" in pointer
                                    or (reason == "REQUIRED_FIELD_MISSING" and not pointer)):
                matched.append(key)
                break
    if matched:
        return Trace(vectors=tuple(matched), basis="matched")
    if citing or scenarios:
        return Trace(vectors=tuple(citing), scenarios=scenarios, basis="section")
    return Trace()


def catalog(vectors: Iterable[Vector], scenarios: Iterable[tuple[str, tuple[str, ...]]]
               ) -> Catalog:
    return Catalog({f"{v.area}.{v.name}": v for v in vectors}, dict(scenarios))


def tag_and_seed(spec_dir: Path, traceability: Traceability, index: Catalog
                 ) -> list[Requirement]:
    """Give every untagged requirement an id and a seeded entry; the new ones."""
    added = assign_ids(spec_dir, taken=[*traceability.retired, *traceability.traces])
    for requirement in added:
        traceability.traces[requirement.id] = seed(requirement, index)
    traceability.write()
    return added


# Measuring.


@dataclass(frozen=True)
class Row:
    """One requirement of the report."""

    requirement: Requirement
    trace: Trace | None

    @property
    def status(self) -> str:
        """``tested`` (by cases or scenarios), ``untested`` (with a reason) or
        ``untraced``."""
        if self.trace is None:
            return "untraced"
        if self.trace.vectors or self.trace.scenarios:
            return "tested"
        return "untested" if self.trace.untested else "untraced"

    @property
    def category(self) -> str:
        """The status with its basis or reason: ``tested/reviewed``,
        ``untested/outside``, ``untraced``."""
        if self.status == "tested" and self.trace is not None:
            return f"tested/{self.trace.basis}"
        if self.status == "untested" and self.trace is not None and self.trace.untested:
            return f"untested/{self.trace.untested.why}"
        return "untraced"


CATEGORIES = (*(f"tested/{b}" for b in BASES), *(f"untested/{w}" for w in UNTESTED),
              "untraced")


@dataclass(frozen=True)
class Coverage:
    rows: tuple[Row, ...]
    #: Everything --check fails on.
    problems: tuple[str, ...]
    #: Vectors and scenarios that no requirement lists.
    untraced_tests: tuple[str, ...]

    def summary(self) -> dict[str, Any]:
        def count(rows: Iterable[Row]) -> dict[str, int]:
            counter = Counter(r.category for r in rows)
            return {c: counter[c] for c in CATEGORIES}

        return {
            "requirements": len(self.rows),
            "total": count(self.rows),
            "by_document": {d: count(r for r in self.rows if r.requirement.document == d)
                            for d in DOCUMENTS},
            "by_keyword": {k: count(r for r in self.rows
                                    if k in r.requirement.sentence.keywords)
                           for k in KEYWORDS},
        }

    def to_json(self) -> dict[str, Any]:
        return {
            "summary": self.summary(),
            "requirements": [_row_json(r) for r in self.rows],
            "problems": list(self.problems),
            "tests_tracing_no_requirement": list(self.untraced_tests),
        }


def _row_json(row: Row) -> dict[str, Any]:
    s = row.requirement.sentence
    out: dict[str, Any] = {"id": row.requirement.id, "document": s.document,
                           "section": s.section, "line": s.line, "keywords": list(s.keywords),
                           "text": s.text, "status": row.status, "category": row.category}
    trace = row.trace or Trace()
    out["vectors"] = list(trace.vectors)
    out["scenarios"] = list(trace.scenarios)
    out["basis"] = trace.basis
    out["untested"] = trace.to_json().get("untested")
    return out


def measure(spec: SpecRequirements, traceability: Traceability, index: Catalog,
            repo_root: Path | None) -> Coverage:
    """The report, and every problem: untagged requirements, ids without an
    entry or with neither tests nor a reason, entries of no requirement,
    unknown tests, retired ids in use, reference tests that do not exist."""
    problems = list(spec.problems)
    for sentence in spec.untagged:
        problems.append(f"{sentence.document}:{sentence.line}: a requirement without an id "
                        f"({', '.join(sentence.keywords)}): {_short(sentence.text)}")
    ids = spec.by_id()
    rows = []
    for requirement in spec.requirements:
        trace = traceability.traces.get(requirement.id)
        row = Row(requirement, trace)
        rows.append(row)
        where = f"{requirement.id} ({requirement.document}:{requirement.sentence.line})"
        if trace is None:
            problems.append(f"{where}: not in {traceability.path.name}")
        elif row.status == "untraced":
            problems.append(f"{where}: lists neither tests nor why it has none")
    for rid in traceability.retired:
        if rid in ids:
            problems.append(f"{rid}: retired, but the spec uses it again")
        if rid in traceability.traces:
            problems.append(f"{rid}: retired, but it has an entry in {traceability.path.name}")
    for rid, trace in traceability.traces.items():
        if rid not in ids and rid not in traceability.retired:
            problems.append(f"{rid}: in {traceability.path.name} but in no sentence of the "
                            "spec; list it under retired")
        for key in trace.vectors:
            if key not in index.vectors:
                problems.append(f"{rid}: no vector {key}")
        for sid in trace.scenarios:
            if sid not in index.scenarios:
                problems.append(f"{rid}: no scenario {sid}")
        if (trace.vectors or trace.scenarios) and trace.basis is None:
            problems.append(f"{rid}: lists tests without their basis")
        if trace.untested:
            for other in trace.untested.ids:
                if other not in ids:
                    problems.append(f"{rid}: restates {other}, which is no requirement")
            if trace.untested.why == "reference-tests" and not trace.untested.tests:
                problems.append(f"{rid}: names no reference test")
            if repo_root is not None and (repo_root / "python" / "tests").is_dir():
                problems.extend(f"{rid}: no reference test {test}"
                                for test in trace.untested.tests
                                if not _reference_test_exists(repo_root, test))
    listed = {t for trace in traceability.traces.values() for t in (*trace.vectors,
                                                                    *trace.scenarios)}
    untraced_tests = tuple(t for t in (*index.vectors, *index.scenarios) if t not in listed)
    return Coverage(tuple(rows), tuple(problems), untraced_tests)


def _reference_test_exists(repo_root: Path, test: str) -> bool:
    """``python/tests/test_x.py`` or ``python/tests/test_x.py::test_name``
    exists in the checkout."""
    path, _, name = test.partition("::")
    try:
        source = (repo_root / path).read_text("utf-8")
    except OSError:
        return False
    return not name or f"def {name}(" in source


def _short(text: str, limit: int = 100) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "…"


# Output.


def write_text(coverage: Coverage, out: IO[str], verbose: bool = False) -> None:
    """Every requirement with its tests or reason, then the summary."""
    for row in coverage.rows:
        r = row.requirement
        out.write(f"{r.id}  {r.ref}  {'/'.join(r.sentence.keywords)}  {row.category}\n")
        out.write(f"    {_short(r.sentence.text, 200 if verbose else 100)}\n")
        trace = row.trace
        if trace is None:
            continue
        limit = None if verbose else 8
        for label, tests in (("vectors", trace.vectors), ("scenarios", trace.scenarios)):
            if tests:
                shown = list(tests[:limit])
                more = f" (+{len(tests) - len(shown)} more)" if len(shown) < len(tests) else ""
                out.write(f"    {label}: {', '.join(shown)}{more}\n")
        if trace.untested:
            u = trace.untested
            extra = ""
            if u.tests:
                extra = f" [{', '.join(u.tests)}]"
            elif u.ids:
                extra = f" [{', '.join(u.ids)}]"
            out.write(f"    untested ({u.why}): {u.text}{extra}\n")
    write_summary(coverage, out)


#: The column labels of the summary table.
_LABELS = {"tested/reviewed": "reviewed", "tested/matched": "matched",
           "tested/section": "section", "untested/outside": "outside",
           "untested/reference-tests": "ref-tests", "untested/restates": "restates",
           "untested/gap": "gap", "untraced": "untraced"}


def write_summary(coverage: Coverage, out: IO[str]) -> None:
    """Counts by document and key word: tested (by basis), untested (by
    reason), untraced."""
    summary = coverage.summary()
    out.write(f"\n{summary['requirements']} requirements: tested by vectors or scenarios "
              "(reviewed, matched by error reason, or section citation only), untested "
              "(with the reason), untraced\n")
    out.write(f"{'':18}" + "".join(f"{_LABELS[c]:>10}" for c in CATEGORIES)
              + f"{'total':>8}\n")

    def line(label: str, counts: Mapping[str, int]) -> None:
        out.write(f"{label:18}" + "".join(f"{counts[c]:>10}" for c in CATEGORIES)
                  + f"{sum(counts.values()):>8}\n")

    for document, counts in summary["by_document"].items():
        line(document, counts)
    for keyword, counts in summary["by_keyword"].items():
        line(keyword, counts)
    line("all", summary["total"])
    out.write(f"{len(coverage.untraced_tests)} vectors and scenarios trace no requirement\n")
    for problem in coverage.problems:
        out.write(f"problem: {problem}\n")
    out.write(f"{len(coverage.problems)} problems\n")


def scenario_index() -> list[tuple[str, tuple[str, ...]]]:
    """The service scenarios and the sections they cite."""
    from memorywire_conformance.service import scenarios as _registered  # noqa: F401
    from memorywire_conformance.service.framework import SCENARIOS

    return [(s.id, s.spec) for s in SCENARIOS]


def load_all(spec_dir: Path, traceability_path: Path, vectors: Sequence[Vector]
             ) -> tuple[SpecRequirements, Traceability, Catalog]:
    return (read_spec(spec_dir), load_traceability(traceability_path),
            catalog(vectors, scenario_index()))
