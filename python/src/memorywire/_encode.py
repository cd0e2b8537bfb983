"""Writers of validated documents that leave the byte work to compiled code.

The writers of :mod:`memorywire._compiled` build the canonical bytes in
Python. This module writes the same bytes with less Python on the way,
with functions generated per message type ``M`` from the field tables:

* ``up_M(d)``: the keyword arguments of the upb message of type ``M`` (the
  C Protobuf runtime takes nested dicts and lists), from which upb writes
  the canonical Protobuf bytes in C: fields in field-number order, floats
  packed, defaults omitted, map entries in the order given (sorted here);
  ``fix_M(msg, d)`` then merges the packed bytes of float32 vectors.
* ``native_tables``: the field tables of the Protobuf writer in C,
  :func:`memorywire._speedups.pb_write`, which writes the bytes of the
  walker straight from the document and declines (returns None) anything
  it does not expect; upb then writes the document as above.
* ``js_M(d)`` and ``mp_M(d)``: the canonical JSON and MessagePack forms of
  a message whose members all differ from their defaults: the document
  itself, or a copy with only the members whose spelling changes; orjson
  and msgspec write them with sorted keys. Any other message takes the
  walker of :mod:`memorywire._compiled`. Where memorywire._speedups is
  built, ``canonical`` there does the same in C, from tables derived here
  from the same field tables (``_c_tables``), and calls the generated
  functions for what it does not take itself; ``canonical_msgpack`` there
  writes the MessagePack bytes of that form itself, as msgspec would, and
  hands what it is not certain of to the generated function and msgspec.

Every writer here gives the bytes of its counterpart in
:mod:`memorywire._compiled`, or raises, and the codecs then take the
counterpart. ``tests/test_encode.py`` compares the two over the vectors
and generated documents, ``tests/test_pb_write.py`` the writer in C. With
``MEMORYWIRE_PURE=1`` in the environment (or where msgspec cannot be
imported, for MessagePack; or memorywire._speedups is not built, for the
writer in C) only the counterparts run.
"""

from __future__ import annotations

import base64
import functools
import sys
from datetime import datetime, timedelta, timezone
from operator import is_
from typing import Any

import msgpack as _msgpack
from google.protobuf.descriptor import FieldDescriptor as _FD
from google.protobuf.message import EncodeError

from memorywire import _compiled, _timestamp
from memorywire import _model as m
from memorywire._codec import Float32Bytes, Float32Values

try:
    import msgspec
except ImportError:  # the writers of memorywire._compiled serve every document
    msgspec = None  # type: ignore[assignment]

try:
    from memorywire import _speedups
except ImportError:  # not built: upb writes every document
    _speedups = None  # type: ignore[assignment]

#: Whether the writers of this module are in use (not with MEMORYWIRE_PURE=1).
ENABLED = not _compiled.PURE

def value_up(v: Any) -> dict[str, Any]:
    """The upb form of a memorywire.v1.Value."""
    t = type(v)
    if t is str:
        return {"string_value": v}
    if t is int:
        return {"integer_value": v}
    if t is float:
        return {"float_value": v}
    if t is bool:
        return {"bool_value": v}
    if v is None:
        return {"null_value": 0}
    if t is list:
        return {"list_value": {"values": [value_up(x) for x in v]}}
    return {"map_value": {"entries": entries_up(v)}}


def entries_up(v: dict[str, Any]) -> list[dict[str, Any]]:
    """A map from strings to Values as repeated MapEntry, sorted by key."""
    return [{"key": k, "value": value_up(v[k])} for k in sorted(v)]


#: Whether datetime.fromisoformat reads an RFC 3339 timestamp in UTC (its
#: "Z"); it reads at most six digits of a fraction exactly, and truncates more.
_ISO_UTC = sys.version_info >= (3, 11)
_fromisoformat = datetime.fromisoformat
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_SECOND = timedelta(seconds=1)
#: The longest timestamp datetime holds exactly: six digits of a fraction.
_MICROSECOND_TEXT = len("0000-00-00T00:00:00.000000Z")


