"""``chat_template.render``: prompts equal to transformers' rendering, and errors of one type.

The templates here are small ones written for these tests, each using the
features real templates rely on (string content, tool calls and results,
reasoning, ``raise_exception``, ``strftime_now``, ``tojson`` and its
options, loop controls, ``bos_token``/``eos_token``, a generation prompt
that opens ``<think>``, ``namespace``, ``dict``, ``{% generation %}``). The
prompts are compared with what transformers' own ``apply_chat_template``
renders from ``to_messages``, through a tokenizer built in memory (no model
files; the ``test`` extra pins transformers' version, since exact equality
follows it).
"""

from __future__ import annotations

import functools
import json
import subprocess
import sys
import textwrap
from datetime import datetime
from typing import Any

import pytest
from hypothesis import given, settings

import convtypes as ct
from convtypes import strategies as cst
from convtypes.dialects import DialectError, ToolSchemaError, ToolSpec, UnmatchedResult
from convtypes.dialects.chat_template import TemplateError, opens_thinking, render, to_messages

SPECIAL: dict[str, Any] = {"bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>"}

# ChatML with Qwen's habits: tools as JSON lines, calls in <tool_call>, results
# grouped in one user turn, reasoning shown after the last user turn only,
# a generation prompt that opens <think> when thinking is on.
CHATML = r"""
{%- if tools %}
    {{- '<|im_start|>system\n' }}
    {%- if messages[0].role == 'system' %}{{- messages[0].content + '\n\n' }}{%- endif %}
    {{- 'Tools:' }}
    {%- for tool in tools %}{{- '\n' + tool | tojson }}{%- endfor %}
    {{- '<|im_end|>\n' }}
{%- elif messages[0].role == 'system' %}
    {{- '<|im_start|>system\n' + messages[0].content + '<|im_end|>\n' }}
{%- endif %}
{%- set ns = namespace(last_user=-1) %}
{%- for m in messages %}
    {%- if m.role == 'user' %}{% set ns.last_user = loop.index0 %}{% endif %}
{%- endfor %}
{%- for m in messages %}
    {%- if m.role == 'user' or (m.role == 'system' and not loop.first) %}
        {{- '<|im_start|>' + m.role + '\n' + m.content + '<|im_end|>\n' }}
    {%- elif m.role == 'assistant' %}
        {{- '<|im_start|>assistant\n' }}
        {%- if m.reasoning_content is defined and loop.index0 > ns.last_user %}
            {{- '<think>\n' + m.reasoning_content + '\n</think>\n\n' }}
        {%- endif %}
        {{- m.content }}
        {%- if m.tool_calls is defined %}
            {%- for call in m.tool_calls %}
                {{- '\n<tool_call>\n{"name": "' + call.function.name + '", "arguments": ' }}
                {{- call.function.arguments | tojson + '}\n</tool_call>' }}
            {%- endfor %}
        {%- endif %}
        {{- '<|im_end|>\n' }}
    {%- elif m.role == 'tool' %}
        {%- if loop.first or messages[loop.index0 - 1].role != 'tool' %}
            {{- '<|im_start|>user' }}
        {%- endif %}
        {{- '\n<tool_response>\n' + m.content + '\n</tool_response>' }}
        {%- if loop.last or messages[loop.index0 + 1].role != 'tool' %}
            {{- '<|im_end|>\n' }}
        {%- endif %}
    {%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}
    {{- '<|im_start|>assistant\n' }}
    {%- if enable_thinking is defined and enable_thinking %}{{- '<think>\n' }}{% endif %}
{%- endif %}
"""

