"""The command line, end to end, against the fake testee: a testee that
crashes, hangs, writes a malformed frame or answers runtime_error fails the
case at hand, and the run goes on."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest
from runner_support import DATA, fake_command

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
    # Long enough for a case on a loaded machine, a restarted testee included.
    run = codec(run_cli, "--timeout", "5", testee=fake_command(option, glob))
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
    run = codec(run_cli, "--timeout", "5", testee=testee)
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


# The handshake is checked against the protocol schema: a broken one is exit 2.

HANDSHAKE = {"type": "handshake", "name": "fake", "version": "0", "language": "python",
             "protocol": 1, "specversions": ["1.0"], "encodings": ["json"]}


@pytest.mark.parametrize(
    ("frame", "pointer"),
    [({k: v for k, v in HANDSHAKE.items() if k != "specversions"}, "/specversions"),
     ({**HANDSHAKE, "encodings": "json"}, "/encodings"),
     ({**HANDSHAKE, "encodings": ["json", "yaml"]}, "/encodings/1"),
     ({**HANDSHAKE, "colour": "blue"}, "/colour")],
)
def test_a_handshake_that_breaks_the_schema_is_exit_2(run_cli, frame, pointer):
    run = codec(run_cli, testee=fake_command("--handshake-json", json.dumps(frame)))
    assert run.status == 2, run.stdout + run.stderr
    assert run.stdout == ""
    assert "memorywire-conformance: the testee cannot be used: the handshake breaks the " \
           f"protocol: {pointer}: " in run.stderr
    assert "Traceback" not in run.stderr


# A run in which no case ran does not pass.


@pytest.mark.parametrize(
    ("testee_options", "options"),
    [(("--encodings", "protobuf"), ("--case", "*.JsonInput.*")),
     (("--unsupported", "*"), ())],
)
def test_a_run_in_which_every_case_is_skipped_is_exit_2(run_cli, tmp_path, testee_options,
                                                        options):
    report = tmp_path / "r.json"
    run = codec(run_cli, *options, "--report-json", str(report),
                testee=fake_command(*testee_options))
    assert run.status == 2, run.stdout + run.stderr
    passed, failed, skipped = counts(run)
    assert passed == failed == 0 and skipped > 0
    assert "CONFORMANCE PASSED" not in run.stdout
    assert "no case ran" in run.stdout and "memorywire-conformance: no case ran" in run.stderr
    assert json.loads(report.read_text("utf-8"))["passed"] is False


def test_no_case_ran_names_the_encodings(run_cli):
    run = codec(run_cli, "--case", "*.JsonInput.*", testee=fake_command("--encodings", "protobuf"))
    assert run.status == 2
    assert "the testee supports none of the encodings of the selected cases" in run.stderr


def test_a_run_with_one_case_that_ran_is_judged_as_usual(run_cli):
    run = codec(run_cli, "--case", "*.JsonInput.*", "*.ProtobufInput.ProtobufOutput",
                testee=fake_command("--encodings", "protobuf"))
    assert run.status == 0, run.stdout + run.stderr
    assert "CONFORMANCE PASSED" in run.stdout and "no case ran" not in run.stdout


# Text on the testee's stdout.


def test_a_testee_that_prints_to_stdout_gets_a_hint(run_cli):
    glob = "Required.Utf8.NonAscii.JsonInput.MsgpackOutput"
    run = codec(run_cli, testee=fake_command("--print", glob))
    assert run.status == 1
    assert counts(run) == (TOTAL - 1, 1, 0)
    assert "'hell'" in run.stdout and "1819043176" not in run.stdout
    assert "printed to standard output, which carries only frames" in run.stdout


# The stderr of a crashed testee, in every report.


def test_the_stderr_of_a_crash_is_in_the_summary_and_the_json_report(run_cli, tmp_path):
    glob = "Required.Utf8.NonAscii.JsonInput.MsgpackOutput"
    report = tmp_path / "r.json"
    run = codec(run_cli, "--report-json", str(report), testee=fake_command("--crash", glob))
    assert run.status == 1
    detail = run.stdout.split(f"FAIL {glob}", 1)[1]
    assert f"  stderr| fake testee: crashing on {glob}" in detail
    cases = json.loads(report.read_text("utf-8"))["cases"]
    crashed = next(c for c in cases if c["id"] == glob)
    assert f"fake testee: crashing on {glob}" in crashed["stderr"]
    assert all("stderr" not in c for c in cases if c["id"] != glob)


# Wording.


def test_one_restart_is_once(run_cli):
    glob = "Required.Utf8.NonAscii.JsonInput.MsgpackOutput"
    run = codec(run_cli, testee=fake_command("--crash", glob))
    assert "1 unexpected failure, 0 known failures" in run.stdout
    assert "the testee was restarted once" in run.stdout


def test_check_vectors_counts_one_problem(run_cli, tmp_path):
    spec = tmp_path / "spec"
    spec.mkdir()
    (spec / "core.md").write_text("# nothing\n", "utf-8")
    vectors = tmp_path / "v1"
    shutil.copytree(DATA, vectors)
    for path in vectors.glob("*.json"):
        if path.name not in ("vectors.schema.json", "Enums.json"):
            path.unlink()
    enums = json.loads((vectors / "Enums.json").read_text("utf-8"))
    enums["cases"] = enums["cases"][:1]
    enums["cases"][0]["spec"] = ["core.md#99"]
    enums["cases"][0]["inputs"] = {"json": enums["cases"][0]["inputs"]["json"]}
    (vectors / "Enums.json").write_text(json.dumps(enums), "utf-8")
    run = run_cli("check-vectors", "--vectors", str(vectors), "--spec", str(spec))
    assert run.status == 1
    assert run.last_line.endswith(": 1 file, 1 vector, 2 cases, 1 problem"), run.stdout


# Vectors that cannot be found: exit 2 for both commands.


def test_check_vectors_without_vectors_is_exit_2(run_cli, tmp_path):
    run = run_cli("check-vectors", "--vectors", str(tmp_path))
    assert run.status == 2
    assert "memorywire-conformance: the vectors cannot be used:" in run.stderr
    assert "no vectors.schema.json there" in run.stderr


def test_check_vectors_with_broken_vectors_is_exit_1(run_cli, tmp_path):
    vectors = tmp_path / "v1"
    shutil.copytree(DATA, vectors)
    (vectors / "Enums.json").write_text("{not json", "utf-8")
    run = run_cli("check-vectors", "--vectors", str(vectors))
    assert run.status == 1
    assert "Enums.json" in run.stdout and run.last_line == "1 problem"
