# ruff: noqa: E501
"""No input crashes the process, even on a thread with a small stack.

msgspec recurses once per level of nesting, guarded only by the
interpreter's recursion limit, which before Python 3.14 does not know how
much stack a thread has. These tests decode documents nested far deeper
than any stack allows (200,000 levels, more than the raised recursion limit
they also run under; CI's slower profile sets CONVTYPES_DEEP_LEVELS to a
million) in every place a document can nest, on a thread with a 256 KiB
stack, in a fresh interpreter: a crash fails the test, not the test runner.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

# Deeper than the stack of a 256 KiB thread holds (a few thousand levels of
# msgspec's recursion) and than the recursion limit the raised modes set.
LEVELS = int(os.environ.get("CONVTYPES_DEEP_LEVELS", "200000"))
assert LEVELS > 100_000, "the raised-limit mode needs nesting past its recursion limit"
STACK = 256 * 1024

# Each case: a name, the call to make (with ``doc`` bound), and the document,
# where DEEP stands for LEVELS levels of arrays (or OBJ of objects).
CASES: list[tuple[str, str, str]] = [
    ("items", "ct.decode_message(doc)", '{"role":"provider_output_items","protocol":"p","items":[DEEP]}'),
    ("arguments", "ct.decode_message(doc)", '{"role":"assistant","tool_calls":[{"name":"n","arguments":{"a":DEEP}}]}'),
    ("arguments-objects", "ct.decode_message(doc)", '{"role":"assistant","tool_calls":[{"name":"n","arguments":OBJ}]}'),
    ("transcript", "ct.decode_messages(doc)", '[{"role":"user","content":"a"},{"role":"provider_output_items","protocol":"p","items":DEEP}]'),
    ("bare-array", "ct.decode_messages(doc)", "DEEP"),
    ("unclosed", "ct.decode_messages(doc)", "[" * 50 + "OPEN"),
    ("unclosed-objects", "ct.decode_message(doc)", '{"role":"user","content":"a","x":' + "OPENOBJ"),
    ("unknown-field", "ct.decode_message(doc)", '{"role":"user","content":"a","later":DEEP}'),
    ("unknown-field-first", "ct.decode_message(doc)", '{"later":DEEP,"role":"user","content":"a"}'),
    ("known-field-first", "ct.decode_message(doc)", '{"content":DEEP,"role":"user"}'),
    ("block-unknown-field", "ct.decode_message(doc)", '{"role":"user_multimodal","content":[{"type":"text","text":"t","later":DEEP}]}'),
    ("block-field-first", "ct.decode_message(doc)", '{"role":"user_multimodal","content":[{"later":DEEP,"type":"text","text":"t"}]}'),
    ("call-unknown-field", "ct.decode_message(doc)", '{"role":"assistant","tool_calls":[{"name":"n","arguments":{},"later":DEEP}]}'),
    ("thinking-unknown-field", "ct.decode_message(doc)", '{"role":"assistant","thinking":[{"text":"t","later":DEEP}]}'),
    ("unknown-role", "ct.decode_message(doc)", '{"role":"developer","content":DEEP}'),
    ("unknown-role-late", "ct.decode_messages(doc)", '[{"content":DEEP,"role":"developer"}]'),
    ("unknown-block", "ct.decode_message(doc)", '{"role":"user_multimodal","content":[{"type":"document","body":DEEP}]}'),
    ("lone-call", "ct.decode(doc, ct.ToolCall)", '{"name":"n","arguments":{"a":DEEP}}'),
    ("lone-block", "ct.decode(doc, ct.ContentBlock)", '{"later":DEEP,"type":"text","text":"t"}'),
    ("lone-thinking", "ct.decode(doc, ct.ThinkingBlock)", '{"later":DEEP}'),
    ("lone-class", "ct.decode(doc, ct.UserMessage)", '{"later":DEEP,"role":"user","content":"a"}'),
    ("repeated-keys", "ct.decode_message(doc, reject_repeated_keys=True)", '{"role":"user","content":"a","x":DEEP}'),
]  # fmt: skip

SCRIPT = """
import sys, threading
import convtypes as ct

levels = int(sys.argv[1])
lenient = sys.argv[2] == "lenient"
if sys.argv[2] in ("raised-limit", "no-big-stack"):
    # Programs raise the limit for deep recursion of their own; on 3.10 and
    # 3.11 it also lets msgspec skip deeper, so the guard must step in.
    sys.setrecursionlimit(100_000)
if sys.argv[2] == "no-big-stack":
    # Where no thread with a big stack can be started, the nesting is
    # measured before the decode instead.
    import convtypes._codec
    from convtypes._bigstack import NoBigStack

    def refuse(*args):
        raise NoBigStack("not here")

    convtypes._codec.call_on_big_stack = refuse
cases = eval(sys.argv[3])
deep = "[" * levels + "]" * levels
obj = '{"a":' * levels + "1" + "}" * levels

