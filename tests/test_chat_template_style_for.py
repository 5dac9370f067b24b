"""``chat_template.style_for``: which style a chat template's model writes, from its text.

Each case is a short fragment written here in the manner of a family's
template: the line that writes a past call into the prompt, or the
instructions that tell the model how to call. A style's ``marks`` must
pick out its family's fragments, and no other's. ``dev/check_style_for.py``
runs the same over a directory of real templates.
"""

from __future__ import annotations

import pytest

from convtypes.dialects.chat_template import STYLES, Style, register_style, style_for

# (what the fragment is in the manner of, the fragment, the style expected)
FRAGMENTS: list[tuple[str, str, str | None]] = [
    (
        "Qwen2.5",
        '{{- \'\\n<tool_call>\\n{"name": "\' }}{{- tool_call.name }}'
        "{{- '\", \"arguments\": ' }}{{- tool_call.arguments | tojson }}{{- '}\\n</tool_call>' }}",
        "hermes",
    ),
    (
        "Hermes 2 Pro",
        "For each function call return a json object with function name and arguments within "
        "<tool_call></tool_call> XML tags as follows:\\n<tool_call>\\n"
        '{"name": <function-name>, "arguments": <args-dict>}\\n</tool_call>',
        "hermes",
    ),
    (
        "Llama 3.1",
        "{%- if builtin_tools is defined and tool_call.name in builtin_tools %}"
        '{{- "<|python_tag|>" + tool_call.name + ".call(" }}',
        "llama3",
    ),
    (
        "Llama 3.2",
        'Respond in the format {"name": function name, "parameters": dictionary of argument '
        "name and its value}. Do not use variables.",
        "llama3",
    ),
    (
        "Mistral Small",
        '{{- "[TOOL_CALLS]" + tool_call.function.name + "[ARGS]" + arguments }}',
        "mistral",
    ),
    (
        "Mistral Nemo",
        '{{- "[TOOL_CALLS][" }}{%- for tool_call in message.tool_calls %}',
        "mistral",
    ),
    (
        "Qwen3.5",
        "{{- '<tool_call>\\n<function=' + tool_call.name + '>\\n' }}{%- for args_name, args_value "
        "in tool_call.arguments|items %}{{- '<parameter=' + args_name + '>\\n' }}",
        "qwen3_coder",
    ),
    (
        "Seed-OSS",
        "{{ '<seed:tool_call>\\n<function=' + tool_call.function.name + '>' }}",
        "qwen3_coder",
    ),
    (
        "GLM-4.5",
        "{{ '<tool_call>' + tc.name }}{% for k, v in tc.arguments.items() %}"
        "{{ '\\n<arg_key>' + k + '</arg_key>\\n<arg_value>' + v + '</arg_value>' }}{% endfor %}",
        "glm45",
    ),
    (
        "Llama 3.2, pythonic",
        "If you decide to invoke any of the function(s), you MUST put it in the format of "
        "[func_name1(params_name1=params_value1, params_name2=params_value2...), "
        "func_name2(params)]"
        '\nRespond in the format {"name": function name, "parameters": dictionary of argument '
        "name and its value} is not used here.",
        "pythonic",
    ),
    ("Llama 4", "{{- '<|python_start|>' }}{{ tool_call.function.name }}(", "pythonic"),
    (
        "LFM2",
        "{{- '<|tool_call_start|>[' + calls | join(', ') + ']<|tool_call_end|>' }}",
        "pythonic",
    ),
    (
        "DeepSeek-R1",
        "{{'<\uff5cAssistant\uff5c><\uff5ctool\u2581calls\u2581begin\uff5c><\uff5ctool\u2581call"
        "\u2581begin\uff5c>' + tool['type'] + '<\uff5ctool\u2581sep\uff5c>' + name }}",
        "deepseek",
    ),
    (
        "gpt-oss",
        '{{- "<|start|>assistant to=" }}'
        '{{- "functions." + tool_call.name + "<|channel|>commentary " }}',
        "harmony",
    ),
    (
        "Granite 4",
        "{{- '<|start_of_role|>assistant<|end_of_role|>' }}"
        "{{- '<tool_call>\\n' + tool_call | tojson + '\\n</tool_call>' }}",
        "hermes",
    ),
    (
        "Granite 3.x",
        "{{- '<|start_of_role|>assistant<|end_of_role|><|tool_call|>' + message['content'] + "
        "'<|end_of_text|>\\n' }}",
        "granite",
    ),
    (
        "Granite 3.x, mentioning Granite 4's tag too",
        "{# <tool_call> is Granite 4's #}{{- '<|tool_call|>' + calls | tojson }}",
        "granite",
    ),
    (
        "Kimi-K2",
        "<|tool_calls_section_begin|>{%- for tool_call in message['tool_calls'] -%}"
        "<|tool_call_begin|>{{ tool_call['id'] }}<|tool_call_argument_begin|>"
        "{{ tool_call['function']['arguments'] | tojson }}<|tool_call_end|>{%- endfor -%}",
        "kimi_k2",
    ),
    (
        "Nemotron Nano 2",
        "{{- '<TOOLCALL>[' -}}{%- for call in message.tool_calls -%}"
        "{{- '{\"name\": ' + call.function.name | tojson -}}",
        "nemotron",
    ),
    (
        "MiniMax-M1",
        "If you need to call tools, please respond with <tool_calls></tool_calls> XML tags, and "
        "provide tool-name and json-object of arguments",
        "minimax",
    ),
    (
        "MiniMax-M2",
        "{%- set toolcall_begin_token = '<minimax:tool_call>' -%}"
        "{{- '<invoke name=\"' + tool_call.name + '\">' }}",
        "minimax",
    ),
    (
        "Command R7B",
        "<|START_THINKING|>{{ message.tool_plan }}<|END_THINKING|><|START_ACTION|>[\\n"
        '{"tool_call_id": "{{ tool_idx.value }}", "tool_name": "{{ tc.function.name }}"',
        "command_r",
    ),
    (
        "Phi-4-mini",
        "{{ '<|' + message['role'] + '|>' + message['content'] + '<|tool|>' + message['tools'] + "
        "'<|/tool|>' + '<|end|>' }}",
        "phi4_mini",
    ),
    (
        "Phi-4-mini, llama.cpp's template (its tokens are Granite 3's too)",
        "{{- '<|tool|>' + (tool['function'] | tojson) + '<|/tool|>' -}}"
        "{{- 'To use a tool, respond in this format: <|tool_call|>{...}<|/tool_call|>' -}}",
        "phi4_mini",
    ),
    (
        "Phi-4-mini, vLLM's tool template",
        "  * prefix function calls with functools marker (no closing marker required)\\n"
        '  * formatted as functools[{"name": [function name], "arguments": [...]}, ...]',
        "phi4_mini",
    ),
    (
        "DeepSeek V3.2 (calls in DSML, the token in a variable)",
        "{%- set dsml_token = '\uff5cDSML\uff5c' -%}"
        "{{- '\\n\\n<' + dsml_token + 'function_calls>\\n' -}}",
        "deepseek_dsml",
    ),
    (
        "DeepSeek V4",
        "{{- '<\uff5cDSML\uff5ctool_calls>' -}}"
        "{{- '<\uff5cDSML\uff5cinvoke name=\"' + name + '\">' -}}",
        "deepseek_dsml",
    ),
    (
        "Gemma 4",
        "{{- '<|tool_call>call:' + function['name'] + '{' -}}{{- '}<tool_call|>' -}}",
        "gemma4",
    ),
    (
        "Step-3",
        "{{- '<\uff5ctool_call_begin\uff5c>function<\uff5ctool_sep\uff5c>"
        "<steptml:invoke name=\"' + name + '\">' -}}",
        "step3",
    ),
    (
        "Kimi-VL",
        "{{'<|im_assistant|>'}}{{- message['role'] -}}{{'<|im_middle|>'}}",
        "kimi_vl",
    ),
    (
        "Kimi-K2 (its template holds Kimi-VL's turn tokens too)",
        "<|im_assistant|>assistant<|im_middle|>{{ '<|tool_calls_section_begin|>' }}",
        "kimi_k2",
    ),
    # Command R (2024) writes its calls as plain text no style reads.
    (
        "Command R",
        "Write 'Action:' followed by a json-formatted list of actions that you want to perform",
        None,
    ),
    # No tools at all: nothing to tell the family by.
    (
        "plain ChatML",
        "{% for m in messages %}<|im_start|>{{ m.role }}\\n{{ m.content }}<|im_end|>\\n"
        "{% endfor %}",
        None,
    ),
    (
        "Gemma 2",
        "{{ '<start_of_turn>' + role + '\\n' + message['content'] | trim + '<end_of_turn>\\n' }}",
        None,
    ),
    # The marks of two families that do not outrank each other: it cannot tell.
    ("two families", "<tool_call> ... [TOOL_CALLS]", None),
]


