"""What every adapter shares: the form object, framework values as Values,
record ids, elements that yield no part, inline media, times, member order
and kept text (spec/v1/adapters/README.md)."""

from __future__ import annotations

import base64
import binascii
import math
import re
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING, Any

import orjson

from memorywire import _timestamp
from memorywire._formats import check_format
from memorywire._model import message
from memorywire.errors import MemorywireError, ValidationError, Violation
from memorywire.validation import iter_errors

if TYPE_CHECKING:
    from memorywire.adapters._bridge import LossReport

Record = dict[str, Any]

#: The fields of memorywire.v1.Scope: the keyword arguments of to_records.
SCOPE_FIELDS = frozenset(message("memorywire.v1.Scope").fields) - {"tenant"}

_INT64 = (-(1 << 63), (1 << 63) - 1)
_MAX_ID = 256
_MAX_URI = 8192
_ID_CHARS = re.compile(r"^[^\u0000-\u001f\u007f]+\Z")  # \Z: "$" would admit a final newline

#: The namespace of the name-based UUIDs of generated record ids.
ID_NAMESPACE = uuid.UUID("6f3d1c2e-5b7a-5e0f-9a41-2c8d7b6e4f10")


class AdapterError(MemorywireError):
    """A framework item that a form cannot map; the pointer locates the
    offending member in the items given (``/3/content/1/type``)."""

    @classmethod
    def at(cls, pointer: str, reason: str, message: str) -> AdapterError:
        return cls(reason, message, [Violation(pointer, reason, message)])


def pointer_token(key: str | int) -> str:
    """One JSON Pointer reference token (RFC 6901)."""
    return str(key).replace("~", "~0").replace("/", "~1")


@dataclass(frozen=True)
class Form:
    """One serialized form of a framework's records: what ``to_records``
    accepts and ``from_records`` gives back."""

    name: str
    framework: str
    description: str
    encode: Callable[[list[Any], dict[str, Any]], list[Record]]
    decode: Callable[[list[Record]], list[Any]]
    extra: str | None = None
    #: How a file holds the items: a JSON array of them (``list``), one
    #: item or an array of them (``document``), one item per line
    #: (``lines``); or, for a format of its own files (a bundle directory,
    #: several files of one export), the :class:`Files` that read and write
    #: them (an array of the items on standard input and output).
    file: str | Files = "list"
    #: From records with the loss report, for a form that can say where in
    #: its extension point it keeps each member (README.md §12); any other
    #: form's report is computed by reading back what it wrote.
    report: Callable[[list[Record]], tuple[list[Any], LossReport]] | None = None

    def to_records(self, items: Iterable[Any], **scope: Any) -> list[Record]:
        """The memorywire records of ``items``, in their order; ``scope``
        (user, agent, session, ...) goes on every record."""
        return self.encode(list(items), check_scope(scope))

    def from_records(self, records: Iterable[Mapping[str, Any]]) -> list[Any]:
        """The framework items of ``records``, in their original order:
        by ``sequence`` when every record has one, else as given."""
        listed = [dict(r) for r in records]
        if listed and all(type(r.get("sequence")) is int for r in listed):
            listed.sort(key=lambda r: r["sequence"])
        return self.decode(listed)

    def from_records_reporting(self, records: Iterable[Mapping[str, Any]]) -> tuple[list[Any], LossReport]:
        """:meth:`from_records` and its loss report (README.md §12.2), whose
        record indexes count the records in the order they are written."""
        from memorywire.adapters._bridge import read_back_report

        listed = [dict(r) for r in records]
        if listed and all(type(r.get("sequence")) is int for r in listed):
            listed.sort(key=lambda r: r["sequence"])
        if self.report is not None:
            return self.report(listed)
        return read_back_report(self, listed)


@dataclass(frozen=True)
class Files:
    """The files of a format of its own: ``read(path)`` gives the items of
    a file or directory; ``write(items, path)`` writes them there and
    returns False for a path that is not of its kind (nothing written)."""

    read: Callable[[str], list[Any]]
    write: Callable[[list[Any], str], bool]


