"""The command line, end to end, against the fake testee: a testee that
crashes, hangs, writes a malformed frame or answers runtime_error fails the
case at hand, and the run goes on."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest
from conftest import DATA, fake_command

SUMMARY = re.compile(r"^(\d+) passed, (\d+) failed, (\d+) skipped$")
TOTAL = 96  # the cases of tests/data/vectors/v1


def counts(run) -> tuple[int, int, int]:
    match = SUMMARY.match(run.last_line)
    assert match, run.stdout
    return tuple(int(x) for x in match.groups())


def codec(run_cli, *options: str, testee: str | None = None):
    return run_cli("codec", "--testee", testee or fake_command(), "--vectors", str(DATA),
                   *options)


def test_a_perfect_testee_passes(run_cli, tmp_path):
    run = codec(run_cli, "--level", "recommended", "--junit", str(tmp_path / "j.xml"),
                "--report-json", str(tmp_path / "r.json"))
    assert run.status == 0, run.stdout + run.stderr
    assert run.last_line == f"{TOTAL} passed, 0 failed, 0 skipped"
    assert "CONFORMANCE PASSED" in run.stdout
    root = ET.parse(tmp_path / "j.xml").getroot()
    assert len(list(root.iter("testcase"))) == TOTAL
    report = json.loads((tmp_path / "r.json").read_text("utf-8"))
    assert report["summary"]["passed"] == TOTAL and report["passed"] is True


@pytest.mark.parametrize(
    ("option", "glob", "why"),
    [
        ("--crash", "Required.Utf8.NonAscii.JsonInput.MsgpackOutput", "(crash)"),
        ("--hang", "Required.Utf8.NonAscii.JsonInput.MsgpackOutput", "(timeout)"),
        ("--malformed", "Required.Utf8.NonAscii.JsonInput.MsgpackOutput", "(malformed-frame)"),
        ("--runtime-error", "Required.Utf8.NonAscii.JsonInput.MsgpackOutput", "runtime error"),
        ("--bad-response", "Required.Utf8.NonAscii.JsonInput.MsgpackOutput",
         "(invalid-response)"),
        ("--wrong", "Required.Utf8.NonAscii.JsonInput.MsgpackOutput", "differs"),
    ],
)
def test_a_misbehaving_case_fails_and_the_run_goes_on(run_cli, option, glob, why):
    run = codec(run_cli, "--timeout", "1", testee=fake_command(option, glob))
    assert run.status == 1
    assert counts(run) == (TOTAL - 1, 1, 0)
    assert f"FAIL {glob}" in run.stdout
    detail = run.stdout.split(f"FAIL {glob}", 1)[1]
    assert why in detail.split("FAIL ", 1)[0]
    assert f"Unexpected failures: add these lines to a known-failures file to accept them:\n" \
           f"  {glob}\n" in run.stdout


def test_several_faults_in_one_run(run_cli):
    testee = fake_command(
        "--crash", "Required.Timestamps.NanosecondPrecision.JsonInput.JsonOutput",
        "--hang", "Required.Enums.UnknownRole.MsgpackInput.Rejected",
        "--malformed", "Required.Extensions.*.ProtobufInput.JsonOutput",
        "--runtime-error", "Required.Float32Vectors.BitExact.MsgpackInput.Accepted")
    run = codec(run_cli, "--timeout", "1", testee=testee)
    assert run.status == 1
    # The hang fails both cases of the shared validate-only request.
    assert counts(run) == (TOTAL - 5, 5, 0)
    assert "the testee was restarted 3 times" in run.stdout


def test_a_frame_nobody_asked_for_is_caught(run_cli):
    glob = "Required.Timestamps.NanosecondPrecision.JsonInput.Accepted"
    run = codec(run_cli, testee=fake_command("--extra-frame", glob))
    assert run.status == 1
    passed, failed, skipped = counts(run)
    assert 1 <= failed <= 2 and passed + failed == TOTAL
    assert "the testee was restarted" in run.stdout


def test_crash_output_shows_stderr_when_verbose(run_cli):
    glob = "Required.Utf8.NonAscii.JsonInput.MsgpackOutput"
    run = codec(run_cli, "--verbose", testee=fake_command("--crash", glob))
    assert f"stderr| fake testee: crashing on {glob}" in run.stdout
    assert f"testee| fake testee: crashing on {glob}" in run.stderr


def test_a_testee_that_cannot_be_restarted(run_cli, tmp_path):
    marker = tmp_path / "dead"
    testee = fake_command("--crash", "Required.Timestamps.NanosecondPrecision.JsonInput.*",
                          "--die-after", str(marker))
    run = codec(run_cli, testee=testee)
    assert run.status == 1
    passed, failed, skipped = counts(run)
    assert failed > 3 and "not run: the testee could not be started again" in run.stdout


def test_unannounced_encodings_are_skipped(run_cli):
    run = codec(run_cli, testee=fake_command("--encodings", "json"))
    assert run.status == 0
    passed, failed, skipped = counts(run)
    assert failed == 0 and skipped > 0 and passed + skipped == TOTAL
    assert "JsonInput.JsonOutput" not in run.stdout  # skips are listed only when verbose
    verbose = codec(run_cli, "-v", testee=fake_command("--encodings", "json"))
    assert "MsgpackInput.Accepted: the testee does not announce the msgpack encoding" \
        in verbose.stdout


def test_unsupported_answers_are_skipped(run_cli):
    run = codec(run_cli, testee=fake_command("--unsupported", "*.Floats.*"))
    assert run.status == 0
    assert counts(run)[1:] == (0, 14)  # NaNImportance 2, ImportanceHalf 12


def test_recommended_failures_count_only_at_the_recommended_level(run_cli):
    # The ErrorReason case shares the request of the Rejected case: both fail.
    testee = fake_command("--wrong", "Required.Enums.UnknownRole.JsonInput.Rejected")
    run = codec(run_cli, testee=testee)
    assert counts(run) == (TOTAL - 2, 2, 0)
    assert run.status == 1  # the required Rejected case fails
    testee = fake_command("--wrong", "Recommended.Floats.ImportanceHalf.JsonInput.JsonOutput")
    relaxed = codec(run_cli, testee=testee)
    assert relaxed.status == 0 and counts(relaxed)[1] == 1
    assert "[recommended: not enforced at this level]" in relaxed.stdout
    assert codec(run_cli, "--level", "recommended", testee=testee).status == 1
    assert codec(run_cli, "--strict", testee=testee).status == 1


def test_known_failures_and_stale_entries(run_cli, tmp_path):
    glob = "Required.Utf8.NonAscii.JsonInput.MsgpackOutput"
    testee = fake_command("--crash", glob)
    known = tmp_path / "known.txt"
    known.write_text(f"# crashes\n{glob}  # see issue 12\n", "utf-8")
    run = codec(run_cli, "--known-failures", str(known), testee=testee)
    assert run.status == 0, run.stdout
    assert counts(run) == (TOTAL - 1, 1, 0)
    assert "[known failure]" in run.stdout
    # The same file against a testee that passes: the entry is stale.
    stale = codec(run_cli, "--known-failures", str(known))
    assert stale.status == 1
    assert counts(stale) == (TOTAL, 0, 0)
    assert f"Stale known failures: remove these lines from {known}:\n  {glob}" in stale.stdout
    # A glob covering it works too; one matching no case is stale.
    known.write_text("Required.Utf8.*\nRequired.NoSuchArea.*\n", "utf-8")
    globbed = codec(run_cli, "--known-failures", str(known), testee=testee)
    assert globbed.status == 1
    assert "  Required.NoSuchArea.*    (line 2: it matches no case of the suite)" in globbed.stdout


def test_case_selection(run_cli):
    run = codec(run_cli, "--case", "*.Enums.*", "*.Floats.NaN*")
    assert run.status == 0
    assert counts(run) == (4 + 2, 0, 0)
    none = codec(run_cli, "--case", "Nothing.*")
    assert none.status == 2 and "no case matches" in none.stderr


def test_junit_and_json_reports_of_a_failing_run(run_cli, tmp_path):
    glob = "Required.Utf8.NonAscii.JsonInput.MsgpackOutput"
    run = codec(run_cli, "--junit", str(tmp_path / "j.xml"), "--report-json",
                str(tmp_path / "r.json"), testee=fake_command("--wrong", glob))
    assert run.status == 1
    root = ET.parse(tmp_path / "j.xml").getroot()
    failures = [c for c in root.iter("testcase") if c.find("failure") is not None]
    assert [(c.get("classname"), c.get("name")) for c in failures] == [
        ("Required.Utf8", "NonAscii.JsonInput.MsgpackOutput")]
    report = json.loads((tmp_path / "r.json").read_text("utf-8"))
    failed = [c for c in report["cases"] if c["status"] == "failed"]
    assert failed[0]["got"] == {"encoding": "msgpack", "length": 2, "hex": "7b7d"}


# Usage errors and the testee that cannot start: exit status 2.


def test_testee_cannot_start(run_cli):
    run = codec(run_cli, testee="/nonexistent/testee")
    assert run.status == 2 and "cannot start" in run.stderr


@pytest.mark.parametrize("option", ["--crash-at-start", "--no-handshake"])
def test_testee_without_handshake(run_cli, option):
    run = codec(run_cli, testee=fake_command(option))
    assert run.status == 2 and "the testee cannot be used" in run.stderr


@pytest.mark.parametrize(
    "argv",
    [[], ["codec"], ["codec", "--testee", "x", "--timeout", "0"],
     ["codec", "--testee", "x", "--level", "optional"], ["frobnicate"]],
)
def test_usage_errors(run_cli, argv):
    run = run_cli(*argv)
    assert run.status == 2
    assert "usage:" in run.stderr and run.stdout == ""


def test_bad_known_failures_file(run_cli, tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("not an id!\n", "utf-8")
    run = codec(run_cli, "--known-failures", str(bad))
    assert run.status == 2 and "bad.txt:1" in run.stderr


def test_vectors_not_found(run_cli, tmp_path):
    run = codec(run_cli, "--vectors", str(tmp_path))
    assert run.status == 2 and "the vectors cannot be used" in run.stderr


def test_help_goes_to_stdout(run_cli):
    run = run_cli("--help")
    assert run.status == 0 and "check-vectors" in run.stdout and "MEMORYWIRE" in run.stdout
    assert run_cli("codec", "--help").status == 0


def test_check_vectors(run_cli, tmp_path):
    run = run_cli("check-vectors", "--vectors", str(DATA))
    assert run.status == 0, run.stdout
    assert run.last_line.endswith("0 problems")
    spec = tmp_path / "spec"
    spec.mkdir()
    (spec / "core.md").write_text("# nothing\n", "utf-8")
    bad = run_cli("check-vectors", "--vectors", str(DATA), "--spec", str(spec))
    assert bad.status == 1 and "core.md has no section 3.8" in bad.stdout


def test_console_script_and_module(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "memorywire_conformance", "codec", "--testee", fake_command(),
         "--vectors", str(DATA), "--case", "*.Enums.*"],
        capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "4 passed, 0 failed, 0 skipped"


def test_the_runner_does_not_import_memorywire():
    code = ("import sys, memorywire_conformance.cli, memorywire_conformance.runner, "
            "memorywire_conformance.report, memorywire_conformance.failures, "
            "memorywire_conformance.vectors, memorywire_conformance.protocol; "
            "assert not [m for m in sys.modules if m == 'memorywire' "
            "or m.startswith('memorywire.')], 'memorywire imported'")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 0, done.stderr