# Mistral's habits: bos and eos tokens, a default system prompt dated by
# strftime_now, ids that must be nine characters, strict roles.
MISTRAL = r"""
{{- bos_token }}
{%- if messages[0].role == 'system' %}
    {%- set system = messages[0].content %}{% set rest = messages[1:] %}
{%- else %}
    {%- set system = 'Today is ' + strftime_now('%Y-%m-%d') + '.' %}{% set rest = messages %}
{%- endif %}
{{- '[SYSTEM_PROMPT]' + system + '[/SYSTEM_PROMPT]' }}
{%- if tools %}{{- '[AVAILABLE_TOOLS]' + tools | tojson + '[/AVAILABLE_TOOLS]' }}{% endif %}
{%- for m in rest %}
    {%- if m.role == 'user' %}
        {{- '[INST]' + m.content + '[/INST]' }}
    {%- elif m.role == 'assistant' and m.tool_calls is defined %}
        {%- for call in m.tool_calls %}
            {%- if call.id is not defined or call.id | length != 9 %}
                {{- raise_exception('Tool call IDs should be alphanumeric strings ' ~
                                    'with length 9!') }}
            {%- endif %}
            {{- '[TOOL_CALLS]' + call.function.name + '[CALL_ID]' + call.id }}
            {{- '[ARGS]' + call.function.arguments | tojson }}
        {%- endfor %}
        {{- eos_token }}
    {%- elif m.role == 'assistant' %}
        {{- m.content + eos_token }}
    {%- elif m.role == 'tool' %}
        {{- '[TOOL_RESULTS]' + m.tool_call_id + '[TOOL_CONTENT]' }}
        {{- m.content + '[/TOOL_RESULTS]' }}
    {%- else %}
        {{- raise_exception('Only user, assistant and tool roles, got ' + m.role + '.') }}
    {%- endif %}
{%- endfor %}
"""

# Llama's habits: loop controls, tojson with its options, one call per turn,
# results written as JSON strings, tools in an indented list.
LLAMA = r"""
{{- bos_token }}
{%- for m in messages %}
    {%- if m.role == 'system' %}
        {{- '<|system|>' + m.content | trim }}{% continue %}
    {%- endif %}
    {%- if m.role == 'tool' %}{{- '<|ipython|>' + m.content | tojson }}{% continue %}{% endif %}
    {%- if 'tool_calls' in m %}
        {%- if m.tool_calls | length != 1 %}
            {{- raise_exception('one call per turn, please') }}
        {%- endif %}
        {%- set call = m.tool_calls[0].function %}
        {{- '<|assistant|>{"name": "' + call.name + '", "parameters": ' }}
        {{- call.arguments | tojson(sort_keys=true, separators=(',', ':')) + '}' }}
    {%- else %}
        {{- '<|' + m.role + '|>' + m.content | trim }}
    {%- endif %}
    {%- if m.content == 'STOP' %}{% break %}{% endif %}
{%- endfor %}
{%- for t in tools or [] %}{{- '\n' + t | tojson(indent=2, ensure_ascii=true) }}{% endfor %}
{%- if add_generation_prompt %}{{- '<|assistant|>' }}{% endif %}
"""

# Less common machinery: dict, a namespace counter, {% generation %}, the
# reasoning under "thinking" (gpt-oss reads it there), documents, a macro.
MACHINERY = r"""
{%- macro show(m) %}{{ m.role }}={{ m.content }}{% endmacro %}
{%- set d = dict(a=1, b='two') %}{{- d | tojson }}
{%- set ns = namespace(count=0) %}
{%- for m in messages %}
    {%- generation %}[{{ show(m) }}] {% set ns.count = ns.count + 1 %}{% endgeneration %}
    {%- if m.thinking is defined %}(thinking: {{ m.thinking }}){% endif %}
{%- endfor %}
{{- ' count=' ~ ns.count }}
{%- if documents %} docs={{ documents | tojson }}{% endif %}
{%- if greeting is defined %} greeting={{ greeting }}{% endif %}
"""

TOOLS = [
    ToolSpec(
        name="web_search",
        description="Search the web for a query.",
        parameters={
            "type": "object",
            "properties": {"query": {"type": "string"}, "limit": {"type": "integer"}},
            "required": ["query"],
        },
    )
]


