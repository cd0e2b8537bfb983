"""memorywire mcp: the memory tools, driven by the MCP SDK's own client in
process (memory streams), over stdio (a spawned ``memorywire mcp``), and
in front of a real ``memorywire serve``."""

from __future__ import annotations

import json
import os
import pathlib
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractAsyncContextManager, contextmanager
from typing import Any

import anyio
import pytest

pytest.importorskip("mcp")

from mcp import Client, StdioServerParameters  # noqa: E402
from mcp_types import CallToolResult  # noqa: E402

from memorywire import cli  # noqa: E402
from memorywire.client import Client as MemoryClient  # noqa: E402
from memorywire.mcp import TOOLS, InProcess, Memory, server, tool_schema  # noqa: E402
from memorywire.service.process import ServeProcess  # noqa: E402
from memorywire.service.store import Store  # noqa: E402

SCHEMAS = pathlib.Path(__file__).resolve().parents[2] / "schemas" / "v1"

Connect = Callable[[], AbstractAsyncContextManager[Client]]


def seed(path: pathlib.Path) -> None:
    """Records the tools must not reach: another tenant's, and another user's
    of the same tenant."""
    store = Store(str(path))
    try:
        InProcess(store, "other").put({"id": "secret", "kind": "fact",
                                       "fact": {"text": "The launch code is 0000, window seat"}})
        InProcess(store, "t").put({"id": "u2-note", "kind": "fact",
                                   "fact": {"text": "User two wants a window seat"}}, scope={"user": "u2"})
    finally:
        store.close()


@contextmanager
def in_process(path: pathlib.Path, scope: dict[str, str]) -> Iterator[Connect]:
    store = Store(str(path))
    memory = Memory(InProcess(store, "t"), "t", scope)
    try:
        yield lambda: Client(server(memory))
    finally:
        store.close()


@contextmanager
def over_stdio(path: pathlib.Path, scope: dict[str, str]) -> Iterator[Connect]:
    args = ["-m", "memorywire", "mcp", "--store", str(path), "--tenant", "t"]
    for key, value in scope.items():
        args += [f"--{key}", value]
    params = StdioServerParameters(command=sys.executable, args=args,
                                   env=dict(os.environ, PYTHONUNBUFFERED="1"))
    yield lambda: Client(params)


@contextmanager
def before_serve(path: pathlib.Path, scope: dict[str, str]) -> Iterator[Connect]:
    with ServeProcess(path, ["--quiet"]) as served, MemoryClient(served.target, tenant="t") as client:
        memory = Memory(client, "t", scope)
        yield lambda: Client(server(memory))


WAYS = {"in_process": in_process, "stdio": over_stdio, "serve": before_serve}


# A spawned server takes a few seconds to start and stop on each test.
@pytest.fixture(params=[pytest.param(way, marks=pytest.mark.slow) if way == "stdio" else way for way in sorted(WAYS)])
def connect(request: pytest.FixtureRequest, tmp_path: pathlib.Path) -> Iterator[Connect]:
    path = tmp_path / "store.sqlite3"
    seed(path)
    with WAYS[request.param](path, {"user": "u1"}) as connect:
        yield connect


def run(body: Callable[[Client], Any], connect: Connect) -> None:
    async def main() -> None:
        async with connect() as client:
            with anyio.fail_after(60):
                await body(client)

    anyio.run(main)


def ok(result: CallToolResult) -> dict[str, Any]:
    assert not result.is_error, result.content
    assert result.content and result.content[0].type == "text" and result.content[0].text
    assert isinstance(result.structured_content, dict)
    return result.structured_content


def failed(result: CallToolResult) -> dict[str, Any]:
    assert result.is_error
    assert isinstance(result.structured_content, dict)
    error: dict[str, Any] = result.structured_content["error"]
    assert result.content[0].type == "text" and error["reason"] in result.content[0].text
    return error


def fact(text: str, values: list[float] | None = None, **more: Any) -> dict[str, Any]:
    args: dict[str, Any] = {"fact": {"text": text}, **more}
    if values is not None:
        args["embeddings"] = [{"model": "demo", "dimensions": len(values), "values": values}]
    return args


# -- the tools and their schemas --------------------------------------------------------------


