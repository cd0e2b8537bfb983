"""``memorywire-conformance service``: the service suite from the command line.

Exit status: 0 when no scenario failed unexpectedly and no known-failures
entry is stale, 1 otherwise, 2 on a usage error, when the service cannot be
reached or does not answer GetCapabilities, when it speaks no spec version
1.x, and when no scenario ran because every selected one was skipped. The
last line printed, when the scenarios run, is ``N passed, N failed, N skipped``.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import IO, Any

from memorywire_conformance import __version__
from memorywire_conformance.cases import LEVELS, Result
from memorywire_conformance.failures import KnownFailures, KnownFailuresError, assess
from memorywire_conformance.report import (
    RunInfo,
    human_summary,
    json_report,
    junit_xml,
    no_case_ran,
    write_json,
)
from memorywire_conformance.service import (
    RpcFailure,
    ServiceSuite,
    all_scenarios,
    capabilities,
    open_channel,
    select,
)
from memorywire_conformance.service.httpbinding import HttpChannel, is_http_target
from memorywire_conformance.service.httpbinding import capabilities as http_capabilities
from memorywire_conformance.service.transport import SecurityError, read_security

__all__ = ["run_service"]

RUNNER = f"memorywire-conformance {__version__}"
#: What the reports name in place of a vector directory.
SCENARIO_SOURCE = "(the scenarios of memorywire_conformance.service)"


def run_service(args: argparse.Namespace, stdout: IO[str], stderr: IO[str]) -> int:
    """Run the parsed ``service`` command; the exit status."""
    level = "recommended" if args.strict else args.level
    enforced = LEVELS[:LEVELS.index(level) + 1]
    if not 1 <= len(args.tenant_prefix) <= 200:
        print("memorywire-conformance: --tenant-prefix has 1 to 200 characters", file=stderr)
        return 2
    known = None
    if args.known_failures:
        try:
            known = KnownFailures.load(args.known_failures)
        except KnownFailuresError as e:
            print(f"memorywire-conformance: {e}", file=stderr)
            return 2
    try:
        security = read_security(args.target, tls=args.tls, ca=args.tls_ca, cert=args.tls_cert,
                                 key=args.tls_key, token_file=args.token_file,
                                 narrow_token_file=args.narrow_token_file)
    except SecurityError as e:
        print(f"memorywire-conformance: {e}", file=stderr)
        return 2
    scenarios = all_scenarios()
    selected = select(scenarios, args.cases)
    if args.cases and not selected:
        print("memorywire-conformance: no case matches " + " ".join(args.cases), file=stderr)
        return 2
    started = datetime.now(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")
    clock = time.monotonic()
    # Replicas of one service are one service: with --round-robin each call
    # goes to the next of the target's addresses, so that a write made
    # through one replica is read through another.
    balancing = [("grpc.lb_policy_name", "round_robin")] if args.round_robin else []
    opener: Callable[[Sequence[tuple[str, Any]]], Any]
    if is_http_target(args.target):
        if args.round_robin:
            print("memorywire-conformance: --round-robin is an option of gRPC targets",
                  file=stderr)
            return 2
        # The HTTP binding: one scenario set, the transport chosen by the scheme.
        try:
            channel: Any = HttpChannel(args.target, security)
        except SecurityError as e:
            print(f"memorywire-conformance: {e}", file=stderr)
            return 2
        get_capabilities: Callable[[Any, float], dict[str, Any]] = http_capabilities

        def opener(options: Sequence[tuple[str, Any]]) -> Any:
            return channel.with_small_window()
    else:
        channel = open_channel(args.target, security, balancing)
        get_capabilities = capabilities

        def opener(options: Sequence[tuple[str, Any]]) -> Any:
            return open_channel(args.target, security, [*balancing, *options])
    try:
        try:
            caps = get_capabilities(channel, args.timeout)
        except RpcFailure as e:
            print(f"memorywire-conformance: the service at {args.target} cannot be used: "
                  f"{e.describe()}", file=stderr)
            return 2
        versions = [str(v) for v in caps.get("specversions", [])]
        if not any(v.split(".")[0] == "1" for v in versions):
            print(f"memorywire-conformance: the service speaks spec versions "
                  f"{', '.join(versions) or '(none)'}; the scenarios are of version 1",
                  file=stderr)
            return 2

        def progress(result: Result) -> None:
            if args.verbose:
                print(f"{result.status.upper():7} {result.case.id}", file=stderr)

        suite = ServiceSuite(channel, caps, selected, tenant_prefix=args.tenant_prefix,
                             timeout=args.timeout, token=security.token,
                             narrow_token=security.narrow_token,
                             open_channel=opener)
        results = suite.run(progress)
    finally:
        channel.close()
    assessment = assess(results, known, enforced_levels=enforced,
                        all_case_ids=[s.id for s in scenarios])
    info = RunInfo(suite="service", runner=RUNNER, testee_command=args.target, handshake=None,
                   vectors=SCENARIO_SOURCE, level=level, started=started,
                   duration=time.monotonic() - clock, selection=list(args.cases or []),
                   known_failures=args.known_failures or "")
    nothing_ran = no_case_ran(results)
    if nothing_ran:
        info.warnings.append("no case ran: the service does not announce the operations or "
                             "features that every selected scenario needs")
        print(f"memorywire-conformance: {info.warnings[-1]}", file=stderr)
    if args.report_json:
        write_json(args.report_json, json_report(info, assessment))
    if args.junit:
        Path(args.junit).write_bytes(junit_xml(info, assessment))
    print(f"service: {caps.get('implementation', '?')} "
          f"{caps.get('implementation_version', '')} at {args.target} over {suite.binding} "
          f"({security.describe()}); spec versions "
          f"{', '.join(versions)}; features {', '.join(caps.get('features', [])) or 'none'}; "
          f"tenants {args.tenant_prefix}{suite.run_id}-*", file=stdout)
    human_summary(info, assessment, stdout, verbose=args.verbose)
    if nothing_ran:
        return 2
    return 0 if assessment.ok else 1
