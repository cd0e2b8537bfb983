"""The typed fast path: msgspec decoders generated from the field tables.

For each message type and encoding this module builds msgspec ``Struct``
types whose constraints are the rules of the field tables: exact types,
enum names, patterns and formats, lengths, counts, ranges, required
fields, no unknown members, the resource limits and the nesting depth
(one type per message type and depth, so that recursive messages end at
the depth limit). msgspec checks a document against them in C. A few rules
it cannot state run in a generated ``__post_init__``: oneofs, the values of
``Value`` and map fields, and the rules of :mod:`memorywire._rules` that span
fields, each as a conservative test.

The fast path only ever *accepts*. Every type is at least as strict as the
rules, so a document msgspec accepts is valid; a document it refuses, or
that holds anything the types cannot judge (repeated member names, the
token ``-0``, a document of a newer minor version, a calendar date beyond
the 28th of February, a limit other than the default's), goes to the
walkers of :mod:`memorywire._compiled`, which find its exact error or
accept it. msgspec parses a document once, into the Structs; the codecs
write them back to see that the bytes hide no repeated member (the same
number of member colons in JSON, the same bytes in MessagePack), and
return msgspec's plain form of them. (In JSON what is written back is a
shallow copy of the Structs with every float vector empty: a list of
numbers holds no member, and spelling its numbers again costs more than
the typed decode.) The plain form holds the values the walkers would return (in JSON an integer
in a float field stays an integer; the MessagePack form's timestamps get
their canonical spelling and its float32 vectors become lists), members in
the order of the field tables.

msgspec is a dependency of the package. With ``MEMORYWIRE_PURE=1`` in the
environment (or where msgspec cannot be imported) every document takes the
walkers' path, which gives the same results, only slower; the conformance
suite runs on that path too.
"""

from __future__ import annotations

import datetime
import keyword
import math
import os
from typing import Annotated, Any, Literal

from memorywire import _codec, _rules
from memorywire import _model as m
from memorywire._codec import vector_finite
from memorywire._compiled import _BASE64, FLOAT32_OVERFLOW, INT64_MAX, INT64_MIN
from memorywire._formats import FORMATS
from memorywire.limits import Limits

try:
    import msgspec
except ImportError:  # the walkers serve every document
    msgspec = None  # type: ignore[assignment]

#: msgspec's writers of a document the typed decoders have read (the
#: decoders check that it reads back as the bytes it came from), and its
#: conversion to the document, in plain values.
write_json: Any = msgspec.json.encode if msgspec else None
write_msgpack: Any = msgspec.msgpack.encode if msgspec else None
to_builtins: Any = msgspec.to_builtins if msgspec else None

#: Whether the typed fast path is in use; tests turn it off to run the fallback.
ENABLED = msgspec is not None and os.environ.get("MEMORYWIRE_PURE", "") in ("", "0")

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
#: Floats of a Value beyond this magnitude may stand for an integer token
#: too long for the parser (see memorywire.json); the walkers judge them.
_LARGE_FLOAT = 9.2e18

# The rules that span fields which have a conservative test here; a type
# that can hold a message with any other goes to the walkers whole.
_SPECIAL_TESTS = {"MemoryRecord", "MediaPart", "ToolResult", "Embedding", "Procedure"}


def _attr(name: str) -> str:
    return name + "_" if keyword.iskeyword(name) or name.startswith("_") else name


def value_ok(v: Any, depth: int, max_depth: int, max_items: int, max_chars: int) -> bool:
    """Whether a Value at the given depth is certainly within the rules: JSON
    types only, 64-bit integers, no float that might be a long integer token,
    within the depth, count and string limits."""
    t = type(v)
    if t is str:
        return len(v) <= max_chars
    if t is int:
        return INT64_MIN <= v <= INT64_MAX  # type: ignore[no-any-return]
    if t is float:
        return -_LARGE_FLOAT < v < _LARGE_FLOAT  # type: ignore[no-any-return]
    if t is bool or v is None:
        return True
    if t is dict:
        if depth > max_depth or len(v) > max_items:
            return False
        for key, x in v.items():
            if type(key) is not str or len(key) > max_chars:
                return False
            tx = type(x)
            if tx is str:
                if len(x) > max_chars:
                    return False
            elif tx is not bool and x is not None and not value_ok(x, depth + 1, max_depth, max_items, max_chars):
                return False
        return True
    if t is list:
        if depth > max_depth or len(v) > max_items:
            return False
        for x in v:
            if not value_ok(x, depth + 1, max_depth, max_items, max_chars):
                return False
        return True
    return False


