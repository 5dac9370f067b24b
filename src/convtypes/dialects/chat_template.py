"""Local models: a transcript into a chat template's prompt, a raw generation back into a message.

A backend that runs a model in-process (transformers, MLX, llama.cpp, Candle)
has no API to send messages to. It renders the transcript into the model's
prompt through the model's own chat template, and reads the text the model
writes back into a reply. This module does both:

- :func:`to_messages` gives the transcript in the Hugging Face message
  convention that chat templates read (``tokenizer.apply_chat_template``
  takes it as is);
- :func:`render` renders it through a chat template's text, as transformers
  does, in a jinja2 sandbox (the ``templates`` extra);
- :func:`parse_output` reads a generation written in a family's style
  (``"hermes"``, ``"llama3"``, ``"mistral"``...) into an
  ``AssistantMessage``, and :class:`OutputStream` does the same chunk by
  chunk; :func:`style_for` tells from a chat template which style its
  model writes, and :func:`register_style` adds a family's style of one's
  own, read through a :class:`Cursor`.

What every dialect does, this one does too: external tool results are
fenced, tool-call ids are unique and pair calls with results, and anything
the convention cannot carry is refused rather than dropped. Bad input raises
:class:`TemplateError` (a template refused or failed) or
:class:`OutputError` (a generation that cannot be read), both
``DialectError`` subclasses; nothing from jinja2, ``json`` or msgspec leaks.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from typing import Any, Final

from .._errors import MAX_DEPTH, WireError
from .._jsonvalue import check_json
from .._messages import AssistantMessage, Message
from .._unknown import UnknownMessage
from . import _template_continue as prefill
from ._errors import DialectError, Unsupported
from ._generation import GenerationReader, OnError
from ._output_cursor import CallReader, Cursor, Reading, Wait
from ._output_style import (
    BUILTIN,
    COMMON_ENDS,
    THINK,
    Style,
    register,
    style_for,
    thinking_openers,
)
from ._reply import Delta
from ._template_errors import OutputError, TemplateError
from ._template_messages import IdStyle
from ._template_messages import to_messages as _to_messages
from ._template_render import run
from ._tools import ToolSchemaError, ToolSpec, checked_tools

STYLES: Final = BUILTIN
"""The names of the built-in styles."""

__all__ = [
    "COMMON_ENDS",
    "STYLES",
    "CallReader",
    "Cursor",
    "IdStyle",
    "OnError",
    "OutputError",
    "OutputStream",
    "Reading",
    "Style",
    "TemplateError",
    "Wait",
    "opens_thinking",
    "parse_output",
    "register_style",
    "render",
    "style_for",
    "to_messages",
]


def to_messages(
    messages: Iterable[Message | UnknownMessage],
    *,
    fence_external: bool = True,
    unsupported: Unsupported = "raise",
    ids: IdStyle = "default",
    control_tokens: Collection[str] | None = None,
) -> list[dict[str, Any]]:
    """The transcript as Hugging Face chat messages, ready for ``apply_chat_template``.

    - System and user text become ``{"role", "content": str}``. A multimodal
      user turn of text only becomes one string too (blocks joined by a blank
      line); with images, video or audio it is a list of parts:
      ``{"type": "text", "text"}``, ``{"type": "image", "url"}`` (base64 as a
      ``data:`` URL), ``{"type": "video", "url" | "path"}``, ``{"type":
      "audio", "url" | "path"}``. An image's ``detail``, a video's ``fps``
      and ``max_frames`` and audio's ``sample_rate`` have no place there and
      are left out. Base64 video, which transformers cannot load, is refused
      (``UnsupportedContent``), or noted in its place with
      ``unsupported="note"``.
    - An assistant turn has ``content`` (``""`` when it only calls tools),
      ``reasoning_content`` when it has thinking text (blocks joined by a
      blank line; redacted thinking is left out), and ``tool_calls`` only
      when it has calls: ``{"type": "function", "id", "function": {"name",
      "arguments": <object>}}``.
    - A tool result is ``{"role": "tool", "tool_call_id", "name",
      "content"}``, named after the call it answers; external results are
      fenced unless ``fence_external`` is False.
    - ``control_tokens``: the tokenizer's control tokens (typically
      ``tokenizer.all_special_tokens`` plus its added tokens). Each one in
      an external result's text gets a zero-width joiner (U+200D) after its
      first character (``<\u200d|im_end|>``), so that no tokenizer reads
      it as the token: untrusted text cannot end a turn or open one. Only
      external results are changed; ``None`` (the default) changes nothing.
    - Provider output items are left out; a message a newer writer made
      (``UnknownMessage``) is refused.

    Ids follow ``ids`` (see :data:`IdStyle`); a result answers its call by
    id, or by ``positional_call_id`` for a call that has none, and carries
    the id its call was sent with. A result that answers no call of the
    turn before it raises ``UnmatchedResult``; a call still unanswered when
    the next user message comes raises ``UnansweredCall``.

    The messages share no dict or list with the transcript (a call's
    arguments are copied): change them as you like.
    """
    return _to_messages(
        messages,
        fence_external=fence_external,
        unsupported=unsupported,
        ids=ids,
        control_tokens=control_tokens,
    )


def _tool_schemas(tools: Iterable[ToolSpec | Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Tools in the form templates read: ``{"type": "function", "function": {...}}``."""
    if isinstance(tools, (str, bytes, Mapping, ToolSpec)):
        raise TypeError(f"tools must be a list of ToolSpec, not {type(tools).__name__}")
    given = list(tools)
    specs = [tool for tool in given if isinstance(tool, ToolSpec)]
    checked_tools(specs, "auto", "a chat template")  # names and repeats
    out: list[dict[str, Any]] = []
    for position, tool in enumerate(given):
        if isinstance(tool, ToolSpec):
            function = {
                "name": tool.name,
                "description": tool.description,
                "parameters": tool.parameters,
            }
            out.append({"type": "function", "function": function})
        elif isinstance(tool, Mapping):
            # A schema written by hand, in the Hugging Face form, goes as given.
            schema = dict(tool)
            try:
                check_json(schema, MAX_DEPTH, f"tools[{position}]")
            except WireError as err:
                raise ToolSchemaError(f"tools[{position}] is not JSON: {err}") from None
            out.append(schema)
        else:
            raise TypeError(
                f"tools[{position}] is a {type(tool).__name__}, not a ToolSpec or a dict"
            )
    return out


