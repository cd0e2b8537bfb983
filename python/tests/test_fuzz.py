"""Every fuzz target of python/fuzz holds for a few seconds, seeded from the
conformance vectors and examples: coverage-guided under atheris where the test
extra installs it (Linux x86-64), else by random mutation of the seeds. Longer
runs: python python/fuzz/run.py --seconds 3600 (python/fuzz/README.md)."""

from __future__ import annotations

import importlib.util
import os
import pathlib
import platform
import sys

import pytest

FUZZ = pathlib.Path(__file__).resolve().parents[1] / "fuzz"
sys.path.insert(0, str(FUZZ))

import fuzz_seeds as seeds  # noqa: E402
import fuzz_targets as targets  # noqa: E402

_spec = importlib.util.spec_from_file_location("memorywire_fuzz_run", FUZZ / "run.py")
assert _spec is not None and _spec.loader is not None
run = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(run)

#: Seconds each target runs here; the whole module stays well under a minute.
SECONDS = float(os.environ.get("MEMORYWIRE_FUZZ_SECONDS", "3"))
#: Where the test extra installs atheris (see pyproject.toml).
ATHERIS_PLATFORM = sys.platform == "linux" and platform.machine() == "x86_64" and sys.version_info < (3, 14)


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    work = tmp_path_factory.mktemp("fuzz")
    counts = seeds.build(work / "seeds")
    assert all(counts[name] >= 100 for name in targets.TARGETS), counts
    return work


def test_atheris_is_there_where_the_test_extra_installs_it() -> None:
    if ATHERIS_PLATFORM:
        assert run.have_atheris(), "pip install -e 'python[test]' installs atheris on this platform"


@pytest.mark.parametrize("name", list(targets.TARGETS))
def test_fuzz_target_holds(name: str, workdir: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    status = run.run_target(name, SECONDS, workdir, coverage=run.have_atheris(), quiet=True)
    crashes = sorted((workdir / "crashes" / name).iterdir())
    assert status == 0 and not crashes, (
        f"{name}: an input broke the invariant (replay: python python/fuzz/run.py {name} --replay FILE)\n"
        + capsys.readouterr().err[-6000:])
    assert any((workdir / "seeds" / name).iterdir())


def test_the_invariant_compares_exactly() -> None:
    assert targets.same({"a": [1, -0.0]}, {"a": [1, -0.0]})
    assert not targets.same({"a": 1}, {"a": 1.0}) and not targets.same(True, 1)
    assert not targets.same(0.0, -0.0) and not targets.same([1], [1, 2])
