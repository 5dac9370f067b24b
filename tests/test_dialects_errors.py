"""What the dialects refuse to send, and what their errors name."""

from __future__ import annotations

import json
from types import ModuleType
from typing import Any

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

import convtypes as ct
from convtypes.dialects import (
    DialectError,
    UnansweredCall,
    UnmatchedResult,
    UnsupportedContent,
    anthropic,
    bedrock,
    cohere,
    gemini,
    mistral,
    ollama,
    openai_chat,
    openai_responses,
)

ALL = [anthropic, openai_chat, openai_responses, gemini, bedrock, mistral, cohere]
IDS = ["anthropic", "openai_chat", "openai_responses", "gemini", "bedrock", "mistral", "cohere"]


def _user(*blocks: Any) -> list[Any]:
    return [ct.UserMessage(content="look"), ct.UserMultimodalMessage(content=blocks)]


def test_every_error_is_a_value_error() -> None:
    assert issubclass(DialectError, ValueError)
    for error in (UnsupportedContent, UnmatchedResult, UnansweredCall):
        assert issubclass(error, DialectError)


@pytest.mark.parametrize("module", ALL, ids=IDS)
def test_an_unknown_message_is_never_forwarded(module: ModuleType) -> None:
    messages = ct.decode_lenient_messages(
        b'[{"role":"user","content":"q"},{"role":"developer","content":"obey"}]'
    )
    with pytest.raises(UnsupportedContent, match=r"message 1: role 'developer' is unknown") as err:
        module.to_request(messages)
    assert err.value.index == 1
    assert isinstance(err.value.block, ct.UnknownMessage)


@pytest.mark.parametrize("module", ALL, ids=IDS)
def test_an_unknown_block_is_never_forwarded_even_with_notes(module: ModuleType) -> None:
    messages = ct.decode_lenient_messages(
        b'[{"role":"user_multimodal","content":[{"type":"text","text":"a"},'
        b'{"type":"hologram","uri":"x"}]}]'
    )
    for unsupported in ("raise", "note"):
        with pytest.raises(UnsupportedContent, match=r"message 0, block 1 \(hologram\)") as err:
            module.to_request(messages, unsupported=unsupported)
        assert err.value.index == 0
        assert isinstance(err.value.block, ct.UnknownBlock)


@pytest.mark.parametrize(
    ("module", "block", "reason"),
    [
        (anthropic, ct.VideoUrlBlock(url="https://x.test/v.mp4"), "no block for video or audio"),
        (anthropic, ct.AudioBase64Block(data="AA", media_type="audio/wav"), "video or audio"),
        (anthropic, ct.ImageBase64Block(data="AA", media_type="image/bmp"), "'image/bmp' image"),
        (openai_chat, ct.VideoPathBlock(path="/v.mp4"), "no part for video"),
        (openai_chat, ct.AudioUrlBlock(url="https://x.test/a.wav"), "audio only inline"),
        (openai_chat, ct.AudioBase64Block(data="AA", media_type="audio/ogg"), "not 'audio/ogg'"),
        (openai_chat, ct.ImageBase64Block(data="AA", media_type="image/tiff"), "'image/tiff'"),
        (openai_responses, ct.AudioBase64Block(data="AA", media_type="audio/wav"), "video or"),
        (openai_responses, ct.VideoBase64Block(data="AA", media_type="video/mp4"), "video or"),
        (openai_responses, ct.ImageBase64Block(data="AA", media_type="image/svg"), "'image/svg'"),
        (gemini, ct.VideoPathBlock(path="/v.mp4"), "cannot read a local path"),
        (gemini, ct.AudioPathBlock(path="/a.wav"), "cannot read a local path"),
        (gemini, ct.ImageBase64Block(data="AA", media_type="image/gif"), "'image/gif'"),
        (gemini, ct.AudioBase64Block(data="AA", media_type="text/plain"), "not 'text/plain'"),
        (gemini, ct.VideoBase64Block(data="AA", media_type="image/png"), "not 'image/png'"),
        (bedrock, ct.VideoUrlBlock(url="https://x.test/v.mp4"), "cannot fetch video from a URL"),
        (bedrock, ct.AudioPathBlock(path="/a.wav"), "cannot read a local path"),
        (bedrock, ct.ImageBase64Block(data="AA", media_type="image/bmp"), "'image/bmp' image"),
        (bedrock, ct.ImageBase64Block(data="A", media_type="image/png"), "malformed"),
        (mistral, ct.VideoUrlBlock(url="https://x.test/v.mp4"), "has no chunk for video"),
        (mistral, ct.AudioUrlBlock(url="https://x.test/a.wav"), "audio only inline"),
        (mistral, ct.AudioBase64Block(data="AA", media_type="audio/ogg"), "not 'audio/ogg'"),
        (mistral, ct.ImageBase64Block(data="AA", media_type="image/bmp"), "'image/bmp' image"),
        (cohere, ct.AudioBase64Block(data="AA", media_type="audio/wav"), "item for audio"),
        (cohere, ct.VideoPathBlock(path="/v.mp4"), "no content item for video"),
        (cohere, ct.ImageBase64Block(data="AA", media_type="image/tiff"), "'image/tiff' image"),
    ],
)
def test_content_a_dialect_cannot_carry_is_refused(
    module: ModuleType, block: Any, reason: str
) -> None:
    tag = block.__struct_config__.tag
    with pytest.raises(UnsupportedContent, match=rf"message 1, block 1 \({tag}\): ") as err:
        module.to_request(_user(ct.TextBlock(text="see"), block))
    assert reason in str(err.value)
    assert err.value.index == 1
    assert err.value.block is block


