"""What a chat-completions request leaves out, where Mistral and Cohere name it alike.

Their ``left_out`` walks the transcript as ``to_request`` does and names
each piece that does not go: their own items go back through the same
replay (a field an assistant message takes no input for, a call cut off at
the token limit), another provider's items and items that are no message
object are dropped, and a user's media are held to what the wire takes.
The thinking each sends differs, and stays with each dialect.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Iterable, Iterator
from typing import Any, Final

from .._content import AudioBase64Block, ImageBase64Block, ImageUrlBlock, TextBlock
from .._messages import Message, ProviderOutputItemsMessage, UserMultimodalMessage
from .._unknown import UnknownBlock, UnknownMessage
from ._chat_request import Media
from ._errors import Unsupported, check_unsupported
from ._left_out import LeftOut, in_item
from ._media import image_type
from ._send import transcript_of

NOT_A_MESSAGE: Final = "an item that is not a message object has no place in the request"
NO_FIELD: Final = "an assistant message takes no such input field"
CUT_CALL: Final = "a call cut off at the token limit is not sent: no result answers it"


def sendable(
    messages: Iterable[Message | UnknownMessage],
    unsupported: Unsupported,
    to_request: Callable[..., object],
) -> list[Any]:
    """The transcript ``left_out`` walks, refused where ``to_request`` refuses it.

    Media aside: ``left_out`` names those under either ``unsupported``; and
    messages a newer writer made, which it names whatever ``unknown=``.
    """
    check_unsupported(unsupported)
    transcript = transcript_of(messages, "left_out")
    to_request(transcript, unsupported="note", unknown="skip")  # raises what it raises
    return transcript


def own_items(
    index: int, message: ProviderOutputItemsMessage, out: list[LeftOut], protocol: str, dialect: str
) -> Iterator[tuple[int, dict[str, Any]]]:
    """The message objects among the items of ``protocol``, each with its place.

    ``out`` gets the rest: every item of another provider's protocol (one
    piece for them all), and each item that is no message object.
    """
    if message.protocol != protocol:
        if message.items:
            why = (
                f"{message.protocol!r:.40} items belong to another provider; "
                f"{dialect} is sent the assistant message beside them"
            )
            out.append(LeftOut(index, "items", why))
        return
    for place, item in enumerate(message.items):
        if isinstance(item, dict):
            yield place, item
        else:
            out.append(LeftOut(index, "items", f"{in_item(place)}: {NOT_A_MESSAGE}"))


def kept_item_left_out(
    index: int,
    place: int,
    item: dict[str, Any],
    input_keys: Container[str],
    runnable: Callable[[dict[str, Any]], bool],
) -> list[LeftOut]:
    """What of a kept message its replay does not send: fields with no input, cut calls."""
    out = [
        LeftOut(index, "items", f"{in_item(place, key)}: {NO_FIELD}")
        for key in item
        if key not in input_keys
    ]
    calls = item.get("tool_calls")
    for position, call in enumerate(calls if isinstance(calls, list) else ()):
        if isinstance(call, dict) and not runnable(call):
            where = in_item(place, "tool_calls", position)
            out.append(LeftOut(index, "call", f"{where}: {CUT_CALL}"))
    return out


def media_left_out(
    index: int, message: UserMultimodalMessage, media: Media, other_audio: str
) -> list[LeftOut]:
    """What of a user's media the wire does not take, block by block, noted or not.

    An image ``detail`` it does not know, an image type it refuses, audio it
    takes no part for (``other_audio`` says why, where it takes none of a
    kind but inline), a sample rate ``input_audio`` has no field for, video.
    A block a newer writer made is refused by ``to_request``, never sent.
    """
    dialect = media.dialect
    out: list[LeftOut] = []
    for position, block in enumerate(message.content):
        where = f"block {position}"
        if isinstance(block, (TextBlock, UnknownBlock)):
            continue
        if isinstance(block, ImageUrlBlock):
            if block.detail not in media.details:
                why = f"{dialect} knows no image detail {block.detail!r:.40}"
                out.append(LeftOut(index, "detail", f"{where}: {why}"))
        elif isinstance(block, ImageBase64Block):
            if image_type(block.media_type) not in media.image_types:
                why = f"{dialect} takes no {block.media_type!r:.40} image"
                out.append(LeftOut(index, "image", f"{where}: {why}"))
        elif isinstance(block, AudioBase64Block) and media.audio is not None:
            if media.audio(block) is None:
                why = f"{dialect} takes no {block.media_type!r:.40} audio"
                out.append(LeftOut(index, "audio", f"{where}: {why}"))
            elif block.sample_rate is not None:
                why = "input_audio has no field for a sample rate"
                out.append(LeftOut(index, "sample-rate", f"{where}: {why}"))
        elif block.is_audio():
            out.append(LeftOut(index, "audio", f"{where}: {dialect} {other_audio}"))
        else:
            out.append(LeftOut(index, "video", f"{where}: {dialect} {media.no_video}"))
    return out