@functools.cache
def _tokenizer() -> Any:
    """A transformers tokenizer built in memory, for its ``apply_chat_template``.

    Its vocabulary is three tokens: rendering never tokenizes, and its
    special tokens are the ones in ``SPECIAL``, which transformers hands to
    every template as variables. Built once: importing transformers takes
    seconds.
    """
    if sys.version_info < (3, 11):
        # The test group installs transformers only where its pinned release
        # runs; there the comparison is made, on every later Python.
        pytest.skip("transformers 5.24.0, which the comparison is pinned to, needs Python 3.11")
    from tokenizers import Tokenizer, models
    from transformers import PreTrainedTokenizerFast

    core = Tokenizer(models.WordLevel({"<unk>": 0, "<s>": 1, "</s>": 2}, unk_token="<unk>"))
    make: Any = PreTrainedTokenizerFast  # transformers' own signature is untyped
    tokenizer = make(tokenizer_object=core, **SPECIAL)
    assert tokenizer.special_tokens_map == SPECIAL
    return tokenizer


def theirs(
    messages: list[ct.Message], template: str, *, ids: str = "default", **options: Any
) -> str:
    """``tokenizer.apply_chat_template(to_messages(messages), tokenize=False, ...)``."""
    tools = options.pop("tools", None)
    schemas = None
    if tools is not None:
        schemas = [
            {
                "type": "function",
                "function": {
                    "name": t.name,
                    "description": t.description,
                    "parameters": t.parameters,
                },
            }
            for t in tools
        ]
    chat = to_messages(messages, ids=ids, unsupported="note")  # type: ignore[arg-type]
    prompt = _tokenizer().apply_chat_template(
        chat,
        chat_template=template,
        tools=schemas,
        tokenize=False,
        add_generation_prompt=options.pop("add_generation_prompt", True),
        **options,
    )
    assert isinstance(prompt, str)
    return prompt


def ours(messages: list[ct.Message], template: str, **options: Any) -> str:
    """``render`` with the variables transformers adds from the tokenizer."""
    return render(messages, template, unsupported="note", **SPECIAL, **options)


SESSION: list[ct.Message] = [
    ct.SystemMessage(content="You are terse."),
    ct.UserMessage(content="Weather in Oslo?"),
    ct.AssistantMessage(
        content="Let me check.",
        tool_calls=(
            ct.ToolCall(
                id="call_a", name="web_search", arguments={"query": "Oslo", "limit": 2**70}
            ),
        ),
        thinking=(ct.ThinkingBlock(text="Search first."),),
    ),
    ct.ToolResultMessage(
        tool_use_id="call_a", content='Rain, "4 C"', provenance=ct.Provenance.EXTERNAL
    ),
    ct.AssistantMessage(content="Rain, 4 C.", thinking=(ct.ThinkingBlock(text="Got it."),)),
]


def test_chatml_prompt_as_written_by_hand() -> None:
    prompt = ours(SESSION, CHATML, tools=TOOLS, enable_thinking=True)
    fenced = ct.fence_external('Rain, "4 C"')
    tool = (
        '{"type": "function", "function": {"name": "web_search", "description": '
        '"Search the web for a query.", "parameters": {"type": "object", "properties": '
        '{"query": {"type": "string"}, "limit": {"type": "integer"}}, "required": ["query"]}}}'
    )
    assert prompt == (
        "<|im_start|>system\nYou are terse.\n\nTools:\n" + tool + "<|im_end|>\n"
        "<|im_start|>user\nWeather in Oslo?<|im_end|>\n"
        "<|im_start|>assistant\n<think>\nSearch first.\n</think>\n\nLet me check.\n"
        '<tool_call>\n{"name": "web_search", "arguments": '
        '{"query": "Oslo", "limit": 1180591620717411303424}}\n</tool_call><|im_end|>\n'
        "<|im_start|>user\n<tool_response>\n" + fenced + "\n</tool_response><|im_end|>\n"
        "<|im_start|>assistant\n<think>\nGot it.\n</think>\n\nRain, 4 C.<|im_end|>\n"
        "<|im_start|>assistant\n<think>\n"
    )
    assert prompt == theirs(SESSION, CHATML, tools=TOOLS, enable_thinking=True)
    # The prompt opens <think>: the model's reply starts inside it.
    assert opens_thinking(prompt)
    assert not opens_thinking(ours(SESSION, CHATML, tools=TOOLS, enable_thinking=False))


