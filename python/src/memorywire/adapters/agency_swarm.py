"""Agency Swarm 1.x: the flat thread list its save_threads_callback receives
(spec/v1/adapters/agency-swarm.md)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from memorywire._timestamp import in_range
from memorywire.adapters import _responses as r
from memorywire.adapters._kit import (
    AdapterError,
    Form,
    Ids,
    Record,
    align,
    from_value,
    micros_to_time,
    ordered,
    residue_of,
    time_to_micros,
    to_value,
)

FRAMEWORK = "agency-swarm"
THREAD_MESSAGE = "agency_swarm.thread_message"

#: The members MessageFormatter.add_agency_metadata writes, in its order.
METADATA_ORDER = ("agent", "callerAgent", "agent_run_id", "parent_run_id", "run_trace_id", "history_protocol",
                  "timestamp")
#: Members Agency Swarm adds besides: a message's citations, a system message's origin.
AGENCY_MEMBERS = (*METADATA_ORDER, "citations", "message_origin")
#: Members every stored message has (add_agency_metadata always writes them,
#: and type where the item has none).
REQUIRED = ("type", "agent", "callerAgent", "timestamp")
#: Trace ids that name no trace (agency_swarm.agent.execution_streaming.SENTINEL_TRACE_IDS).
SENTINEL_TRACE_IDS = ("no-op",)
EXTENSIONS = {"history_protocol": "agency-swarm.history_protocol", "message_origin": "agency-swarm.message_origin"}
CITATION_ORDER = ("file_id", "filename", "index", "type", "method", "text", "url", "title", "start_index",
                  "end_index")

Json = dict[str, Any]


def _encode_message(msg: Any, position: int, ids: Ids, scope: Mapping[str, Any]) -> Record:
    pointer = f"/{position}"
    if type(msg) is not dict:
        raise AdapterError.at(pointer, "TYPE_MISMATCH", f"a thread message is a dict, not {type(msg).__name__}")
    for key in REQUIRED:
        if key not in msg:
            raise AdapterError.at(f"{pointer}/{key}", "MISSING_MEMBER",
                                  f"every stored Agency Swarm message has {key!r}")
    item = {k: v for k, v in msg.items() if k not in AGENCY_MEMBERS}
    meta = r.Rest({k: v for k, v in msg.items() if k in AGENCY_MEMBERS}, pointer)
    mapped = r.encode_item(item, pointer)
    routing: Json = {}
    agent = meta.text("agent", 256)
    if agent is not None:
        routing["agent"] = agent
    caller = meta.get("callerAgent")
    if caller is None:
        meta.take("callerAgent")
    else:
        caller = meta.text("callerAgent", 256)
        if caller is not None:
            routing["caller_agent"] = caller
    parent = meta.text("parent_run_id", 256)
    if parent is not None:
        routing["parent_run"] = parent
    trace = meta.get("run_trace_id")
    if trace not in SENTINEL_TRACE_IDS:
        trace = meta.text("run_trace_id", 256)
        if trace is not None:
            routing["trace_id"] = trace
    row_scope = dict(scope)
    run = meta.text("agent_run_id", 256)
    if run is not None:
        row_scope["run"] = run
    created = None
    stamp = meta.get("timestamp")
    if type(stamp) is int and in_range(stamp // 1_000_000, stamp % 1_000_000 * 1000):
        created = micros_to_time(meta.take("timestamp"))
    extensions: Json = {}
    for key, name in EXTENSIONS.items():
        if key in meta.left:
            extensions[name] = to_value(meta.take(key), f"{pointer}/{key}")
    citations: list[Json] = []
    if mapped.kind == "message" and type(meta.get("citations")) is list:
        citations = r.encode_annotations(meta, "citations")
    mapped.rest.left.update(meta.left)
    mapped.rest.built.update(meta.built)
    record = r.record_of(THREAD_MESSAGE, FRAMEWORK, ids, position, mapped, row_scope)
    if citations:
        record["message"]["citations"] = citations
    if created is not None:
        record["created_at"] = created
    if routing:
        record["routing"] = routing
    if extensions:
        record["extensions"] = extensions
    return record


def _encode(items: list[Any], scope: dict[str, Any]) -> list[Record]:
    if "run" in scope:
        raise AdapterError.at("/scope/run", "UNSUPPORTED_ITEM",
                              "the run of each Agency Swarm message is its own agent_run_id")
    ids = Ids(THREAD_MESSAGE, scope)
    return [_encode_message(m, i, ids, scope) for i, m in enumerate(items)]


def _decode_message(record: Mapping[str, Any], residue: Any, pointer: str) -> list[Json]:
    extra = r.unwrap(residue)
    # citations are mapped element by element on messages only; elsewhere they are kept as they are.
    built = ("citations",) if record.get("kind") == "message" else ()
    meta = r.members({k: v for k, v in extra.items() if k in AGENCY_MEMBERS}, built)
    if residue is None:
        items = r.decode_items(record, None, pointer)
    else:
        item_extra = {k: v for k, v in extra.items() if k not in AGENCY_MEMBERS}
        items = [r.decode_item(record, r.wrap(item_extra), pointer)]
    message = record.get("message") or {}
    entries = r.residue_list(extra, "citations") if built else None
    citations: Any = r._ABSENT
    if entries is not None or message.get("citations"):
        citations = []
        for entry, c in align(entries, message.get("citations", [])):
            if c is None:
                citations.append(r.restore(entry, {}))
            else:
                citations.append(ordered({**r.members(r.entry_map(entry)),
                                          **{k: c[k] for k in r.ANNOTATION_FIELDS if k in c}}, CITATION_ORDER))
    elif "citations" in meta:
        citations = meta["citations"]
    meta.pop("citations", None)
    extensions = record.get("extensions") or {}
    routing = record.get("routing") or {}
    scope = record.get("scope") or {}
    out: Json = {}
    if "agent" in routing:
        out["agent"] = routing["agent"]
    out["callerAgent"] = routing.get("caller_agent")
    if "run" in scope:
        out["agent_run_id"] = scope["run"]
    if "parent_run" in routing:
        out["parent_run_id"] = routing["parent_run"]
    if "trace_id" in routing:
        out["run_trace_id"] = routing["trace_id"]
    if EXTENSIONS["history_protocol"] in extensions:
        out["history_protocol"] = from_value(extensions[EXTENSIONS["history_protocol"]])
    if "created_at" in record:
        out["timestamp"] = time_to_micros(record["created_at"])
    out.update(meta)  # what the neutral fields could not hold, as it was
    origin = EXTENSIONS["message_origin"] in extensions
    result: list[Json] = []
    for n, item in enumerate(items):
        tail_type = r._ABSENT
        if "role" in item and "id" not in item and item.get("type", "message") == "message":
            # add_agency_metadata appends type after its members (to every
            # message that lacks it); its own system messages begin with
            # role and content.
            tail_type = item.pop("type", "message" if residue is None else r._ABSENT)
            item = ordered(item, ("role", "content") if origin else r.ITEM_ORDER["input_message"])
        if n == 0 and citations is not r._ABSENT:
            item["citations"] = citations
        if origin:
            item["message_origin"] = from_value(extensions[EXTENSIONS["message_origin"]])
        item.update(ordered(out, METADATA_ORDER))
        if tail_type is not r._ABSENT:
            item["type"] = tail_type
        result.append(item)
    return result


def _decode(records: list[Record]) -> list[Any]:
    return [item for i, rec in enumerate(records)
            for item in _decode_message(rec, residue_of(rec, THREAD_MESSAGE), f"/{i}")]


FORMS = (
    Form(THREAD_MESSAGE, FRAMEWORK,
         "Agency Swarm 1.x thread messages: the flat list save_threads_callback receives (Responses items "
         "with agent, callerAgent, timestamp and the run metadata).",
         _encode, _decode),
)
