"""Check ``render(..., control_tokens=...)`` on a directory of real chat templates.

    python dev/check_control_tokens.py PATH/TO/chat_templates

A developer's tool, never run by the tests (they carry their own
templates). For every ``*.jinja`` file it gathers the control tokens the
template writes (``<|im_end|>``, DeepSeek's ``<|User|>`` with full-width bars,
``[INST]``, ``<start_of_turn>``,
``<tool_call>``...: what its text holds in those shapes), builds a
tokenizer in memory whose special tokens they are (the ``tokenizers``
package, no download), renders a conversation whose external tool result
holds every one of them, and tokenizes the prompt with special tokens
parsed. It prints, per template, how many control tokens the tokenizer
finds inside the external text without ``control_tokens`` and with them
(which must be none), and exits 1 if any is found with them. A template
that refuses the conversation is reported and skipped.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

from tokenizers import Tokenizer, models

import convtypes as ct
from convtypes.dialects import ToolSpec
from convtypes.dialects.chat_template import TemplateError, render, to_messages

_SHAPES = (
    r"<\|[^|<>\s]{1,40}\|>",  # <|im_end|>
    "<\uff5c[^\uff5c<>]{1,40}\uff5c>",  # DeepSeek's, with full-width bars
    r"\[/?[A-Z_]{2,30}\]",  # [INST]
    r"<\|[a-z_]{2,30}>|<[a-z_]{2,30}\|>",  # Gemma 4's <|turn> and <turn|>
    r"</?[a-z_]{2,30}>",  # <start_of_turn>, <tool_call>, </think>
)
_TOKEN = re.compile("|".join(_SHAPES))
VARIABLES: dict[str, Any] = {"bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>"}


def tokens_of(template: str) -> list[str]:
    found = set(_TOKEN.findall(template)) | set(VARIABLES.values())
    return sorted(found)


def conversation(payload: str, with_system: bool) -> list[ct.Message]:
    system: list[ct.Message] = [ct.SystemMessage(content="Use the tools.")] if with_system else []
    return [
        *system,
        ct.UserMessage(content="Read the page."),
        ct.AssistantMessage(
            content="", tool_calls=(ct.ToolCall(id="call00001", name="fetch", arguments={}),)
        ),
        ct.ToolResultMessage(
            tool_use_id="call00001", content=payload, provenance=ct.Provenance.EXTERNAL
        ),
    ]


def found_inside(core: Tokenizer, prompt: str, spans: list[tuple[int, int]]) -> int:
    encoding = core.encode(prompt)
    return sum(
        1
        for token, (start, _) in zip(encoding.tokens, encoding.offsets, strict=True)
        if token != "<unk>" and any(a <= start < b for a, b in spans)
    )


def spans_of(prompt: str, chat: list[dict[str, Any]]) -> list[tuple[int, int]]:
    spans = []
    for message in chat:
        if message["role"] == "tool":
            # As written, or JSON-escaped (Llama's and gpt-oss's templates write it with tojson).
            for form in (message["content"], json.dumps(message["content"], ensure_ascii=False)):
                at = prompt.find(form)
                if at != -1:
                    spans.append((at, at + len(form)))
                    break
    return spans


def check(template: str) -> tuple[int, int, int] | str:
    tokens = tokens_of(template)
    core = Tokenizer(models.WordLevel({"<unk>": 0}, unk_token="<unk>"))
    core.add_special_tokens(tokens)
    payload = "".join(tokens) + " then " + " ".join(tokens)
    tools = [ToolSpec(name="fetch", description="Fetch a page.", parameters={"type": "object"})]
    for with_system in (True, False):
        messages = conversation(payload, with_system)
        try:
            plain = render(messages, template, tools=tools, ids="alnum9", **VARIABLES)
            guarded = render(
                messages, template, tools=tools, ids="alnum9", control_tokens=tokens, **VARIABLES
            )
        except TemplateError as err:
            refusal = str(err)
            continue
        before = found_inside(core, plain, spans_of(plain, to_messages(messages, ids="alnum9")))
        chat = to_messages(messages, ids="alnum9", control_tokens=tokens)
        spans = spans_of(guarded, chat)
        if not spans:
            return "the template does not show the tool result"
        return len(tokens), before, found_inside(core, guarded, spans)
    return f"refused: {refusal:.80}"


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    files = sorted(Path(sys.argv[1]).glob("*.jinja"))
    print("| template | control tokens | found in external text | with control_tokens |")
    print("| --- | ---: | ---: | ---: |")
    failed = 0
    for path in files:
        result = check(path.read_text("utf-8"))
        if isinstance(result, str):
            print(f"| {path.name} | {result} | | |")
            continue
        count, before, after = result
        failed += after != 0
        print(f"| {path.name} | {count} | {before} | {after} |")
    print(f"\n{len(files)} templates, {failed} with a control token left in external text")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
