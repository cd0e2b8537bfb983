"""The validation walk's state, and the rules of the specification that span
several fields of one message, which the generated checking functions call."""

from __future__ import annotations

from array import array
from typing import Any

from memorywire import _model as m
from memorywire._codec import Float32Bytes
from memorywire.errors import Violation
from memorywire.limits import Limits

MAX_ERRORS = 100
_PAYLOADS = frozenset(m.kind_payloads()) | {"encrypted"}
_KINDS = frozenset(m.kind_payloads())


class Walk:
    """The state of one validation pass: violations, unknown members, and
    how many object members it visited (for the duplicate-key check)."""

    __slots__ = ("errors", "large_float", "late", "limits", "max_chars", "max_depth", "max_items",
                 "members", "parsed", "tolerant", "unknown")

    def __init__(self, limits: Limits, tolerant: bool) -> None:
        self.errors: list[Violation] = []
        self.limits = limits
        #: Strings longer than this many code points may exceed the byte limit.
        self.max_chars = limits.max_string_bytes // 4
        self.max_depth = limits.max_depth
        self.max_items = limits.max_items
        #: Whether unknown members are tolerated (a document of a newer minor).
        self.tolerant = tolerant
        self.unknown: list[str] = []
        self.members = 0
        #: Whether a Value holds a float beyond the 64-bit integer range.
        self.large_float = False
        #: The parsed Protobuf message, when it holds fields of a newer minor
        #: version that only that encoding can carry.
        self.parsed: Any = None
        #: Indexes of violations that rules spanning fields found (phase 4),
        #: though their reason also names a fault of an earlier phase.
        self.late: dict[int, int] = {}

    def fail(self, pointer: str, reason: str, message: str) -> None:
        if len(self.errors) < MAX_ERRORS:
            self.errors.append(Violation(pointer, reason, message))

    def fail_late(self, pointer: str, reason: str, message: str) -> None:
        """A violation of a rule that spans fields: phase 4, whatever its reason."""
        self.fail_phase(pointer, reason, message, 4)

    def fail_phase(self, pointer: str, reason: str, message: str, phase: int) -> None:
        """A violation whose phase its reason alone does not tell."""
        if len(self.errors) < MAX_ERRORS:
            self.late[len(self.errors)] = phase
            self.errors.append(Violation(pointer, reason, message))

    def ordered(self) -> list[Violation]:
        """The violations, those of the earliest phase of reading first
        (spec/v1/operations.md, section 3.1.1)."""
        if len(self.errors) < 2:
            return self.errors
        indexed = sorted(range(len(self.errors)),
                         key=lambda i: self.late.get(i) or phase(self.errors[i]))
        return [self.errors[i] for i in indexed]


_PHASE_ONE = frozenset({"SYNTAX_ERROR", "TRUNCATED", "TRAILING_DATA", "INVALID_WIRE_FORMAT",
                        "INVALID_UTF8", "INVALID_UNICODE", "DUPLICATE_KEY", "DOCUMENT_TOO_LARGE",
                        "NESTING_TOO_DEEP", "STRING_TOO_LONG", "TOO_MANY_ITEMS"})
_PHASE_THREE = frozenset({"UNKNOWN_FIELD", "TYPE_MISMATCH", "NULL_VALUE", "UNKNOWN_ENUM_VALUE",
                          "NUMBER_OUT_OF_RANGE", "NON_FINITE_NUMBER", "INVALID_TIMESTAMP",
                          "INVALID_BASE64", "INVALID_VECTOR", "VALUE_KIND_MISSING"})


def phase(v: Violation) -> int:
    """The phase of reading a violation belongs to."""
    if v.pointer == "/specversion":
        return 2
    if v.reason in _PHASE_ONE:
        return 1
    return 3 if v.reason in _PHASE_THREE else 4





