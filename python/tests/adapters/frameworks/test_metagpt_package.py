"""metagpt.message against the real MetaGPT 0.8.2: Messages built with its
own constructors, dumped with its own serializers, read back with its own
loader."""

from __future__ import annotations

import json
import os
import sys
import tempfile
import warnings
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from harness import assert_exact, assert_round_trip, assert_service_round_trip  # noqa: E402

from memorywire.adapters import FORMS  # noqa: E402

# MetaGPT takes the working directory as its root: it writes logs/ there and
# needs an LLM entry in config/config2.yaml to import at all (never called).
os.chdir(tempfile.mkdtemp(prefix="metagpt-"))
os.mkdir("config")
Path("config/config2.yaml").write_text("llm:\n  api_type: openai\n  model: gpt-4o\n  api_key: sk-offline-never-used\n")
with warnings.catch_warnings():
    # Importing metagpt imports every LLM provider, never used here; the
    # Gemini one brings google.api_core, which warns (Python 3.10 support
    # ending, grpcio-status missing).
    warnings.simplefilter("ignore")
    schema = pytest.importorskip("metagpt.schema")
    from metagpt.actions.action_node import ActionNode
    from metagpt.memory import Memory
from pydantic import BaseModel, create_model  # noqa: E402

MESSAGE = FORMS["metagpt.message"]

_text = st.text(st.characters(codec="utf-8"), max_size=16)
_id = st.text(st.characters(codec="utf-8"), min_size=1, max_size=12) | st.just("0")
_names = st.sampled_from(["<all>", "<self>", "<none>", "Alex", "Eve", "Bob", "*"]) | _text
_roles = st.sampled_from(["user", "assistant", "system", "Alice(Product Manager)", "Engineer"]) | _text
Review = ActionNode.create_model_class("ReviewOutput", {"verdict": (str, ...), "issues": (list[str], ...)})
Decision = create_model("Decision", __base__=BaseModel, approved=(bool, ...), score=(float, ...))


@st.composite
def messages(draw: Any) -> Any:
    kind = draw(st.sampled_from(["Message", "UserMessage", "AIMessage", "SystemMessage"]))
    content = draw(_text)
    if kind == "Message":
        m = schema.Message(content=content, id=draw(_id), role=draw(_roles), cause_by=draw(_text),
                           sent_from=draw(_text), send_to=set(draw(st.lists(_names, max_size=4))))
    else:
        m = getattr(schema, kind)(content)
        m.send_to = set(draw(st.lists(_names, max_size=3))) or {"<all>"}
    ic = draw(st.sampled_from([None, "review", "decision"]))
    if ic == "review":
        m.instruct_content = Review(verdict=draw(_text), issues=draw(st.lists(_text, max_size=3)))
    elif ic == "decision":
        m.instruct_content = Decision(approved=draw(st.booleans()),
                                      score=draw(st.floats(allow_nan=False, allow_infinity=False)))
    return m


def _loaded_equal(back: str, original: Any) -> None:
    """MetaGPT's own loader and equality, against its load of its own dump
    (instruct_content classes are made anew at each load, so those
    messages are compared by their dump)."""
    loaded, expected = schema.Message.load(back), schema.Message.load(original.dump())
    if original.instruct_content is None:
        assert loaded == expected
    else:
        assert loaded.dump() == expected.dump()


@settings(max_examples=100, deadline=None)
@given(st.lists(messages(), max_size=5))
def test_messages_made_by_metagpt_come_back(made: list[Any]) -> None:
    texts = [m.dump() for m in made]
    dicts = [m.model_dump() for m in made]
    if made:
        memory = Memory()
        memory.add_batch(made)
        assert_round_trip(MESSAGE, [memory.model_dump_json(), *texts], ordered=True)
    assert_round_trip(MESSAGE, texts, ordered=True, run="team-run")
    assert_round_trip(MESSAGE, dicts, project="p")
    back = MESSAGE.from_records(MESSAGE.to_records(texts + dicts))
    for b, m in zip(back[:len(made)], made, strict=True):
        assert b == m.dump()
        _loaded_equal(b, m)
    for b, d in zip(back[len(made):], dicts, strict=True):
        assert list(b) == list(d)  # MetaGPT's member order


def test_memory_storage_and_index(service: Any) -> None:
    memory = Memory()
    made = [schema.UserMessage("Write a CLI snake game."),
            schema.Message(content="PRD", role="Alice(Product Manager)", cause_by="metagpt.actions.write_prd.WritePRD",
                           sent_from="metagpt.roles.product_manager.ProductManager", send_to={"Bob", "Eve", "<self>"}),
            schema.Message(content="", id="0", role="assistant", instruct_content=Review(verdict="ok", issues=[])),
            schema.Message(content="again", id="0", role="assistant")]
    memory.add_batch(made)
    text = memory.model_dump_json()
    assert_round_trip(MESSAGE, [text], ordered=True)
    assert_service_round_trip(service(), MESSAGE, [text, made[0].dump()], ordered=True)
    (back,) = MESSAGE.from_records(MESSAGE.to_records([text]))
    # MetaGPT reads it back to the same memory. (Not to the same text: a
    # send_to set rebuilt from its list may iterate in another order.)
    assert back == text and Memory.model_validate_json(back) == Memory.model_validate_json(text)
    dumped = json.loads(text)
    for items in [dumped["storage"], *dumped["index"].values()]:
        assert_round_trip(MESSAGE, items)
        assert_service_round_trip(service(), MESSAGE, items)
    texts = [m.dump() for m in memory.get()]
    assert_service_round_trip(service(), MESSAGE, texts, ordered=True)
    back = MESSAGE.from_records(MESSAGE.to_records(texts))
    assert_exact(back, texts)
