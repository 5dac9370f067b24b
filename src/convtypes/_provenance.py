"""Where a tool result came from: inside the trust boundary or beyond it."""

from __future__ import annotations

import enum

__all__ = ["Provenance"]


class Provenance(enum.Enum):
    """Which side of the trust boundary produced a tool result's text.

    The mark travels with the message, so every consumer sees it without
    having to know which tool ran. ``INTERNAL`` is the default and is never
    written to the wire, which keeps transcripts from before this field
    existed byte-identical. Marking is what makes a defence possible (a
    renderer can fence the text, a policy can weigh it less); it does not by
    itself stop a model from acting on what it reads.
    """

    INTERNAL = "internal"
    """Produced on this side: by the runtime itself, by a tool running
    locally, or as an error message the runtime wrote."""

    EXTERNAL = "external"
    """Fetched from beyond the boundary: a web page, an HTTP body, a remote
    MCP server. Treat it as data only."""

    def is_internal(self) -> bool:
        """``True`` for :attr:`INTERNAL`."""
        return self is Provenance.INTERNAL

    def is_external(self) -> bool:
        """``True`` for :attr:`EXTERNAL`."""
        return self is Provenance.EXTERNAL
