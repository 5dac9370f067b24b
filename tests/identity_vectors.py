"""The test vectors of docs/identity.md: messages, their canonical bytes and addresses.

    python tests/identity_vectors.py     # rewrites tests/vectors/identity.jsonl

Each line of the file is one JSON object:

- ``{"name", "wire", "canonical", "address"}``: ``wire`` is a message as some
  writer wrote it (a JSON text, kept as a string so that its spelling
  survives: key order, escapes, ``1.0``); ``canonical`` is the text of its
  canonical bytes (UTF-8) and ``address`` their SHA-256.
- ``{"name", "transcript", "addresses"}``: ``transcript`` is a list of
  message texts and ``addresses`` the transcript's address after none of
  them, after the first, and so on.

The wires are written here by hand; canonical and address come from
convtypes, and tests/test_identity.py holds them to the rfc8785 package.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
FILE = HERE / "vectors" / "identity.jsonl"


def _call(arguments: str, name: str = "f", call_id: str = "call_1") -> str:
    call = f'{{"id":"{call_id}","name":"{name}","arguments":{arguments}}}'
    return f'{{"role":"assistant","content":"","tool_calls":[{call}]}}'


# (name, wire): every message and block type, then the hard cases.
MESSAGES: list[tuple[str, str]] = [
    ("system", '{"role":"system","content":"You are terse."}'),
    ("user", '{"role":"user","content":"Weather in Oslo?"}'),
    ("user, keys in another order", '{"content":"Weather in Oslo?","role":"user"}'),
    (
        "user, white space and escapes",
        '{ "role" : "user",\n  "content" : "\\u0057eather in Oslo\\u003f" }',
    ),
    (
        "user, non-ASCII text",
        '{"role":"user","content":"Caf\u00e9 \u2014 \u65e5\u672c \U0001f600"}',
    ),
    (
        "user, the same text escaped",
        '{"role":"user","content":"Caf\\u00e9 \\u2014 \\u65e5\\u672c \\ud83d\\ude00"}',
    ),
    (
        "user, control characters and the escapes RFC 8785 keeps",
        '{"role":"user","content":"tab\\tline\\nfeed\\f\\b\\r nul\\u0000 us\\u001f del\\u007f'
        ' quote\\" back\\\\ slash\\/ ls\\u2028"}',
    ),
    (
        "user_multimodal, every block type",
        '{"role":"user_multimodal","content":['
        '{"type":"text","text":"Look:"},'
        '{"type":"image_base64","data":"iVBORw0KGgo=","media_type":"image/png"},'
        '{"type":"image_url","url":"https://example.com/a.png","detail":"high"},'
        '{"type":"video_path","path":"/tmp/v.mp4","fps":29.97,"max_frames":64},'
        '{"type":"video_url","url":"https://example.com/v.mp4"},'
        '{"type":"video_base64","data":"AAAA","media_type":"video/mp4","fps":2.0},'
        '{"type":"audio_path","path":"/tmp/a.wav","sample_rate":16000},'
        '{"type":"audio_url","url":"https://example.com/a.mp3"},'
        '{"type":"audio_base64","data":"UklGRg==","media_type":"audio/wav"}]}',
    ),
    (
        "user_multimodal, an unknown block type",
        '{"role":"user_multimodal","content":[{"type":"text","text":"hi"},'
        '{"type":"hologram","z":1.50,"frames":[3,2,1]}]}',
    ),
    (
        "assistant, text only (tool_calls written, as the reference writes it)",
        '{"role":"assistant","content":"Rain, 4 C.","tool_calls":[]}',
    ),
    (
        "assistant, signed and redacted thinking",
        '{"role":"assistant","content":"Done.","tool_calls":[],"thinking":['
        '{"text":"Let me think.","signature":"EqQBCkYIBxgCKkA="},'
        '{"text":"","redacted_data":"ErUBCkYIBRgC"}]}',
    ),
    (
        "assistant, a call without an id and empty arguments",
        '{"role":"assistant","content":"","tool_calls":[{"name":"now","arguments":{}}]}',
    ),
    (
        "assistant, multi-key arguments in a HashMap's order",
        _call('{"unit":"celsius","city":"Oslo","days":3,"hourly":false,"at":null}'),
    ),
    (
        "assistant, the same arguments in another order",
        _call('{"at":null,"days":3,"city":"Oslo","hourly":false,"unit":"celsius"}'),
    ),
    (
        "assistant, nested arguments",
        _call('{"filter":{"tags":["a","b"],"range":{"to":10,"from":1}},"query":"x"}'),
    ),
    (
        "tool_result, internal",
        '{"role":"tool_result","tool_use_id":"call_1","content":"Rain, 4 C"}',
    ),
    (
        "tool_result, external",
        '{"role":"tool_result","tool_use_id":"call_1","content":"<html>","provenance":"external"}',
    ),
    (
        "tool_result, a provenance this version does not know",
        '{"role":"tool_result","tool_use_id":"call_1","content":"x","provenance":"partner"}',
    ),
    (
        "provider_output_items",
        '{"role":"provider_output_items","protocol":"openai-responses","items":['
        '{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"gAAAA"},'
        '{"type":"web_search_call","id":"ws_1","status":"completed"}]}',
    ),
    (
        "an unknown role",
        '{"role":"critic","verdict":"ok","score":0.75,"notes":{"b":2,"a":1}}',
    ),
    (
        "unknown fields on a known message",
        '{"role":"user","content":"hi","lang":"en","meta":{"seq":7,"device":"phone"}}',
    ),
    (
        "unknown fields on a tool call",
        '{"role":"assistant","content":"","tool_calls":['
        '{"id":"c","name":"f","arguments":{},"index":0}]}',
    ),
    # Numbers.
    ("numbers: 1", _call('{"n":1}')),
    ("numbers: 1.0 is the number 1", _call('{"n":1.0}')),
    ("numbers: 1e2 and 100.0 are 100", _call('{"a":1e2,"b":100.0,"c":1E+2,"d":100}')),
    ("numbers: true is not 1", _call('{"n":true}')),
    ("numbers: zero and minus zero", _call('{"a":0,"b":-0,"c":0.0,"d":-0.0,"e":0e10}')),
    (
        "numbers: doubles as ECMAScript writes them",
        _call(
            '{"a":0.1,"b":1e21,"c":1e20,"d":1e-7,"e":0.000001,"f":123.456,'
            '"g":5e-324,"h":1.7976931348623157e308,"i":-2.5e-8,"j":4.50,"k":2e-3,'
            '"l":333333333.33333329,"m":1E30,"n":1e-400}'
        ),
    ),
    (
        "numbers: the largest integers RFC 8785 writes",
        _call('{"a":9007199254740991,"b":-9007199254740991,"c":9007199254740992}'),
    ),
    (
        "numbers: integers beyond 2**53 keep their digits",
        _call(
            '{"a":9007199254740993,"b":18446744073709551616,'
            '"c":-123456789012345678901234567890,"d":1152921504606846976}'
        ),
    ),
    (
        "numbers: an integer and the double that is spelled the same",
        _call('{"int":1152921504606847000,"double":1152921504606846976.0}'),
    ),
    ("numbers: 10**21 as an integer", _call('{"n":1000000000000000000000}')),
    ("numbers: 1e21 as a double", _call('{"n":1e21}')),
    # Keys.
    (
        "keys: sorted by UTF-16 code units, not by code point",
        _call('{"\U0001f600":1,"\ue000":2,"\uff61":3,"a":4,"\u00e9":5,"A":6,"\u20ac":7}'),
    ),
    (
        "keys: RFC 8785's sorting example",
        _call(
            '{"\\u20ac":"Euro Sign","\\r":"Carriage Return","\\ufb33":"Hebrew Letter Dalet '
            'With Dagesh","1":"One","\\ud83d\\ude00":"Emoji: Grinning Face","\\u0080":"Control",'
            '"\\u00f6":"Latin Small Letter O With Diaeresis"}'
        ),
    ),
    (
        "RFC 8785's example in its section 3.2.2",
        _call(
            '{"numbers":[333333333.33333329,1E30,4.50,2e-3,0.000000000000000000000000001],'
            '"string":"\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/",'
            '"literals":[null,true,false]}'
        ),
    ),
]

# (name, wire, wire form): step 1 of the spec, one rule or more a line. The
# wire is what a writer may leave or spell otherwise; the wire form is that
# message as the reference writes it, written out by hand here, so that the
# tests hold convtypes' canonical bytes to an RFC 8785 package's bytes of it.
WIRE_FORM: list[tuple[str, str, str]] = [
    (
        "wire form: an assistant message's defaults are written, empty thinking is not",
        '{"role":"assistant","thinking":[]}',
        '{"role":"assistant","content":"","tool_calls":[]}',
    ),
    (
        "wire form: null ids, signatures and redacted data are left out, thinking text is not",
        '{"role":"assistant","thinking":[{"signature":"s","redacted_data":null},'
        '{"redacted_data":"r","text":"","signature":null}],'
        '"tool_calls":[{"id":null,"name":"f","arguments":{}}]}',
        '{"role":"assistant","content":"","thinking":[{"text":"","signature":"s"},'
        '{"text":"","redacted_data":"r"}],"tool_calls":[{"name":"f","arguments":{}}]}',
    ),
    (
        "wire form: an internal provenance is left out",
        '{"role":"tool_result","tool_use_id":"call_1","content":"Rain","provenance":"internal"}',
        '{"role":"tool_result","tool_use_id":"call_1","content":"Rain"}',
    ),
    (
        "wire form: detail is written, null media numbers are not, fps is a 32-bit float",
        '{"role":"user_multimodal","content":['
        '{"type":"video_url","url":"u","fps":29.969999313354492,"max_frames":null},'
        '{"type":"video_path","path":"p","fps":0.123456789},'
        '{"type":"audio_url","url":"a","sample_rate":null},'
        '{"type":"image_url","url":"i"}]}',
        '{"role":"user_multimodal","content":['
        '{"type":"video_url","url":"u","fps":29.97},'
        '{"type":"video_path","path":"p","fps":0.12345679},'
        '{"type":"audio_url","url":"a"},'
        '{"type":"image_url","url":"i","detail":"auto"}]}',
    ),
    (
        "wire form: a key given twice counts once, with its last value",
        '{"role":"assistant","content":"first","content":"",'
        '"tool_calls":[{"id":"call_1","name":"f","arguments":{"n":1,"n":2}}]}',
        '{"role":"assistant","content":"",'
        '"tool_calls":[{"id":"call_1","name":"f","arguments":{"n":2}}]}',
    ),
]

TRANSCRIPTS: list[tuple[str, list[str]]] = [
    ("the empty transcript", []),
    (
        "a turn with a tool call",
        [
            '{"role":"system","content":"You are terse."}',
            '{"role":"user","content":"Weather in Oslo?"}',
            _call('{"city":"Oslo"}'),
            '{"role":"tool_result","tool_use_id":"call_1","content":"Rain, 4 C",'
            '"provenance":"external"}',
            '{"role":"assistant","content":"Rain, 4 C.","tool_calls":[]}',
        ],
    ),
]


def build() -> list[dict[str, Any]]:
    """The vectors, computed by convtypes from the wires above."""
    import convtypes as ct

    out: list[dict[str, Any]] = []
    for name, wire in [*MESSAGES, *((name, wire) for name, wire, _ in WIRE_FORM)]:
        message = ct.decode_message(wire, lenient=True)
        out.append(
            {
                "name": name,
                "wire": wire,
                "canonical": ct.canonical(message).decode("utf-8"),
                "address": ct.address(message),
            }
        )
    for name, wires in TRANSCRIPTS:
        messages = [ct.decode_message(wire, lenient=True) for wire in wires]
        chain = [ct.address(messages[:end]) for end in range(len(messages) + 1)]
        out.append({"name": name, "transcript": wires, "addresses": chain})
    return out


def text() -> str:
    """The file's text: one vector a line, ASCII only (every other character escaped)."""
    return "".join(json.dumps(v) + "\n" for v in build())


if __name__ == "__main__":
    FILE.parent.mkdir(exist_ok=True)
    FILE.write_text(text(), encoding="utf-8")
    sys.stdout.write(f"wrote {FILE} ({len(build())} vectors)\n")
