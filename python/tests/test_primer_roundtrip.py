"""The worked mappings of the primer (spec/v1/primer.md, section 4), as code.

For Agency Swarm, an OpenAI Responses history and a LangGraph store, this module
holds a small adapter: ``to_memorywire(native)`` turns the framework's records
(plain dicts, shaped exactly as the framework writes them) into memorywire
record documents, and ``from_memorywire(records)`` turns them back. The tests
check that the trip loses nothing (values, types and the order of every dict's
keys), that every record is valid, that the records are the ones checked in
under examples/v1/primer/, and that the round-trip check does catch a loss.

The adapters follow the rules of primer section 3.1:

- the record id is the framework's id when it has one, otherwise a name-based
  UUID (``urn:uuid:``) that lives only in memorywire and is dropped on the way
  back;
- every framework member that has a neutral field goes there; the members
  that core.md names an extension for (Agency Swarm ``message_origin`` and
  ``history_protocol``) go into ``extensions``; every other member goes into
  ``native.record`` verbatim, in the same place in the structure (per list
  element where a list was mapped element by element);
- insertion order travels in ``sequence``; the way back sorts by it;
- the framework's own member order is restored from the order the framework
  writes its members in. The order of keys inside user data (a Value map, such
  as a LangGraph item value) carries no meaning in memorywire.
"""

from __future__ import annotations

import copy
import json
import pathlib
import random
import uuid
from collections.abc import Callable, Iterable
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCHEMAS = ROOT / "schemas" / "v1"
PRIMER = ROOT / "examples" / "v1" / "primer"
SPECVERSION = "1.0"

Record = dict[str, Any]


# --------------------------------------------------------------------------
# Shared helpers
# --------------------------------------------------------------------------


