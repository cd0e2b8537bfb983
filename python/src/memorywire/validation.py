"""Validation of documents in their JSON form against the v1 rules.

Two validators give the same verdict on every document:

* the fast one in this module walks the document with the field tables of
  :mod:`memorywire._model` and is what the codec runs;
* the reference one runs the real ``jsonschema`` package on the schema
  files of ``schemas/v1``, which stays the authority and the error reporter
  of record (:func:`reference_errors`).

Both add the rules that JSON Schema cannot state (calendar dates, embedding
dimensions, the specification version) through :func:`semantic_errors`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from datetime import date
from typing import Any

from memorywire import _model as m
from memorywire import _schemas
from memorywire.errors import ValidationError, Violation, escape_token
from memorywire.limits import DEFAULT_LIMITS, Limits

SUPPORTED_MINOR = 0
FLOAT32_MAX = 3.4028234663852886e38
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
MAX_ERRORS = 100

_TIMESTAMP = re.compile(
    r"([0-9]{4})-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])"
    r"T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\.[0-9]{1,9})?Z"
)
_BASE64 = re.compile(r"(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?")
_SPECVERSION = re.compile(r"([1-9][0-9]*)\.(0|[1-9][0-9]*)")
_KIND_PAYLOADS = frozenset(m.kind_payloads())


class _Walk:
    """One validation pass: collects violations and unknown members."""

    __slots__ = ("errors", "limits", "members", "tolerant", "unknown")

    def __init__(self, limits: Limits, tolerant: bool) -> None:
        self.errors: list[Violation] = []
        self.limits = limits
        #: Whether unknown members are tolerated (a document of a newer minor).
        self.tolerant = tolerant
        self.unknown: list[str] = []
        #: How many object members the walk visited, for the duplicate-key check.
        self.members = 0

    def fail(self, pointer: str, reason: str, message: str) -> None:
        if len(self.errors) < MAX_ERRORS:
            self.errors.append(Violation(pointer, reason, message))

    # -- messages ---------------------------------------------------------

    def message(self, doc: Any, info: m.MessageInfo, ptr: str, depth: int) -> None:
        if type(doc) is not dict:
            self.fail(ptr, "TYPE_MISMATCH", f"expected an object ({info.name}), got {_jtype(doc)}")
            return
        if depth > self.limits.max_depth:
            self.fail(ptr, "NESTING_TOO_DEEP", f"nesting deeper than {self.limits.max_depth}")
            return
        fields = info.fields
        self.members += len(doc)
        for key, value in doc.items():
            f = fields.get(key)
            if f is None:
                if self.tolerant:
                    self.unknown.append(f"{ptr}/{escape_token(str(key))}")
                    self.value(value, f"{ptr}/{escape_token(str(key))}", depth + 1)
                else:
                    self.fail(f"{ptr}/{escape_token(str(key))}", "UNKNOWN_FIELD",
                              f"{info.name} has no field {key!r}")
                continue
            if value is None:
                self.fail(f"{ptr}/{key}", "NULL_VALUE", "null is not a value of any field; omit it")
                continue
            if f.is_map:
                self.map(value, f, f"{ptr}/{key}", depth + 1)
            elif f.repeated:
                self.repeated(value, f, f"{ptr}/{key}", depth + 1)
            else:
                self.single(value, f, f"{ptr}/{key}", depth + 1)
        for f in info.ordered:
            if f.required and _is_default(doc.get(f.name), f):
                self.fail(f"{ptr}/{f.name}", "REQUIRED_FIELD_MISSING",
                          f"{info.name}.{f.name} is required")
        for name, members in info.oneofs.items():
            present = [n for n in members if n in doc and doc[n] is not None]
            if len(present) > 1:
                self.fail(f"{ptr}/{present[1]}", "ONEOF_CONFLICT",
                          f"at most one of {', '.join(members)} may be set; got {', '.join(present)}")
        special = _SPECIAL.get(info.name)
        if special is not None:
            special(self, doc, ptr)

    def single(self, v: Any, f: m.FieldInfo, ptr: str, depth: int) -> None:
        kind = f.kind
        if kind == m.STRING:
            if type(v) is not str:
                self.fail(ptr, "TYPE_MISMATCH", f"expected a string, got {_jtype(v)}")
                return
            self.string(v, f, ptr)
        elif kind == m.MESSAGE:
            assert f.message is not None
            self.message(v, f.message, ptr, depth)
        elif kind == m.ENUM:
            assert f.enum is not None
            if type(v) is not str:
                self.fail(ptr, "TYPE_MISMATCH", f"expected a string ({f.enum.name}), got {_jtype(v)}")
            elif v not in f.enum.by_json and not self.tolerant:
                self.fail(ptr, "UNKNOWN_ENUM_VALUE", f"{v!r} is not a value of {f.enum.name}")
        elif kind == m.UINT:
            if type(v) is not int:
                self.fail(ptr, "TYPE_MISMATCH", f"expected an integer, got {_jtype(v)}")
            elif v < 0 or v > f.uint_max:
                self.fail(ptr, "NUMBER_OUT_OF_RANGE", f"{v} is outside 0..{f.uint_max}")
            elif f.minimum is not None and v < f.minimum:
                self.fail(ptr, "VALUE_OUT_OF_RANGE", f"{v} is less than {f.minimum:g}")
        elif kind == m.BOOL:
            if type(v) is not bool:
                self.fail(ptr, "TYPE_MISMATCH", f"expected a boolean, got {_jtype(v)}")
        elif kind == m.DOUBLE:
            t = type(v)
            if t is not float and t is not int:
                self.fail(ptr, "TYPE_MISMATCH", f"expected a number, got {_jtype(v)}")
            elif t is float and not math.isfinite(v):
                self.fail(ptr, "NON_FINITE_NUMBER", "NaN and infinities are not allowed")
            elif (f.minimum is not None and v < f.minimum) or (f.maximum is not None and v > f.maximum):
                self.fail(ptr, "VALUE_OUT_OF_RANGE", f"{v} is outside {f.minimum:g}..{f.maximum:g}")
        elif kind == m.TIMESTAMP:
            if type(v) is not str:
                self.fail(ptr, "TYPE_MISMATCH", f"expected an RFC 3339 string, got {_jtype(v)}")
            elif not _valid_timestamp(v):
                self.fail(ptr, "INVALID_TIMESTAMP",
                          f"{v!r} is not an RFC 3339 UTC timestamp (YYYY-MM-DDTHH:MM:SS[.fraction]Z)")
        elif kind == m.VALUE:
            self.value(v, ptr, depth)
        elif kind == m.BYTES:
            if type(v) is not str:
                self.fail(ptr, "TYPE_MISMATCH", f"expected a base64 string, got {_jtype(v)}")
            elif _BASE64.fullmatch(v) is None:
                self.fail(ptr, "INVALID_BASE64", "not base64 with padding in the standard alphabet")
            elif f.required and not v:
                self.fail(ptr, "REQUIRED_FIELD_MISSING", "required bytes are empty")
        elif kind == m.FLOAT32:
            self.float32(v, ptr)

    def string(self, v: str, f: m.FieldInfo, ptr: str) -> None:
        n = len(v)
        if n * 4 > self.limits.max_string_bytes and len(v.encode("utf-8", "surrogatepass")) > self.limits.max_string_bytes:
            self.fail(ptr, "STRING_TOO_LONG", f"longer than {self.limits.max_string_bytes} bytes")
            return
        if f.max_length is not None and n > f.max_length:
            self.fail(ptr, "LENGTH_OUT_OF_RANGE", f"{n} characters; at most {f.max_length} allowed")
        elif f.min_length is not None and n < f.min_length and not (f.required and n == 0):
            self.fail(ptr, "LENGTH_OUT_OF_RANGE", f"{n} characters; at least {f.min_length} required")
        if f.pattern is not None and n and f.pattern.search(v) is None:
            self.fail(ptr, "PATTERN_MISMATCH", f"{v[:64]!r} does not match {f.pattern.pattern}")

    def float32(self, v: Any, ptr: str) -> None:
        t = type(v)
        if t is not float and t is not int:
            self.fail(ptr, "TYPE_MISMATCH", f"expected a number, got {_jtype(v)}")
        elif t is float and not math.isfinite(v):
            self.fail(ptr, "NON_FINITE_NUMBER", "NaN and infinities are not allowed")
        elif v > FLOAT32_MAX or v < -FLOAT32_MAX:
            self.fail(ptr, "NUMBER_OUT_OF_RANGE", f"{v} overflows binary32")

    def repeated(self, v: Any, f: m.FieldInfo, ptr: str, depth: int) -> None:
        if type(v) is not list:
            self.fail(ptr, "TYPE_MISMATCH", f"expected an array, got {_jtype(v)}")
            return
        n = len(v)
        if n > self.limits.max_items:
            self.fail(ptr, "TOO_MANY_ITEMS", f"{n} elements; the limit is {self.limits.max_items}")
            return
        if f.max_items is not None and n > f.max_items:
            self.fail(ptr, "COUNT_OUT_OF_RANGE", f"{n} elements; at most {f.max_items} allowed")
        if f.kind == m.FLOAT32:
            fl = float
            for i, x in enumerate(v):
                if type(x) is not fl or not -FLOAT32_MAX <= x <= FLOAT32_MAX:
                    self.float32(x, f"{ptr}/{i}")
                    if type(x) is fl and math.isnan(x):
                        pass
            return
        if depth > self.limits.max_depth:
            self.fail(ptr, "NESTING_TOO_DEEP", f"nesting deeper than {self.limits.max_depth}")
            return
        for i, x in enumerate(v):
            if x is None:
                self.fail(f"{ptr}/{i}", "NULL_VALUE", "null is not a value of any field")
            else:
                self.single(x, f, f"{ptr}/{i}", depth + 1)

    def map(self, v: Any, f: m.FieldInfo, ptr: str, depth: int) -> None:
        if type(v) is not dict:
            self.fail(ptr, "TYPE_MISMATCH", f"expected an object, got {_jtype(v)}")
            return
        if depth > self.limits.max_depth:
            self.fail(ptr, "NESTING_TOO_DEEP", f"nesting deeper than {self.limits.max_depth}")
            return
        n = len(v)
        if n > self.limits.max_items:
            self.fail(ptr, "TOO_MANY_ITEMS", f"{n} entries; the limit is {self.limits.max_items}")
            return
        if f.max_items is not None and n > f.max_items:
            self.fail(ptr, "COUNT_OUT_OF_RANGE", f"{n} entries; at most {f.max_items} allowed")
        self.members += n
        for key, x in v.items():
            p = f"{ptr}/{escape_token(key)}"
            if f.key_pattern is not None and f.key_pattern.search(key) is None:
                self.fail(p, "PATTERN_MISMATCH", f"key {key!r} does not match {f.key_pattern.pattern}")
            if len(key) * 4 > self.limits.max_string_bytes and len(key.encode()) > self.limits.max_string_bytes:
                self.fail(p, "STRING_TOO_LONG", f"key longer than {self.limits.max_string_bytes} bytes")
            self.value(x, p, depth + 1)

    def value(self, v: Any, ptr: str, depth: int) -> None:
        t = type(v)
        if t is str:
            if len(v) * 4 > self.limits.max_string_bytes and len(v.encode("utf-8", "surrogatepass")) > self.limits.max_string_bytes:
                self.fail(ptr, "STRING_TOO_LONG", f"longer than {self.limits.max_string_bytes} bytes")
        elif t is int:
            if v < INT64_MIN or v > INT64_MAX:
                self.fail(ptr, "NUMBER_OUT_OF_RANGE", f"{v} is outside the 64-bit signed range")
        elif t is float:
            if not math.isfinite(v):
                self.fail(ptr, "NON_FINITE_NUMBER", "NaN and infinities are not allowed")
        elif t is dict or t is list:
            if depth > self.limits.max_depth:
                self.fail(ptr, "NESTING_TOO_DEEP", f"nesting deeper than {self.limits.max_depth}")
                return
            if len(v) > self.limits.max_items:
                self.fail(ptr, "TOO_MANY_ITEMS", f"{len(v)} elements; the limit is {self.limits.max_items}")
                return
            if t is dict:
                self.members += len(v)
                for key, x in v.items():
                    if type(key) is not str:
                        self.fail(ptr, "TYPE_MISMATCH", "object keys must be strings")
                        return
                    self.value(x, f"{ptr}/{escape_token(key)}", depth + 1)
            else:
                for i, x in enumerate(v):
                    self.value(x, f"{ptr}/{i}", depth + 1)
        elif v is not None and t is not bool:
            self.fail(ptr, "TYPE_MISMATCH", f"{t.__name__} is not a JSON value")


# -- rules that span fields --------------------------------------------------


def _record(w: _Walk, doc: dict[str, Any], ptr: str) -> None:
    kind = doc.get("kind")
    if type(kind) is str and kind in _KIND_PAYLOADS and kind not in doc and "encrypted" not in doc:
        present = [k for k in _KIND_PAYLOADS | {"encrypted"} if k in doc]
        if present:
            w.fail(f"{ptr}/{present[0]}", "KIND_MISMATCH",
                   f"a record of kind {kind!r} carries {kind!r} or 'encrypted', not {present[0]!r}")
        else:
            w.fail(f"{ptr}/{kind}", "REQUIRED_FIELD_MISSING", f"a record of kind {kind!r} needs its payload")
    elif kind is not None and not any(k in doc for k in _KIND_PAYLOADS | {"encrypted"}):
        w.fail(f"{ptr}/kind", "REQUIRED_FIELD_MISSING", "a record needs exactly one payload")
    if ptr and "specversion" in doc:
        w.fail(f"{ptr}/specversion", "UNKNOWN_FIELD",
               "a record inside another document inherits its specversion and MUST NOT carry one")


def _exactly_one(oneof: str) -> Any:
    def check(w: _Walk, doc: dict[str, Any], ptr: str, _members: list[str] | None = None) -> None:
        info_members = _ONEOF_MEMBERS[oneof]
        if not any(k in doc for k in info_members):
            w.fail(ptr, "REQUIRED_FIELD_MISSING", f"one of {', '.join(info_members)} is required")
    return check


def _content_part(w: _Walk, doc: dict[str, Any], ptr: str) -> None:
    _exactly_one("ContentPart")(w, doc, ptr)


def _filter(w: _Walk, doc: dict[str, Any], ptr: str) -> None:
    _exactly_one("Filter")(w, doc, ptr)


def _media(w: _Walk, doc: dict[str, Any], ptr: str) -> None:
    if not any(k in doc for k in ("uri", "data", "file_id")):
        w.fail(ptr, "REQUIRED_FIELD_MISSING", "a media part needs one of uri, data and file_id")


def _tool_result(w: _Walk, doc: dict[str, Any], ptr: str) -> None:
    if "output" in doc and "output_parts" in doc:
        w.fail(f"{ptr}/output_parts", "ONEOF_CONFLICT", "at most one of output and output_parts")


def _delete(w: _Walk, doc: dict[str, Any], ptr: str) -> None:
    has_ids, has_filter = "ids" in doc, "filter" in doc
    if has_ids == has_filter:
        w.fail(f"{ptr}/{'filter' if has_ids else 'ids'}",
               "ONEOF_CONFLICT" if has_ids else "REQUIRED_FIELD_MISSING",
               "exactly one of ids and filter is required")


def _expire_policy(w: _Walk, doc: dict[str, Any], ptr: str) -> None:
    if not doc:
        w.fail(ptr, "REQUIRED_FIELD_MISSING", "an expire policy needs at least one criterion")


def _embedding(w: _Walk, doc: dict[str, Any], ptr: str) -> None:
    values, dims = doc.get("values"), doc.get("dimensions")
    if type(values) is list and type(dims) is int and dims != len(values):
        w.fail(f"{ptr}/dimensions", "DIMENSION_MISMATCH",
               f"dimensions is {dims} but there are {len(values)} values")
    if type(dims) is int and dims > w.limits.max_dimensions:
        w.fail(f"{ptr}/dimensions", "TOO_MANY_ITEMS", f"more than {w.limits.max_dimensions} dimensions")


_ONEOF_MEMBERS = {
    "ContentPart": m.message("ContentPart").oneofs["part"],
    "Filter": m.message("Filter").oneofs["expression"],
}
_SPECIAL: dict[str, Any] = {
    "MemoryRecord": _record,
    "ContentPart": _content_part,
    "Filter": _filter,
    "MediaPart": _media,
    "ToolResult": _tool_result,
    "DeleteRequest": _delete,
    "ExpirePolicy": _expire_policy,
    "Embedding": _embedding,
}


def _is_default(v: Any, f: m.FieldInfo) -> bool:
    if v is None:
        return True
    if f.repeated or f.is_map:
        return not v
    if f.kind in (m.STRING, m.BYTES):
        return v == ""
    if f.kind == m.UINT:
        return v == 0
    return False


def _valid_timestamp(v: str) -> bool:
    mt = _TIMESTAMP.fullmatch(v)
    if mt is None:
        return False
    year, month, day = int(mt.group(1)), int(mt.group(2)), int(mt.group(3))
    if year == 0:
        return False
    try:
        date(year, month, day)
    except ValueError:
        return False
    return True


def _jtype(v: Any) -> str:
    if v is None:
        return "null"
    return {bool: "boolean", int: "integer", float: "number", str: "string",
            list: "array", dict: "object"}.get(type(v), type(v).__name__)


# -- public API --------------------------------------------------------------


def _version_errors(doc: Any, type_name: str) -> tuple[list[Violation], bool]:
    """Check specversion; return errors and whether the document is of a newer minor."""
    if type(doc) is not dict:
        return [], False
    sv = doc.get("specversion")
    if type(sv) is not str:
        return [], False
    mt = _SPECVERSION.fullmatch(sv)
    if mt is None:
        return [], False
    if mt.group(1) != "1":
        return [Violation("/specversion", "UNSUPPORTED_VERSION",
                          f"specversion {sv} is not a 1.x version; this reader implements 1.{SUPPORTED_MINOR}")], False
    return [], int(mt.group(2)) > SUPPORTED_MINOR


def check(doc: Any, type_name: str = "memorywire.v1.MemoryRecord", *,
          limits: Limits = DEFAULT_LIMITS) -> tuple[list[Violation], list[str]]:
    walk = run(doc, type_name, limits)
    return walk.errors, walk.unknown


def run(doc: Any, type_name: str, limits: Limits = DEFAULT_LIMITS) -> _Walk:
    """Validate a document; return its violations and its unknown members.

    Unknown members are tolerated only in a document of a newer minor
    version (spec/v1/versioning.md, section 3).
    """
    info = m.message(type_name)
    errors, newer = _version_errors(doc, type_name)
    walk = _Walk(limits, tolerant=newer)
    walk.errors.extend(errors)
    walk.message(doc, info, "", 1)
    if info.name == "MemoryRecord" and type(doc) is dict and "specversion" not in doc:
        walk.fail("/specversion", "REQUIRED_FIELD_MISSING",
                  "a record that is a document of its own carries its specversion")
    return walk


def iter_errors(doc: Any, *, type: str = "memorywire.v1.MemoryRecord",
                limits: Limits = DEFAULT_LIMITS) -> Iterator[Violation]:
    """Every violation of a document, in document order."""
    yield from check(doc, type, limits=limits)[0]


def validate(doc: Any, *, type: str = "memorywire.v1.MemoryRecord",
             limits: Limits = DEFAULT_LIMITS) -> None:
    """Raise ValidationError if the document breaks a rule of the specification."""
    errors = check(doc, type, limits=limits)[0]
    if errors:
        raise ValidationError(errors[0].reason, errors[0].message, errors)


# -- the reference validator -------------------------------------------------

_KEYWORD_REASONS = {
    "required": "REQUIRED_FIELD_MISSING",
    "additionalProperties": "UNKNOWN_FIELD",
    "enum": "UNKNOWN_ENUM_VALUE",
    "type": "TYPE_MISMATCH",
    "pattern": "PATTERN_MISMATCH",
    "minLength": "LENGTH_OUT_OF_RANGE",
    "maxLength": "LENGTH_OUT_OF_RANGE",
    "minItems": "COUNT_OUT_OF_RANGE",
    "maxItems": "COUNT_OUT_OF_RANGE",
    "maxProperties": "COUNT_OUT_OF_RANGE",
    "minProperties": "REQUIRED_FIELD_MISSING",
    "minimum": "VALUE_OUT_OF_RANGE",
    "maximum": "VALUE_OUT_OF_RANGE",
    "oneOf": "ONEOF_CONFLICT",
    "anyOf": "REQUIRED_FIELD_MISSING",
    "not": "ONEOF_CONFLICT",
    "false": "UNKNOWN_FIELD",
}


def semantic_errors(doc: Any, type_name: str) -> list[Violation]:
    """The rules JSON Schema cannot state, for a document the schema accepts:
    calendar dates, embedding dimensions, number ranges beyond the JSON model,
    and the specification version."""
    errors, _ = _version_errors(doc, type_name)
    walk = _Walk(DEFAULT_LIMITS, tolerant=True)
    walk.message(doc, m.message(type_name), "", 1)
    semantic = {"INVALID_TIMESTAMP", "DIMENSION_MISMATCH", "NUMBER_OUT_OF_RANGE",
                "NON_FINITE_NUMBER", "NESTING_TOO_DEEP", "TOO_MANY_ITEMS", "STRING_TOO_LONG"}
    return errors + [e for e in walk.errors if e.reason in semantic]


def reference_errors(doc: Any, type_name: str = "memorywire.v1.MemoryRecord") -> list[Violation]:
    """The violations the reference validator (jsonschema) reports."""
    out = []
    for e in _schemas.validator(type_name).iter_errors(doc):
        pointer = "".join("/" + escape_token(str(p)) for p in e.absolute_path)
        if e.validator == "required":
            missing = str(e.message).split("'")[1] if "'" in str(e.message) else ""
            pointer += "/" + escape_token(missing)
        location = "/".join(str(p) for p in e.absolute_schema_path)
        reason = _KEYWORD_REASONS.get(str(e.validator), "INVALID_ARGUMENT")
        out.append(Violation(pointer, reason, e.message, schema_location=location))
    if not out:
        out = semantic_errors(doc, type_name)
    return out
