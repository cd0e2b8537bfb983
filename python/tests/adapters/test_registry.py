"""Every form of memorywire.adapters.FORMS is documented, captured from its
real package, tested against that package, and follows the conventions
that hold for all forms (spec/v1/adapters/README.md)."""

from __future__ import annotations

import importlib
import re
from pathlib import Path
from typing import Any

import pytest
import tomllib
from harness import DATA, captured, load, through_encodings

from memorywire.adapters import FORMS, is_generated
from memorywire.adapters._kit import Files

ROOT = Path(__file__).resolve().parents[3]
ADAPTERS = ROOT / "spec" / "v1" / "adapters"
FRAMEWORKS = Path(__file__).parent / "frameworks"


def _module(form: str) -> str:
    return form.split(".")[0]


def _document(form: str) -> Path:
    return ADAPTERS / f"{FORMS[form].framework}.md"


@pytest.mark.parametrize("form", sorted(FORMS))
def test_every_form_has_its_document_data_and_package_test(form: str) -> None:
    assert form in _document(form).read_text("utf-8"), f"{_document(form)} does not describe {form}"
    assert captured(form), f"no real output captured for {form} in {DATA / form}"
    shape = FORMS[form].file
    assert shape in ("list", "document", "lines") if isinstance(shape, str) else isinstance(shape, Files)
    module = importlib.import_module(f"memorywire.adapters.{_module(form)}")
    if getattr(module, "PACKAGE", True) is None:
        # A format with no package: its published text and artifacts are its test.
        assert f"test_{_module(form)}.py" in {p.name for p in Path(__file__).parent.glob("test_*.py")}
        return
    with open(FRAMEWORKS / "envs.toml", "rb") as f:
        envs = tomllib.load(f)
    package_test = f"test_{_module(form)}_package.py"
    assert any(package_test in env["tests"] for env in envs.values()), \
        f"no environment of envs.toml runs {package_test}"


def test_the_conventions_list_every_framework_document() -> None:
    text = (ADAPTERS / "README.md").read_text("utf-8")
    table = text[text.index('<a id="10"></a>'):]
    listed = set(re.findall(r"\]\(([a-z0-9-]+\.md)\)", table))
    assert listed == {p.name for p in ADAPTERS.glob("*.md")} - {"README.md"}
    assert listed >= {f"{form.framework}.md" for form in FORMS.values()}


def _items(form: str) -> list[list[Any]]:
    """The lists of items captured for a form."""
    lists = []
    texts = []
    for name in captured(form):
        found = load(form, name)["items"]
        if isinstance(found, str):  # the text of a text form is one item
            texts.append([found])
            continue
        lists.extend([found] if isinstance(found, list) else [v for v in found.values() if isinstance(v, list)])
    return [items for items in lists if all(isinstance(x, dict) for x in items)] + texts


@pytest.mark.parametrize("form", sorted(name for name in FORMS if FORMS[name].extra is None))
def test_no_form_invents_what_the_store_assigns(form: str) -> None:
    # R-ADAPT-001: sequence and revision come from the store, never the adapter.
    for items in _items(form):
        for record in FORMS[form].to_records(items, session="s1"):
            assert "sequence" not in record and "revision" not in record
            assert record["specversion"] == "1.0"
            native = record.get("native")
            assert native is None or (native["format"] == form and native["framework"] == FORMS[form].framework)


@pytest.mark.parametrize("form", sorted(name for name in FORMS if FORMS[name].extra is None))
def test_ids_are_unique_within_a_list_and_stable(form: str) -> None:
    for items in _items(form):
        records = FORMS[form].to_records(items, session="s1")
        ids = [r["id"] for r in records]
        assert len(set(ids)) == len(ids)
        assert [r["id"] for r in FORMS[form].to_records(items, session="s1")] == ids
        generated = [i for i in ids if is_generated(i)]
        if generated:
            other = [r["id"] for r in FORMS[form].to_records(items, session="s2")]
            assert set(generated).isdisjoint(other)


@pytest.mark.parametrize("form", sorted(name for name in FORMS if FORMS[name].extra is None))
def test_every_form_reads_records_without_its_residue(form: str) -> None:
    # R-ADAPT-003: records of another producer carry no residue of this form.
    for items in _items(form):
        records = FORMS[form].to_records(items, session="s1")
        foreign = [{k: v for k, v in r.items() if k != "native"} for r in records]
        for decoded in through_encodings(foreign).values():
            back = FORMS[form].from_records(decoded)
            assert isinstance(back, list)
