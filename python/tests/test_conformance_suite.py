"""The conformance suite against the reference testee and the broken testees.

Runs the real runner (``python -m memorywire_conformance``, a separate
package that does not import memorywire) as a subprocess, with the vectors of
conformance/vectors/v1:

* the reference testee (``python -m memorywire.testee``) passes every
  required and recommended case;
* every deliberately broken testee (conformance/testees/broken) is caught: the
  run exits 1 with at least one failed case.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shlex
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# Whole conformance runs against the testees: make test runs it, make check does not.
pytestmark = pytest.mark.slow
VECTORS = ROOT / "conformance" / "vectors" / "v1"
RUNNER_SRC = ROOT / "conformance" / "python" / "src"
BROKEN = ROOT / "conformance" / "testees" / "broken" / "broken_testee.py"
SUMMARY = re.compile(r"^(\d+) passed, (\d+) failed, (\d+) skipped$")
REFERENCE = shlex.join([sys.executable, "-m", "memorywire.testee"])


def _faults() -> list[str]:
    spec = importlib.util.spec_from_file_location("broken_testee", BROKEN)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return list(module.FAULTS)


FAULTS = _faults()


def run_suite(testee: str, *options: str) -> subprocess.CompletedProcess[str]:
    """Run the runner's codec suite at the recommended level."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(RUNNER_SRC), env.get("PYTHONPATH")]))
    return subprocess.run(
        [sys.executable, "-m", "memorywire_conformance", "codec", "--testee", testee,
         "--vectors", str(VECTORS), "--level", "recommended", *options],
        capture_output=True, text=True, env=env, cwd=ROOT, timeout=600, check=False)


def counts(done: subprocess.CompletedProcess[str]) -> tuple[int, int, int]:
    last = done.stdout.rstrip("\n").splitlines()[-1] if done.stdout.strip() else ""
    match = SUMMARY.match(last)
    assert match, f"no summary line; stdout:\n{done.stdout}\nstderr:\n{done.stderr}"
    passed, failed, skipped = (int(x) for x in match.groups())
    return passed, failed, skipped


class Run:
    """One run of the runner: the process and its JSON report."""

    def __init__(self, done: subprocess.CompletedProcess[str], report: Path,
                 elapsed: float) -> None:
        self.done = done
        self.elapsed = elapsed
        self.report = json.loads(report.read_text("utf-8")) if report.exists() else None

    def failed_ids(self) -> set[str]:
        assert self.report is not None, self.done.stderr
        return {c["id"] for c in self.report["cases"] if c["status"] == "failed"}


def run_with_report(testee: str, directory: Path) -> Run:
    directory.mkdir(parents=True, exist_ok=True)
    report = directory / "report.json"
    started = time.monotonic()
    done = run_suite(testee, "--report-json", str(report), "--junit",
                     str(directory / "junit.xml"))
    return Run(done, report, time.monotonic() - started)


@pytest.fixture(scope="session")
def reference_run(tmp_path_factory: pytest.TempPathFactory) -> Run:
    return run_with_report(REFERENCE, tmp_path_factory.mktemp("reference"))


def test_reference_testee_passes_every_case(reference_run: Run) -> None:
    done = reference_run.done
    passed, failed, skipped = counts(done)
    assert done.returncode == 0 and failed == 0, (
        f"{failed} cases fail:\n" + "\n".join(sorted(reference_run.failed_ids())[:200]))
    assert skipped == 0 and passed >= 1
    assert reference_run.report is not None
    cases = reference_run.report["cases"]
    assert len(cases) == passed
    assert {c["status"] for c in cases} == {"passed"}
    assert {c["level"] for c in cases} <= {"required", "recommended"}


def test_reference_testee_passes_without_the_fast_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The walkers alone, as where msgspec is not installed, pass every case too."""
    monkeypatch.setenv("MEMORYWIRE_PURE", "1")
    run = run_with_report(REFERENCE, tmp_path)
    passed, failed, _skipped = counts(run.done)
    assert run.done.returncode == 0 and failed == 0, (
        f"{failed} cases fail:\n" + "\n".join(sorted(run.failed_ids())[:200]))
    assert passed >= 1


def test_reference_run_is_fast(reference_run: Run) -> None:
    assert reference_run.elapsed < 60, f"the codec suite took {reference_run.elapsed:.1f} s"


@pytest.fixture(scope="session")
def broken_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Run]:
    """Every broken testee run once, several at a time."""
    base = tmp_path_factory.mktemp("broken")

    def one(fault: str) -> tuple[str, Run]:
        testee = shlex.join([sys.executable, str(BROKEN), "--fault", fault])
        return fault, run_with_report(testee, base / fault)

    with ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
        return dict(pool.map(one, FAULTS))


def test_there_are_at_least_ten_faults() -> None:
    assert len(FAULTS) >= 10


@pytest.mark.parametrize("fault", FAULTS)
def test_broken_testee_is_caught(fault: str, broken_runs: dict[str, Run],
                                 reference_run: Run) -> None:
    run = broken_runs[fault]
    passed, failed, skipped = counts(run.done)
    assert run.done.returncode == 1, f"the fault {fault} is not caught:\n{run.done.stdout[-3000:]}"
    assert failed >= 1
    # Caught by a case the reference testee passes, not only by the
    # reference's own failures.
    assert run.failed_ids() - reference_run.failed_ids(), f"the fault {fault} is not caught"


JAVASCRIPT = ROOT / "conformance" / "testees" / "javascript"


def test_independent_javascript_testee_passes_every_case(tmp_path: Path) -> None:
    """The Node.js testee, written from the specification alone, passes the
    suite: proof that the specification is implementable as written. Its
    packages come from `make test` (npm ci in its folder)."""
    assert (JAVASCRIPT / "node_modules" / "@bufbuild" / "protobuf").is_dir(), \
        "run `make test`, which installs the JavaScript testee's packages"
    run = run_with_report(shlex.join(["node", str(JAVASCRIPT / "testee.js")]), tmp_path)
    passed, failed, _ = counts(run.done)
    assert run.done.returncode == 0, run.done.stdout[-3000:]
    assert failed == 0 and passed >= 500