@pytest.mark.parametrize(
    ("template", "options"),
    [
        (CHATML, {"tools": TOOLS}),
        (CHATML, {"enable_thinking": False, "add_generation_prompt": False}),
        (LLAMA, {"tools": TOOLS}),
        (MACHINERY, {"documents": [{"title": "T", "text": "body"}], "greeting": "hej"}),
    ],
    ids=["chatml-tools", "chatml-no-prompt", "llama", "machinery"],
)
def test_equal_to_transformers_on_the_session(template: str, options: dict[str, Any]) -> None:
    assert ours(SESSION, template, **options) == theirs(SESSION, template, **dict(options))


def test_machinery_renders_what_each_feature_promises() -> None:
    prompt = render(SESSION[:3], MACHINERY, documents=[{"title": "T", "text": "b"}], greeting="hej")
    # A generation block renders its body, white space and all.
    assert prompt.startswith('{"a": 1, "b": "two"}[system=You are terse.] [user=Weather in Oslo?] ')
    # The reasoning is offered as "thinking" too, as transformers does.
    assert "[assistant=Let me check.] (thinking: Search first.)" in prompt
    assert prompt.endswith(' count=3 docs=[{"title": "T", "text": "b"}] greeting=hej')


def test_llama_loop_controls_and_tojson_options() -> None:
    transcript: list[ct.Message] = [
        ct.SystemMessage(content="  sys  "),
        ct.UserMessage(content="caf\u00e9"),
        ct.AssistantMessage(
            tool_calls=(ct.ToolCall(id="c1", name="f", arguments={"z": 1, "a": [1, 2]}),)
        ),
        ct.ToolResultMessage(tool_use_id="c1", content='say "hi"'),
        ct.AssistantMessage(content="STOP"),
        ct.UserMessage(content="never shown"),
    ]
    prompt = ours(transcript, LLAMA, tools=TOOLS)
    assert prompt.startswith(
        '<s><|system|>sys<|user|>caf\u00e9<|assistant|>{"name": "f", "parameters": '
        '{"a":[1,2],"z":1}}<|ipython|>"say \\"hi\\""<|assistant|>STOP\n{\n  "type": "function",'
    )
    assert "never shown" not in prompt  # {% break %}
    assert prompt == theirs(transcript, LLAMA, tools=TOOLS)


def test_mistral_needs_nine_character_ids_and_alnum9_gives_them() -> None:
    with pytest.raises(TemplateError) as caught:
        render(SESSION, MISTRAL, **SPECIAL)
    err = caught.value
    assert err.refusal == "Tool call IDs should be alphanumeric strings with length 9!"
    assert str(err) == (
        "the chat template refused the conversation: Tool call IDs should be alphanumeric "
        f"strings with length 9! (template line {err.line})"
    )
    assert err.line is not None
    assert "raise_exception('Tool call IDs" in MISTRAL.split("\n")[err.line - 1]
    prompt = ours(SESSION, MISTRAL, ids="alnum9")
    assert "[TOOL_CALLS]web_search[CALL_ID]c00002000[ARGS]" in prompt
    assert "[TOOL_RESULTS]c00002000[TOOL_CONTENT]" in prompt
    assert prompt == theirs(SESSION, MISTRAL, ids="alnum9")


def test_strftime_now_is_todays_date() -> None:
    before = datetime.now().strftime("%Y-%m-%d")
    prompt = render([ct.UserMessage(content="hi")], MISTRAL, **SPECIAL)
    after = datetime.now().strftime("%Y-%m-%d")
    assert prompt in (
        f"<s>[SYSTEM_PROMPT]Today is {day}.[/SYSTEM_PROMPT][INST]hi[/INST]"
        for day in (before, after)
    )