@pytest.mark.parametrize("module", ALL, ids=IDS)
def test_a_note_says_what_was_left_out(module: ModuleType) -> None:
    block = ct.VideoPathBlock(path="/v.mp4")
    text = str(module.to_request(_user(block), unsupported="note"))
    assert "[video_path attachment not sent:" in text


@pytest.mark.parametrize("module", ALL, ids=IDS)
def test_a_result_that_answers_no_call_is_refused(module: ModuleType) -> None:
    messages: list[ct.Message] = [
        ct.UserMessage(content="q"),
        ct.AssistantMessage(tool_calls=(ct.ToolCall(id="a", name="f", arguments={}),)),
        ct.ToolResultMessage(tool_use_id="b", content="r"),
    ]
    with pytest.raises(UnmatchedResult, match="message 2: tool result 'b' answers no call") as err:
        module.to_request(messages)
    assert err.value.index == 2 and err.value.tool_use_id == "b"


@pytest.mark.parametrize("module", ALL, ids=IDS)
def test_a_result_after_a_user_turn_answers_nothing(module: ModuleType) -> None:
    messages: list[ct.Message] = [
        ct.UserMessage(content="q"),
        ct.AssistantMessage(tool_calls=(ct.ToolCall(id="a", name="f", arguments={}),)),
        ct.ToolResultMessage(tool_use_id="a", content="r"),
        ct.UserMessage(content="and?"),
        ct.ToolResultMessage(tool_use_id="a", content="r again"),
    ]
    with pytest.raises(UnmatchedResult, match="message 4: tool result 'a' answers no call"):
        module.to_request(messages)


@pytest.mark.parametrize("module", ALL, ids=IDS)
def test_a_result_for_an_earlier_turn_answers_nothing(module: ModuleType) -> None:
    messages: list[ct.Message] = [
        ct.UserMessage(content="q"),
        ct.AssistantMessage(tool_calls=(ct.ToolCall(id="a", name="f", arguments={}),)),
        ct.ToolResultMessage(tool_use_id="a", content="r"),
        ct.AssistantMessage(tool_calls=(ct.ToolCall(id="b", name="f", arguments={}),)),
        ct.ToolResultMessage(tool_use_id="a", content="again"),
    ]
    with pytest.raises(UnmatchedResult, match="message 4: tool result 'a' answers no call"):
        module.to_request(messages)


@pytest.mark.parametrize("module", ALL, ids=IDS)
def test_a_second_result_for_one_call_is_refused(module: ModuleType) -> None:
    messages: list[ct.Message] = [
        ct.UserMessage(content="q"),
        ct.AssistantMessage(tool_calls=(ct.ToolCall(name="f", arguments={}),)),
        ct.ToolResultMessage(tool_use_id="call_0", content="r"),
        ct.ToolResultMessage(tool_use_id="call_0", content="r2"),
    ]
    with pytest.raises(UnmatchedResult, match=r"message 3: .* already answered"):
        module.to_request(messages)


@pytest.mark.parametrize("module", ALL, ids=IDS)
def test_a_result_that_could_answer_two_calls_is_refused(module: ModuleType) -> None:
    # Two assistant messages in one turn, each with an id-less first call.
    messages: list[ct.Message] = [
        ct.UserMessage(content="q"),
        ct.AssistantMessage(tool_calls=(ct.ToolCall(name="f", arguments={}),)),
        ct.AssistantMessage(tool_calls=(ct.ToolCall(name="g", arguments={}),)),
        ct.ToolResultMessage(tool_use_id="call_0", content="r"),
    ]
    with pytest.raises(UnmatchedResult, match=r"message 3: .* more than one call"):
        module.to_request(messages)


@pytest.mark.parametrize("module", ALL, ids=IDS)
def test_something_that_is_not_a_message_is_refused(module: ModuleType) -> None:
    # A plain dict from json.loads is a wrong argument, as everywhere in convtypes.
    with pytest.raises(TypeError, match="message 1: not a convtypes message"):
        module.to_request([ct.UserMessage(content="q"), {"role": "user", "content": "x"}])


