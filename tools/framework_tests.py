"""Run the adapter tests that need the real framework packages.

Each table of python/tests/adapters/frameworks/envs.toml is one virtual
environment, .venv-fw/<name>, with its own interpreter and exact packages
(frameworks pin each other out of one environment). This script builds an
environment when its table or the package metadata changed, then runs the
table's tests in it. Exit status 1 when any environment fails.

    python tools/framework_tests.py            # every environment
    python tools/framework_tests.py langchain  # some
    python tools/framework_tests.py --list
    python tools/framework_tests.py --build crossframework   # build only
    python tools/framework_tests.py --bench    # the table's benchmarks instead of its tests
"""

from __future__ import annotations

import argparse
import glob
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
import tomllib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "python" / "tests" / "adapters" / "frameworks"
ENVS = TESTS / "envs.toml"
HOME = ROOT / ".venv-fw"
BENCHMARKS = ROOT / "python" / "benchmarks" / "integrations"
#: What every environment has beside its framework: the package with the
#: service (the tests put records into a real service) and the test tools.
BASE_EXTRAS = ("service",)
BASE = ["-e", f"{ROOT / 'python'}[{','.join(BASE_EXTRAS)}]", "pytest>=8", "pytest-timeout>=2.3", "hypothesis>=6.100"]
KEYS = {"python", "requirements", "no_deps", "tests", "env", "benchmarks"}


def load() -> dict[str, dict[str, Any]]:
    with open(ENVS, "rb") as f:
        envs = tomllib.load(f)
    for name, table in envs.items():
        unknown = set(table) - KEYS
        if unknown or "python" not in table or not table.get("tests"):
            raise SystemExit(f"{ENVS}: [{name}] needs python and tests; unknown keys: {sorted(unknown)}")
        for test in table["tests"]:
            if not (TESTS / test).is_file():
                raise SystemExit(f"{ENVS}: [{name}] names {test}, which does not exist")
        for script in table.get("benchmarks", []):
            if not (BENCHMARKS / script).is_file():
                raise SystemExit(f"{ENVS}: [{name}] names {script}, which is not in {BENCHMARKS}")
    named = {script for table in envs.values() for script in table.get("benchmarks", [])}
    unnamed = sorted(p.name for p in BENCHMARKS.glob("*.py") if p.name not in named)
    if unnamed:
        raise SystemExit(f"{ENVS}: no environment runs {', '.join(unnamed)} of {BENCHMARKS}")
    return envs


def _stamp(table: dict[str, Any]) -> str:
    """What an environment is built from: its table, and the requirements of
    the package with the extras that BASE installs (not the rest of
    pyproject.toml, such as tool settings or the other extras)."""
    with open(ROOT / "python" / "pyproject.toml", "rb") as f:
        project = tomllib.load(f)["project"]
    spec = {k: table.get(k) for k in ("python", "requirements", "no_deps")}
    extras = project.get("optional-dependencies", {})
    spec["package"] = {"requires-python": project.get("requires-python"), "dependencies": project.get("dependencies"),
                       **{extra: extras.get(extra) for extra in BASE_EXTRAS}}
    return hashlib.sha256(json.dumps(spec, sort_keys=True).encode()).hexdigest()


def _run(args: list[str], **kwargs: Any) -> None:
    print("+", " ".join(args), flush=True)
    subprocess.run(args, check=True, **kwargs)


def interpreter(version: str) -> str:
    """A Python of ``version`` ("3.12"): ``python3.12`` on the PATH when it
    runs (a pyenv shim of a version that is not selected does not), else
    one that pyenv installed."""
    candidates = [shutil.which(f"python{version}")]
    root = os.environ.get("PYENV_ROOT", str(Path.home() / ".pyenv"))
    candidates += sorted(glob.glob(f"{root}/versions/{version}.*/bin/python{version}"), reverse=True)
    for candidate in candidates:
        if candidate is None:
            continue
        done = subprocess.run([candidate, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                              capture_output=True, text=True, check=False)
        if done.returncode == 0 and done.stdout.strip() == version:
            return candidate
    raise RuntimeError(f"no Python {version}: python{version} is not on the PATH, nor installed by pyenv")


def build(name: str, table: dict[str, Any]) -> Path:
    venv = HOME / name
    stamp = venv / ".installed"
    digest = _stamp(table)
    if stamp.is_file() and stamp.read_text() == digest:
        return venv
    if venv.exists():
        shutil.rmtree(venv)
    python = interpreter(table["python"])
    _run([python, "-m", "venv", str(venv)])
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    _run([*pip, "--upgrade", "pip"])
    for package in table.get("no_deps", []):
        _run([*pip, "--no-deps", package])
    _run([*pip, *BASE, *table.get("requirements", [])])
    stamp.write_text(digest)
    return venv


def test(name: str, table: dict[str, Any], venv: Path) -> int:
    env = dict(os.environ, MEMORYWIRE_FRAMEWORK_ENV=name, **table.get("env", {}))
    args = [str(venv / "bin" / "python"), "-m", "pytest", "-q", "-p", "no:cacheprovider",
            *(str(TESTS / t) for t in table["tests"])]
    print("+", " ".join(args), flush=True)
    return subprocess.run(args, check=False, cwd=ROOT, env=env).returncode


def bench(name: str, table: dict[str, Any], venv: Path) -> int:
    failed = 0
    for script in table.get("benchmarks", []):
        args = [str(venv / "bin" / "python"), str(BENCHMARKS / script)]
        print("+", " ".join(args), flush=True)
        failed |= subprocess.run(args, check=False, cwd=ROOT, env=dict(os.environ, **table.get("env", {}))).returncode
    return failed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("names", nargs="*", help="environments to run (default: all)")
    parser.add_argument("--list", action="store_true", help="list the environments and their tests")
    what = parser.add_mutually_exclusive_group()
    what.add_argument("--build", action="store_true", help="build the environments, run nothing")
    what.add_argument("--bench", action="store_true",
                      help="run the environments' benchmarks (python/benchmarks/integrations) instead of their tests")
    args = parser.parse_args(argv)
    envs = load()
    if args.list:
        for name, table in envs.items():
            print(f"{name}: python{table['python']}, {', '.join(table['tests'])}")
        return 0
    unknown = set(args.names) - set(envs)
    if unknown:
        parser.error(f"no such environment: {', '.join(sorted(unknown))}")
    failed = []
    names = args.names or [n for n in envs if not args.bench or envs[n].get("benchmarks")]
    for name in names:
        started = time.monotonic()
        print(f"== {name} ==", flush=True)
        try:
            venv = build(name, envs[name])
        except (subprocess.CalledProcessError, RuntimeError) as e:
            print(f"{name}: the environment could not be built: {e}", flush=True)
            failed.append(name)
            continue
        if args.build:
            continue
        if (bench if args.bench else test)(name, envs[name], venv) != 0:
            failed.append(name)
        print(f"{name}: {time.monotonic() - started:.0f} s", flush=True)
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
        return 1
    print(f"every framework environment {'was built' if args.build else 'passed'} ({len(names)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