def _plain(value: Any, where: str, room: int = MAX_DEPTH) -> Any:
    """A template variable as plain JSON-like data, which a sandboxed template cannot misuse."""
    if value is None or type(value) in (str, int, float, bool):
        return value
    if room <= 0:
        raise ValueError(f"{where} nests deeper than {MAX_DEPTH} levels")
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, int):
        return int.__int__(value)
    if isinstance(value, float):
        return float.__float__(value)
    if isinstance(value, Mapping):
        plain: dict[Any, Any] = {}
        for key, item in value.items():
            if not isinstance(key, (str, int, float, bool)) and key is not None:
                raise TypeError(f"{where} has a key of type {type(key).__name__}")
            plain[_plain(key, where, room - 1)] = _plain(item, f"{where}[{key!r:.40}]", room - 1)
        return plain
    if isinstance(value, (list, tuple)):
        items = [_plain(item, f"{where}[{n}]", room - 1) for n, item in enumerate(value)]
        return items if isinstance(value, list) else tuple(items)
    raise TypeError(
        f"{where} is a {type(value).__name__}; a template variable must be text, a number, "
        "a bool, None, or a list or dict of them"
    )


def render(
    messages: Iterable[Message | UnknownMessage],
    template: str,
    *,
    tools: Sequence[ToolSpec | Mapping[str, Any]] | None = None,
    add_generation_prompt: bool | None = None,
    continue_final_message: bool | str = False,
    fence_external: bool = True,
    unsupported: Unsupported = "raise",
    ids: IdStyle = "default",
    control_tokens: Collection[str] | None = None,
    **variables: Any,
) -> str:
    """The transcript rendered into a prompt by the chat template ``template`` (its text).

    The prompt equals what transformers' ``apply_chat_template(
    to_messages(messages), chat_template=template, tools=..., tokenize=False,
    ...)`` gives for the same variables: the messages of :func:`to_messages`,
    ``tools`` as ``{"type": "function", "function": {"name", "description",
    "parameters"}}`` (a ``ToolSpec``, or a dict already in that form, passed
    as given), ``documents`` (``None`` unless given), and
    ``add_generation_prompt``, by default True here since a backend renders
    to generate.

    ``continue_final_message=True`` prefills: the prompt ends inside the
    last message, as transformers makes it, for the model to go on with it
    (``add_generation_prompt`` is then False, and True with it is a
    ``ValueError``). A field name continues that field of the message
    (``"reasoning_content"``). A message the template drops or changes
    cannot be continued: :class:`TemplateError`.

    ``variables`` are the rest of what the template reads: the tokenizer's
    special tokens, which transformers passes for you and which must be
    given here (``bos_token="<s>"``, ``eos_token="</s>"``; a template that
    prints one not given raises :class:`TemplateError` rather than leave it
    out of the prompt, so pass ``""`` for a token the tokenizer lacks), and
    its own switches (``enable_thinking=False``,
    ``date_string=...``). They must be JSON-like (text, numbers, bools,
    None, lists and dicts of them), so the sandboxed template holds nothing
    it could call.

    ``control_tokens`` (``tokenizer.all_special_tokens`` plus the added
    tokens, say) are changed in external tool results as
    :func:`to_messages` changes them, so that a tokenizer that parses
    special tokens in the prompt cannot find one in untrusted text. Left
    ``None``, the prompt is transformers' to the character.

    Raises :class:`TemplateError` when the template refuses the conversation
    (``.refusal`` is its message), is not valid Jinja, or fails; the
    ``to_messages`` errors for a transcript it cannot carry; ``DialectError``
    for an empty transcript, which transformers refuses too; and
    ``ImportError`` when jinja2 (the ``templates`` extra) is missing.
    """
    if not isinstance(template, str):
        raise TypeError(_not_a_template(template))
    if type(continue_final_message) not in (bool, str):
        raise TypeError(
            "continue_final_message must be True, False or a field's name, "
            f"not {continue_final_message!r:.60}"
        )
    if add_generation_prompt is None:
        add_generation_prompt = not continue_final_message
    if type(add_generation_prompt) is not bool:
        raise TypeError(
            f"add_generation_prompt must be True or False, not {add_generation_prompt!r}"
        )
    if continue_final_message and add_generation_prompt:
        raise ValueError(
            "continue_final_message and add_generation_prompt=True cannot go together: one "
            "continues the last message, the other starts a new one"
        )
    chat = _to_messages(
        messages,
        fence_external=fence_external,
        unsupported=unsupported,
        ids=ids,
        control_tokens=control_tokens,
    )
    if not chat:
        raise DialectError("an empty conversation cannot be rendered into a prompt")
    context: dict[str, Any] = {
        # transformers gives the template the reasoning under "thinking" too
        # (gpt-oss reads it there), ahead of the message's own keys.
        "messages": [
            {"thinking": message["reasoning_content"], **message}
            if "reasoning_content" in message
            else message
            for message in chat
        ],
        "tools": None if tools is None else _tool_schemas(tools),
        "documents": None,
        "add_generation_prompt": add_generation_prompt,
    }
    for name, value in variables.items():
        context[name] = _plain(value, name)
    documents = context["documents"]
    if documents is not None and (
        not isinstance(documents, list) or not all(isinstance(d, dict) for d in documents)
    ):
        raise TypeError("documents must be a list of dicts (each with 'title' and 'text')")
    if not continue_final_message:
        return run(template, context)
    field = continue_final_message if isinstance(continue_final_message, str) else "content"
    text = prefill.mark(context["messages"], field, template)
    return prefill.cut(run(template, context), text)


