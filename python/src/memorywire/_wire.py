"""A Protobuf reader in Python that reports faults with JSON Pointers.

upb parses well-formed documents fast but says only that bytes are not a
message, and it refuses messages nested more than 100 deep, which a Value of
the allowed JSON depth can need. This reader runs when upb refuses bytes or
when they hold fields upb does not know: it decodes the JSON form field by
field from the tables of :mod:`memorywire._model`, so that every fault gets
its reason and the pointer of its member in the JSON form.

Its compiled twin (:func:`compiled_reader`, in memorywire._speedups) runs
first: it reads the bytes a writer of the messages writes straight into the
JSON form that upb's parse and ``_codec.from_proto`` would give, and leaves
any other bytes to them.
"""

from __future__ import annotations

import struct
import sys
from array import array
from collections.abc import Callable
from typing import Any

from memorywire import _compiled, _timestamp
from memorywire import _model as m
from memorywire._codec import Float32Bytes, Float32Values, base64_text, checked_vector, vector_finite

_LITTLE = sys.byteorder == "little"
_unpack_double = struct.Struct("<d").unpack_from
_VALUE = m.message("Value")
#: The greatest field number of the Protobuf encoding.
MAX_FIELD_NUMBER = 2**29 - 1


class Fault(Exception):
    """A fault at a JSON Pointer, with its reason token."""

    def __init__(self, reason: str, pointer: str, message: str) -> None:
        super().__init__(message)
        self.reason, self.pointer, self.message = reason, pointer, message


