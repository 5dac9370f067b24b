"""Running a chat template: the jinja2 sandbox that Hugging Face templates are written for.

Chat templates ship with model weights and are untrusted code, so they run in
jinja2's immutable sandbox. They are written against one renderer,
``transformers``', and rely on its details, so this sandbox reproduces them:

- blocks trim their newline and strip leading space (``trim_blocks``,
  ``lstrip_blocks``), and ``{% break %}`` / ``{% continue %}`` work;
- ``raise_exception(message)`` refuses the conversation, ``strftime_now(fmt)``
  gives today's date, and ``tojson`` writes plain JSON (not HTML-escaped,
  non-ASCII kept) with ``indent``, ``separators``, ``sort_keys`` and
  ``ensure_ascii``;
- ``dict`` builds a dict but offers nothing else, and ``namespace`` refuses
  attribute names that start with ``_``;
- ``{% generation %}...{% endgeneration %}`` (which marks the assistant's
  tokens for training) renders its body.

One thing differs on purpose. transformers always hands a template the
tokenizer's special tokens, and there is no tokenizer here, so the caller
passes them. A template that prints one the caller left out
(``{{ bos_token }}``) would print nothing, and the prompt would lack the
token without a word; here that fails instead, naming the token. Testing
one (``is defined``, ``if``) works as in jinja2.

jinja2 is imported on first use only, and only from here: ``import convtypes``
and ``import convtypes.dialects.chat_template`` never import it. Every failure
leaves as :class:`TemplateError`.
"""

from __future__ import annotations

import functools
import json
from datetime import datetime
from typing import Any, Final, NoReturn

from ._template_errors import TemplateError

MIN_JINJA2: Final = (3, 1, 6)
"""The oldest jinja2 trusted to sandbox a template: earlier ones have known escapes."""

# What to install, said so that it holds however convtypes itself was installed
# (no release is on a package index yet).
_INSTALL: Final = "pip install 'jinja2>=3.1.6' (convtypes' templates extra)"

SPECIAL_TOKENS: Final = frozenset(
    {
        "bos_token",
        "eos_token",
        "unk_token",
        "sep_token",
        "pad_token",
        "cls_token",
        "mask_token",
    }
)
"""The tokenizer's special tokens, as transformers names them when it passes them to a template."""


class _Refusal(Exception):
    """What a template's ``raise_exception`` raises, to be told apart from a failure."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def _raise_exception(message: object) -> NoReturn:
    raise _Refusal(str(message))


def _tojson(
    value: Any,
    ensure_ascii: bool = False,
    indent: int | str | None = None,
    separators: tuple[str, str] | None = None,
    sort_keys: bool = False,
) -> str:
    # The parameters are in the order transformers takes them, so a template
    # that passes them by position reads the same here.
    return json.dumps(
        value, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys
    )


def _strftime_now(format: str) -> str:
    return datetime.now().strftime(format)


class _DictBuilder:
    """The template's ``dict``: it builds dicts, and exposes nothing a template could climb."""

    def __call__(self, *args: Any, **kwargs: Any) -> dict[Any, Any]:
        return dict(*args, **kwargs)

    def fromkeys(self, *args: Any, **kwargs: Any) -> dict[Any, Any]:
        return dict.fromkeys(*args, **kwargs)


def _jinja2_version(text: str) -> tuple[int, ...]:
    parts: list[int] = []
    for piece in text.split(".")[:3]:
        digits = "".join(c for c in piece if c.isdigit()) or "0"
        parts.append(int(digits))
    return tuple(parts)


