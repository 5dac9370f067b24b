"""A REST request body as the google-genai SDK's ``generate_content`` takes it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

_BODY_KEYS: Final = {"model": "model", "contents": "contents"}
_GENERATION: Final = ("generation_config", "generationConfig")


def to_sdk_request(body: Mapping[str, Any]) -> dict[str, Any]:
    """The keyword arguments of google-genai's ``generate_content`` for a REST body.

    The REST body puts ``system_instruction``, ``tools``, ``tool_config``,
    ``safety_settings`` and the like beside ``contents``, and the generation
    settings in ``generation_config``; the SDK takes all of them flat in one
    ``config``. So ``model`` and ``contents`` stay, the fields of
    ``generation_config`` go into ``config``, and so does everything else::

        client.models.generate_content(**gemini.to_sdk_request(
            {"model": "gemini-2.5-flash", **gemini.to_request(transcript),
             **gemini.tools_to_request(tools)}))

    A setting given both in ``generation_config`` and beside it raises
    ``ValueError``. The values are ``body``'s own, moved, not copied: a body
    built by :func:`to_request` and :func:`tools_to_request` belongs to the
    caller, and so does what this makes of it.
    """
    if not isinstance(body, Mapping):
        raise TypeError(f"body must be a dict, not {type(body).__name__}")
    out: dict[str, Any] = {}
    config: dict[str, Any] = {}
    for key, value in body.items():
        if key in _BODY_KEYS:
            out[key] = value
        elif key in _GENERATION:
            if not isinstance(value, Mapping):
                raise TypeError(f"{key} must be a dict, not {type(value).__name__}")
            for name, setting in value.items():
                if name in config:
                    raise ValueError(f"{name!r} is given twice, in {key} and beside it")
                config[name] = setting
        else:
            if key in config:
                raise ValueError(f"{key!r} is given twice, in generation_config and beside it")
            config[key] = value
    if config:
        out["config"] = config
    return out
