"""What the bridges to other interchange formats share: the readable text of
a record, the loss report of every form (spec/v1/adapters/README.md §12.2),
and the JSON Canonicalization Scheme (RFC 8785) that their checksums use
(spec/v1/adapters/omi.md, spec/v1/adapters/aimem.md)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from memorywire.adapters._kit import AdapterError, canonical_json, memory_text, pointer_token
from memorywire.adapters._patch import paths, same

#: The kinds whose payload is a memory of text (memory_text reads them).
MEMORY_KINDS = frozenset({"fact", "episode", "procedure", "emotion", "summary", "block", "custom"})


def readable(record: Mapping[str, Any]) -> str:
    """The text a person reads for ``record``: the text of a memory, the
    text parts of a message, a tool call's name and arguments, a tool
    result's text; else the canonical JSON of its payload. Never empty."""
    kind = str(record.get("kind"))
    payload = record.get(kind)
    text = ""
    if kind in MEMORY_KINDS and type(payload) is dict:
        text = memory_text(record, "")
        if kind == "emotion" and not text:
            text = str(payload.get("label", ""))
    elif kind in ("message", "tool_result") and type(payload) is dict:
        parts = payload.get("content")
        if type(parts) is list:
            text = "\n".join(str(p["text"].get("text", "")) for p in parts
                             if type(p) is dict and type(p.get("text")) is dict)
    elif kind == "tool_call" and type(payload) is dict:
        text = f"{payload.get('name', '')}({canonical_json(payload.get('arguments', {}))})"
    if not text.strip():
        text = canonical_json(payload) if payload is not None else kind
    return text


# -- Loss report ---------------------------------------------------------------------------------

#: The reasons of a loss report entry (README.md §12.2).
NO_TARGET_FIELD = "NO_TARGET_FIELD"     # the target's own fields do not carry the member's value
REWRITTEN = "REWRITTEN"                 # what was written holds another value, and nothing keeps the original
SUBSTITUTED = "SUBSTITUTED"             # the target requires a value the record lacks: one was filled in
#: The members a target may require that a record can lack.
SUBSTITUTABLE = ("created_at",)


@dataclass(frozen=True)
class LossEntry:
    """One member of one record that the target's own fields do not carry:
    the record's index and id, a JSON Pointer into it, what happened
    (``set``: the record's member is not carried; ``absent``: the target
    carries a value the record lacks), where in the items written it is
    kept (a JSON Pointer, or None: lost), and a reason token."""

    record: int
    id: str
    pointer: str
    change: str
    kept: str | None
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {"record": self.record, "id": self.id, "pointer": self.pointer, "change": self.change,
                "kept": self.kept, "reason": self.reason}


@dataclass
class LossReport:
    """The loss report of one from records (README.md §12.2)::

        {"form": "pam.memory_store", "records": 12,
         "entries": [{"record": 3, "id": "r-7", "pointer": "/fact/subject", "change": "set",
                      "kept": "/0/memories/2/metadata/memorywire", "reason": "NO_TARGET_FIELD"}]}
    """

    form: str
    records: int = 0
    entries: list[LossEntry] = field(default_factory=list)

    @property
    def lost(self) -> list[LossEntry]:
        """The entries that nothing keeps."""
        return [e for e in self.entries if e.kept is None]

    def add_patch(self, index: int, record: Mapping[str, Any], patch: Mapping[str, Any], kept: str | None) -> None:
        """One entry per member that ``patch`` (a remainder, kept at
        ``kept``) changes, in the order of their pointers."""
        rid = str(record.get("id", ""))
        for pointer, change in sorted(paths(patch)):
            self.entries.append(LossEntry(index, rid, pointer, change, kept,
                                          SUBSTITUTED if change == "absent" else NO_TARGET_FIELD))

    def to_json(self) -> dict[str, Any]:
        return {"form": self.form, "records": self.records, "entries": [e.to_json() for e in self.entries]}


