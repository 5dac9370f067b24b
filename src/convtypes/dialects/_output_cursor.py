"""The cursor a style reads a generation with: text that may still be arriving.

A style reads through this cursor's waiting methods only. Each is a
generator: ``yield from cur.peek(4)`` returns once the text so far settles
the answer, and until then hands control back to the caller, who feeds the
next chunk. None of them answers from text that a later chunk could change
(a tag cut in two, a JSON string still open), so a style written with them
reads any split of the same text the same way: ``parse_output`` is one
chunk, ``OutputStream`` many, and they agree on the message, or on the
error and its offset.

The cursor also keeps what has been read: the answer's text in runs (each
trimmed of the white space around it, runs joined by a blank line), the
reasoning, the calls; and it turns what it shows into the deltas a stream
returns. End-of-turn tokens at the very end of the text are not shown.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Generator, Mapping
from types import MappingProxyType
from typing import Any, Final, Protocol, TypeVar

from .._errors import WireError
from .._messages import AssistantMessage, ThinkingBlock, ToolCall
from . import _call_json as call_json
from ._json import arguments_json
from ._json_span import JsonSpan
from ._reply import Delta, TextDelta, ThinkingDelta, ToolCallDelta, ToolCallStart
from ._template_errors import OutputError

_T = TypeVar("_T")

Wait = Generator[None, None, _T]
"""A cursor method that may wait for more text, then returns a ``_T``: ``yield from`` it."""

Reading = Generator[None, None, None]
"""A style's reading of (part of) a generation: a generator that uses the cursor's methods."""

CallReader = Callable[["Cursor", str], Reading]
"""Reads what follows a call marker (given as the second argument) in the answer."""

JOIN: Final = "\n\n"

_SPACE: Final = re.compile(r"\s*")


class Span(Protocol):
    """What finds where a value ends as its text streams in (``JsonSpan``, ``PySpan``)."""

    mismatch: tuple[str, str] | None

    def feed(self, text: str) -> int | None: ...


class _NotACall(Exception):
    """Raised by a style when what it began to read as a call is text after all."""


class Tags:
    """Tags to find in text as it streams, with what makes the search cheap."""

    __slots__ = ("buckets", "by_length", "firsts", "lasts", "longest", "tags")

    def __init__(self, tags: tuple[str, ...]) -> None:
        self.tags = tags
        self.by_length = tuple(sorted(tags, key=len, reverse=True))
        self.longest = max((len(tag) for tag in tags), default=0)
        self.firsts = "".join(sorted({tag[0] for tag in tags}))
        self.lasts = "".join(sorted({tag[-1] for tag in tags}))
        # The tags by their first two characters (one, for a tag that short),
        # longest first: many tags are looked for by hopping from one first
        # character to the next rather than by a scan of the text per tag.
        buckets: dict[str, list[str]] = {}
        for tag in self.by_length:
            buckets.setdefault(tag[:2], []).append(tag)
        self.buckets = {key: tuple(found) for key, found in buckets.items()}

    def absent(self, buf: str) -> bool:
        """Whether no tag, not even the start of one, can be in ``buf``."""
        return not any(first in buf for first in self.firsts)

    def partial(self, buf: str) -> int:
        """The length of the longest end of ``buf`` that one of the tags could grow from."""
        start = max(0, len(buf) - self.longest + 1)
        found = [at for at in (buf.find(first, start) for first in self.firsts) if at != -1]
        if not found:
            return 0
        for at in range(min(found), len(buf)):
            if buf[at] in self.firsts:
                rest = buf[at:]
                if any(tag.startswith(rest) and tag != rest for tag in self.tags):
                    return len(buf) - at
        return 0

    def run_at_end(self, buf: str) -> int:
        """Where a run of these tags (and white space) that ends ``buf`` starts.

        ``len(buf)`` when ``buf`` does not end with one of them.
        """
        start = len(buf)
        while True:
            trimmed = buf[:start].rstrip()
            if not trimmed or trimmed[-1] not in self.lasts:
                return start
            token = next((token for token in self.tags if trimmed.endswith(token)), None)
            if token is None:
                return start
            start = len(trimmed) - len(token)

    def _each(self, buf: str, start: int) -> tuple[int, str]:
        """The earliest whole tag in ``buf[start:]``, by a search per tag (for a few)."""
        best, found = -1, ""
        for tag in self.tags:
            # Once a tag is found, the others are looked for only up to where
            # they could still start before it (or at it, longer).
            at = buf.find(tag, start) if best == -1 else buf.find(tag, start, best + len(tag))
            if at != -1 and (best == -1 or at < best or (at == best and len(tag) > len(found))):
                best, found = at, tag
        return best, found

    def _earliest(self, buf: str, start: int) -> tuple[int, str]:
        """As :meth:`_each`, hopping from one tag's first character to the next (for many)."""
        buckets = self.buckets
        ahead = {first: buf.find(first, start) for first in self.firsts}
        while True:
            places = [at for at in ahead.values() if at != -1]
            if not places:
                return -1, ""
            at = min(places)
            for tag in buckets.get(buf[at : at + 2], ()):
                if buf.startswith(tag, at):
                    return at, tag
            for tag in buckets.get(buf[at], ()):
                if buf.startswith(tag, at):
                    return at, tag
            char = buf[at]
            ahead[char] = buf.find(char, at + 1)

    def first(self, buf: str, start: int, final: bool) -> tuple[int, str]:
        """The earliest tag in ``buf[start:]`` that no later text can displace.

        ``(-1, "")`` when there is none yet. At the same place the longer tag
        wins; a tag found near the end waits while a longer one (or one that
        starts before it) could still complete there.
        """
        best, found = self._earliest(buf, start) if len(self.tags) > 4 else self._each(buf, start)
        if best == -1 or final or best + self.longest <= len(buf):
            return best, found
        firsts = self.firsts
        for at in range(max(start, len(buf) - self.longest + 1), best + 1):
            if buf[at] in firsts:
                rest = buf[at:]
                if any(len(tag) > len(rest) and tag.startswith(rest) for tag in self.tags):
                    return -1, ""
        return best, found


