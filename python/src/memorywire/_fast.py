"""The typed fast path: msgspec decoders generated from the field tables.

For each message type and encoding this module builds msgspec
``TypedDict`` types whose constraints are the rules of the field tables:
exact types, enum names, patterns and formats, lengths, counts, ranges,
required fields, the resource limits and the nesting depth (one type per
message type and depth, so that recursive messages end at the depth
limit). msgspec checks a document against them in C and gives it as plain
dicts and lists. The rules it cannot state are held by one walk of the
decoded tree in C (:class:`memorywire._speedups.FastPath`), led by tables
this module derives from the field tables: for each message, the members
the walk has a job for (a nested message, a ``Value`` or map field, the
member of a oneof, in MessagePack a timestamp, bytes or a float32 vector).
It visits only those: oneofs, the values of ``Value`` and map fields, and
the rules of :mod:`memorywire._rules` that span fields, each as a
conservative test (``_SPECIAL_TESTS``).

The fast path only ever *accepts*. Every type is at least as strict as the
rules, so a document msgspec accepts and the walk passes is valid; a
document it refuses, or that holds anything the types cannot judge, goes to
the walkers of :mod:`memorywire._compiled`, which find its exact error or
accept it. A ``TypedDict`` passes over unknown members and keeps the last
of repeated ones, so the same call scans the bytes and counts their
members (JSON: colons outside strings; MessagePack: map entries), and the
walk counts those of the decoded tree: a document that lost a member shows
as a difference. The scan also sends to the walkers the JSON token ``-0``
(read as -0.0 in a float field), a member name with an escape, a
MessagePack map key that is not a string, an extension other than a
timestamp, a timestamp that is not whole microseconds, and a timestamp
field that msgspec read from a string (the tree holds more datetimes than
the bytes timestamps). Documents of a newer minor version, a calendar date
beyond the 28th of February, or a limit other than the default's take the
walkers too. Where the scan shows that no string of a document holds a
control character (in JSON: no escape and no DEL byte, as the parser
refuses the others raw), a second set of types leaves out the pattern of
identifiers that says just that, which Python's ``re`` would otherwise run
on each.

In a JSON text that holds neither the byte 0x01 nor its escape (the
character of the placeholder), the scan also reads each array of 16
numbers or more that is the value of a member named as a float32 vector
field is (the Eisel-Lemire algorithm, with the table of
:func:`_decimal_powers`; on x86-64 the digits of a number without an
exponent all at once), and the typed decoder gets the text with a
placeholder in its place: most of the bytes of a record with an embedding
are its digits. The walk puts each vector back where a vector field holds
the placeholder; a document in which one lands anywhere else has fewer
taken than read, and goes to the walkers.

The document is the decoded tree itself: the values the walkers would
return (in JSON an integer in a float field stays an integer), members in
the order of the bytes. In MessagePack the walk also gives bytes their
base64 text, float32 vectors the form of lists the walkers give, and
timestamps their canonical spelling.

msgspec is a dependency of the package; memorywire._speedups is built from
C at install time where a compiler is present. With ``MEMORYWIRE_PURE=1``
in the environment, or where either cannot be imported, every document
takes the walkers' path, which gives the same results, only slower; the
conformance suite runs on that path too.
"""

from __future__ import annotations

import datetime
import math
import typing
from typing import Annotated, Any, Literal

from memorywire import _codec, _rules
from memorywire import _model as m
from memorywire._compiled import _BASE64, FLOAT32_OVERFLOW, INT64_MAX, INT64_MIN, PURE
from memorywire._formats import FORMATS
from memorywire.limits import Limits

try:
    import msgspec
except ImportError:  # the walkers serve every document
    msgspec = None  # type: ignore[assignment]

try:
    from memorywire import _speedups
except ImportError:  # not built (no C compiler): the walkers serve every document
    _speedups = None  # type: ignore[assignment]

#: Whether the typed fast path is in use; tests turn it off to run the fallback.
ENABLED = msgspec is not None and _speedups is not None and not PURE

#: The errors of a msgspec decoder that send a document to the walkers.
#: (msgspec refuses a document nested beyond the interpreter's recursion limit.)
ERRORS: tuple[type[Exception], ...] = (
    (msgspec.ValidationError, msgspec.DecodeError, RecursionError) if msgspec else ())