class Reader:
    """One pass over the bytes of a document."""

    def __init__(self, data: bytes, *, max_depth: int, tolerant: bool) -> None:
        self.data = data
        self.max_depth = max_depth
        #: Whether fields of unknown numbers are skipped (a newer minor).
        self.tolerant = tolerant
        self.unknown: list[str] = []

    # -- primitives ---------------------------------------------------------

    def varint(self, pos: int, end: int, ptr: str) -> tuple[int, int]:
        data = self.data
        result = shift = 0
        while True:
            if pos >= end:
                raise _cut(end == len(data), ptr, "the message ends inside a varint")
            b = data[pos]
            pos += 1
            result |= (b & 0x7F) << shift
            if not b & 0x80:
                return result, pos
            shift += 7
            if shift >= 70:
                raise Fault("INVALID_WIRE_FORMAT", ptr, "a varint is longer than 10 bytes")

    def span(self, pos: int, end: int, ptr: str) -> tuple[int, int]:
        """The bounds of a length-delimited field whose length starts at pos."""
        length, pos = self.varint(pos, end, ptr)
        if pos + length > end:
            raise _cut(end == len(self.data), ptr, f"a field of {length} bytes runs past the end")
        return pos, pos + length

    def skip(self, wire: int, pos: int, end: int, ptr: str) -> int:
        if wire == 0:
            return self.varint(pos, end, ptr)[1]
        if wire == 1 or wire == 5:
            size = 8 if wire == 1 else 4
            if pos + size > end:
                raise _cut(end == len(self.data), ptr,
                            "the message ends inside a fixed-size field")
            return pos + size
        if wire == 2:
            return self.span(pos, end, ptr)[1]
        raise Fault("INVALID_WIRE_FORMAT", ptr, f"wire type {wire} is not allowed")

    def other(self, number: int, wire: int, pos: int, end: int, ptr: str, message: str) -> int:
        """A field a helper message (Timestamp, MapEntry, Value ...) does not
        define: a fault, or in a newer minor version skipped."""
        if not 0 < number <= MAX_FIELD_NUMBER or wire in (3, 4, 6, 7):
            raise Fault("INVALID_WIRE_FORMAT", ptr, f"tag {number << 3 | wire} is not valid")
        if not self.tolerant:
            raise Fault("UNKNOWN_FIELD", f"{ptr}/{number}", f"{message} has no field number {number}")
        return self.skip(wire, pos, end, ptr)

    # -- messages -----------------------------------------------------------

    def message(self, pos: int, end: int, info: m.MessageInfo, ptr: str, depth: int,
                into: dict[str, Any] | None = None) -> dict[str, Any]:
        if depth > self.max_depth:
            raise Fault("NESTING_TOO_DEEP", ptr, f"nesting deeper than {self.max_depth}")
        out: dict[str, Any] = {} if into is None else into
        by_number = _by_number(info)
        while pos < end:
            key, pos = self.varint(pos, end, ptr)
            number, wire = key >> 3, key & 7
            if not 0 < number <= MAX_FIELD_NUMBER or wire in (3, 4, 6, 7):
                raise Fault("INVALID_WIRE_FORMAT", ptr, f"tag {key} is not valid")
            f = by_number.get(number)
            if f is None:
                here = f"{ptr}/{number}"
                if not self.tolerant:
                    raise Fault("UNKNOWN_FIELD", here, f"{info.name} has no field number {number}")
                self.unknown.append(here)
                pos = self.skip(wire, pos, end, here)
                continue
            pos = self.field(info, f, wire, pos, end, out, ptr, depth)
        return out

    def field(self, info: m.MessageInfo, f: m.FieldInfo, wire: int, pos: int, end: int,
              out: dict[str, Any], ptr: str, depth: int) -> int:
        here = f"{ptr}/{f.name}"
        k = f.kind
        if f.oneof is not None:
            for other in info.oneofs[f.oneof]:
                if other != f.name:
                    out.pop(other, None)
        if f.is_map:
            self.expect(wire, 2, here)
            start, stop = self.span(pos, end, here)
            entries = out.setdefault(f.name, {})
            self.map_entry(start, stop, entries, here, depth + 1)
            return stop
        if f.repeated and k in (m.UINT, m.ENUM, m.BOOL, m.FLOAT32, m.DOUBLE) and wire == 2:
            start, stop = self.span(pos, end, here)
            values = out.setdefault(f.name, [])
            if k == m.FLOAT32:
                if (stop - start) % 4:
                    raise Fault("INVALID_WIRE_FORMAT", here,
                                f"packed float32 values of {stop - start} bytes are not a multiple of 4")
                raw = self.data[start:stop]
                if not vector_finite(raw if _LITTLE else bytes(raw)):
                    a = array("f", raw)
                    bad = next(i for i, x in enumerate(a) if x - x != 0)
                    raise Fault("NON_FINITE_NUMBER", f"{here}/{len(values) + bad}",
                                "NaN and infinities are not allowed")
                a = array("f")
                a.frombytes(raw)
                if not _LITTLE:
                    a.byteswap()
                if values:
                    values.extend(a.tolist())
                else:
                    vec = Float32Values(a.tolist())
                    vec.raw = raw if _LITTLE else a.tobytes()
                    out[f.name] = vec
                return stop
            p = start
            while p < stop:
                value, p = self.varint(p, stop, here)
                values.append(self.scalar(f, value, f"{here}/{len(values)}"))
            return stop
        if k in (m.MESSAGE, m.TIMESTAMP, m.VALUE, m.STRING, m.BYTES):
            self.expect(wire, 2, here)
            start, stop = self.span(pos, end, here)
            if f.repeated:
                target = out.setdefault(f.name, [])
                item = f"{here}/{len(target)}"
                target.append(self.length_delimited(f, start, stop, item, depth + 2, None))
            else:
                out[f.name] = self.length_delimited(f, start, stop, here, depth + 1, out.get(f.name))
                if not f.presence and out[f.name] in ("", b""):
                    del out[f.name]
            return stop
        if k == m.DOUBLE:
            self.expect(wire, 1, here)
            if pos + 8 > end:
                raise _cut(end == len(self.data), here,
                            "the message ends inside a double")
            value = _unpack_double(self.data, pos)[0]
            if value - value != 0:
                raise Fault("NON_FINITE_NUMBER", here, "NaN and infinities are not allowed")
            if f.presence or value or struct.pack("<d", value) != bytes(8):
                out[f.name] = value
            else:
                out.pop(f.name, None)
            return pos + 8
        if k == m.FLOAT32:
            self.expect(wire, 5, here)
            if pos + 4 > end:
                raise _cut(end == len(self.data), here,
                            "the message ends inside a float")
            value = struct.unpack_from("<f", self.data, pos)[0]
            if value - value != 0:
                raise Fault("NON_FINITE_NUMBER", f"{here}/{len(out.get(f.name, []))}",
                            "NaN and infinities are not allowed")
            out.setdefault(f.name, []).append(value)
            return pos + 4
        self.expect(wire, 0, here)
        number, pos = self.varint(pos, end, here)
        if f.repeated:
            values = out.setdefault(f.name, [])
            values.append(self.scalar(f, number, f"{here}/{len(values)}"))
        else:
            value = self.scalar(f, number, here)
            if f.presence or value:
                out[f.name] = value
            else:
                out.pop(f.name, None)
        return pos

    def expect(self, wire: int, want: int, ptr: str) -> None:
        if wire != want:
            raise Fault("INVALID_WIRE_FORMAT", ptr, f"wire type {wire} does not fit this field")

    def scalar(self, f: m.FieldInfo, raw: int, ptr: str) -> Any:
        k = f.kind
        if k == m.BOOL:
            return raw != 0
        if k == m.ENUM:
            assert f.enum is not None
            number = raw & 0xFFFFFFFF
            if number >= 1 << 31:
                number -= 1 << 32
            if number == 0 and not f.repeated:
                return None
            name = f.enum.by_number.get(number)
            if name is None:
                if self.tolerant:
                    self.unknown.append(ptr)
                    return number
                raise Fault("UNKNOWN_ENUM_VALUE", ptr, f"{number} is not a value of {f.enum.name}")
            return name
        if f.uint_max < 2**32:
            return raw & 0xFFFFFFFF
        return raw & 0xFFFFFFFFFFFFFFFF

    def length_delimited(self, f: m.FieldInfo, start: int, stop: int, ptr: str, depth: int,
                         into: Any) -> Any:
        k = f.kind
        if k == m.STRING:
            try:
                return bytes(self.data[start:stop]).decode("utf-8")
            except UnicodeDecodeError:
                raise Fault("INVALID_UTF8", ptr, "a string is not valid UTF-8") from None
        if k == m.BYTES:
            return base64_text(self.data[start:stop])
        if k == m.TIMESTAMP:
            return self.timestamp(start, stop, ptr)
        if k == m.VALUE:
            return self.value(start, stop, ptr, depth)
        assert f.message is not None
        return self.message(start, stop, f.message, ptr, depth, into if type(into) is dict else None)

    def timestamp(self, pos: int, end: int, ptr: str) -> str:
        seconds = nanos = 0
        while pos < end:
            key, pos = self.varint(pos, end, ptr)
            number, wire = key >> 3, key & 7
            if number in (1, 2) and wire == 0:
                raw, pos = self.varint(pos, end, ptr)
                if number == 1:
                    seconds = raw - (1 << 64) if raw >= 1 << 63 else raw
                else:
                    nanos = (raw & 0xFFFFFFFF) - (1 << 32) if raw & 0x80000000 else raw & 0xFFFFFFFF
            else:
                pos = self.other(number, wire, pos, end, ptr, "Timestamp")
        if not _timestamp.in_range(seconds, nanos):
            raise Fault("INVALID_TIMESTAMP", ptr,
                        "timestamp outside 0001-01-01T00:00:00Z..9999-12-31T23:59:59.999999999Z")
        return _timestamp.format(seconds, nanos)

    def map_entry(self, pos: int, end: int, entries: dict[str, Any], ptr: str, depth: int) -> None:
        key = ""
        value: Any = _ABSENT
        while pos < end:
            tag, pos = self.varint(pos, end, ptr)
            number, wire = tag >> 3, tag & 7
            if number == 1:
                self.expect(wire, 2, ptr)
                start, stop = self.span(pos, end, ptr)
                try:
                    key = bytes(self.data[start:stop]).decode("utf-8")
                except UnicodeDecodeError:
                    raise Fault("INVALID_UTF8", ptr, "a map key is not valid UTF-8") from None
                pos = stop
            elif number == 2:
                self.expect(wire, 2, ptr)
                start, stop = self.span(pos, end, ptr)
                value = (start, stop)
                pos = stop
            else:
                pos = self.other(number, wire, pos, end, ptr, "MapEntry")
        here = f"{ptr}/{_escape(key)}"
        if key in entries:
            raise Fault("DUPLICATE_KEY", here, f"the key {key!r} appears twice")
        if value is _ABSENT:
            raise Fault("VALUE_KIND_MISSING", here, "a map entry has no value")
        entries[key] = self.value(value[0], value[1], here, depth + 1)

    def value(self, pos: int, end: int, ptr: str, depth: int) -> Any:
        result: Any = _ABSENT
        while pos < end:
            tag, pos = self.varint(pos, end, ptr)
            number, wire = tag >> 3, tag & 7
            if number in (1, 2, 3):
                self.expect(wire, 0, ptr)
                raw, pos = self.varint(pos, end, ptr)
                if number == 1:
                    if raw != 0:
                        raise Fault("UNKNOWN_ENUM_VALUE", ptr, f"{raw} is not a value of NullValue")
                    result = None
                elif number == 2:
                    result = raw != 0
                else:
                    result = (raw >> 1) ^ -(raw & 1)
            elif number == 4:
                self.expect(wire, 1, ptr)
                if pos + 8 > end:
                    raise _cut(end == len(self.data), ptr,
                                "the message ends inside a double")
                result = _unpack_double(self.data, pos)[0]
                if result - result != 0:
                    raise Fault("NON_FINITE_NUMBER", ptr, "NaN and infinities are not allowed")
                pos += 8
            elif number in (5, 6, 7):
                self.expect(wire, 2, ptr)
                start, stop = self.span(pos, end, ptr)
                if number == 5:
                    try:
                        result = bytes(self.data[start:stop]).decode("utf-8")
                    except UnicodeDecodeError:
                        raise Fault("INVALID_UTF8", ptr, "a string is not valid UTF-8") from None
                elif number == 6:
                    result = self.value_list(start, stop, ptr, depth)
                else:
                    result = {}
                    self.value_map(start, stop, result, ptr, depth)
                pos = stop
            else:
                pos = self.other(number, wire, pos, end, ptr, "Value")
        if result is _ABSENT:
            raise Fault("VALUE_KIND_MISSING", ptr, "a Value has none of its kinds set")
        return result

    def value_list(self, pos: int, end: int, ptr: str, depth: int) -> list[Any]:
        if depth > self.max_depth:
            raise Fault("NESTING_TOO_DEEP", ptr, f"nesting deeper than {self.max_depth}")
        out: list[Any] = []
        while pos < end:
            tag, pos = self.varint(pos, end, ptr)
            number, wire = tag >> 3, tag & 7
            if number == 1:
                self.expect(wire, 2, ptr)
                start, stop = self.span(pos, end, ptr)
                out.append(self.value(start, stop, f"{ptr}/{len(out)}", depth + 1))
                pos = stop
            else:
                pos = self.other(number, wire, pos, end, ptr, "ValueList")
        return out

    def value_map(self, pos: int, end: int, out: dict[str, Any], ptr: str, depth: int) -> None:
        if depth > self.max_depth:
            raise Fault("NESTING_TOO_DEEP", ptr, f"nesting deeper than {self.max_depth}")
        while pos < end:
            tag, pos = self.varint(pos, end, ptr)
            number, wire = tag >> 3, tag & 7
            if number == 1:
                self.expect(wire, 2, ptr)
                start, stop = self.span(pos, end, ptr)
                self.map_entry(start, stop, out, ptr, depth)
                pos = stop
            else:
                pos = self.other(number, wire, pos, end, ptr, "ValueMap")