def test_the_tools_and_their_schemas(connect: Connect) -> None:
    async def body(client: Client) -> None:
        listed = {t.name: t for t in (await client.list_tools()).tools}
        assert sorted(listed) == ["forget", "history", "recall", "remember", "update"]
        for tool in listed.values():
            schema = tool.input_schema
            assert schema["type"] == "object" and schema["additionalProperties"] is False
            # No combinator at the top, which some clients refuse.
            assert not {"oneOf", "anyOf", "allOf"} & set(schema)
            assert "'t'" in (tool.description or "") and "'u1'" in (tool.description or "")
            # The client checks every structured result against it.
            assert tool.output_schema is not None and tool.output_schema["additionalProperties"] is False
        recall = listed["recall"].input_schema
        search = json.loads((SCHEMAS / "search-request.schema.json").read_text())["$defs"]["strict"]
        assert recall["properties"]["text"] == search["properties"]["text"]
        assert recall["properties"]["filter"]["$ref"] == "#/$defs/filter"
        assert recall["$defs"]["vector-query"]["required"] == ["model", "values"]
        assert "scope" not in recall["properties"] and "tenant" not in json.dumps(recall["properties"])
        assert set(listed["update"].input_schema["required"]) == {"id", "patch"}
        assert listed["recall"].annotations is not None and listed["recall"].annotations.read_only_hint

    run(body, connect)


def test_the_schemas_are_the_memorywire_schemas_bundled() -> None:
    for tool in TOOLS:
        for schema in (tool.input_schema, tool.output_schema):
            text = json.dumps(schema)
            # Every reference is local, and every local reference resolves.
            refs = [part.split('"')[0] for part in text.split('"$ref": "')[1:]]
            for ref in refs:
                assert ref.startswith("#/$defs/") and ref.removeprefix("#/$defs/") in schema["$defs"], (tool, ref)
        assert tool.input_schema == tool_schema(tool.fields, tool.required, tool.notes)
        schema = tool.input_schema
        for name, (file, prop) in tool.fields.items():
            source = json.loads((SCHEMAS / f"{file}.schema.json").read_text())
            strict = source["$defs"].get("strict", source)
            assert schema["properties"][name]["description"].startswith(strict["properties"][prop]["description"])


# -- the operations -----------------------------------------------------------------------------


def test_remember_recall_history_update_forget(connect: Connect) -> None:
    async def body(client: Client) -> None:
        first = ok(await client.call_tool("remember", fact("The user prefers window seats.", [0.9, 0.1, 0.0],
                                                           id="f1")))
        assert first == {"id": "f1", "kind": "fact", "status": "created", "revision": 1,
                         "sequence": first["sequence"]}
        ok(await client.call_tool("remember", fact("The user is vegetarian.", [0.0, 0.2, 0.9], id="f2")))
        said = ok(await client.call_tool("remember", {"message": {
            "role": "user", "content": [{"text": {"text": "Book me a seat by the window"}}]}}))
        assert said["kind"] == "message" and said["id"]

        by_text = ok(await client.call_tool("recall", {"text": "window seats"}))
        ids = [h["record"]["id"] for h in by_text["hits"]]
        assert ids[0] == "f1" and "f2" not in ids
        assert all(h["record"]["scope"] == {"tenant": "t", "user": "u1"} for h in by_text["hits"])
        by_vector = ok(await client.call_tool("recall", {"vector": {"model": "demo", "values": [0.0, 0.1, 1.0]},
                                                         "limit": 1}))
        assert [h["record"]["id"] for h in by_vector["hits"]] == ["f2"]
        hybrid = ok(await client.call_tool("recall", {"text": "vegetarian", "vector": {
            "model": "demo", "values": [0.0, 0.2, 0.9]}}))
        assert hybrid["hits"][0]["record"]["id"] == "f2"
        filtered = ok(await client.call_tool("recall", {"text": "window", "filter": {
            "compare": {"field": "/kind", "operator": "eq", "value": "message"}}}))
        assert [h["record"]["id"] for h in filtered["hits"]] == [said["id"]]
        tagged = ok(await client.call_tool("remember", fact("Seat 12A on the last flight", tags=["travel"])))
        by_tag = ok(await client.call_tool("recall", {"text": "seat", "filter": {
            "compare": {"field": "/tags", "operator": "contains", "value": "travel"}}}))
        assert [h["record"]["id"] for h in by_tag["hits"]] == [tagged["id"]]

        history = ok(await client.call_tool("history", {}))
        assert [r["id"] for r in history["records"]] == ["f1", "f2", said["id"], tagged["id"]]
        newest = ok(await client.call_tool("history", {"order": "descending", "limit": 1}))
        assert [r["id"] for r in newest["records"]] == [tagged["id"]] and newest["next_cursor"]
        page = ok(await client.call_tool("history", {"order": "descending", "limit": 1,
                                                     "cursor": newest["next_cursor"]}))
        assert [r["id"] for r in page["records"]] == [said["id"]]

        updated = ok(await client.call_tool("update", {"id": "f1", "patch": {
            "fact": {"text": "The user prefers aisle seats."}, "tags": ["travel"]}}))
        assert updated["record"]["revision"] == 2 and updated["record"]["tags"] == ["travel"]
        stale = failed(await client.call_tool("update", {"id": "f1", "patch": {"tags": []},
                                                         "expected_revision": 1}))
        assert (stale["reason"], stale["code"], stale["pointer"]) == ("REVISION_MISMATCH", "aborted",
                                                                      "/expected_revision")

        gone = ok(await client.call_tool("forget", {"ids": ["f2"]}))
        assert gone["deleted_ids"] == ["f2"]
        left = ok(await client.call_tool("recall", {"text": "vegetarian"}))
        assert left["hits"] == []
        hard = ok(await client.call_tool("forget", {"ids": ["f1"], "mode": "hard"}))
        assert hard["deleted_ids"] == ["f1"]
        missing = failed(await client.call_tool("update", {"id": "f1", "patch": {"tags": []}}))
        assert (missing["reason"], missing["code"], missing["pointer"]) == ("RECORD_NOT_FOUND", "not_found", "/id")

    run(body, connect)