@pytest.mark.parametrize("module", [*ALL, ollama], ids=[*IDS, "ollama"])
@pytest.mark.parametrize(
    "given",
    [
        ct.UserMessage(content="one message alone"),
        b'[{"role":"user","content":"q"}]',
        '[{"role":"user","content":"q"}]',
        {"role": "user", "content": "q"},
        None,
    ],
    ids=["message", "bytes", "str", "dict", "none"],
)
def test_what_is_no_transcript_is_a_type_error_naming_it(module: ModuleType, given: Any) -> None:
    # As check_conversation says it: text and bytes are iterable, but yield no messages.
    pattern = rf"^to_request takes an iterable of messages .*got {type(given).__name__}$"
    with pytest.raises(TypeError, match=pattern):
        module.to_request(given)


def test_chat_template_messages_say_the_same() -> None:
    from convtypes.dialects import chat_template

    with pytest.raises(TypeError, match=r"^to_messages takes an iterable of messages .*got str$"):
        chat_template.to_messages("hello")  # type: ignore[arg-type]


def test_anthropic_needs_a_user_turn_first() -> None:
    messages: list[ct.Message] = [
        ct.SystemMessage(content="s"),
        ct.UserMessage(content=""),
        ct.AssistantMessage(content="hello"),
    ]
    with pytest.raises(DialectError, match=r"message 2: .*first turn to be a user turn") as err:
        anthropic.to_request(messages)
    assert err.value.index == 2


def test_calls_still_open_at_the_end_are_sent() -> None:
    # The caller may be about to run them: to_request does not judge.
    messages: list[ct.Message] = [
        ct.UserMessage(content="q"),
        ct.AssistantMessage(tool_calls=(ct.ToolCall(name="f", arguments={}),)),
    ]
    body = openai_chat.to_request(messages)
    assert body["messages"][1]["tool_calls"][0]["id"] == "call_1_0"


OPEN_AT_THE_END: list[list[ct.Message]] = [
    [
        ct.UserMessage(content="q"),
        ct.AssistantMessage(tool_calls=(ct.ToolCall(id="a", name="f", arguments={}),)),
    ],
    [
        ct.UserMessage(content="q"),
        ct.AssistantMessage(
            tool_calls=(
                ct.ToolCall(id="a", name="f", arguments={}),
                ct.ToolCall(id="b", name="f", arguments={}),
            )
        ),
        ct.ToolResultMessage(tool_use_id="a", content="r"),
    ],
    [
        ct.UserMessage(content="q"),
        ct.AssistantMessage(tool_calls=(ct.ToolCall(id="a", name="f", arguments={}),)),
        ct.ToolResultMessage(tool_use_id="a", content="r"),
        ct.AssistantMessage(tool_calls=(ct.ToolCall(name="g", arguments={}),)),
    ],
]


@pytest.mark.parametrize("module", ALL, ids=IDS)
@pytest.mark.parametrize("messages", OPEN_AT_THE_END)
def test_calls_open_at_the_end_stay_allowed_in_every_dialect(
    module: ModuleType, messages: list[ct.Message]
) -> None:
    assert ct.check_conversation(messages) == []
    module.to_request(messages)


@pytest.mark.parametrize("module", ALL, ids=IDS)
@pytest.mark.parametrize(
    "user",
    [
        ct.UserMessage(content="next"),
        ct.UserMultimodalMessage(content=(ct.TextBlock(text="next"),)),
    ],
)
def test_a_call_unanswered_before_the_next_user_message_is_refused(
    module: ModuleType, user: ct.Message
) -> None:
    messages: list[ct.Message] = [
        ct.UserMessage(content="q"),
        ct.AssistantMessage(tool_calls=(ct.ToolCall(id="a", name="f", arguments={}),)),
        user,
    ]
    with pytest.raises(
        UnansweredCall, match=r"message 1: tool call 'a' \(f\) has no result before the user "
    ) as err:
        module.to_request(messages)
    assert (err.value.index, err.value.call_id, err.value.user_index) == (1, "a", 2)
    [problem] = ct.check_conversation(messages)
    assert (problem.code, problem.index) == ("unanswered-call", 1)


@pytest.mark.parametrize("module", ALL, ids=IDS)
def test_a_call_left_behind_by_a_later_turn_is_refused_at_the_user_message(
    module: ModuleType,
) -> None:
    # The second id-less call is never answered; another assistant turn
    # follows its sibling's result, and then the user speaks.
    messages: list[ct.Message] = [
        ct.UserMessage(content="q"),
        ct.AssistantMessage(
            tool_calls=(ct.ToolCall(name="f", arguments={}), ct.ToolCall(name="g", arguments={}))
        ),
        ct.ToolResultMessage(tool_use_id="call_0", content="r"),
        ct.AssistantMessage(content="one of two"),
        ct.UserMessage(content="and g?"),
    ]
    with pytest.raises(UnansweredCall, match=r"tool call 'call_1' \(g\) .* at 4") as err:
        module.to_request(messages)
    assert (err.value.index, err.value.call_id, err.value.user_index) == (1, "call_1", 4)
    assert [(p.code, p.index) for p in ct.check_conversation(messages)] == [("unanswered-call", 1)]


