"""Provider dialects: a transcript to a request, a response or stream back to messages.

One module per provider API, each with the same three names:

- ``to_request(messages, *, fence_external=True, unsupported="raise")``: the
  conversation part of a request body, as plain JSON-ready dicts;
- ``from_response(response)``: the messages to append to the transcript, from
  the response as a dict (the REST JSON) or as the official SDK's object;
- ``Accumulator``: ``feed(event)`` for each streamed event, then ``result()``,
  which equals ``from_response`` of the same response.

For bad input, ``from_response`` raises only ``ResponseError``, and ``feed``
and ``result`` only ``StreamError``; an error no check foresaw is wrapped in
one, with the original as ``__cause__``. ``to_request`` raises
``DialectError`` subclasses for a transcript it cannot send.

The modules are :mod:`~convtypes.dialects.anthropic`,
:mod:`~convtypes.dialects.openai_chat`,
:mod:`~convtypes.dialects.openai_responses` and
:mod:`~convtypes.dialects.gemini`. They need nothing but convtypes and the
standard library; ``import convtypes`` does not import them.
"""

from ._errors import (
    DialectError,
    ResponseError,
    StreamError,
    UnansweredCall,
    UnmatchedResult,
    Unsupported,
    UnsupportedContent,
)

__all__ = [
    "DialectError",
    "ResponseError",
    "StreamError",
    "UnansweredCall",
    "UnmatchedResult",
    "Unsupported",
    "UnsupportedContent",
]