def check_scope(scope: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in scope.items():
        if key not in SCOPE_FIELDS:
            known = ", ".join(sorted(SCOPE_FIELDS))
            raise AdapterError.at(f"/scope/{pointer_token(key)}", "UNSUPPORTED_ITEM",
                                  f"{key!r} is not a scope field ({known})")
        if value is None:
            continue
        if key == "namespace":
            if not isinstance(value, (list, tuple)) or not all(type(x) is str for x in value):
                raise AdapterError.at("/scope/namespace", "TYPE_MISMATCH", "namespace is a list of strings")
            out[key] = list(value)
        elif type(value) is not str:
            raise AdapterError.at(f"/scope/{key}", "TYPE_MISMATCH", f"{key} is a string")
        elif value:
            out[key] = value
    return out


def native(form: Form | str, framework: str, residue: Any) -> dict[str, Any]:
    """The ``native`` member of a record of ``form``."""
    name = form.name if isinstance(form, Form) else form
    return {"framework": framework, "format": name, "record": residue}


def wrap_markers(residue: dict[str, Any]) -> dict[str, Any]:
    """A residue whose only member is one of a form's ``$`` markers would
    read as a tag: it is written as a ``$map`` tag (README.md §3)."""
    return {"$map": residue} if len(residue) == 1 and next(iter(residue)).startswith("$") else residue


def unwrap_markers(residue: Any) -> Any:
    """The residue that :func:`wrap_markers` wrote."""
    if isinstance(residue, Mapping) and len(residue) == 1 and isinstance(residue.get("$map"), Mapping):
        return residue["$map"]
    return residue


def memory_text(record: Mapping[str, Any], pointer: str) -> str:
    """The text of a record of a memory kind (fact, summary, block, custom,
    ...), for a framework that keeps memories as text."""
    kind = str(record.get("kind"))
    payload = record.get(kind)
    if type(payload) is not dict:
        raise AdapterError.at(f"{pointer}/{kind}", "NOT_REPRESENTABLE", f"a {kind} record without a readable payload")
    if kind == "block":
        return str(payload.get("value", ""))
    if kind == "procedure":
        return str(payload.get("description") or payload.get("name", ""))
    if kind == "custom":
        value = payload.get("value")
        return value if type(value) is str else "" if value is None else canonical_json(value)
    return str(payload.get("text", ""))


def residue_of(record: Mapping[str, Any], form: Form | str) -> Any:
    """The residue a record carries for ``form``, or None when the record
    comes from another form or producer."""
    name = form.name if isinstance(form, Form) else form
    nat = record.get("native")
    if isinstance(nat, Mapping) and nat.get("format") == name:
        return nat.get("record")
    return None


# -- 1. Framework values as Values --------------------------------------------------------------

TAGS = ("$bigint", "$bytes", "$float", "$tuple", "$map")


def to_value(x: Any, pointer: str = "") -> Any:
    """``x`` in the value model, losslessly: the tags of spec/v1/adapters/README.md §3
    carry what a Value cannot hold."""
    t = type(x)
    if x is None or t is bool or t is str:
        return x
    if t is int:
        return x if _INT64[0] <= x <= _INT64[1] else {"$bigint": str(x)}
    if t is float:
        if math.isfinite(x):
            return x
        return {"$float": "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")}
    if t is dict:
        out = {}
        for k, v in x.items():
            if type(k) is not str:
                raise AdapterError.at(pointer, "NOT_REPRESENTABLE", f"a map key of type {type(k).__name__}")
            out[k] = to_value(v, f"{pointer}/{pointer_token(k)}")
        if len(out) == 1 and next(iter(out)).startswith("$"):
            return {"$map": out}
        return out
    if t is list:
        return [to_value(v, f"{pointer}/{i}") for i, v in enumerate(x)]
    if t is tuple:
        return {"$tuple": [to_value(v, f"{pointer}/{i}") for i, v in enumerate(x)]}
    if t is bytes:
        return {"$bytes": base64.b64encode(x).decode("ascii")}
    raise AdapterError.at(pointer, "NOT_REPRESENTABLE", f"a value of type {t.__name__} has no memorywire form")


def from_value(v: Any) -> Any:
    """The Python value of a Value written by :func:`to_value`."""
    t = type(v)
    if t is list:
        return [from_value(x) for x in v]
    if t is not dict:
        return v
    if len(v) == 1:
        (key, inner), = v.items()
        if key.startswith("$"):
            return _untag(key, inner)
    return {k: from_value(x) for k, x in v.items()}