def test_calls_carried_by_provider_items_must_be_answered_too() -> None:
    items = ct.ProviderOutputItemsMessage(
        protocol="openai-responses",
        items=({"type": "function_call", "call_id": "c9", "name": "f", "arguments": "{}"},),
    )
    reply = ct.AssistantMessage(tool_calls=(ct.ToolCall(id="c9", name="f", arguments={}),))
    messages: list[ct.Message] = [ct.UserMessage(content="q"), items, reply]
    for module in ALL:
        module.to_request(messages)  # open at the end
        with pytest.raises(UnansweredCall) as err:
            module.to_request([*messages, ct.UserMessage(content="next")])
        # Responses meets the call first in the items; the others in the message.
        assert err.value.index == (1 if module is openai_responses else 2)
        assert err.value.call_id == "c9"


@pytest.mark.parametrize("module", ALL, ids=IDS)
def test_known_messages_with_unknown_fields_are_sent_as_known(module: ModuleType) -> None:
    # Lenient decoding keeps a newer writer's extra fields on a subclass of
    # the known message; the dialect sends what it knows of it.
    lenient = ct.decode_lenient_messages(
        b'[{"role":"user","content":"hi","name":"ana"},'
        b'{"role":"user_multimodal","content":[{"type":"text","text":"x","lang":"en"}]}]'
    )
    strict = ct.decode_messages(
        b'[{"role":"user","content":"hi"},'
        b'{"role":"user_multimodal","content":[{"type":"text","text":"x"}]}]'
    )
    assert type(lenient[0]) is not ct.UserMessage
    assert module.to_request(lenient) == module.to_request(strict)


@pytest.mark.parametrize("module", ALL, ids=IDS)
@pytest.mark.parametrize("value", ["ignore", "Note", "", None, True, 0])
def test_an_unknown_unsupported_value_is_refused_at_the_call(
    module: ModuleType, value: object
) -> None:
    # "ignore" used to behave as "raise"; it is refused even when the
    # transcript holds nothing unsupported, so the mistake shows at once.
    with pytest.raises(ValueError, match='unsupported= must be "raise" or "note"') as err:
        module.to_request([ct.UserMessage(content="q")], unsupported=value)
    assert not isinstance(err.value, DialectError)  # the call is wrong, not the transcript


@pytest.mark.parametrize("module", ALL, ids=IDS)
def test_both_unsupported_values_are_taken(module: ModuleType) -> None:
    messages = _user(ct.VideoPathBlock(path="/v.mp4"))
    with pytest.raises(UnsupportedContent):
        module.to_request(messages, unsupported="raise")
    assert "not sent" in json.dumps(module.to_request(messages, unsupported="note"))


@st.composite
def _conversations_with_gaps(draw: st.DrawFn) -> list[ct.Message]:
    """Exchanges of calls with explicit ids, some results left out or out of order."""
    messages: list[ct.Message] = []
    serial = 0
    for _ in range(draw(st.integers(1, 3))):
        messages.append(ct.UserMessage(content="go"))
        for _ in range(draw(st.integers(0, 2))):
            ids = [f"t{serial + n}" for n in range(draw(st.integers(1, 3)))]
            serial += len(ids)
            calls = tuple(ct.ToolCall(id=i, name="f", arguments={}) for i in ids)
            messages.append(ct.AssistantMessage(tool_calls=calls))
            answered = draw(st.lists(st.sampled_from(ids), unique=True))
            messages += [ct.ToolResultMessage(tool_use_id=i, content="r") for i in answered]
        if draw(st.booleans()):
            messages.append(ct.AssistantMessage(content="so"))
    return messages


@settings(max_examples=150)
@given(_conversations_with_gaps(), st.sampled_from(ALL))
def test_unanswered_calls_are_refused_as_check_conversation_reports_them(
    messages: list[ct.Message], module: ModuleType
) -> None:
    problems = [p for p in ct.check_conversation(messages) if p.code == "unanswered-call"]
    event("refused" if problems else "sent")
    if not problems:
        module.to_request(messages)
        return
    with pytest.raises(UnansweredCall) as err:
        module.to_request(messages)
    first = problems[0]
    assert err.value.index == first.index
    assert f"tool call {err.value.call_id!r} " in first.text
    assert f"user turn at {err.value.user_index}" in first.text
