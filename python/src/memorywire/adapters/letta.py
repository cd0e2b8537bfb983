"""Letta (letta 0.16.8, letta-client 1.12.1): core-memory blocks as ``block``
records (spec/v1/adapters/letta.md)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from memorywire.adapters._kit import (
    AdapterError,
    Form,
    Ids,
    Record,
    from_value,
    is_generated,
    native,
    pointer_token,
    residue_of,
    to_value,
    unwrap_markers,
    wrap_markers,
)

FRAMEWORK = "letta"

#: The members of an Agent File ``BlockSchema``, in the order it writes them.
AGENT_FILE_ORDER = ("value", "limit", "project_id", "template_name", "is_template", "template_id",
                    "base_template_id", "deployment_id", "entity_id", "preserve_on_migration", "label",
                    "read_only", "description", "metadata", "hidden", "tags", "id")
#: The API's ``BlockResponse`` writes ``id``, ``value``, then every other
#: member in alphabetical order.
#: Agent File ids are local to the file (block-0, block-1, ...).
FILE_LOCAL_ID = re.compile(r"^block-[0-9]+$")
#: The residue member listing members the item lacks that Letta always
#: writes (the way back would otherwise give their default).
ABSENT = "$absent"
_MAX_LIMIT = 9007199254740991
_DEFAULTS: dict[str, Any] = {"value": "", "read_only": False, "metadata": {}, "tags": []}


def _encode(items: list[Any], scope: dict[str, Any]) -> list[Record]:
    ids = Ids(BLOCK.name, scope)
    return [_encode_one(x, i, ids, scope) for i, x in enumerate(items)]


def _encode_one(x: Any, i: int, ids: Ids, scope: dict[str, Any]) -> Record:
    if type(x) is not dict:
        raise AdapterError.at(f"/{i}", "TYPE_MISMATCH", f"a Letta block is a dict, not {type(x).__name__}")
    item: dict[str, Any] = x
    for key in item:
        if key.startswith("$"):
            raise AdapterError.at(f"/{i}", "UNSUPPORTED_ITEM", f"member {key!r} is not a Letta block member")

    def ptr(key: str) -> str:
        return f"/{i}/{pointer_token(key)}"

    residue: dict[str, Any] = {}
    framework_id = item.get("id")
    local = type(framework_id) is str and FILE_LOCAL_ID.match(framework_id) is not None
    record: Record = {"specversion": "1.0", "id": ids.assign(i, None if local else framework_id), "kind": "block"}
    if "id" in item and (framework_id != record["id"] or is_generated(record["id"])):
        residue["id"] = to_value(framework_id, ptr("id"))
    label = item.get("label")
    if type(label) is not str or not 0 < len(label) <= 256:
        raise AdapterError.at(ptr("label"), "MISSING_MEMBER" if "label" not in item else "NOT_REPRESENTABLE",
                              "a block has a label of 1 to 256 characters (block.label is REQUIRED)")
    block: dict[str, Any] = {"label": label}
    mapped = {"id", "label"}
    value = item.get("value")
    if type(value) is str:
        mapped.add("value")
        if value:
            block["value"] = value
    limit = item.get("limit")
    if type(limit) is int and 0 <= limit <= _MAX_LIMIT:
        block["limit"] = limit
        mapped.add("limit")
    if type(item.get("read_only")) is bool:
        mapped.add("read_only")
        if item["read_only"]:
            block["read_only"] = True
    description = item.get("description")
    if type(description) is str and description:
        block["description"] = description
        mapped.add("description")
    record["block"] = block
    metadata = item.get("metadata")
    # A map or list beyond what its field holds (1,000 entries) stays in the residue.
    if type(metadata) is dict and len(metadata) <= 1000 and all(type(k) is str for k in metadata):
        mapped.add("metadata")
        if metadata:
            record["metadata"] = {k: to_value(v, f"{ptr('metadata')}/{pointer_token(k)}")
                                  for k, v in metadata.items()}
    tags = item.get("tags")
    if type(tags) is list and len(tags) <= 1000 and all(type(t) is str and t for t in tags):
        mapped.add("tags")
        if tags:
            record["tags"] = list(tags)
    for key in item:
        if key not in mapped and key not in residue:
            residue[key] = to_value(item[key], ptr(key))
    absent = [k for k in _DEFAULTS if k not in item]
    if absent:
        residue[ABSENT] = absent
    if scope:
        record["scope"] = dict(scope)
    if residue:
        record["native"] = native(BLOCK, FRAMEWORK, wrap_markers(residue))
    return record


def _decode(records: list[Record]) -> list[Any]:
    out: list[Any] = []
    for i, r in enumerate(records):
        if r.get("kind") != "block" or not isinstance(r.get("block"), Mapping):
            raise AdapterError.at(f"/{i}/kind", "UNSUPPORTED_ITEM",
                                  f"a Letta block is a block record, not {r.get('kind')!r}")
        residue = unwrap_markers(residue_of(r, BLOCK))
        own = isinstance(residue, Mapping)
        res: Mapping[str, Any] = residue if isinstance(residue, Mapping) else {}
        absent = set(res.get(ABSENT, ()))
        item: dict[str, Any] = {k: from_value(v) for k, v in res.items() if not k.startswith("$")}

        def put(key: str, value: Any, item: dict[str, Any] = item, absent: set[Any] = absent) -> None:
            if key not in item and key not in absent:
                item[key] = value

        block = r["block"]
        if not (own and is_generated(str(r.get("id", "")))):
            put("id", r.get("id"))
        put("label", block.get("label", ""))
        put("value", block.get("value", ""))
        if "limit" in block:
            put("limit", block["limit"])
        put("read_only", block.get("read_only", False))
        if "description" in block:
            put("description", block["description"])
        elif not own:
            put("description", None)
        put("metadata", {k: from_value(v) for k, v in (r.get("metadata") or {}).items()})
        put("tags", list(r.get("tags", ())))
        # A file-local id (or none) is the Agent File's; a server id the API's.
        if "id" in item and not (type(item["id"]) is str and FILE_LOCAL_ID.match(item["id"])):
            order: tuple[str, ...] = ("id", "value", *sorted(item))
        else:
            order = AGENT_FILE_ORDER
        done = {k: item[k] for k in order if k in item}
        done.update((k, v) for k, v in sorted(item.items()) if k not in done)
        out.append(done)
    return out


BLOCK = Form(
    "letta.block", FRAMEWORK,
    "Letta memory blocks: Agent File BlockSchema model_dump() dicts and letta-client BlockResponse "
    "to_dict()/model_dump() dicts.",
    _encode, _decode)

FORMS = (BLOCK,)
