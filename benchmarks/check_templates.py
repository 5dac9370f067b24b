"""Check ``chat_template.render`` against transformers on a directory of real chat templates.

    python benchmarks/check_templates.py DIR [--count 200] [--seed 19] [--hypothesis 100]

A developer's tool, never run by the tests: it needs transformers (the
``test`` dependency group) and templates the project does not carry. For every
``*.jinja`` file in DIR it renders generated conversations two ways, with
``render`` and with transformers' own ``apply_chat_template(to_messages(...),
tokenize=False)``, through a tokenizer built in memory whose special tokens
are the variables ``render`` is given, and checks:

- the prompts are equal, or both renderers refuse the conversation, ours
  with ``TemplateError`` (and with the template's own message when it
  called ``raise_exception``);
- in every prompt, each text, call name and argument value of the
  conversation appears (what a template leaves out is counted, by kind:
  several templates drop some parts by design);
- external tool output appears only inside the fence;
- for a template whose style ``style_for`` recognises, the text the
  template writes for a last assistant turn (the prompt of the whole
  conversation less the prompt that asks for that turn) reads back with
  ``parse_output`` as that turn: its calls with their names, arguments and
  (where the template writes them) ids, and its text where the template
  shows it (as reasoning where the template writes it so: gpt-oss).

Conversations come from a seeded generator of agent sessions (system
prompt, user turns, thinking, one to three calls with nested arguments and
big integers, internal and external results, closing answers; every piece
of text distinct) and from ``convtypes.strategies.conversations()`` (random
Unicode, for equality only). Prints a per-template summary; exits 1 if any
prompt differs or any check fails.
"""

from __future__ import annotations

import argparse
import functools
import json
import random
import re
import sys
import warnings
from collections import Counter
from pathlib import Path
from typing import Any

import convtypes as ct
from convtypes.dialects import ToolSpec
from convtypes.dialects.chat_template import (
    IdStyle,
    OutputError,
    Style,
    TemplateError,
    opens_thinking,
    parse_output,
    render,
    style_for,
    to_messages,
)

VARIABLES: dict[str, Any] = {"bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>"}
TOOLS = [
    ToolSpec(
        name="web_search",
        description="Search the web.",
        parameters={
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "What to look for."},
                "limit": {"type": "integer", "description": "How many results."},
            },
            "required": ["query"],
        },
    ),
    ToolSpec(
        name="read_file",
        description="Read a file.",
        parameters={
            "type": "object",
            "properties": {"path": {"type": "string", "description": "Where it is."}},
            "required": ["path"],
        },
    ),
]
# Text that tests escaping: quotes, backslashes, a newline, non-ASCII, braces.
ODD = ['say "hi"', "back\\slash", "two\nlines", "caf\u00e9 \u2713", "{braces}", "tab\there"]


