"""What ``convtypes.dialects.chat_template`` costs: prompts and generations of a local model.

    python benchmarks/templates.py                  # 21 rounds
    python benchmarks/templates.py --quick          # 3 rounds
    python benchmarks/templates.py --template PATH  # time a template of your own as well
    python benchmarks/templates.py --baseline REV   # the readers of commit REV beside today's

Two tables, each run side by side in one process, the two sides taking
turns within each round; a ratio is the median of the per-round ratios,
with their range.

- **Prompt**: ``render`` of a 100-turn transcript (a user asks, the
  assistant thinks and calls a tool, an external result comes back, the
  assistant answers) against transformers' ``apply_chat_template(
  to_messages(transcript), tokenize=False)`` on the same template, through a
  tokenizer built in memory. Both start from convtypes messages and give
  the same prompt (checked). The built-in template is a ChatML one written
  for this benchmark, in the manner of Qwen's.
- **Generation**: ``parse_output`` of a 10 KB generation (reasoning, an
  answer, six tool calls in ``<tool_call>`` blocks) against the reader a
  backend writes by hand (two regular expressions and ``json.loads``), which
  gives the same message (checked); and ``OutputStream`` fed the same text
  in chunks of four characters, about a token each. With ``--baseline``,
  both readers of that commit too (``_baseline.py`` imports it beside
  today's), on the hermes, llama3 and mistral generations.
- **Styles**: ``OutputStream`` of the same reply written in each built-in
  style (each gives the same calls, checked), in chunks of four
  characters, per MB of generated text, against the hermes one.

Needs jinja2 and transformers (the ``test`` extra). Prints markdown.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import statistics
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import convtypes as ct
from convtypes.dialects import ToolSpec
from convtypes.dialects.chat_template import (
    STYLES,
    OutputStream,
    TemplateError,
    parse_output,
    render,
    to_messages,
)

TEMPLATE = r"""
{%- if tools %}
    {{- '<|im_start|>system\n' }}
    {%- if messages[0].role == 'system' %}{{- messages[0].content + '\n\n' }}{%- endif %}
    {{- '# Tools\n<tools>' }}
    {%- for tool in tools %}{{- '\n' + tool | tojson }}{%- endfor %}
    {{- '\n</tools><|im_end|>\n' }}
{%- elif messages[0].role == 'system' %}
    {{- '<|im_start|>system\n' + messages[0].content + '<|im_end|>\n' }}
{%- endif %}
{%- set ns = namespace(last_user=-1) %}
{%- for m in messages %}
    {%- if m.role == 'user' %}{% set ns.last_user = loop.index0 %}{% endif %}
{%- endfor %}
{%- for m in messages %}
    {%- if m.role == 'user' or (m.role == 'system' and not loop.first) %}
        {{- '<|im_start|>' + m.role + '\n' + m.content + '<|im_end|>\n' }}
    {%- elif m.role == 'assistant' %}
        {{- '<|im_start|>assistant\n' }}
        {%- if m.reasoning_content is defined and loop.index0 > ns.last_user %}
            {{- '<think>\n' + m.reasoning_content + '\n</think>\n\n' }}
        {%- endif %}
        {{- m.content }}
        {%- for call in m.tool_calls or [] %}
            {{- '\n<tool_call>\n{"name": "' + call.function.name + '", "arguments": ' }}
            {{- call.function.arguments | tojson + '}\n</tool_call>' }}
        {%- endfor %}
        {{- '<|im_end|>\n' }}
    {%- elif m.role == 'tool' %}
        {%- if loop.first or messages[loop.index0 - 1].role != 'tool' %}
            {{- '<|im_start|>user' }}
        {%- endif %}
        {{- '\n<tool_response>\n' + m.content + '\n</tool_response>' }}
        {%- if loop.last or messages[loop.index0 + 1].role != 'tool' %}
            {{- '<|im_end|>\n' }}
        {%- endif %}
    {%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}{{- '<|im_start|>assistant\n' }}{% endif %}