# An RFC 3339 UTC timestamp with a day every month has: days 29 to 31 of
# the months that have them, never the 29th of February (leap years go to
# the walkers), never year 0000.
_TIMESTAMP = (
    r"^(?!0000)[0-9]{4}-"
    r"(?:(?:0[1-9]|1[0-2])-(?:0[1-9]|1[0-9]|2[0-8])|(?:0[13-9]|1[0-2])-(?:29|30)|(?:0[13578]|1[02])-31)"
    r"T(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](?:\.[0-9]{1,9})?Z\Z"
)
_BASE64_FULL = rf"^(?:{_BASE64.pattern})\Z"
_FLOAT_MAX = 1.7976931348623157e308


def _no_control() -> str:
    """The pattern of identifiers, as the field tables give it for the id of
    a record: no control character. Where the scan of the bytes shows that
    no string holds one, the types leave it out, so it must say just that:
    checked here, so that a change of the tables cannot leave it stale."""
    f = m.message("memorywire.v1.MemoryRecord").fields["id"]
    assert f.pattern is not None
    probes = [*map(chr, range(0x81)), "\u2028", "\ud7ff", "\ufffd", "\U0010ffff"]
    says = all((f.pattern.match(c) is None) == (c < " " or c == "\x7f") for c in probes) \
        and f.pattern.match("") is None and f.pattern.match("a" * 300) is not None \
        and f.pattern.match("a\x00") is None and f.pattern.match("a\n") is None
    if not says:
        raise AssertionError(f"the identifier pattern {f.pattern.pattern!r} is not just \"no control character\"")
    return f.pattern.pattern


#: The pattern of identifiers: no control character. Where the scan of the
#: bytes shows that no string holds one, the types leave it out.
_NO_CONTROL = _no_control()

#: What the typed decoder reads in place of a float32 vector the scan of a
#: JSON text read ahead (its JSON form has an escape, so that no string of
#: a text the scan reads vectors from can be it).
_VECTOR_PLACEHOLDER = _speedups.VECTOR_PLACEHOLDER if _speedups is not None else "\x01"

#: The rules that span fields which have a conservative test in the walk of
#: memorywire._speedups.FastPath: the test and the members it reads. A type
#: that can hold a message with any other (but the limit on the records of a
#: batch, which the types state: ``_BATCH_MEMBERS``) goes to the walkers whole.
#:
#: - record: a live record (its lifecycle's status is not the deleted one)
#:   whose payload is the member its kind names;
#: - media: one of the members is set to something true;
#: - tool_result: not both an output and output parts;
#: - embedding: the dimensions within the limit and as many as the values;
#: - procedure: the states named by the other members are among the states.
_SPECIAL_TESTS: dict[str, tuple[str, tuple[str, ...]]] = {
    "MemoryRecord": ("record", ("lifecycle", "status", "deleted", "kind")),
    "MediaPart": ("media", ("uri", "data", "file_id")),
    "ToolResult": ("tool_result", ("output", "output_parts")),
    "Embedding": ("embedding", ("dimensions", "values")),
    "Procedure": ("procedure", ("states", "initial_state", "current_state")),
}



def _check_special_tests() -> None:
    """Each member a test reads is one of its message (and the deleted
    status one of the statuses), so that a change of the tables cannot
    leave a test reading nothing, and accepting what it should not."""
    for name, (test, reads) in _SPECIAL_TESTS.items():
        fields = m.message(name).fields
        if test == "record":
            lifecycle, status, deleted, kind = reads
            inner = fields[lifecycle].message if lifecycle in fields else None
            enum = inner.fields[status].enum if inner is not None and status in inner.fields else None
            known = enum is not None and deleted in enum.by_json and kind in fields
        else:
            known = all(member in fields for member in reads)
        if not known:
            raise AssertionError(f"the test of {name} reads {reads}, not all of which the tables know")


_check_special_tests()

#: The rules that span fields which the types state: of each message, the
#: member whose count the limit on the records of a batch bounds.
_BATCH_MEMBERS: dict[str, str] = {name: rule.batch_member for name, rule in _rules.SPECIAL.items()
                                  if hasattr(rule, "batch_member")}

# The jobs of the walk of a member (the F_ kinds of memorywire._speedups).
_F_NONE, _F_MESSAGE, _F_MESSAGES, _F_VALUE, _F_VALUES, _F_TIMESTAMP, _F_BYTES, _F_VECTOR, _F_JSON_VECTOR = range(9)