def _not_a_template(template: object) -> str:
    """Why ``template`` is refused, naming the templates inside it when it holds several.

    A tokenizer with several templates gives them as a dict of name to text
    (``tokenizer.chat_template``), and its ``tokenizer_config.json`` as a
    list of ``{"name", "template"}``.
    """
    names: list[str] = []
    if isinstance(template, Mapping):
        names = [name for name in template if isinstance(name, str)]
    elif isinstance(template, list):
        names = [
            entry["name"]
            for entry in template
            if isinstance(entry, Mapping) and isinstance(entry.get("name"), str)
        ]
    kind = type(template).__name__
    if not names:
        return f"template must be the chat template's text, not {kind}"
    listed = ", ".join(repr(name) for name in names[:6])
    return (
        f"template must be the chat template's text, not {kind}: this one holds several "
        f"templates by name ({listed}); pass the text of the one to use"
    )


def parse_output(
    text: str,
    *,
    style: str | Style,
    in_thinking: bool = False,
    tools: Sequence[ToolSpec | Mapping[str, Any]] | None = None,
    on_error: OnError = "raise",
) -> AssistantMessage:
    """A model's raw generation as an ``AssistantMessage``.

    ``style`` names how the model's family writes (see :data:`STYLES`, and
    the local-models guide for the families of each), or is a
    :class:`Style` of one's own. Most families write their reasoning in a
    block at the start (``<think>...</think>``, Mistral's ``[THINK]``),
    which becomes an unsigned ``ThinkingBlock``. When the prompt itself
    opened the block (QwQ, DeepSeek-R1, Qwen3.5: see :func:`opens_thinking`),
    the generation starts inside it: pass ``in_thinking=True``, and
    everything up to its closer is reasoning.

    Calls keep their names, ids where the family writes them, and their
    arguments as written (key order, integers of any size). The text
    outside thinking and calls is the answer, each run of it trimmed of the
    white space around it and runs joined by a blank line. End-of-turn
    tokens at the very end (``<|im_end|>``, ``<|eot_id|>``, ``</s>``, the
    family's own: see :data:`COMMON_ENDS` and :attr:`Style.ends`) are dropped.

    ``tools``, when given, are the tools the prompt offered (``ToolSpec``,
    or dicts in the Hugging Face form ``render`` takes). A call to a name
    not among them is then answer text for the styles that write calls as
    bare JSON (a Llama answer in JSON mode: ``{"name": "Alice", ...}``),
    and an error for the others, whose markers leave no doubt that a call
    was meant. Styles that write arguments as text (Qwen3.5's
    ``<parameter=...>``) read each value as the tool's schema types it.

    A call that cannot be read (JSON cut off or malformed, no name,
    arguments that are not an object, a tag the syntax does not have)
    raises :class:`OutputError` with the character ``offset`` of the
    trouble. With ``on_error="text"`` it is kept instead, as the raw text
    it was, in the answer's ``content``, with the text, reasoning and calls
    around it: for a reply to show even when a call in it is broken.

    Another family's call markup in what would be the answer's text (a
    ``<tool_call>`` read with ``style="mistral"``: the opening token of a
    style known by name, see :attr:`Style.opens`) raises
    :class:`OutputError` naming that family, since the style was likely the
    wrong one; with ``on_error="text"`` it stays text.
    """
    if type(text) is not str:
        raise TypeError(f"text must be the generated text, a str, not {type(text).__name__}")
    reader = GenerationReader(style, in_thinking, tools, on_error, emit=False)
    reader.feed(text)
    reader.finish()
    return reader.message()