def test_an_invalid_argument_is_a_tool_error_naming_it(connect: Connect) -> None:
    async def body(client: Client) -> None:
        empty = failed(await client.call_tool("remember", {"fact": {"text": ""}}))
        assert empty["pointer"] == "/fact/text" and empty["code"] == "invalid_argument"
        assert empty["violations"][0]["pointer"] == "/fact/text"
        wrong = failed(await client.call_tool("recall", {"text": "x", "limit": "ten"}))
        assert (wrong["reason"], wrong["pointer"]) == ("TYPE_MISMATCH", "/limit")
        dims = failed(await client.call_tool("remember", {"fact": {"text": "x"}, "embeddings": [
            {"model": "demo", "dimensions": 4, "values": [1.0, 0.0]}]}))
        assert (dims["reason"], dims["pointer"]) == ("DIMENSION_MISMATCH", "/embeddings/0/dimensions")
        unknown = failed(await client.call_tool("recall", {"text": "x", "scope": {"tenant": "other"}}))
        assert (unknown["reason"], unknown["pointer"]) == ("UNKNOWN_FIELD", "/scope")
        neither = failed(await client.call_tool("remember", {}))
        assert neither["reason"] == "REQUIRED_FIELD_MISSING"
        ids = failed(await client.call_tool("forget", {"ids": "f1"}))
        assert (ids["reason"], ids["pointer"]) == ("TYPE_MISMATCH", "/ids")
        session = failed(await client.call_tool("history", {"session": "s" * 300}))
        assert session["pointer"] == "/session"

    run(body, connect)


def test_other_tenants_and_users_stay_out_of_reach(connect: Connect) -> None:
    async def body(client: Client) -> None:
        mine = ok(await client.call_tool("remember", fact("My window seat", id="mine")))
        assert mine["status"] == "created"
        found = ok(await client.call_tool("recall", {"text": "window seat launch code"}))
        assert [h["record"]["id"] for h in found["hits"]] == ["mine"]
        assert [r["id"] for r in ok(await client.call_tool("history", {}))["records"]] == ["mine"]
        for other in ("secret", "u2-note"):
            refused = failed(await client.call_tool("update", {"id": other, "patch": {"tags": ["x"]}}))
            assert refused["reason"] == "RECORD_NOT_FOUND"
        nothing = ok(await client.call_tool("forget", {"ids": ["secret", "u2-note"], "mode": "hard"}))
        assert nothing["deleted_ids"] == []
        everything = ok(await client.call_tool("forget", {"filter": {
            "compare": {"field": "/kind", "operator": "eq", "value": "fact"}}}))
        assert everything["deleted_ids"] == ["mine"]
        # Another user's record is not replaced, nor moved into this scope.
        taken = failed(await client.call_tool("remember", fact("Mine now", id="u2-note")))
        assert (taken["reason"], taken["pointer"]) == ("RECORD_EXISTS", "/id")
        moved = failed(await client.call_tool("update", {"id": "mine", "patch": {"scope": {"user": "u2"}}}))
        assert (moved["reason"], moved["pointer"]) == ("IMMUTABLE_FIELD", "/patch/scope")

    run(body, connect)