def _decimal_powers() -> bytes:
    """The powers of five with which memorywire._speedups reads a JSON
    number (the Eisel-Lemire algorithm): 5^q for q from -342 to 308, scaled
    by a power of two to 128 bits with the leading bit set; truncated, but
    for q < 0 one more than the truncated quotient (of 2^(z + 127) by 5^-q
    where 5^-q needs z bits; beyond 5^-27, of 2^(2z + 128), truncated to
    128 bits), as Lemire's paper states the table."""
    words = bytearray()
    for q in range(-342, 309):
        if q < 0:
            power5 = 5 ** -q
            z = (power5 - 1).bit_length()
            c = (1 << (z + 127 if q >= -27 else 2 * z + 128)) // power5 + 1
            c >>= max(0, c.bit_length() - 128)
        else:
            c = 5 ** q
            c = c << (128 - c.bit_length()) if c.bit_length() <= 128 else c >> (c.bit_length() - 128)
        words += (c >> 64).to_bytes(8, "little") + (c & (1 << 64) - 1).to_bytes(8, "little")
    return bytes(words)


if _speedups is not None:
    _speedups.decimal_powers(_decimal_powers())


class _Builder:
    """The TypedDict types of one encoding ("json" or "msgpack") under one
    set of limits."""

    def __init__(self, form: str, limits: Limits, *, clean: bool = False) -> None:
        assert msgspec is not None
        self.form = form
        self.clean = clean
        self.limits = limits
        self.max_depth = limits.max_depth
        self.max_items = limits.max_items
        self.max_chars = limits.max_string_bytes // 4
        self.classes: dict[tuple[str, int, bool], Any] = {}
        self.never = self._never()

    def _never(self) -> Any:
        """A type no value meets: what lies beyond the depth limit."""
        assert msgspec is not None

        def refuse(self: Any) -> None:
            raise ValueError("beyond the depth limit")

        return msgspec.defstruct("TooDeep", [], namespace={"__post_init__": refuse}, forbid_unknown_fields=True)

    def struct(self, info: m.MessageInfo, depth: int, top: bool = False) -> Any:
        if depth > self.max_depth:
            return self.never
        key = (info.name, depth, top)
        cls = self.classes.get(key)
        if cls is None:
            cls = self.classes[key] = self._make(info, depth, top)
        return cls

    def _make(self, info: m.MessageInfo, depth: int, top: bool) -> Any:
        fields: dict[str, Any] = {}
        required: set[str] = set()
        for f in info.ordered:
            if f.name == "specversion" and (top or info.name == "MemoryRecord"):
                # A document's own is this reader's version (other versions take
                # the walkers), where its type requires one; a record carries
                # one, a nested record none.
                if info.name != "MemoryRecord":
                    fields[f.name] = Literal["1.0"]
                    if f.required:
                        required.add(f.name)
                elif top:
                    fields[f.name] = Literal["1.0"]
                    required.add(f.name)
                else:
                    fields[f.name] = Literal[""]
                continue
            fields[f.name] = self._field_type(f, depth, batch=_BATCH_MEMBERS.get(info.name) == f.name)
            if f.required:
                required.add(f.name)
        name = f"{info.name}_{self.form}_{depth}{'_top' if top else ''}"
        cls: Any = typing.TypedDict(name, fields, total=False)  # type: ignore[misc]
        cls.__required_keys__ = frozenset(required)
        cls.__optional_keys__ = frozenset(fields.keys() - required)
        return cls

    def _field_type(self, f: m.FieldInfo, depth: int, *, batch: bool = False) -> Any:
        if f.is_map:
            kind: Any = str
            if f.key_pattern is not None:
                kind = Annotated[str, msgspec.Meta(pattern=f.key_pattern.pattern)]
            return Annotated[dict[kind, Any], self._count(f, depth + 1)]
        if f.repeated:
            if depth + 1 > self.max_depth:
                return self.never
            if f.kind == m.FLOAT32 and self.form == "msgpack":
                # Little-endian binary32 values in a bin, which the walk judges.
                return bytes
            if f.kind == m.VALUE:
                return Annotated[list[Any], self._count(f, depth + 1)]
            item = self._single(f, depth + 2, item=True)
            listed = Annotated[list[item], self._count(f, depth + 1, batch)]  # type: ignore[valid-type]
            if f.kind == m.FLOAT32:
                # Or where the scan read the vector ahead, its placeholder.
                return listed | Literal[_VECTOR_PLACEHOLDER]
            return listed
        return self._single(f, depth + 1, item=False)

    def _number(self, real: Any, lo: float, hi: float) -> Any:
        """A number of a float field. MessagePack has one form of it (the
        walkers turn an integer into a float too); in JSON an integer token
        stays an integer, as the walkers keep it (msgspec states bounds of
        64 bits; the walkers judge longer integers)."""
        assert msgspec is not None
        if self.form == "msgpack":
            return real
        least, most = max(math.ceil(lo), INT64_MIN), min(math.floor(hi), INT64_MAX)
        return Annotated[int, msgspec.Meta(ge=least, le=max(least - 1, most))] | real

    def _count(self, f: m.FieldInfo, depth: int, batch: bool = False) -> Any:
        assert msgspec is not None
        most = min(self.max_items, f.max_items) if f.max_items is not None else self.max_items
        if batch:
            most = min(most, self.limits.max_batch_records)
        return msgspec.Meta(min_length=1 if f.required else None, max_length=most)

    def _single(self, f: m.FieldInfo, depth: int, *, item: bool) -> Any:
        assert msgspec is not None
        Meta = msgspec.Meta
        k = f.kind
        if k == m.STRING:
            least = f.min_length
            if f.required and not item:
                least = max(least or 0, 1)
            most = self.max_chars if f.max_length is None else min(self.max_chars, f.max_length)
            pattern = None
            if f.format:
                pattern = rf"^(?:{FORMATS[f.format]})?\Z"
            elif f.pattern is not None and not (self.clean and f.pattern.pattern == _NO_CONTROL):
                pattern = rf"^\Z|{f.pattern.pattern}"
            return Annotated[str, Meta(min_length=least, max_length=most, pattern=pattern)]
        if k == m.MESSAGE:
            assert f.message is not None
            return self.struct(f.message, depth)
        if k == m.ENUM:
            assert f.enum is not None
            return Literal[tuple(f.enum.by_json)]
        if k == m.UINT:
            least = int(f.minimum) if f.minimum is not None and f.minimum > 0 else 0
            if f.required and not item:
                least = max(least, 1)
            return Annotated[int, Meta(ge=least, le=min(f.type_max, f.uint_max))]
        if k == m.BOOL:
            return bool
        if k == m.DOUBLE:
            lo = f.minimum if f.minimum is not None else -_FLOAT_MAX
            hi = f.maximum if f.maximum is not None else _FLOAT_MAX
            return self._number(Annotated[float, Meta(ge=lo, le=hi)], lo, hi)
        if k == m.FLOAT32:
            return self._number(Annotated[float, Meta(gt=-FLOAT32_OVERFLOW, lt=FLOAT32_OVERFLOW)],
                                -_FLOAT_MAX, _FLOAT_MAX)
        if k == m.TIMESTAMP:
            if self.form == "msgpack":
                # A timestamp extension in range (msgspec also reads a string
                # here: the count of datetimes sends that to the walkers); the
                # count gives it its canonical spelling.
                return datetime.datetime
            return Annotated[str, Meta(pattern=_TIMESTAMP)]
        if k == m.BYTES:
            least = 1 if f.required and not item else None
            if self.form == "msgpack":
                return Annotated[bytes, Meta(min_length=least, max_length=self.limits.max_document_bytes)]
            return Annotated[str, Meta(pattern=_BASE64_FULL, min_length=least, max_length=self.max_chars)]
        if k == m.VALUE:
            return Any
        raise AssertionError(f"no type for {f.name}")