def test_a_template_that_reads_eos_fails_cleanly_without_it() -> None:
    transcript: list[ct.Message] = [ct.UserMessage(content="hi"), ct.AssistantMessage(content="yo")]
    with pytest.raises(
        TemplateError,
        match=r"the chat template failed: UndefinedError: "
        r"'eos_token' is undefined \(template line \d+\)",
    ):
        render(transcript, MISTRAL, bos_token="<s>")


def test_a_template_that_prints_a_special_token_fails_without_it() -> None:
    # Llama's and Mistral's templates open with {{- bos_token }}. Printed
    # undefined, it would be nothing, and the prompt would lack the token.
    with pytest.raises(TemplateError) as caught:
        render(HI, MISTRAL, eos_token="</s>")
    assert str(caught.value).startswith(
        "the chat template failed: UndefinedError: 'bos_token' is undefined: the template "
        "prints it, and render has no tokenizer to take it from; pass it (bos_token=..., "
    )
    assert caught.value.line == 2  # the template's first line is blank
    for name in ("eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token"):
        with pytest.raises(TemplateError, match=f"'{name}' is undefined: the template prints it"):
            render(HI, f"a{{{{ {name} ~ 'b' }}}}")
    # Given, even empty (a tokenizer without the token), it renders.
    assert render(HI, "{{ bos_token }}x", bos_token="") == "x"
    assert render(HI, MISTRAL, bos_token="<s>", eos_token="</s>").startswith("<s>[SYSTEM_PROMPT]")
    # Testing a special token, or printing any other undefined name, is as in jinja2.
    tests = "{% if bos_token is defined %}d{% endif %}{% if not eos_token %}n{% endif %}"
    assert render(HI, tests + "{{ eos_token | default('-') }}{{ other }}") == "n-"
    assert render(HI, "{{ messages[0].bos_token }}.") == "."


def test_media_parts_reach_a_template_that_reads_them() -> None:
    template = (
        "{% for m in messages %}{% if m.content is string %}{{ m.content }}{% else %}"
        "{% for part in m.content %}{% if part.type == 'text' %}{{ part.text }}"
        "{% else %}<{{ part.type }}:{{ part.url or part.path }}>{% endif %}{% endfor %}"
        "{% endif %}|{% endfor %}"
    )
    turn = ct.UserMultimodalMessage(
        content=(
            ct.TextBlock(text="Compare "),
            ct.ImageUrlBlock(url="https://example.com/a.png"),
            ct.VideoPathBlock(path="/clips/b.mp4"),
        )
    )
    transcript: list[ct.Message] = [turn, ct.AssistantMessage(content="Same.")]
    prompt = ours(transcript, template)
    assert prompt == "Compare <image:https://example.com/a.png><video:/clips/b.mp4>|Same.|"
    assert prompt == theirs(transcript, template)


def test_block_tags_take_their_line_with_them() -> None:
    # trim_blocks and lstrip_blocks, as transformers sets them: a block tag on a
    # line of its own leaves neither its indentation nor its newline behind.
    template = (
        "{% for m in messages %}\n"
        "    {% if m.role == 'user' %}\n"
        "U: {{ m.content }}\n"
        "    {% else %}\n"
        "A: {{ m.content }}\n"
        "    {% endif %}\n"
        "{% endfor %}\n"
    )
    transcript: list[ct.Message] = [ct.UserMessage(content="hi"), ct.AssistantMessage(content="yo")]
    assert render(transcript, template) == "U: hi\nA: yo\n"
    assert ours(transcript, template) == theirs(transcript, template)


@settings(max_examples=15)
@given(cst.conversations(max_exchanges=3))
def test_generated_conversations_render_as_transformers_does(messages: list[ct.Message]) -> None:
    for template, ids, options in (
        (CHATML, "default", {"tools": TOOLS, "enable_thinking": True}),
        (MISTRAL, "alnum9", {}),
        (LLAMA, "default", {}),
    ):
        try:
            prompt: str | None = ours(messages, template, ids=ids, **options)
        except TemplateError:
            prompt = None
        try:
            expected: str | None = theirs(messages, template, ids=ids, **dict(options))
        except Exception:  # transformers lets jinja2's and Python's errors out
            expected = None
        assert prompt == expected


