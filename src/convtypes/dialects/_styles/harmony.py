"""``"harmony"``: gpt-oss, whose turn is a series of messages on channels.

The prompt ends with ``<|start|>assistant``; the model writes one message
after another, each a header, ``<|message|>`` and its content::

    <|channel|>analysis<|message|>The user wants the weather.<|end|>
    <|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json
    <|message|>{"city": "Oslo"}<|call|>

    <|channel|>analysis<|message|>Easy.<|end|>
    <|start|>assistant<|channel|>final<|message|>Paris.<|return|>

(each message on one line, and with nothing between them).
The channel says what the content is: ``analysis`` is reasoning,
``final`` the answer, ``commentary`` a preamble shown to the user. A
header that names a recipient (``to=functions.get_weather``, before or
after the channel) makes the message a call, its content the arguments as
JSON; the ``functions.`` of the recipient is dropped from the call's name,
and a built-in tool's recipient (``browser.search``) is kept whole. Content
that is not a JSON object (the ``python`` tool's code) is not a call this
can hold, and raises. Reasoning and text of several messages are joined by a blank line.
``<|call|>`` and ``<|return|>``, which stop the generation, may be missing
from the text: a call whose JSON is whole at the end is read.
"""

from __future__ import annotations

import re
from typing import Final

from .._json import parse_arguments
from .._output_cursor import Cursor, Reading, Wait
from .._output_style import Style

START: Final = "<|start|>"
CHANNEL: Final = "<|channel|>"
MESSAGE: Final = "<|message|>"
CONSTRAIN: Final = "<|constrain|>"
END: Final = "<|end|>"
CALL: Final = "<|call|>"
RETURN: Final = "<|return|>"
_CONTENT_ENDS: Final = (END, CALL, RETURN, START, CHANNEL)
_HEADER_ENDS: Final = (MESSAGE, START, END, CALL, RETURN)

_RECIPIENT: Final = re.compile(r"\bto=([^\s<]+)")
_CHANNEL: Final = re.compile(r"<\|channel\|>\s*([A-Za-z0-9_]+)")
_CONSTRAIN: Final = re.compile(r"<\|constrain\|>\s*([^\s<]+)")
_NOT_RECIPIENTS: Final = frozenset({"assistant", "user", "system", "developer"})


class _Header:
    """What the header of the message being read says."""

    __slots__ = ("channel", "kind")

    def __init__(self) -> None:
        self.channel: str | None = None
        self.kind = ""  # "text" or "thinking" once a header other than a call's is read


def read(style: Style, cur: Cursor) -> Reading:
    """The whole generation: messages, and any text outside them."""
    header = _Header()
    pending = ""
    if cur.in_thinking:
        # The prompt opened an analysis message: the generation starts in it.
        pending = yield from read_content(cur, "thinking")
    elif (yield from cur.startswith(" to=", "to=")):
        # Right after "<|start|>assistant": the header goes on, naming a recipient.
        pending = yield from read_message(cur, header, "")
    while True:
        tag = pending or (yield from cur.text_until(START, CHANNEL))
        if not tag:
            return
        pending = yield from read_message(cur, header, tag)


def read_message(cur: Cursor, header: _Header, tag: str) -> Wait[str]:
    """One message from its header's ``tag`` on; the tag that ended it if it began the next."""
    header.kind = ""
    yield from cur.section(lambda cur, marker: read_header(cur, header, marker), tag)
    if not header.kind:
        return ""  # a call, read in the section, or a header cut off
    return (yield from read_content(cur, header.kind))


def read_content(cur: Cursor, kind: str) -> Wait[str]:
    """A message's text or reasoning, up to what ends it; that tag if it begins the next."""
    if kind == "thinking":
        tag = yield from cur.thinking_until(*_CONTENT_ENDS)
    else:
        tag = yield from cur.text_until(*_CONTENT_ENDS)
        cur.new_run()
    return tag if tag in (START, CHANNEL) else ""


def read_header(cur: Cursor, header: _Header, tag: str) -> Reading:
    """The header after ``tag``, up to ``<|message|>``; a call's content too."""
    text, end = yield from cur.until(*_HEADER_ENDS)
    text = tag + text
    recipient = _RECIPIENT.search(text)
    name = recipient.group(1) if recipient else ""
    if name in _NOT_RECIPIENTS:
        name = ""
    if end != MESSAGE:
        if end:
            raise cur.error(f"a message header that ends with {end}, not {MESSAGE}")
        if name:
            raise cur.error("the tool call is cut off in its header")
        return  # a header cut off before any content: nothing of the answer in it
    channel = _CHANNEL.search(text)
    if not name:
        header.kind = "thinking" if channel and channel.group(1) == "analysis" else "text"
        return
    if name.startswith("functions."):
        name = name[len("functions.") :]
    kind = _content_type(text, channel)
    cur.announce(name)
    content, stop = yield from cur.until(CALL, END, RETURN)
    try:
        arguments = parse_arguments(content)
    except ValueError as err:
        if not stop:
            raise cur.error("the tool call is cut off") from None
        if kind and "json" not in kind:
            # The python tool's code, say: no arguments a call can hold.
            raise cur.error(
                f"a call to {name!r:.60} whose content is {kind!r:.20}, not JSON"
            ) from None
        raise cur.error(f"the call's arguments cannot be read: {err}") from None
    cur.add_call(name, arguments)


def _content_type(header: str, channel: re.Match[str] | None) -> str:
    """The content type a header gives (``<|constrain|>json``, or a word after the channel)."""
    constrained = _CONSTRAIN.search(header)
    if constrained:
        return constrained.group(1).lower()
    if channel is None:
        return ""
    words = [word for word in header[channel.end() :].split() if not word.startswith("to=")]
    return words[0].lower() if words else ""


STYLE = Style(
    "harmony",
    read=read,
    thinking={CHANNEL + "analysis" + MESSAGE: END},
    ends=(RETURN, CALL, END),
    marks=(CHANNEL,),
    opens=(CHANNEL,),
)
