"""Spec coverage: every requirement of spec/v1 has an id and is traced to the
vectors and scenarios that test it, or to why none does; a new requirement
without an id, or without a trace, fails the check."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from runner_support import REPO

from memorywire_conformance.requirements import (
    DOCUMENTS,
    assign_ids,
    parse_document,
    read_spec,
)

SPEC = REPO / "spec" / "v1"
VECTORS = REPO / "conformance" / "vectors" / "v1"
TRACEABILITY = REPO / "conformance" / "traceability"


def test_every_requirement_of_the_spec_is_traced(run_cli):
    run = run_cli("coverage", "--check")
    assert run.status == 0, "\n".join(line for line in run.stdout.splitlines()
                                      if line.startswith("problem:"))
    assert run.last_line == "0 problems"


def test_the_json_report_counts_every_requirement(run_cli):
    run = run_cli("coverage", "--json")
    assert run.status == 0, run.stderr
    report = json.loads(run.stdout)
    rows = report["requirements"]
    summary = report["summary"]
    assert summary["requirements"] == len(rows) == len(read_spec(SPEC).requirements)
    assert sum(summary["total"].values()) == len(rows)
    for document, counts in summary["by_document"].items():
        assert sum(counts.values()) == sum(1 for r in rows if r["document"] == document)
    assert summary["total"]["untraced"] == 0
    for row in rows:
        assert row["status"] in ("tested", "untested"), row
        if row["status"] == "tested":
            assert row["vectors"] or row["scenarios"]
        else:
            assert row["untested"]["text"]


def _copy_checkout(tmp_path: Path) -> tuple[Path, Path]:
    """A copy of spec/v1 and of the traceability folder; the paths of both."""
    spec = tmp_path / "spec" / "v1"
    shutil.copytree(SPEC, spec)
    traceability = tmp_path / "traceability"
    shutil.copytree(TRACEABILITY, traceability)
    # The reference tests that reasons name are looked up beside the spec.
    (tmp_path / "python").symlink_to(REPO / "python")
    return spec, traceability / "requirements.json"


def _coverage(run_cli, spec: Path, trace: Path, *options: str):
    return run_cli("coverage", "--vectors", str(VECTORS), "--spec", str(spec),
                   "--traceability", str(trace), *options)


NEW_RULE = "A reader MUST reject a record whose `id` is the word `forbidden`."


def _add_rule(spec: Path, text: str = NEW_RULE) -> None:
    core = spec / "core.md"
    content = core.read_text("utf-8")
    anchor = '### <a id="3.2"></a>3.2. Boolean\n'
    assert anchor in content
    core.write_text(content.replace(anchor, f"{text}\n\n{anchor}"), "utf-8")


def test_a_new_untagged_must_sentence_fails_the_check(run_cli, tmp_path):
    spec, trace = _copy_checkout(tmp_path)
    assert _coverage(run_cli, spec, trace, "--check").status == 0
    _add_rule(spec)
    run = _coverage(run_cli, spec, trace, "--check")
    assert run.status == 1
    problems = [line for line in run.stdout.splitlines() if line.startswith("problem:")]
    assert len(problems) == 1, problems
    assert "core.md:" in problems[0] and "a requirement without an id (MUST)" in problems[0]
    # Without --check the report is shown and the run succeeds.
    assert _coverage(run_cli, spec, trace).status == 0


def test_assign_ids_gives_the_next_free_id_and_a_trace_to_complete(run_cli, tmp_path):
    spec, trace = _copy_checkout(tmp_path)
    before = read_spec(spec)
    highest = max(int(r.id.rsplit("-", 1)[1]) for r in before.requirements
                  if r.id.startswith("R-CORE-"))
    data = json.loads(trace.read_text("utf-8"))
    retired = f"R-CORE-{highest + 1:03d}"
    data["retired"][retired] = "removed in a test"
    trace.write_text(json.dumps(data), "utf-8")
    _add_rule(spec)
    run = _coverage(run_cli, spec, trace, "--assign-ids", "--check")
    new_id = f"R-CORE-{highest + 2:03d}"
    assert new_id in run.stderr, run.stderr
    assert f'<a id="{new_id}"></a>{NEW_RULE}' in (spec / "core.md").read_text("utf-8")
    # No vector cites the section with this rule's reason; the seeded entry
    # lists the section's tests or nothing, and nothing fails the check.
    entry = json.loads(trace.read_text("utf-8"))["requirements"][new_id]
    assert entry.get("basis") in ("section", None)
    if entry:
        assert run.status == 0
    else:
        assert run.status == 1 and "lists neither tests nor why" in run.stdout
    # Every other id is unchanged.
    after = {r.id: r.sentence.text for r in read_spec(spec).requirements}
    assert {r.id: r.sentence.text for r in before.requirements}.items() <= after.items()


def test_a_requirement_without_a_trace_fails_the_check(run_cli, tmp_path):
    spec, trace = _copy_checkout(tmp_path)
    _add_rule(spec, "Readers MUST NOT accept `\u00a0` in an `id`.")
    assign_ids(spec)
    run = _coverage(run_cli, spec, trace, "--check")
    assert run.status == 1
    assert "not in requirements.json" in run.stdout


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (lambda d, rid: d["requirements"][rid].update(vectors=["Nowhere.Nothing"]),
         "no vector Nowhere.Nothing"),
        (lambda d, rid: d["requirements"][rid].update(
            scenarios=["Required.Service.Put.Nothing"]),
         "no scenario Required.Service.Put.Nothing"),
        (lambda d, rid: d["requirements"].__setitem__(rid, {
            "untested": {"why": "reference-tests", "text": "x",
                         "tests": ["python/tests/test_nothing.py"]}}),
         "no reference test python/tests/test_nothing.py"),
        (lambda d, rid: d["requirements"].__setitem__(rid, {
            "untested": {"why": "restates", "text": "x", "ids": ["R-CORE-999"]}}),
         "restates R-CORE-999"),
        (lambda d, rid: d["requirements"].__setitem__(rid, {}),
         "lists neither tests nor why"),
        (lambda d, rid: d["requirements"].__setitem__("R-CORE-998", {
            "untested": {"why": "gap", "text": "x"}}),
         "R-CORE-998: in requirements.json but in no sentence"),
        (lambda d, rid: d["retired"].__setitem__(rid, "gone"),
         "retired, but the spec uses it again"),
    ],
)
def test_a_wrong_traceability_entry_fails_the_check(run_cli, tmp_path, change, problem):
    spec, trace = _copy_checkout(tmp_path)
    data = json.loads(trace.read_text("utf-8"))
    change(data, "R-CORE-001")
    trace.write_text(json.dumps(data), "utf-8")
    run = _coverage(run_cli, spec, trace, "--check")
    assert run.status == 1
    assert problem in run.stdout, run.stdout[-2000:]


def test_a_traceability_file_that_breaks_its_schema_is_refused(run_cli, tmp_path):
    spec, trace = _copy_checkout(tmp_path)
    data = json.loads(trace.read_text("utf-8"))
    data["requirements"]["R-CORE-001"] = {"vectors": ["Records.Something"]}  # no basis
    trace.write_text(json.dumps(data), "utf-8")
    run = _coverage(run_cli, spec, trace)
    assert run.status == 2
    assert "basis" in run.stderr


def test_ids_that_are_doubled_or_on_no_requirement_are_problems(tmp_path):
    spec, _ = _copy_checkout(tmp_path)
    core = spec / "core.md"
    text = core.read_text("utf-8")
    first = read_spec(spec).requirements[0]
    second = read_spec(spec).requirements[1]
    # A second sentence tagged with an id already in use.
    text = text.replace(f'<a id="{second.id}"></a>', f'<a id="{first.id}"></a>', 1)
    core.write_text(text, "utf-8")
    problems = read_spec(spec).problems
    assert any(f"the id {first.id} is also used" in p for p in problems), problems
    # A requirement reworded to SHOULD keeps an id that now tags no requirement.
    again = core.read_text("utf-8")
    start = again.index(f'<a id="{first.id}"></a>')
    end = again.index("MUST", start)
    core.write_text(again[:end] + "SHOULD" + again[end + 4:], "utf-8")
    assert any("tags a sentence without a requirement key word" in p
               for p in read_spec(spec).problems)


def test_what_is_not_a_requirement():
    text = "\n".join([
        "# Title",
        "",
        "## Abstract",
        "",
        "The abstract mentions REQUIRED fields.",
        "",
        '## <a id="1"></a>1. Conformance',
        "",
        'The key words "MUST", "MUST NOT", "REQUIRED" in this document are to be',
        "interpreted as described in BCP 14.",
        "",
        '## <a id="2"></a>2. Notational Conventions',
        "",
        "Constraints name REQUIRED or OPTIONAL first.",
        "",
        '## <a id="3"></a>3. Rules',
        "",
        "A reader MUST reject it (`REQUIRED_FIELD_MISSING`), e.g. `x`. A writer",
        "SHOULD write `TENANT_REQUIRED`. Readers MUST NOT guess.",
        "",
        "Note (non-normative): a note MUST be ignored.",
        "",
        "Example (a record where `id` is REQUIRED):",
        "",
        "```json",
        '{"a": "MUST"}',
        "```",
        "",
        "#### field",
        "",
        "- Constraints:",
        "  - REQUIRED.",
        "  - length ..256; MUST match `^x$`.",
        "",
        "| Code | Meaning |",
        "| --- | --- |",
        "| 3 | A field MUST be set. |",
    ])
    sentences = parse_document("x.md", text)
    assert [(s.section, s.heading, s.keywords, s.text) for s in sentences] == [
        ("3", "", ("MUST",), "A reader MUST reject it (`REQUIRED_FIELD_MISSING`), e.g. `x`."),
        ("3", "", ("MUST NOT",), "Readers MUST NOT guess."),
        ("3", "field", ("REQUIRED",), "REQUIRED."),
        ("3", "field", ("MUST",), "length ..256; MUST match `^x$`."),
        ("3", "field", ("MUST",), "A field MUST be set."),
    ]
    # The id goes after a list marker and at the start of a table cell.
    starts = [text[s.start:s.start + 8] for s in sentences]
    assert starts == ["A reader", "Readers ", "REQUIRED", "length .", "A field "]


def test_every_normative_document_has_requirements():
    spec = read_spec(SPEC)
    assert not spec.untagged and not spec.problems
    assert {r.document for r in spec.requirements} == set(DOCUMENTS)


def test_coverage_does_not_import_memorywire():
    code = ("import io, sys\n"
            "from memorywire_conformance.cli import run\n"
            "out, err = io.StringIO(), io.StringIO()\n"
            f"status = run(['coverage', '--check', '--vectors', {str(VECTORS)!r}], out, err)\n"
            "assert status == 0, out.getvalue()[-2000:] + err.getvalue()\n"
            "assert not [m for m in sys.modules if m == 'memorywire' "
            "or m.startswith('memorywire.')], 'memorywire imported'\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr


def test_a_reader_that_stops_early_gets_no_traceback():
    # memorywire-conformance coverage | head -1
    with subprocess.Popen([sys.executable, "-m", "memorywire_conformance", "coverage"],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE) as process:
        assert process.stdout is not None and process.stderr is not None
        assert process.stdout.readline().startswith(b"R-CORE-001 ")
        process.stdout.close()
        error = process.stderr.read().decode()
        status = process.wait(timeout=120)
    assert "Traceback" not in error and "BrokenPipeError" not in error, error
    assert status == 1


def test_assigning_ids_to_a_tagged_spec_changes_nothing(tmp_path):
    spec, _ = _copy_checkout(tmp_path)
    def files() -> dict[str, bytes]:
        return {str(p.relative_to(spec)): p.read_bytes() for p in spec.rglob("*") if p.is_file()}

    before = files()
    assert assign_ids(spec) == []
    assert files() == before