"""

SPECIAL: dict[str, Any] = {"bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>"}
TOOLS = [
    ToolSpec(
        name="search",
        description="Search the documents.",
        parameters={
            "type": "object",
            "properties": {"query": {"type": "string"}, "options": {"type": "object"}},
            "required": ["query"],
        },
    )
]


def transcript(turns: int = 100) -> list[ct.Message]:
    """A seeded agent session of ``turns`` messages after the system prompt."""
    messages: list[ct.Message] = [ct.SystemMessage(content="You are a careful agent.")]
    serial = 0
    while len(messages) <= turns:
        serial += 1
        messages.append(ct.UserMessage(content=f"Step {serial}: look up item {serial}."))
        call = ct.ToolCall(
            id=f"call_{serial:05d}",
            name="search",
            arguments={"query": f"item {serial}", "options": {"limit": 5, "page": serial}},
        )
        thinking = (ct.ThinkingBlock(text=f"I should search for item {serial} first."),)
        messages.append(
            ct.AssistantMessage(content="Searching.", tool_calls=(call,), thinking=thinking)
        )
        messages.append(
            ct.ToolResultMessage(
                tool_use_id=call.id or "",
                content=f"Result {serial}: " + "lorem ipsum " * 20,
                provenance=ct.Provenance.EXTERNAL,
            )
        )
        messages.append(ct.AssistantMessage(content=f"Item {serial} is fine."))
    return messages[: turns + 1]


def generation() -> str:
    """A hermes-style generation of about 10 KB."""
    reasoning = " ".join(f"Step {n}: weigh option {n} against the others." for n in range(70))
    answer = " ".join(f"Paragraph {n} of the answer, with some detail." for n in range(105))
    calls = "".join(
        '\n<tool_call>\n{"name": "search", "arguments": '
        + json.dumps(
            {"query": f"topic {n} " * 20, "options": {"limit": 10**20 + n, "tags": ["a"] * 8}}
        )
        + "}\n</tool_call>"
        for n in range(6)
    )
    return f"<think>\n{reasoning}\n</think>\n\n{answer}{calls}"


REASONING = " ".join(f"Step {n}: weigh option {n} against the others." for n in range(70))
ANSWER = " ".join(f"Paragraph {n} of the answer, with some detail." for n in range(105))
ARGUMENTS = [
    {"query": f"topic {n} " * 20, "options": {"limit": 10**20 + n, "tags": ["a"] * 8}}
    for n in range(6)
]
SEARCH = ToolSpec(
    name="search",
    parameters={
        "type": "object",
        "properties": {"query": {"type": "string"}, "options": {"type": "object"}},
    },
)


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _python(value: Any) -> str:
    return repr(value)


def _deepseek(token: str) -> str:
    return "<\uff5c" + token.replace(" ", "\u2581") + "\uff5c>"


def written(style: str) -> str | None:
    """The reply of :func:`generation` (reasoning, answer, six calls) as ``style`` writes it.

    ``None`` for a style this has no writer for yet.
    """
    think = f"<think>\n{REASONING}\n</think>\n\n"
    if style == "hermes":
        return generation()
    if style == "llama3":
        calls = "; ".join(_json({"name": "search", "parameters": a}) for a in ARGUMENTS)
        return f"{think}{ANSWER}<|python_tag|>{calls}<|eom_id|>"
    if style == "mistral":
        calls = "".join(f"[TOOL_CALLS]search[ARGS]{_json(a)}" for a in ARGUMENTS)
        return f"[THINK]{REASONING}[/THINK]{ANSWER}{calls}</s>"
    if style == "harmony":
        calls = "".join(
            "<|start|>assistant<|channel|>commentary to=functions.search <|constrain|>json"
            f"<|message|>{_json(a)}<|call|>"
            for a in ARGUMENTS
        )
        return (
            f"<|channel|>analysis<|message|>{REASONING}<|end|><|start|>assistant<|channel|>"
            f"commentary<|message|>{ANSWER}<|end|>{calls}"
        )
    if style == "qwen3_coder":
        calls = "".join(
            "\n<tool_call>\n<function=search>\n"
            + "".join(
                f"<parameter={k}>\n{v if isinstance(v, str) else _json(v)}\n</parameter>\n"
                for k, v in a.items()
            )
            + "</function>\n</tool_call>"
            for a in ARGUMENTS
        )
        return f"{think}{ANSWER}{calls}<|im_end|>"
    if style == "glm45":
        calls = "".join(
            "\n<tool_call>search\n"
            + "".join(
                f"<arg_key>{k}</arg_key>\n<arg_value>{v if isinstance(v, str) else _json(v)}"
                "</arg_value>\n"
                for k, v in a.items()
            )
            + "</tool_call>"
            for a in ARGUMENTS
        )
        return f"{think}{ANSWER}{calls}<|observation|>"
    if style == "pythonic":
        calls = ", ".join(
            "search(" + ", ".join(f"{k}={_python(v)}" for k, v in a.items()) + ")"
            for a in ARGUMENTS
        )
        return f"{think}{ANSWER}<|tool_call_start|>[{calls}]<|tool_call_end|><|im_end|>"
    if style == "deepseek":
        calls = "".join(
            _deepseek("tool call begin")
            + "search"
            + _deepseek("tool sep")
            + _json(a)
            + _deepseek("tool call end")
            for a in ARGUMENTS
        )
        return (
            f"{think}{ANSWER}{_deepseek('tool calls begin')}{calls}{_deepseek('tool calls end')}"
            + _deepseek("end of sentence")
        )
    if style == "kimi_k2":
        calls = "".join(
            f"<|tool_call_begin|>functions.search:{n}<|tool_call_argument_begin|>{_json(a)}"
            "<|tool_call_end|>"
            for n, a in enumerate(ARGUMENTS)
        )
        section = f"<|tool_calls_section_begin|>{calls}<|tool_calls_section_end|>"
        return f"{think}{ANSWER}{section}<|im_end|>"
    if style == "granite":
        calls = _json([{"name": "search", "arguments": a} for a in ARGUMENTS])
        return f"{think}<response>{ANSWER}</response><|tool_call|>{calls}<|end_of_text|>"
    if style == "nemotron":
        calls = _json([{"name": "search", "arguments": a} for a in ARGUMENTS])
        return f"{think}{ANSWER}\n\n<TOOLCALL>{calls}</TOOLCALL>\n<SPECIAL_12>\n"
    if style == "minimax":
        calls = "".join(
            '<invoke name="search">\n'
            + "".join(
                f'<parameter name="{k}">{v if isinstance(v, str) else _json(v)}</parameter>\n'
                for k, v in a.items()
            )
            + "</invoke>\n"
            for a in ARGUMENTS
        )
        return f"{think}{ANSWER}\n<minimax:tool_call>\n{calls}</minimax:tool_call>[e~["
    if style == "command_r":
        calls = ",\n    ".join(
            _json({"tool_call_id": str(n), "tool_name": "search", "parameters": a})
            for n, a in enumerate(ARGUMENTS)
        )
        return (
            f"<|START_THINKING|>{REASONING}<|END_THINKING|><|START_RESPONSE|>{ANSWER}"
            f"<|END_RESPONSE|><|START_ACTION|>[\n    {calls}\n]<|END_ACTION|><|END_OF_TURN_TOKEN|>"
        )
    if style == "phi4_mini":
        calls = ", ".join(_json({"name": "search", "arguments": a}) for a in ARGUMENTS)
        return f"{think}{ANSWER}functools[{calls}]<|end|>"
    if style == "deepseek_dsml":
        dsml = "\uff5cDSML\uff5c"
        calls = "".join(
            f'<{dsml}invoke name="search">\n'
            + "".join(
                f'<{dsml}parameter name="{k}" string="true">{v}</{dsml}parameter>\n'
                if isinstance(v, str)
                else f'<{dsml}parameter name="{k}" string="false">{_json(v)}</{dsml}parameter>\n'
                for k, v in a.items()
            )
            + f"</{dsml}invoke>\n"
            for a in ARGUMENTS
        )
        block = f"\n\n<{dsml}tool_calls>\n{calls}</{dsml}tool_calls>"
        return f"{think}{ANSWER}{block}" + _deepseek("end of sentence")
    if style == "gemma4":
        calls = "".join(
            "<|tool_call>call:search{"
            + ",".join(f"{k}:{_gemma(v)}" for k, v in sorted(a.items()))
            + "}<tool_call|>"
            for a in ARGUMENTS
        )
        return f"<|channel>thought\n{REASONING}<channel|>{ANSWER}{calls}<|tool_response>"
    if style == "step3":
        calls = "".join(
            "<\uff5ctool_call_begin\uff5c>function<\uff5ctool_sep\uff5c>"
            '<steptml:invoke name="search">'
            + "".join(
                f'<steptml:parameter name="{k}">{v if isinstance(v, str) else _json(v)}'
                "</steptml:parameter>"
                for k, v in a.items()
            )
            + "</steptml:invoke><\uff5ctool_call_end\uff5c>"
            for a in ARGUMENTS
        )
        section = f"<\uff5ctool_calls_begin\uff5c>{calls}<\uff5ctool_calls_end\uff5c>"
        return f"{think}{ANSWER}{section}<|EOT|>"
    return None


def _gemma(value: Any) -> str:
    """A value as Gemma 4's template writes it: strings between its marks, keys bare."""
    if isinstance(value, str):
        return f'<|"|>{value}<|"|>'
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "{" + ",".join(f"{k}:{_gemma(v)}" for k, v in sorted(value.items())) + "}"
    if isinstance(value, list):
        return "[" + ",".join(_gemma(item) for item in value) + "]"
    return str(value)


