"""Property-based round trips of documents generated from the v1 JSON Schemas.

For every message type that can be a document (strategies.document_types()),
documents are generated from the type's schema (see strategies.py), and the
valid ones (memorywire.validate) must satisfy, for every pair of encodings
A, B of json, msgpack and protobuf:

* encode_A(doc) -> convert A->B -> convert B->A gives exactly encode_A(doc);
* convert A->B of encode_A(doc) is exactly encode_B(doc) (one canonical form);
* decode_B(encode_B(doc)) written as JSON equals json.encode(doc);
* encode_B(decode_B(encode_B(doc))) == encode_B(doc) (idempotent canonical form).

Every generated document, valid or not, must get the same verdict from the
fast validator (memorywire.validation.check) and the reference validator
(memorywire.validation.reference_errors). Mutated documents (a required field
dropped, an unknown member added, an unknown enum name, a string or an
integral float where an integer goes, a nested record with specversion) must
be rejected by both, with the reason and pointer the specification names.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
import strategies as S
from hypothesis import HealthCheck, Phase, given, note, settings
from hypothesis import strategies as st

import memorywire
from memorywire import _model, validation
from memorywire import json as mw_json
from memorywire import msgpack as mw_msgpack
from memorywire import protobuf as mw_protobuf

TYPES = S.document_types()
ENCODINGS = ("json", "msgpack", "protobuf")
MODULES = {"json": mw_json, "msgpack": mw_msgpack, "protobuf": mw_protobuf}
#: Types that are read as documents of a newer minor version (versioning.md §1.2).
ALWAYS_NEWER = {"memorywire.v1.Error"}

_HEALTH = [HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large,
           HealthCheck.large_base_example]
ROUNDTRIP = settings(max_examples=30, deadline=None, derandomize=True, database=None,
                     suppress_health_check=_HEALTH, print_blob=False)
AGREEMENT = settings(max_examples=12, deadline=None, derandomize=True, database=None,
                     suppress_health_check=_HEALTH, print_blob=False)
#: Mutation runs report the first failing document of each type as drawn (the
#: documents are small), without shrinking, so that a rule broken by many types
#: does not cost minutes.
MUTATION = settings(max_examples=5, deadline=None, derandomize=True, database=None,
                    suppress_health_check=_HEALTH, print_blob=False,
                    phases=[Phase.explicit, Phase.reuse, Phase.generate])
#: The least fraction of generated documents that must be valid for a type.
MIN_VALID = 0.3


def test_every_document_type_has_an_inlinable_schema() -> None:
    assert len(TYPES) >= 60, TYPES
    names = {t.rsplit(".", 1)[1] for t in TYPES}
    assert {"MemoryRecord", "Error"} <= names
    for rpc in ("Put", "Get", "History", "Search", "Update", "Delete", "Expire", "Merge", "Compact",
                "Review", "Watch", "CommitOffset", "Export", "Import", "GetCapabilities", "Erase"):
        assert {f"{rpc}Request", f"{rpc}Response"} <= names, rpc
    for t in TYPES:
        assert not S.refs_left(S.inlined_schema(t)), t


def is_valid(doc: Any, type_name: str) -> bool:
    return not validation.check(doc, type_name)[0]


def check_round_trips(doc: dict[str, Any], type_name: str) -> None:
    encoded = {e: MODULES[e].encode(doc, type=type_name) for e in ENCODINGS}
    note(f"canonical JSON: {encoded['json']!r}")
    for a in ENCODINGS:
        for b in ENCODINGS:
            there = memorywire.convert(encoded[a], source=a, target=b, type=type_name)
            back = memorywire.convert(there, source=b, target=a, type=type_name)
            assert back == encoded[a], f"{a} -> {b} -> {a} changed the bytes"
            assert there == encoded[b], f"convert {a} -> {b} is not encode_{b}(doc)"
    for b in ENCODINGS:
        decoded = MODULES[b].decode(encoded[b], type=type_name)
        assert mw_json.encode(decoded, type=type_name) == encoded["json"], \
            f"decode_{b}(encode_{b}(doc)) differs from doc in JSON"
        assert MODULES[b].encode(decoded, type=type_name) == encoded[b], \
            f"encode_{b} is not idempotent"


@pytest.mark.slow
@pytest.mark.parametrize("type_name", TYPES, ids=lambda t: t.rsplit(".", 1)[1])
def test_round_trip_between_every_pair_of_encodings(type_name: str) -> None:
    counts = {"generated": 0, "valid": 0}

    @ROUNDTRIP
    @given(doc=S.documents(type_name))
    def round_trip(doc: dict[str, Any]) -> None:
        counts["generated"] += 1
        if not is_valid(doc, type_name):
            return
        counts["valid"] += 1
        check_round_trips(doc, type_name)

    round_trip()
    assert counts["generated"] >= 15
    assert counts["valid"] >= MIN_VALID * counts["generated"], counts


@pytest.mark.slow
@pytest.mark.parametrize("type_name", TYPES, ids=lambda t: t.rsplit(".", 1)[1])
def test_fast_and_reference_validators_agree_on_generated_documents(type_name: str) -> None:
    @AGREEMENT
    @given(doc=S.documents(type_name))
    def agree(doc: dict[str, Any]) -> None:
        fast = validation.check(doc, type_name)[0]
        reference = validation.reference_errors(doc, type_name)
        note(f"fast: {[str(v) for v in fast]}")
        note(f"reference: {[str(v) for v in reference]}")
        assert bool(fast) == bool(reference)

    agree()


# -- mutations ----------------------------------------------------------------------

Candidate = tuple[dict[str, Any], _model.MessageInfo, tuple[Any, ...], str]


def _drop_required(doc: dict[str, Any], type_name: str) -> list[Candidate]:
    out = []
    for node, info, path in S.message_nodes(doc, type_name):
        for f in info.ordered:
            if f.required and f.name in node:
                out.append((node, info, path, f.name))
        if info.name == "MemoryRecord" and not path and "specversion" in node:
            out.append((node, info, path, "specversion"))
    return out


def _fields_of_kind(doc: dict[str, Any], type_name: str, kind: int) -> list[Candidate]:
    return [(node, info, path, f.name)
            for node, info, path in S.message_nodes(doc, type_name)
            for f in info.ordered if f.kind == kind and not f.is_map]


def _nested_records(doc: dict[str, Any], type_name: str) -> list[Candidate]:
    return [(node, info, path, "specversion") for node, info, path in S.message_nodes(doc, type_name)
            if info.name == "MemoryRecord" and path]


def _any_node(doc: dict[str, Any], type_name: str) -> list[Candidate]:
    return [(node, info, path, "zz_unknown_member") for node, info, path in S.message_nodes(doc, type_name)]


def _set(node: dict[str, Any], info: _model.MessageInfo, name: str, scalar: Any) -> str:
    """Put scalar in the field (as the only element of a repeated one); the suffix of its pointer."""
    f = info.fields.get(name)
    if f is not None and f.repeated:
        node[name] = [scalar]
        return "/0"
    node[name] = scalar
    return ""


MUTATIONS: dict[str, tuple[Any, Any, str]] = {
    # name: (candidates, apply(node, info, field) -> pointer suffix, expected reason)
    "drop_required_field": (_drop_required, lambda n, i, f: (n.pop(f), "")[1], "REQUIRED_FIELD_MISSING"),
    "add_unknown_member": (_any_node, lambda n, i, f: _set(n, i, f, 1), "UNKNOWN_FIELD"),
    "unknown_enum_name": (lambda d, t: _fields_of_kind(d, t, _model.ENUM),
                          lambda n, i, f: _set(n, i, f, "zz_not_a_value"), "UNKNOWN_ENUM_VALUE"),
    "string_where_integer_goes": (lambda d, t: _fields_of_kind(d, t, _model.UINT),
                                  lambda n, i, f: _set(n, i, f, "7"), "TYPE_MISMATCH"),
    "integral_float_where_integer_goes": (lambda d, t: _fields_of_kind(d, t, _model.UINT),
                                          lambda n, i, f: _set(n, i, f, 7.0), "TYPE_MISMATCH"),
    "nested_record_with_specversion": (_nested_records, lambda n, i, f: _set(n, i, f, "1.0"),
                                       "UNKNOWN_FIELD"),
}
#: Mutations a document read as of a newer minor version tolerates (versioning.md §3.2).
TOLERATED_WHEN_NEWER = {"add_unknown_member", "unknown_enum_name"}


def _types_for(mutation: str) -> list[str]:
    if mutation == "nested_record_with_specversion":
        return [t for t in TYPES if _contains_record(_model.message(t), set())]
    return TYPES


def _contains_record(info: _model.MessageInfo, seen: set[str]) -> bool:
    if info.name in seen:
        return False
    seen.add(info.name)
    return any(f.message is not None and (f.message.name == "MemoryRecord" or _contains_record(f.message, seen))
               for f in info.ordered)


def _mutation_property(mutation: str, type_name: str, applied: dict[str, int]) -> Any:
    candidates_of, apply, reason = MUTATIONS[mutation]

    @MUTATION
    @given(doc=S.documents(type_name), data=st.data())
    def mutated(doc: dict[str, Any], data: st.DataObject) -> None:
        if not is_valid(doc, type_name):
            return
        doc = copy.deepcopy(doc)
        candidates = candidates_of(doc, type_name)
        if not candidates:
            return
        node, info, path, field = candidates[data.draw(st.integers(0, len(candidates) - 1))]
        suffix = apply(node, info, field)
        where = S.pointer(path + (field,)) + suffix
        applied[type_name] = applied.get(type_name, 0) + 1
        fast = validation.check(doc, type_name)[0]
        reference = validation.reference_errors(doc, type_name)
        context = (f"{mutation} at {where} of {doc!r}: fast {[str(v) for v in fast]}, "
                   f"reference {[str(v) for v in reference]}")
        assert bool(fast) == bool(reference), f"validators disagree: {context}"
        if type_name in ALWAYS_NEWER and mutation in TOLERATED_WHEN_NEWER:
            assert not fast, f"a document read as of a newer minor version tolerates this: {context}"
            return
        assert fast, f"the mutated document was accepted: {context}"
        assert (reason, where) in {(v.reason, v.pointer) for v in fast}, \
            f"expected {reason} at {where}: {context}"

    return mutated


@pytest.mark.slow
@pytest.mark.parametrize("mutation", list(MUTATIONS))
def test_validators_agree_on_mutated_documents(mutation: str) -> None:
    """Every type in turn, a few documents each; the failures of all types are
    reported together, each with its shrunk example."""
    applied: dict[str, int] = {}
    failures: list[str] = []
    types = _types_for(mutation)
    for type_name in types:
        try:
            _mutation_property(mutation, type_name, applied)()
        except AssertionError as e:
            failures.append(f"{type_name}: {str(e).splitlines()[0]}")
    assert not failures, f"{len(failures)} of {len(types)} types fail:\n" + "\n".join(failures)
    assert sum(applied.values()) >= 2 * len(types), applied