_ABSENT = object()


def _cut(at_end_of_input: bool, ptr: str, message: str) -> Fault:
    """Bytes that stop short: of the input (TRUNCATED, which belongs to the
    document and has no pointer), or of their enclosing message."""
    if at_end_of_input:
        return Fault("TRUNCATED", "", message)
    return Fault("INVALID_WIRE_FORMAT", ptr, message)


def _escape(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


_numbers: dict[str, dict[int, m.FieldInfo]] = {}


def _by_number(info: m.MessageInfo) -> dict[int, m.FieldInfo]:
    table = _numbers.get(info.full_name)
    if table is None:
        table = _numbers[info.full_name] = {f.number: f for f in info.ordered}
    return table


def read(data: bytes, info: m.MessageInfo, *, max_depth: int,
         tolerant: bool) -> tuple[dict[str, Any], list[str]]:
    """Decode a document to its JSON form; return it and the pointers of
    content of a newer minor version. Raises Fault."""
    reader = Reader(data, max_depth=max_depth, tolerant=tolerant)
    try:
        doc = reader.message(0, len(data), info, "", 1)
    except RecursionError:
        raise Fault("NESTING_TOO_DEEP", "", "the document nests too deeply") from None
    return doc, reader.unknown



def packed_field(data: bytes, number: int) -> bytes | None:
    """The bytes of the length-delimited field ``number`` at the top level
    of a message's bytes (a packed repeated field as upb writes it: once),
    or None when there is none or the bytes are not readable."""
    reader = Reader(data, max_depth=1, tolerant=True)
    pos, end = 0, len(data)
    try:
        while pos < end:
            key, pos = reader.varint(pos, end, "")
            if key == number << 3 | 2:
                start, stop = reader.span(pos, end, "")
                return data[start:stop]
            pos = reader.skip(key & 7, pos, end, "")
    except Fault:
        pass
    return None


def specversion(data: bytes) -> str | None:
    """The specversion a document's bytes declare (field 1 at the top
    level), or None when there is none or the bytes are not readable."""
    reader = Reader(data, max_depth=1, tolerant=True)
    pos, end = 0, len(data)
    found = None
    try:
        while pos < end:
            key, pos = reader.varint(pos, end, "")
            number, wire = key >> 3, key & 7
            if number == 1 and wire == 2:
                start, stop = reader.span(pos, end, "")
                found = bytes(data[start:stop]).decode("utf-8")
                pos = stop
            else:
                pos = reader.skip(wire, pos, end, "")
    except (Fault, UnicodeDecodeError):
        return found
    return found


# -- the compiled reader ---------------------------------------------------------


def _timestamp_text(seconds: int, nanos: int) -> str | None:
    return _timestamp.format(seconds, nanos) if _timestamp.in_range(seconds, nanos) else None


def _reached(info: m.MessageInfo) -> list[m.MessageInfo]:
    """The messages a message type reaches through its MESSAGE fields, itself first."""
    found = {info.full_name: info}
    todo = [info]
    while todo:
        for f in todo.pop().ordered:
            sub = f.message
            if f.kind == m.MESSAGE and sub is not None and sub.full_name not in found:
                found[sub.full_name] = sub
                todo.append(sub)
    return list(found.values())


def compiled_reader(info: m.MessageInfo) -> Callable[[bytes, bool, int], dict[str, Any] | None] | None:
    """``read(data, binary, max_depth)``: the JSON form of a message's bytes
    as ``_codec.from_proto`` gives it of the message upb parses from them,
    with ``binary`` as there (each float32 vector a ``Float32Bytes``), or
    None for that path to decide: wherever the bytes hold anything but the
    one way a writer of the messages writes them (``_speedups.pb_read``
    names what). None where the extension is not built. Made once a type."""
    if _compiled.pb_reader_tables is None or _compiled.pb_read is None:
        return None
    made = _readers.get(info.full_name)
    if made is None:
        made = _readers[info.full_name] = _compiled_reader(info)
    return made


_readers: dict[str, Callable[[bytes, bool, int], dict[str, Any] | None]] = {}


def _compiled_reader(info: m.MessageInfo) -> Callable[[bytes, bool, int], dict[str, Any] | None]:
    assert _compiled.pb_reader_tables is not None and _compiled.pb_read is not None
    read = _compiled.pb_read
    messages = _reached(info)
    index = {x.full_name: i for i, x in enumerate(messages)}

    def field(x: m.MessageInfo, f: m.FieldInfo) -> tuple[Any, ...]:
        oneofs = list(x.oneofs)
        enum = tuple(sorted(f.enum.by_number.items())) if f.enum is not None else ()
        sub = index[f.message.full_name] if f.kind == m.MESSAGE and f.message is not None else -1
        return (f.number, f.name, f.kind, f.repeated or f.is_map, f.is_map, f.presence,
                oneofs.index(f.oneof) if f.oneof is not None else -1, sub, f.type_max >= 2**32, enum)

    tables = _compiled.pb_reader_tables(tuple(tuple(field(x, f) for f in x.ordered) for x in messages))

    def read_message(data: bytes, binary: bool, max_depth: int) -> dict[str, Any] | None:
        return read(tables, data, 0, max_depth, Float32Bytes if binary else checked_vector,
                    _timestamp_text, base64_text)

    return read_message
