"""How a family writes its output: the :class:`Style`, the styles known by name, and ``style_for``.

Most families write a generation the same way: reasoning in a block at the
start (``<think>...</think>``), then the answer, in which a marker of the
family's own (``<tool_call>``, ``[TOOL_CALLS]``) begins a tool call, and an
end-of-turn token at the very end. A style of that shape is data (its
thinking tags, its end tokens) and one small reader per marker; the
reading around them is this module's. A family that writes otherwise
(gpt-oss's channels) gives a reader of the whole generation instead.

The built-in styles live in ``_styles``, one module each, found by name
and imported on first use; a program adds its own with
:func:`register_style`. :func:`style_for` tells from a chat template's text
which style its model writes, from the marks each style names.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Final

from ._output_cursor import CallReader, Cursor, Reading

COMMON_ENDS: Final = (
    "<|im_end|>",
    "<|endoftext|>",
    "<|eot_id|>",
    "<|eom_id|>",
    "<|end_of_text|>",
    "<|eot|>",
    "<|eom|>",
    "<|end|>",
    "<end_of_turn>",
    "<eos>",
    "</s>",
    "<\uff5cend\u2581of\u2581sentence\uff5c>",
)
"""End-of-turn tokens cut off the end of a generation whatever its style.

ChatML's (Qwen, Hermes, Kimi), Llama 3's and 4's, Phi's, Gemma's, the
``</s>`` of Llama 2 and Mistral, and DeepSeek's. A decode that keeps special
tokens leaves the one the model stopped on at the end of the text.
"""

THINK: Final = MappingProxyType({"<think>": "</think>"})
"""The thinking block most families write: ``<think>...</think>``."""


def _text(value: object, what: str) -> str:
    if type(value) is not str or not value:
        raise TypeError(f"{what} must be a non-empty str, not {value!r:.60}")
    return value


def _texts(values: object, what: str) -> tuple[str, ...]:
    if isinstance(values, (str, bytes)) or not isinstance(values, (tuple, list)):
        raise TypeError(f"{what} must be a tuple of str, not {type(values).__name__}")
    return tuple(_text(value, f"{what}[{n}]") for n, value in enumerate(values))


class Style:
    """How a model family writes its output: reasoning, tool calls, end of turn.

    A style reads a generation into a message through a :class:`Cursor`.
    Most families need only data and a reader per call marker:

    - ``calls``: each marker that begins a tool call in the answer
      (``"<tool_call>"``), with the reader of what follows it (a
      :data:`CallReader`: a generator taking the cursor and the marker);
    - ``thinking``: the tags of a reasoning block at the start of the
      generation, opener to closer (by default ``<think>`` to ``</think>``;
      ``{}`` for none);
    - ``ends``: the family's end-of-turn tokens, cut off the end of the
      text with :data:`COMMON_ENDS`;
    - ``opening``: a reader for calls written bare, as the whole answer,
      with no marker before them (Llama's JSON): it runs at the start of the
      answer and reads nothing if the answer does not begin with a call;
    - ``read``: for a family whose output has another shape, the reader of
      the whole generation (``calls`` and ``opening`` then serve only if it
      goes on to read the answer the usual way, as the built-in Kimi-K2 and
      Granite styles do after reading their reasoning their own way);
    - ``marks``: text whose presence in a chat template says its model
      writes this way (see :func:`style_for`), and ``outranks``: the styles
      this one wins over when both are recognised (Qwen3.5's
      ``<function=`` over hermes' ``<tool_call>``, which its template
      holds too);
    - ``opens``: the tokens that begin this family's calls, by which the
      other styles know its markup when they find it in what would be
      their answer's text (see :func:`foreign_markup`). By default the
      call markers that are not closers (do not begin with ``</``).

    A style is immutable, and reads any number of generations at once.
    """

    __slots__ = (
        "_calls",
        "_ends",
        "_markers",
        "_marks",
        "_name",
        "_opening",
        "_opens",
        "_outranks",
        "_read",
        "_thinking",
    )

    def __init__(
        self,
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
    ) -> None:
        self._name = _text(name, "a style's name")
        if any(c.isspace() for c in name):
            raise ValueError(f"a style's name has no white space: {name!r:.60}")
        given = {} if calls is None else calls
        if not isinstance(given, Mapping):
            raise TypeError(f"calls must map markers to readers, not {type(given).__name__}")
        for marker, reader in given.items():
            _text(marker, "a call marker")
            if not callable(reader):
                raise TypeError(f"the reader of {marker!r:.40} is not callable")
        self._calls = MappingProxyType(dict(given))
        self._markers = tuple(given)
        if not isinstance(thinking, Mapping):
            raise TypeError(f"thinking must map openers to closers, not {type(thinking).__name__}")
        self._thinking = MappingProxyType(
            {
                _text(opener, "a thinking opener"): _text(closer, "a thinking closer")
                for opener, closer in thinking.items()
            }
        )
        own = _texts(ends, "ends")
        self._ends = own + tuple(token for token in COMMON_ENDS if token not in own)
        for what, value in (("opening", opening), ("read", read)):
            if value is not None and not callable(value):
                raise TypeError(f"{what} must be callable or None")
        self._opening = opening
        self._read = read
        self._marks = _texts(marks, "marks")
        self._outranks = _texts(outranks, "outranks")
        if opens is None:
            self._opens = tuple(marker for marker in self._markers if not marker.startswith("</"))
        else:
            self._opens = _texts(opens, "opens")

    @property
    def name(self) -> str:
        """The name ``parse_output(style=...)`` knows it by."""
        return self._name

    @property
    def calls(self) -> Mapping[str, CallReader]:
        """Each marker that begins a call in the answer, and its reader."""
        return self._calls

    @property
    def thinking(self) -> Mapping[str, str]:
        """The tags of a reasoning block at the start, opener to closer."""
        return self._thinking

    @property
    def ends(self) -> tuple[str, ...]:
        """The end-of-turn tokens cut off the end of the text: the family's, then the rest."""
        return self._ends

    @property
    def opening(self) -> CallReader | None:
        """The reader of calls written bare at the start of the answer, if the family does."""
        return self._opening

    @property
    def marks(self) -> tuple[str, ...]:
        """Text that, found in a chat template, says its model writes this way."""
        return self._marks

    @property
    def outranks(self) -> tuple[str, ...]:
        """The styles this one wins over when a template has the marks of both."""
        return self._outranks

    @property
    def opens(self) -> tuple[str, ...]:
        """The tokens that begin this family's calls, which other styles flag in their text."""
        return self._opens

    @property
    def own(self) -> frozenset[str]:
        """Every token this style reads: call markers, openers, thinking tags, end tokens."""
        return frozenset(
            (*self._markers, *self._opens, *self._thinking, *self._thinking.values(), *self._ends)
        )

    def reading(self, cur: Cursor) -> Reading:
        """The reading of a whole generation: the style's own ``read``, or the usual shape."""
        if self._read is not None:
            return self._read(self, cur)
        return read_usual(self, cur)

    def __repr__(self) -> str:
        return f"Style({self._name!r})"


def read_thinking(style: Style, cur: Cursor) -> Reading:
    """A reasoning block at the start (or, if the prompt opened it, all up to its closer)."""
    yield from cur.skip_space()
    opener = yield from cur.startswith(*style.thinking)
    if opener:
        cur.take(len(opener))
        closers: tuple[str, ...] = (style.thinking[opener],)
    elif cur.in_thinking:
        closers = tuple(dict.fromkeys(style.thinking.values()))
    else:
        return
    yield from cur.thinking_until(*closers)


def read_answer(style: Style, cur: Cursor) -> Reading:
    """The answer: text, and the calls its markers begin (or that it opens with, bare)."""
    if style.opening is not None:
        yield from cur.skip_space()
        yield from cur.section(style.opening, "")
    markers = tuple(style.calls)
    readers = style.calls
    while True:
        marker = yield from cur.text_until(*markers)
        if not marker:
            return
        yield from cur.section(readers[marker], marker)


def read_usual(style: Style, cur: Cursor) -> Reading:
    """Thinking at the start, then the answer: how most families write."""
    yield from read_thinking(style, cur)
    yield from read_answer(style, cur)


# --- the styles known by name -------------------------------------------------------

_REGISTERED: dict[str, Style] = {}


def builtin_names() -> tuple[str, ...]:
    """The built-in styles, one module each in ``_styles``."""
    from . import _styles

    return tuple(
        sorted(
            info.name
            for info in pkgutil.iter_modules(_styles.__path__)
            if not info.name.startswith("_")
        )
    )


BUILTIN: Final = builtin_names()


def _load(name: str) -> Style:
    module = importlib.import_module(f"{__package__}._styles.{name}")
    style: Style = module.STYLE
    _REGISTERED[name] = style
    return style


def get_style(style: object) -> Style:
    """The style ``style`` names (or is); ``ValueError`` for a name nobody registered."""
    if isinstance(style, Style):
        return style
    if type(style) is not str:
        raise TypeError(f"style= must be a style's name or a Style, not {type(style).__name__}")
    found = _REGISTERED.get(style)
    if found is not None:
        return found
    if style in BUILTIN:
        return _load(style)
    names = (*BUILTIN, *sorted(_REGISTERED.keys() - set(BUILTIN)))
    known = ", ".join(f'"{name}"' for name in names)
    raise ValueError(f"style= must be the name of a style ({known}) or a Style, not {style!r:.80}")


def register(style: Style) -> Style:
    """Make ``style`` known by its name; a name already known is refused."""
    if not isinstance(style, Style):
        raise TypeError(f"expected a Style, not {type(style).__name__}")
    if style.name in BUILTIN or style.name in _REGISTERED:
        raise ValueError(f"a style named {style.name!r} is already registered")
    _REGISTERED[style.name] = style
    return style


def all_styles() -> list[Style]:
    """Every style known: the built-in ones, then those registered, in order."""
    builtin = [get_style(name) for name in BUILTIN]
    return builtin + [style for name, style in _REGISTERED.items() if name not in BUILTIN]


def thinking_openers() -> set[str]:
    """The thinking openers of every style known."""
    return {opener for style in all_styles() for opener in style.thinking}


BUILTIN_OPENS: Final = MappingProxyType(
    {
        "command_r": ("<|START_ACTION|>",),
        "deepseek": (
            "<\uff5ctool\u2581calls\u2581begin\uff5c>",
            "<\uff5ctool\u2581call\u2581begin\uff5c>",
        ),
        "deepseek_dsml": ("<\uff5cDSML\uff5cfunction_calls>", "<\uff5cDSML\uff5ctool_calls>"),
        "gemma4": ("<|tool_call>",),
        "glm45": ("<tool_call>",),
        "granite": ("<|tool_call|>",),
        "harmony": ("<|channel|>",),
        "hermes": ("<tool_call>",),
        "kimi_k2": ("<|tool_calls_section_begin|>", "<|tool_call_begin|>"),
        "kimi_vl": (),
        "llama3": ("<|python_tag|>",),
        "minimax": ("<tool_calls>", "<minimax:tool_call>"),
        "mistral": ("[TOOL_CALLS]",),
        "nemotron": ("<TOOLCALL>",),
        "phi4_mini": ("<|tool_call|>",),
        "pythonic": ("<|python_start|>", "<|tool_call_start|>"),
        "qwen3_coder": ("<tool_call>", "<seed:tool_call>", "<function="),
        "step3": ("<\uff5ctool_calls_begin\uff5c>", "<\uff5ctool_call_begin\uff5c>"),
    }
)
"""Each built-in style's ``opens``, written out so that telling another
family's markup needs no style imported (a test holds it to the modules)."""

_FOREIGN: dict[str, tuple[int, Style, dict[str, str]]] = {}


def foreign_markup(style: Style) -> dict[str, str]:
    """The call tokens of every other style known that ``style`` does not read, and whose.

    Maps each token to the names of the families that write it (``"hermes
    or glm45"``). Found in what ``style`` would return as the answer's text,
    such a token means the generation is likely another family's: with
    ``on_error="raise"`` the reader says so rather than pass it on as text.
    """
    known = _FOREIGN.get(style.name)
    if known is not None and known[0] == len(_REGISTERED) and known[1] is style:
        return known[2]
    own = style.own
    opens = dict(BUILTIN_OPENS)
    opens.update((name, other.opens) for name, other in _REGISTERED.items() if name not in BUILTIN)
    families: dict[str, list[str]] = {}
    for name, tokens in opens.items():
        if name == style.name:
            continue
        for token in tokens:
            if token not in own:
                families.setdefault(token, []).append(name)
    found = {token: " or ".join(names) for token, names in families.items()}
    if len(_FOREIGN) >= 64:
        _FOREIGN.clear()  # a program that makes ever new styles
    _FOREIGN[style.name] = (len(_REGISTERED), style, found)
    return found


def style_for(template: str) -> Style | None:
    """The style of the family whose chat template ``template`` is, or ``None``.

    A style is recognised when the template holds one of its ``marks``;
    of several, the ones another recognised style outranks drop out. One
    left is the answer; none or several (a template that could be of two
    families) give ``None``.
    """
    if type(template) is not str:
        raise TypeError(f"template must be the chat template's text, not {type(template).__name__}")
    found = [style for style in all_styles() if any(mark in template for mark in style.marks)]
    beaten = {name for style in found for name in style.outranks}
    left = [style for style in found if style.name not in beaten]
    return left[0] if len(left) == 1 else None
