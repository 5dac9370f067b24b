"""A seeded, realistic corpus of agent transcripts for the benchmarks.

Sessions look like what an agent backend stores: a system prompt, user turns,
assistant turns with signed thinking and tool calls with nested arguments,
tool results (half of them fetched from outside) with web-page-sized text,
some multimodal turns carrying base64 images, and provider output items.
Everything is written as plain JSON in the reference's canonical form, so
every peer reads the same bytes.
"""

from __future__ import annotations

import base64
import json
import random
from pathlib import Path
from typing import Any

WORDS = (
    "the of and to in is for on that with as was it by be this are from at or an have not "
    "model agent tool result search page error request latency token cache file path value "
    "function returns table index query server client stream buffer retry timeout config"
).split()


def _text(rng: random.Random, words: int) -> str:
    out = " ".join(rng.choice(WORDS) for _ in range(words))
    # A little non-ASCII and escaping, as real pages have.
    if rng.random() < 0.3:
        out += ' "quoted" caf\u00e9 \u2014 \u65e5\u672c\n\ttabbed'
    return out


def _b64(rng: random.Random, size: int) -> str:
    return base64.b64encode(rng.randbytes(size)).decode()


def _arguments(rng: random.Random) -> dict[str, Any]:
    return {
        "query": _text(rng, 6),
        "options": {"limit": rng.randint(1, 50), "filters": [_text(rng, 2), _text(rng, 1)]},
        "recursive": rng.random() < 0.5,
        "depth": {"max": rng.randint(1, 9), "follow": {"links": True, "ratio": rng.random()}},
    }


def _item(rng: random.Random) -> dict[str, Any]:
    if rng.random() < 0.5:
        return {
            "type": "reasoning",
            "id": f"rs_{rng.getrandbits(64):016x}",
            "summary": [{"type": "summary_text", "text": _text(rng, 30)}],
            "encrypted_content": _b64(rng, 600),
        }
    return {
        "type": "web_search_call",
        "id": f"ws_{rng.getrandbits(64):016x}",
        "status": "completed",
        "action": {"type": "search", "query": _text(rng, 5)},
    }


def session(rng: random.Random, turns: int) -> list[dict[str, Any]]:
    """One agent session as a list of wire dicts, in canonical field order."""
    messages: list[dict[str, Any]] = [{"role": "system", "content": _text(rng, 300)}]
    for turn in range(turns):
        if rng.random() < 0.1:
            blocks: list[dict[str, Any]] = [{"type": "text", "text": _text(rng, 20)}]
            blocks.append(
                {"type": "image_base64", "data": _b64(rng, 20_000), "media_type": "image/png"}
            )
            messages.append({"role": "user_multimodal", "content": blocks})
        else:
            messages.append({"role": "user", "content": _text(rng, 40)})
        for step in range(rng.randint(1, 3)):
            call_id = f"toolu_{turn:04d}_{step}_{rng.getrandbits(32):08x}"
            thinking = [{"text": _text(rng, 120), "signature": _b64(rng, 300)}]
            if rng.random() < 0.1:
                thinking.append({"text": "", "redacted_data": _b64(rng, 200)})
            messages.append(
                {
                    "role": "assistant",
                    "content": _text(rng, 15),
                    "tool_calls": [
                        {"id": call_id, "name": "web_fetch", "arguments": _arguments(rng)}
                    ],
                    "thinking": thinking,
                }
            )
            result: dict[str, Any] = {
                "role": "tool_result",
                "tool_use_id": call_id,
                "content": _text(rng, rng.randint(400, 1500)),
            }
            if rng.random() < 0.5:
                result["provenance"] = "external"
            messages.append(result)
        if rng.random() < 0.2:
            messages.append(
                {
                    "role": "provider_output_items",
                    "protocol": "openai-responses",
                    "items": [_item(rng) for _ in range(rng.randint(1, 3))],
                }
            )
        messages.append({"role": "assistant", "content": _text(rng, 80), "tool_calls": []})
    return messages


def dumps(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


def transcript(target_bytes: int, seed: int = 1) -> bytes:
    """A transcript of about ``target_bytes``, made of whole sessions."""
    rng = random.Random(seed)
    messages: list[dict[str, Any]] = []
    size = 2
    while size < target_bytes:
        chunk = session(rng, rng.randint(3, 8))
        size += sum(len(dumps(m)) + 1 for m in chunk)
        messages.extend(chunk)
    return dumps(messages)


def small_messages(count: int, seed: int = 2) -> list[bytes]:
    """An oplog's worth of small messages, one JSON document each."""
    rng = random.Random(seed)
    out = []
    for index in range(count):
        kind = index % 4
        if kind == 0:
            message: dict[str, Any] = {"role": "user", "content": _text(rng, 12)}
        elif kind == 1:
            message = {
                "role": "assistant",
                "content": _text(rng, 10),
                "tool_calls": [
                    {"id": f"call_{index}", "name": "lookup", "arguments": {"key": _text(rng, 2)}}
                ],
            }
        elif kind == 2:
            message = {
                "role": "tool_result",
                "tool_use_id": f"call_{index - 1}",
                "content": _text(rng, 20),
            }
            if rng.random() < 0.5:
                message["provenance"] = "external"
        else:
            message = {"role": "assistant", "content": _text(rng, 15), "tool_calls": []}
        out.append(dumps(message))
    return out


def write(directory: Path, sizes: dict[str, int], oplog_count: int) -> dict[str, Path]:
    """Write each transcript and the oplog once; return their paths."""
    directory.mkdir(parents=True, exist_ok=True)
    paths = {}
    for name, size in sizes.items():
        path = directory / f"transcript-{name}.json"
        path.write_bytes(transcript(size))
        paths[name] = path
    oplog = directory / "oplog.jsonl"
    oplog.write_bytes(b"\n".join(small_messages(oplog_count)) + b"\n")
    paths["oplog"] = oplog
    return paths