# --- errors --------------------------------------------------------------------------

HI: list[ct.Message] = [ct.UserMessage(content="hi")]


@pytest.mark.parametrize(
    ("template", "pattern", "line"),
    [
        ("a\n{% if %}", r"the chat template is not valid Jinja: Expected an expression", 2),
        ("{% for m in messages %}", r"not valid Jinja: Unexpected end of template", 1),
        ("\n{{ messages | shout }}", r"not valid Jinja: No filter named 'shout'", 2),
        (
            "x\n{{ messages[0].content + missing }}",
            r"failed: UndefinedError: 'missing' is undefined",
            2,
        ),
        ("{{ messages[0].content + 1 }}", r"failed: TypeError: can only concatenate str", 1),
        ("\n\n{{ 1 / 0 }}", r"failed: ZeroDivisionError: division by zero", 3),
        ("{{ messages.append(1) }}", r"failed: SecurityError: access to attribute 'append'", 1),
        (
            "{{ ''.__class__.__mro__ }}",
            r"failed: SecurityError: access to attribute '__class__'",
            1,
        ),
        (
            "{% set ns = namespace(_x=1) %}",
            r"failed: SecurityError: a template may not set '_x'",
            1,
        ),
        ("{% macro f() %}{{ f() }}{% endmacro %}{{ f() }}", r"failed: RecursionError", None),
    ],
    ids=[
        "syntax",
        "unclosed",
        "filter",
        "undefined",
        "type",
        "zero",
        "mutate",
        "dunder",
        "namespace",
        "recursion",
    ],
)
def test_a_broken_template_raises_template_error(
    template: str, pattern: str, line: int | None
) -> None:
    with pytest.raises(TemplateError, match=pattern) as caught:
        render(HI, template)
    assert caught.value.refusal is None
    if line is not None:
        assert caught.value.line == line
    # The cause is kept for whoever debugs the template.
    assert caught.value.__cause__ is not None


def test_dict_builds_dicts_and_offers_nothing_else() -> None:
    assert render(HI, "{{ dict(a=1) | tojson }}{{ dict.fromkeys(['b'], 0) | tojson }}") == (
        '{"a": 1}{"b": 0}'
    )
    # The builtin type would hand the template its class hierarchy.
    with pytest.raises(TemplateError, match=r"UndefinedError: .*'mro'"):
        render(HI, "{{ dict.mro() }}")
    with pytest.raises(Exception, match="mro"):
        theirs(HI, "{{ dict.mro() }}")  # transformers refuses it too


def test_raise_exception_surfaces_its_message() -> None:
    template = (
        "{% if messages[0].role != 'system' %}"
        "{{ raise_exception('System first, ' ~ messages[0].role) }}{% endif %}"
    )
    with pytest.raises(TemplateError) as caught:
        render(HI, template)
    assert caught.value.refusal == "System first, user"
    assert caught.value.line == 1
    assert isinstance(caught.value, DialectError) and isinstance(caught.value, ValueError)


def test_bad_arguments() -> None:
    with pytest.raises(DialectError, match="an empty conversation cannot be rendered"):
        render([], CHATML)
    with pytest.raises(TypeError, match="template must be the chat template's text, not bytes"):
        render(HI, b"{{ 1 }}")  # type: ignore[arg-type]
    # A tokenizer with several templates: tokenizer.chat_template is a dict
    # by name, tokenizer_config.json a list of {"name", "template"}.
    named = {"default": CHATML, "tool_use": CHATML}
    for several in (named, [{"name": name, "template": text} for name, text in named.items()]):
        with pytest.raises(TypeError) as caught:
            render(HI, several)  # type: ignore[arg-type]
        assert str(caught.value) == (
            f"template must be the chat template's text, not {type(several).__name__}: this "
            "one holds several templates by name ('default', 'tool_use'); pass the text of "
            "the one to use"
        )
    with pytest.raises(TypeError, match="add_generation_prompt must be True or False"):
        render(HI, CHATML, add_generation_prompt="yes")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="when is a datetime; a template variable must be"):
        render(HI, MACHINERY, when=datetime.now())
    with pytest.raises(TypeError, match=r"documents must be a list of dicts"):
        render(HI, MACHINERY, documents=["just text"])
    with pytest.raises(UnmatchedResult):
        render([ct.ToolResultMessage(tool_use_id="x", content="")], CHATML)


