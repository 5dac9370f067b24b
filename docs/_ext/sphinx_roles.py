"""A griffe extension that lets the API reference read the docstrings as they are written.

convtypes' docstrings are reStructuredText in the Sphinx manner (``docstring_style:
sphinx`` in mkdocs.yml): they name other objects with roles such as
``:class:`WireError``` and show sessions as ``>>>`` lines. mkdocstrings renders a
docstring's text as Markdown, where a role is printed as it stands (":class:" and
then the name) and ``>>>`` opens three nested quotes. This extension rewrites the
text of every docstring in the package before it is rendered:

- a role becomes a link to the page and heading of the object it names, under
  the public name a user imports it by (``convtypes.WireError``, not the private
  module it is defined in); a name that has no public home, or that the reference
  does not show, stays as code;
- ``~`` in a role shows only the last part of the name, as Sphinx shows it;
- RST's escaped space after inline code (````ToolCall``\\ s``) becomes nothing;
- a run of ``>>>`` lines becomes a fenced Python block.

The sources stay as they are: ``help()`` and editors read the same docstrings.
"""

from __future__ import annotations

import re
from typing import Any

import griffe


def public_modules(root: griffe.Module) -> list[str]:
    """The modules a user imports from, in the order that decides a name's public home.

    A name that two of them export is shown under the first: the package,
    then each public module of it, a package before its own modules.
    """
    found = [root.path]
    for name, module in sorted(root.modules.items()):
        if not name.startswith("_"):
            found += public_modules(module)
    return found


_ROLE = re.compile(r":(?:class|func|meth|attr|data|mod|exc|obj):`(~?)([\w.]+)(\(\))?`")
_ESCAPED_SPACE = re.compile(r"``\\ ")
_SESSION = re.compile(r"^(?:>>> .*\n?)+", re.MULTILINE)


class SphinxRoles(griffe.Extension):
    """Rewrite Sphinx roles and doctest lines of the package's docstrings as Markdown."""

    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        if pkg.path != "convtypes":
            return
        homes = _public_homes(pkg)
        for obj in _objects(pkg):
            docstring = obj.docstring
            if docstring is not None:
                docstring.value = _rewrite(docstring.value, obj, pkg, homes)


def _objects(obj: griffe.Object) -> list[griffe.Object]:
    """``obj`` and every object defined inside it (aliases are read where they point)."""
    found = [obj]
    for member in obj.members.values():
        if not member.is_alias:
            assert isinstance(member, griffe.Object)
            found += _objects(member)
    return found


def _lookup(root: griffe.Module, path: str) -> griffe.Object | None:
    """The object at ``path`` (``convtypes.x.y``), its alias chain followed; ``None`` if none."""
    if path == root.path:
        return root
    if not path.startswith(root.path + "."):
        return None
    try:
        found = root[path[len(root.path) + 1 :]]
        if isinstance(found, griffe.Alias):
            return found.final_target
        assert isinstance(found, griffe.Object)
        return found
    except (KeyError, griffe.AliasResolutionError, griffe.CyclicAliasError):
        return None


def _public_homes(root: griffe.Module) -> dict[str, str]:
    """Where each exported object is defined, mapped to the public path the reference shows."""
    homes: dict[str, str] = {}
    for module_path in public_modules(root):
        module = _lookup(root, module_path)
        if module is None:
            continue
        homes.setdefault(module.path, module_path)
        for name in module.exports or ():
            target = _lookup(root, f"{module_path}.{name}")
            if target is not None:
                homes.setdefault(target.path, f"{module_path}.{name}")
    return homes


def _public_path(path: str, homes: dict[str, str]) -> str | None:
    """The public path of the object defined at ``path``, or of a member of an exported one."""
    if path in homes:
        return homes[path]
    owner, _, member = path.rpartition(".")
    if owner in homes and member and not member.startswith("_"):
        return f"{homes[owner]}.{member}"
    return None


def _target(name: str, obj: griffe.Object, root: griffe.Module) -> str | None:
    """Where ``name``, written in ``obj``'s docstring, is defined."""
    if name.startswith(root.path + ".") or name == root.path:
        found = _lookup(root, name)
        return found.path if found is not None else None
    head, _, rest = name.partition(".")
    try:
        resolved = obj.resolve(head)
    except griffe.NameResolutionError:
        return None
    found = _lookup(root, f"{resolved}.{rest}" if rest else resolved)
    return found.path if found is not None else None


def _rewrite(text: str, obj: griffe.Object, root: griffe.Module, homes: dict[str, str]) -> str:
    def link(match: re.Match[str]) -> str:
        short, name, call = match.group(1), match.group(2), match.group(3) or ""
        shown = (name.rsplit(".", 1)[-1] if short else name) + call
        defined = _target(name, obj, root)
        public = _public_path(defined, homes) if defined is not None else None
        if public is None:
            return f"`{shown}`"
        return f"[`{shown}`][{public}]"

    def session(match: re.Match[str]) -> str:
        lines = [line[4:] for line in match.group(0).splitlines()]
        return "```python\n" + "\n".join(lines) + "\n```\n"

    text = _ROLE.sub(link, text)
    text = _ESCAPED_SPACE.sub("``", text)
    return _SESSION.sub(session, text)
