"""The human summary, the JSON report and JUnit XML."""

from __future__ import annotations

import io
import json
import xml.etree.ElementTree as ET

from memorywire_conformance.cases import FAILED, PASSED, SKIPPED, Case, Result, Shown
from memorywire_conformance.failures import KnownFailures, assess
from memorywire_conformance.protocol import Handshake
from memorywire_conformance.report import (
    RunInfo,
    human_summary,
    json_report,
    junit_xml,
    render,
    summary_line,
)


def case(case_id: str, spec: tuple[str, ...]) -> Case:
    level = "recommended" if case_id.startswith("Recommended.") else "required"
    return Case(id=case_id, suite="codec", level=level, area=case_id.split(".")[1],
                name=case_id.split(".")[2], spec=spec, description="a case")


HANDSHAKE = Handshake.from_frame({"type": "handshake", "name": "t", "version": "1",
                                  "language": "c", "protocol": 1, "specversions": ["1.0"],
                                  "encodings": ["json", "msgpack"]})


def sample():
    results = [
        Result(case("Required.Strings.Ok.JsonInput.JsonOutput", ("json-format.md#3.1",)),
               PASSED, duration=0.001),
        Result(case("Required.Strings.Ctrl.JsonInput.JsonOutput",
                    ("json-format.md#3.1", "core.md#3.1")), FAILED,
               "the output differs at byte 9",
               Shown(data=b'{"a":"\\u0001"}', encoding="json"),
               Shown(data=b'{"a":"\x01\x00"}', encoding="json")),
        Result(case("Required.Bytes.Bin.MsgpackInput.MsgpackOutput", ("msgpack-format.md#3.5",)),
               FAILED, "differs", Shown(data=bytes(range(20)), encoding="msgpack"),
               Shown(data=b"\x81\xa1a\xc0", encoding="msgpack"), stderr="trace\x1b[0m"),
        Result(case("Recommended.Enums.Role.JsonInput.ErrorReason", ("core.md#3.9",)), FAILED,
               "reason X instead of UNKNOWN_ENUM_VALUE", Shown("invalid UNKNOWN_ENUM_VALUE"),
               Shown("invalid X")),
        Result(case("Required.Enums.Role.ProtobufInput.Rejected", ("core.md#3.9",)), SKIPPED,
               "the testee does not announce the protobuf encoding"),
        Result(case("Required.Known.Case.JsonInput.Accepted", ("core.md#4",)), FAILED, "known",
               Shown("valid"), Shown("invalid SYNTAX_ERROR")),
    ]
    known = KnownFailures.parse("Required.Known.*  # upstream bug\nRequired.Gone.*\n")
    ids = [r.case.id for r in results]
    assessment = assess(results, known, all_case_ids=ids)
    info = RunInfo(suite="codec", runner="memorywire-conformance test", testee_command="t --x",
                   handshake=HANDSHAKE, vectors="/v", level="required",
                   started="2026-01-01T00:00:00Z", duration=1.5, known_failures="kf.txt")
    return info, assessment


def test_summary_line():
    info, assessment = sample()
    assert summary_line(assessment.results) == "1 passed, 4 failed, 1 skipped"


def test_human_summary_groups_by_section_and_ends_with_the_summary_line():
    info, assessment = sample()
    out = io.StringIO()
    human_summary(info, assessment, out)
    text = out.getvalue()
    assert text.splitlines()[-1] == "1 passed, 4 failed, 1 skipped"
    assert "== json-format.md#3.1\nFAIL Required.Strings.Ctrl.JsonInput.JsonOutput" in text
    assert "== msgpack-format.md#3.5\nFAIL Required.Bytes.Bin.MsgpackInput.MsgpackOutput" in text
    assert "spec: json-format.md#3.1, core.md#3.1" in text
    assert "expected: hex (20 bytes) 00 01 02 03" in text
    assert "got:      hex (4 bytes) 81 a1 61 c0" in text
    assert 'expected: {"a":"\\u0001"}' in text
    # Known and not-enforced failures are listed, not detailed.
    assert "Required.Known.Case.JsonInput.Accepted  [known failure]" in text
    assert "Recommended.Enums.Role.JsonInput.ErrorReason  [recommended: not enforced" in text
    assert "remove these lines from kf.txt:\n  Required.Gone.*" in text
    assert "add these lines to a known-failures file" in text
    assert "CONFORMANCE FAILED" in text


def test_render():
    assert render(None) == "-"
    assert render(Shown("valid")) == "valid"
    assert render(Shown(data=b"\xff", encoding="json")) == "(not UTF-8) hex ff"
    assert render(Shown(data=b"x" * 5000, encoding="json"), 100).endswith("(4900 more characters)")