class _Builder:
    """The Struct types of one encoding ("json" or "msgpack") under one set of limits."""

    def __init__(self, form: str, limits: Limits) -> None:
        assert msgspec is not None
        self.form = form
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
        assert msgspec is not None
        fields: list[Any] = []
        rename: dict[str, str] = {}
        post: list[str] = []
        # The MessagePack types list their members in the canonical order
        # (by name), so that a checked document written back gives the bytes
        # memorywire writes.
        ordered = sorted(info.ordered, key=lambda f: f.name) if self.form == "msgpack" else info.ordered
        for f in ordered:
            attr = _attr(f.name)
            if attr != f.name:
                rename[attr] = f.name
            if f.name == "specversion" and (top or info.name == "MemoryRecord"):
                # A document's own is this reader's version (other versions take
                # the walkers); a record carries one, a nested record none.
                if info.name != "MemoryRecord":
                    fields.append((attr, Literal["1.0"] | msgspec.UnsetType, msgspec.UNSET))
                elif top:
                    fields.append((attr, Literal["1.0"]))
                else:
                    fields.append((attr, Literal[""] | msgspec.UnsetType, msgspec.UNSET))
                continue
            t = self._field_type(f, depth, post, attr)
            if f.required:
                fields.append((attr, t))
            else:
                fields.append((attr, t | msgspec.UnsetType, msgspec.UNSET))
        for oneof, members in info.oneofs.items():
            # How many members are unset: one count in C over a tuple.
            unset = f"({''.join(f'self.{_attr(n)}, ' for n in members)}).count(UNSET)"
            exactly = (info.name, oneof) in _EXACTLY_ONE
            post.append(f"if {unset} {'!=' if exactly else '<'} {len(members) - 1}: raise ValueError({oneof!r})")
        if info.name in _SPECIAL_TESTS:
            post.append(f"if not SPECIAL_{info.name}(self): raise ValueError({info.name!r})")
        namespace: dict[str, Any] = {}
        if post:
            namespace["__post_init__"] = self._post_init(post)
        return msgspec.defstruct(
            f"{info.name}_{self.form}_{depth}", fields, namespace=namespace, rename=rename or None,
            forbid_unknown_fields=True, kw_only=True, gc=False,
        )

    def _post_init(self, lines: list[str]) -> Any:
        assert msgspec is not None
        source = "def __post_init__(self):\n" + "".join(f"    {line}\n" for line in lines)
        scope: dict[str, Any] = {
            "UNSET": msgspec.UNSET, "value_ok": value_ok, "vector_finite": vector_finite,
            "MAX_DEPTH": self.max_depth, "MAX_ITEMS": self.max_items, "MAX_CHARS": self.max_chars,
            "SPECIAL_MemoryRecord": _record, "SPECIAL_MediaPart": _media, "SPECIAL_ToolResult": _tool_result,
            "SPECIAL_Embedding": self._embedding_test(), "SPECIAL_Procedure": _procedure,
        }
        exec(compile(source, "<memorywire._fast>", "exec"), scope)  # noqa: S102 - generated from the field tables
        return scope["__post_init__"]

    def _embedding_test(self) -> Any:
        max_dimensions = self.limits.max_dimensions
        per_value = 4 if self.form == "msgpack" else 1

        def test(s: Any) -> bool:
            dims, values = s.dimensions, s.values
            if dims is msgspec.UNSET:
                return True
            if dims > max_dimensions:
                return False
            return values is msgspec.UNSET or dims == len(values) // per_value

        return test

    def _field_type(self, f: m.FieldInfo, depth: int, post: list[str], attr: str) -> Any:
        lim = self.limits
        if f.is_map:
            key: Any = str
            if f.key_pattern is not None:
                key = Annotated[str, msgspec.Meta(pattern=f.key_pattern.pattern)]
            post.append(f"if self.{attr} is not UNSET and not value_ok(self.{attr}, {depth + 1}, "
                        "MAX_DEPTH, MAX_ITEMS, MAX_CHARS): raise ValueError()")
            return Annotated[dict[key, Any], self._count(f, depth + 1)]
        if f.repeated:
            if depth + 1 > self.max_depth:
                return self.never
            if f.kind == m.FLOAT32 and self.form == "msgpack":
                # Little-endian binary32 values in a bin: whole, finite, within the counts.
                most = min(lim.max_items, f.max_items if f.max_items is not None else lim.max_items)
                least = 1 if f.required else 0
                post.append(f"if self.{attr} is not UNSET and (len(self.{attr}) % 4 or not "
                            f"{least} <= len(self.{attr}) // 4 <= {most} or not vector_finite(self.{attr})): "
                            "raise ValueError()")
                return bytes
            if f.kind == m.VALUE:
                # An element of a repeated Value is never null.
                post.append(f"if self.{attr} is not UNSET and (None in self.{attr} or not value_ok(self.{attr}, "
                            f"{depth + 1}, MAX_DEPTH, MAX_ITEMS, MAX_CHARS)): raise ValueError()")
                return Annotated[list[Any], self._count(f, depth + 1)]
            item = self._single(f, depth + 2, post, attr, item=True)
            return Annotated[list[item], self._count(f, depth + 1)]  # type: ignore[valid-type]
        return self._single(f, depth + 1, post, attr, item=False)

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

    def _count(self, f: m.FieldInfo, depth: int) -> Any:
        assert msgspec is not None
        most = min(self.max_items, f.max_items) if f.max_items is not None else self.max_items
        return msgspec.Meta(min_length=1 if f.required else None, max_length=most)

    def _single(self, f: m.FieldInfo, depth: int, post: list[str], attr: str, *, item: bool) -> Any:
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
            elif f.pattern is not None:
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
                # A timestamp extension in range; msgspec also takes a string
                # here, which the conversion to the JSON form then refuses.
                return datetime.datetime
            return Annotated[str, Meta(pattern=_TIMESTAMP)]
        if k == m.BYTES:
            least = 1 if f.required and not item else None
            if self.form == "msgpack":
                return Annotated[bytes, Meta(min_length=least, max_length=self.limits.max_document_bytes)]
            return Annotated[str, Meta(pattern=_BASE64_FULL, min_length=least, max_length=self.max_chars)]
        if k == m.VALUE:
            post.append(f"if self.{attr} is not UNSET and not value_ok(self.{attr}, {depth}, "
                        "MAX_DEPTH, MAX_ITEMS, MAX_CHARS): raise ValueError()")
            return Any
        raise AssertionError(f"no type for {f.name}")


