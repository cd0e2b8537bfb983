"""The reference service on an embedded store, used as a new user would use
it, then checked by the service level of the conformance suite.

Run through `make demo`: it starts `memorywire serve` on a SQLite file in a
temporary folder, on a free loopback port, with bearer tokens (on loopback
they need no TLS) and the HTTP binding beside gRPC, and stops it at the end.
"""

from __future__ import annotations

import http.client
import json
import pathlib
import socket
import subprocess
import sys
import tempfile
from typing import Any

import memorywire
from memorywire.service.process import ServeProcess

BIN = pathlib.Path(sys.executable).parent


#: Each token and the tenants it covers; the conformance suite's token covers every tenant.
TOKENS = {"acme-demo-token": ["acme"], "globex-demo-token": ["globex"], "conformance-demo-token": "*"}


def tour(target: str) -> None:
    emb = {"model": "demo-3d", "dimensions": 3}
    with memorywire.Client(target, tenant="acme", token="acme-demo-token") as mw:
        mw.put([
            {"id": "f1", "kind": "fact", "fact": {"text": "The user prefers window seats."},
             "embeddings": [{**emb, "values": [0.9, 0.1, 0.0]}]},
            {"id": "f2", "kind": "fact", "fact": {"text": "The user is vegetarian."},
             "embeddings": [{**emb, "values": [0.0, 0.2, 0.9]}]},
        ], scope={"user": "u-42"})
        hit = mw.search("window seat", scope={"user": "u-42"})["hits"][0]
        print(f"  recall by text 'window seat': {hit['record']['id']} (score {hit['score']:.3f})")
        hit = mw.search(vector={"model": "demo-3d", "values": [0.0, 0.1, 1.0]}, limit=1)["hits"][0]
        print(f"  recall by vector: {hit['record']['id']} (cosine {hit['score']:.3f})")
        stream = mw.watch(from_start=True)
        first = next(stream)
        stream.cancel()
        mw.put({"id": "f3", "kind": "fact", "fact": {"text": "The user flies from Lisbon."}})
        resumed = [e["record"]["id"] for e in mw.watch(cursor=first["cursor"], max_events=2)]
        print(f"  watch: saw {first['record']['id']}, disconnected, resumed with {resumed}")
    with memorywire.Client(target, tenant="globex", token="globex-demo-token") as other:
        found = other.search("window seat").get("hits", [])
        missing = other.get(["f1"]).get("missing_ids", [])
        print(f"  tenant globex: search finds {len(found)} records, get of f1 reports missing {missing}")
    for tenant, token in (("acme", "globex-demo-token"), ("acme", None)):
        with memorywire.Client(target, tenant=tenant, token=token) as mw:
            try:
                mw.get(["f1"])
                raise SystemExit(f"a call as {tenant} with the token {token} was accepted")
            except memorywire.MemorywireError as e:
                print(f"  tenant {tenant} with {token or 'no token'}: {e.reason}")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def http_tour(port: int) -> None:
    """The same memory over HTTP, as curl would use it (spec/v1/http-binding.md)."""
    headers = {"content-type": "application/json", "memorywire-tenant": "acme",
               "authorization": "Bearer acme-demo-token"}
    path = "/memorywire.v1.MemoryService/"

    def post(method: str, body: dict[str, Any], **extra: str) -> http.client.HTTPResponse:
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        c.request("POST", path + method, json.dumps({"specversion": "1.0", **body}), {**headers, **extra})
        return c.getresponse()

    def events(r: http.client.HTTPResponse) -> Any:
        fields: dict[str, str] = {}
        for raw in r:
            line = raw.decode().rstrip("\r\n")
            if line:
                if not line.startswith(":"):
                    name, _, value = line.partition(": ")
                    fields[name] = value
                continue
            if "data" in fields:
                yield fields.get("event", "message"), fields.get("id"), json.loads(fields["data"])
            fields = {}

    r = post("Put", {"operation_id": "op-http-1", "items": [
        {"record": {"id": "h1", "kind": "fact", "fact": {"text": "The user's seat is 14A."}}}]})
    print(f"  POST Put: {r.status}, {json.loads(r.read())['results'][0]['status']}")
    r = post("Search", {"operation_id": "op-http-2", "text": "seat 14A", "limit": 1})
    print(f"  POST Search: {r.status}, found {json.loads(r.read())['hits'][0]['record']['id']}")
    r = post("Watch", {"operation_id": "op-http-3", "from_start": True}, accept="text/event-stream")
    _, last, first = next(events(r))
    r.close()  # the connection drops
    post("Put", {"operation_id": "op-http-4", "items": [
        {"record": {"id": "h2", "kind": "fact", "fact": {"text": "The user likes aisle seats now."}}}]}).read()
    r = post("Watch", {"operation_id": "op-http-5", "max_events": 4}, accept="text/event-stream",
             **{"last-event-id": last or ""})
    resumed = [data["event"]["record"]["id"] for kind, _, data in events(r) if kind == "message"]
    print(f"  POST Watch (Server-Sent Events): saw {first['event']['record']['id']}, disconnected, "
          f"resumed with Last-Event-ID: {resumed}")
    r = post("Get", {"operation_id": "op-http-6", "ids": ["h1"]}, **{"memorywire-tenant": "globex"})
    problem = json.loads(r.read())
    print(f"  tenant globex with acme's token: {r.status} {r.getheader('content-type')} {problem['reason']}")


def main() -> int:
    with tempfile.TemporaryDirectory() as folder:
        store = pathlib.Path(folder) / "memory.sqlite3"
        tokens = pathlib.Path(folder) / "tokens.json"
        tokens.write_text(json.dumps(TOKENS), "utf-8")
        token_file = pathlib.Path(folder) / "conformance-token"
        token_file.write_text("conformance-demo-token\n", "utf-8")
        http_port = _free_port()
        with ServeProcess(store, ["--tokens", str(tokens), "--http", f"127.0.0.1:{http_port}"]) as server:
            target = server.target
            print(f"memorywire serve on {target} (gRPC) and 127.0.0.1:{http_port} (HTTP), store "
                  f"{store.name} (SQLite), bearer tokens")
            tour(target)
            print("  -- the same service over HTTP --")
            http_tour(http_port)
            print()
            print("== conformance: the service level against the reference service ==")
            done = subprocess.run([str(BIN / "memorywire-conformance"), "service", "--target", target,
                                   "--level", "recommended", "--token-file", str(token_file)],
                                  check=False)
            return done.returncode


if __name__ == "__main__":
    sys.exit(main())