def _untag(key: str, inner: Any) -> Any:
    if key == "$map" and type(inner) is dict:
        return {k: from_value(x) for k, x in inner.items()}
    if key == "$bigint" and type(inner) is str and re.fullmatch(r"-?[0-9]+", inner):
        return int(inner)
    if key == "$bytes" and type(inner) is str:
        try:
            return base64.b64decode(inner, validate=True)
        except binascii.Error:
            pass
    if key == "$float" and inner in ("nan", "inf", "-inf"):
        return float(inner)
    if key == "$tuple" and type(inner) is list:
        return tuple(from_value(x) for x in inner)
    raise AdapterError.at("", "TYPE_MISMATCH", f"{{{key!r}: ...}} is not a value tag of the adapters")


def canonical_json(value: Any) -> str:
    """The canonical JSON text of a Value: keys sorted, no insignificant
    white space, the codec's number forms. Raises ValidationError (with a
    pointer) for what is not a Value."""
    doc = {"specversion": "1.0", "id": "v", "kind": "custom", "custom": {"type": "v", "value": value}}
    errors = [e for e in iter_errors(doc) if e.pointer.startswith("/custom/value")]
    if errors:
        found = [Violation(e.pointer[len("/custom/value"):], e.reason, e.message) for e in errors]
        raise ValidationError(found[0].reason, found[0].message, found)
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode("utf-8")


# -- 2. Record ids -----------------------------------------------------------------------------

def valid_id(x: Any) -> bool:
    return type(x) is str and 0 < len(x) <= _MAX_ID and _ID_CHARS.fullmatch(x) is not None


class Ids:
    """Record ids of one list: the framework's id where it has a usable one
    not used earlier in the list, else a name-based UUID of the form, the
    scope and the position."""

    def __init__(self, form: str, scope: Mapping[str, Any]) -> None:
        self._prefix = f"{form}\n{canonical_json(dict(scope))}\n"
        self._used: set[str] = set()

    def assign(self, position: int, framework_id: Any = None) -> str:
        if valid_id(framework_id) and framework_id not in self._used:
            self._used.add(framework_id)
            return str(framework_id)
        made = f"urn:uuid:{uuid.uuid5(ID_NAMESPACE, self._prefix + str(position))}"
        self._used.add(made)
        return made


def is_generated(record_id: str) -> bool:
    return record_id.startswith("urn:uuid:")


# -- 3. Elements that yield no content part -----------------------------------------------------

UNMAPPED = "$unmapped"


def unmapped(element: Any, pointer: str = "") -> dict[str, Any]:
    """The residue entry of a list element that produced no content part."""
    return {UNMAPPED: to_value(element, pointer)}


def is_unmapped(entry: Any) -> bool:
    return type(entry) is dict and len(entry) == 1 and UNMAPPED in entry


def unmapped_value(entry: Mapping[str, Any]) -> Any:
    return from_value(entry[UNMAPPED])


def align(residue: Sequence[Any] | None, parts: Sequence[Any]) -> Iterator[tuple[Any, Any]]:
    """Pairs ``(residue entry, part)`` in element order: an unmapped entry
    has no part (None), every other entry takes the next part. Without
    residue, or with residue for another number of parts (the content was
    updated since), every part stands alone: the neutral content wins."""
    if residue is None or sum(1 for e in residue if not is_unmapped(e)) != len(parts):
        yield from ((None, p) for p in parts)
        return
    it = iter(parts)
    for entry in residue:
        yield (entry, None) if is_unmapped(entry) else (entry, next(it))


# -- 4. Inline media ---------------------------------------------------------------------------

_DATA_URI = re.compile(r"^data:([A-Za-z0-9!#$&^_.+-]+/[A-Za-z0-9!#$&^_.+-]+);base64,([A-Za-z0-9+/]*={0,2})$")


def media_from_uri(uri: str) -> tuple[dict[str, Any], str | None]:
    """The MediaPart fields of ``uri`` and the text to keep when they do
    not give it back exactly (spec/v1/adapters/README.md §6). The fields
    are empty for text that is not a URI: its element has no part."""
    m = _DATA_URI.fullmatch(uri)
    if m is not None and m.group(2):
        try:
            raw = base64.b64decode(m.group(2), validate=True)
        except binascii.Error:
            raw = None
        if raw is not None and base64.b64encode(raw).decode("ascii") == m.group(2):
            return {"data": m.group(2), "media_type": m.group(1)}, None
    if not check_format(uri, "uri"):
        return {}, uri
    if len(uri) <= _MAX_URI:
        return {"uri": uri}, None
    fields: dict[str, Any] = {}
    if m is not None:
        fields["media_type"] = m.group(1)
    return fields, uri