def timestamp_datetime(text: str) -> datetime | None:
    """The datetime in UTC of a valid timestamp, read by one call in C, where
    it holds the timestamp exactly (whole microseconds, not the year 0000,
    which datetime refuses); else None."""
    if _ISO_UTC and len(text) <= _MICROSECOND_TEXT:
        try:
            return _fromisoformat(text)
        except ValueError:
            pass
    return None


def timestamp_up(text: str) -> dict[str, int]:
    """The upb form of a google.protobuf.Timestamp of a valid timestamp."""
    d = timestamp_datetime(text)
    if d is not None:
        return {"seconds": (d - _EPOCH) // _SECOND, "nanos": d.microsecond * 1000}
    seconds, nanos = _timestamp.parse(text)
    return {"seconds": seconds, "nanos": nanos}


class _Source:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.consts: dict[str, Any] = {}
        self.tail: list[str] = []

    def const(self, value: Any, prefix: str) -> str:
        for name, existing in self.consts.items():
            if existing is value or (type(existing) is frozenset and existing == value):
                return name
        name = f"{prefix}{len(self.consts)}"
        self.consts[name] = value
        return name

    def add(self, indent: int, text: str) -> None:
        self.lines.append("    " * indent + text)


def _needs(info: m.MessageInfo, memo: dict[str, bool]) -> bool:
    """Whether the JSON form of a message differs from its upb form: it has
    enums, timestamps, bytes, Values, maps or float32 vectors, or a message
    that has."""
    if info.name not in memo:
        memo[info.name] = False  # a recursive message needs what its other fields need
        memo[info.name] = any(f.kind == m.FLOAT32 or _field_needs(f, memo) for f in info.ordered)
    return memo[info.name]


def _field_needs(f: m.FieldInfo, memo: dict[str, bool]) -> bool:
    if f.is_map or f.kind in (m.ENUM, m.TIMESTAMP, m.BYTES, m.VALUE):
        return True
    return f.kind == m.MESSAGE and f.message is not None and _needs(f.message, memo)


def _gen_up(src: _Source, info: m.MessageInfo, memo: dict[str, bool]) -> None:
    """up_M: a copy of the document with the members whose upb form differs
    converted (members the type does not know stay, and upb refuses them)."""
    convert = {f.name: _up_fn(src, f, memo) for f in info.ordered if _field_needs(f, memo)}
    vectors = [f for f in info.ordered if f.kind == m.FLOAT32]
    src.add(0, f"def up_{info.name}(d):")
    if not convert and not vectors:
        src.add(1, "return d")
        src.add(0, "")
        return
    src.add(1, "o = dict(d)")
    if convert:
        names, fns = src.const(frozenset(convert), "_names"), f"_fns_{info.name}"
        # The table of functions follows every definition (a message may hold itself).
        src.tail.append(f"{fns} = {{" + ", ".join(f"{k!r}: {v}" for k, v in convert.items()) + "}")
        src.add(1, f"for k in {names}.intersection(d):")
        src.add(2, f"o[k] = {fns}[k](o[k])")
    for f in vectors:
        # Its packed bytes go in later (fix_M), not its values one by one.
        src.add(1, f"o.pop({f.name!r}, None)")
    src.add(1, "return o")
    src.add(0, "")


def _holds_vectors(info: m.MessageInfo, memo: dict[str, bool]) -> bool:
    """Whether a message has a float32 vector, or a message that has."""
    if info.name not in memo:
        memo[info.name] = False
        memo[info.name] = any(
            f.kind == m.FLOAT32 or (f.kind == m.MESSAGE and f.message is not None and _holds_vectors(f.message, memo))
            for f in info.ordered if not f.is_map)
    return memo[info.name]


def _gen_fix(src: _Source, info: m.MessageInfo, memo: dict[str, bool]) -> None:
    """fix_M(msg, d): merge the packed bytes of the float32 vectors of d into
    the message upb built from up_M(d), whose values a vector read from
    binary32 keeps (upb would take them one float at a time)."""
    if not _holds_vectors(info, memo):
        return
    src.add(0, f"def fix_{info.name}(msg, d):")
    for f in info.ordered:
        if f.is_map:
            continue
        if f.kind == m.FLOAT32:
            src.add(1, f"v = d.get({f.name!r})")
            src.add(1, "if v:")
            src.add(2, f"msg.MergeFromString(pb_vector({src.const(_compiled.varint(f.number << 3 | 2), '_tag')}, v))")
        elif f.kind == m.MESSAGE and f.message is not None and _holds_vectors(f.message, memo):
            src.add(1, f"v = d.get({f.name!r})")
            src.add(1, "if v is not None:")
            if f.repeated:
                src.add(2, f"for a, b in zip(msg.{f.name}, v):")
                src.add(3, f"fix_{f.message.name}(a, b)")
            else:
                src.add(2, f"fix_{f.message.name}(msg.{f.name}, v)")
    src.add(0, "")


def _up_fn(src: _Source, f: m.FieldInfo, memo: dict[str, bool]) -> str:
    """Source of a function from a member's value to its upb form."""
    k = f.kind
    if f.is_map:
        return "entries_up"
    if k == m.MESSAGE:
        assert f.message is not None
        one = f"up_{f.message.name}"
    elif k == m.ENUM:
        assert f.enum is not None
        one = f"{src.const(f.enum.by_json, '_ev')}.__getitem__"
    else:
        one = {m.TIMESTAMP: "timestamp_up", m.BYTES: "b64decode", m.VALUE: "value_up"}[k]
    if f.repeated:
        return f"lambda v: [{one}(x) for x in v]"
    return one


def _out_needs(f: m.FieldInfo, job: str) -> bool:
    """Whether a present member of this field changes in the canonical form
    of a job ("js" or "mp") beyond the order of keys."""
    if f.is_map or f.kind == m.VALUE:
        return False  # the writer sorts their keys
    if f.kind == m.MESSAGE:
        return True
    if job == "js":
        return f.kind in (m.TIMESTAMP, m.FLOAT32, m.DOUBLE)
    return f.kind in (m.TIMESTAMP, m.BYTES, m.FLOAT32, m.DOUBLE)


def _leaf(f: m.FieldInfo, job: str) -> bool:
    """Whether a field holds one message none of whose members changes but
    for defaults: its parent tests it in place, without a call."""
    return (f.kind == m.MESSAGE and not f.repeated and f.message is not None
            and not any(_out_needs(g, job) for g in f.message.ordered))


def _gen_out(src: _Source, info: m.MessageInfo, job: str) -> None:
    """js_M and mp_M: the canonical form of a message whose members all have
    a value other than their default (no empty string, zero, false, empty
    array or object, null): the document itself where no member changes, or
    a copy with the members whose spelling changes converted. Any other
    message takes the walker of memorywire._compiled, which drops defaults.
    Keys stay in the document's order: the writers sort them."""
    fields = [f for f in info.ordered if _out_needs(f, job)]
    leaves = {f.name: f"{job}_walk_{f.message.name}" for f in fields if _leaf(f, job) and f.message}
    convert = {f.name: _out_fn(src, f, job) for f in fields if f.name not in leaves}
    src.add(0, f"def {job}_{info.name}(d):")
    src.add(1, "if not all(d.values()):")
    src.add(2, f"return {job}_walk_{info.name}(d)")
    src.add(1, "o = d")
    for group, test in ((leaves, "all(v.values())"), (convert, None)):
        if len(group) > 4:
            # One set operation in C finds the few members present.
            names, fns = src.const(frozenset(group), "_names"), f"_{job}_{info.name}_{len(src.tail)}"
            src.tail.append(f"{fns} = {{" + ", ".join(f"{k!r}: {v}" for k, v in group.items()) + "}")
            src.add(1, f"for k in {names}.intersection(d):")
            src.add(2, "v = d[k]")
            _gen_change(src, 2, f"{fns}[k](v)", "k", test)
        else:
            for key, fn in group.items():
                src.add(1, f"v = d.get({key!r})")
                src.add(1, "if v is not None:")
                # A function of v written out in place, not made on every call.
                call = fn.removeprefix("lambda v: ") if fn.startswith("lambda v: ") else f"{fn}(v)"
                _gen_change(src, 2, call, repr(key), test)
    src.add(1, "return o")
    src.add(0, "")


def _gen_change(src: _Source, ind: int, call: str, key: str, test: str | None) -> None:
    """Put call (a function of v) for the member key in the copy o where it
    is not v; with a test, only where the test of v fails (a leaf with a
    default member)."""
    if test is not None:
        src.add(ind, f"if not {test}:")
        ind += 1
        src.add(ind, "if o is d:")
        src.add(ind + 1, "o = dict(d)")
        src.add(ind, f"o[{key}] = {call}")
        return
    src.add(ind, f"x = {call}")
    src.add(ind, "if x is not v:")
    src.add(ind + 1, "if o is d:")
    src.add(ind + 2, "o = dict(d)")
    src.add(ind + 1, f"o[{key}] = x")


def _out_one(f: m.FieldInfo, job: str) -> str:
    """The name of the function from one value of a member (the whole of a
    float32 vector) to its canonical form, which returns the value itself
    where it does not change."""
    k = f.kind
    if k == m.FLOAT32:
        return "vec_mp" if job == "mp" else "vec_js"
    if k == m.MESSAGE:
        assert f.message is not None
        return f"{job}_{f.message.name}"
    if k == m.TIMESTAMP:
        return "ts_mp" if job == "mp" else "ts_canonical"
    if k == m.DOUBLE:
        return "float"
    return "b64decode"


def _out_fn(src: _Source, f: m.FieldInfo, job: str) -> str:
    """Source of a function from a member's value to its canonical form,
    which returns the value itself where it does not change."""
    one = _out_one(f, job)
    if f.repeated and f.kind != m.FLOAT32:
        return f"lambda v: each({one}, v)"
    return one


def each(fn: Any, v: list[Any]) -> list[Any]:
    """fn of every element; v itself where no element changes."""
    out = list(map(fn, v))
    return v if all(map(is_, out, v)) else out


def ts_mp(text: str) -> Any:
    """A timestamp as msgspec writes the MessagePack timestamp extension: a
    datetime in UTC where it holds the timestamp exactly (msgspec writes it
    in C, in the shortest of the three forms as msgpack does), else the
    extension's bytes."""
    d = timestamp_datetime(text)
    if d is not None:
        return d
    assert msgspec is not None
    return msgspec.msgpack.Ext(-1, _msgpack.Timestamp(*_timestamp.parse(text)).to_bytes())


def vec_js(v: Any) -> list[float]:
    """A float32 vector as its values rounded to binary32."""
    if type(v) is Float32Values:
        return v  # read from binary32 bytes
    return list(_compiled.float32_values(v))


def _build() -> dict[str, Any]:
    src = _Source()
    memo: dict[str, bool] = {}
    vector_memo: dict[str, bool] = {}
    namespace: dict[str, Any] = {
        "entries_up": entries_up, "value_up": value_up,
        "timestamp_up": timestamp_up, "b64decode": base64.b64decode,
        "ts_mp": ts_mp, "pb_vector": _compiled.pb_vector, "vec_mp": _compiled.vec_mp, "vec_js": vec_js,
        "each": each, "ts_canonical": _timestamp.canonical, "float": float,
    }
    for info in m.reachable_infos():
        _gen_up(src, info, memo)
        _gen_fix(src, info, vector_memo)
        _gen_out(src, info, "js")
        _gen_out(src, info, "mp")
        for job in ("js", "mp"):
            namespace[f"{job}_walk_{info.name}"] = _compiled.function(job, info.full_name)
    namespace.update(src.consts)
    source = "\n".join(src.lines + src.tail)
    exec(compile(source, "<memorywire._encode>", "exec"), namespace)  # noqa: S102 - from the field tables
    namespace["__source__"] = source
    return namespace


FUNCTIONS = _build()

try:
    from memorywire import _speedups
except ImportError:  # not built: the generated functions serve every document
    _speedups = None  # type: ignore[assignment]


def _c_kind(f: m.FieldInfo, job: str) -> str:
    """How memorywire._speedups.canonical changes a member of the field: not
    at all where _gen_out keeps it; in C for messages, doubles and the
    timestamps it can read (else with the function of _out_one, as for the
    other kinds)."""
    if not _out_needs(f, job):
        return "keep"
    if f.kind == m.MESSAGE:
        return "message"
    if f.kind == m.TIMESTAMP:
        return f"timestamp_{job}"
    if f.kind == m.FLOAT32 and job == "mp":
        return "vector_mp"  # packed in C by the MessagePack writer
    return "double" if f.kind == m.DOUBLE else "call"


def _c_tables(job: str) -> tuple[Any, dict[str, int]]:
    """The tables of the canonical pass in C of a job ("js" or "mp"), from
    the field tables: for each message type, its fields (name, how a member
    changes, whether each element changes, the index of a message type, the
    function of one value), its walker, and its generated function, which
    takes what C does not; and the index of each type."""
    infos = m.reachable_infos()
    index = {info.name: i for i, info in enumerate(infos)}
    tables = [
        ([(f.name, kind, f.repeated and f.kind != m.FLOAT32,
           index[f.message.name] if kind == "message" and f.message is not None else -1,
           None if kind == "keep" else FUNCTIONS[_out_one(f, job)])
          for f in info.ordered for kind in [_c_kind(f, job)]],
         FUNCTIONS[f"{job}_walk_{info.name}"], FUNCTIONS[f"{job}_{info.name}"])
        for info in infos]
    return _speedups.canonical_tables(tables, _msgpack.Timestamp), index


#: The tables of the canonical pass in C, per job, where it is built.
_C_TABLES = {job: _c_tables(job) for job in ("js", "mp")} if _speedups is not None else {}


def c_canonical(job: str, type_name: str) -> Any:
    """The canonical pass in C of a job for a message type, which gives
    what the generated function of the job gives; None where it is not
    built."""
    if job not in _C_TABLES:
        return None
    tables, index = _C_TABLES[job]
    return functools.partial(_speedups.canonical, tables, index[m.message(type_name).name])


#: The kinds of the compiled Protobuf writer (memorywire._speedups.pb_write)
#: of fields that hold one value, and of repeated fields.
_NATIVE_ONE = {m.STRING: "string", m.BOOL: "bool", m.UINT: "uint", m.DOUBLE: "double", m.BYTES: "bytes",
               m.ENUM: "enum", m.MESSAGE: "message", m.TIMESTAMP: "timestamp", m.VALUE: "value"}
_NATIVE_REPEATED = {m.STRING: "strings", m.UINT: "uints", m.ENUM: "enums", m.FLOAT32: "vector",
                    m.MESSAGE: "messages", m.BYTES: "byteses", m.TIMESTAMP: "timestamps"}
_VARINTS = (_FD.TYPE_UINT32, _FD.TYPE_UINT64)


def _native_kind(info: m.MessageInfo, f: m.FieldInfo) -> str:
    """The kind of a field for the compiled writer; "unsupported" leaves the
    documents that hold it to the writers in Python."""
    if f.is_map:
        return "map"
    if f.kind == m.UINT and info.descriptor.fields_by_name[f.name].type not in _VARINTS:
        return "unsupported"  # a signed integer: ZigZag on the wire
    return (_NATIVE_REPEATED if f.repeated else _NATIVE_ONE).get(f.kind, "unsupported")


def native_tables(infos: list[m.MessageInfo]) -> list[tuple[tuple[Any, ...], ...]]:
    """The field tables of the compiled Protobuf writer, one per message type
    of infos: (name, tag, kind, presence, index of the message type,
    enum values by name) per field, in field-number order."""
    index = {info.full_name: i for i, info in enumerate(infos)}
    return [tuple((f.name, _compiled.field_tag(f), _native_kind(info, f), f.presence,
                   index[f.message.full_name] if f.message is not None else -1,
                   f.enum.by_json if f.enum is not None else None)
                  for f in info.ordered)
            for info in infos]


#: The message types of the compiled writer's tables, by full name.
_NATIVE_INDEX: dict[str, int] = {}
if ENABLED and _speedups is not None:
    _infos = m.reachable_infos()
    _speedups.pb_tables(native_tables(_infos), Float32Values, Float32Bytes)
    _NATIVE_INDEX = {info.full_name: i for i, info in enumerate(_infos)}


def protobuf_writer(type_name: str) -> Any:
    """A function from a validated document of the type to its canonical
    Protobuf bytes: written in C by memorywire._speedups.pb_write where it
    is built, else (or where it declines the document) by upb_writer."""
    info = m.message(type_name)
    upb = upb_writer(type_name)
    index = _NATIVE_INDEX.get(info.full_name)
    if index is None:
        return upb
    native = _speedups.pb_write

    def write(d: Any) -> bytes:
        out = native(index, d)
        return upb(d) if out is None else out

    return write


def upb_writer(type_name: str) -> Any:
    """A function from a validated document of the type to its canonical
    Protobuf bytes, written by upb, or by the walker where upb refuses it."""
    info = m.message(type_name)
    walk = _compiled.function("pb", info.full_name)
    if not ENABLED:
        return walk
    build = FUNCTIONS[f"up_{info.name}"]
    fix = FUNCTIONS.get(f"fix_{info.name}")
    cls = info.cls

    def write(d: Any) -> bytes:
        try:
            msg = cls(**build(d))
            if fix is not None:
                fix(msg, d)
            return msg.SerializeToString()
        except _UPB_REFUSED:
            return walk(d)  # type: ignore[no-any-return]

    return write


#: What upb may raise for a document it cannot take or write (a member it
#: does not know, a string with a lone surrogate, nesting beyond its limit).
_UPB_REFUSED = (ValueError, TypeError, KeyError, OverflowError, RecursionError, EncodeError)


def _mp_hook(obj: Any) -> Any:
    """What msgspec does not write itself: the timestamps of the walkers."""
    if type(obj) is _msgpack.Timestamp:
        assert msgspec is not None
        return msgspec.msgpack.Ext(-1, obj.to_bytes())
    raise TypeError(f"no MessagePack form for {type(obj).__name__}")


def json_canonical(type_name: str, *, compiled: bool = True) -> Any:
    """A function from a validated document of the type to its canonical
    JSON form, for orjson to write with sorted keys; without compiled, the
    generated function, as where memorywire._speedups is not built."""
    info = m.message(type_name)
    if not ENABLED:
        return _compiled.function("js", info.full_name)
    return (compiled and c_canonical("js", type_name)) or FUNCTIONS[f"js_{info.name}"]


#: What a writer that hands its work to msgspec or upb may raise for a
#: document it cannot write; the writers of memorywire._compiled then do.
_REFUSED: tuple[type[Exception], ...] = (
    (TypeError, ValueError, OverflowError, msgspec.EncodeError) if msgspec else (TypeError, ValueError))


def msgpack_writer(type_name: str, *, compiled: bool = True) -> Any:
    """A function from a validated document of the type to its canonical
    MessagePack bytes; without compiled, the generated function and msgspec,
    as where memorywire._speedups is not built."""
    info = m.message(type_name)
    walk = _compiled.function("mp", info.full_name)
    pack = _msgpack.Packer(use_bin_type=True, datetime=False).pack
    if not ENABLED or msgspec is None:
        return lambda d: pack(walk(d))
    canonical = (compiled and c_canonical("mp", type_name)) or FUNCTIONS[f"mp_{info.name}"]
    encode = msgspec.msgpack.Encoder(order="deterministic", enc_hook=_mp_hook).encode

    def write(d: Any) -> bytes:
        try:
            return encode(canonical(d))
        except _REFUSED:
            return pack(walk(d))  # type: ignore[no-any-return]

    if not compiled or "mp" not in _C_TABLES:
        return write
    # The same bytes written in C, which hands write what it is not sure of.
    tables, index = _C_TABLES["mp"]
    return functools.partial(_speedups.canonical_msgpack, tables, index[info.name], write)