#: Oneofs of which exactly one member is set (as in memorywire._compiled).
_EXACTLY_ONE = frozenset({("ContentPart", "part"), ("Filter", "expression")})


def _record(s: Any) -> bool:
    """A live record whose payload is the member its kind names."""
    lifecycle = s.lifecycle
    if lifecycle is not msgspec.UNSET and lifecycle.status == "deleted":
        return False
    return getattr(s, _attr(s.kind), msgspec.UNSET) is not msgspec.UNSET


def _media(s: Any) -> bool:
    return bool(s.uri or s.data or s.file_id)


def _tool_result(s: Any) -> bool:
    return s.output is msgspec.UNSET or s.output is None or not s.output_parts


def _procedure(s: Any) -> bool:
    states = s.states
    if states is msgspec.UNSET:
        return True
    for value in (s.initial_state, s.current_state):
        if value and value not in states:
            return False
    return True


def _timestamp_text(text: str) -> str:
    """The canonical spelling of a timestamp msgspec wrote from a datetime:
    a fraction of whole milliseconds in 3 digits, not 6."""
    return text[:23] + "Z" if len(text) == 27 and text.endswith("000Z") else text


def _fixed(f: m.FieldInfo, form: str) -> bool:
    """Whether a field needs a fixer: in MessagePack its timestamps and
    float32 vectors (their plain form), in JSON its float vectors (which the
    write-back leaves out)."""
    if form == "json":
        return f.repeated and f.kind in (m.FLOAT32, m.DOUBLE)
    return f.kind in (m.TIMESTAMP, m.FLOAT32)


def _fixes(infos: list[m.MessageInfo], form: str) -> dict[str, bool]:
    """Whether the Structs of each message can hold a field that needs a
    fix (a fixed point, for recursive messages)."""
    memo = dict.fromkeys((i.name for i in infos), False)
    changed = True
    while changed:
        changed = False
        for info in infos:
            if not memo[info.name] and any(
                    not f.is_map and (_fixed(f, form) or (f.message is not None and memo[f.message.name]))
                    for f in info.ordered):
                memo[info.name] = changed = True
    return memo


