"""The service level of the conformance suite against the reference service
and the broken services.

Starts the reference service (``memorywire.service.server``) as a subprocess
on a free loopback port with an in-memory store, and runs the runner's
service suite against it (``python -m memorywire_conformance service``, a
separate package that does not import memorywire):

* the reference service passes every required and recommended scenario;
* every deliberately broken service (conformance/testees/broken_service, a
  proxy in front of the reference service with one fault) is caught: the run
  exits 1 with at least one failed scenario that the reference passes;
* the reference service with mutual TLS and bearer tokens passes too, the
  runner connecting with ``--tls-ca``, ``--tls-cert``/``--tls-key`` and
  ``--token-file``;
* the reference service on a PostgreSQL store (``--store postgresql://...``,
  a database of the session's throwaway cluster) passes every scenario too;
* over the HTTP binding (``serve --http``, ``--target http://...``), the same
  scenarios pass (on SQLite, on PostgreSQL, and over https with mutual TLS
  and tokens), but those the registry marks as having no meaning over HTTP,
  which the report calls not applicable; and every broken service, served
  through the HTTP binding by its gateway, is caught there too, by a
  scenario that the gateway's control run (no fault) passes.
"""

from __future__ import annotations

import importlib.util
import json
import os
import queue
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import IO, Any

import pytest
from postgres_cluster import Cluster
from tls_helpers import Pki, make_pki

from memorywire.service.process import ServeProcess

ROOT = Path(__file__).resolve().parents[2]

# Whole conformance runs against live services: make test runs it, make check does not.
pytestmark = pytest.mark.slow
RUNNER_SRC = ROOT / "conformance" / "python" / "src"
BROKEN = ROOT / "conformance" / "testees" / "broken_service" / "broken_service.py"
SUMMARY = re.compile(r"^(\d+) passed, (\d+) failed, (\d+) skipped$")
#: The longest the service suite may take against the reference service.
BUDGET_SECONDS = 30
START_TIMEOUT = 30


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(RUNNER_SRC), env.get("PYTHONPATH")]))
    return env


def _broken_module() -> Any:
    sys.path.insert(0, str(RUNNER_SRC))
    try:
        spec = importlib.util.spec_from_file_location("broken_service", BROKEN)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(RUNNER_SRC))
    return module


_BROKEN = _broken_module()
FAULTS: list[str] = list(_BROKEN.FAULTS)
#: The faults whose rule the HTTP binding lacks, and the control "fault".
GRPC_ONLY_FAULTS: dict[str, str] = dict(_BROKEN.GRPC_ONLY)
CONTROL: str = _BROKEN.CONTROL
#: Faults of credentials: run in front of a service that requires a token.
CREDENTIAL_FAULTS = ("accept-any-credentials", "case-sensitive-scheme", "reveal-refused-tenant")


class Process:
    """A subprocess whose output lines are read by a thread, so that waiting
    for one has a timeout and the pipe never fills."""

    def __init__(self, argv: list[str], stream: str) -> None:
        self.proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True, env=_env(), cwd=ROOT)
        self.lines: queue.Queue[str] = queue.Queue()
        self.log: list[str] = []
        watched = self.proc.stdout if stream == "stdout" else self.proc.stderr
        other = self.proc.stderr if stream == "stdout" else self.proc.stdout
        self.readers = [threading.Thread(target=self._read, args=(pipe, keep), daemon=True)
                        for pipe, keep in ((watched, True), (other, False))]
        for reader in self.readers:
            reader.start()

    def _read(self, pipe: IO[str] | None, keep: bool) -> None:
        assert pipe is not None
        for line in pipe:
            self.log.append(line)
            if keep:
                self.lines.put(line)

    def wait_for(self, pattern: re.Pattern[str], timeout: float) -> re.Match[str]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=0.2)
            except queue.Empty:
                if self.proc.poll() is not None:
                    break
                continue
            match = pattern.search(line)
            if match:
                return match
        self.stop()
        raise AssertionError(f"{self.proc.args} did not start:\n{''.join(self.log)[-3000:]}")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        for reader in self.readers:
            reader.join(timeout=10)
        for pipe in (self.proc.stdout, self.proc.stderr):
            if pipe is not None:
                pipe.close()