#: Oneofs of which exactly one member is set (as in memorywire._compiled).
_EXACTLY_ONE = frozenset({("ContentPart", "part"), ("Filter", "expression")})


#: The greatest depth limit the fast path serves.
_MAX_DEPTH = 64


def _reachable(info: m.MessageInfo) -> set[str]:
    seen: set[str] = set()
    todo = [info]
    while todo:
        i = todo.pop()
        if i.name in seen:
            continue
        seen.add(i.name)
        todo.extend(f.message for f in i.ordered if f.message is not None)
    return seen


def _job(f: m.FieldInfo, form: str, limits: Limits, index: dict[str, int]) -> tuple[int, int, int, int]:
    """What the walk does with a member of a field: (kind, message, least,
    most); kind 0 where the types have judged it all."""
    msgpack = form == "msgpack"
    if f.is_map:
        return (_F_VALUE, 0, 0, 0)
    if f.message is not None:
        return (_F_MESSAGES if f.repeated else _F_MESSAGE, index[f.message.name], 0, 0)
    if f.kind == m.VALUE:
        # An element of a repeated Value is never null.
        return (_F_VALUES if f.repeated else _F_VALUE, 0, 0, 0)
    if msgpack and f.kind == m.TIMESTAMP:
        return (_F_TIMESTAMP, 0, 0, 0)
    if msgpack and f.kind == m.BYTES:
        return (_F_BYTES, 0, 0, 0)
    if f.is_vector:
        most = min(limits.max_items, f.max_items if f.max_items is not None else limits.max_items)
        return (_F_VECTOR if msgpack else _F_JSON_VECTOR, 0, 1 if f.required else 0, most)
    return (_F_NONE, 0, 0, 0)