def read_back_report(form: Any, records: list[dict[str, Any]]) -> tuple[list[Any], LossReport]:
    """The items of ``records`` (already in their order) and the report of
    a form that keeps no remainder of its own: the items are read back and
    every member of each record that does not come back equal is lost."""
    items = form.decode(records)
    back = {str(r.get("id")): r for r in form.to_records(items)}
    report = LossReport(form.name, len(records))
    for index, record in enumerate(records):
        rid = str(record.get("id"))
        if rid not in back:
            report.entries.append(LossEntry(index, rid, "", "set", None, NO_TARGET_FIELD))
            continue
        found = _member_losses(record, back[rid], "")
        found.extend((f"/{key}", "absent", SUBSTITUTED) for key in SUBSTITUTABLE
                     if key not in record and key in back[rid])
        report.entries.extend(LossEntry(index, rid, pointer, change, None, reason)
                              for pointer, change, reason in sorted(found))
    return items, report


def _member_losses(record: Mapping[str, Any], carried: Mapping[str, Any], prefix: str) -> list[tuple[str, str, str]]:
    """``(pointer, "set", reason)`` of every member of ``record`` that
    ``carried`` does not hold equally, down to the first member that differs."""
    out: list[tuple[str, str, str]] = []
    for key, value in record.items():
        pointer = f"{prefix}/{pointer_token(key)}"
        if key not in carried:
            out.append((pointer, "set", NO_TARGET_FIELD))
        elif type(value) is dict and type(carried[key]) is dict:
            out.extend(_member_losses(value, carried[key], pointer))
        elif not same(value, carried[key]):
            out.append((pointer, "set", REWRITTEN))
    return out


# -- JSON Canonicalization Scheme (RFC 8785) -----------------------------------------------------

def jcs(value: Any) -> str:
    """The RFC 8785 text of a JSON value: members sorted by their UTF-16
    code units, no white space, ECMAScript number forms."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if type(value) is str:
        return _string(value)
    if type(value) is int:  # an IEEE 754 double, as every JSON number of RFC 8785
        return str(value) if abs(value) <= 2**53 else _number(float(value))
    if type(value) is float:
        return _number(value)
    if type(value) is list:
        return "[" + ",".join(jcs(v) for v in value) + "]"
    if type(value) is dict:
        keys = sorted(value, key=lambda k: k.encode("utf-16-be"))
        return "{" + ",".join(f"{_string(k)}:{jcs(value[k])}" for k in keys) + "}"
    raise AdapterError.at("", "NOT_REPRESENTABLE", f"a {type(value).__name__} is not JSON")


_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _string(s: str) -> str:
    return '"' + "".join(_ESCAPES.get(c, f"\\u{ord(c):04x}" if ord(c) < 0x20 else c) for c in s) + '"'


def _number(x: float) -> str:
    """ECMAScript Number::toString: the shortest digits that read back,
    in plain notation from 1e-6 to below 1e21, else with an exponent."""
    if not math.isfinite(x):
        raise ValueError("JSON has no NaN or infinity")
    if x == 0:
        return "0"
    digits, exponent = _shortest(abs(x))
    sign = "-" if x < 0 else ""
    n = exponent + 1  # the position of the decimal point after the first digit, as ECMAScript counts it
    k = len(digits)
    if k <= n <= 21:
        return sign + digits + "0" * (n - k)
    if 0 < n <= 21:
        return sign + digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return sign + "0." + "0" * (-n) + digits
    e = n - 1
    mantissa = digits[0] + ("." + digits[1:] if k > 1 else "")
    return f"{sign}{mantissa}e{'+' if e >= 0 else '-'}{abs(e)}"


def _shortest(x: float) -> tuple[str, int]:
    """The shortest decimal digits of ``x`` (Python's repr, which reads
    back exactly) and the decimal exponent of the first digit."""
    text = repr(x)
    if "e" in text:
        m, _, ex = text.partition("e")
        whole, _, frac = m.partition(".")
        digits = (whole + frac).rstrip("0") or "0"
        return digits, int(ex) + len(whole) - 1
    whole, _, frac = text.partition(".")
    if whole != "0":
        digits = (whole + frac).rstrip("0")
        return digits, len(whole) - 1
    stripped = frac.lstrip("0")
    return stripped.rstrip("0"), -(len(frac) - len(stripped)) - 1
