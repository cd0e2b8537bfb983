"""The filter language (spec/v1/operations.md section 5): checking a filter
against the record model before any record is read, and evaluating it on the
JSON form of a record.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable, Mapping
from typing import Any

from memorywire import _compiled
from memorywire import _model as m
from memorywire.service.errors import error
from memorywire.service.records import instant

__all__ = ["Predicate", "compile_filter", "json_equal", "names_status"]

Predicate = Callable[[Mapping[str, Any]], bool]

_RECORD = m.message("MemoryRecord")
_INDEX = re.compile(r"0|[1-9][0-9]*")
#: Enum fields whose unset value has a meaning (operations.md section 5.2).
_ENUM_DEFAULTS = {"/lifecycle/status": "active", "/provenance/trust": "unverified"}
_ORDERING = frozenset({"gt", "gte", "lt", "lte"})
_NUMERIC = (m.UINT, m.DOUBLE, m.FLOAT32)
_MISSING = object()


def names_status(flt: Mapping[str, Any] | None) -> bool:
    """Whether a filter holds a comparison whose field is exactly
    /lifecycle/status: such a filter alone decides which statuses match."""
    if not flt:
        return False
    if "compare" in flt:
        return bool(flt["compare"].get("field") == "/lifecycle/status")
    if "not" in flt:
        return names_status(flt["not"])
    for group in ("all", "any"):
        if group in flt:
            return any(names_status(f) for f in flt[group].get("filters", ()))
    return False


# -- static types --------------------------------------------------------------


class _Type:
    """What a pointer names in the record model: a field of static type (with
    its kind, and whether it is a list or a map), or a place inside a Value
    (dynamic)."""

    __slots__ = ("dynamic", "enum", "is_list", "is_map", "kind", "message")

    def __init__(self, kind: int = -1, *, dynamic: bool = False, is_list: bool = False,
                 is_map: bool = False, enum: m.EnumInfo | None = None,
                 message: m.MessageInfo | None = None) -> None:
        self.kind, self.dynamic, self.is_list, self.is_map = kind, dynamic, is_list, is_map
        self.enum, self.message = enum, message

    def element(self) -> _Type:
        return _Type(self.kind, enum=self.enum, message=self.message)


_DYNAMIC = _Type(dynamic=True)


def _unescape(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


def _field_type(f: m.FieldInfo) -> _Type:
    if f.is_map:
        return _Type(m.VALUE, is_map=True)
    if f.kind == m.VALUE and not f.repeated:
        return _DYNAMIC
    return _Type(f.kind, is_list=f.repeated, enum=f.enum, message=f.message)


def _resolve_type(tokens: list[str], where: str) -> _Type:
    t = _Type(m.MESSAGE, message=_RECORD)
    for token in tokens:
        if t.dynamic:
            continue
        if t.is_map:
            t = _DYNAMIC
        elif t.is_list:
            if _INDEX.fullmatch(token) is None:
                raise error("UNKNOWN_FIELD", "a list is followed by an array index", where)
            t = t.element()
        elif t.kind == m.MESSAGE and t.message is not None:
            f = t.message.fields.get(token)
            if f is None:
                raise error("UNKNOWN_FIELD", f"{t.message.name} has no field {token!r}", where)
            t = _field_type(f)
        else:
            raise error("UNKNOWN_FIELD", "the pointer goes past a field that has no members", where)
    return t


# -- value types the static types accept (section 5.3) --------------------------


def _is_number(v: Any) -> bool:
    return type(v) is int or type(v) is float


def _is_base64(v: str) -> bool:
    try:
        return base64.b64encode(base64.b64decode(v, validate=True)).decode("ascii") == v
    except (binascii.Error, ValueError):
        return False


def _check_operand(t: _Type, value: Any, where: str, element: bool = False) -> Any:
    """Check a comparison value against a field of static type; return the
    value in the form evaluation compares (timestamps as instants)."""
    if t.dynamic:
        return value
    if t.is_list and not element:
        if type(value) is not list:
            raise error("TYPE_MISMATCH", "a list field compares with a list", where)
        return value
    if t.is_map or t.kind == m.MESSAGE:
        if type(value) is not dict:
            raise error("TYPE_MISMATCH", "a message or map field compares with a map", where)
        return value
    kind = t.kind
    if kind == m.STRING:
        if type(value) is not str:
            raise error("TYPE_MISMATCH", "a string field compares with a string", where)
    elif kind in _NUMERIC:
        if not _is_number(value):
            raise error("TYPE_MISMATCH", "a number field compares with a number", where)
    elif kind == m.BOOL:
        if type(value) is not bool:
            raise error("TYPE_MISMATCH", "a boolean field compares with a boolean", where)
    elif kind == m.TIMESTAMP:
        if type(value) is not str:
            raise error("TYPE_MISMATCH", "a timestamp field compares with a timestamp string", where)
        if not _compiled.timestamp_ok(value):
            raise error("INVALID_TIMESTAMP", "not an RFC 3339 timestamp of the form YYYY-MM-DDTHH:MM:SS[.F]Z",
                        where)
        return instant(value)
    elif kind == m.ENUM:
        if type(value) is not str:
            raise error("TYPE_MISMATCH", "an enum field compares with the name of a value", where)
        assert t.enum is not None
        if value not in t.enum.by_json:
            raise error("UNKNOWN_ENUM_VALUE", f"{t.enum.name} has no value {value!r}", where)
    elif kind == m.BYTES:
        if type(value) is not str:
            raise error("TYPE_MISMATCH", "a bytes field compares with a base64 string", where)
        if not _is_base64(value):
            raise error("INVALID_BASE64", "not canonical base64 with padding", where)
    return value


# -- equality and order of JSON values --------------------------------------------


def json_equal(a: Any, b: Any) -> bool:
    """Equality as JSON values (section 5.3): numbers by mathematical value,
    objects regardless of key order, booleans never equal to numbers."""
    ta, tb = type(a), type(b)
    if ta is bool or tb is bool or a is None or b is None:
        return ta is tb and a == b
    if ta in (int, float) and tb in (int, float):
        return bool(a == b)
    if ta is not tb:
        return False
    if ta is list:
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b, strict=True))
    if ta is dict:
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    return bool(a == b)


def _ordered(field: Any, value: Any, op: str) -> bool:
    if _is_number(field) and _is_number(value):
        pass
    elif type(field) is str and type(value) is str:
        pass
    elif type(field) is tuple and type(value) is tuple:  # instants
        pass
    else:
        return False
    if op == "gt":
        return bool(field > value)
    if op == "gte":
        return bool(field >= value)
    if op == "lt":
        return bool(field < value)
    return bool(field <= value)


# -- resolving a pointer in a record -------------------------------------------------


def _resolver(tokens: list[str], pointer: str) -> Callable[[Mapping[str, Any]], Any]:
    default = _ENUM_DEFAULTS.get(pointer)
    fact_category = pointer == "/fact/category"
    keys: list[Any] = tokens

    def resolve(doc: Mapping[str, Any]) -> Any:
        node: Any = doc
        for key in keys:
            if type(node) is dict:
                node = node.get(key, _MISSING)
            elif type(node) is list:
                if _INDEX.fullmatch(key) is None:
                    return _absent(doc)
                i = int(key)
                node = node[i] if i < len(node) else _MISSING
            else:
                return _absent(doc)
            if node is _MISSING:
                return _absent(doc)
        return node

    def _absent(doc: Mapping[str, Any]) -> Any:
        if default is not None:
            return default
        if fact_category and "fact" in doc:
            return "fact"
        return _MISSING

    return resolve


# -- compiling ------------------------------------------------------------------------


def compile_filter(flt: Mapping[str, Any], where: str) -> Predicate:
    """Check a valid Filter document against the record model and return its
    predicate. ``where`` is the pointer of the filter in the request, such as
    ``/filter``. Raises ServiceError (INVALID_ARGUMENT) for the errors of
    section 5.5 that the codec does not check."""
    if "all" in flt:
        parts = [compile_filter(f, f"{where}/all/filters/{i}")
                 for i, f in enumerate(flt["all"].get("filters", ()))]
        return lambda doc: all(p(doc) for p in parts)
    if "any" in flt:
        parts = [compile_filter(f, f"{where}/any/filters/{i}")
                 for i, f in enumerate(flt["any"].get("filters", ()))]
        return lambda doc: any(p(doc) for p in parts)
    if "not" in flt:
        inner = compile_filter(flt["not"], f"{where}/not")
        return lambda doc: not inner(doc)
    if "compare" not in flt:
        # A filter of a newer minor version whose member this service does not know.
        raise error("UNSUPPORTED_FEATURE", "the filter has none of all, any, not and compare; a newer "
                    "version may define its member, which this service does not", where)
    return _compile_comparison(flt["compare"], f"{where}/compare")


def _compile_comparison(cmp: Mapping[str, Any], where: str) -> Predicate:
    pointer = cmp["field"]
    op = cmp["operator"]
    has_value = "value" in cmp
    value: Any = cmp.get("value")
    vwhere = f"{where}/value"
    if not pointer:
        raise error("REQUIRED_FIELD_MISSING", "a comparison names a field", f"{where}/field")
    tokens = [_unescape(t) for t in pointer.split("/")[1:]]
    t = _resolve_type(tokens, f"{where}/field")
    resolve = _resolver(tokens, pointer)

    # Operator rules that hold whatever the field (section 5.4).
    if op == "exists":
        if has_value:
            raise error("TYPE_MISMATCH", "exists takes no value", vwhere)
        return lambda doc: resolve(doc) is not _MISSING
    if not has_value:
        raise error("REQUIRED_FIELD_MISSING", f"{op} needs a value", vwhere)
    if op == "in" and type(value) is not list:
        raise error("TYPE_MISMATCH", "in takes a list", vwhere)
    if op == "prefix" and type(value) is not str:
        raise error("TYPE_MISMATCH", "prefix takes a string", vwhere)
    if op in _ORDERING and not (_is_number(value) or type(value) is str):
        raise error("TYPE_MISMATCH", f"{op} takes a number or a string", vwhere)

    # Rules of the field's static type.
    if not t.dynamic:
        orderable = not t.is_list and not t.is_map and t.kind in (m.STRING, m.TIMESTAMP) + _NUMERIC
        if op in _ORDERING and not orderable:
            raise error("TYPE_MISMATCH", f"{op} does not apply to this field", vwhere)
        if op == "prefix" and (t.is_list or t.is_map or t.kind != m.STRING):
            raise error("TYPE_MISMATCH", "prefix applies to string fields", vwhere)
        if op == "contains" and not t.is_list:
            raise error("TYPE_MISMATCH", "contains applies to list fields", vwhere)

    timestamp = not t.dynamic and not t.is_list and not t.is_map and t.kind == m.TIMESTAMP

    def field_value(doc: Mapping[str, Any]) -> Any:
        v = resolve(doc)
        if timestamp and type(v) is str:
            return instant(v)
        return v

    if op in ("eq", "ne"):
        operand = _check_operand(t, value, vwhere)
        eq = _equal_fn(operand, timestamp)
        if op == "eq":
            return lambda doc: eq(field_value(doc))
        return lambda doc: not eq(field_value(doc))
    if op == "in":
        operands = [_check_operand(t, v, f"{vwhere}/{i}") for i, v in enumerate(value)]
        fns = [_equal_fn(o, timestamp) for o in operands]
        return lambda doc: (lambda fv: fv is not _MISSING and any(f(fv) for f in fns))(field_value(doc))
    if op in _ORDERING:
        operand = _check_operand(t, value, vwhere)
        return lambda doc: (lambda fv: fv is not _MISSING and _ordered(fv, operand, op))(field_value(doc))
    if op == "prefix":
        return lambda doc: (lambda fv: type(fv) is str and fv.startswith(value))(resolve(doc))
    # contains
    element = t if t.dynamic else t.element()
    operand = _check_operand(element, value, vwhere, element=True)
    element_timestamp = not t.dynamic and t.kind == m.TIMESTAMP

    def contains(doc: Mapping[str, Any]) -> bool:
        fv = resolve(doc)
        if type(fv) is not list:
            return False
        if element_timestamp:
            return any(type(x) is str and instant(x) == operand for x in fv)
        return any(json_equal(x, operand) for x in fv)

    return contains


def _equal_fn(operand: Any, timestamp: bool) -> Callable[[Any], bool]:
    if timestamp:
        return lambda fv: fv is not _MISSING and fv == operand
    return lambda fv: fv is not _MISSING and json_equal(fv, operand)