@pytest.fixture(scope="module")
def reference() -> Iterator[str]:
    """The reference service on a free loopback port; its address."""
    code = ("import sys; from memorywire.service.server import main; "
            "sys.exit(main(sys.argv[1:]))")
    server = Process([sys.executable, "-c", code, "--listen", "127.0.0.1:0", "--store",
                      ":memory:", "--quiet", "--max-workers", "64"], "stderr")
    try:
        match = server.wait_for(re.compile(r'"event":"listening".*"address":"([0-9.]+:\d+)"'),
                                START_TIMEOUT)
        yield match.group(1)
    finally:
        server.stop()


@pytest.fixture(scope="module")
def secured_reference(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Pki, Path]]:
    """The reference service with mutual TLS and a tokens file; its address,
    the certificates and a file holding a token that covers every tenant (a
    file ``narrow`` beside it holds one that covers only the tenant x)."""
    directory = tmp_path_factory.mktemp("secured")
    pki = make_pki(directory / "pki")
    (directory / "tokens.json").write_text(json.dumps({"Every-Tenant.1": "*", "Just-One.2": ["x"]}),
                                           "utf-8")
    (directory / "token").write_text("Every-Tenant.1\n", "utf-8")
    (directory / "narrow").write_text("Just-One.2\n", "utf-8")
    code = ("import sys; from memorywire.service.server import main; "
            "sys.exit(main(sys.argv[1:]))")
    server = Process([sys.executable, "-c", code, "--listen", "127.0.0.1:0", "--store", ":memory:",
                      "--quiet", "--max-workers", "64", "--tls-cert", str(pki.server_cert),
                      "--tls-key", str(pki.server_key), "--tls-client-ca", str(pki.client_ca),
                      "--tokens", str(directory / "tokens.json")], "stderr")
    try:
        match = server.wait_for(re.compile(r'"event":"listening".*"address":"([0-9.]+:\d+)"'),
                                START_TIMEOUT)
        yield match.group(1), pki, directory / "token"
    finally:
        server.stop()


class Run:
    """One run of the service suite: the process, its JSON report, its time."""

    def __init__(self, target: str, directory: Path, *options: str) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        report = directory / "report.json"
        started = time.monotonic()
        self.done = subprocess.run(
            [sys.executable, "-m", "memorywire_conformance", "service", "--target", target,
             "--level", "recommended", "--report-json", str(report), "--junit",
             str(directory / "junit.xml"), *options],
            capture_output=True, text=True, env=_env(), cwd=ROOT, timeout=300, check=False)
        self.elapsed = time.monotonic() - started
        self.report: dict[str, Any] | None = (
            json.loads(report.read_text("utf-8")) if report.exists() else None)

    def counts(self) -> tuple[int, int, int]:
        out = self.done.stdout
        last = out.rstrip("\n").splitlines()[-1] if out.strip() else ""
        match = SUMMARY.match(last)
        assert match, f"no summary line; stdout:\n{out}\nstderr:\n{self.done.stderr}"
        passed, failed, skipped = (int(x) for x in match.groups())
        return passed, failed, skipped

    def ids(self, status: str) -> set[str]:
        assert self.report is not None, self.done.stderr
        return {c["id"] for c in self.report["cases"] if c["status"] == status}


@pytest.fixture(scope="module")
def reference_run(reference: str, tmp_path_factory: pytest.TempPathFactory) -> Run:
    return Run(reference, tmp_path_factory.mktemp("reference"))


