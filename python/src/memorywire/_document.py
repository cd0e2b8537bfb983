"""Steps every decoder and encoder shares: limits, validation, error raising."""

from __future__ import annotations

import functools
from typing import Any

from memorywire import _compiled
from memorywire import _model as m
from memorywire import validation as _validate
from memorywire._codec import Float32Bytes
from memorywire.errors import (
    LIMIT_REASONS,
    LimitError,
    UnrepresentableError,
    ValidationError,
    Violation,
    decode_error,
)
from memorywire.limits import Limits

DEFAULT_TYPE = "memorywire.v1.MemoryRecord"
#: The forms in which a decoder gives float32 vectors (its ``vectors``):
#: lists of their values as Python floats, or ``Float32Bytes``, their
#: little-endian binary32 bytes.
VECTOR_FORMS = ("floats", "bytes")


def check_size(data: bytes, limits: Limits) -> None:
    if len(data) > limits.max_document_bytes:
        raise decode_error("DOCUMENT_TOO_LARGE", "",
                           f"{len(data)} bytes; the limit is {limits.max_document_bytes}")


def text_bytes(data: bytes | str, limits: Limits) -> bytes:
    """The UTF-8 bytes of a JSON text given as bytes or str, within the size limit."""
    if type(data) is bytes and len(data) <= limits.max_document_bytes:
        return data  # the common case: nothing to turn or refuse
    if isinstance(data, str):
        try:
            data = data.encode("utf-8")
        except UnicodeEncodeError:
            raise decode_error("INVALID_UNICODE", "", "the text holds a lone surrogate") from None
    check_size(data, limits)
    return data


def raise_errors(walk: Any) -> None:
    if walk.errors:
        first = walk.errors[0]
        cls = LimitError if first.reason in LIMIT_REASONS else ValidationError
        raise cls(first.reason, first.message, walk.errors)


def validated(doc: Any, type_name: str, limits: Limits, *, written: bool = False) -> Any:
    """Run the validator; raise on the first violation, return the walk. A
    document to be written may come from Python code rather than a decoder,
    so its strings are also checked for lone surrogates."""
    walk = _validate.run(doc, type_name, limits)
    if written:
        pointer = _validate.surrogate(doc)
        if pointer is not None:
            walk.fail(pointer, "INVALID_UNICODE", "a string holds a lone surrogate, which UTF-8 cannot carry")
            walk.errors = walk.ordered()
    raise_errors(walk)
    return walk


def write_validated(doc: Any, type_name: str, limits: Limits, write: Any) -> Any:
    """Validate a document and write it with ``write(doc, walk)``: the
    errors and output of :func:`validated` (``written=True``) followed by the
    write, with one pass over the strings fewer. Every writer refuses a lone
    surrogate in any string or member name it writes, and writes every string
    of a valid document; so the strings are screened only where the
    validator or the writer refused the document, to name the fault."""
    walk = _validate.run(doc, type_name, limits)
    if walk.errors:
        validated(doc, type_name, limits, written=True)  # raises, with the surrogates screened
    try:
        return write(doc, walk)
    except Exception:
        validated(doc, type_name, limits, written=True)  # a lone surrogate, named
        raise  # the writer's own fault, as the write after the screen would raise it


def refuse_unknown(walk: Any, target: str) -> None:
    """Unknown members of a newer minor version cannot cross into another
    encoding without being lost; say so rather than drop them."""
    if walk.unknown:
        raise UnrepresentableError(
            "UNREPRESENTABLE",
            f"{walk.unknown[0]} is unknown to this reader; writing it as {target} would lose it",
            [Violation(p, "UNREPRESENTABLE", "unknown member of a newer minor version")
             for p in walk.unknown],
        )


def refuse_partial(doc: Any, target: str) -> None:
    """A document that lost content when it was read cannot be written."""
    unread = getattr(doc, "unread", None)
    if unread:
        raise UnrepresentableError(
            "UNREPRESENTABLE",
            f"{unread[0]} was read from Protobuf but not kept in the document; "
            f"writing it as {target} would lose it (convert Protobuf to Protobuf keeps it)",
            [Violation(p, "UNREPRESENTABLE", "content of a newer minor version") for p in unread],
        )


def info(type_name: str) -> m.MessageInfo:
    return m.message(type_name)


def function(job: str, type_name: str) -> Any:
    return _compiled.function(job, type_name)


def byte_vectors(vectors: str) -> bool:
    """Whether a decoder's ``vectors`` asks for bytes; a ValueError for a
    form that is not one of VECTOR_FORMS."""
    if vectors not in VECTOR_FORMS:
        raise ValueError(f"vectors is one of {', '.join(VECTOR_FORMS)}, not {vectors!r}")
    return vectors == "bytes"


_VECTOR, _MESSAGE, _MESSAGES = range(3)


@functools.cache
def _vector_members() -> dict[str, tuple[tuple[str, int, m.MessageInfo | None], ...]]:
    """Of each message type, its members that are float32 vectors or
    messages in which one can be: (name, what it is, its message)."""
    infos = m.reachable_infos()
    holds = {i.full_name for i in infos if any(f.is_vector for f in i.ordered)}
    while more := {i.full_name for i in infos if i.full_name not in holds
                   and any(f.message is not None and f.message.full_name in holds for f in i.ordered)}:
        holds |= more
    return {i.full_name: tuple(
        (f.name, _VECTOR, None) if f.is_vector else
        (f.name, _MESSAGES if f.repeated else _MESSAGE, f.message)
        for f in i.ordered
        if f.is_vector or (f.message is not None and f.message.full_name in holds))
        for i in infos}


def with_byte_vectors(doc: dict[str, Any], info: m.MessageInfo) -> dict[str, Any]:
    """A valid decoded document with each float32 vector made a
    ``Float32Bytes`` (in place)."""
    for name, what, sub in _vector_members()[info.full_name]:
        v = doc.get(name)
        if v is None:
            continue
        if what == _VECTOR:
            if type(v) is not Float32Bytes:
                doc[name] = Float32Bytes(_compiled.float32_bytes(v))
        elif what == _MESSAGE:
            assert sub is not None
            with_byte_vectors(v, sub)
        else:
            assert sub is not None
            for x in v:
                with_byte_vectors(x, sub)
    return doc


class Codecs:
    """The Decoder and Encoder of an encoding for each message type, made
    once and kept, since making one compiles nothing but looks up much."""

    def __init__(self, decoder: Any, encoder: Any) -> None:
        self._decoder_class, self._encoder_class = decoder, encoder
        #: The decoder of each message type under the default limits.
        self.decoders: dict[str, Any] = {}
        #: The same, giving float32 vectors as bytes.
        self._byte_decoders: dict[str, Any] = {}
        self._encoders: dict[str, Any] = {}

    def decoder(self, type_name: str, limits: Limits | None = None, vectors: str = "floats") -> Any:
        if limits is not None:
            return self._decoder_class(type_name, limits=limits, vectors=vectors)
        if vectors == "floats":
            kept = self.decoders
        else:
            byte_vectors(vectors)  # a ValueError for a form that is not one of VECTOR_FORMS
            kept = self._byte_decoders
        dec = kept.get(type_name)
        if dec is None:
            dec = kept[type_name] = self._decoder_class(type_name, vectors=vectors)
        return dec

    def encoder(self, type_name: str) -> Any:
        enc = self._encoders.get(type_name)
        if enc is None:
            enc = self._encoders[type_name] = self._encoder_class(type_name)
        return enc
