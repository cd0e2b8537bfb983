"""The known-failures file and the assessment of a run."""

from __future__ import annotations

import pytest

from memorywire_conformance.cases import FAILED, PASSED, SKIPPED, Case, Result
from memorywire_conformance.failures import KnownFailures, KnownFailuresError, assess


def case(case_id: str) -> Case:
    level = "recommended" if case_id.startswith("Recommended.") else "required"
    return Case(id=case_id, suite="codec", level=level, area=case_id.split(".")[1],
                name=case_id.split(".")[2], spec=("core.md#3.8",), description="")


A = "Required.Timestamps.Nano.JsonInput.JsonOutput"
B = "Required.Timestamps.Nano.JsonInput.MsgpackOutput"
C = "Required.Enums.Role.JsonInput.Rejected"
R = "Recommended.Enums.Role.JsonInput.ErrorReason"


def run(statuses: dict[str, str], text: str = "", **kwargs):
    rs = [Result(case(i), s) for i, s in statuses.items()]
    return assess(rs, KnownFailures.parse(text), **kwargs)


def test_parse_comments_blank_lines_and_globs():
    known = KnownFailures.parse(
        "# a comment line\n\n" + A + "   # float formatting\n  Required.Enums.*  \n")
    assert [(e.pattern, e.comment, e.line) for e in known.entries] == [
        (A, "float formatting", 3), ("Required.Enums.*", "", 4)]
    assert known.match(C).pattern == "Required.Enums.*"
    assert known.match(B) is None
    assert known.entries[1].is_glob and not known.entries[0].is_glob


@pytest.mark.parametrize("line", ["Required.Enums.* extra words", "Required/Enums", "a\tb"])
def test_parse_rejects_what_is_not_an_id(line):
    with pytest.raises(KnownFailuresError, match=":1:"):
        KnownFailures.parse(line)


def test_parse_rejects_repeated_entries():
    with pytest.raises(KnownFailuresError, match="already listed on line 1"):
        KnownFailures.parse(f"{A}\n{A}  # again\n")


def test_load_missing_file(tmp_path):
    with pytest.raises(KnownFailuresError):
        KnownFailures.load(tmp_path / "missing.txt")


def test_all_pass():
    out = run({A: PASSED, B: PASSED, C: SKIPPED})
    assert out.ok and not out.unexpected and not out.stale


def test_unexpected_failure_fails_the_run():
    out = run({A: PASSED, B: FAILED})
    assert not out.ok
    assert out.to_add == [B]
    assert [r.disposition for r in out.results] == ["", "unexpected"]


def test_listed_failure_passes_the_run():
    out = run({A: PASSED, B: FAILED}, f"{B}  # known\n")
    assert out.ok
    assert [r.case.id for r in out.known] == [B]
    assert out.results[1].disposition == "known"


def test_stale_exact_entry_fails_the_run():
    out = run({A: PASSED, B: PASSED}, f"{B}\n")
    assert not out.ok
    assert out.to_remove == [B]
    assert "passes" in out.stale[0][1]


def test_glob_covers_several_failures():
    out = run({A: FAILED, B: FAILED, C: PASSED}, "Required.Timestamps.*\n")
    assert out.ok and len(out.known) == 2


def test_glob_is_not_stale_while_one_of_its_cases_fails():
    out = run({A: FAILED, B: PASSED}, "Required.Timestamps.*\n")
    assert out.ok


def test_glob_is_stale_when_all_its_cases_pass():
    out = run({A: PASSED, B: PASSED, C: FAILED}, "Required.Timestamps.*\nRequired.Enums.*\n")
    assert not out.ok
    assert out.to_remove == ["Required.Timestamps.*"]
    assert "all 2 cases it matches pass" in out.stale[0][1]


def test_entry_matching_no_case_is_stale():
    out = run({A: PASSED}, "Required.Gone.*\n")
    assert out.to_remove == ["Required.Gone.*"]
    assert out.stale[0][1] == "it matches no case of the suite"


def test_entry_of_skipped_or_unselected_cases_is_left_alone():
    out = run({A: SKIPPED}, f"{A}\n{B}\n", all_case_ids=[A, B])
    assert out.ok


def test_recommended_failure_is_not_enforced_at_the_required_level():
    out = run({R: FAILED})
    assert out.ok
    assert out.results[0].disposition == "not-enforced"
    strict = run({R: FAILED}, enforced_levels=("required", "recommended"))
    assert not strict.ok and strict.to_add == [R]


def test_listed_recommended_failure_is_known():
    out = run({R: FAILED}, f"{R}\n", enforced_levels=("required", "recommended"))
    assert out.ok and out.results[0].disposition == "known"


def test_counts():
    out = run({A: PASSED, B: FAILED, C: SKIPPED})
    assert (out.count(PASSED), out.count(FAILED), out.count(SKIPPED)) == (1, 1, 1)