class OutputStream:
    """A generation read chunk by chunk, as the model writes it.

    ``feed(chunk)`` takes the next piece of text and returns what it added:
    :class:`TextDelta` and :class:`ThinkingDelta` for text to show, and
    :class:`ToolCallStart` / :class:`ToolCallDelta` for calls, the same
    deltas every dialect's ``Accumulator`` gives. ``finish()`` says the
    generation is over and returns the last deltas; ``result()`` (which
    finishes if need be) equals ``parse_output`` of the joined text, however
    it was split, and so does any error, at the same offset.

    Text is shown as soon as nothing can change it: the reader holds back
    only what could still start a tag, white space at the edge of a run of
    text, and an opening brace of a Llama answer until its object closes.
    The text deltas, joined, are the message's ``content``; the thinking
    deltas its reasoning. A call is announced once its name is known. Where
    the arguments are a JSON object of their own after the name (Mistral's
    ``[ARGS]``, DeepSeek's) they then stream as they come; otherwise they
    come whole when the call ends. With ``on_error="text"`` a call is announced only
    once it is read whole, since until then it may turn out to be text.
    """

    def __init__(
        self,
        *,
        style: str | Style,
        in_thinking: bool = False,
        tools: Sequence[ToolSpec | Mapping[str, Any]] | None = None,
        on_error: OnError = "raise",
    ) -> None:
        self._reader = GenerationReader(style, in_thinking, tools, on_error)

    def feed(self, chunk: str) -> list[Delta]:
        """Take the next chunk of generated text; :class:`OutputError` if it cannot be read."""
        return self._reader.feed(chunk)

    def finish(self) -> list[Delta]:
        """The generation is over: what was held back, read as the end of the text."""
        return self._reader.finish()

    @property
    def finished(self) -> bool:
        """Whether reading is over: :meth:`finish` or :meth:`result` ran, or an error ended it."""
        return self._reader.finished

    def result(self) -> AssistantMessage:
        """The whole message (finishing the generation first if need be)."""
        self._reader.finish()
        return self._reader.message()

    def partial(self) -> AssistantMessage:
        """The message so far: text and reasoning shown, calls complete. For a cancelled reply."""
        return self._reader.message()