def test_reference_service_passes_every_scenario(reference_run: Run) -> None:
    passed, failed, skipped = reference_run.counts()
    assert reference_run.done.returncode == 0 and failed == 0, (
        f"{failed} scenarios fail:\n{reference_run.done.stdout[-6000:]}")
    assert passed >= 60
    assert reference_run.report is not None
    for case in reference_run.report["cases"]:
        if case["status"] == "skipped":
            # Only a scenario about features the reference does not lack,
            # those of credentials, which this reference does not require,
            # and those of the HTTP binding alone.
            assert ("lists every optional operation" in case.get("message", "")
                    or case["id"].startswith("Required.Service.Credentials.")
                    or case.get("message", "").startswith("not applicable over the gRPC binding: ")), case


def test_reference_run_is_fast(reference_run: Run) -> None:
    assert reference_run.elapsed < BUDGET_SECONDS, (
        f"the service suite took {reference_run.elapsed:.1f} s")


def test_runs_do_not_interfere(reference: str, reference_run: Run, tmp_path: Path) -> None:
    """A second run against the same long-lived service passes too."""
    again = Run(reference, tmp_path, "--case", "Required.Service.Tenancy.*",
                "Required.Service.History.*", "Required.Service.Watch.*")
    assert again.done.returncode == 0, again.done.stdout[-4000:]
    assert again.counts()[1] == 0


@pytest.fixture(scope="module")
def postgres_reference(postgres_cluster: Any) -> Iterator[str]:
    """The reference service on a PostgreSQL store: a new database of the
    session's cluster; its address."""
    dsn = postgres_cluster.create_database("conformance")
    with ServeProcess(dsn, ["--quiet", "--max-workers", "64"]) as served:
        yield served.target


def test_reference_service_on_postgresql_passes_every_scenario(postgres_reference: str, reference_run: Run,
                                                              tmp_path: Path) -> None:
    run = Run(postgres_reference, tmp_path)
    passed, failed, _ = run.counts()
    assert run.done.returncode == 0 and failed == 0, f"{failed} scenarios fail:\n{run.done.stdout[-6000:]}"
    assert passed >= 60
    # the same scenarios as on the embedded store
    assert run.ids("passed") == reference_run.ids("passed")


