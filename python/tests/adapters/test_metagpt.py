"""metagpt.message (spec/v1/adapters/metagpt.md): the captured output of
MetaGPT 0.8.2, each decision, and errors with pointers."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from harness import assert_exact, assert_round_trip, assert_service_round_trip, captured, exact, load
from hypothesis import given, settings
from hypothesis import strategies as st

from memorywire.adapters import FORMS, AdapterError
from memorywire.adapters.metagpt import dump_text
from memorywire.validation import iter_errors

MESSAGE = FORMS["metagpt.message"]


def _captured() -> dict[str, list[Any]]:
    d = load("metagpt.message", "messages.json")["items"]
    memory = json.loads(load("metagpt.message", "memory.json")["items"])
    text = load("metagpt.message", "memory.json")["items"]
    out = {"dump": d["dump"], "model_dump": d["model_dump"], "mixed": d["model_dump"] + d["dump"],
           "memory_storage": memory["storage"], "memory_text": [text],
           "memory_text_among_messages": [d["dump"][0], text, d["model_dump"][1], text]}
    out.update({f"memory_index_{k.rsplit('.', 1)[-1]}": v for k, v in memory["index"].items()})
    return out


CAPTURED = list(_captured().items())


@pytest.mark.parametrize(("name", "items"), CAPTURED, ids=[n for n, _ in CAPTURED])
def test_captured_output_comes_back_exactly(name: str, items: list[Any]) -> None:
    records = assert_round_trip(MESSAGE, items)
    for r in records:
        assert not list(iter_errors(r))
    assert_round_trip(MESSAGE, items, run="team-run-1", project="snake")
    back = MESSAGE.from_records(records)
    # dump() text byte for byte; dicts with MetaGPT's member order.
    assert [x if type(x) is str else list(x) for x in back] == [x if type(x) is str else list(x) for x in items]


@pytest.mark.parametrize(("name", "items"), CAPTURED, ids=[n for n, _ in CAPTURED])
def test_captured_output_through_the_service(service: Any, name: str, items: list[Any]) -> None:
    assert_service_round_trip(service(), MESSAGE, items, project="snake")


def test_dump_text_and_dict_are_told_apart_by_type() -> None:
    d = _captured()
    text, dumped = d["dump"][2], d["model_dump"][2]
    a, b = MESSAGE.to_records([text, dumped])
    assert type(MESSAGE.from_records([a])[0]) is str and type(MESSAGE.from_records([b])[0]) is dict
    assert a["message"] == b["message"] and a["routing"] == b["routing"]
    assert a["native"]["record"]["$dump"] == text  # nested members not in code point order: text kept
    assert "$dump" not in b["native"]["record"]
    plain = MESSAGE.to_records([d["dump"][0]])[0]
    # Rebuilt exactly: nothing kept; a lone marker is written as a $map tag.
    assert plain["native"]["record"] == {"$map": {"$dump": True}}


def test_memory_text() -> None:
    """Memory.model_dump_json(): one record per stored message, the first
    counting them; its index repeats the messages and is rebuilt."""
    text = load("metagpt.message", "memory.json")["items"]
    records = assert_round_trip(MESSAGE, [text])
    memory = json.loads(text)
    assert [r["id"] for r in records] == [m["id"] for m in memory["storage"]]
    marker = records[0]["native"]["record"]["$memory"]
    assert marker["count"] == 5 and marker["ignore_id"] is False
    assert marker["text"] == text  # instruct_content members out of code point order: kept
    plain = dump_text({"storage": [memory["storage"][0]], "index": {memory["storage"][0]["cause_by"]:
                                                                   [memory["storage"][0]]}, "ignore_id": False})
    (record,) = assert_round_trip(MESSAGE, [plain])
    assert record["native"]["record"] == {"$memory": {"count": 1, "ignore_id": False}, "instruct_content": None}
    # A message changed since: the text is written again from the records.
    record = copy.deepcopy(records[1])
    record["message"]["content"] = [{"text": {"text": "PRD revised"}}]
    back = MESSAGE.from_records([records[0], record, *records[2:]])
    assert json.loads(back[0])["storage"][1]["content"] == "PRD revised"
    assert json.loads(back[0])["index"]["metagpt.actions.write_prd.WritePRD"][0]["content"] == "PRD revised"


def test_routing() -> None:
    d = _captured()["model_dump"]
    prd, design = MESSAGE.to_records([d[1], d[2]])
    assert prd["routing"] == {"cause": "metagpt.actions.write_prd.WritePRD",
                              "sender": "metagpt.roles.product_manager.ProductManager", "recipients": ["*"]}
    # A set: recipients in code point order, its dump order kept.
    assert design["routing"]["recipients"] == ["<self>", "Alex", "Eve"]
    assert design["native"]["record"]["send_to"] == ["Alex", "<self>", "Eve"]
    items = [dict(d[0], send_to=["*", "<all>"]), dict(d[0], send_to=[]), dict(d[0], send_to=["", "a"]),
             dict(d[0], send_to=["b", "a", "b"]), dict(d[0], sent_from=None), dict(d[0], cause_by=""),
             {k: v for k, v in d[0].items() if k not in ("send_to", "sent_from", "cause_by")},
             dict(d[0], send_to=[f"agent-{n}" for n in range(1001)])]
    records = assert_round_trip(MESSAGE, items)
    for r in records:
        assert not list(iter_errors(r))
    assert "recipients" not in records[7]["routing"]  # more than recipients hold: kept whole
    assert "recipients" not in records[0]["routing"]  # a literal "*" is not the broadcast
    assert "routing" not in records[6]


def test_recipients_changed_after_the_dump_win() -> None:
    design = _captured()["model_dump"][2]
    (record,) = MESSAGE.to_records([design])
    record["routing"]["recipients"] = ["Bob"]
    assert MESSAGE.from_records([record])[0]["send_to"] == ["Bob"]


def test_kept_text_is_used_only_while_it_matches() -> None:
    text = '{"id": "a1", "content": "hi", "role": "user", "cause_by": "x.Y", "sent_from": "", "send_to": ["<all>"]}'
    (record,) = assert_round_trip(MESSAGE, [text])
    assert record["native"]["record"] == {"$map": {"$dump": text}}
    record["message"]["content"][0]["text"]["text"] = "changed"
    back = MESSAGE.from_records([record])[0]
    assert back == dump_text({"id": "a1", "content": "changed", "role": "user", "cause_by": "x.Y",
                              "sent_from": "", "send_to": ["<all>"]})


def test_roles() -> None:
    base = _captured()["model_dump"][0]
    items = [dict(base, role=r) for r in ("user", "system", "assistant", "Alice(Product Manager)", "", "x" * 300)]
    records = assert_round_trip(MESSAGE, items)
    assert [r["message"]["role"] for r in records] == ["user", "system", "assistant"] + ["assistant"] * 3
    assert records[3]["message"]["name"] == "Alice(Product Manager)"
    assert "name" not in records[4]["message"] and "name" not in records[5]["message"]
    records[3]["message"]["role"] = "user"  # changed since: the neutral role wins over the kept one
    assert MESSAGE.from_records([records[3]])[0]["role"] == "user"


def test_ids_zero_repeats() -> None:
    zero = _captured()["model_dump"][3]
    assert zero["id"] == "0"
    records = assert_round_trip(MESSAGE, [zero, zero, dict(zero, id="")])
    assert records[0]["id"] == "0" and records[1]["id"].startswith("urn:uuid:")
    assert records[1]["native"]["record"]["id"] == "0" and records[2]["native"]["record"]["id"] == ""
    no_id = {k: v for k, v in zero.items() if k != "id"}
    (record,) = assert_round_trip(MESSAGE, [no_id])
    assert "id" not in record["native"]["record"]


def test_content_and_instruct_content() -> None:
    base = _captured()["model_dump"]
    records = assert_round_trip(MESSAGE, [base[3], dict(base[0], content="a\u0000\ud7ff\U0001f980"),
                                          dict(base[0], instruct_content={"n": 10**30, "f": -0.0}),
                                          dict(base[0], metadata={"k": 1})])
    assert "content" not in records[0]["message"]  # empty content: no part
    assert records[0]["native"]["record"]["instruct_content"]["module"] == "app.models"
    assert records[2]["native"]["record"]["instruct_content"]["n"] == {"$bigint": str(10**30)}


def test_records_of_another_producer() -> None:
    records = [
        {"specversion": "1.0", "id": "m1", "kind": "message",
         "message": {"role": "user", "content": [{"text": {"text": "Hi"}}, {"text": {"text": "there"}}]},
         "native": {"framework": "langchain", "format": "langchain.messages_to_dict", "record": {"type": "human"}}},
        {"specversion": "1.0", "id": "m2", "kind": "message", "message": {"role": "assistant"},
         "routing": {"sender": "Bob", "recipients": ["Eve", "*"], "cause": "app.Act"}},
    ]
    assert_exact(MESSAGE.from_records(records), [
        {"id": "m1", "content": "Hi\nthere", "instruct_content": None, "role": "user",
         "cause_by": "metagpt.actions.add_requirement.UserRequirement", "sent_from": "", "send_to": ["<all>"]},
        {"id": "m2", "content": "", "instruct_content": None, "role": "assistant", "cause_by": "app.Act",
         "sent_from": "Bob", "send_to": ["Eve", "<all>"]}], ordered=True)


def test_a_chat_completions_conversation_reads_as_metagpt_messages() -> None:
    """The text messages of another adapter's real output, as MetaGPT dicts."""
    name = "openai.chat_message"
    found = load(name, captured(name)[0])["items"]
    records = [r for r in FORMS[name].to_records(found, session="s")
               if r["kind"] == "message" and all("text" in p for p in r["message"].get("content", ()))]
    assert records
    items = MESSAGE.from_records(records)
    assert [m["role"] for m in items] == [r["message"]["role"] for r in records]
    assert [m["content"] for m in items] == ["\n".join(p["text"]["text"] for p in r["message"].get("content", ()))
                                             for r in records]
    assert all(m["send_to"] == ["<all>"] for m in items)
    assert_round_trip(MESSAGE, items)