def canonical_json(document: Any) -> str:
    """The canonical JSON text of a document (json-format.md, section 7).

    Enough for the documents of this module: their floats print the same in
    Python and in ECMAScript, and none is integral.
    """
    return json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def timestamp_from_micros(micros: int) -> str:
    """An RFC 3339 timestamp in canonical form, from integer microseconds."""
    seconds, fraction = divmod(micros, 1_000_000)
    base = (EPOCH + timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%S")
    if fraction == 0:
        return base + "Z"
    if fraction % 1000 == 0:
        return f"{base}.{fraction // 1000:03d}Z"
    return f"{base}.{fraction:06d}Z"


def micros_from_timestamp(timestamp: str) -> int:
    """Integer microseconds from an RFC 3339 timestamp; exact or an error."""
    assert timestamp.endswith("Z"), timestamp
    base, _, fraction = timestamp[:-1].partition(".")
    when = datetime.strptime(base, "%Y-%m-%dT%H:%M:%S").replace(tzinfo=timezone.utc)
    nanos = int(fraction.ljust(9, "0")) if fraction else 0
    if nanos % 1000:
        raise ValueError(f"{timestamp} is finer than a microsecond")
    return (when - EPOCH) // timedelta(seconds=1) * 1_000_000 + nanos // 1000


def timestamp_from_isoformat(text: str) -> str:
    """An RFC 3339 timestamp in canonical form, from datetime.isoformat() text."""
    when = datetime.fromisoformat(text).astimezone(timezone.utc)
    return timestamp_from_micros((when - EPOCH) // timedelta(microseconds=1))


def isoformat_from_timestamp(timestamp: str) -> str:
    """What datetime.isoformat() writes for the instant, as an aware UTC datetime."""
    micros = micros_from_timestamp(timestamp)
    return (EPOCH + timedelta(microseconds=micros)).isoformat()


def generated_id(framework: str, *names: str) -> str:
    """A record id for a framework record that has none: a name-based UUID."""
    name = json.dumps([framework, *names], ensure_ascii=False)
    return uuid.uuid5(uuid.NAMESPACE_URL, "https://memorywire.dev/primer/" + name).urn


def is_generated(record_id: str) -> bool:
    return record_id.startswith("urn:uuid:")


def ordered(members: dict[str, Any], order: Iterable[str]) -> dict[str, Any]:
    """The members in the framework's order; members it does not know come last."""
    order = list(order)
    result = {key: members[key] for key in order if key in members}
    result.update({key: value for key, value in members.items() if key not in order})
    return result


def split(members: dict[str, Any], mapped: Iterable[str]) -> dict[str, Any]:
    """The members that have no neutral field: they go into native.record."""
    mapped = set(mapped)
    return {key: copy.deepcopy(value) for key, value in members.items() if key not in mapped}


def sorted_by_sequence(records: list[Record]) -> list[Record]:
    return sorted(records, key=lambda record: record["sequence"])


def assert_identical(actual: Any, expected: Any, path: str = "$") -> None:
    """Equal values of equal types, with the keys of every dict in the same order."""
    assert type(actual) is type(expected), (
        f"{path}: {type(actual).__name__} != {type(expected).__name__}"
    )
    if isinstance(expected, dict):
        assert list(actual) == list(expected), f"{path}: keys {list(actual)} != {list(expected)}"
        for key in expected:
            assert_identical(actual[key], expected[key], f"{path}.{key}")
    elif isinstance(expected, list):
        assert len(actual) == len(expected), f"{path}: {len(actual)} items != {len(expected)}"
        for index, (left, right) in enumerate(zip(actual, expected, strict=True)):
            assert_identical(left, right, f"{path}[{index}]")
    else:
        assert actual == expected, f"{path}: {actual!r} != {expected!r}"


# --------------------------------------------------------------------------
# OpenAI Responses items (shared by the Responses and the Agency Swarm adapter)
# --------------------------------------------------------------------------

# The order in which the openai package writes the members of each item
# (pydantic field order, model_dump(exclude_unset=True)) or in which the
# Agents SDK builds them (input_to_new_input_list: content, then role).
ITEM_ORDER = {
    "input_message": ("content", "role", "type", "phase"),
    "message": ("id", "content", "role", "status", "type", "phase"),
    "function_call": (
        "id",
        "arguments",
        "call_id",
        "name",
        "type",
        "status",
        "namespace",
        "caller",
    ),
    "function_call_output": ("call_id", "output", "type", "id", "status"),
    "reasoning": ("id", "summary", "type", "content", "encrypted_content", "status"),
}
PART_ORDER = {
    "input_text": ("text", "type"),
    "output_text": ("annotations", "text", "type", "logprobs"),
}
ANNOTATION_ORDER = {
    "file_citation": ("file_id", "filename", "index", "type"),
    "url_citation": ("end_index", "start_index", "title", "type", "url"),
}
ANNOTATION_MEMBERS = (
    "type",
    "url",
    "title",
    "file_id",
    "filename",
    "text",
    "index",
    "start_index",
    "end_index",
)


def annotation_to_memorywire(annotation: dict[str, Any]) -> dict[str, Any]:
    return {key: annotation[key] for key in ANNOTATION_MEMBERS if key in annotation}


def annotation_from_memorywire(annotation: dict[str, Any]) -> dict[str, Any]:
    return ordered(dict(annotation), ANNOTATION_ORDER.get(annotation["type"], ()))


def responses_item_to_record(item: dict[str, Any], record_id: str) -> tuple[Record, dict[str, Any]]:
    """One Responses item as a record (without envelope), and its native residue."""
    item_type = item.get("type")
    if item_type in (None, "message"):
        content = item["content"]
        message: dict[str, Any] = {"role": item["role"]}
        residue = split(item, ("id", "role", "content", "status", "phase"))
        if isinstance(content, str):
            parts = [{"text": {"text": content}}] if content else []
        else:
            parts, part_residues = [], []
            for part in content:
                text_part: dict[str, Any] = {"text": part["text"]}
                if part.get("annotations"):
                    text_part["annotations"] = [
                        annotation_to_memorywire(a) for a in part["annotations"]
                    ]
                parts.append({"text": text_part})
                part_residues.append(split(part, ("text", "annotations")))
            residue["content"] = part_residues
        if parts:
            message["content"] = parts
        for key in ("status", "phase"):
            if key in item:
                message[key] = item[key]
        return {"kind": "message", "message": message}, residue
    if item_type == "reasoning":
        reasoning: dict[str, Any] = {}
        if item["summary"]:
            reasoning["summary"] = [entry["text"] for entry in item["summary"]]
        if item.get("encrypted_content"):
            reasoning["encrypted_content"] = item["encrypted_content"]
        message = {"role": "assistant", "content": [{"reasoning": reasoning}]}
        if "status" in item:
            message["status"] = item["status"]
        residue = split(item, ("id", "summary", "encrypted_content", "status"))
        residue["summary"] = [split(entry, ("text",)) for entry in item["summary"]]
        return {"kind": "message", "message": message}, residue
    if item_type == "function_call":
        tool_call = {
            key: item[key] for key in ("call_id", "name", "arguments", "status") if key in item
        }
        residue = split(item, ("id", "call_id", "name", "arguments", "status"))
        return {"kind": "tool_call", "tool_call": tool_call}, residue
    if item_type == "function_call_output":
        if not isinstance(item["output"], str):
            raise ValueError("output as a list of parts is not part of the primer")
        tool_result = {"call_id": item["call_id"], "output": item["output"]}
        residue = split(item, ("id", "call_id", "output"))
        return {"kind": "tool_result", "tool_result": tool_result}, residue
    raise ValueError(f"Responses item type {item_type!r} is not part of the primer")


def responses_item_from_record(record: Record, residue: dict[str, Any]) -> dict[str, Any]:
    """The Responses item of a record: neutral fields plus the native residue."""
    residue = copy.deepcopy(residue)
    members: dict[str, Any] = {}
    if not is_generated(record["id"]):
        members["id"] = record["id"]
    kind = record["kind"]
    if kind == "tool_call":
        members.update(record["tool_call"])
        members.setdefault("arguments", "")
        return ordered({**members, **residue}, ITEM_ORDER["function_call"])
    if kind == "tool_result":
        result = record["tool_result"]
        members.update(call_id=result["call_id"], output=result.get("output", ""))
        return ordered({**members, **residue}, ITEM_ORDER["function_call_output"])
    message = record["message"]
    if residue.get("type") == "reasoning":
        reasoning = message["content"][0]["reasoning"]
        summary = [
            ordered({"text": text, **extra}, ("text", "type"))
            for text, extra in zip(
                reasoning.get("summary", []), residue.pop("summary"), strict=True
            )
        ]
        members["summary"] = summary
        if "encrypted_content" in reasoning:
            members["encrypted_content"] = reasoning["encrypted_content"]
        if "status" in message:
            members["status"] = message["status"]
        return ordered({**members, **residue}, ITEM_ORDER["reasoning"])
    members["role"] = message["role"]
    for key in ("status", "phase"):
        if key in message:
            members[key] = message[key]
    parts = message.get("content", [])
    if "content" in residue:
        content = []
        for part, extra in zip(parts, residue.pop("content"), strict=True):
            text_part = part["text"]
            rebuilt: dict[str, Any] = {"text": text_part["text"], **extra}
            if extra.get("type") == "output_text" or text_part.get("annotations"):
                rebuilt["annotations"] = [
                    annotation_from_memorywire(a) for a in text_part.get("annotations", [])
                ]
            content.append(ordered(rebuilt, PART_ORDER.get(extra.get("type"), ())))
        members["content"] = content
    else:
        members["content"] = "".join(part["text"]["text"] for part in parts)
    shape = "input_message" if "id" not in members else "message"
    return ordered({**members, **residue}, ITEM_ORDER[shape])


# --------------------------------------------------------------------------
# (b) An OpenAI Responses history, as an openai-agents session keeps it
# --------------------------------------------------------------------------

RESPONSES_SESSION = "lisbon-trip-u4821"
RESPONSES_NATIVE = {
    "framework": "openai-agents",
    "framework_version": "0.22.0",
    "format": "responses",
}


def responses_to_memorywire(
    items: list[dict[str, Any]], session_id: str = RESPONSES_SESSION, first_sequence: int = 1
) -> list[Record]:
    records = []
    for position, item in enumerate(items):
        record_id = item.get("id") or generated_id("openai-agents", session_id, str(position))
        body, residue = responses_item_to_record(item, record_id)
        record: Record = {
            "specversion": SPECVERSION,
            "id": record_id,
            "kind": body.pop("kind"),
            "scope": {"session": session_id},
            "sequence": first_sequence + position,
            **body,
            "native": {**RESPONSES_NATIVE, "record": residue},
        }
        records.append(record)
    return records


def responses_from_memorywire(records: list[Record]) -> list[dict[str, Any]]:
    return [
        responses_item_from_record(r, r["native"]["record"]) for r in sorted_by_sequence(records)
    ]


# --------------------------------------------------------------------------
# (a) Agency Swarm: the flat message list of one chat
# --------------------------------------------------------------------------

AGENCY_CHAT = "chat_12b8880a56f5a511"
AGENCY_NATIVE = {"framework": "agency-swarm", "framework_version": "1.11.0", "format": "responses"}
# MessageFormatter.add_agency_metadata writes these after the item's own members.
AGENCY_METADATA_ORDER = (
    "agent",
    "callerAgent",
    "agent_run_id",
    "parent_run_id",
    "run_trace_id",
    "history_protocol",
    "timestamp",
)
AGENCY_MAPPED = {
    "agent",
    "callerAgent",
    "timestamp",
    "citations",
    "agent_run_id",
    "parent_run_id",
    "run_trace_id",
    "history_protocol",
    "message_origin",
}
CITATION_ORDER = ("file_id", "filename", "index", "type", "method", "text")


def agency_to_memorywire(
    messages: list[dict[str, Any]], chat_id: str = AGENCY_CHAT, first_sequence: int = 1
) -> list[Record]:
    records = []
    for position, message in enumerate(messages):
        item = {key: value for key, value in message.items() if key not in AGENCY_MAPPED}
        record_id = message.get("id") or generated_id("agency-swarm", chat_id, str(position))
        body, residue = responses_item_to_record(item, record_id)
        if "citations" in message:
            body["message"]["citations"] = [
                annotation_to_memorywire(c) for c in message["citations"]
            ]
            residue["citations"] = [split(c, ANNOTATION_MEMBERS) for c in message["citations"]]
        scope = {"session": chat_id}
        if "agent_run_id" in message:
            scope["run"] = message["agent_run_id"]
        routing = {"agent": message["agent"]}
        if message["callerAgent"] is not None:
            routing["caller_agent"] = message["callerAgent"]
        if "parent_run_id" in message:
            routing["parent_run"] = message["parent_run_id"]
        if "run_trace_id" in message:
            routing["trace_id"] = message["run_trace_id"]
        # core.md 6.2: message_origin and history_protocol are extensions.
        extensions = {
            f"agency-swarm.{key}": message[key]
            for key in ("history_protocol", "message_origin")
            if key in message
        }
        record: Record = {
            "specversion": SPECVERSION,
            "id": record_id,
            "kind": body.pop("kind"),
            "scope": scope,
            "sequence": first_sequence + position,
            "created_at": timestamp_from_micros(message["timestamp"]),
            **body,
            "routing": routing,
            "native": {**AGENCY_NATIVE, "record": residue},
        }
        if extensions:
            record["extensions"] = extensions
        records.append(record)
    return records


def agency_from_memorywire(records: list[Record]) -> list[dict[str, Any]]:
    messages = []
    for record in sorted_by_sequence(records):
        residue = copy.deepcopy(record["native"]["record"])
        extensions = record.get("extensions", {})
        citation_residues = residue.pop("citations", None)
        origin = extensions.get("agency-swarm.message_origin")
        added_type = None
        if record["kind"] == "message" and is_generated(record["id"]):
            # Agency Swarm appends "type": "message" after its metadata when
            # the input item had none.
            added_type = residue.pop("type", None)
        item = responses_item_from_record(record, residue)
        if origin is not None:
            # Agency Swarm's own system messages: role, content, message_origin.
            item = ordered(
                {**item, "message_origin": origin}, ("role", "content", "message_origin")
            )
        metadata: dict[str, Any] = {
            "agent": record["routing"]["agent"],
            "callerAgent": record["routing"].get("caller_agent"),
        }
        if "run" in record["scope"]:
            metadata["agent_run_id"] = record["scope"]["run"]
        if "parent_run" in record["routing"]:
            metadata["parent_run_id"] = record["routing"]["parent_run"]
        if "trace_id" in record["routing"]:
            metadata["run_trace_id"] = record["routing"]["trace_id"]
        if "agency-swarm.history_protocol" in extensions:
            metadata["history_protocol"] = extensions["agency-swarm.history_protocol"]
        metadata["timestamp"] = micros_from_timestamp(record["created_at"])
        message = dict(item)
        if citation_residues is not None:
            message["citations"] = [
                ordered({**annotation, **extra}, CITATION_ORDER)
                for annotation, extra in zip(
                    record["message"]["citations"], citation_residues, strict=True
                )
            ]
        message.update(ordered(metadata, AGENCY_METADATA_ORDER))
        if added_type is not None:
            message["type"] = added_type
        messages.append(message)
    return messages


# --------------------------------------------------------------------------
# (f) LangGraph store items
# --------------------------------------------------------------------------

ITEM_DICT_ORDER = ("namespace", "key", "value", "created_at", "updated_at")


def langgraph_to_memorywire(entries: list[dict[str, Any]], first_sequence: int = 1) -> list[Record]:
    records = []
    for position, entry in enumerate(entries):
        item, ttl = entry["item"], entry["ttl"]
        record: Record = {
            "specversion": SPECVERSION,
            "id": generated_id("langgraph", *item["namespace"], item["key"]),
            "kind": "custom",
            "key": item["key"],
            "scope": {"namespace": list(item["namespace"])},
            "sequence": first_sequence + position,
            "created_at": timestamp_from_isoformat(item["created_at"]),
            "updated_at": timestamp_from_isoformat(item["updated_at"]),
            "custom": {"type": "langgraph.item", "value": copy.deepcopy(item["value"])},
        }
        if ttl is not None:
            updated = micros_from_timestamp(record["updated_at"])
            record["lifecycle"] = {
                "expires_at": timestamp_from_micros(updated + round(ttl * 60_000_000)),
            }
        records.append(record)
    return records


def langgraph_from_memorywire(records: list[Record]) -> list[dict[str, Any]]:
    entries = []
    for record in sorted_by_sequence(records):
        assert record["custom"]["type"] == "langgraph.item"
        item = {
            "namespace": list(record["scope"]["namespace"]),
            "key": record["key"],
            "value": copy.deepcopy(record["custom"]["value"]),
            "created_at": isoformat_from_timestamp(record["created_at"]),
            "updated_at": isoformat_from_timestamp(record["updated_at"]),
        }
        ttl: int | float | None = None
        expires_at = record.get("lifecycle", {}).get("expires_at")
        if expires_at is not None:
            micros = micros_from_timestamp(expires_at) - micros_from_timestamp(record["updated_at"])
            minutes, rest = divmod(micros, 60_000_000)
            ttl = minutes if rest == 0 else micros / 60_000_000
        entries.append({"item": ordered(item, ITEM_DICT_ORDER), "ttl": ttl})
    return entries


# --------------------------------------------------------------------------
# The tests
# --------------------------------------------------------------------------

Adapter = tuple[Callable[[Any], list[Record]], Callable[[list[Record]], Any]]
ADAPTERS: dict[str, Adapter] = {
    "agency-swarm": (agency_to_memorywire, agency_from_memorywire),
    "openai-responses": (responses_to_memorywire, responses_from_memorywire),
    "langgraph": (langgraph_to_memorywire, langgraph_from_memorywire),
}
FRAMEWORKS = sorted(ADAPTERS)


def native_of(framework: str) -> Any:
    return json.loads((PRIMER / framework / "native.json").read_text(encoding="utf-8"))


def checked_in_lines(framework: str) -> list[str]:
    return (PRIMER / framework / "records.jsonl").read_text(encoding="utf-8").splitlines()


@pytest.fixture(scope="module")
def record_validator() -> Draft202012Validator:
    resources = []
    for path in SCHEMAS.glob("*.schema.json"):
        schema = json.loads(path.read_text(encoding="utf-8"))
        resources.append((schema["$id"], Resource.from_contents(schema)))
    registry = Registry().with_resources(resources)
    schema = json.loads((SCHEMAS / "record-document.schema.json").read_text(encoding="utf-8"))
    return Draft202012Validator(schema, registry=registry)


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_round_trip_is_exact(framework: str) -> None:
    to_memorywire, from_memorywire = ADAPTERS[framework]
    native = native_of(framework)
    back = from_memorywire(to_memorywire(copy.deepcopy(native)))
    assert back == native
    assert_identical(back, native)


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_round_trip_through_the_checked_in_json_lines(framework: str) -> None:
    _, from_memorywire = ADAPTERS[framework]
    records = [json.loads(line) for line in checked_in_lines(framework)]
    assert_identical(from_memorywire(records), native_of(framework))


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_order_comes_from_sequence_not_from_position_or_time(framework: str) -> None:
    to_memorywire, from_memorywire = ADAPTERS[framework]
    native = native_of(framework)
    records = to_memorywire(copy.deepcopy(native))
    random.Random(4821).shuffle(records)
    assert_identical(from_memorywire(records), native)


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_every_record_is_a_valid_record_document(
    framework: str, record_validator: Draft202012Validator
) -> None:
    to_memorywire, _ = ADAPTERS[framework]
    for record in to_memorywire(native_of(framework)):
        errors = [f"{e.json_path}: {e.message}" for e in record_validator.iter_errors(record)]
        assert errors == [], record["id"]


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_records_equal_the_checked_in_examples(framework: str) -> None:
    to_memorywire, _ = ADAPTERS[framework]
    records = to_memorywire(native_of(framework))
    lines = checked_in_lines(framework)
    assert [json.loads(line) for line in lines] == records
    assert lines == [canonical_json(record) for record in records]


def test_agency_swarm_keeps_both_threads_and_exact_microseconds() -> None:
    native = native_of("agency-swarm")
    records = agency_to_memorywire(native)
    user_thread = [r["id"] for r in records if "caller_agent" not in r["routing"]]
    assert user_thread == [
        r["id"] for r, m in zip(records, native, strict=True) if m["callerAgent"] is None
    ]
    between = [r for r in records if r["routing"].get("caller_agent") == "CEO"]
    assert {r["routing"]["agent"] for r in between} == {"DataAnalyst"}
    for record, message in zip(records, native, strict=True):
        assert micros_from_timestamp(record["created_at"]) == message["timestamp"]
        assert len(record["created_at"].split(".")[1]) == 7  # six digits and "Z"
    # Insertion order and clock order disagree in this chat: the preserved
    # file-search results carry the earlier time of the search call.
    stamps = [m["timestamp"] for m in native]
    assert stamps != sorted(stamps)


def test_tool_call_arguments_stay_the_exact_string() -> None:
    for framework in ("openai-responses", "agency-swarm"):
        native = native_of(framework)
        to_memorywire, _ = ADAPTERS[framework]
        calls = [r["tool_call"] for r in to_memorywire(native) if r["kind"] == "tool_call"]
        originals = [m["arguments"] for m in native if m.get("type") == "function_call"]
        assert calls and [c["arguments"] for c in calls] == originals, framework
        for arguments in originals:
            assert json.dumps(json.loads(arguments)) != arguments  # re-encoding would change it


def test_the_round_trip_check_catches_a_dropped_caller_agent() -> None:
    native = native_of("agency-swarm")
    records = agency_to_memorywire(copy.deepcopy(native))
    for record in records:
        record["routing"].pop("caller_agent", None)
    back = agency_from_memorywire(records)
    assert [m["callerAgent"] for m in back] == [None] * len(back)
    with pytest.raises(AssertionError):
        assert_identical(back, native)


def reencode_arguments(record: Record) -> None:
    if record["kind"] == "tool_call":
        arguments = record["tool_call"]["arguments"]
        record["tool_call"]["arguments"] = json.dumps(json.loads(arguments))


def drop_output_type(record: Record) -> None:
    if record["kind"] == "tool_result":
        record["native"]["record"].pop("type")


def drop_part_types(record: Record) -> None:
    if record["kind"] == "message":
        record["native"]["record"].pop("content", None)


def reverse_sequence(record: Record) -> None:
    record["sequence"] = -record["sequence"]


def drop_message_origin(record: Record) -> None:
    record.get("extensions", {}).pop("agency-swarm.message_origin", None)


def drop_expiry(record: Record) -> None:
    record.pop("lifecycle", None)


def truncate_to_milliseconds(record: Record) -> None:
    micros = micros_from_timestamp(record["updated_at"])
    record["updated_at"] = timestamp_from_micros(micros - micros % 1000)


@pytest.mark.parametrize(
    ("framework", "breakage"),
    [
        ("openai-responses", reencode_arguments),
        ("openai-responses", drop_output_type),
        ("openai-responses", drop_part_types),
        ("agency-swarm", reencode_arguments),
        ("agency-swarm", reverse_sequence),
        ("agency-swarm", drop_message_origin),
        ("langgraph", drop_expiry),
        ("langgraph", truncate_to_milliseconds),
    ],
    ids=lambda value: value if isinstance(value, str) else value.__name__,
)
def test_the_round_trip_check_catches_other_losses(
    framework: str, breakage: Callable[[Record], None]
) -> None:
    to_memorywire, from_memorywire = ADAPTERS[framework]
    native = native_of(framework)
    records = to_memorywire(copy.deepcopy(native))
    for record in records:
        breakage(record)
    with pytest.raises(AssertionError):
        assert_identical(from_memorywire(records), native)


def test_the_order_check_sees_key_order() -> None:
    native = native_of("agency-swarm")
    shuffled = copy.deepcopy(native)
    first = shuffled[0]
    shuffled[0] = dict(reversed(list(first.items())))
    assert shuffled == native  # dict equality alone ignores key order
    with pytest.raises(AssertionError):
        assert_identical(shuffled, native)
