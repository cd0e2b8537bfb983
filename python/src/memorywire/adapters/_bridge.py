"""What the bridges to other interchange formats share: the readable text of
a record, the loss report of a format without an extension point, and the
JSON Canonicalization Scheme (RFC 8785) that their checksums use
(spec/v1/adapters/omi.md, spec/v1/adapters/aimem.md)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from memorywire.adapters._kit import canonical_json, memory_text, pointer_token

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

@dataclass(frozen=True)
class Loss:
    """One member of a record that a target format cannot carry: where it
    is in the record (a JSON Pointer), a reason token and a sentence."""

    record: str
    pointer: str
    reason: str
    detail: str


#: The reasons of a loss.
NO_TARGET_FIELD = "NO_TARGET_FIELD"     # the target has no field and no extension point for the member
REWRITTEN = "REWRITTEN"                 # the target requires another form of the value (an id, a time)
SUBSTITUTED = "SUBSTITUTED"             # the target requires a value the record does not have
#: The members a target may require that a record can lack.
SUBSTITUTABLE = ("created_at",)


def loss_report(losses: Iterable[Loss]) -> list[dict[str, Any]]:
    """The losses as JSON: one entry per record, in the order of first
    loss, each ``{"record": id, "lost": [{"pointer", "reason", "detail"}]}``."""
    by_record: dict[str, list[dict[str, str]]] = {}
    for loss in losses:
        by_record.setdefault(loss.record, []).append(
            {"pointer": loss.pointer, "reason": loss.reason, "detail": loss.detail})
    return [{"record": rid, "lost": lost} for rid, lost in by_record.items()]


def member_losses(record: Mapping[str, Any], carried: Mapping[str, Any], target: str,
                  prefix: str = "", rid: str | None = None) -> list[Loss]:
    """A loss for every member of ``record`` that ``carried`` (what the
    target gives back) does not hold equally, member by member, down to
    the first member that differs."""
    rid = str(record.get("id", "")) if rid is None else rid
    out: list[Loss] = []
    for key, value in record.items():
        pointer = f"{prefix}/{pointer_token(key)}"
        if key not in carried:
            out.append(Loss(rid, pointer, NO_TARGET_FIELD, f"{target} has no field for {pointer}"))
        elif type(value) is dict and type(carried[key]) is dict:
            out.extend(member_losses(value, carried[key], target, pointer, rid))
        elif not same(value, carried[key]):
            out.append(Loss(rid, pointer, REWRITTEN, f"{target} holds another value at {pointer}"))
    return out


def same(a: Any, b: Any) -> bool:
    if type(a) is not type(b):
        return False
    if type(a) is float:
        return math.copysign(1.0, a) == math.copysign(1.0, b) and (a == b or (math.isnan(a) and math.isnan(b)))
    if type(a) is list:
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if type(a) is dict:
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return bool(a == b)


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
    if type(value) is int:
        return str(value)
    if type(value) is float:
        return _number(value)
    if type(value) is list:
        return "[" + ",".join(jcs(v) for v in value) + "]"
    if type(value) is dict:
        keys = sorted(value, key=lambda k: k.encode("utf-16-be"))
        return "{" + ",".join(f"{_string(k)}:{jcs(value[k])}" for k in keys) + "}"
    raise TypeError(f"a {type(value).__name__} is not JSON")


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


def losses(form: Any, records: Iterable[Mapping[str, Any]]) -> list[Loss]:
    """What ``form`` loses of ``records``: every member that the items of
    the form, read back, do not give again, record by record."""
    listed = [dict(r) for r in records]
    back = {str(r.get("id")): r for r in form.to_records(form.from_records(listed))}
    out: list[Loss] = []
    for record in listed:
        rid = str(record.get("id"))
        if rid not in back:
            out.append(Loss(rid, "", NO_TARGET_FIELD, f"{form.name} gives no record {rid!r} back"))
            continue
        out.extend(member_losses(record, back[rid], form.name))
        for key in SUBSTITUTABLE:
            if key not in record and key in back[rid]:
                out.append(Loss(rid, f"/{key}", SUBSTITUTED,
                                f"{form.name} requires /{key}, which the record lacks: a stand-in was written"))
    return out
