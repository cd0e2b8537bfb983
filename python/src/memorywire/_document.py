"""Steps every decoder and encoder shares: limits, validation, error raising."""

from __future__ import annotations

from typing import Any

from memorywire import _model as m
from memorywire import validation as _validate
from memorywire.errors import ValidationError, decode_error
from memorywire.limits import Limits

DEFAULT_TYPE = "memorywire.v1.MemoryRecord"


def check_size(data: bytes, limits: Limits) -> None:
    if len(data) > limits.max_document_bytes:
        raise decode_error("DOCUMENT_TOO_LARGE", "",
                           f"{len(data)} bytes; the limit is {limits.max_document_bytes}")


def validated(doc: Any, type_name: str, limits: Limits) -> Any:
    """Run the validator; raise on the first violation, return the walk."""
    walk = _validate.run(doc, type_name, limits)
    if walk.errors:
        first = walk.errors[0]
        raise ValidationError(first.reason, first.message, walk.errors)
    return walk


def info(type_name: str) -> m.MessageInfo:
    return m.message(type_name)
