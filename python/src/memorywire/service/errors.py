"""The error model of the service: reasons and their codes, the ServiceError
exception, and the google.rpc.Status that carries an Error in the trailer
``grpc-status-details-bin`` (spec/v1/operations.md section 3,
spec/v1/grpc-binding.md sections 4 and 5).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from memorywire._compiled import varint
from memorywire.errors import MemorywireError, Violation

__all__ = [
    "ERROR_TYPE_URL",
    "GRPC_CODES",
    "REASON_CODES",
    "ServiceError",
    "decode_status",
    "encode_status",
    "error",
    "from_error_document",
]

#: The code of every registered reason (operations.md section 3.3).
REASON_CODES: dict[str, str] = {
    # readers
    **{r: "INVALID_ARGUMENT" for r in (
        "SYNTAX_ERROR", "TRUNCATED", "TRAILING_DATA", "INVALID_WIRE_FORMAT", "INVALID_UTF8",
        "INVALID_UNICODE", "DUPLICATE_KEY", "TYPE_MISMATCH", "NULL_VALUE", "UNKNOWN_FIELD",
        "UNKNOWN_ENUM_VALUE", "REQUIRED_FIELD_MISSING", "ONEOF_CONFLICT", "KIND_MISMATCH",
        "NON_FINITE_NUMBER", "NUMBER_OUT_OF_RANGE", "INVALID_TIMESTAMP", "INVALID_BASE64",
        "INVALID_VECTOR", "DIMENSION_MISMATCH", "PATTERN_MISMATCH", "LENGTH_OUT_OF_RANGE",
        "COUNT_OUT_OF_RANGE", "VALUE_OUT_OF_RANGE", "INVALID_FORMAT", "SIGNATURE_MISMATCH",
        "DIGEST_MISMATCH",
        "VALUE_KIND_MISSING",
        "UNSUPPORTED_VERSION", "UNREPRESENTABLE", "IMMUTABLE_FIELD", "INVALID_CURSOR")},
    # resource limits
    **{r: "RESOURCE_EXHAUSTED" for r in (
        "DOCUMENT_TOO_LARGE", "NESTING_TOO_DEEP", "STRING_TOO_LONG", "TOO_MANY_ITEMS",
        "RATE_LIMITED")},
    # services
    "RECORD_NOT_FOUND": "NOT_FOUND",
    "RECORD_EXISTS": "ALREADY_EXISTS",
    "REVISION_MISMATCH": "ABORTED",
    "BATCH_FAILED": "ABORTED",
    "TENANT_REQUIRED": "UNAUTHENTICATED",
    "CREDENTIALS_INVALID": "UNAUTHENTICATED",
    "TENANT_MISMATCH": "PERMISSION_DENIED",
    "OPERATION_ID_REUSED": "FAILED_PRECONDITION",
    "NOT_STAGED": "FAILED_PRECONDITION",
    "OPERATION_ERASED": "FAILED_PRECONDITION",
    "CURSOR_EXPIRED": "OUT_OF_RANGE",
    "UNSUPPORTED_FEATURE": "UNIMPLEMENTED",
    "INTERNAL_ERROR": "INTERNAL",
    # transports
    "CANCELLED": "CANCELLED",
    "UNKNOWN_ERROR": "UNKNOWN",
    "DEADLINE_EXCEEDED": "DEADLINE_EXCEEDED",
    "UNAVAILABLE": "UNAVAILABLE",
    "DATA_LOSS": "DATA_LOSS",
}

#: gRPC status code numbers by name (the numbers of memorywire.v1.ErrorCode).
GRPC_CODES: dict[str, int] = {
    "OK": 0, "CANCELLED": 1, "UNKNOWN": 2, "INVALID_ARGUMENT": 3, "DEADLINE_EXCEEDED": 4,
    "NOT_FOUND": 5, "ALREADY_EXISTS": 6, "PERMISSION_DENIED": 7, "RESOURCE_EXHAUSTED": 8,
    "FAILED_PRECONDITION": 9, "ABORTED": 10, "OUT_OF_RANGE": 11, "UNIMPLEMENTED": 12,
    "INTERNAL": 13, "UNAVAILABLE": 14, "DATA_LOSS": 15, "UNAUTHENTICATED": 16,
}

#: The reason a status without an Error stands for (grpc-binding.md section 4).
TRANSPORT_REASONS: dict[str, str] = {
    "CANCELLED": "CANCELLED", "UNKNOWN": "UNKNOWN_ERROR", "DEADLINE_EXCEEDED": "DEADLINE_EXCEEDED",
    "UNAVAILABLE": "UNAVAILABLE", "DATA_LOSS": "DATA_LOSS", "INTERNAL": "INTERNAL_ERROR",
    "UNIMPLEMENTED": "UNSUPPORTED_FEATURE", "RESOURCE_EXHAUSTED": "DOCUMENT_TOO_LARGE",
}

ERROR_TYPE_URL = "type.googleapis.com/memorywire.v1.Error"


@dataclass
class ServiceError(MemorywireError):
    """An error a memorywire service answered with: ``code`` (the gRPC status
    name, such as ``"NOT_FOUND"``), ``reason`` (a token of the reason registry),
    ``message``, ``violations`` (each with its JSON Pointer; ``pointer`` is the
    first one's), and where the service gave them ``operation_id`` and
    ``retry_after_millis``."""

    operation_id: str = ""
    retry_after_millis: int | None = None

    def to_error_document(self, operation_id: str = "") -> dict[str, Any]:
        doc = super().to_error_document(operation_id or self.operation_id)
        if self.retry_after_millis is not None:
            doc["retry_after_millis"] = self.retry_after_millis
        return doc


def error(reason: str, message: str, pointer: str | None = None,
          violations: Iterable[Violation] | None = None) -> ServiceError:
    """A ServiceError with the registered code of its reason and, when a
    pointer is given, one violation at it."""
    vs = list(violations) if violations is not None else []
    if pointer is not None and not vs:
        vs = [Violation(pointer, reason, message)]
    return ServiceError(reason, message, vs, REASON_CODES.get(reason, "INTERNAL"))


def from_error_document(doc: Mapping[str, Any]) -> ServiceError:
    """The ServiceError of a memorywire.v1.Error document in its JSON form."""
    violations = [Violation(v.get("pointer", ""), v.get("reason", ""), v.get("message", ""))
                  for v in doc.get("violations", [])]
    return ServiceError(str(doc.get("reason", "UNKNOWN_ERROR")), str(doc.get("message", "")),
                        violations, str(doc.get("code", "unknown")).upper(),
                        str(doc.get("operation_id", "")), doc.get("retry_after_millis"))


# -- google.rpc.Status, written and read by hand ------------------------------
# Status {int32 code = 1; string message = 2; repeated google.protobuf.Any details = 3;}
# Any {string type_url = 1; bytes value = 2;}


def _field(number: int, payload: bytes) -> bytes:
    return varint(number << 3 | 2) + varint(len(payload)) + payload


def encode_status(code: int, message: str, details: Iterable[tuple[str, bytes]]) -> bytes:
    """A serialized google.rpc.Status."""
    out = bytearray()
    if code:
        out += varint(1 << 3) + varint(code)
    if message:
        out += _field(2, message.encode("utf-8"))
    for type_url, value in details:
        out += _field(3, _field(1, type_url.encode("utf-8")) + _field(2, value))
    return bytes(out)


def _readvarint(data: bytes, pos: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        if pos >= len(data) or shift > 63:
            raise ValueError("malformed varint")
        b = data[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, pos
        shift += 7


def _fields(data: bytes) -> Iterable[tuple[int, int, Any]]:
    pos = 0
    while pos < len(data):
        key, pos = _readvarint(data, pos)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = _readvarint(data, pos)
            yield number, wire, value
        elif wire == 2:
            length, pos = _readvarint(data, pos)
            if pos + length > len(data):
                raise ValueError("truncated field")
            yield number, wire, data[pos:pos + length]
            pos += length
        elif wire in (1, 5):
            pos += 8 if wire == 1 else 4
        else:
            raise ValueError(f"wire type {wire}")


def decode_status(data: bytes) -> tuple[int, str, list[tuple[str, bytes]]]:
    """The code, message and details (type URL, value) of a serialized
    google.rpc.Status; raises ValueError when the bytes are malformed."""
    code, message, details = 0, "", []
    for number, wire, value in _fields(data):
        if number == 1 and wire == 0:
            code = value
        elif number == 2 and wire == 2:
            message = value.decode("utf-8", "replace")
        elif number == 3 and wire == 2:
            type_url, payload = "", b""
            for n, w, v in _fields(value):
                if n == 1 and w == 2:
                    type_url = v.decode("utf-8", "replace")
                elif n == 2 and w == 2:
                    payload = v
            details.append((type_url, payload))
    return code, message, details