_THINK = re.compile(r"<think>(.*?)</think>", re.DOTALL)
_CALL = re.compile(r"<tool_call>(.*?)</tool_call>", re.DOTALL)


def by_hand(text: str) -> ct.AssistantMessage:
    """The reader a backend writes without convtypes: two patterns and json.loads."""
    found = _THINK.search(text)
    thinking = found.group(1).strip() if found else ""
    rest = text[found.end() :] if found else text
    calls = []
    for body in _CALL.findall(rest):
        value = json.loads(body)
        calls.append(ct.ToolCall(name=value["name"], arguments=value["arguments"]))
    return ct.AssistantMessage(
        content=_CALL.sub("", rest).strip(),
        tool_calls=tuple(calls),
        thinking=(ct.ThinkingBlock(text=thinking),) if thinking else (),
    )


def streamed(
    text: str, step: int = 4, style: str = "hermes", make: Any = OutputStream, **options: Any
) -> ct.AssistantMessage:
    stream = make(style=style, **options)
    for at in range(0, len(text), step):
        stream.feed(text[at : at + step])
    result: ct.AssistantMessage = stream.result()
    return result


# --- timing ---------------------------------------------------------------------------


def _time(work: Callable[[], Any], calls: int) -> float:
    start = time.perf_counter()
    for _ in range(calls):
        work()
    return (time.perf_counter() - start) / calls


