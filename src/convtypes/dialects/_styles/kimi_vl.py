"""``"kimi_vl"``: Kimi-VL (Instruct and Thinking) and Kimi 1.5, which think in ``◁think▷``.

::

    ◁think▷The picture shows a cat on a mat.◁/think▷It is a cat.<|im_end|>

Their templates offer no tools, so the style reads reasoning and an answer
only; a turn ends on ``<|im_end|>``. Kimi-K2's own tokens (its calls,
``<think>``) are the ``"kimi_k2"`` style's.
"""

from __future__ import annotations

from typing import Final

from .._output_style import Style

THINK_OPEN: Final = "\u25c1think\u25b7"
THINK_CLOSE: Final = "\u25c1/think\u25b7"

STYLE = Style(
    "kimi_vl",
    thinking={THINK_OPEN: THINK_CLOSE},
    ends=("<|im_end|>",),
    marks=("<|im_middle|>",),
)