class Pieces:
    """Distinct text for each part of a conversation, so each can be found in the prompt."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.serial = 0

    def text(self, kind: str) -> str:
        self.serial += 1
        extra = f" {self.rng.choice(ODD)}" if self.rng.random() < 0.4 else ""
        return f"{kind}{self.serial:04d}{extra}"


def _arguments(pieces: Pieces, rng: random.Random) -> dict[str, Any]:
    value: dict[str, Any] = {
        "zeta": pieces.text("argtext"),
        "alpha": rng.choice([7, -3, 2**70, 12.5, 1e-7]),
    }
    if rng.random() < 0.5:
        value["nested"] = {"list": [pieces.text("argitem"), rng.randint(0, 10**6)], "flag": True}
    if rng.random() < 0.2:
        value["nothing"] = None
    return value


def generated(rng: random.Random) -> list[ct.Message]:
    pieces = Pieces(rng)
    messages: list[ct.Message] = []
    if rng.random() < 0.6:
        messages.append(ct.SystemMessage(content=pieces.text("system")))
    serial = 0
    for _ in range(rng.randint(1, 3)):
        if rng.random() < 0.2:
            blocks = tuple(ct.TextBlock(text=pieces.text("part")) for _ in range(2))
            messages.append(ct.UserMultimodalMessage(content=blocks))
        else:
            messages.append(ct.UserMessage(content=pieces.text("user")))
        for _ in range(rng.choice([0, 0, 1, 1, 2])):
            calls = []
            for _ in range(rng.choice([1, 1, 1, 2, 3])):
                serial += 1
                call_id = f"toolu_{serial:04d}" if rng.random() < 0.7 else None
                name = rng.choice(["web_search", "read_file"])
                calls.append(ct.ToolCall(id=call_id, name=name, arguments=_arguments(pieces, rng)))
            thinking = (ct.ThinkingBlock(text=pieces.text("reason")),) if rng.random() < 0.4 else ()
            content = pieces.text("preamble") if rng.random() < 0.3 else ""
            messages.append(
                ct.AssistantMessage(content=content, tool_calls=tuple(calls), thinking=thinking)
            )
            for position, call in enumerate(calls):
                external = rng.random() < 0.5
                messages.append(
                    ct.ToolResultMessage(
                        tool_use_id=call.id or ct.positional_call_id(position),
                        content=pieces.text("external" if external else "result"),
                        provenance=ct.Provenance.EXTERNAL if external else ct.Provenance.INTERNAL,
                    )
                )
        thinking = (ct.ThinkingBlock(text=pieces.text("reason")),) if rng.random() < 0.3 else ()
        messages.append(ct.AssistantMessage(content=pieces.text("answer"), thinking=thinking))
    if rng.random() < 0.3:
        messages.append(ct.UserMessage(content=pieces.text("user")))
    return messages


# --- the two renderers ----------------------------------------------------------


@functools.cache
def tokenizer() -> Any:
    """A transformers tokenizer built in memory (no model files), for its apply_chat_template."""
    from tokenizers import Tokenizer, models
    from transformers import PreTrainedTokenizerFast

    core = Tokenizer(models.WordLevel({"<unk>": 0, "<s>": 1, "</s>": 2}, unk_token="<unk>"))
    make: Any = PreTrainedTokenizerFast
    made = make(tokenizer_object=core, **VARIABLES)
    assert made.special_tokens_map == VARIABLES
    return made


def theirs(chat: list[dict[str, Any]], template: str, tools: Any) -> str:
    """transformers' rendering: ``apply_chat_template(chat, tokenize=False, ...)``."""
    prompt = tokenizer().apply_chat_template(
        chat, chat_template=template, tools=tools, tokenize=False, add_generation_prompt=True
    )
    return str(prompt)


def schemas(tools: list[ToolSpec] | None) -> list[dict[str, Any]] | None:
    if tools is None:
        return None
    return [
        {
            "type": "function",
            "function": {"name": t.name, "description": t.description, "parameters": t.parameters},
        }
        for t in tools
    ]


# --- what must appear in a prompt ----------------------------------------------


def _forms(value: Any) -> list[str]:
    """Ways a value can be written into a prompt: raw, JSON, JSON-escaped, Python's str."""
    forms = {json.dumps(value, ensure_ascii=False), json.dumps(value), str(value)}
    if isinstance(value, str):
        forms |= {value, json.dumps(value, ensure_ascii=False)[1:-1], json.dumps(value)[1:-1]}
    return [form for form in forms if form]


def _appears(prompt: str, value: Any) -> bool:
    return any(form in prompt for form in _forms(value))