def uri_from_media(part: Mapping[str, Any], kept: str | None = None) -> str | None:
    """The URI that :func:`media_from_uri` read: the kept text, the
    ``uri``, or a ``data:`` URI of the inline ``data``."""
    if kept is not None:
        return kept
    if "uri" in part:
        return str(part["uri"])
    if "data" in part:
        return f"data:{part.get('media_type', 'application/octet-stream')};base64,{part['data']}"
    return None


# -- 5. Times ----------------------------------------------------------------------------------

_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_TIME = re.compile(r"^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|z|[+-]\d{2}:?\d{2})?$")


def parse_time(text: str) -> str:
    """A memorywire Timestamp (UTC) of an ISO 8601 time; a time without a
    zone is read as UTC."""
    m = _TIME.match(text) if type(text) is str else None
    if m is None:
        raise AdapterError.at("", "TYPE_MISMATCH", f"{text!r} is not an ISO 8601 date and time")
    day, clock, fraction, zone = m.groups()
    try:
        base = datetime.fromisoformat(f"{day}T{clock}").replace(tzinfo=timezone.utc)
    except ValueError:
        raise AdapterError.at("", "TYPE_MISMATCH", f"{text!r} is not a valid date and time") from None
    if zone and zone not in ("Z", "z"):
        sign = 1 if zone[0] == "+" else -1
        digits = zone[1:].replace(":", "")
        base -= sign * timedelta(hours=int(digits[:2]), minutes=int(digits[2:]))
    nanos = int((fraction or "").ljust(9, "0")) if fraction else 0
    seconds = int((base - _EPOCH).total_seconds())
    if not _timestamp.in_range(seconds, nanos):
        raise AdapterError.at("", "TYPE_MISMATCH", f"{text!r} is outside the range of a Timestamp")
    return _timestamp.format(seconds, nanos)


def _utc(ts: str) -> tuple[datetime, int]:
    seconds, nanos = _timestamp.parse(ts)
    return _EPOCH + timedelta(seconds=seconds), nanos


def isoformat(ts: str, *, naive: bool = False, sep: str = "T") -> str:
    """What Python's ``datetime.isoformat(sep)`` writes for this UTC instant
    (``+00:00`` unless ``naive``; microseconds only when not zero)."""
    when, nanos = _utc(ts)
    when = when.replace(microsecond=nanos // 1000)
    if naive:
        when = when.replace(tzinfo=None)
    return when.isoformat(sep)


def sqlite_time(ts: str) -> str:
    """SQLite's ``CURRENT_TIMESTAMP`` form: ``YYYY-MM-DD HH:MM:SS``."""
    when, _ = _utc(ts)
    return when.strftime("%Y-%m-%d %H:%M:%S")


def split_time(text: str, render: Callable[[str], str]) -> tuple[str, str | None]:
    """The Timestamp of ``text``, and ``text`` itself when ``render`` of
    the Timestamp does not give it back (to keep in the residue)."""
    ts = parse_time(text)
    return ts, (None if render(ts) == text else text)


def micros_to_time(n: int) -> str:
    return _timestamp.format(n // 1_000_000, (n % 1_000_000) * 1000)


def time_to_micros(ts: str) -> int:
    seconds, nanos = _timestamp.parse(ts)
    return seconds * 1_000_000 + nanos // 1000


# -- 6. Member order and kept text -------------------------------------------------------------

def ordered(mapping: Mapping[str, Any], order: Sequence[str]) -> dict[str, Any]:
    """``mapping`` with the keys of ``order`` first, in that order, then
    the rest in their own order."""
    out = {k: mapping[k] for k in order if k in mapping}
    out.update((k, v) for k, v in mapping.items() if k not in out)
    return out


def keep_text(text: str, rebuilt: str) -> str | None:
    """``text`` when the framework's serializer does not rebuild it."""
    return None if rebuilt == text else text
