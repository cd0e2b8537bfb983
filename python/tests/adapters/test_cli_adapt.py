"""memorywire adapt: framework exports to records and back."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from types import MappingProxyType

import pytest
from test_kit import _plain_form

import memorywire.adapters
import memorywire.json
from memorywire.cli import run


@pytest.fixture(autouse=True)
def plain_form(monkeypatch: pytest.MonkeyPatch) -> None:
    forms = dict(memorywire.adapters.FORMS, **{"test.plain": _plain_form()})
    monkeypatch.setattr(memorywire.adapters, "FORMS", MappingProxyType(forms))


def _run(*argv: str, stdin: bytes = b"") -> tuple[int, bytes, str]:
    out, err = io.BytesIO(), io.StringIO()
    status = run(list(argv), stdin=io.BytesIO(stdin), stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()


def test_forth_and_back(tmp_path: Path) -> None:
    items = [1, 1.0, True, None, "naïve ☕", [2**70, {"a": -0.0}]]
    export = tmp_path / "export.json"
    export.write_text(json.dumps(items, ensure_ascii=False), encoding="utf-8")
    status, out, err = _run("adapt", "--from", "test.plain", str(export), "--scope", "session=s1")
    assert (status, err) == (0, "")
    records = [memorywire.json.decode(line) for line in out.splitlines()]
    assert len(records) == len(items) and all(r["scope"] == {"session": "s1"} for r in records)
    for encoding in ("msgpack", "protobuf"):
        status, binary, err = _run("adapt", "--from", "test.plain", str(export), "--to", encoding)
        assert status == 0, err
        status, back, err = _run("adapt", "-", "--to-form", "test.plain", "--from", encoding, stdin=binary)
        assert status == 0, err
        assert json.loads(back) == items and repr(json.loads(back)) == repr(items)
    status, back, err = _run("adapt", "-", "--to-form", "test.plain", stdin=out)
    assert status == 0 and repr(json.loads(back)) == repr(items)


def test_list() -> None:
    status, out, _ = _run("adapt", "--list")
    # The names are padded to the longest form name.
    assert status == 0 and re.search(rb"^test\.plain +plain values$", out, re.M)


@pytest.mark.parametrize("argv, stdin, expected", [
    (("adapt", "--from", "nope.form", "-"), b"[]", "unknown form 'nope.form'"),
    (("adapt", "-"), b"[]", "give the form"),
    (("adapt", "--from", "test.plain", "-", "--scope", "thread=t"), b"[1]", "/scope/thread"),
    (("adapt", "--from", "test.plain", "-", "--scope", "session"), b"[1]", "KEY=VALUE"),
    (("adapt", "-", "--to-form", "test.plain", "--from", "xml"), b"", "encoding of the records"),
])
def test_usage_errors(argv: tuple[str, ...], stdin: bytes, expected: str) -> None:
    status, out, err = _run(*argv, stdin=stdin)
    assert status in (1, 2) and expected in err and out == b""


@pytest.mark.parametrize("stdin, expected", [
    (b'{"a": 1}', "<stdin>:1: /: the items are a JSON list"),
    (b'[1, 2', "INVALID_JSON"),
    (b'[{"a": 1, "a": 2}]', "occurs twice"),
    (b'[{"a": NaN}]', "NaN is not JSON"),
    (b'[1E400]', "overflows"),
])
def test_bad_exports_name_what_is_wrong(stdin: bytes, expected: str) -> None:
    status, out, err = _run("adapt", "--from", "test.plain", "-", stdin=stdin)
    assert status == 1 and expected in err and out == b"", err


def test_bad_records_name_their_line() -> None:
    good = memorywire.json.encode({"specversion": "1.0", "id": "a", "kind": "custom",
                                   "custom": {"type": "test.plain", "value": 1}})
    status, out, err = _run("adapt", "-", "--to-form", "test.plain", stdin=good + b"\n{\"id\": 3}\n")
    assert status == 1 and err.startswith("<stdin>:2: ") and out == b""