@pytest.mark.parametrize(
    ("family", "fragment", "expected"), FRAGMENTS, ids=[case[0] for case in FRAGMENTS]
)
def test_style_for_recognises_the_family(family: str, fragment: str, expected: str | None) -> None:
    found = style_for(fragment)
    if expected is None:
        assert found is None
    else:
        assert isinstance(found, Style) and found.name == expected


def test_every_builtin_style_is_recognised_by_some_fragment() -> None:
    # A style added without fragments here cannot be told from a template.
    recognised = {expected for _, _, expected in FRAGMENTS if expected is not None}
    assert set(STYLES) <= recognised


def test_a_registered_style_contributes_its_marks_and_may_outrank() -> None:
    plain = register_style("test_marked", marks=("<<call>>",))
    assert style_for("{{ '<<call>>' + name }}") is plain
    # With another family's marks as well, it cannot tell...
    assert style_for("<<call>> and <tool_call>") is None
    # ...unless the style says it wins over that family (its template holds both).
    wins = register_style("test_outranking", marks=("<<fn>>",), outranks=("hermes",))
    assert style_for("<tool_call><<fn>>get</tool_call>") is wins


def test_style_for_takes_text() -> None:
    with pytest.raises(TypeError, match="template must be the chat template's text, not dict"):
        style_for({"default": "<tool_call>"})  # type: ignore[arg-type]
