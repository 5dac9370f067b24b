"""Run every dialect's checks against recorded SDK traffic (see dev/README.md)."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

# Ollama has no recordings in the SDK repositories; its tests carry their own.
DIALECTS = ("openai_chat", "openai_responses", "anthropic", "gemini")


def main() -> int:
    if len(sys.argv) < 2:
        print(__doc__)
        print("usage: python dev/check_fixtures.py SDK_FIXTURES_DIR [dialect ...]")
        return 2
    root = Path(sys.argv[1])
    chosen = sys.argv[2:] or DIALECTS
    ok = True
    for dialect in chosen:
        try:
            module = importlib.import_module(f"fixtures_{dialect}")
        except ModuleNotFoundError:
            print(f"{dialect}: no checks yet")
            continue
        ok = module.run(root) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