def _record(w: Walk, doc: dict[str, Any], ptr: str) -> None:
    kind = doc.get("kind")
    lifecycle = doc.get("lifecycle")
    tombstone = type(lifecycle) is dict and lifecycle.get("status") == "deleted"
    # Only a known kind names a known payload member; under a kind of a newer
    # minor version, a known payload member is a mismatch even beside unknown
    # content named like the kind (spec/v1/versioning.md, section 3.2).
    if type(kind) is str and kind in _KINDS and not tombstone and doc.get(kind) is not None:
        if ptr and doc.get("specversion", "") != "":  # "" is the default: absent
            w.fail_late(f"{ptr}/specversion", "UNKNOWN_FIELD",
                        "a record inside another document inherits its specversion and MUST NOT carry one")
        return  # the common case; a second payload is a oneof conflict the walk reports
    present = [k for k in doc if k in _PAYLOADS and doc[k] is not None]
    if tombstone:
        if present:
            w.fail_late(f"{ptr}/{present[0]}", "KIND_MISMATCH", "a tombstone keeps no payload")
    elif present:
        if present[0] != "encrypted" and present[0] != kind and type(kind) is str:
            w.fail_late(f"{ptr}/{present[0]}", "KIND_MISMATCH",
                        f"a record of kind {kind!r} carries {kind!r} or 'encrypted', not {present[0]!r}")
    elif not (w.tolerant and any(k not in _RECORD_FIELDS for k in doc)):
        # In a document of a newer minor version, unknown content may be the payload.
        w.fail_late(ptr, "REQUIRED_FIELD_MISSING", "a record carries exactly one payload")
    if ptr and doc.get("specversion", "") != "":
        w.fail_late(f"{ptr}/specversion", "UNKNOWN_FIELD",
                    "a record inside another document inherits its specversion and MUST NOT carry one")


_RECORD_FIELDS = frozenset(m.message("MemoryRecord").fields)


def _is_tombstone(doc: dict[str, Any]) -> bool:
    lifecycle = doc.get("lifecycle")
    return type(lifecycle) is dict and lifecycle.get("status") == "deleted"


def _media(w: Walk, doc: dict[str, Any], ptr: str) -> None:
    if not any(doc.get(k) for k in ("uri", "data", "file_id")):
        w.fail_late(ptr, "REQUIRED_FIELD_MISSING", "a media part needs one of uri, data and file_id")


def _tool_result(w: Walk, doc: dict[str, Any], ptr: str) -> None:
    if doc.get("output") is not None and doc.get("output_parts"):
        w.fail_late(f"{ptr}/output_parts", "ONEOF_CONFLICT", "at most one of output and output_parts")


def _delete(w: Walk, doc: dict[str, Any], ptr: str) -> None:
    has_ids, has_filter = bool(doc.get("ids")), doc.get("filter") is not None
    if has_ids == has_filter:
        w.fail_late(f"{ptr}/{'filter' if has_ids else 'ids'}",
               "ONEOF_CONFLICT" if has_ids else "REQUIRED_FIELD_MISSING",
               "exactly one of ids and filter is required")
    ids = doc.get("ids")
    if doc.get("expected_revision") is not None and not (type(ids) is list and len(ids) == 1):
        w.fail_late(f"{ptr}/ids", "COUNT_OUT_OF_RANGE", "expected_revision applies to a delete of one id")


_CRITERIA = ("older_than_seconds", "not_accessed_seconds", "importance_below", "past_expiry")


def _expire_policy(w: Walk, doc: dict[str, Any], ptr: str) -> None:
    if not any(doc.get(c) is not None and doc.get(c) is not False for c in _CRITERIA):
        w.fail_late(ptr, "REQUIRED_FIELD_MISSING",
               "an expire policy needs one of " + ", ".join(_CRITERIA))
    if doc.get("half_life_seconds") is not None and doc.get("importance_below") is None:
        w.fail_late(f"{ptr}/importance_below", "REQUIRED_FIELD_MISSING",
               "half_life_seconds decays importance, so importance_below is required")


def _procedure(w: Walk, doc: dict[str, Any], ptr: str) -> None:
    states = doc.get("states")
    if type(states) is not list:
        return
    for name in ("initial_state", "current_state"):
        value = doc.get(name)
        if type(value) is str and value and value not in states:
            w.fail_late(f"{ptr}/{name}", "VALUE_OUT_OF_RANGE", f"{value!r} is not one of the states")


