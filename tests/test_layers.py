"""Modules import only downward, in the layers docs/contributing.md draws, and never in a circle.

The imports are read from the source (every import statement, including
those inside functions and under ``TYPE_CHECKING``), so that a circle a
type checker sees, or one a lazy import hides until it runs, shows here.
A module this table does not place fails the test: say where it belongs,
here and on the contributor page.
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).parent.parent / "src"

# Bottom to top. A module may import what its own layer and the ones below hold.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "values",
        (
            "convtypes._locate",
            "convtypes._errors",
            "convtypes._hashing",
            "convtypes._nesting",
            "convtypes._value",
            "convtypes._jsonvalue",
            "convtypes._provenance",
            "convtypes._changes",
            "convtypes._content",
            "convtypes._unknown",
            "convtypes._messages",
            "convtypes._replace",
            "convtypes._conversation",
            "convtypes._calls",
            "convtypes._fence",
            "convtypes._canonical",
            "convtypes._pending",
        ),
    ),
    (
        "codec",
        (
            "convtypes._bigstack",
            "convtypes._careful",
            "convtypes._codec",
            "convtypes._trim",
            "convtypes._address",
            "convtypes._schema",
        ),
    ),
    ("files", ("convtypes._files",)),
    ("sync", ("convtypes.sync",)),
    ("package", ("convtypes", "convtypes.strategies", "convtypes._hypothesis")),
    ("dialects", ("convtypes.dialects",)),
    ("exports", ("convtypes.mcp", "convtypes.otel")),
    ("cli", ("convtypes._cli", "convtypes.__main__")),
)
# A member names a module, and the modules of the package it names; the
# top-level package stands for its __init__ alone.

# The providers are the public modules and packages of convtypes.dialects but
# the local models' chat_template: none imports another, and no shared module
# imports one.
NOT_PROVIDERS = ("chat_template",)


def _modules() -> dict[str, tuple[Path, bool]]:
    found = {}
    for path in SRC.rglob("*.py"):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        package = parts[-1] == "__init__"
        if package:
            parts.pop()
        found[".".join(parts)] = (path, package)
    return found


MODULES = _modules()


def _imports(name: str) -> set[str]:
    """The modules of this tree that ``name`` imports, wherever in it the import stands."""
    path, package = MODULES[name]
    here = name.split(".") if package else name.split(".")[:-1]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name in MODULES)
        elif isinstance(node, ast.ImportFrom):
            base = here[: len(here) - node.level + 1] if node.level else []
            target = ".".join(base + ([node.module] if node.module else []))
            submodules = {f"{target}.{alias.name}" for alias in node.names} & MODULES.keys()
            # "from . import x" of a submodule imports that module; the package
            # around it is the importer's own and is running already.
            found |= submodules or ({target} & MODULES.keys())
    found.discard(name)
    return found


GRAPH = {name: _imports(name) for name in MODULES}


def _layer(name: str) -> int:
    for number, (_, members) in enumerate(LAYERS):
        if any(
            name == member or (member != "convtypes" and name.startswith(member + "."))
            for member in members
        ):
            return number
    raise AssertionError(
        f"{name} is in no layer: place it in tests/test_layers.py and docs/contributing.md"
    )


def _provider(name: str) -> str | None:
    parts = name.split(".")
    if len(parts) < 3 or parts[1] != "dialects":
        return None
    if parts[2].startswith("_") or parts[2] in NOT_PROVIDERS:
        return None
    return parts[2]


def test_every_module_is_in_a_layer() -> None:
    for name in MODULES:
        _layer(name)


def test_no_module_imports_a_layer_above_its_own() -> None:
    upward = [
        f"{name} ({LAYERS[_layer(name)][0]}) imports {other} ({LAYERS[_layer(other)][0]})"
        for name, imported in sorted(GRAPH.items())
        for other in sorted(imported)
        if _layer(other) > _layer(name)
    ]
    assert upward == []


def test_no_provider_imports_another_and_no_shared_module_imports_one() -> None:
    crossing = []
    for name, imported in sorted(GRAPH.items()):
        if not name.startswith("convtypes.dialects.") and name != "convtypes.dialects":
            continue
        mine = _provider(name)
        for other in sorted(imported):
            theirs = _provider(other)
            if theirs is not None and theirs != mine:
                crossing.append(f"{name} imports {other}")
    assert crossing == []


def _circle(graph: dict[str, set[str]]) -> list[str]:
    """One circle of imports in ``graph``, as the modules along it; empty if there is none."""
    state: dict[str, int] = {}  # 1: on the path being walked, 2: done
    path: list[str] = []

    def walk(name: str) -> list[str]:
        state[name] = 1
        path.append(name)
        for other in sorted(graph[name]):
            if state.get(other) == 1:
                return [*path[path.index(other) :], other]
            if other not in state:
                found = walk(other)
                if found:
                    return found
        path.pop()
        state[name] = 2
        return []

    for name in sorted(graph):
        if name not in state:
            found = walk(name)
            if found:
                return found
    return []


def test_no_circle_of_imports() -> None:
    circle = _circle(GRAPH)
    assert not circle, "a circle of imports: " + " -> ".join(circle)


def test_a_circle_is_found_and_named() -> None:
    # The check itself, on a graph with a circle through three modules.
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _circle(graph) == ["a", "b", "c", "a"]
    assert _circle({"a": {"b"}, "b": set()}) == []
