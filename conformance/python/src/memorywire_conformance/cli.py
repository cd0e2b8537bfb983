"""The ``memorywire-conformance`` command.

    memorywire-conformance codec --testee "COMMAND ARGS" [--level required|recommended]
        [--strict] [--case GLOB ...] [--known-failures FILE] [--report-json FILE]
        [--junit FILE] [--vectors DIR] [--timeout S] [--verbose]
    memorywire-conformance service --target HOST:PORT|http[s]://HOST:PORT[/PREFIX]
        [--round-robin] [--tenant-prefix P]
        [--level required|recommended] [--strict] [--case GLOB ...] [--known-failures FILE]
        [--report-json FILE] [--junit FILE] [--timeout S] [--verbose]
        [--tls] [--tls-ca FILE] [--tls-cert FILE --tls-key FILE] [--token-file FILE]
        [--narrow-token-file FILE]
    memorywire-conformance check-vectors [--vectors DIR] [--spec DIR]
    memorywire-conformance coverage [--vectors DIR] [--spec DIR] [--traceability FILE]
        [--json] [--check] [--assign-ids] [--verbose]

Exit status of ``codec``: 0 when no case failed unexpectedly and no
known-failures entry is stale, 1 otherwise, 2 on a usage error, when the
vectors cannot be found or loaded, when the testee cannot be started or does
not complete the handshake (a handshake that breaks the protocol schema
included), and when no case ran because every selected case was skipped. The
last line ``codec`` prints, when it runs the cases, is
``N passed, N failed, N skipped``.

``service`` runs the scenarios of the service level against a running
``memorywire.v1.MemoryService``, each in a fresh tenant of its own, over gRPC
(``--target HOST:PORT``) or over the HTTP binding (``--target
http://HOST:PORT`` or ``https://...``, with the base URL of the binding's
paths): the same scenarios, a scenario that has no meaning over one binding
reported as not applicable there. Its exit
statuses are those of ``codec``, the service taking the testee's place: 2 when
it cannot be reached or does not answer GetCapabilities, or when a TLS or token
option cannot be used. Its last line is the same. ``--tls-ca`` (or ``--tls``,
for the system's root certificates) connects over TLS, ``--tls-cert`` and
``--tls-key`` present a client certificate (mutual TLS), and ``--token-file``
sends the bearer token the file holds on every call; the token must cover
every tenant, since each scenario runs in a fresh one; ``--narrow-token-file``
gives a second token the service accepts that covers none of those tenants.
A token is sent over a plain channel only to a target on this machine
(loopback, a Unix socket); over HTTP, the token goes over ``http://`` only
to a loopback host, and ``https://`` takes the TLS options.

Exit status of ``check-vectors``: 0 without a problem, 1 when the vectors or
the spec sections they cite have a problem, 2 on a usage error or when the
vectors cannot be found.

``coverage`` prints, for every requirement of spec/v1 (a MUST, MUST NOT,
REQUIRED, SHALL or SHALL NOT sentence, each with an id ``R-CORE-042``), the
vectors and service scenarios that test it or why none does, then counts by
document and key word (``--json``: the same as a JSON document).
``--assign-ids`` first gives every requirement without an id the next free
one and a seeded entry in the traceability file. Exit status: 0, or 1 with
``--check`` when a requirement has no id, no entry, or neither tests nor a
reason, or when the file names a test or id that does not exist; 2 on a usage
error or when the spec, the vectors or the traceability file cannot be read.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import IO, Any, NoReturn

from memorywire_conformance import __version__
from memorywire_conformance.cases import LEVELS, Result
from memorywire_conformance.failures import KnownFailures, KnownFailuresError, assess
from memorywire_conformance.protocol import Handshake, ProtocolSchema, Testee, TesteeStartError
from memorywire_conformance.report import (
    RunInfo,
    count_of,
    human_summary,
    json_report,
    junit_xml,
    no_case_ran,
    write_json,
)
from memorywire_conformance.runner import CodecSuite, select_cases
from memorywire_conformance.vectors import (
    VECTORS_ENV,
    CodecCase,
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


def _add_sources(parser: argparse.ArgumentParser) -> None:
    """The options that find the vectors and the specification."""
    parser.add_argument("--vectors", metavar="DIR", help="the vector directory")
    parser.add_argument("--spec", metavar="DIR",
                        help="the spec/v1 folder (default: found above the vector directory)")


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

    service = subparser("service", "Run the service suite against a running memorywire "
                                   "service (gRPC, or the HTTP binding).")
    service.add_argument("--target", required=True, metavar="HOST:PORT",
                         help="the address of the service, e.g. 127.0.0.1:50051, or any gRPC "
                              "target, e.g. ipv4:10.0.0.1:50051,10.0.0.2:50051 for replicas; "
                              "or the base URL of its HTTP binding, e.g. http://127.0.0.1:8080")
    service.add_argument("--round-robin", action="store_true",
                         help="send each call to the next of the addresses the target names "
                              "(the replicas of one service), not all to one")
    service.add_argument("--tenant-prefix", default="mwconf-", metavar="P",
                         help="the prefix of the fresh tenants of the run (default mwconf-); "
                              "each run adds a random id, so runs do not interfere")
    service.add_argument("--level", choices=LEVELS, default="required",
                         help="the level whose failures fail the run: required (default) or "
                              "recommended (required and recommended)")
    service.add_argument("--strict", action="store_true",
                         help="the same as --level recommended")
    service.add_argument("--case", dest="cases", action="extend", nargs="+", metavar="GLOB",
                         help="run only the scenarios whose id matches a glob (repeatable)")
    service.add_argument("--known-failures", metavar="FILE",
                         help="a file of case ids or globs expected to fail")
    service.add_argument("--report-json", metavar="FILE", help="write a JSON report")
    service.add_argument("--junit", metavar="FILE", help="write a JUnit XML report")
    service.add_argument("--timeout", type=_positive, default=10.0, metavar="S",
                         help="seconds the service has to answer one call, and the longest "
                              "life of one stream (default 10)")
    service.add_argument("--verbose", "-v", action="store_true",
                         help="show every failure in detail and the skipped scenarios")
    service.add_argument("--tls", action="store_true",
                         help="connect over TLS, trusting the system's root certificates")
    service.add_argument("--tls-ca", metavar="FILE",
                         help="connect over TLS, trusting the PEM CA certificates of FILE")
    service.add_argument("--tls-cert", metavar="FILE",
                         help="mutual TLS: the PEM client certificate to present (with --tls-key)")
    service.add_argument("--tls-key", metavar="FILE",
                         help="the PEM private key of --tls-cert, unencrypted")
    service.add_argument("--token-file", metavar="FILE",
                         help="send the bearer token FILE holds (authorization: Bearer TOKEN) on "
                              "every call; it must cover every tenant")
    service.add_argument("--narrow-token-file", metavar="FILE",
                         help="a second bearer token the service accepts that covers none of the "
                              "scenarios' tenants (with --token-file), for the scenarios of "
                              "refused tenants")

    check = subparser("check-vectors", "Check the vector files: the meta-schema, unique "
                                       "case ids, and that every cited spec section exists.")
    _add_sources(check)

    coverage = subparser("coverage", "Show which vectors and service scenarios test each "
                                     "requirement of the specification, or why none does.")
    _add_sources(coverage)
    coverage.add_argument("--traceability", metavar="FILE",
                          help="the traceability file (default: "
                               "conformance/traceability/requirements.json of the checkout)")
    coverage.add_argument("--json", action="store_true", help="write the report as JSON")
    coverage.add_argument("--check", action="store_true",
                          help="exit 1 when a requirement is untraced or the file is wrong")
    coverage.add_argument("--assign-ids", action="store_true",
                          help="first give every requirement without an id the next free id "
                               "(written into the spec) and a seeded entry (written into the "
                               "traceability file)")
    coverage.add_argument("--verbose", "-v", action="store_true",
                          help="list every test of a requirement and its whole sentence")
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
        if args.command == "service":
            from memorywire_conformance.service.command import run_service

            return run_service(args, stdout, stderr)
        if args.command == "check-vectors":
            return _check_vectors(args, stdout, stderr)
        if args.command == "coverage":
            return _coverage(args, stdout, stderr)
        parser.error("a command is required: codec, service, check-vectors or coverage")
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
    nothing_ran = no_case_ran(results)
    if nothing_ran:
        info.warnings.append(_why_no_case_ran(cases, testee.handshake))
        print(f"memorywire-conformance: {info.warnings[-1]}", file=stderr)
    if args.report_json:
        write_json(args.report_json, json_report(info, assessment))
    if args.junit:
        Path(args.junit).write_bytes(junit_xml(info, assessment))
    human_summary(info, assessment, stdout, verbose=args.verbose)
    if nothing_ran:
        return 2
    return 0 if assessment.ok else 1


def _why_no_case_ran(cases: Sequence[CodecCase], handshake: Handshake | None) -> str:
    """Why every case of a run was skipped: the encodings the testee does not
    announce, or its ``unsupported`` answers."""
    announced = set(handshake.encodings if handshake else ())

    def unannounced(case: CodecCase) -> list[str]:
        return [e for e in (case.input, case.output) if e and e not in announced]

    missing = [c for c in cases if unannounced(c)]
    if len(missing) == len(cases):
        needed = sorted({e for c in missing for e in unannounced(c)})
        return (f"no case ran: the testee supports none of the encodings of the selected "
                f"cases (it announces {', '.join(sorted(announced)) or 'none'}; they also "
                f"use {', '.join(needed)})")
    if not missing:
        return "no case ran: the testee answered unsupported to every request"
    return (f"no case ran: the testee does not announce the encodings of "
            f"{count_of(len(missing), 'selected case')} and answered unsupported to the "
            f"requests of the others")


def _check_vectors(args: argparse.Namespace, stdout: IO[str], stderr: IO[str]) -> int:
    try:
        directory = find_vectors_dir(args.vectors)
    except VectorError as e:
        print("memorywire-conformance: the vectors cannot be used:", file=stderr)
        for problem in e.problems:
            print(f"  {problem}", file=stderr)
        return 2
    try:
        vectors = load_vectors(directory)
    except VectorError as e:
        for problem in e.problems:
            print(problem, file=stdout)
        print(count_of(len(e.problems), "problem"), file=stdout)
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
    print(f"{directory}: {count_of(len(vectors.files), 'file')}, "
          f"{count_of(len(vectors.vectors), 'vector')}, {count_of(len(cases), 'case')}, "
          f"{count_of(len(problems), 'problem')}", file=stdout)
    return 1 if problems else 0


def _coverage(args: argparse.Namespace, stdout: IO[str], stderr: IO[str]) -> int:
    from memorywire_conformance import coverage as cov
    from memorywire_conformance.requirements import read_spec

    vectors = _load(args, stderr)
    if vectors is None:
        return 2
    spec_dir = Path(args.spec) if args.spec else find_spec_dir(vectors.directory)
    if spec_dir is None or not spec_dir.is_dir():
        print(f"memorywire-conformance: no spec/v1 folder found above {vectors.directory}; "
              "pass --spec DIR", file=stderr)
        return 2
    path = cov.find_traceability_file(vectors.directory, args.traceability)
    try:
        traceability = cov.load_traceability(path)
    except cov.TraceError as e:
        print(f"memorywire-conformance: the traceability file cannot be used:\n{e}",
              file=stderr)
        return 2
    index = cov.catalog(vectors.vectors, cov.scenario_index())
    if args.assign_ids:
        added = cov.tag_and_seed(spec_dir, traceability, index)
        print(f"memorywire-conformance: {count_of(len(added), 'new requirement')} tagged: "
              f"{', '.join(r.id for r in added) or 'none'}", file=stderr)
    coverage = cov.measure(read_spec(spec_dir), traceability, index,
                           repo_root=spec_dir.resolve().parents[1])
    if args.json:
        stdout.write(json.dumps(coverage.to_json(), indent=2, ensure_ascii=False) + "\n")
    else:
        cov.write_text(coverage, stdout, verbose=args.verbose)
    return 1 if args.check and coverage.problems else 0


def main(argv: Sequence[str] | None = None) -> int:
    """The console script."""
    try:
        status = run(sys.argv[1:] if argv is None else argv, sys.stdout, sys.stderr)
        sys.stdout.flush()
        return status
    except BrokenPipeError:
        # The reader of stdout has gone (a pipe into head): stop without a
        # traceback, and keep the interpreter from failing to flush at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