def _pair(ours: Callable[[], Any], theirs: Callable[[], Any], rounds: int, calls: int) -> str:
    mine: list[float] = []
    other: list[float] = []
    for _ in range(rounds):
        mine.append(_time(ours, calls))
        other.append(_time(theirs, calls))
    ratios = sorted(a / b for a, b in zip(mine, other, strict=True))
    return (
        f"{statistics.median(mine) * 1e3:.2f} ms | {statistics.median(other) * 1e3:.2f} ms "
        f"| {statistics.median(ratios):.2f}x ({ratios[0]:.2f}\u2013{ratios[-1]:.2f})"
    )


def _tokenizer() -> Any:
    from tokenizers import Tokenizer, models
    from transformers import PreTrainedTokenizerFast

    core = Tokenizer(models.WordLevel({"<unk>": 0, "<s>": 1, "</s>": 2}, unk_token="<unk>"))
    make: Any = PreTrainedTokenizerFast
    return make(tokenizer_object=core, **SPECIAL)


def run(quick: bool, templates: dict[str, str] | None = None, baseline: str = "") -> str:
    """Both tables, as markdown."""
    warnings.simplefilter("ignore")
    # transformers says at import that torch is missing; only its renderer is used.
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    import jinja2
    import transformers

    rounds = 3 if quick else 21
    calls = 3 if quick else 20
    messages = transcript()
    tokenizer = _tokenizer()
    schemas = [
        {
            "type": "function",
            "function": {"name": t.name, "description": t.description, "parameters": t.parameters},
        }
        for t in TOOLS
    ]
    lines = [
        f"Transcript: {len(messages)} messages; {rounds} rounds of {calls} calls each; "
        f"Python {platform.python_version()}, jinja2 {jinja2.__version__}, "
        f"transformers {transformers.__version__}.",
        "",
        "| template | render | apply_chat_template | render time vs transformers |",
        "| --- | ---: | ---: | ---: |",
    ]
    for name, template in ({"built-in ChatML": TEMPLATE} | (templates or {})).items():

        def ours(template: str = template) -> str:
            return render(messages, template, tools=TOOLS, **SPECIAL)

        def theirs(template: str = template) -> str:
            chat = to_messages(messages)
            prompt = tokenizer.apply_chat_template(
                chat,
                chat_template=template,
                tools=schemas,
                tokenize=False,
                add_generation_prompt=True,
            )
            return str(prompt)

        try:
            prompt = ours()
        except TemplateError as err:
            lines.append(f"| {name} | refuses the transcript: {err.refusal or err} | | |")
            continue
        if prompt != theirs():
            raise AssertionError(f"{name}: render and apply_chat_template disagree")
        lines.append(f"| {name} | {_pair(ours, theirs, rounds, calls)} |")

    text = generation()
    if parse_output(text, style="hermes") != by_hand(text) or streamed(text) != by_hand(text):
        raise AssertionError("the readers disagree on the generation")
    whole = _pair(
        lambda: parse_output(text, style="hermes"), lambda: by_hand(text), rounds, calls * 5
    )
    stream = _pair(lambda: streamed(text), lambda: by_hand(text), rounds, calls)
    chunks = -(-len(text) // 4)
    per_chunk = statistics.median(_time(lambda: streamed(text), calls) for _ in range(rounds))
    lines += [
        "",
        f"Generation: {len(text):,} characters, {len(by_hand(text).tool_calls)} tool calls; "
        f"{rounds} rounds.",
        "",
        "| reader | convtypes | by hand (re + json) | convtypes time vs by hand |",
        "| --- | ---: | ---: | ---: |",
        f"| parse_output | {whole} |",
        f"| OutputStream, {chunks:,} chunks of 4 characters | {stream} |",
        "",
        f"OutputStream: {per_chunk / chunks * 1e6:.1f} \u00b5s per chunk.",
    ]
    if baseline:
        lines += _before_and_after(baseline, rounds, calls)
    lines += _styles(rounds, calls)
    return "\n".join(lines)


def _before_and_after(rev: str, rounds: int, calls: int) -> list[str]:
    """Today's readers beside those of commit ``rev``, on the styles it had."""
    import _baseline

    if _baseline.load(rev) is None:
        return ["", f"(commit {rev} could not be loaded: no before-and-after table)"]
    import importlib

    before = importlib.import_module("convtypes_before.dialects.chat_template")
    lines = [
        "",
        f"Before and after: today's readers and those of commit {rev}, on the same text; "
        f"{rounds} rounds.",
        "",
        "| reader, style | today | before | today's time vs before |",
        "| --- | ---: | ---: | ---: |",
    ]
    for style in ("hermes", "llama3", "mistral"):
        text = written(style) or ""
        now = parse_output(text, style=style)
        then = before.parse_output(text, style=style)
        # The two packages' classes differ: compare what the messages hold.
        calls_now = [(c.id, c.name, c.arguments) for c in now.tool_calls]
        calls_then = [(c.id, c.name, c.arguments) for c in then.tool_calls]
        if (now.content, calls_now) != (then.content, calls_then):
            raise AssertionError(f"{style}: today's reader and the baseline's disagree")
        whole = _pair(
            lambda t=text, s=style: parse_output(t, style=s),
            lambda t=text, s=style: before.parse_output(t, style=s),
            rounds,
            calls * 5,
        )
        stream = _pair(
            lambda t=text, s=style: streamed(t, style=s),
            lambda t=text, s=style: streamed(t, style=s, make=before.OutputStream),
            rounds,
            calls,
        )
        lines += [f"| parse_output, {style} | {whole} |", f"| OutputStream, {style} | {stream} |"]
    return lines


def _styles(rounds: int, calls: int) -> list[str]:
    """OutputStream of the same reply in each built-in style, per MB, against hermes."""
    expected = by_hand(generation())
    texts = {style: text for style in STYLES if (text := written(style)) is not None}
    unwritten = [style for style in STYLES if style not in texts]
    tools = [SEARCH]
    wanted = [(c.name, c.arguments) for c in expected.tool_calls]
    for style, text in texts.items():
        read = streamed(text, style=style, tools=tools)
        # Kimi's and Cohere's calls carry the ids the model wrote; the rest none.
        got = [(c.name, c.arguments) for c in read.tool_calls]
        if got != wanted or read.content != expected.content or read.thinking != expected.thinking:
            raise AssertionError(f"{style}: the reply does not read back as the hermes one")
    lines = [
        "",
        "Styles: the same reply (reasoning, answer, six calls) as each style writes it, fed to "
        f"OutputStream in chunks of 4 characters; {rounds} rounds.",
        "",
        "| style | characters | ms per MB | hermes, ms per MB | time per MB vs hermes |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    hermes = texts["hermes"]
    for style, text in texts.items():
        mine: list[float] = []
        theirs: list[float] = []
        for _ in range(rounds):
            mine.append(
                _time(lambda t=text, s=style: streamed(t, style=s, tools=tools), calls) / len(text)
            )
            theirs.append(_time(lambda: streamed(hermes, tools=tools), calls) / len(hermes))
        ratios = sorted(a / b for a, b in zip(mine, theirs, strict=True))
        lines.append(
            f"| {style} | {len(text):,} | {statistics.median(mine) * 1e9:.0f} | "
            f"{statistics.median(theirs) * 1e9:.0f} | {statistics.median(ratios):.2f}x "
            f"({ratios[0]:.2f}\u2013{ratios[-1]:.2f}) |"
        )
    if unwritten:
        lines += [
            "",
            f"Not timed (no writer in written(); kimi_vl writes no calls): {', '.join(unwritten)}.",
        ]
    return lines


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="fewer rounds")
    parser.add_argument(
        "--template", type=Path, action="append", default=[], help="a .jinja file to time too"
    )
    parser.add_argument("--baseline", default="", help="a commit whose readers to time beside")
    args = parser.parse_args()
    extra = {path.name: path.read_text("utf-8") for path in args.template}
    sys.stdout.write(run(args.quick, extra, args.baseline) + "\n")