def test_tools_as_specs_or_dicts() -> None:
    schema = {"type": "function", "function": {"name": "f", "return": {"type": "string"}}}
    prompt = render(HI, "{{ tools | tojson }}", tools=[TOOLS[0], schema])
    assert json.loads(prompt) == [
        {
            "type": "function",
            "function": {
                "name": "web_search",
                "description": "Search the web for a query.",
                "parameters": TOOLS[0].parameters,
            },
        },
        schema,
    ]
    assert render(HI, "{{ tools is none }}/{{ tools | length }}", tools=[]) == "False/0"
    assert render(HI, "{{ tools is none }}") == "True"
    with pytest.raises(ToolSchemaError, match="given twice"):
        render(HI, "x", tools=[TOOLS[0], TOOLS[0]])
    with pytest.raises(ToolSchemaError, match=r"tools\[0\] is not JSON"):
        render(HI, "x", tools=[{"x": float("nan")}])
    with pytest.raises(TypeError, match="tools must be a list of ToolSpec, not ToolSpec"):
        render(HI, "x", tools=TOOLS[0])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"tools\[0\] is a str, not a ToolSpec or a dict"):
        render(HI, "x", tools=["web_search"])  # type: ignore[list-item]


def test_variables_are_plain_data() -> None:
    class Name(str):
        def shout(self) -> str:
            return self.upper()

    # A str subclass reaches the template as a plain str: its methods stay out.
    assert render(HI, "{{ who }}|{{ who.shout is defined }}", who=Name("ana")) == "ana|False"
    assert render(HI, "{{ pair | tojson }}", pair=("a", 1)) == '["a", 1]'


# --- jinja2 is optional ---------------------------------------------------------------


def _run(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, check=False
    )