def _fast_path(info: m.MessageInfo, form: str, limits: Limits, decode: Any, decode_clean: Any,
               vector: Any) -> Any:
    """The compiled fast path of a message type: its decoders and the tables
    of its walk, derived from the field tables, and the function that gives
    a float32 vector of its checked bytes (in MessagePack). A message's table
    maps the name of each member the walk has a job for, or that belongs to
    a oneof, to its field: (kind, message, least, most, oneof)."""
    names = sorted(_reachable(info))
    index = {name: k for k, name in enumerate(names)}
    fields: list[tuple[int, int, int, int, int]] = []
    messages: list[tuple[dict[str, int], tuple[bool, ...], str | None, tuple[str, ...]]] = []
    for name in names:
        i = m.message(name)
        oneof_of = {member: k for k, members in enumerate(i.oneofs.values()) for member in members}
        jobs: dict[str, int] = {}
        for f in i.ordered:
            job = _job(f, form, limits, index)
            oneof = oneof_of.get(f.name, -1)
            if job[0] != _F_NONE or oneof >= 0:
                jobs[f.name] = len(fields)
                fields.append((*job, oneof))
        exactly = tuple((i.name, oneof) in _EXACTLY_ONE for oneof in i.oneofs)
        special, reads = _SPECIAL_TESTS.get(i.name, (None, ()))
        messages.append((jobs, exactly, special, reads))
    assert _speedups is not None
    lim = (limits.max_document_bytes, limits.max_depth, limits.max_items, limits.max_string_bytes // 4,
           limits.max_dimensions)
    errors = ERRORS if form == "json" else (*ERRORS, ValueError, TypeError)
    # In JSON the scan reads the vectors of these members ahead of the decoder.
    vector_names = () if form == "msgpack" else tuple(sorted(
        {f.name for name in names for f in m.message(name).ordered if f.is_vector}))
    return _speedups.FastPath(form == "msgpack", decode, decode_clean, errors, fields, messages, index[info.name],
                              lim, (vector, _codec.base64_text, vector_names))


_decoders: dict[tuple[str, str, Limits, bool], Any] = {}


def decoder(form: str, type_name: str, limits: Limits, *, binary_vectors: bool = False) -> Any:
    """The fast path of a message type in an encoding (a callable that
    gives the document of bytes or None, when the walkers are to judge
    them), or None where the fast path does not serve the type.

    With ``binary_vectors``, the float32 vectors of the documents it gives
    are their checked bytes (``_codec.Float32Bytes``), for a writer that
    takes them as they are; else lists of their values."""
    key = (form, type_name, limits, binary_vectors)
    try:
        return _decoders[key]
    except KeyError:
        pass
    dec = None
    if ENABLED:
        info = m.message(type_name)
        # An Error is read with the tolerance of a newer minor version. The
        # types unroll recursive messages to the depth limit, and hold no
        # check of the number or length of member names of a message: under
        # limits that low or that generous, the walkers serve every document.
        reachable = [m.message(n) for n in _reachable(info)]
        members = max(len(i.fields) for i in reachable)
        longest = max(len(name.encode()) for i in reachable for name in i.fields)
        within = limits.max_depth <= _MAX_DEPTH and limits.max_items >= members \
            and limits.max_string_bytes >= 4 * longest
        judged = set(_SPECIAL_TESTS) | set(_BATCH_MEMBERS)
        if within and info.name != "Error" and _reachable(info) & set(_rules.SPECIAL) <= judged:
            assert msgspec is not None
            root = _Builder(form, limits).struct(info, 1, top=True)
            clean = _Builder(form, limits, clean=True).struct(info, 1, top=True)
            module = msgspec.json if form == "json" else msgspec.msgpack
            # The walk checks a vector's bytes before it hands them on; in
            # JSON it makes them of each vector, or gives lists.
            vector: Any
            if form == "json":
                vector = _codec.Float32Bytes if binary_vectors else None
            else:
                vector = _codec.Float32Bytes if binary_vectors else _codec.checked_vector
            dec = _fast_path(info, form, limits, module.Decoder(root).decode, module.Decoder(clean).decode,
                             vector)
    _decoders[key] = dec
    return dec


__all__ = ["ENABLED", "ERRORS", "decoder"]