@pytest.mark.parametrize(("items", "pointer", "reason"), [
    (["not json"], "/0", "TYPE_MISMATCH"),
    (["[1]"], "/0", "TYPE_MISMATCH"),
    ([7], "/0", "TYPE_MISMATCH"),
    ([{"content": "a", "role": "user"}, {"role": "user"}], "/1", "MISSING_MEMBER"),
    ([{"content": "a", "role": "user", "send_to": {"a"}}], "/0/send_to", "NOT_REPRESENTABLE"),
    ([{"content": "a", "role": "user", "$dump": True}], "/0", "UNSUPPORTED_ITEM"),
    (['{"storage": [], "index": {}, "ignore_id": false}'], "/0", "NOT_REPRESENTABLE"),
    (['{"storage": [{"content": "a", "role": "user"}], "ignore_id": false}'], "/0", "MISSING_MEMBER"),
    (['{"storage": [{"content": "a", "role": "user"}], "index": {}, "ignore_id": false, "x": 1}'], "/0",
     "UNSUPPORTED_ITEM"),
])
def test_errors_point_into_the_items(items: list[Any], pointer: str, reason: str) -> None:
    with pytest.raises(AdapterError) as e:
        MESSAGE.to_records(items)
    assert (e.value.violations[0].pointer, e.value.violations[0].reason) == (pointer, reason)


