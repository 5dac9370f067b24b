"""Control tokens in untrusted text, changed so that no tokenizer reads them as tokens.

The fence around external tool output works on text: the model sees where
the untrusted text begins and ends. A chat template's control tokens
(``<|im_end|>``, ``<|start_header_id|>``, ``[INST]``) inside that text stay
text in the prompt, and a tokenizer that parses special tokens in the
prompt string (a plain ``tokenizer(prompt)``, and many servers) turns them
into the real tokens: a tool result could end the turn and start one of
its own. ``render`` is the last place that knows which text is untrusted,
so it can change them there.

Each occurrence of a control token in the text gets a zero-width joiner
(U+200D) after its first character: ``<|im_end|>`` becomes
``<\u200d|im_end|>``. No tokenizer matches the token in it any more,
the text reads the same to a person (and to the model, nearly), and the
change is undone by removing the joiners. Every place a token starts is
changed, overlapping ones too, so no token is left whole: a token in the
result would be a run of the original text without a joiner inside it,
which is an occurrence that was changed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final

JOINER: Final = "\u200d"
"""What goes after a control token's first character: the zero-width joiner."""


class ControlTokens:
    """A set of control tokens, ready to find in text."""

    __slots__ = ("_pattern", "tokens")

    def __init__(self, tokens: tuple[str, ...]) -> None:
        self.tokens = tokens
        alternatives = "|".join(re.escape(token) for token in sorted(tokens, key=len, reverse=True))
        # A lookahead finds every place a token starts, overlapping ones too.
        self._pattern = re.compile(f"(?=(?:{alternatives}))") if tokens else None

    def defuse(self, text: str) -> str:
        """``text`` with a joiner after the first character of each token in it."""
        if self._pattern is None:
            return text
        starts = [found.start() for found in self._pattern.finditer(text)]
        if not starts:
            return text
        pieces: list[str] = []
        last = 0
        for start in starts:
            pieces.append(text[last : start + 1])
            pieces.append(JOINER)
            last = start + 1
        pieces.append(text[last:])
        return "".join(pieces)


def control_tokens(value: object) -> ControlTokens | None:
    """``control_tokens=`` checked: ``None``, or a collection of tokens of two characters or more.

    A token of one character cannot be split, and one holding the joiner
    would not be broken by it: both are refused (``ValueError``) rather
    than left in silence.
    """
    if value is None:
        return None
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise TypeError(
            "control_tokens must be a collection of strings (tokenizer.all_special_tokens, say), "
            f"not {type(value).__name__}"
        )
    tokens: dict[str, None] = {}
    for token in value:
        if type(token) is not str:
            raise TypeError(f"control_tokens holds a {type(token).__name__}, not a string")
        if len(token) < 2:
            raise ValueError(
                f"control token {token!r} is one character or none: no joiner can go inside it"
            )
        if JOINER in token:
            raise ValueError(f"control token {token!r:.60} holds the zero-width joiner itself")
        tokens[token] = None
    return ControlTokens(tuple(tokens))
