"""Prefill: a prompt that ends inside the last message, for the model to continue it.

transformers' ``apply_chat_template(continue_final_message=True)`` renders
the conversation with a tag appended to the last message's text, then cuts
the prompt where the tag is: whatever the template writes after the message
(its end-of-turn token, a new header) is gone, and the model goes on with
the message. This does the same, step for step, so the prompts are equal:
the field continued (``"content"``, or the reasoning under any of its
names), the last text part of a list of parts, and the care for a template
that strips the message's trailing space.
"""

from __future__ import annotations

from typing import Any, Final

from ._errors import DialectError
from ._template_errors import TemplateError

TAG: Final = "CONTINUE_FINAL_MESSAGE_TAG "
"""What transformers appends to the text to continue, to find it in the prompt."""

REASONING_FIELDS: Final = ("reasoning_content", "thinking", "reasoning")
"""The names a message's reasoning goes under; continuing one continues all that hold it."""


def mark(messages: list[dict[str, Any]], field: str, template: str) -> str:
    """Append :data:`TAG` to the text to continue, in place of the last message; its text."""
    last = dict(messages[-1])
    final = last.get(field)
    if final is None:
        raise DialectError(
            f"continue_final_message: the final message has no {field!r} to continue"
        )
    fields = [field]
    if field in REASONING_FIELDS:
        fields = [name for name in REASONING_FIELDS if last.get(name) == final]
    if not any(name in template for name in fields):
        raise TemplateError(
            f"continue_final_message: the chat template never reads {field!r}, "
            "so the final message cannot be continued"
        )
    if isinstance(final, (list, tuple)):
        parts = list(final)
        for position in reversed(range(len(parts))):
            part = parts[position]
            if isinstance(part, dict) and "text" in part:
                text = part["text"]
                parts[position] = {**part, "text": text + TAG}
                last[field] = parts
                break
        else:
            raise DialectError("continue_final_message: the final message has no text to continue")
    else:
        text = final
        for name in fields:
            last[name] = last[name] + TAG
    messages[-1] = last
    return str(text)


def cut(prompt: str, text: str) -> str:
    """The prompt up to where the continued text ends."""
    if text.strip() not in prompt or TAG.strip() not in prompt:
        raise TemplateError(
            "continue_final_message: the final message does not appear in the prompt the "
            "template renders (the template drops or changes it)"
        )
    at = prompt.rindex(TAG.strip())
    if prompt[at : at + len(TAG)] == TAG:
        return prompt[:at]
    return prompt[:at].rstrip()  # the template stripped the message's trailing space
