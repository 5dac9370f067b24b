"""Check ``chat_template.style_for`` on a directory of real chat templates.

    python dev/check_style_for.py PATH/TO/chat_templates

For every ``*.jinja`` file it prints the style ``style_for`` recognises
(or ``None``) and the marks it found, and compares it with the style the
model family is known to write, for the templates listed below by file
name (the sixteen of llama.cpp's ``models/templates`` kept beside the
project, and the newer DeepSeek V3.2, V4 and Kimi-VL ones; other files are
printed only). Exits 1 if any listed template
is recognised wrongly.
"""

from __future__ import annotations

import sys
from pathlib import Path

from convtypes.dialects import _output_style as styles
from convtypes.dialects.chat_template import STYLES, Style, style_for

KNOWN: dict[str, str | None] = {
    "Qwen-Qwen2.5-7B-Instruct.jinja": "hermes",
    "Qwen-Qwen3-0.6B.jinja": "hermes",
    "Qwen-QwQ-32B.jinja": "hermes",
    "Qwen3.5-4B.jinja": "qwen3_coder",
    "NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use.jinja": "hermes",
    "ibm-granite-granite-4.0.jinja": "hermes",
    "meta-llama-Llama-3.1-8B-Instruct.jinja": "llama3",
    "meta-llama-Llama-3.2-3B-Instruct.jinja": "llama3",
    "mistralai-Mistral-Nemo-Instruct-2407.jinja": "mistral",
    "Mistral-Small-3.2-24B-Instruct-2506.jinja": "mistral",
    "mistralai-Ministral-3-14B-Reasoning-2512.jinja": "mistral",
    "deepseek-ai-DeepSeek-R1-Distill-Qwen-32B.jinja": "deepseek",
    "openai-gpt-oss-120b.jinja": "harmony",
    "google-gemma-4-31B-it.jinja": "gemma4",
    "deepseek-ai-DeepSeek-V3.2.jinja": "deepseek_dsml",
    "deepseek-ai-DeepSeek-V4.jinja": "deepseek_dsml",
    "moonshotai-Kimi-VL-A3B.jinja": "kimi_vl",
    # No tools and no reasoning syntax of their own.
    "google-gemma-2-2b-it.jinja": None,
    "microsoft-Phi-3.5-mini-instruct.jinja": None,
}


def _marks(template: str) -> list[str]:
    found = []
    for style in styles.all_styles():
        found += [f"{style.name}:{mark!r}" for mark in style.marks if mark in template]
    return found


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    files = sorted(Path(sys.argv[1]).glob("*.jinja"))
    if not files:
        print(f"no *.jinja files in {sys.argv[1]}", file=sys.stderr)
        return 2
    print(f"styles: {', '.join(STYLES)}\n")
    print("| template | style_for | expected | marks found |")
    print("| --- | --- | --- | --- |")
    wrong = 0
    for path in files:
        found: Style | None = style_for(path.read_text("utf-8"))
        name = None if found is None else found.name
        if path.name in KNOWN:
            expected = KNOWN[path.name]
            verdict = str(expected) if name == expected else f"**{expected}** (WRONG)"
            wrong += name != expected
        else:
            verdict = "(not listed)"
        marks = ", ".join(_marks(path.read_text("utf-8"))) or "-"
        print(f"| {path.name} | {name} | {verdict} | {marks} |")
    missing = sorted(set(KNOWN) - {path.name for path in files})
    if missing:
        print(f"\nnot in the directory: {', '.join(missing)}")
    print(f"\n{len(files)} templates, {wrong} recognised wrongly")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
