"""openai.responses_item and openai.chat_message against the real openai and
openai-agents packages: conversations built from the SDK's own objects and
converted by its own chat converter, through memorywire and back."""

from __future__ import annotations

import os
import sys
from typing import Any

from hypothesis import given

sys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))
sys.path.insert(0, os.path.dirname(__file__))

from agents.models.chatcmpl_converter import Converter  # noqa: E402
from harness import assert_round_trip  # noqa: E402
from openai_conversations import SETTINGS, conversations  # noqa: E402

from memorywire.adapters import FORMS  # noqa: E402


@SETTINGS
@given(conversations())
def test_runner_items_through_memorywire(conversation: tuple[list[Any], list[Any]]) -> None:
    items, objects = conversation
    assert_round_trip(FORMS["openai.responses_item"], items, ordered=True, session="s-1")
    back = FORMS["openai.responses_item"].from_records(FORMS["openai.responses_item"].to_records(items))
    for obj, item in zip(objects, back, strict=True):
        if obj is not None:
            # The SDK's own model, and its own equality.
            assert type(obj).model_validate(item) == obj


@SETTINGS
@given(conversations())
def test_chat_messages_through_memorywire(conversation: tuple[list[Any], list[Any]]) -> None:
    items, _ = conversation
    messages = Converter.items_to_messages(items, model="gpt-4o")
    assert_round_trip(FORMS["openai.chat_message"], messages, ordered=True, session="s-1")