def test_the_module_imports_without_jinja2_and_render_says_what_to_install() -> None:
    done = _run(
        """
        import sys
        sys.modules["jinja2"] = None  # as if it were not installed
        import convtypes as ct
        from convtypes.dialects import chat_template
        assert chat_template.to_messages([ct.UserMessage(content="hi")])
        assert chat_template.parse_output("hi", style="hermes").content == "hi"
        try:
            chat_template.render([ct.UserMessage(content="hi")], "{{ 1 }}")
        except ImportError as err:
            print(err)
        """
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == (
        "rendering a chat template needs jinja2, which is not installed: "
        "pip install 'jinja2>=3.1.6' (convtypes' templates extra)"
    )


def test_importing_the_module_does_not_import_jinja2() -> None:
    done = _run(
        """
        import sys
        from convtypes.dialects import chat_template
        assert "jinja2" not in sys.modules, "jinja2 imported"
        """
    )
    assert done.returncode == 0, done.stderr


def test_an_old_jinja2_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    import jinja2

    from convtypes.dialects import _template_render

    monkeypatch.setattr(jinja2, "__version__", "3.1.5")
    _template_render.environment.cache_clear()
    try:
        with pytest.raises(ImportError, match=r"needs jinja2 3.1.6 or later \(found 3.1.5\)"):
            render(HI, "{{ 1 }}")
    finally:
        monkeypatch.undo()
        _template_render.environment.cache_clear()
    assert render(HI, "{{ 1 }}") == "1"


# --- prefill: continue_final_message ----------------------------------------------------

# Strips each message's text, as many templates do, so a trailing space is lost.
TRIMMING = (
    "{% for m in messages %}<{{ m.role }}>{{ m.content | trim }}</{{ m.role }}>\n{% endfor %}"
    "{% if add_generation_prompt %}<assistant>{% endif %}"
)
PREFILLED: list[ct.Message] = [
    ct.UserMessage(content="Weather in Oslo?"),
    ct.AssistantMessage(content="It is ", thinking=(ct.ThinkingBlock(text="Look it up"),)),
]


@pytest.mark.parametrize(
    ("template", "field"),
    [
        (CHATML, True),
        (CHATML, "reasoning_content"),
        (CHATML, "thinking"),
        (LLAMA, True),
        (TRIMMING, True),
    ],
    ids=["chatml", "chatml-reasoning", "chatml-thinking-alias", "llama", "trimming"],
)
def test_continue_final_message_ends_inside_it_as_transformers_does(
    template: str, field: bool | str
) -> None:
    prompt = ours(PREFILLED, template, continue_final_message=field)
    assert prompt == theirs(
        PREFILLED, template, continue_final_message=field, add_generation_prompt=False
    )
    if field is True:
        # The turn is left open: no end-of-turn token, no new header after it.
        assert prompt.rstrip().endswith("It is")
    else:
        assert prompt.endswith("Look it up")


def test_continue_final_message_on_a_user_turn_of_parts() -> None:
    pytest.importorskip("jinja2")
    template = (
        "{% for m in messages %}{% if m.content is string %}{{ m.content }}"
        "{% else %}{% for p in m.content %}[{{ p.type }}:{{ p.text or p.url }}]{% endfor %}"
        "{% endif %}|{% endfor %}"
    )
    transcript: list[ct.Message] = [
        ct.UserMultimodalMessage(
            content=(
                ct.TextBlock(text="Look:"),
                ct.ImageUrlBlock(url="https://x.org/a.png"),
                ct.TextBlock(text="and say"),
                ct.ImageUrlBlock(url="https://x.org/b.png"),
            )
        )
    ]
    prompt = ours(transcript, template, continue_final_message=True)
    assert prompt == "[text:Look:][image:https://x.org/a.png][text:and say"
    assert prompt == theirs(
        transcript, template, continue_final_message=True, add_generation_prompt=False
    )


def test_continue_final_message_refusals() -> None:
    pytest.importorskip("jinja2")
    with pytest.raises(ValueError, match="continue_final_message and add_generation_prompt=True"):
        render(PREFILLED, CHATML, continue_final_message=True, add_generation_prompt=True)
    with pytest.raises(TypeError, match="continue_final_message must be True, False or a field"):
        render(PREFILLED, CHATML, continue_final_message=1)  # type: ignore[arg-type]
    with pytest.raises(DialectError, match="the final message has no 'reasoning' to continue"):
        render(PREFILLED, CHATML, continue_final_message="reasoning")
    with pytest.raises(TemplateError, match="the chat template never reads 'content'"):
        render(
            PREFILLED,
            "{% for m in messages %}{{ m.role }}{% endfor %}",
            continue_final_message=True,
        )
    dropping = (
        "{% for m in messages %}{% if m.role == 'user' %}{{ m.content }}{% endif %}{% endfor %}"
    )
    with pytest.raises(TemplateError, match="the final message does not appear in the prompt"):
        render(PREFILLED, dropping, continue_final_message=True)
    only_images = [ct.UserMultimodalMessage(content=(ct.ImageUrlBlock(url="https://x.org/a.png"),))]
    with pytest.raises(DialectError, match="the final message has no text to continue"):
        render(only_images, "{{ messages[0].content }}", continue_final_message=True)
    # transformers refuses the same cases, with its own ValueError.
    refused: list[tuple[str, bool | str]] = [
        ("{% for m in messages %}{{ m.role }}{% endfor %}", True),
        (dropping, True),
        (CHATML, "reasoning"),
    ]
    for template, field in refused:
        with pytest.raises(ValueError):
            theirs(PREFILLED, template, continue_final_message=field, add_generation_prompt=False)
