"""The typed errors of the reference codec.

Every error carries the reason token of the specification's reason registry
(spec/v1/operations.md, section 3.3), the class of error aligned with gRPC
status codes, and for each offending field its JSON Pointer.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

#: Reason tokens whose error code is RESOURCE_EXHAUSTED; every other codec
#: reason is INVALID_ARGUMENT.
LIMIT_REASONS = frozenset(
    {"DOCUMENT_TOO_LARGE", "NESTING_TOO_DEEP", "STRING_TOO_LONG", "TOO_MANY_ITEMS"}
)


@dataclass(frozen=True)
class Violation:
    """One offending field: its JSON Pointer, reason token and message."""

    pointer: str
    reason: str
    message: str
    #: Where in the JSON Schema the rule lives, when a schema rule was broken.
    schema_location: str = ""
    #: The 1-based line of the document in a stream, when known.
    line: int | None = None

    def __str__(self) -> str:
        return f"{self.pointer or '/'}: {self.message} [{self.reason}]"


@dataclass
class MemorywireError(Exception):
    """Base class: an error of the error model, with one or more violations."""

    reason: str
    message: str
    violations: list[Violation] = field(default_factory=list)

    code: str = "INVALID_ARGUMENT"

    def __post_init__(self) -> None:
        if self.reason in LIMIT_REASONS:
            self.code = "RESOURCE_EXHAUSTED"
        super().__init__(self.message)

    @property
    def pointer(self) -> str:
        """The JSON Pointer of the first offending field ("" for the root)."""
        return self.violations[0].pointer if self.violations else ""

    def __str__(self) -> str:
        where = self.pointer or "/"
        return f"{where}: {self.message} [{self.reason}]"

    def to_error_document(self, operation_id: str = "") -> dict[str, Any]:
        """This error as a memorywire.v1.Error document in its JSON form."""
        doc: dict[str, Any] = {
            "code": self.code.lower(),
            "reason": self.reason,
            "message": self.message,
        }
        if self.violations:
            doc["violations"] = [
                {k: v for k, v in (("pointer", x.pointer), ("reason", x.reason),
                                   ("message", x.message)) if v}
                for x in self.violations[:100]
            ]
        if operation_id:
            doc["operation_id"] = operation_id
        return doc


class DecodeError(MemorywireError):
    """The bytes are not a well-formed document of the encoding."""


class ValidationError(MemorywireError):
    """The document is well formed but breaks a rule of the specification."""


class LimitError(DecodeError):
    """The document exceeds a resource limit."""


class UnrepresentableError(MemorywireError):
    """The document holds content the target encoding cannot carry."""


def violation(reason: str, pointer: str, message: str) -> ValidationError:
    """A ValidationError with a single violation."""
    return ValidationError(reason, message, [Violation(pointer, reason, message)])


def decode_error(reason: str, pointer: str, message: str) -> DecodeError:
    """A DecodeError with a single violation."""
    cls = LimitError if reason in LIMIT_REASONS else DecodeError
    return cls(reason, message, [Violation(pointer, reason, message)])


def escape_token(token: str) -> str:
    """Escape one reference token of a JSON Pointer (RFC 6901)."""
    return token.replace("~", "~0").replace("/", "~1")
