"""Open Memory Interchange (OMI-AI 0.1 draft): a document (``.omi.json``)
or the lines of its JSON Lines form (``.omi.jsonl``) as memorywire records,
and back (spec/v1/adapters/omi.md)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from memorywire.adapters._bridge import readable
from memorywire.adapters._kit import (
    AdapterError,
    Form,
    Ids,
    Record,
    from_value,
    native,
    ordered,
    parse_time,
    pointer_token,
    residue_of,
    to_value,
)
from memorywire.adapters._patch import same

FRAMEWORK = "omi"
#: OMI-AI publishes no package: its forms are checked against its published
#: text and example (spec/v1/adapters/omi.md §6).
PACKAGE = None

FORMAT = "open-memory-interchange"
VERSION = "0.1"
#: The member of ``ext`` under which a record of memorywire is kept.
EXT = "memorywire"
#: The ``custom.type`` of the record that carries an envelope.
ENVELOPE_TYPE = "omi.envelope"

#: The order in which the published example writes the members of an
#: envelope and of a memory.
ENVELOPE_ORDER = ("format", "version", "serialization", "subject", "generated_at", "generator", "memories")
MEMORY_ORDER = ("id", "content", "type", "created", "subject", "confidence", "lang", "tags", "source",
                "valid_from", "valid_to", "ext")
#: The order of the members of the objects the example writes inside them.
INNER_ORDER = {"subject": ("id", "type", "label"), "source": ("platform", "ref", "method")}

#: The OMI type of each kind of record: conversation items are episodes.
TYPE_OF_KIND = {"fact": "semantic", "summary": "semantic", "block": "semantic", "custom": "semantic",
                "emotion": "semantic", "episode": "episodic", "message": "episodic", "tool_call": "episodic",
                "tool_result": "episodic", "procedure": "procedural"}
#: What OMI ``created`` holds for a record without any time (it is REQUIRED).
NO_TIME = "1970-01-01T00:00:00Z"


def _default_envelope(serialization: str) -> dict[str, Any]:
    return {"format": FORMAT, "version": VERSION, "serialization": serialization}


# -- memorywire record -> OMI memory --------------------------------------------------------------

def floor(record: Mapping[str, Any]) -> dict[str, Any]:
    """The OMI memory of a record of any producer: the floor fields read
    from the record, the whole record (but its id) under ``ext.memorywire``."""
    kept = {k: v for k, v in record.items() if k != "id"}
    created = record.get("created_at") or record.get("updated_at") or NO_TIME
    memory: dict[str, Any] = {"id": record.get("id"), "content": readable(record),
                              "type": TYPE_OF_KIND.get(str(record.get("kind")), "semantic"),
                              "created": created}
    scope = record.get("scope")
    if isinstance(scope, Mapping) and type(scope.get("user")) is str:
        memory["subject"] = {"id": scope["user"]}
    lifecycle = record.get("lifecycle")
    if isinstance(lifecycle, Mapping) and type(lifecycle.get("confidence")) is float:
        memory["confidence"] = lifecycle["confidence"]
    tags = record.get("tags")
    if type(tags) is list and tags:
        memory["tags"] = list(tags)
    memory["ext"] = {EXT: {"record": kept}}
    return memory


def _memory(record: Record) -> dict[str, Any]:
    residue = residue_of(record, OMI_DOCUMENT) or residue_of(record, OMI_JSONL)
    if type(residue) is not dict or record.get("kind") != "fact" or type(record.get("fact")) is not dict:
        return floor(record)
    # A memory that came from OMI: the residue and what the neutral fields say now.
    memory = {k: from_value(v) for k, v in residue.items() if k not in ("$created", "$id")}
    memory["id"] = from_value(residue["$id"]) if "$id" in residue else record["id"]
    memory["content"] = record["fact"].get("text", "")
    if "$created" in residue:
        memory["created"] = residue["$created"]
    elif "created_at" in record:
        memory["created"] = record["created_at"]
    lifecycle = record.get("lifecycle")
    if isinstance(lifecycle, Mapping) and "confidence" in lifecycle:
        memory["confidence"] = lifecycle["confidence"]
    if "tags" in record:
        memory["tags"] = list(record["tags"])
    return _ordered(memory, MEMORY_ORDER)


def _ordered(obj: dict[str, Any], order: tuple[str, ...]) -> dict[str, Any]:
    out = ordered(obj, order)
    for key, inner in INNER_ORDER.items():
        if type(out.get(key)) is dict:
            out[key] = ordered(out[key], inner)
    return out


# -- OMI memory -> memorywire record --------------------------------------------------------------

def _subject_id(holder: Any) -> str | None:
    subject = holder.get("subject") if type(holder) is dict else None
    found = subject.get("id") if type(subject) is dict else None
    return found if type(found) is str and found else None


def _record(memory: Any, pointer: str, position: int, ids: Ids, scope: dict[str, Any], form: Form,
            envelope: Any = None) -> Record:
    if type(memory) is not dict:
        raise AdapterError.at(pointer, "TYPE_MISMATCH", f"an OMI memory is an object, not {type(memory).__name__}")
    for key in ("id", "content", "created"):
        if key not in memory:
            raise AdapterError.at(f"{pointer}/{key}", "MISSING_MEMBER", f"an OMI memory has {key!r} (REQUIRED)")
    if type(memory["content"]) is not str:
        raise AdapterError.at(f"{pointer}/content", "TYPE_MISMATCH", "content is a string")
    if type(memory["id"]) is not str or not memory["id"]:
        raise AdapterError.at(f"{pointer}/id", "TYPE_MISMATCH", "id is a non-empty string")
    ext = memory.get("ext")
    kept = ext.get(EXT) if type(ext) is dict else None
    if type(kept) is dict and type(kept.get("record")) is dict:
        record = {"id": memory["id"], **kept["record"]}
        if same(floor(record), memory):  # written by memorywire and not edited since
            return record
    try:
        created = parse_time(memory["created"])
    except AdapterError as e:
        raise AdapterError.at(f"{pointer}/created", "INVALID_TIMESTAMP",
                              f"created is an RFC 3339 date and time: {e}") from None
    rid = ids.assign(position, memory["id"])
    residue: dict[str, Any] = {}
    if rid != memory["id"]:
        residue["$id"] = memory["id"]
    out: Record = {"specversion": "1.0", "id": rid, "kind": "fact", "created_at": created}
    if created != memory["created"]:
        residue["$created"] = memory["created"]
    rscope = dict(scope)
    user = _subject_id(memory) or _subject_id(envelope)  # the effective subject
    if "user" not in rscope and user is not None:
        rscope["user"] = user
    if rscope:
        out["scope"] = rscope
    out["fact"] = {"text": memory["content"]} if memory["content"] else {}
    mapped = {"id", "content", "created"}
    confidence = memory.get("confidence")
    if type(confidence) is float and 0.0 <= confidence <= 1.0:
        out["lifecycle"] = {"confidence": confidence}
        mapped.add("confidence")
    tags = memory.get("tags")
    if type(tags) is list and tags and all(type(t) is str and t for t in tags) and len(set(tags)) == len(tags):
        out["tags"] = list(tags)
        mapped.add("tags")
    for key, value in memory.items():
        if key not in mapped:
            residue[key] = to_value(value, f"{pointer}/{pointer_token(key)}")
    out["native"] = native(form, FRAMEWORK, residue)
    return out


def _envelope_record(envelope: dict[str, Any], pointer: str, position: int, ids: Ids, scope: dict[str, Any],
                     form: Form) -> Record:
    value = {k: to_value(v, f"{pointer}/{pointer_token(k)}") for k, v in envelope.items()}
    out: Record = {"specversion": "1.0", "id": ids.assign(position), "kind": "custom",
                   "custom": {"type": ENVELOPE_TYPE, "value": value}}
    if scope:
        out["scope"] = dict(scope)
    out["native"] = native(form, FRAMEWORK, {})
    return out


def _is_envelope(record: Mapping[str, Any], form: Form) -> bool:
    custom = record.get("custom")
    nat = record.get("native")
    return (record.get("kind") == "custom" and isinstance(custom, Mapping)
            and custom.get("type") == ENVELOPE_TYPE and isinstance(nat, Mapping) and nat.get("format") == form.name)


def _check_envelope(envelope: Any, pointer: str) -> dict[str, Any]:
    if type(envelope) is not dict:
        raise AdapterError.at(pointer, "TYPE_MISMATCH",
                              f"an OMI envelope is an object, not {type(envelope).__name__}")
    if "format" not in envelope:
        raise AdapterError.at(f"{pointer}/format", "MISSING_MEMBER", "an OMI envelope has 'format' (REQUIRED)")
    if envelope["format"] != FORMAT:
        raise AdapterError.at(f"{pointer}/format", "VALUE_OUT_OF_RANGE", f"format is {FORMAT!r}")
    if type(envelope.get("version")) is not str:
        raise AdapterError.at(f"{pointer}/version", "MISSING_MEMBER" if "version" not in envelope
                              else "TYPE_MISMATCH", "an OMI envelope has a string 'version' (REQUIRED)")
    return envelope


def _encode_document(items: list[Any], scope: dict[str, Any]) -> list[Record]:
    ids = Ids(OMI_DOCUMENT.name, scope)
    out: list[Record] = []
    position = 0
    for i, doc in enumerate(items):
        _check_envelope(doc, f"/{i}")
        memories = doc.get("memories")
        if type(memories) is not list:
            raise AdapterError.at(f"/{i}/memories", "MISSING_MEMBER" if "memories" not in doc else "TYPE_MISMATCH",
                                  "an OMI document has a list 'memories' (REQUIRED)")
        envelope = {k: v for k, v in doc.items() if k != "memories"}
        if envelope != _default_envelope("json") or i > 0 or not memories:
            out.append(_envelope_record(envelope, f"/{i}", position, ids, scope, OMI_DOCUMENT))
            position += 1
        for j, memory in enumerate(memories):
            out.append(_record(memory, f"/{i}/memories/{j}", position, ids, scope, OMI_DOCUMENT, doc))
            position += 1
    return out


def _groups(records: list[Record], form: Form) -> list[tuple[dict[str, Any] | None, list[Record]]]:
    groups: list[tuple[dict[str, Any] | None, list[Record]]] = []
    for record in records:
        if _is_envelope(record, form):
            groups.append(({k: from_value(v) for k, v in record["custom"].get("value", {}).items()}, []))
        else:
            if not groups:
                groups.append((None, []))
            groups[-1][1].append(record)
    return groups


def _decode_document(records: list[Record]) -> list[Any]:
    docs = []
    for envelope, members in _groups(records, OMI_DOCUMENT):
        doc = dict(envelope) if envelope is not None else _default_envelope("json")
        doc["memories"] = [_memory(r) for r in members]
        docs.append(_ordered(doc, ENVELOPE_ORDER))
    return docs


def _is_header(line: Any) -> bool:
    return type(line) is dict and "format" in line


def _encode_lines(items: list[Any], scope: dict[str, Any]) -> list[Record]:
    ids = Ids(OMI_JSONL.name, scope)
    out: list[Record] = []
    header: Any = None
    for i, line in enumerate(items):
        if i == 0 or _is_header(line):
            envelope = _check_envelope(line, f"/{i}")
            if "memories" in envelope:
                raise AdapterError.at(f"/{i}/memories", "UNSUPPORTED_ITEM",
                                      "the header line of the JSON Lines form has no 'memories'")
            # The default header of the first group, followed by a memory, needs no record.
            header = envelope
            implied = i == 0 and i + 1 < len(items) and not _is_header(items[i + 1])
            if envelope != _default_envelope("jsonl") or not implied:
                out.append(_envelope_record(envelope, f"/{i}", i, ids, scope, OMI_JSONL))
            continue
        out.append(_record(line, f"/{i}", i, ids, scope, OMI_JSONL, header))
    return out


def _decode_lines(records: list[Record]) -> list[Any]:
    lines: list[Any] = []
    for envelope, members in _groups(records, OMI_JSONL):
        header = dict(envelope) if envelope is not None else _default_envelope("jsonl")
        lines.append(_ordered(header, ENVELOPE_ORDER))
        lines.extend(_memory(r) for r in members)
    return lines


OMI_DOCUMENT = Form("omi.document", FRAMEWORK,
                    "OMI-AI 0.1 documents (.omi.json): one list of documents, each an envelope with its memories",
                    _encode_document, _decode_document, file="document")
OMI_JSONL = Form("omi.jsonl", FRAMEWORK,
                 "OMI-AI 0.1 JSON Lines (.omi.jsonl): the objects of the lines, a header line then one per memory",
                 _encode_lines, _decode_lines, file="lines")

FORMS = (OMI_DOCUMENT, OMI_JSONL)
