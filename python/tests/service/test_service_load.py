"""One tenant abuses every streaming method while another makes unary
calls (grpc-binding.md section 7.4): the other tenant's calls all succeed,
with a p99 under a generous bound, and the server's memory stays bounded
while it lasts and after. The load is that of benchmarks/bench_fairness.py,
run small."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

BENCHMARK = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_fairness.py"
#: The bound on the p99 of the other tenant's calls under the abuse, on a
#: small shared machine; they take a few milliseconds alone.
P99_BOUND_MS = 1000
#: The memory the server may take over its idle size while the abuse lasts,
#: and keep after it ended.
ABUSED_GROWTH_MIB = 256
KEPT_GROWTH_MIB = 128


def test_one_tenant_abusing_every_stream_cannot_slow_another() -> None:
    proc = subprocess.run(
        [sys.executable, str(BENCHMARK), "--json", "--seconds", "4", "--seed-mib", "16", "--stall", "2",
         "--import-mib", "128", "--max-import-mib", "32"],
        capture_output=True, text=True, timeout=120, cwd=BENCHMARK.parent,
        env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"))
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    # the well-behaved tenant: every call succeeds, none is RATE_LIMITED
    assert report["abused_errors"] == {} and report["idle_errors"] == {}, report
    assert report["abused"]["count"] > 100, report
    assert report["abused"]["p99_ms"] < P99_BOUND_MS, report
    # the abuse was real: beyond its limits the abuser was refused or ended
    outcomes = report["abuser_outcomes"]
    assert outcomes.get("Export:RATE_LIMITED", 0) == 28 and outcomes.get("Watch:RATE_LIMITED", 0) == 12
    assert outcomes.get("stalled-import:UNAVAILABLE", 0) == 3, outcomes
    assert outcomes.get("huge-import:DOCUMENT_TOO_LARGE") == 1, outcomes
    # the server ended the admitted Exports, which stalled, and the stalled Imports
    assert report["ended_as_stalled"].get("Export:UNAVAILABLE") == 4, report["abuser_streams_ended"]
    assert report["ended_as_stalled"].get("Import:UNAVAILABLE") == 3, report["abuser_streams_ended"]
    rss = report["rss_mib"]
    assert rss["abused"] - rss["idle"] < ABUSED_GROWTH_MIB, rss
    assert rss["after"] - rss["idle"] < KEPT_GROWTH_MIB, rss