def _fixer_source(info: m.MessageInfo, memo: dict[str, bool], lines: list[str], form: str) -> None:
    if form == "json":
        _stripper_source(info, memo, lines)
        return
    lines.append(f"def fix_{info.name}(s, d):")
    for f in info.ordered:
        if f.is_map or not (_fixed(f, form) or (f.message is not None and memo[f.message.name])):
            continue
        attr, key = _attr(f.name), f.name
        lines.append(f"    v = s.{attr}")
        lines.append("    if v is not UNSET:")
        if f.kind == m.FLOAT32:
            lines.append(f"        d[{key!r}] = vector(v)")
        elif f.kind == m.TIMESTAMP and f.repeated:
            lines.append(f"        d[{key!r}] = [text(x) for x in d[{key!r}]]")
        elif f.kind == m.TIMESTAMP:
            lines.append(f"        d[{key!r}] = text(d[{key!r}])")
        elif f.repeated:
            assert f.message is not None
            lines.append(f"        for a, b in zip(v, d[{key!r}]):")
            lines.append(f"            fix_{f.message.name}(a, b)")
        else:
            assert f.message is not None
            lines.append(f"        fix_{f.message.name}(v, d[{key!r}])")
    lines.append("")


def _stripper_source(info: m.MessageInfo, memo: dict[str, bool], lines: list[str]) -> None:
    """A function of the JSON Structs of a message that returns them with
    every float vector empty: a shallow copy where anything changes."""
    lines.append(f"def fix_{info.name}(s):")
    lines.append("    c = s")
    for f in info.ordered:
        if f.is_map or not (_fixed(f, "json") or (f.message is not None and memo[f.message.name])):
            continue
        attr = _attr(f.name)
        if _fixed(f, "json"):
            new = "[]"
        elif f.repeated:
            assert f.message is not None
            new = f"[fix_{f.message.name}(a) for a in v]"
        else:
            assert f.message is not None
            new = f"fix_{f.message.name}(v)"
        lines.append(f"    v = s.{attr}")
        lines.append("    if v:")  # UNSET and an empty list are false; a Struct is true
        lines.append("        if c is s:")
        lines.append("            c = s.__copy__()")
        lines.append(f"        c.{attr} = {new}")
    lines.append("    return c")
    lines.append("")


def _build_fixers(form: str) -> dict[str, Any]:
    """The fixers of the Structs of an encoding. In MessagePack a fixer
    mends the plain form; in JSON it gives the Structs to write back."""
    infos = {n: m.message(n) for top in m.top_level_types() for n in _reachable(m.message(top))}
    memo = _fixes(list(infos.values()), form)
    lines: list[str] = []
    for info in infos.values():
        if memo[info.name]:
            _fixer_source(info, memo, lines, form)
    scope: dict[str, Any] = {"UNSET": msgspec.UNSET if msgspec else None, "text": _timestamp_text,
                             "vector": _codec._vector}
    exec(compile("\n".join(lines), "<memorywire._fast>", "exec"), scope)  # noqa: S102 - from the field tables
    return {name: scope[f"fix_{name}"] for name, info in infos.items() if memo[name]}


_fixers: dict[str, dict[str, Any]] = {}


def _fixer(form: str, type_name: str) -> Any:
    fixers = _fixers.get(form)
    if fixers is None:
        fixers = _fixers[form] = _build_fixers(form)
    return fixers.get(m.message(type_name).name)


def msgpack_document(type_name: str) -> Any:
    """The conversion of the Structs the MessagePack decoder of a type gives
    to the JSON form of the document: msgspec's plain form, with timestamps
    in their canonical spelling and float32 vectors as lists of floats."""
    fix = _fixer("msgpack", type_name)
    convert = to_builtins

    def document(s: Any) -> dict[str, Any]:
        d: dict[str, Any] = convert(s)
        if fix is not None:
            fix(s, d)
        return d

    return document


def json_written(type_name: str) -> Any:
    """What the JSON decoder of a type writes back of the Structs it gives,
    to count their member colons: the Structs with every float vector empty
    (they hold no member), or the Structs themselves where the type holds
    no vector."""
    fix = _fixer("json", type_name)
    return fix if fix is not None else (lambda s: s)


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


_decoders: dict[tuple[str, str, Limits], Any] = {}


def decoder(form: str, type_name: str, limits: Limits) -> Any:
    """The msgspec decoder of a message type in an encoding, or None where
    the fast path does not serve the type (its documents take the walkers)."""
    key = (form, type_name, limits)
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
        if within and info.name != "Error" and _reachable(info) & set(_rules.SPECIAL) <= _SPECIAL_TESTS:
            assert msgspec is not None
            root = _Builder(form, limits).struct(info, 1, top=True)
            module = msgspec.json if form == "json" else msgspec.msgpack
            dec = module.Decoder(root)
    _decoders[key] = dec
    return dec


__all__ = ["ENABLED", "ERRORS", "decoder", "json_written", "msgpack_document", "to_builtins", "value_ok",
           "write_json", "write_msgpack"]
