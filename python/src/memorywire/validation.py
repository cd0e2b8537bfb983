"""Validation of documents in their JSON form against the v1 rules.

Two validators give the same verdict on every document:

* the fast one runs the checking functions that :mod:`memorywire._compiled`
  generates from the field tables, plus the rules below that span fields;
  it is what the codec runs;
* the reference one runs the real ``jsonschema`` package on the schema files
  of ``schemas/v1``, which stays the authority and the error reporter of
  record (:func:`reference_errors`), plus the rules JSON Schema cannot state
  (calendar dates, embedding dimensions, number ranges, the version).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from memorywire import _compiled
from memorywire import _model as m
from memorywire import _schemas
from memorywire.errors import ValidationError, Violation, escape_token
from memorywire.limits import DEFAULT_LIMITS, Limits

SUPPORTED_MINOR = 0
MAX_ERRORS = 100

_SPECVERSION = re.compile(r"([1-9][0-9]*)\.(0|[1-9][0-9]*)")
_PAYLOADS = frozenset(m.kind_payloads()) | {"encrypted"}
_KINDS = frozenset(m.kind_payloads())


class _Walk:
    """The state of one validation pass: violations, unknown members, and
    how many object members it visited (for the duplicate-key check)."""

    __slots__ = ("errors", "large_float", "limits", "max_chars", "members", "tolerant", "unknown")

    def __init__(self, limits: Limits, tolerant: bool) -> None:
        self.errors: list[Violation] = []
        self.limits = limits
        #: Strings longer than this many code points may exceed the byte limit.
        self.max_chars = limits.max_string_bytes // 4
        #: Whether unknown members are tolerated (a document of a newer minor).
        self.tolerant = tolerant
        self.unknown: list[str] = []
        self.members = 0
        #: Whether a Value holds a float beyond the 64-bit integer range.
        self.large_float = False

    def fail(self, pointer: str, reason: str, message: str) -> None:
        if len(self.errors) < MAX_ERRORS:
            self.errors.append(Violation(pointer, reason, message))


# -- rules that span fields --------------------------------------------------


def _record(w: _Walk, doc: dict[str, Any], ptr: str) -> None:
    kind = doc.get("kind")
    present = [k for k in _PAYLOADS if doc.get(k) is not None]
    if _is_tombstone(doc):
        if present:
            w.fail(f"{ptr}/{present[0]}", "KIND_MISMATCH", "a tombstone keeps no payload")
    elif type(kind) is str and kind in _KINDS and present and kind not in present \
            and "encrypted" not in present:
        w.fail(f"{ptr}/{present[0]}", "KIND_MISMATCH",
               f"a record of kind {kind!r} carries {kind!r} or 'encrypted', not {present[0]!r}")
    elif not present:
        w.fail(ptr, "REQUIRED_FIELD_MISSING", "a record carries exactly one payload")
    if ptr and "specversion" in doc:
        w.fail(f"{ptr}/specversion", "UNKNOWN_FIELD",
               "a record inside another document inherits its specversion and MUST NOT carry one")


def _is_tombstone(doc: dict[str, Any]) -> bool:
    lifecycle = doc.get("lifecycle")
    return type(lifecycle) is dict and lifecycle.get("status") == "deleted"


def _exactly_one(members: list[str]) -> Any:
    def check(w: _Walk, doc: dict[str, Any], ptr: str) -> None:
        if not any(doc.get(k) is not None for k in members):
            w.fail(ptr, "REQUIRED_FIELD_MISSING", f"one of {', '.join(members)} is required")
    return check


def _media(w: _Walk, doc: dict[str, Any], ptr: str) -> None:
    if not any(doc.get(k) for k in ("uri", "data", "file_id")):
        w.fail(ptr, "REQUIRED_FIELD_MISSING", "a media part needs one of uri, data and file_id")


def _tool_result(w: _Walk, doc: dict[str, Any], ptr: str) -> None:
    if doc.get("output") is not None and doc.get("output_parts") is not None:
        w.fail(f"{ptr}/output_parts", "ONEOF_CONFLICT", "at most one of output and output_parts")


def _delete(w: _Walk, doc: dict[str, Any], ptr: str) -> None:
    has_ids, has_filter = doc.get("ids") is not None, doc.get("filter") is not None
    if has_ids == has_filter:
        w.fail(f"{ptr}/{'filter' if has_ids else 'ids'}",
               "ONEOF_CONFLICT" if has_ids else "REQUIRED_FIELD_MISSING",
               "exactly one of ids and filter is required")
    ids = doc.get("ids")
    if doc.get("expected_revision") is not None and not (type(ids) is list and len(ids) == 1):
        w.fail(f"{ptr}/ids", "COUNT_OUT_OF_RANGE", "expected_revision applies to a delete of one id")


_CRITERIA = ("older_than_seconds", "not_accessed_seconds", "importance_below", "past_expiry")


def _expire_policy(w: _Walk, doc: dict[str, Any], ptr: str) -> None:
    if not any(doc.get(c) is not None for c in _CRITERIA):
        w.fail(ptr, "REQUIRED_FIELD_MISSING",
               "an expire policy needs one of " + ", ".join(_CRITERIA))
    if doc.get("half_life_seconds") is not None and doc.get("importance_below") is None:
        w.fail(f"{ptr}/importance_below", "REQUIRED_FIELD_MISSING",
               "half_life_seconds decays importance, so importance_below is required")


def _procedure(w: _Walk, doc: dict[str, Any], ptr: str) -> None:
    states = doc.get("states")
    if type(states) is not list:
        return
    for name in ("initial_state", "current_state"):
        value = doc.get(name)
        if type(value) is str and value and value not in states:
            w.fail(f"{ptr}/{name}", "VALUE_OUT_OF_RANGE", f"{value!r} is not one of the states")


def _history(w: _Walk, doc: dict[str, Any], ptr: str) -> None:
    agents = doc.get("agents")
    count = len(agents) if type(agents) is list else 0
    if doc.get("thread") == "between":
        if count != 2:
            w.fail(f"{ptr}/agents", "COUNT_OUT_OF_RANGE", "a between read names exactly two agents")
    elif count:
        w.fail(f"{ptr}/agents", "COUNT_OUT_OF_RANGE", "only a between read names agents")


def _patch_is_object(w: _Walk, doc: dict[str, Any], ptr: str) -> None:
    patch = doc.get("patch")
    if patch is not None and type(patch) is not dict:
        w.fail(f"{ptr}/patch", "TYPE_MISMATCH", "a JSON Merge Patch here is an object")


def _review(w: _Walk, doc: dict[str, Any], ptr: str) -> None:
    _patch_is_object(w, doc, ptr)
    amend = doc.get("decision") == "amend"
    if amend and doc.get("patch") is None:
        w.fail(f"{ptr}/patch", "REQUIRED_FIELD_MISSING", "an amend decision carries its patch")
    elif not amend and doc.get("patch") is not None and doc.get("decision") is not None:
        w.fail(f"{ptr}/patch", "ONEOF_CONFLICT", "only an amend decision carries a patch")


def _compact(w: _Walk, doc: dict[str, Any], ptr: str) -> None:
    summary = doc.get("summary")
    if type(summary) is dict and summary.get("kind") not in (None, "summary"):
        w.fail(f"{ptr}/summary/kind", "KIND_MISMATCH", "the record that replaces others is a summary")


def _embedding(w: _Walk, doc: dict[str, Any], ptr: str) -> None:
    values, dims = doc.get("values"), doc.get("dimensions")
    if type(values) is list and type(dims) is int and dims != len(values):
        w.fail(f"{ptr}/dimensions", "DIMENSION_MISMATCH",
               f"dimensions is {dims} but there are {len(values)} values")
    if type(dims) is int and dims > w.limits.max_dimensions:
        w.fail(f"{ptr}/dimensions", "TOO_MANY_ITEMS", f"more than {w.limits.max_dimensions} dimensions")


_SPECIAL: dict[str, Any] = {
    "MemoryRecord": _record,
    "ContentPart": _exactly_one(m.message("ContentPart").oneofs["part"]),
    "Filter": _exactly_one(m.message("Filter").oneofs["expression"]),
    "MediaPart": _media,
    "ToolResult": _tool_result,
    "DeleteRequest": _delete,
    "ExpirePolicy": _expire_policy,
    "Embedding": _embedding,
    "Procedure": _procedure,
    "HistoryRequest": _history,
    "UpdateRequest": _patch_is_object,
    "ReviewRequest": _review,
    "CompactRequest": _compact,
}
_compiled.FUNCTIONS["SPECIAL"].update(_SPECIAL)


# -- public API --------------------------------------------------------------


def _version(doc: Any) -> tuple[list[Violation], bool]:
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
                          f"specversion {sv} is not a 1.x version; this reader implements "
                          f"1.{SUPPORTED_MINOR}")], False
    return [], int(mt.group(2)) > SUPPORTED_MINOR


def run(doc: Any, type_name: str, limits: Limits = DEFAULT_LIMITS) -> _Walk:
    """Validate a document and return the walk, with its violations and unknown
    members. Unknown members are tolerated only in a document of a newer
    minor version (spec/v1/versioning.md, section 3)."""
    check_fn, is_record = _checks.get(type_name) or _check_of(type_name)
    errors, newer = _version(doc)
    walk = _Walk(limits, tolerant=newer)
    if errors:
        walk.errors.extend(errors)
    check_fn(doc, "", walk, 1)
    if is_record and type(doc) is dict and "specversion" not in doc:
        walk.fail("/specversion", "REQUIRED_FIELD_MISSING",
                  "a record that is a document of its own carries its specversion")
    return walk


_checks: dict[str, tuple[Any, bool]] = {}


def _check_of(type_name: str) -> tuple[Any, bool]:
    entry = (_compiled.function("check", type_name), m.message(type_name).name == "MemoryRecord")
    _checks[type_name] = entry
    return entry


def check(doc: Any, type_name: str = "memorywire.v1.MemoryRecord", *,
          limits: Limits = DEFAULT_LIMITS) -> tuple[list[Violation], list[str]]:
    """The violations and the unknown members of a document."""
    walk = run(doc, type_name, limits)
    return walk.errors, walk.unknown


def iter_errors(doc: Any, *, type: str = "memorywire.v1.MemoryRecord",
                limits: Limits = DEFAULT_LIMITS) -> Iterator[Violation]:
    """Every violation of a document, in document order."""
    yield from run(doc, type, limits).errors


def validate(doc: Any, *, type: str = "memorywire.v1.MemoryRecord",
             limits: Limits = DEFAULT_LIMITS) -> None:
    """Raise ValidationError if the document breaks a rule of the specification."""
    errors = run(doc, type, limits).errors
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
#: Rules the schema files cannot state; the reference adds them.
_BEYOND_SCHEMA = frozenset({
    "INVALID_TIMESTAMP", "DIMENSION_MISMATCH", "NUMBER_OUT_OF_RANGE", "NON_FINITE_NUMBER",
    "NESTING_TOO_DEEP", "TOO_MANY_ITEMS", "STRING_TOO_LONG", "UNSUPPORTED_VERSION",
    "VALUE_OUT_OF_RANGE",  # procedure states
})


def reference_errors(doc: Any, type_name: str = "memorywire.v1.MemoryRecord") -> list[Violation]:
    """The violations the reference validator reports: jsonschema on the
    schema files, then the rules beyond the schema."""
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
        out = [e for e in run(doc, type_name).errors if e.reason in _BEYOND_SCHEMA]
    return out