_KNOWN: dict[tuple[str, ...], Tags] = {}


_WITH_ENDS: dict[tuple[tuple[str, ...], Tags], Tags] = {}


def tags_of(tags: tuple[str, ...]) -> Tags:
    """The :class:`Tags` of ``tags``, made once: a style reads with the same few sets."""
    found = _KNOWN.get(tags)
    if found is None:
        if len(_KNOWN) >= 512:
            _KNOWN.clear()  # a program that reads with ever new tags
        found = _KNOWN[tags] = Tags(tags)
    return found


def with_ends(tags: tuple[str, ...], ends: Tags) -> Tags:
    """The :class:`Tags` of ``tags`` and the end tokens ``ends``, made once."""
    found = _WITH_ENDS.get((tags, ends))
    if found is None:
        if len(_WITH_ENDS) >= 512:
            _WITH_ENDS.clear()
        found = _WITH_ENDS[tags, ends] = Tags(tags + ends.tags)
    return found


class Cursor:
    """The generation as it arrives, read by a style, and the message it makes.

    Methods that return a :data:`Wait` may wait for more text: call them
    with ``yield from`` inside the style's generator. They return only what
    no later text can change, and at the end of the text they decide with
    what there is. The others act at once.

    Errors: raise ``cur.error(...)`` for text that cannot be read, and
    ``cur.not_a_call()`` inside a call reader when what it read is text
    after all (a Llama answer that is JSON but not a call). With
    ``on_error="text"`` a call section that raises either is kept as the raw
    text it was, and reading goes on after it.
    """

    __slots__ = (
        "_announced",
        "_base",
        "_buf",
        "_calls",
        "_content",
        "_emit",
        "_end_tags",
        "_final",
        "_foreign",
        "_foreign_tokens",
        "_in_run",
        "_in_thinking",
        "_in_thinking_run",
        "_keep",
        "_mark",
        "_out",
        "_pos",
        "_section_at",
        "_seen",
        "_streamed",
        "_text_errors",
        "_text_space",
        "_thinking",
        "_thinking_space",
        "_tools",
    )

    def __init__(
        self,
        ends: tuple[str, ...],
        in_thinking: bool,
        tools: Mapping[str, dict[str, Any]] | None,
        text_errors: bool,
        emit: bool = True,
        foreign: Mapping[str, str] | None = None,
    ) -> None:
        self._in_thinking = in_thinking
        # Other families' call tokens, by which families: in the answer's text they
        # raise (or, with text_errors, stay text). See _output_style.foreign_markup.
        self._foreign = {} if foreign is None else dict(foreign)
        self._foreign_tokens = tuple(self._foreign)
        self._tools = None if tools is None else MappingProxyType(dict(tools))
        self._text_errors = text_errors
        self._emit = emit  # whether to make deltas: a whole read (parse_output) needs none
        self._end_tags = tags_of(ends)
        self._buf = ""
        self._pos = 0  # where reading is, in _buf
        self._seen = 0  # the end of what a method returned, in _buf: take() stops there
        self._base = 0  # the offset of _buf[0] in the whole generation
        self._final = False
        self._keep: int | None = None  # an offset whose text must stay in _buf
        self._out: list[Delta] = []
        # What has been shown.
        self._thinking: list[str] = []
        self._thinking_space = ""
        self._in_thinking_run = False
        self._content: list[str] = []
        self._text_space = ""
        self._in_run = False
        self._calls: list[ToolCall] = []
        # The call section being read.
        self._section_at = 0
        self._mark = 0
        self._announced: tuple[str, str | None] | None = None
        self._streamed = False

    # --- fed by the reader (``_generation``), never by a style ------------------------

    def _append(self, chunk: str) -> None:
        """Add the next chunk, dropping what has been read and need not be kept."""
        cut = self._pos if self._keep is None else min(self._pos, self._keep - self._base)
        if cut == len(self._buf):
            self._buf = chunk
        else:
            self._buf = self._buf[cut:] + chunk
        self._base += cut
        self._pos -= cut
        self._seen = max(0, self._seen - cut)

    def _end(self) -> None:
        """The text is all there: every method now decides with what it has."""
        self._final = True

    def _deltas(self) -> list[Delta]:
        """The deltas made since the last call."""
        out = self._out
        self._out = []
        return out

    def _message(self) -> AssistantMessage:
        """The message read so far: text and reasoning shown, calls complete."""
        thinking = "".join(self._thinking)
        return AssistantMessage(
            content="".join(self._content),
            tool_calls=tuple(self._calls),
            thinking=(ThinkingBlock(text=thinking),) if thinking else (),
        )

    # --- where reading is ----------------------------------------------------------

    @property
    def offset(self) -> int:
        """Where reading is, in characters from the start of the generation."""
        return self._base + self._pos

    @property
    def in_thinking(self) -> bool:
        """Whether the prompt opened a thinking block that the generation starts inside."""
        return self._in_thinking

    @property
    def start(self) -> int:
        """Where the call section being read began (its marker), in characters."""
        return self._section_at

    @property
    def ends(self) -> tuple[str, ...]:
        """The end-of-turn tokens of the style, cut off the end of the text."""
        return self._end_tags.tags

    def since(self, offset: int) -> str:
        """The text from ``offset`` to where reading is, within the call being read."""
        if self._keep is None or not self._keep <= offset <= self.offset:
            raise ValueError(f"since({offset}) is outside the call being read")
        return self._buf[offset - self._base : self._pos]

    def take(self, count: int) -> str:
        """Move past the next ``count`` characters, which a method returned, and return them.

        Only text :meth:`peek`, :meth:`peek_to` or :meth:`startswith` gave
        can be taken: text they have not settled may not be there yet.
        """
        end = self._pos + count
        if count < 0 or end > max(self._seen, self._pos):
            raise ValueError(f"take({count}) goes past the text a method returned")
        piece = self._buf[self._pos : end]
        self._pos = end
        return piece

    def peek(self, count: int) -> Wait[str]:
        """The next ``count`` characters, not taken; fewer only at the end of the text."""
        while len(self._buf) - self._pos < count and not self._final:
            yield
        found = self._buf[self._pos : self._pos + count]
        self._seen = self._pos + len(found)
        return found

    def peek_to(self, stops: str, limit: int) -> Wait[str]:
        """The next characters up to and including the first of ``stops``, not taken.

        Looks at most ``limit`` characters ahead: what comes back is shorter
        than ``limit`` only when it ends with a stop or the text ends.
        """
        scanned = 0
        while True:
            buf, pos = self._buf, self._pos
            window = buf[pos : pos + limit]
            for at in range(scanned, len(window)):
                if window[at] in stops:
                    self._seen = pos + at + 1
                    return window[: at + 1]
            if len(window) >= limit or self._final:
                self._seen = pos + len(window)
                return window
            scanned = len(window)
            yield

    def startswith(self, *options: str) -> Wait[str]:
        """Which of ``options`` the text goes on with (the longest), not taken; ``""`` for none."""
        known = tags_of(options)
        while True:
            rest = self._buf[self._pos : self._pos + known.longest]
            if rest and rest[0] not in known.firsts:
                return ""
            if (
                len(rest) == known.longest
                or self._final
                or not any(len(o) > len(rest) and o.startswith(rest) for o in options)
            ):
                # No option can still grow out of the text: the answer is settled.
                found = next((option for option in known.by_length if rest.startswith(option)), "")
                self._seen = self._pos + len(found)
                return found
            yield

    def skip_space(self) -> Wait[None]:
        """Move past white space, up to the next other character or the end."""
        while True:
            buf = self._buf
            self._pos = pos = _SPACE.match(buf, self._pos).end()  # type: ignore[union-attr]
            if pos < len(buf) or self._final:
                return
            yield

    def until(self, *tags: str) -> Wait[tuple[str, str]]:
        """The text up to the first of ``tags``, and that tag; both taken.

        At the end of the text with no tag, the rest and ``""``.
        """
        found = self._tags(tags)[0]
        scanned = 0
        while True:
            buf, pos = self._buf, self._pos
            at, tag = found.first(buf, pos + max(0, scanned - found.longest + 1), self._final)
            if at != -1:
                self._pos = at + len(tag)
                return buf[pos:at], tag
            if self._final:
                self._pos = len(buf)
                return buf[pos:], ""
            scanned = len(buf) - pos
            yield

    def json(self, *, at: int | None = None, stream: bool = False) -> Wait[str | None]:
        """The text of the JSON object or array that starts here, taken.

        ``None`` when the text ends before it closes (the rest is taken).
        With ``stream``, its text goes out as it comes as arguments of the
        call announced last (see :meth:`announce`). Raises ``OutputError``
        (at ``at``, by default the call section's start) for brackets that
        do not match. Call it only where the text goes on with ``{`` or ``[``.
        """
        return self.span(JsonSpan(), at=at, stream=stream)

    def span(
        self, counter: Span, *, at: int | None = None, stream: bool = False
    ) -> Wait[str | None]:
        """As :meth:`json`, for a value whose end ``counter`` finds (Python's, say).

        ``counter.feed(piece)`` is given the text from here on, piece by
        piece, and returns where in the piece the value ends (or ``None``);
        its ``mismatch``, when set, names the brackets that do not match.
        """
        scanned = 0  # how much of the text after _pos the counter has seen
        stream = stream and self._announced is not None and not self._text_errors and self._emit
        index = len(self._calls)
        while True:
            buf, pos = self._buf, self._pos
            fresh = buf[pos + scanned :]
            end = counter.feed(fresh) if fresh else None
            if end is not None:
                if stream:
                    self._out.append(ToolCallDelta(index, fresh[:end]))
                    self._streamed = True
                stop = pos + scanned + end
                self._pos = stop
                if counter.mismatch is not None:
                    opened, closing = counter.mismatch
                    raise self.error(
                        f"the tool call's brackets do not match: a {closing!r} closes a {opened!r}",
                        at,
                    )
                return buf[pos:stop]
            if fresh:
                if stream:
                    self._out.append(ToolCallDelta(index, fresh))
                    self._streamed = True
                scanned += len(fresh)
            if self._final:
                self._pos = len(buf)
                return None
            yield

    # --- showing text ----------------------------------------------------------------

    def text_until(self, *tags: str) -> Wait[str]:
        """Show the text as the answer up to the first of ``tags``; return the tag, taken.

        ``""`` at the end of the text. Text is shown as soon as no later
        chunk can change it: held back are only what could still begin a
        tag or an end-of-turn token, and white space at the edge. A run of
        end-of-turn tokens that ends the text is not shown.

        Another family's call token in the text (one the style does not
        read, and not among ``tags``) raises ``OutputError`` naming the
        family; with ``on_error="text"`` it is shown as text.
        """
        return self._show_until(tags, self._show_text, self._foreign_in(tags))

    def rest_as_text(self) -> Reading:
        """Show whatever is left to read as the answer's text (what a style left unread)."""
        if self._final and self._pos >= len(self._buf):
            return
        yield from self._show_until((), self._show_text, self._foreign_tokens)

    def _foreign_in(self, tags: tuple[str, ...]) -> tuple[str, ...]:
        """The other families' tokens to look for beside ``tags``."""
        if not tags or not self._foreign_tokens:
            return self._foreign_tokens
        return tuple(token for token in self._foreign_tokens if token not in tags)

    def thinking_until(self, *tags: str) -> Wait[str]:
        """As :meth:`text_until`, for reasoning; each call is a run of it."""
        self._in_thinking_run = False
        return self._show_until(tags, self._show_thinking)

    def _tags(self, tags: tuple[str, ...]) -> tuple[Tags, Tags]:
        """The tags themselves, and with the end tokens (which text holds back too)."""
        return tags_of(tags), with_ends(tags, self._end_tags)

    def _show_until(
        self, tags: tuple[str, ...], show: Callable[[str], None], foreign: tuple[str, ...] = ()
    ) -> Wait[str]:
        search = tags + foreign if foreign else tags
        found, held = self._tags(search)
        ends = self._end_tags
        while True:
            buf, pos = self._buf, self._pos
            if pos < len(buf):
                piece = buf[pos:] if pos else buf
                if held.absent(piece):
                    # The usual chunk of prose: no tag can start in it.
                    show(piece)
                    self._pos = len(buf)
                elif search and (hit := found.first(piece, 0, self._final))[0] != -1:
                    at, tag = hit
                    if foreign and tag not in tags:
                        if not self._text_errors:
                            raise self._foreign_error(tag, self._base + pos + at)
                        show(piece[: at + len(tag)])
                        self._pos = pos + at + len(tag)
                        continue
                    show(piece[:at])
                    self._pos = pos + at + len(tag)
                    return tag
                elif self._final:
                    show(piece[: ends.run_at_end(piece)])
                    self._pos = len(buf)
                else:
                    safe = len(piece) - held.partial(piece)
                    # An end token may end in what could begin another ("[e~[" of
                    # MiniMax): the run that ends the whole piece is held back too.
                    safe = min(safe, ends.run_at_end(piece[:safe]), ends.run_at_end(piece))
                    if safe > 0:
                        show(piece[:safe])
                        self._pos = pos + safe
            if self._final and self._pos >= len(self._buf):
                return ""
            yield

    def _foreign_error(self, token: str, at: int) -> OutputError:
        families = self._foreign[token]
        return OutputError(
            f"the answer holds {token}, which begins a tool call as {families} writes it, "
            "not as this style does: read the generation with that style, or keep such "
            'text as text with on_error="text"',
            at,
        )

    def _show_text(self, piece: str) -> None:
        if not piece:
            return
        if not self._in_run:
            piece = piece.lstrip()
            if not piece:
                return
            self._in_run = True
            self._text_space = JOIN if self._content else ""
        core = piece.rstrip()
        if core:
            text = self._text_space + core
            self._content.append(text)
            if self._emit:
                self._out.append(TextDelta(text))
            self._text_space = piece[len(core) :]
        else:
            self._text_space += piece

    def _show_thinking(self, piece: str) -> None:
        if not piece:
            return
        if not self._in_thinking_run:
            piece = piece.lstrip()
            if not piece:
                return
            self._in_thinking_run = True
            self._thinking_space = JOIN if self._thinking else ""
        core = piece.rstrip()
        if core:
            text = self._thinking_space + core
            self._thinking.append(text)
            if self._emit:
                self._out.append(ThinkingDelta(text))
            self._thinking_space = piece[len(core) :]
        else:
            self._thinking_space += piece

    def new_run(self) -> None:
        """End the current run of text: what is shown next starts a new one."""
        self._in_run = False
        self._text_space = ""

    # --- calls -----------------------------------------------------------------------

    def section(self, reader: CallReader, marker: str) -> Reading:
        """Read the call ``marker`` (just taken) begins, with ``reader``.

        The section's text runs from the marker: call this right after the
        method that took it, with no wait between (``""`` when there is no
        marker, as for calls a family writes bare). If the reader raises
        ``cur.not_a_call()``, or an ``OutputError`` when reading with
        ``on_error="text"``, what it read since the marker (or since the
        last call it completed) is shown as text, and reading goes on from
        where the reader stopped.
        """
        start = max(self.offset - len(marker), self._base)
        self._section_at = self._mark = start
        self._keep = start
        self._announced = None
        self._streamed = False
        try:
            yield from reader(self, marker)
        except _NotACall:
            self._as_text()
        except OutputError:
            if not self._text_errors:
                raise
            self._as_text()
        finally:
            self._keep = None
            self._announced = None

    def _as_text(self) -> None:
        raw = self._buf[self._mark - self._base : self._pos]
        if self._final and self._pos >= len(self._buf):
            raw = raw[: self._end_tags.run_at_end(raw)]
        self._show_text(raw)

    def error(self, text: str, at: int | None = None) -> OutputError:
        """The error to raise for text that cannot be read, at ``at`` (the section's start)."""
        return OutputError(text, self._section_at if at is None else at)

    def not_a_call(self) -> Exception:
        """The exception to raise when what a call reader read is text after all."""
        return _NotACall()

    @property
    def tools(self) -> Mapping[str, dict[str, Any]] | None:
        """The tools offered, by name, with their arguments' JSON Schemas; ``None`` if not said."""
        return self._tools

    def offered(self, name: str) -> bool:
        """Whether ``name`` is one of the tools offered (True when none were said)."""
        return self._tools is None or name in self._tools

    def parameters(self, name: str) -> dict[str, Any] | None:
        """The JSON Schema of the arguments of the tool ``name``, if it was offered."""
        return None if self._tools is None else self._tools.get(name)

    def _not_offered(self, name: str, at: int | None) -> OutputError:
        return self.error(f"a call to {name!r:.60}, which is not among the tools offered", at)

    def announce(self, name: str, call_id: str | None = None, *, at: int | None = None) -> None:
        """Make the call's start known before its arguments are read (for a stream).

        With ``on_error="text"`` nothing is announced: a call is given whole
        once read, since until then it may turn out to be text.
        """
        if self._tools is not None and name not in self._tools:
            raise self._not_offered(name, at)
        self._announced = (name, call_id)
        if not self._text_errors and self._emit:
            self._out.append(ToolCallStart(len(self._calls), call_id, name))

    def add_call(
        self,
        name: str,
        arguments: dict[str, Any],
        call_id: str | None = None,
        *,
        at: int | None = None,
    ) -> None:
        """Add a call that has been read whole; it ends the run of text before it."""
        if type(name) is not str or not name:
            raise self.error("a tool call has no name", at)
        if type(arguments) is not dict:
            raise self.error(f"the arguments of tool call {name!r:.60} are not a JSON object", at)
        if call_id is not None and type(call_id) is not str:
            raise self.error(f"tool call {name!r:.60} has an id that is not text", at)
        if self._tools is not None and name not in self._tools:
            raise self._not_offered(name, at)
        try:
            call = ToolCall(id=call_id, name=name, arguments=arguments)
        except WireError as err:
            raise self.error(f"tool call {name!r:.60} cannot be kept: {err}", at) from None
        index = len(self._calls)
        self._calls.append(call)
        if not self._emit:
            pass
        elif self._announced is None or self._text_errors:
            self._out.append(ToolCallStart(index, call.id, call.name))
            self._out.append(ToolCallDelta(index, arguments_json(call.arguments)))
        elif not self._streamed:
            self._out.append(ToolCallDelta(index, arguments_json(call.arguments)))
        self._announced = None
        self._streamed = False
        self.new_run()
        self._mark = self.offset
        if self._keep is not None:
            self._keep = self._mark

    def loads(self, raw: str, *, at: int | None = None, levels: int = 2) -> Any:
        """JSON text a model wrote, as a value; ``levels`` is how deep the arguments sit in it."""
        return call_json.decode(raw, self._section_at if at is None else at, levels)