@functools.lru_cache(maxsize=1)
def environment() -> Any:
    """The sandbox, built once; ``ImportError`` if jinja2 is missing or too old."""
    try:
        import jinja2
        from jinja2 import nodes
        from jinja2.exceptions import SecurityError
        from jinja2.ext import Extension, loopcontrols
        from jinja2.sandbox import ImmutableSandboxedEnvironment
        from jinja2.utils import Namespace, missing
    except ImportError as err:
        raise ImportError(
            f"rendering a chat template needs jinja2, which is not installed: {_INSTALL}"
        ) from err
    if _jinja2_version(jinja2.__version__) < MIN_JINJA2:
        raise ImportError(
            f"rendering a chat template needs jinja2 3.1.6 or later (found {jinja2.__version__}): "
            "older versions let a template escape its sandbox; " + _INSTALL
        )

    class Generation(Extension):
        # A call block, as transformers compiles it: what the body sets stays inside.
        tags = {"generation"}  # noqa: RUF012 - jinja2 declares it so

        def parse(self, parser: Any) -> Any:
            line = next(parser.stream).lineno
            body = parser.parse_statements(("name:endgeneration",), drop_needle=True)
            call = nodes.CallBlock(self.call_method("_body"), [], [], body)
            return call.set_lineno(line)

        def _body(self, caller: Any) -> Any:
            return caller()

    def check_name(name: object) -> None:
        if isinstance(name, str) and name.startswith("_"):
            raise SecurityError(f"a template may not set {name!r} on a namespace")

    class GuardedNamespace(Namespace):
        def __init__(*args: Any, **kwargs: Any) -> None:
            # jinja2's own signature trick: ``namespace(self=1)`` stays a field.
            self, rest = args[0], args[1:]
            fields = dict(*rest, **kwargs)
            for name in fields:
                check_name(name)
            Namespace.__init__(self, fields)

        def __setitem__(self, name: str, value: Any) -> None:
            check_name(name)
            Namespace.__setitem__(self, name, value)

    class SpecialTokenUndefined(jinja2.Undefined):
        # Printing a special token nobody passed would drop it from the
        # prompt in silence (see the module's doc). Any other undefined
        # value prints as nothing, as transformers' renderer prints it.
        __slots__ = ()

        def __str__(self) -> str:
            name = self._undefined_name
            if self._undefined_obj is missing and name in SPECIAL_TOKENS:
                raise jinja2.UndefinedError(
                    f"{name!r} is undefined: the template prints it, and render has no "
                    f"tokenizer to take it from; pass it ({name}=..., or "
                    "**tokenizer.special_tokens_map), as '' if the tokenizer has none"
                )
            return super().__str__()

    env = ImmutableSandboxedEnvironment(
        trim_blocks=True,
        lstrip_blocks=True,
        extensions=[Generation, loopcontrols],
        undefined=SpecialTokenUndefined,
    )
    env.filters["tojson"] = _tojson
    env.globals["raise_exception"] = _raise_exception
    env.globals["strftime_now"] = _strftime_now
    env.globals["dict"] = _DictBuilder()
    env.globals["namespace"] = GuardedNamespace
    return env


@functools.lru_cache(maxsize=64)
def compiled(template: str) -> Any:
    """The template compiled in the sandbox, kept for the next render of the same text."""
    env = environment()
    import jinja2

    try:
        return env.from_string(template)
    except jinja2.TemplateSyntaxError as err:
        raise TemplateError(
            f"the chat template is not valid Jinja: {err.message} (template line {err.lineno})",
            line=err.lineno,
        ) from err
    except (jinja2.TemplateError, RecursionError, ValueError, TypeError) as err:
        raise TemplateError(f"the chat template cannot be compiled: {_why(err)}") from err


def _why(err: BaseException) -> str:
    text = str(err) or type(err).__name__
    if len(text) > 300:
        text = text[:297] + "..."
    return text


def _template_line(err: BaseException) -> int | None:
    """The line of the template that was running, from jinja2's rewritten traceback."""
    line = None
    trace = err.__traceback__
    while trace is not None:
        if trace.tb_frame.f_code.co_filename == "<template>":
            line = trace.tb_lineno
        trace = trace.tb_next
    return line


def run(template: str, variables: dict[str, Any]) -> str:
    """Render ``template`` with ``variables``; every failure is a :class:`TemplateError`."""
    if not isinstance(template, str):
        raise TypeError(f"template must be the chat template's text, not {type(template).__name__}")
    environment()  # jinja2 present and recent enough, whatever is cached
    program = compiled(template)
    try:
        text = program.render(**variables)
    except _Refusal as err:
        line = _template_line(err)
        where = f" (template line {line})" if line is not None else ""
        raise TemplateError(
            f"the chat template refused the conversation: {err.message}{where}",
            line=line,
            refusal=err.message,
        ) from None
    except MemoryError:
        raise
    except Exception as err:
        # An undefined value, a type error, a sandbox refusal, a recursion too
        # deep: whatever the template did, the caller gets one error type.
        line = _template_line(err)
        where = f" (template line {line})" if line is not None else ""
        raise TemplateError(
            f"the chat template failed: {type(err).__name__}: {_why(err)}{where}", line=line
        ) from err
    if not isinstance(text, str):  # pragma: no cover - jinja2 always returns text
        raise TemplateError("the chat template did not render text")
    return text