def test_json_report():
    info, assessment = sample()
    doc = json.loads(json.dumps(json_report(info, assessment)))
    assert doc["summary"] == {"passed": 1, "failed": 4, "skipped": 1, "unexpected_failures": 2,
                              "known_failures": 1, "not_enforced": 1, "stale_known_failures": 1}
    assert doc["passed"] is False
    assert doc["testee"]["handshake"]["name"] == "t"
    failed = {c["id"]: c for c in doc["cases"] if c["status"] == "failed"}
    bin_case = failed["Required.Bytes.Bin.MsgpackInput.MsgpackOutput"]
    assert bin_case["expected"] == {"encoding": "msgpack", "length": 20,
                                    "hex": bytes(range(20)).hex()}
    assert bin_case["disposition"] == "unexpected"
    assert doc["known_failures"]["remove"][0]["pattern"] == "Required.Gone.*"


def test_junit_xml_is_well_formed():
    info, assessment = sample()
    data = junit_xml(info, assessment)
    root = ET.fromstring(data)
    assert root.tag == "testsuites"
    suite = root.find("testsuite")
    cases = suite.findall("testcase")
    # One testcase per case, plus one per stale entry.
    assert len(cases) == 7
    assert (suite.get("tests"), suite.get("failures"), suite.get("skipped")) == ("7", "3", "3")
    by_name = {(c.get("classname"), c.get("name")): c for c in cases}
    ctrl = by_name[("Required.Strings", "Ctrl.JsonInput.JsonOutput")]
    failure = ctrl.find("failure")
    assert failure is not None and "\\u0001" in failure.text  # control characters escaped
    assert by_name[("Required.Strings", "Ok.JsonInput.JsonOutput")].find("failure") is None
    known = by_name[("Required.Known", "Case.JsonInput.Accepted")].find("skipped")
    assert known.get("type") == "known"
    not_enforced = by_name[("Recommended.Enums", "Role.JsonInput.ErrorReason")].find("skipped")
    assert not_enforced.get("type") == "not-enforced"
    stale = by_name[("KnownFailures", "Required.Gone.*")].find("failure")
    assert stale.get("type") == "stale-known-failure"
    assert "\\u001b" in by_name[("Required.Bytes", "Bin.MsgpackInput.MsgpackOutput")] \
        .find("failure").text


def summary_of(results, **info_options) -> str:
    assessment = assess(results, all_case_ids=[r.case.id for r in results])
    info = RunInfo(suite="codec", runner="r", testee_command="t", handshake=HANDSHAKE,
                   vectors="/v", level="required", **info_options)
    out = io.StringIO()
    human_summary(info, assessment, out)
    return out.getvalue()


def test_sections_are_sorted_by_document_then_by_number():
    sections = ["core.md#11", "json-format.md#2", "core.md#3.10", "core.md#3.1",
                "core.md#3.2", "core.md", "core.md#appendix", "core.md#3.1.2"]
    results = [Result(case(f"Required.Area.Case{i}.JsonInput.Accepted", (section,)), FAILED,
                      "why") for i, section in enumerate(sections)]
    text = summary_of(results)
    headings = [line[3:] for line in text.splitlines() if line.startswith("== ")]
    assert headings == ["core.md", "core.md#3.1", "core.md#3.1.2", "core.md#3.2",
                        "core.md#3.10", "core.md#11", "core.md#appendix", "json-format.md#2"]


def failures(n: int) -> list[Result]:
    return [Result(case(f"Required.Area.Case{i}.JsonInput.Accepted", ("core.md#1",)), FAILED,
                   "why") for i in range(n)]


def test_counts_are_pluralised():
    one = summary_of(failures(1), restarts=1)
    assert "1 unexpected failure, 0 known failures, 0 recommended failures not enforced, " \
           "0 stale known failures" in one
    assert "the testee was restarted once" in one
    two = summary_of(failures(2), restarts=2)
    assert "2 unexpected failures" in two and "the testee was restarted 2 times" in two
    assert "restarted" not in summary_of(failures(1))


def test_the_stderr_tail_of_a_failure():
    lines = [f"line {i}" for i in range(1, 21)]
    results = [Result(case("Required.Area.Crash.JsonInput.Accepted", ("core.md#1",)), FAILED,
                      "testee failure (crash): gone", stderr="\n".join(lines))]
    text = summary_of(results)
    shown = [line for line in text.splitlines() if line.startswith("  stderr| ")]
    assert shown[-1] == "  stderr| line 20"
    assert "  stderr| line 1" not in shown
    assert len(shown) <= 6 and "--verbose" in shown[0]
    doc = json_report(RunInfo(suite="codec", runner="r", testee_command="t", handshake=None,
                              vectors="/v", level="required"),
                      assess(results, all_case_ids=[r.case.id for r in results]))
    assert doc["cases"][0]["stderr"] == "\n".join(lines)


def test_json_report_of_a_run_in_which_no_case_ran():
    results = [Result(case("Required.Area.A.JsonInput.Accepted", ("core.md#1",)), SKIPPED,
                      "the testee does not announce the json encoding")]
    assessment = assess(results, all_case_ids=[r.case.id for r in results])
    info = RunInfo(suite="codec", runner="r", testee_command="t", handshake=HANDSHAKE,
                   vectors="/v", level="required")
    doc = json_report(info, assessment)
    assert doc["passed"] is False
    text = summary_of(results)
    assert "CONFORMANCE PASSED" not in text and "no case ran" in text
    assert text.splitlines()[-1] == "0 passed, 0 failed, 1 skipped"