def test_records_it_cannot_read() -> None:
    image = {"id": "m", "kind": "message", "message": {"role": "user", "content": [
        {"text": {"text": "a"}}, {"image": {"uri": "https://example.com/a.png"}}]}}
    with pytest.raises(AdapterError) as e:
        MESSAGE.from_records([image])
    assert e.value.violations[0].pointer == "/0/message/content/1"
    with pytest.raises(AdapterError) as e:
        MESSAGE.from_records([image, {"id": "f", "kind": "fact", "fact": {"text": "t"}}][1:])
    assert e.value.violations[0].pointer == "/0/kind"


def test_the_comparison_can_fail() -> None:
    items = _captured()["dump"]
    records = MESSAGE.to_records(items)
    assert exact(MESSAGE.from_records(records), items) is None
    wrong = copy.deepcopy(records)
    wrong[2]["native"]["record"]["send_to"] = ["<self>", "Alex", "Eve"]  # another set order
    assert exact(MESSAGE.from_records(wrong), items) is not None
    wrong = copy.deepcopy(records)
    wrong[3]["native"]["record"]["instruct_content"]["value"]["score"] = 1  # 1 for 1.0
    assert exact(MESSAGE.from_records(wrong), items) is not None


_text = st.text(max_size=10)
_name = st.sampled_from(["<all>", "<self>", "<none>", "Alex", "Eve", "*", ""]) | _text
_json = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | _text,
                     lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_text, inner, max_size=3),
                     max_leaves=8)
_messages = st.fixed_dictionaries(
    {"id": _text, "content": _text, "instruct_content": st.none() | st.dictionaries(_text, _json, max_size=3),
     "role": st.sampled_from(["user", "assistant", "system", "Bob(Architect)"]) | _text,
     "cause_by": _text, "sent_from": _text, "send_to": st.lists(_name, max_size=4, unique=True)})


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(_messages, st.booleans()), max_size=4))
def test_any_message_dict_or_dump_comes_back(drawn: list[tuple[dict[str, Any], bool]]) -> None:
    items: list[Any] = []
    for message, as_text in drawn:
        if as_text:
            items.append(json.dumps({k: v for k, v in message.items() if v is not None}, ensure_ascii=False,
                                    separators=(",", ":")))
        else:
            items.append(message)
    assert_round_trip(MESSAGE, items, run="r")