@pytest.fixture(scope="module")
def tokened_reference(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """The reference service on loopback that requires a bearer token; its
    address and a file holding the token, which covers every tenant (a file
    ``narrow`` beside it holds one that covers only the tenant x)."""
    directory = tmp_path_factory.mktemp("tokened")
    (directory / "tokens.json").write_text(json.dumps({"Every-Tenant.1": "*",
                                                       "Just-One.2": ["x"]}), "utf-8")
    (directory / "token").write_text("Every-Tenant.1\n", "utf-8")
    (directory / "narrow").write_text("Just-One.2\n", "utf-8")
    code = ("import sys; from memorywire.service.server import main; "
            "sys.exit(main(sys.argv[1:]))")
    server = Process([sys.executable, "-c", code, "--listen", "127.0.0.1:0", "--store", ":memory:",
                      "--quiet", "--max-workers", "64", "--tokens", str(directory / "tokens.json")],
                     "stderr")
    try:
        match = server.wait_for(re.compile(r'"event":"listening".*"address":"([0-9.]+:\d+)"'),
                                START_TIMEOUT)
        yield match.group(1), directory / "token"
    finally:
        server.stop()


@pytest.fixture(scope="module")
def broken_runs(reference: str, reference_run: Run, tokened_reference: tuple[str, Path],
                tmp_path_factory: pytest.TempPathFactory) -> dict[str, Run]:
    """The suite against every broken service, a few at a time; a fault of
    credentials in front of a service that requires them."""
    base = tmp_path_factory.mktemp("broken")

    def one(fault: str) -> tuple[str, Run]:
        upstream, proxy_options, run_options = reference, [], []
        if fault in CREDENTIAL_FAULTS:
            upstream, token = tokened_reference
            proxy_options = ["--upstream-token", str(token)] if fault == "accept-any-credentials" else []
            run_options = ["--token-file", str(token)]
            if fault == "reveal-refused-tenant":
                run_options += ["--narrow-token-file", str(token.with_name("narrow"))]
        proxy = Process([sys.executable, str(BROKEN), "--fault", fault, "--upstream", upstream,
                         "--listen", "127.0.0.1:0", *proxy_options], "stdout")
        try:
            match = proxy.wait_for(re.compile(r"listening on ([0-9.]+:\d+)"), START_TIMEOUT)
            return fault, _run_catching(fault, match.group(1), base / fault, *run_options)
        finally:
            proxy.stop()

    with ThreadPoolExecutor(max_workers=4) as pool:
        return dict(pool.map(one, FAULTS))


#: Faults that show only when the service is slower or faster than a client:
#: a machine busy with other work can hide them from one run of their
#: scenario, so a run that misses one runs that scenario again, up to twice.
TIMING_FAULTS = ("drop-for-slow-reader", "commit-cancelled-import")


def _run_catching(fault: str, target: str, directory: Path, *options: str) -> Run:
    """The suite against a broken service; for a fault of TIMING_FAULTS that
    its scenario missed, the run of that scenario alone that caught it, if
    one of two more does."""
    run = Run(target, directory, *options)
    for attempt in range(2 if fault in TIMING_FAULTS else 0):
        if run.report is None or CAUGHT_BY[fault] in run.ids("failed"):
            break
        run = Run(target, directory / f"again-{attempt}", *options, "--case", CAUGHT_BY[fault])
    return run


#: Faults and the scenario that must catch each, for faults that the scenarios
#: of their rule alone can catch.
CAUGHT_BY = {
    "put-outside-scope": "Required.Service.Tenancy.WriteOutsideScope",
    "approximate-when-exact": "Required.Service.Search.VectorExactWhenAsked",
    "split-import-batches": "Required.Service.Import.MessageLimits",
    "commit-cancelled-import": "Required.Service.Import.CancelledHasNoEffect",
    "drop-for-slow-reader": "Required.Service.Watch.SlowReader",
    "starve-other-tenants": "Required.Service.Fairness.OtherTenantsServed",
    "global-stream-pool": "Recommended.Service.Fairness.StreamBoundPerTenant",
    "erase-as-hard-delete": "Required.Service.Erase.NothingReachable",
    "ignore-import-policies": "Required.Service.Import.ConflictPolicies",
    "drop-integrity-block": "Required.Service.Export.Integrity",
    "ignore-branch": "Required.Service.History.Branch",
    "default-unknown-enum": "Required.Service.Envelope.NewerMinorEnumValue",
}


@pytest.mark.parametrize("fault", sorted(CAUGHT_BY))
def test_fault_is_caught_by_its_scenario(fault: str, broken_runs: dict[str, Run],
                                         reference_run: Run) -> None:
    assert CAUGHT_BY[fault] in reference_run.ids("passed")
    assert CAUGHT_BY[fault] in broken_runs[fault].ids("failed"), broken_runs[fault].done.stdout[-3000:]


def test_there_are_at_least_eight_faults() -> None:
    assert len(FAULTS) >= 8


@pytest.mark.parametrize("fault", FAULTS)
def test_broken_service_is_caught(fault: str, broken_runs: dict[str, Run],
                                  reference_run: Run) -> None:
    run = broken_runs[fault]
    passed, failed, skipped = run.counts()
    assert run.done.returncode == 1, (
        f"the fault {fault} is not caught:\n{run.done.stdout[-3000:]}\n{run.done.stderr[-2000:]}")
    assert failed >= 1
    # Caught by a scenario that the reference service passes.
    assert run.ids("failed") - reference_run.ids("failed"), f"the fault {fault} is not caught"


def test_reference_service_with_tls_and_tokens(secured_reference: tuple[str, Pki, Path],
                                               tmp_path: Path) -> None:
    """The runner reaches the service over mutual TLS with a token, and the
    scenarios pass: those that send metadata of their own (a missing or
    malformed tenant) still get the token, so they test the tenant."""
    target, pki, token = secured_reference
    tls = ("--tls-ca", str(pki.ca), "--tls-cert", str(pki.client_cert), "--tls-key",
           str(pki.client_key))
    run = Run(target, tmp_path / "secured", *tls, "--token-file", str(token),
              "--narrow-token-file", str(token.with_name("narrow")))
    passed, failed, _ = run.counts()
    assert run.done.returncode == 0 and failed == 0, run.done.stdout[-6000:]
    assert passed >= 60
    assert "(mutual TLS; bearer token)" in run.done.stdout
    credentials = {i for i in run.ids("passed") if i.startswith("Required.Service.Credentials.")}
    assert len(credentials) == 4, credentials
    # Without the token, or without the client certificate, nothing runs.
    anonymous = Run(target, tmp_path / "anonymous", *tls, "--case", "Required.Service.Tenancy.*")
    assert anonymous.done.returncode == 2 and "UNAUTHENTICATED" in anonymous.done.stderr
    no_cert = Run(target, tmp_path / "no-cert", "--tls-ca", str(pki.ca), "--token-file", str(token),
                  "--timeout", "2")
    assert no_cert.done.returncode == 2 and "cannot be used" in no_cert.done.stderr


def test_two_replicas_behind_a_round_robin_client_pass_as_one(postgres_cluster: Cluster, tmp_path: Path) -> None:
    """Two ``memorywire serve`` processes on one PostgreSQL database, every
    call sent to the next (operations.md section 4.8): a write through one
    is read, searched and watched through the other, and the whole service
    level passes as it does against one process."""
    dsn = postgres_cluster.create_database()
    flags = ["--max-workers", "64"]
    with ServeProcess(dsn, flags) as one, ServeProcess(dsn, flags) as other:
        run = Run(f"ipv4:{one.target},{other.target}", tmp_path, "--round-robin")
        passed, failed, skipped = run.counts()
        assert run.done.returncode == 0 and failed == 0, (
            f"{failed} scenarios fail on replicas:\n{run.done.stdout[-6000:]}")
        assert passed >= 60
        calls = [sum(1 for line in p.lines if line.get("event") == "call") for p in (one, other)]
    # Round robin: each replica answered a fair part of the calls.
    assert min(calls) >= sum(calls) // 3, calls


# -- the HTTP binding ---------------------------------------------------------------------------

NOT_APPLICABLE_OVER_HTTP = "not applicable over the HTTP binding: "


def _http_target(served: ServeProcess) -> str:
    address = next(line["address"] for line in served.lines if line.get("event") == "listening_http")
    return f"http://{address}"


@pytest.fixture(scope="module")
def http_reference(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``memorywire serve --http`` on an SQLite file; the base URL of its HTTP binding."""
    store = tmp_path_factory.mktemp("http-reference") / "memory.db"
    with ServeProcess(store, ["--quiet", "--max-workers", "64", "--http", "127.0.0.1:0"]) as served:
        yield _http_target(served)


@pytest.fixture(scope="module")
def http_run(http_reference: str, tmp_path_factory: pytest.TempPathFactory) -> Run:
    return Run(http_reference, tmp_path_factory.mktemp("http-run"))


def _not_applicable(run: Run) -> dict[str, str]:
    assert run.report is not None
    return {c["id"]: c.get("message", "") for c in run.report["cases"]
            if c["status"] == "skipped" and c.get("message", "").startswith(NOT_APPLICABLE_OVER_HTTP)}


def test_reference_service_passes_every_scenario_over_http(http_run: Run, reference_run: Run) -> None:
    passed, failed, _ = http_run.counts()
    assert http_run.done.returncode == 0 and failed == 0, (
        f"{failed} scenarios fail over HTTP:\n{http_run.done.stdout[-6000:]}")
    assert "over HTTP (plain channel)" in http_run.done.stdout
    # The same scenarios as over gRPC, but those with no meaning over HTTP,
    # each reported as not applicable with its reason, and those of HTTP alone.
    na = _not_applicable(http_run)
    assert set(na) == {"Recommended.Service.Health.Serving",
                       "Required.Service.Reflection.UnchangedDescriptors"}, na
    http_only = {"Required.Service.Watch.ResumeByLastEventId"}
    assert http_only <= http_run.ids("passed")
    assert http_only <= reference_run.ids("skipped")
    assert http_run.ids("passed") == (reference_run.ids("passed") - set(na)) | http_only


def test_reference_service_on_postgresql_passes_every_scenario_over_http(
        postgres_cluster: Any, http_run: Run, tmp_path: Path) -> None:
    dsn = postgres_cluster.create_database("conformance_http")
    with ServeProcess(dsn, ["--quiet", "--max-workers", "64", "--http", "127.0.0.1:0"]) as served:
        run = Run(_http_target(served), tmp_path)
    passed, failed, _ = run.counts()
    assert run.done.returncode == 0 and failed == 0, f"{failed} scenarios fail:\n{run.done.stdout[-6000:]}"
    assert run.ids("passed") == http_run.ids("passed")


def test_reference_service_over_https_with_mutual_tls_and_tokens(tmp_path: Path) -> None:
    """``--target https://...`` with the CA, a client certificate and the
    tokens: every scenario passes, those of credentials included."""
    pki = make_pki(tmp_path / "pki")
    (tmp_path / "tokens.json").write_text(json.dumps({"Every-Tenant.1": "*", "Just-One.2": ["x"]}),
                                          "utf-8")
    (tmp_path / "token").write_text("Every-Tenant.1\n", "utf-8")
    (tmp_path / "narrow").write_text("Just-One.2\n", "utf-8")
    # Over TLS the service learns that a client closed a stream when a heartbeat
    # cannot be written (http-binding.md 7.1): a short one frees the streams
    # that Fairness.OtherTenantsServed holds before the next scenarios open theirs.
    flags = ["--quiet", "--max-workers", "64", "--http", "127.0.0.1:0", "--heartbeat", "1",
             "--tls-cert", str(pki.server_cert),
             "--tls-key", str(pki.server_key), "--tls-client-ca", str(pki.client_ca),
             "--tokens", str(tmp_path / "tokens.json")]
    tls = ("--tls-ca", str(pki.ca), "--tls-cert", str(pki.client_cert), "--tls-key", str(pki.client_key))
    with ServeProcess(":memory:", flags) as served:
        target = _http_target(served).replace("http://", "https://")
        run = Run(target, tmp_path / "secured", *tls, "--token-file", str(tmp_path / "token"),
                  "--narrow-token-file", str(tmp_path / "narrow"))
        # Plain HTTP to a TLS port, or https without the client certificate: nothing runs.
        no_cert = Run(target, tmp_path / "no-cert", "--tls-ca", str(pki.ca), "--token-file",
                      str(tmp_path / "token"), "--timeout", "2")
    passed, failed, _ = run.counts()
    assert run.done.returncode == 0 and failed == 0, run.done.stdout[-6000:]
    assert "over HTTP (mutual TLS; bearer token)" in run.done.stdout
    credentials = {i for i in run.ids("passed") if i.startswith("Required.Service.Credentials.")}
    assert len(credentials) == 4, credentials
    assert no_cert.done.returncode == 2 and "cannot be used" in no_cert.done.stderr


#: The control run in front of the service that requires a token.
TOKENED_CONTROL = f"{CONTROL}-tokened"


def _broken_over_http(name: str, reference: str, tokened_reference: tuple[str, Path], directory: Path) -> Run:
    fault = CONTROL if name == TOKENED_CONTROL else name
    upstream, proxy_options, run_options = reference, [], []
    if name in (*CREDENTIAL_FAULTS, TOKENED_CONTROL):
        upstream, token = tokened_reference
        proxy_options = ["--upstream-token", str(token)] if fault == "accept-any-credentials" else []
        run_options = ["--token-file", str(token)]
        if name in ("reveal-refused-tenant", TOKENED_CONTROL):
            run_options += ["--narrow-token-file", str(token.with_name("narrow"))]
    proxy = Process([sys.executable, str(BROKEN), "--fault", fault, "--upstream", upstream,
                     "--listen", "127.0.0.1:0", "--http", "127.0.0.1:0", *proxy_options], "stdout")
    try:
        match = proxy.wait_for(re.compile(r"listening for HTTP on ([0-9.]+:\d+)"), START_TIMEOUT)
        return _run_catching(name, f"http://{match.group(1)}", directory / name, *run_options)
    finally:
        proxy.stop()


@pytest.fixture(scope="module")
def broken_http_runs(reference: str, tokened_reference: tuple[str, Path],
                     tmp_path_factory: pytest.TempPathFactory) -> dict[str, Run]:
    """The suite over HTTP against every broken service's gateway, and
    against the control (no fault) in front of each upstream."""
    base = tmp_path_factory.mktemp("broken-http")
    faults = [f for f in FAULTS if f not in GRPC_ONLY_FAULTS]

    def one(fault: str) -> tuple[str, Run]:
        return fault, _broken_over_http(fault, reference, tokened_reference, base)

    with ThreadPoolExecutor(max_workers=4) as pool:
        runs = dict(pool.map(one, faults))
    runs[CONTROL] = _broken_over_http(CONTROL, reference, tokened_reference, base)
    # The control in front of the service that requires a token, for the faults of credentials.
    runs[TOKENED_CONTROL] = _broken_over_http(TOKENED_CONTROL, reference, tokened_reference, base)
    return runs


def _control(fault: str, runs: dict[str, Run]) -> Run:
    return runs[TOKENED_CONTROL if fault in CREDENTIAL_FAULTS else CONTROL]


def test_gateway_control_passes_what_the_reference_passes_over_http(
        broken_http_runs: dict[str, Run], http_run: Run) -> None:
    """The HTTP gateway of the broken services adds no fault of its own: a
    fault caught over HTTP is caught by its fault alone."""
    control = broken_http_runs[CONTROL]
    assert control.done.returncode == 0 and control.counts()[1] == 0, control.done.stdout[-6000:]
    assert control.ids("passed") == http_run.ids("passed")
    tokened = broken_http_runs[TOKENED_CONTROL]
    assert tokened.done.returncode == 0 and tokened.counts()[1] == 0, tokened.done.stdout[-6000:]
    credentials = {i for i in tokened.ids("passed") if i.startswith("Required.Service.Credentials.")}
    assert len(credentials) == 4, credentials


def test_grpc_only_faults_have_reasons() -> None:
    assert set(GRPC_ONLY_FAULTS) <= set(FAULTS)
    assert all(reason.strip() for reason in GRPC_ONLY_FAULTS.values())
    assert len(GRPC_ONLY_FAULTS) <= 2


@pytest.mark.parametrize("fault", [f for f in FAULTS if f not in GRPC_ONLY_FAULTS])
def test_broken_service_is_caught_over_http(fault: str, broken_http_runs: dict[str, Run]) -> None:
    run = broken_http_runs[fault]
    _, failed, _ = run.counts()
    assert run.done.returncode == 1, (
        f"the fault {fault} is not caught over HTTP:\n{run.done.stdout[-3000:]}\n{run.done.stderr[-2000:]}")
    assert failed >= 1
    # Caught by a scenario that the control in front of the same service passes over HTTP.
    assert run.ids("failed") & _control(fault, broken_http_runs).ids("passed"), f"the fault {fault} is not caught"


@pytest.mark.parametrize("fault", sorted(f for f in CAUGHT_BY if f not in GRPC_ONLY_FAULTS))
def test_fault_is_caught_by_its_scenario_over_http(fault: str, broken_http_runs: dict[str, Run]) -> None:
    assert CAUGHT_BY[fault] in broken_http_runs[CONTROL].ids("passed")
    assert CAUGHT_BY[fault] in broken_http_runs[fault].ids("failed"), (
        broken_http_runs[fault].done.stdout[-3000:])


def test_resume_by_last_event_id_is_caught_over_http(broken_http_runs: dict[str, Run]) -> None:
    """The scenario of the HTTP binding alone fails against the fault that
    repeats the event at the cursor of a resumed stream."""
    assert "Required.Service.Watch.ResumeByLastEventId" in broken_http_runs["repeat-on-resume"].ids("failed")