def _history(w: Walk, doc: dict[str, Any], ptr: str) -> None:
    agents = doc.get("agents")
    count = len(agents) if type(agents) is list else 0
    if doc.get("thread") == "between":
        if count != 2:
            w.fail_late(f"{ptr}/agents", "COUNT_OUT_OF_RANGE", "a between read names exactly two agents")
    elif count:
        w.fail_late(f"{ptr}/agents", "COUNT_OUT_OF_RANGE", "only a between read names agents")


def _patch_is_object(w: Walk, doc: dict[str, Any], ptr: str) -> None:
    if "patch" in doc and type(doc["patch"]) is not dict:
        w.fail_late(f"{ptr}/patch", "TYPE_MISMATCH", "a JSON Merge Patch here is an object")


def _review(w: Walk, doc: dict[str, Any], ptr: str) -> None:
    _patch_is_object(w, doc, ptr)
    amend = doc.get("decision") == "amend"
    if amend and doc.get("patch") is None:
        w.fail_late(f"{ptr}/patch", "REQUIRED_FIELD_MISSING", "an amend decision carries its patch")
    elif not amend and doc.get("patch") is not None and doc.get("decision") is not None:
        w.fail_late(f"{ptr}/patch", "ONEOF_CONFLICT", "only an amend decision carries a patch")


def _compact(w: Walk, doc: dict[str, Any], ptr: str) -> None:
    summary = doc.get("summary")
    if type(summary) is not dict:
        return
    if summary.get("kind") not in (None, "summary"):
        w.fail_late(f"{ptr}/summary/kind", "KIND_MISMATCH", "the record that replaces others is a summary")
    elif summary.get("encrypted") is not None:
        w.fail_late(f"{ptr}/summary/encrypted", "KIND_MISMATCH",
                    "the store writes the covered range into the summary, so it is not encrypted")


def _embedding(w: Walk, doc: dict[str, Any], ptr: str) -> None:
    values, dims = doc.get("values"), doc.get("dimensions")
    count = len(values) >> 2 if type(values) is Float32Bytes else len(values) if isinstance(values, list) else None
    if count is not None and type(dims) is int and dims != count:
        w.fail_late(f"{ptr}/dimensions", "DIMENSION_MISMATCH",
               f"dimensions is {dims} but there are {count} values")
    if type(dims) is int and w.limits.max_dimensions < dims <= 65536:
        w.fail_phase(f"{ptr}/dimensions", "TOO_MANY_ITEMS", f"more than {w.limits.max_dimensions} dimensions", 3)


def _vector_query(w: Walk, doc: dict[str, Any], ptr: str) -> None:
    values = doc.get("values")
    if type(values) is Float32Bytes:
        values = values.values()
    if not isinstance(values, list) or not values:
        return
    if w.limits.max_dimensions < len(values) <= 65536:
        w.fail_phase(f"{ptr}/values", "TOO_MANY_ITEMS", f"more than {w.limits.max_dimensions} dimensions", 3)
    elif _zero_norm(values):
        w.fail_late(f"{ptr}/values", "INVALID_VECTOR", "a query vector of norm zero has no direction")


def _zero_norm(values: list[Any]) -> bool:
    # Judged on the binary32 values, which is what the vector holds once read.
    try:
        return not any(array("f", values))
    except (TypeError, OverflowError):
        return False  # not numbers: the walk reports them


def _batch(member: str) -> Any:
    def check(w: Walk, doc: dict[str, Any], ptr: str) -> None:
        items = doc.get(member)
        # Beyond the (rules) cap of 1000 the constraint reports, whatever the limit.
        if isinstance(items, list) and w.limits.max_batch_records < len(items) <= 1000:
            w.fail_phase(f"{ptr}/{member}", "TOO_MANY_ITEMS",
                         f"{len(items)} records; the limit is {w.limits.max_batch_records}", 3)
    # The member it counts, which the typed fast path bounds by the limit.
    check.batch_member = member  # type: ignore[attr-defined]
    return check


SPECIAL: dict[str, Any] = {
    "MemoryRecord": _record,
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
    "VectorQuery": _vector_query,
    "PutRequest": _batch("items"),
    "ImportRequest": _batch("records"),
}