def register_style(
    name: str,
    *,
    calls: Mapping[str, CallReader] | None = None,
    thinking: Mapping[str, str] = THINK,
    ends: tuple[str, ...] = (),
    opening: CallReader | None = None,
    read: Callable[[Style, Cursor], Reading] | None = None,
    marks: tuple[str, ...] = (),
    outranks: tuple[str, ...] = (),
    opens: tuple[str, ...] | None = None,
) -> Style:
    """Add a family's style, known from now on by ``name`` (see :class:`Style` for the rest).

    ``parse_output(text, style=name)`` and ``OutputStream(style=name)`` then
    read with it, and :func:`style_for` recognises its templates by
    ``marks``. A name already known (a built-in style's, or one registered
    before) raises ``ValueError``. The style is returned; passing it as
    ``style=`` works without registering it too.
    """
    return register(
        Style(
            name,
            calls=calls,
            thinking=thinking,
            ends=ends,
            opening=opening,
            read=read,
            marks=marks,
            outranks=outranks,
            opens=opens,
        )
    )


def opens_thinking(prompt: str) -> bool:
    """Whether ``prompt`` ends inside a thinking block the generation will close.

    True when the prompt ends with a thinking opener of a known style
    (``<think>``, ``[THINK]``, ``<seed:think>``...), white space aside, as
    the generation prompts of QwQ, DeepSeek-R1 and Qwen3.5 with thinking on
    do; pass the answer as ``in_thinking`` to :func:`parse_output` and
    :class:`OutputStream`. Only the end counts: an opener earlier in the
    prompt is text of a past turn (a user asking what ``<think>`` means).
    A prompt that prefills some reasoning after the opener is not
    recognised; pass ``in_thinking=True`` yourself.
    """
    if type(prompt) is not str:
        raise TypeError(f"prompt must be a str, not {type(prompt).__name__}")
    end = prompt.rstrip()
    return any(end.endswith(opener) for opener in thinking_openers())