def run():
    for name, call, template in cases:
        text = (template.replace("OPENOBJ", '{"a":' * levels).replace("OPEN", "[" * levels)
                .replace("DEEP", deep).replace("OBJ", obj))
        doc = text.encode()
        if lenient:
            call = call.replace("(doc)", "(doc, lenient=True)")
        try:
            eval(call)
            outcome = "value"
        except ct.WireError as err:
            outcome = "WireError"
        except BaseException as err:
            outcome = "leaked " + type(err).__name__ + ": " + str(err)[:80]
        print(name, outcome, flush=True)

threading.stack_size(int(sys.argv[4]))
thread = threading.Thread(target=run)
thread.start()
thread.join()
print("finished", flush=True)
"""


def _run(mode: str, cases: list[tuple[str, str, str]]) -> dict[str, str]:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(LEVELS), mode, repr(cases), str(STACK)],
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    lines = done.stdout.splitlines()
    reached = lines[-1] if lines else "nothing"
    assert done.returncode == 0, (
        f"the interpreter died (exit status {done.returncode}) after: {reached}\n{done.stderr}"
    )
    assert lines[-1] == "finished"
    return dict(line.split(" ", 1) for line in lines[:-1])


@pytest.mark.parametrize("mode", ["strict", "lenient", "raised-limit", "no-big-stack"])
def test_deep_nesting_anywhere_ends_in_wire_error(mode: str) -> None:
    outcomes = _run(mode, CASES)
    assert outcomes == {name: "WireError" for name, _, _ in CASES}


def test_check_command_survives_deep_nesting(tmp_path: Path) -> None:
    deep = "[" * LEVELS + "]" * LEVELS
    oplog = tmp_path / "deep.jsonl"
    oplog.write_text(
        '{"role":"user","content":"fine"}\n'
        f'{{"later":{deep},"role":"user","content":"a"}}\n'
        f'{{"role":"developer","x":{deep}}}\n'
    )
    code = textwrap.dedent(
        f"""
        import sys, threading
        from convtypes._cli import main
        result = []
        def run():
            for extra in ([], ["--lenient"], ["--canonical", "--strict"]):
                result.append(main(["check", *extra, {str(oplog)!r}]))
        threading.stack_size({STACK})
        thread = threading.Thread(target=run)
        thread.start()
        thread.join()
        print("statuses", result)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=600
    )
    assert done.returncode == 0, done.stderr
    assert "statuses [1, 1, 1]" in done.stdout
    assert "127 levels" in done.stdout


def test_dialects_read_deep_tool_arguments_from_a_response_safely() -> None:
    # Tool arguments arrive from the network as JSON text inside a response.
    code = textwrap.dedent(
        f"""
        import threading
        from convtypes.dialects import DialectError, anthropic, openai_chat
        deep = "[" * {LEVELS} + "]" * {LEVELS}
        chat = {{"choices": [{{"index": 0, "finish_reason": "tool_calls", "message": {{
            "role": "assistant", "content": None, "tool_calls": [{{"id": "c", "type": "function",
            "function": {{"name": "n", "arguments": '{{"a":' + deep + "}}"}}}}]}}}}]}}
        outcomes = []
        def run():
            try:
                openai_chat.from_response(chat)
                outcomes.append("value")
            except DialectError:
                outcomes.append("DialectError")
            stream = anthropic.Accumulator()
            try:
                for event in (
                    {{"type": "message_start", "message": {{"id": "m", "type": "message",
                      "role": "assistant", "model": "x", "content": [], "stop_reason": None,
                      "stop_sequence": None, "usage": {{"input_tokens": 1, "output_tokens": 1}}}}}},
                    {{"type": "content_block_start", "index": 0, "content_block": {{
                      "type": "tool_use", "id": "t", "name": "n", "input": {{}}}}}},
                    {{"type": "content_block_delta", "index": 0, "delta": {{
                      "type": "input_json_delta", "partial_json": '{{"a":' + deep + "}}"}}}},
                    {{"type": "content_block_stop", "index": 0}},
                ):
                    stream.feed(event)
                outcomes.append("value")
            except DialectError:
                outcomes.append("DialectError")
        threading.stack_size({STACK})
        thread = threading.Thread(target=run)
        thread.start()
        thread.join()
        print(outcomes)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=600
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "['DialectError', 'DialectError']"


def test_the_big_stack_thread_comes_back_after_fork() -> None:
    code = textwrap.dedent(
        """
        import os, sys
        import convtypes as ct
        sys.setrecursionlimit(100_000)  # so that large documents take the big stack
        doc = ct.encode([ct.UserMessage(content="x" * 100_000)])
        assert ct.decode_messages(doc)
        pid = os.fork()
        if pid == 0:
            ok = ct.decode_messages(doc) == [ct.UserMessage(content="x" * 100_000)]
            os._exit(0 if ok else 1)
        _, status = os.waitpid(pid, 0)
        print("child", os.waitstatus_to_exitcode(status))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "child 0"