def _leaves(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [leaf for item in value.values() for leaf in _leaves(item)]
    if isinstance(value, list):
        return [leaf for item in value for leaf in _leaves(item)]
    if isinstance(value, bool) or value is None:
        return []  # too common to prove anything
    return [value]


def expected(messages: list[ct.Message]) -> list[tuple[str, Any]]:
    """(kind, value) for every part of the conversation that a prompt should show."""
    out: list[tuple[str, Any]] = []
    for message in messages:
        if isinstance(message, ct.SystemMessage):
            out.append(("system text", message.content.strip()))
        elif isinstance(message, ct.UserMessage):
            out.append(("user text", message.content.strip()))
        elif isinstance(message, ct.UserMultimodalMessage):
            out += [("user text", b.text.strip()) for b in message.content if hasattr(b, "text")]
        elif isinstance(message, ct.AssistantMessage):
            kind = "text of a call turn" if message.tool_calls else "answer text"
            if message.content:
                out.append((kind, message.content.strip()))
            out += [("reasoning", block.text.strip()) for block in message.thinking]
            for call in message.tool_calls:
                out.append(("call name", call.name))
                out += [("argument value", leaf) for leaf in _leaves(call.arguments)]
        elif isinstance(message, ct.ToolResultMessage):
            kind = "internal result" if message.provenance.is_internal() else "external result"
            out.append((kind, message.content.strip()))
    return out


_FENCE = re.compile(r"<external-content>\n.*?\n</external-content>", re.DOTALL)
_FENCE_JSON = re.compile(r"<external-content>\\n.*?\\n</external-content>", re.DOTALL)


def fenced_only(prompt: str, messages: list[ct.Message]) -> bool:
    """Each external result's text occurs only inside a fence."""
    outside = _FENCE_JSON.sub("", _FENCE.sub("", prompt))
    for message in messages:
        if isinstance(message, ct.ToolResultMessage) and not message.provenance.is_internal():
            if _appears(outside, message.content.strip()):
                return False
    return True


# --- reading back what a template writes for the model's turn -------------------

# What parse_output is told of the tools: the generated arguments' types, so the
# styles that write values as text (Qwen3.5's <parameter=...>) type them back.
_ARGUMENT_TYPES: dict[str, Any] = {
    "type": "object",
    "properties": {
        "zeta": {"type": "string"},
        "alpha": {"type": "number"},
        "nested": {"type": "object"},
        "nothing": {"type": "null"},
    },
}
READ_TOOLS = [ToolSpec(name=tool.name, parameters=_ARGUMENT_TYPES) for tool in TOOLS]


def read_back(
    tally: Tally, name: str, template: str, style: Style, rng: random.Random, ids: IdStyle
) -> None:
    """Render a session up to a last assistant turn; parse the turn's text back."""
    pieces = Pieces(rng)
    history: list[ct.Message] = [ct.UserMessage(content=pieces.text("user"))]
    # Llama's templates refuse, and gpt-oss's drop, all but one call a turn.
    count = 1 if style.name in ("llama3", "harmony") else rng.randint(1, 3)
    calls = tuple(
        ct.ToolCall(
            id=f"t{rng.randrange(36**8):08d}"[:9] if ids == "alnum9" else None,
            name=rng.choice(["web_search", "read_file"]),
            arguments=_arguments(pieces, rng),
        )
        for _ in range(count)
    )
    with_calls = rng.random() < 0.7
    turn = ct.AssistantMessage(
        content=pieces.text("answer") if not with_calls or rng.random() < 0.5 else "",
        tool_calls=calls if with_calls else (),
    )
    try:
        asking = render(history, template, tools=TOOLS, ids=ids, **VARIABLES)
        whole = render(
            [*history, turn],
            template,
            tools=TOOLS,
            ids=ids,
            add_generation_prompt=False,
            **VARIABLES,
        )
    except TemplateError:
        tally.counts["read-back refused"] += 1
        return
    in_thinking = opens_thinking(asking)
    if whole.startswith(asking):
        generation = whole[len(asking) :]
    else:
        # QwQ's generation prompt opens and closes <think>, which a past turn
        # does not show: take the turn after its header, the part the two share.
        base = render(
            history, template, tools=TOOLS, ids=ids, add_generation_prompt=False, **VARIABLES
        )
        if not whole.startswith(base):
            tally.counts["read-back: the turn does not extend the prompt"] += 1
            return
        ask, turn_text = asking[len(base) :], whole[len(base) :]
        shared = next(
            (n for n, (a, b) in enumerate(zip(ask, turn_text, strict=False)) if a != b),
            min(len(ask), len(turn_text)),
        )
        # Up to a whole line or token only (R1's turn shares "<" with its "<think>").
        header = turn_text[
            : max(turn_text.rfind("\n", 0, shared), turn_text.rfind(">", 0, shared)) + 1
        ]
        generation = turn_text[len(header) :]
        in_thinking = False
    try:
        read = parse_output(generation, style=style, in_thinking=in_thinking, tools=READ_TOOLS)
    except OutputError as err:
        tally.counts["read-back failed"] += 1
        tally.failures.append(f"{name}: cannot read back {generation[:120]!r}: {err}")
        return
    sent = to_messages([*history, turn], ids=ids)[-1]
    expected_calls = [(c.name, c.arguments) for c in turn.tool_calls]
    got_calls = [(c.name, c.arguments) for c in read.tool_calls]
    same_order = all(
        list(a.arguments) == list(b.arguments)
        for a, b in zip(read.tool_calls, turn.tool_calls, strict=False)
    )
    if got_calls != expected_calls or not same_order:
        tally.counts["read-back: calls differ"] += 1
        tally.failures.append(f"{name}: read back {got_calls!r:.200} from {generation[:200]!r}")
        return
    written_ids = [c["id"] for c in sent.get("tool_calls", []) if c["id"] in generation]
    if written_ids and [c.id for c in read.tool_calls] != written_ids:
        tally.failures.append(f"{name}: ids {[c.id for c in read.tool_calls]} vs {written_ids}")
        return
    shown = turn.content.strip() and turn.content.strip() in generation
    as_reasoning = bool(read.thinking) and read.thinking[0].text == turn.content.strip()
    # R1's template writes a turn's calls, ends the turn, and writes its text as
    # another: what follows an end-of-turn token is no longer the model's turn.
    body = generation.rstrip()
    while any(body.endswith(token) for token in style.ends):
        body = body[: -len(next(t for t in style.ends if body.endswith(t)))].rstrip()
    two_turns = any(token in body for token in style.ends)
    if as_reasoning and not read.content:
        tally.counts["read back (template writes the text as reasoning)"] += 1
    elif shown and two_turns:
        tally.counts["read back (template writes the text as a turn of its own)"] += 1
    elif shown and read.content != turn.content.strip():
        tally.failures.append(f"{name}: text {read.content!r} from {generation[:200]!r}")
        return
    tally.counts["read back"] += 1
    if written_ids:
        tally.counts["ids read back"] += 1
    if turn.content and not shown:
        tally.counts["read back (template drops the text)"] += 1


# --- the run --------------------------------------------------------------------


class Tally:
    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()
        self.missing: Counter[str] = Counter()
        self.present: Counter[str] = Counter()
        self.refusals: Counter[str] = Counter()
        self.failures: list[str] = []


def compare(
    tally: Tally,
    name: str,
    template: str,
    messages: list[ct.Message],
    tools: list[ToolSpec] | None,
    ids: IdStyle,
    content_checks: bool,
) -> None:
    chat = to_messages(messages, ids=ids, unsupported="note")
    try:
        expected_prompt: str | None = theirs(chat, template, schemas(tools))
        their_error: BaseException | None = None
    except Exception as err:  # what transformers lets out: jinja2's errors, TypeError...
        expected_prompt, their_error = None, err
    try:
        prompt: str | None = render(
            messages,
            template,
            tools=tools,
            ids=ids,
            unsupported="note",
            **VARIABLES,
        )
        our_error: BaseException | None = None
    except TemplateError as err:
        prompt, our_error = None, err
    except Exception as err:
        tally.counts["other error"] += 1
        tally.failures.append(f"{name}: render raised {type(err).__name__}: {err}")
        return
    tally.counts["conversations"] += 1
    if their_error is not None or our_error is not None:
        if their_error is None or our_error is None:
            tally.counts["disagree"] += 1
            tally.failures.append(f"{name}: transformers {their_error!r} vs ours {our_error!r}")
            return
        tally.counts["both refuse"] += 1
        assert isinstance(our_error, TemplateError)
        if our_error.refusal is not None:
            if our_error.refusal != str(their_error):
                tally.failures.append(f"{name}: refusal text {our_error.refusal!r}")
            tally.refusals[our_error.refusal[:70]] += 1
        else:
            tally.refusals[f"({type(their_error).__name__}) {str(their_error)[:55]}"] += 1
        return
    if prompt != expected_prompt:
        tally.counts["differ"] += 1
        tally.failures.append(f"{name}: prompts differ for {ct.encode(messages)[:200]!r}")
        return
    tally.counts["equal"] += 1
    assert prompt is not None
    if not content_checks:
        return
    for kind, value in expected(messages):
        if value == "" or value is None:
            continue
        if _appears(prompt, value):
            tally.present[kind] += 1
        else:
            tally.missing[kind] += 1
    if tools:
        for tool in tools:
            (tally.present if tool.name in prompt else tally.missing)["tool definition"] += 1
    if fenced_only(prompt, messages):
        tally.counts["fence held"] += 1
    else:
        tally.counts["fence broken"] += 1
        tally.failures.append(f"{name}: external text outside the fence")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("directory", type=Path)
    parser.add_argument("--count", type=int, default=200, help="generated sessions per template")
    parser.add_argument("--hypothesis", type=int, default=100, help="random conversations")
    parser.add_argument("--seed", type=int, default=19)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    import transformers

    files = sorted(args.directory.glob("*.jinja"))
    if not files:
        print(f"no *.jinja files in {args.directory}", file=sys.stderr)
        return 2
    randoms = _random_conversations(args.hypothesis, args.seed)
    print(
        f"transformers {transformers.__version__}; {args.count} generated sessions and "
        f"{len(randoms)} random conversations per template; seed {args.seed}\n"
    )
    bad = False
    for path in files:
        template = path.read_text("utf-8")
        ids: IdStyle = (
            "alnum9"
            if "istral" in path.name
            else "kimi"
            if "kimi" in path.name.lower()
            else "default"
        )
        tally = Tally()
        rng = random.Random(f"{args.seed}:{path.name}")
        for number in range(args.count):
            tools = TOOLS if number % 2 == 0 else None
            compare(tally, path.name, template, generated(rng), tools, ids, True)
        for number, messages in enumerate(randoms):
            tools = TOOLS if number % 2 == 0 else None
            compare(tally, path.name, template, messages, tools, ids, False)
        style = style_for(template)
        if style is not None:
            for _ in range(args.count // 2):
                read_back(tally, path.name, template, style, rng, ids)
        bad |= _report(path.name, ids, tally)
    return 1 if bad else 0


def _random_conversations(count: int, seed: int) -> list[list[ct.Message]]:
    from hypothesis import HealthCheck, given, settings
    from hypothesis import seed as fix_seed

    from convtypes import strategies as cst

    found: list[list[ct.Message]] = []

    @fix_seed(seed)
    @settings(max_examples=count, database=None, suppress_health_check=list(HealthCheck))
    @given(cst.conversations(max_exchanges=3))
    def collect(messages: list[ct.Message]) -> None:
        found.append(messages)

    collect()
    return found


def _report(name: str, ids: IdStyle, tally: Tally) -> bool:
    c = tally.counts
    print(f"## {name} (ids={ids})")
    print(
        f"  {c['conversations']} rendered: {c['equal']} equal to transformers, "
        f"{c['both refuse']} refused by both, {c['differ']} differ, {c['disagree']} disagree, "
        f"{c['other error']} other errors; fence held in {c['fence held']}, "
        f"broken in {c['fence broken']}"
    )
    back = {k: v for k, v in c.items() if k.startswith("read")} | (
        {"ids read back": c["ids read back"]} if c["ids read back"] else {}
    )
    if back:
        print("  parse_output: " + "; ".join(f"{k} {v}" for k, v in sorted(back.items())))
    kinds = sorted(set(tally.present) | set(tally.missing))
    shown = [
        f"{kind} {tally.present[kind]}/{tally.present[kind] + tally.missing[kind]}"
        for kind in kinds
    ]
    if shown:
        print("  appear in the prompt: " + "; ".join(shown))
    for text, count in tally.refusals.most_common(4):
        print(f"  refused {count}x: {text}")
    for failure in tally.failures[:5]:
        print(f"  FAIL {failure}")
    print()
    return bool(tally.failures)


if __name__ == "__main__":
    sys.exit(main())
