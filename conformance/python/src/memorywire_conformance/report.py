"""Reports of a run: the human summary, the JSON report and JUnit XML.

The human summary groups the failed cases by the first spec section each
cites (documents in name order, sections in numeric order) and shows, for
each, the case id, its sections, what went wrong, the expected and received
values (JSON as text, MessagePack and Protobuf as hex) and the end of the
testee's stderr when it crashed. It ends with the lines a known-failures file
needs added or removed, the verdict and, last, the line
``N passed, N failed, N skipped``. A run in which no case ran (every selected
case was skipped) says so in a warning, and its verdict is
``CONFORMANCE NOT TESTED``.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import IO, Any

from memorywire_conformance.cases import FAILED, PASSED, SKIPPED, Result, Shown
from memorywire_conformance.failures import Assessment
from memorywire_conformance.protocol import Handshake

__all__ = [
    "RunInfo",
    "count_of",
    "human_summary",
    "json_report",
    "junit_xml",
    "no_case_ran",
    "render",
    "section_key",
    "summary_line",
]

#: The longest rendering of one value in the human summary.
MAX_SHOWN_CHARS = 2000
#: The longest rendering of one value in the JSON and JUnit reports.
MAX_REPORTED_CHARS = 65536
#: The heading of the failures of cases that cite no section.
NO_SECTION = "(no section)"
#: The lines of a crashed testee's stderr the summary shows (all of them with --verbose).
STDERR_LINES = 5


@dataclass
class RunInfo:
    """What the reports say about the run besides its results."""

    suite: str
    runner: str
    testee_command: str
    handshake: Handshake | None
    vectors: str
    level: str
    started: str = ""
    duration: float = 0.0
    restarts: int = 0
    selection: list[str] = field(default_factory=list)
    known_failures: str = ""
    #: Warnings about the run as a whole, e.g. why no case ran.
    warnings: list[str] = field(default_factory=list)


def summary_line(results: list[Result]) -> str:
    """``N passed, N failed, N skipped``."""
    counts = {s: 0 for s in (PASSED, FAILED, SKIPPED)}
    for r in results:
        counts[r.status] += 1
    return f"{counts[PASSED]} passed, {counts[FAILED]} failed, {counts[SKIPPED]} skipped"


def no_case_ran(results: Sequence[Result]) -> bool:
    """Whether no case passed or failed: every one was skipped (or there was none)."""
    return all(r.status == SKIPPED for r in results)


def count_of(count: int, noun: str) -> str:
    """``1 failure``, ``2 failures``: a count and its noun, singular or plural."""
    return f"{count} {noun if count == 1 else noun + 's'}"


def _times(count: int) -> str:
    return "once" if count == 1 else f"{count} times"


_SECTION_NUMBER = re.compile(r"^\d+(?:\.\d+)*$")


def section_key(section: str) -> tuple[str, int, tuple[int, ...], str]:
    """Sorts spec sections by document, then by section number (``core.md#3.2``
    before ``core.md#3.10`` before ``core.md#11``); a document without a
    fragment first, fragments that are not numbers after the numbers."""
    document, _, fragment = section.partition("#")
    if not fragment:
        return (document, 0, (), "")
    if _SECTION_NUMBER.match(fragment):
        return (document, 1, tuple(int(n) for n in fragment.split(".")), "")
    return (document, 2, (), fragment)


# Values.


def _hex(data: bytes) -> str:
    return " ".join(data[i:i + 16].hex(" ") for i in range(0, len(data), 16))


def render(shown: Shown | None, limit: int = MAX_SHOWN_CHARS) -> str:
    """A value as one block of text: JSON as text, other bytes as hex."""
    if shown is None:
        return "-"
    if shown.data is None:
        text = shown.text
    elif shown.encoding == "json":
        try:
            text = shown.data.decode("utf-8")
        except UnicodeDecodeError:
            text = "(not UTF-8) hex " + _hex(shown.data)
    else:
        text = f"hex ({len(shown.data)} bytes) {_hex(shown.data)}"
    if len(text) > limit:
        text = text[:limit] + f"... ({len(text) - limit} more characters)"
    return text


def _shown_json(shown: Shown | None) -> dict[str, Any] | None:
    if shown is None:
        return None
    if shown.data is None:
        return {"text": shown.text}
    out: dict[str, Any] = {"encoding": shown.encoding, "length": len(shown.data)}
    data = shown.data[:MAX_REPORTED_CHARS // 2]
    if shown.encoding == "json":
        try:
            out["text"] = shown.data.decode("utf-8")[:MAX_REPORTED_CHARS]
        except UnicodeDecodeError:
            out["hex"] = data.hex()
    else:
        out["hex"] = data.hex()
    if len(shown.data) > len(data):
        out["truncated"] = True
    return out


# The human summary.


def _mark(result: Result) -> str:
    return {"known": "  [known failure]",
            "not-enforced": "  [recommended: not enforced at this level]"}.get(
        result.disposition, "")


def _indent(text: str, prefix: str) -> str:
    return "\n".join(prefix + line for line in text.splitlines() or [""])


def human_summary(info: RunInfo, assessment: Assessment, out: IO[str], *,
                  verbose: bool = False) -> None:
    """Write the human summary; the last line is the summary line."""
    results = assessment.results
    hs = info.handshake
    if hs is not None:
        print(f"testee: {hs.name} {hs.version} ({hs.language}); encodings "
              f"{', '.join(hs.encodings)}; spec versions {', '.join(hs.specversions)}", file=out)
    print(f"suite: {info.suite}; vectors: {info.vectors}; level: {info.level}", file=out)
    failed = [r for r in results if r.status == FAILED]
    # Details for every unexpected failure; known and not enforced ones in
    # detail only when verbose.
    detailed = [r for r in failed if verbose or r.disposition == "unexpected"]
    if detailed:
        groups: dict[str, list[Result]] = {}
        for r in detailed:
            groups.setdefault(r.case.spec[0] if r.case.spec else NO_SECTION, []).append(r)
        print("", file=out)
        print("Failures by spec section", file=out)
        for section in sorted(groups, key=lambda s: (s == NO_SECTION, section_key(s))):
            print("", file=out)
            print(f"== {section}", file=out)
            for r in groups[section]:
                print(f"FAIL {r.case.id}{_mark(r)}", file=out)
                if len(r.case.spec) > 1:
                    print(f"  spec: {', '.join(r.case.spec)}", file=out)
                if r.case.description:
                    print(f"  case: {r.case.description}", file=out)
                print(_indent(r.message, "  why: ").replace("\n  why: ", "\n       "), file=out)
                if r.expected is not None or r.got is not None:
                    print(_indent(render(r.expected), "  expected: "), file=out)
                    print(_indent(render(r.got), "  got:      "), file=out)
                if r.stderr:
                    print(_indent(_stderr_tail(r.stderr, verbose), "  stderr| "), file=out)
    brief = [r for r in failed if r not in detailed]
    if brief:
        print("", file=out)
        print("Failures not counted against the run", file=out)
        for r in brief:
            print(f"  {r.case.id}{_mark(r)}", file=out)
    if verbose:
        skipped = [r for r in results if r.status == SKIPPED]
        if skipped:
            print("", file=out)
            print("Skipped", file=out)
            for r in skipped:
                print(f"  {r.case.id}: {r.message}", file=out)
    if assessment.to_add:
        print("", file=out)
        print("Unexpected failures: add these lines to a known-failures file to accept them:",
              file=out)
        for line in assessment.to_add:
            print(f"  {line}", file=out)
    if assessment.stale:
        print("", file=out)
        print(f"Stale known failures: remove these lines from "
              f"{info.known_failures or 'the known-failures file'}:", file=out)
        for entry, why in assessment.stale:
            print(f"  {entry.pattern}    (line {entry.line}: {why})", file=out)
    print("", file=out)
    nothing = no_case_ran(results)
    for warning in _warnings(info, results):
        print(f"warning: {warning}", file=out)
    print(f"{count_of(len(assessment.unexpected), 'unexpected failure')}, "
          f"{count_of(len(assessment.known), 'known failure')}, "
          f"{count_of(len(assessment.not_enforced), 'recommended failure')} not enforced, "
          f"{count_of(len(assessment.stale), 'stale known failure')}; {info.duration:.1f} s"
          + (f"; the testee was restarted {_times(info.restarts)}" if info.restarts else ""),
          file=out)
    verdict = "NOT TESTED" if nothing else "PASSED" if assessment.ok else "FAILED"
    print(f"CONFORMANCE {verdict}", file=out)
    print(summary_line(results), file=out)


def _warnings(info: RunInfo, results: Sequence[Result]) -> list[str]:
    """The run's warnings; one that no case ran, if none says so already."""
    warnings = list(info.warnings)
    if no_case_ran(results) and not any(w.startswith("no case ran") for w in warnings):
        warnings.append("no case ran: every selected case was skipped")
    return warnings


def _stderr_tail(stderr: str, verbose: bool) -> str:
    """The end of a testee's stderr as the summary shows it."""
    lines = stderr.splitlines()
    if verbose or len(lines) <= STDERR_LINES:
        return stderr
    hidden = len(lines) - STDERR_LINES
    return "\n".join([f"({count_of(hidden, 'earlier line')}; --verbose shows them)",
                      *lines[-STDERR_LINES:]])


# JSON.


def json_report(info: RunInfo, assessment: Assessment) -> dict[str, Any]:
    """The run as a JSON document."""
    results = assessment.results
    hs = info.handshake
    return {
        "report": "memorywire-conformance",
        "format": 1,
        "runner": info.runner,
        "suite": info.suite,
        "level": info.level,
        "started": info.started,
        "duration_seconds": round(info.duration, 3),
        "vectors": info.vectors,
        "testee": {"command": info.testee_command,
                   "handshake": dict(hs.raw) if hs is not None else None,
                   "restarts": info.restarts},
        "selection": info.selection,
        "passed": assessment.ok and not no_case_ran(results),
        "warnings": _warnings(info, results),
        "summary": {
            "passed": assessment.count(PASSED),
            "failed": assessment.count(FAILED),
            "skipped": assessment.count(SKIPPED),
            "unexpected_failures": len(assessment.unexpected),
            "known_failures": len(assessment.known),
            "not_enforced": len(assessment.not_enforced),
            "stale_known_failures": len(assessment.stale),
        },
        "known_failures": {
            "file": info.known_failures or None,
            "add": assessment.to_add,
            "remove": [{"pattern": e.pattern, "line": e.line, "why": why}
                       for e, why in assessment.stale],
        },
        "cases": [
            {
                "id": r.case.id,
                "level": r.case.level,
                "area": r.case.area,
                "name": r.case.name,
                "spec": list(r.case.spec),
                "status": r.status,
                **({"disposition": r.disposition} if r.disposition else {}),
                **({"message": r.message} if r.message else {}),
                **({"expected": _shown_json(r.expected)} if r.status == FAILED else {}),
                **({"got": _shown_json(r.got)} if r.status == FAILED else {}),
                **({"stderr": r.stderr} if r.status == FAILED and r.stderr else {}),
                "duration_seconds": round(r.duration, 6),
            }
            for r in results
        ],
    }


# JUnit XML.

_NOT_XML = re.compile("[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _xml_text(text: str) -> str:
    """Text with the characters XML 1.0 cannot hold escaped as \\uXXXX."""
    return _NOT_XML.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def junit_xml(info: RunInfo, assessment: Assessment) -> bytes:
    """The run as JUnit XML: one testcase per case, classname ``Level.Area``.

    Unexpected failures are ``failure`` elements; known failures and
    recommended failures not enforced are ``skipped`` elements of type
    ``known`` and ``not-enforced``, like an expected failure; each
    stale known-failures entry is a failed testcase of class ``KnownFailures``.
    """
    results = assessment.results
    failures = len(assessment.unexpected) + len(assessment.stale)
    skipped = sum(1 for r in results if r.status == SKIPPED or r.disposition in
                  ("known", "not-enforced"))
    tests = len(results) + len(assessment.stale)
    attrs = {"name": f"memorywire-conformance.{info.suite}", "tests": str(tests),
             "failures": str(failures), "errors": "0", "skipped": str(skipped),
             "time": f"{info.duration:.3f}"}
    root = ET.Element("testsuites", attrs)
    suite = ET.SubElement(root, "testsuite", {**attrs, "timestamp": info.started})
    props = ET.SubElement(suite, "properties")
    hs = info.handshake
    for name, value in (("runner", info.runner), ("testee.command", info.testee_command),
                        ("testee.name", hs.name if hs else ""),
                        ("testee.version", hs.version if hs else ""),
                        ("vectors", info.vectors), ("level", info.level)):
        ET.SubElement(props, "property", {"name": name, "value": _xml_text(value)})
    for r in results:
        case = ET.SubElement(suite, "testcase", {"classname": r.case.classname,
                                                 "name": r.case.testname,
                                                 "time": f"{r.duration:.6f}"})
        if r.status == SKIPPED:
            ET.SubElement(case, "skipped", {"message": _xml_text(r.message)})
        elif r.status == FAILED:
            detail = _xml_text(_detail(r))
            first = _xml_text(r.message.splitlines()[0] if r.message else "failed")
            if r.disposition == "unexpected":
                element = ET.SubElement(case, "failure", {"message": first, "type": "failure"})
            else:
                element = ET.SubElement(case, "skipped", {"message": first,
                                                          "type": r.disposition})
            element.text = detail
    for entry, why in assessment.stale:
        case = ET.SubElement(suite, "testcase", {"classname": "KnownFailures",
                                                 "name": entry.pattern, "time": "0"})
        failure = ET.SubElement(case, "failure", {
            "message": _xml_text(f"stale known-failures entry: {why}"),
            "type": "stale-known-failure"})
        failure.text = _xml_text(f"line {entry.line}: {entry}\n{why}")
    ET.indent(root)
    return bytes(ET.tostring(root, encoding="utf-8", xml_declaration=True)) + b"\n"


def _detail(r: Result) -> str:
    lines = [f"case: {r.case.id}", f"spec: {', '.join(r.case.spec)}", f"why: {r.message}"]
    if r.expected is not None:
        lines.append("expected: " + render(r.expected, MAX_REPORTED_CHARS))
    if r.got is not None:
        lines.append("got: " + render(r.got, MAX_REPORTED_CHARS))
    if r.stderr:
        lines.append("testee stderr:\n" + r.stderr)
    return "\n".join(lines)


def write_json(path: str, document: Mapping[str, Any]) -> None:
    with open(path, "w", encoding="utf-8") as f:
        json.dump(document, f, ensure_ascii=False, indent=2)
        f.write("\n")
