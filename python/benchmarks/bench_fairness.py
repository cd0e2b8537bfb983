"""One tenant abuses every streaming method of the reference service while
another makes unary calls: the latency of the other tenant's calls, idle
and under the abuse, and the memory of the server before, during and after.

The abuser opens Export streams it never reads, Watch streams it never reads
while it writes large records (so that their events pile up), Imports that
send one message and then nothing, and one Import far larger than the
server accepts. The well-behaved tenant runs Get, GetCapabilities, Put and
Search in a loop. The server runs in a subprocess (``memorywire serve``)
on loopback, on a file store, so that its resident memory is its own.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import grpc

import memorywire.protobuf
from memorywire.client import Client, ServiceError, service_error

sys.path.insert(0, str(Path(__file__).resolve().parent))

from memorywire.service.process import ServeProcess  # noqa: E402

SERVICE = "/memorywire.v1.MemoryService"
MIB = 1 << 20


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def fact(id: str, text: str) -> dict[str, Any]:
    return {"id": id, "kind": "fact", "fact": {"text": text}}


#: 64 KiB of text in 64 words.
CHUNK = ("0123456789abcdef" * 62 + " ") * 64


def seed(address: str, mib: int) -> None:
    with Client(address, tenant="abuser", timeout=120) as mw:
        for n in range(mib):
            mw.put([fact(f"seed-{n}-{i}", f"{n} {i} {CHUNK}") for i in range(16)])


def summary(samples: list[float]) -> dict[str, float]:
    s = sorted(samples)
    if not s:
        return {"count": 0}
    return {"count": len(s), "median_ms": round(statistics.median(s) * 1000, 2),
            "p99_ms": round(s[min(len(s) - 1, int(len(s) * 0.99))] * 1000, 2),
            "max_ms": round(s[-1] * 1000, 2)}


def victim(address: str, seconds: float, clients: int) -> tuple[list[float], Counter[str]]:
    """Unary calls of the well-behaved tenant for ``seconds``."""
    latencies: list[float] = []
    errors: Counter[str] = Counter()
    lock = threading.Lock()
    deadline = time.monotonic() + seconds

    def run(n: int) -> None:
        mine: list[float] = []
        with Client(address, tenant="victim", timeout=10) as mw:
            i = 0
            while time.monotonic() < deadline:
                started = time.perf_counter()
                try:
                    if i % 4 == 0:
                        mw.get(f"v{n}-{i - 2}")
                    elif i % 4 == 1:
                        mw.capabilities()
                    elif i % 4 == 2:
                        mw.put(fact(f"v{n}-{i}", f"note {i} from client {n}"))
                    else:
                        mw.search("note", limit=5)
                except ServiceError as e:
                    with lock:
                        errors[e.reason] += 1
                mine.append(time.perf_counter() - started)
                i += 1
        with lock:
            latencies.extend(mine)

    threads = [threading.Thread(target=run, args=(n,)) for n in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return latencies, errors


class Abuse:
    """Every streaming method, abused by the tenant ``abuser``."""

    def __init__(self, address: str, args: argparse.Namespace) -> None:
        self.args = args
        # Without BDP probing the client's receive window stays at its
        # initial 64 KiB: an unread Export stalls on its first message,
        # where a grown window could take a whole small export unread.
        self.channel = grpc.insecure_channel(address, options=[("grpc.max_receive_message_length", 64 * MIB),
                                                               ("grpc.max_send_message_length", 64 * MIB),
                                                               ("grpc.http2.bdp_probe", 0)])
        self.address = address
        self.md = (("memorywire-tenant", "abuser"),)
        self.streams: list[Any] = []
        self.outcomes: Counter[str] = Counter()
        self.stop = threading.Event()
        self.threads: list[threading.Thread] = []

    def _request(self, method: str) -> bytes:
        return memorywire.protobuf.encode({"specversion": "1.0", "operation_id": f"op-{method}"},
                                          type=f"memorywire.v1.{method}Request")

    def _import(self, messages: Iterator[bytes], name: str) -> None:
        try:
            self.channel.stream_unary(f"{SERVICE}/Import")(messages, metadata=self.md, timeout=120)
            self.outcomes[f"{name}:OK"] += 1
        except grpc.RpcError as e:
            self.outcomes[f"{name}:{service_error(e).reason}"] += 1

    def _messages(self, count: int, hold: bool) -> Iterator[bytes]:
        records = [fact(f"imp-{i}", f"{i} {CHUNK}") for i in range(15)]  # about 1 MiB
        for _ in range(count):
            if self.stop.is_set():
                return
            yield memorywire.protobuf.encode({"specversion": "1.0", "operation_id": f"op-imp-{hold}",
                                              "records": records}, type="memorywire.v1.ImportRequest")
        if hold:
            self.stop.wait()

    def _writer(self) -> None:
        """Writes that give the unread Watch streams events to pile up."""
        with Client(self.address, tenant="abuser", timeout=30) as mw:
            n = 0
            while not self.stop.is_set():
                try:
                    mw.put([fact(f"w-{n}-{i}", f"{n} {i} {CHUNK}") for i in range(4)])
                except ServiceError as e:
                    self.outcomes[f"put:{e.reason}"] += 1
                n += 1

    def start(self) -> None:
        a = self.args
        for method, count in (("Export", a.exports), ("Watch", a.watches)):
            for _ in range(count):
                self.streams.append((method, self.channel.unary_stream(f"{SERVICE}/{method}")(
                    self._request(method), metadata=self.md)))
        jobs: list[tuple[Callable[..., None], tuple[Any, ...]]] = [
            (self._import, (self._messages(1, True), "stalled-import")) for _ in range(a.stalled_imports)]
        jobs.append((self._import, (self._messages(a.import_mib, False), "huge-import")))
        jobs.append((self._writer, ()))
        for target, job_args in jobs:
            t = threading.Thread(target=target, args=job_args, daemon=True)
            t.start()
            self.threads.append(t)

    def end(self) -> None:
        self.stop.set()
        for method, call in self.streams:
            if call.done():
                try:
                    self.outcomes[f"{method}:{service_error(call).reason}"] += 1
                except Exception:  # noqa: BLE001
                    self.outcomes[f"{method}:OK"] += 1
            else:
                # admitted: its status, if it has one, waits behind the unread messages
                self.outcomes[f"{method}:admitted"] += 1
            call.cancel()
        for t in self.threads:
            t.join(30)
        self.channel.close()


def run(args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="memorywire-fair-") as tmp:
        server = ServeProcess(Path(tmp) / "store.sqlite3",
                        ["--quiet", "--no-warm", "--stream-stall-timeout", str(args.stall),
                         "--max-import-mib", str(args.max_import_mib)])
        try:
            log(f"fairness: server at {server.target}; seeding {args.seed_mib} MiB for the abuser")
            seed(server.target, args.seed_mib)
            rss = {"seeded": server.rss_mib()}
            log(f"fairness: the other tenant alone for {args.seconds:g} s")
            idle, idle_errors = victim(server.target, args.seconds, args.clients)
            rss["idle"] = server.rss_mib()
            abuse = Abuse(server.target, args)
            log(f"fairness: {args.exports} unread Exports, {args.watches} unread Watches, "
                f"{args.stalled_imports} stalled Imports, an Import of {args.import_mib} MiB")
            abuse.start()
            time.sleep(0.5)
            loaded, loaded_errors = victim(server.target, args.seconds, args.clients)
            rss["abused"] = server.rss_mib()
            # the stalled streams are ended by the server within the stall timeout
            # of their stalling; on a loaded machine an Export fills the
            # transport and stalls later, so wait for every admitted one
            admitted = {"Export": args.exports - abuse.outcomes.get("Export:RATE_LIMITED", 0),
                        "Watch": args.watches - abuse.outcomes.get("Watch:RATE_LIMITED", 0)}
            deadline = time.monotonic() + args.stall + 20
            time.sleep(args.stall + 1.5)
            while time.monotonic() < deadline and any(
                    sum(1 for e in server.lines if e.get("event") == "call" and e.get("method") == method
                        and e.get("reason") == "UNAVAILABLE") < count for method, count in admitted.items()):
                time.sleep(0.25)
            abuse.end()
            time.sleep(1.0)
            rss["after"] = server.rss_mib()
            stalled = Counter(f"{e['method']}:{e['reason']}" for e in server.lines
                              if e.get("event") == "call" and e.get("reason") == "UNAVAILABLE")
            ended = Counter(f"{e['method']}:{e.get('reason') or e.get('code')}" for e in server.lines
                            if e.get("event") == "call" and e.get("tenant") == "abuser"
                            and e.get("method") in ("Export", "Watch", "Import"))
            report = {
                "idle": summary(idle), "idle_errors": dict(idle_errors),
                "abused": summary(loaded), "abused_errors": dict(loaded_errors),
                "abuser_outcomes": dict(sorted(abuse.outcomes.items())),
                "ended_as_stalled": dict(sorted(stalled.items())),
                "abuser_streams_ended": dict(sorted(ended.items())),
                "rss_mib": {k: round(v, 1) for k, v in rss.items()},
            }
            if idle and loaded:
                report["p99_ratio"] = round(summary(loaded)["p99_ms"] / max(summary(idle)["p99_ms"], 0.01), 2)
            return report
        finally:
            server.stop()


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seconds", type=float, default=10.0, help="how long the other tenant calls, idle and abused")
    p.add_argument("--clients", type=int, default=2, help="threads of the other tenant")
    p.add_argument("--seed-mib", type=int, default=32, help="MiB of records of the abuser, to export")
    p.add_argument("--exports", type=int, default=32)
    p.add_argument("--watches", type=int, default=16)
    p.add_argument("--stalled-imports", type=int, default=3,
                   help="Imports that send one message and then nothing; with the huge one, as many as "
                        "the server takes from one tenant")
    p.add_argument("--import-mib", type=int, default=512, help="the MiB the huge Import sends")
    p.add_argument("--max-import-mib", type=int, default=64, help="the server's --max-import-mib")
    p.add_argument("--stall", type=float, default=5.0, help="the server's --stream-stall-timeout")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    args = p.parse_args()
    report = run(args)
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"{'':24}{'calls':>8}{'median ms':>12}{'p99 ms':>10}{'max ms':>10}  errors")
    for name in ("idle", "abused"):
        s = report[name]
        print(f"{'other tenant, ' + name:24}{s.get('count', 0):>8}{s.get('median_ms', 0):>12}"
              f"{s.get('p99_ms', 0):>10}{s.get('max_ms', 0):>10}  {report[name + '_errors'] or 'none'}")
    if "p99_ratio" in report:
        print(f"p99 abused / idle: {report['p99_ratio']}x")
    print("abuser:", ", ".join(f"{k} {v}" for k, v in report["abuser_outcomes"].items()))
    print("ended by the server as stalled:",
          ", ".join(f"{k} {v}" for k, v in report["ended_as_stalled"].items()) or "none")
    print("server RSS (MiB):", ", ".join(f"{k} {v}" for k, v in report["rss_mib"].items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