@pytest.mark.slow
def test_the_records_of_others_are_untouched(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "store.sqlite3"
    seed(path)
    with over_stdio(path, {"user": "u1", "agent": "a1"}) as connect:
        async def body(client: Client) -> None:
            ok(await client.call_tool("remember", fact("Mine", id="mine", session="s1")))
            assert ok(await client.call_tool("history", {"session": "s2"}))["records"] == []
            assert ok(await client.call_tool("forget", {"ids": ["secret", "u2-note"]}))["deleted_ids"] == []

        run(body, connect)
    store = Store(str(path))
    try:
        assert InProcess(store, "other").get("secret")["records"][0]["revision"] == 1
        ours = InProcess(store, "t").get(["u2-note", "mine"])["records"]
        assert [(r["id"], r["scope"], r["revision"]) for r in ours] == [
            ("u2-note", {"tenant": "t", "user": "u2"}, 1),
            ("mine", {"tenant": "t", "user": "u1", "agent": "a1", "session": "s1"}, 1)]
    finally:
        store.close()


# -- the command --------------------------------------------------------------------------------


def test_the_command_is_listed_and_checks_its_options(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.run(["--help"]) == 0
    assert "mcp" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exit:
        cli.run(["mcp", "--tenant", "t"])
    assert exit.value.code == 2
    assert "--service" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit:
        cli.run(["mcp", "--store", "x.sqlite3", "--tenant", "t", "--token-file", "token"])
    assert exit.value.code == 2
    assert "--token-file goes with --service" in capsys.readouterr().err



@pytest.mark.slow
def test_over_streamable_http(tmp_path: pathlib.Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen([sys.executable, "-m", "memorywire", "mcp", "--store", str(tmp_path / "s.sqlite3"),
                                "--tenant", "t", "--transport", "http", "--listen", f"127.0.0.1:{port}"],
                               stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert process.poll() is None and time.monotonic() < deadline, process.stderr
                time.sleep(0.1)

        async def body(client: Client) -> None:
            ok(await client.call_tool("remember", fact("Remembered over HTTP", id="h1")))
            found = ok(await client.call_tool("recall", {"text": "HTTP"}))
            assert [h["record"]["id"] for h in found["hits"]] == ["h1"]

        run(body, lambda: Client(f"http://127.0.0.1:{port}/mcp"))
    finally:
        process.terminate()
        process.wait(30)
        assert process.stderr is not None
        process.stderr.close()


@pytest.mark.slow
def test_the_command_against_a_service_with_a_token(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "store.sqlite3"
    seed(path)
    (tmp_path / "tokens.json").write_text(json.dumps({"3kq0Rj2vUoWbH8aX": ["t"]}))
    (tmp_path / "token").write_text("3kq0Rj2vUoWbH8aX\n")
    (tmp_path / "wrong").write_text("Zc1NfLw7pQe4Ty9s\n")
    with ServeProcess(path, ["--quiet", "--tokens", str(tmp_path / "tokens.json")]) as served:
        def spawned(token: str) -> Connect:
            args = ["-m", "memorywire", "mcp", "--service", served.target, "--tenant", "t", "--user", "u2",
                    "--token-file", str(tmp_path / token)]
            return lambda: Client(StdioServerParameters(command=sys.executable, args=args))

        async def body(client: Client) -> None:
            found = ok(await client.call_tool("recall", {"text": "window seat"}))
            assert [h["record"]["id"] for h in found["hits"]] == ["u2-note"]

        run(body, spawned("token"))

        async def refused(client: Client) -> None:
            error = failed(await client.call_tool("history", {}))
            assert (error["reason"], error["code"]) == ("CREDENTIALS_INVALID", "unauthenticated")

        run(refused, spawned("wrong"))

        # The store is the service's: a second process cannot open it.
        busy = subprocess.run([sys.executable, "-m", "memorywire", "mcp", "--store", str(path), "--tenant", "t"],
                              stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60, check=False)
        assert busy.returncode == 1 and "cannot open the store" in busy.stderr, busy.stderr
