"""The ``memorywire-conformance`` command.

    memorywire-conformance codec --testee "COMMAND ARGS" [--level required|recommended]
        [--strict] [--case GLOB ...] [--known-failures FILE] [--report-json FILE]
        [--junit FILE] [--vectors DIR] [--timeout S] [--verbose]
    memorywire-conformance check-vectors [--vectors DIR] [--spec DIR]

Exit status of ``codec``: 0 when no case failed unexpectedly and no
known-failures entry is stale, 1 otherwise, 2 on a usage error, when the
vectors cannot be loaded, or when the testee cannot be started or does not
complete the handshake. The last line ``codec`` prints is
``N passed, N failed, N skipped``.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import IO, Any, NoReturn

from memorywire_conformance import __version__
from memorywire_conformance.cases import LEVELS, Result
from memorywire_conformance.failures import KnownFailures, KnownFailuresError, assess
from memorywire_conformance.protocol import ProtocolSchema, Testee, TesteeStartError
from memorywire_conformance.report import (
    RunInfo,
    human_summary,
    json_report,
    junit_xml,
    write_json,
)
from memorywire_conformance.runner import CodecSuite, select_cases
from memorywire_conformance.vectors import (
    VECTORS_ENV,
    VectorError,
    VectorSet,
    check_spec_sections,
    find_spec_dir,
    find_vectors_dir,
    load_vectors,
)

__all__ = ["main", "run"]

RUNNER = f"memorywire-conformance {__version__}"


class _Exit(Exception):
    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


class _Parser(argparse.ArgumentParser):
    """An argument parser that writes to the given streams and does not exit the process."""

    def __init__(self, *args: object, stdout: IO[str], stderr: IO[str], **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self._stdout = stdout
        self._stderr = stderr

    def _print_message(self, message: str, file: Any = None) -> None:
        if message:
            (self._stdout if file is sys.stdout else self._stderr).write(message)

    def print_help(self, file: Any = None) -> None:
        self._stdout.write(self.format_help())

    def print_usage(self, file: Any = None) -> None:
        self._stderr.write(self.format_usage())

    def exit(self, status: int = 0, message: str | None = None) -> NoReturn:
        if message:
            self._stderr.write(message)
        raise _Exit(status)

    def error(self, message: str) -> NoReturn:
        self.print_usage()
        self.exit(2, f"{self.prog}: error: {message}\n")


def _parser(stdout: IO[str], stderr: IO[str]) -> _Parser:
    def make(**kwargs: object) -> _Parser:
        return _Parser(stdout=stdout, stderr=stderr, **kwargs)

    parser = make(
        prog="memorywire-conformance",
        description="Check an implementation of memorywire against the conformance vectors.",
        epilog=f"The vectors are found with --vectors DIR, else the environment variable "
               f"{VECTORS_ENV}, else in conformance/vectors/v1 of the first folder above the "
               f"current directory or above the runner's own files that has one.")
    parser.add_argument("--version", action="version", version=RUNNER)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND",
                                     parser_class=_Parser)

    def subparser(name: str, help: str) -> argparse.ArgumentParser:
        return commands.add_parser(name, help=help, description=help,
                                   stdout=stdout, stderr=stderr)

    codec = subparser("codec", "Run the codec suite against a testee.")
    codec.add_argument("--testee", required=True, metavar="COMMAND",
                       help="the command that starts the testee, split like a POSIX shell "
                            "would (e.g. \"python -m memorywire.testee\")")
    codec.add_argument("--level", choices=LEVELS, default="required",
                       help="the level whose failures fail the run: required (default) or "
                            "recommended (required and recommended)")
    codec.add_argument("--strict", action="store_true",
                       help="the same as --level recommended")
    codec.add_argument("--case", dest="cases", action="extend", nargs="+", metavar="GLOB",
                       help="run only the cases whose id matches a glob (repeatable)")
    codec.add_argument("--known-failures", metavar="FILE",
                       help="a file of case ids or globs expected to fail")
    codec.add_argument("--report-json", metavar="FILE", help="write a JSON report")
    codec.add_argument("--junit", metavar="FILE", help="write a JUnit XML report")
    codec.add_argument("--vectors", metavar="DIR", help="the vector directory")
    codec.add_argument("--timeout", type=_positive, default=10.0, metavar="S",
                       help="seconds the testee has to answer one request (default 10)")
    codec.add_argument("--verbose", "-v", action="store_true",
                       help="show every failure in detail, the skipped cases, and the "
                            "testee's stderr")

    check = subparser("check-vectors", "Check the vector files: the meta-schema, unique "
                                       "case ids, and that every cited spec section exists.")
    check.add_argument("--vectors", metavar="DIR", help="the vector directory")
    check.add_argument("--spec", metavar="DIR",
                       help="the spec/v1 folder (default: found above the vector directory)")
    return parser


def _positive(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError("must be greater than 0")
    return value


def run(argv: Sequence[str], stdout: IO[str], stderr: IO[str]) -> int:
    """Run the command line ``argv`` (without the program name); the exit status."""
    parser = _parser(stdout, stderr)
    try:
        args = parser.parse_args(list(argv))
        if args.command == "codec":
            return _codec(args, stdout, stderr)
        if args.command == "check-vectors":
            return _check_vectors(args, stdout, stderr)
        parser.error("a command is required: codec or check-vectors")
    except _Exit as e:
        return e.status


def _load(args: argparse.Namespace, stderr: IO[str]) -> VectorSet | None:
    try:
        return load_vectors(find_vectors_dir(args.vectors))
    except VectorError as e:
        print("memorywire-conformance: the vectors cannot be used:", file=stderr)
        for problem in e.problems:
            print(f"  {problem}", file=stderr)
        return None


def _codec(args: argparse.Namespace, stdout: IO[str], stderr: IO[str]) -> int:
    level = "recommended" if args.strict else args.level
    enforced = LEVELS[:LEVELS.index(level) + 1]
    known = None
    if args.known_failures:
        try:
            known = KnownFailures.load(args.known_failures)
        except KnownFailuresError as e:
            print(f"memorywire-conformance: {e}", file=stderr)
            return 2
    vectors = _load(args, stderr)
    if vectors is None:
        return 2
    all_cases = vectors.cases()
    cases = select_cases(all_cases, args.cases)
    if args.cases and not cases:
        print("memorywire-conformance: no case matches " + " ".join(args.cases), file=stderr)
        return 2

    def on_stderr(line: str) -> None:
        print(f"testee| {line}", file=stderr)

    started = datetime.now(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")
    clock = time.monotonic()
    testee = Testee(args.testee, timeout=args.timeout, suite=RUNNER, schema=ProtocolSchema(),
                    on_stderr=on_stderr if args.verbose else None)
    try:
        try:
            handshake = testee.start()
        except TesteeStartError as e:
            print(f"memorywire-conformance: the testee cannot be used: {e}", file=stderr)
            return 2
        if not any(v.split(".")[0] == "1" for v in handshake.specversions):
            print(f"memorywire-conformance: the testee reads spec versions "
                  f"{', '.join(handshake.specversions)}; the vectors are of version 1",
                  file=stderr)
            return 2

        def progress(result: Result) -> None:
            if args.verbose:
                print(f"{result.status.upper():7} {result.case.id}", file=stderr)

        results = CodecSuite(cases).run(testee, progress)
    finally:
        testee.close()
    assessment = assess(results, known, enforced_levels=enforced,
                        all_case_ids=[c.id for c in all_cases])
    info = RunInfo(suite="codec", runner=RUNNER, testee_command=args.testee,
                   handshake=testee.handshake, vectors=str(vectors.directory), level=level,
                   started=started, duration=time.monotonic() - clock,
                   restarts=testee.restarts, selection=list(args.cases or []),
                   known_failures=args.known_failures or "")
    if args.report_json:
        write_json(args.report_json, json_report(info, assessment))
    if args.junit:
        Path(args.junit).write_bytes(junit_xml(info, assessment))
    human_summary(info, assessment, stdout, verbose=args.verbose)
    return 0 if assessment.ok else 1


def _check_vectors(args: argparse.Namespace, stdout: IO[str], stderr: IO[str]) -> int:
    try:
        directory = find_vectors_dir(args.vectors)
        vectors = load_vectors(directory)
    except VectorError as e:
        for problem in e.problems:
            print(problem, file=stdout)
        print(f"{len(e.problems)} problems", file=stdout)
        return 1
    spec_dir = Path(args.spec) if args.spec else find_spec_dir(directory)
    problems = []
    if spec_dir is None or not spec_dir.is_dir():
        problems.append(f"no spec/v1 folder found above {directory}; pass --spec DIR")
    else:
        problems = check_spec_sections(vectors.vectors, spec_dir)
    for problem in problems:
        print(problem, file=stdout)
    cases = vectors.cases()
    print(f"{directory}: {len(vectors.files)} files, {len(vectors.vectors)} vectors, "
          f"{len(cases)} cases, {len(problems)} problems", file=stdout)
    return 1 if problems else 0


def main(argv: Sequence[str] | None = None) -> int:
    """The console script."""
    return run(sys.argv[1:] if argv is None else argv, sys.stdout, sys.stderr)
