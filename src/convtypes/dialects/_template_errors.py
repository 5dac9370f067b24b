"""The chat-template dialect's two errors: a prompt it cannot render, a generation it cannot read.

Both are :class:`DialectError` subclasses, so a backend that already
handles the provider dialects' errors handles these too. Nothing from
jinja2, ``json`` or msgspec leaves the dialect: a failure there becomes one
of these, with the original kept as ``__cause__``.
"""

from __future__ import annotations

from ._errors import DialectError, ResponseError


class TemplateError(DialectError):
    """A chat template that did not render the conversation.

    Raised when the template refuses it (its ``raise_exception``), when the
    template text is not valid Jinja, and when rendering fails inside the
    template (an undefined value used, a type error, a forbidden operation
    in the sandbox). ``refusal`` is the template's own message when it
    refused, and ``None`` otherwise; ``line`` is the line of the template
    where it happened, when jinja2 tells (``None`` if not).
    """

    def __init__(self, text: str, *, line: int | None = None, refusal: str | None = None) -> None:
        super().__init__(text, None)
        self.line = line
        self.refusal = refusal


class OutputError(ResponseError):
    """A model's raw generation that cannot be read as the style says.

    ``offset`` is the position in the generation, in characters, where the
    trouble is: the start of a tool call that is malformed or cut off, or a
    tag the style does not know. A streaming read reports the same offset
    however the text was split into chunks.
    """

    def __init__(self, text: str, offset: int) -> None:
        super().__init__(f"{text} (at character {offset})", None)
        self.offset = offset
