"""A griffe extension that shows the API reference as a user calls it, in public names only.

mkdocstrings reads the package's source, where some of what a user meets is
private: classes share private bases (``_Message``), signatures use private
aliases and type variables (``Data``, ``Encodable``, ``_Value``), and
``convtypes.replace`` takes its keywords through private TypedDicts
(``**changes: Unpack[_ToolResultChanges]``). And msgspec Structs have no
``__init__`` in the source, so a class would show its fields but not the
call that builds it. Before the reference is rendered, this extension:

- gives each public class without an ``__init__`` the one it has at run time
  (a Struct's, read from the class, with the field types as written for
  type checkers; an enum's ``(value)``), so that ``merge_init_into_class``
  shows the constructor;
- replaces a private base by its own bases (``SystemMessage(_Message)`` is
  shown as a ``Struct``);
- spells out, wherever an annotation or a value names a private alias,
  what it stands for (its value);
- shows a type variable as one: by its name without the leading
  underscores (``_Value`` as ``Value``), with a line under the docstring of
  each function that uses it saying what it is bound to;
- expands ``**changes: Unpack[SomeTypedDict]`` into the keyword arguments it
  means.

The sources stay as they are. ``tests/test_api_reference.py`` checks that the
reference, as this leaves it, has a constructor for every public class, the
same parameters the class takes at run time, and no private name.
"""

from __future__ import annotations

import enum
import importlib
import inspect
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import griffe

sys.path.insert(0, str(Path(__file__).parent))
from sphinx_roles import _lookup, _objects, _public_homes

_UNPACK = ("Unpack", "typing.Unpack", "typing_extensions.Unpack")


class PublicAPI(griffe.Extension):
    """Constructors for every public class, and public names only, in the API reference."""

    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        if pkg.path != "convtypes":
            return
        public = Public(pkg)
        # Every change is worked out on the package as read, then made: a
        # private alias may use another, which must still be there to read.
        changes = []
        for obj in _objects(pkg):
            if isinstance(obj, griffe.Class):
                changes.append(public.fix_class(obj))
            elif isinstance(obj, griffe.Function):
                changes.append(public.fix_function(obj))
            elif isinstance(obj, griffe.Attribute):
                changes.append(public.fix_attribute(obj))
        for change in changes:
            change()


class Public:
    """What is public in the package loaded at ``root``, and the rewriting to it."""

    def __init__(self, root: griffe.Module) -> None:
        self.root = root
        self.homes = _public_homes(root)
        self.public_paths = set(self.homes) | {obj.path for obj in _modules(root)}
        # The type variables met while spelling one function's signatures:
        # shown name -> what it is bound to.
        self.type_variables: dict[str, str] = {}

    # --- which names are private ----------------------------------------------------

    def is_private(self, path: str) -> bool:
        """Whether ``path`` names a convtypes object the reference does not show."""
        if not (path == self.root.path or path.startswith(self.root.path + ".")):
            return False
        if path in self.public_paths:
            return False
        owner, _, member = path.rpartition(".")
        return not (owner in self.homes and not member.startswith("_"))

    def private_names(self, expr: str | griffe.Expr | None) -> list[str]:
        """The private names ``expr`` uses, by their canonical paths."""
        if not isinstance(expr, griffe.Expr):
            return []
        return [
            name.canonical_path
            for name in expr.iterate(flat=True)
            if isinstance(name, griffe.ExprName) and self.is_private(name.canonical_path)
        ]

    # --- rewriting ------------------------------------------------------------------

    def spelled(self, expr: str | griffe.Expr | None, depth: int = 0) -> str | griffe.Expr | None:
        """``expr`` with each private alias or type variable replaced by what it stands for."""
        if not self.private_names(expr) or depth > 8:
            return expr
        assert isinstance(expr, griffe.Expr)
        parts: list[str] = []
        for piece in expr.iterate(flat=True):
            if isinstance(piece, griffe.ExprName) and self.is_private(piece.canonical_path):
                parts.append(str(self.stands_for(piece, depth)))
            elif isinstance(piece, griffe.ExprName):
                parts.append(piece.name)
            else:
                parts.append(str(piece))
        return "".join(parts)

    def stands_for(self, name: griffe.ExprName, depth: int) -> str | griffe.Expr:
        """What the private ``name`` means, in public names."""
        target = _lookup(self.root, name.canonical_path)
        if isinstance(target, griffe.Attribute) and isinstance(target.value, griffe.Expr):
            value = target.value
            if isinstance(value, griffe.ExprCall) and str(value.function) == "TypeVar":
                bound = next(
                    (
                        arg.value
                        for arg in value.arguments
                        if isinstance(arg, griffe.ExprKeyword) and arg.name == "bound"
                    ),
                    None,
                )
                shown = name.name.lstrip("_")
                spelled = self.spelled(bound, depth + 1) if bound is not None else None
                self.type_variables[shown] = str(spelled) if spelled is not None else ""
                return shown
            return self.spelled(value, depth + 1) or name.name
        if isinstance(target, griffe.Class):
            # A private class stands for what it is made of: its public bases.
            bases = [str(self.spelled(base, depth + 1)) for base in self.public_bases(target)]
            return " | ".join(bases) or "object"
        return name.name

    def public_bases(self, cls: griffe.Class) -> list[str | griffe.Expr]:
        """``cls``'s bases, each private one replaced by its own bases."""
        found: list[str | griffe.Expr] = []
        for base in cls.bases:
            path = base.canonical_path if isinstance(base, griffe.ExprName) else str(base)
            target = _lookup(self.root, path) if self.is_private(path) else None
            if isinstance(target, griffe.Class):
                found += [b for b in self.public_bases(target) if str(b) not in map(str, found)]
            elif not self.is_private(path):
                found.append(base)
        return found

    def fix_class(self, cls: griffe.Class) -> Callable[[], None]:
        bases = self.public_bases(cls)
        init = None
        if "__init__" not in cls.members and self.homes.get(cls.path):
            init = self.runtime_init(cls)

        def change() -> None:
            cls.bases = bases
            if init is not None:
                cls.set_member("__init__", init)

        return change

    def fix_function(self, function: griffe.Function) -> Callable[[], None]:
        signatures = []
        self.type_variables = {}
        for each in [function, *(getattr(function, "overloads", None) or [])]:
            parameters = self.unpacked(each.parameters)
            for parameter in parameters:
                parameter.annotation = self.spelled(parameter.annotation)
                parameter.default = self.spelled(parameter.default)
            signatures.append((each, parameters, self.spelled(each.returns)))
        note = _type_variable_note(self.type_variables)

        def change() -> None:
            for each, parameters, returns in signatures:
                each.parameters = parameters
                each.returns = returns
            if note and function.docstring is not None:
                function.docstring.value += note

        return change

    def fix_attribute(self, attribute: griffe.Attribute) -> Callable[[], None]:
        annotation = self.spelled(attribute.annotation)
        value = self.spelled(attribute.value)
        made = _made_by_factory(attribute)
        if made is not None:
            value = made
        elif (
            isinstance(attribute.value, griffe.Expr)
            and self.private_names(attribute.value)
            and "(" in str(value)
        ):
            # Computed by something private (a constant found at import time,
            # say): shown as what it is at run time.
            value = repr(_runtime(attribute.path))

        def change() -> None:
            attribute.annotation = annotation
            attribute.value = value

        return change

    def unpacked(self, parameters: griffe.Parameters) -> griffe.Parameters:
        """``**changes: Unpack[SomeTypedDict]`` as the keyword arguments it means."""
        found: list[griffe.Parameter] = []
        for parameter in parameters:
            fields = self.typed_dict_fields(parameter)
            if fields is None:
                found.append(parameter)
                continue
            for name, annotation in fields:
                found.append(
                    griffe.Parameter(
                        name,
                        annotation=annotation,
                        kind=griffe.ParameterKind.keyword_only,
                        default="...",
                    )
                )
        return griffe.Parameters(
            *(
                griffe.Parameter(p.name, annotation=p.annotation, kind=p.kind, default=p.default)
                for p in found
            )
        )

    def typed_dict_fields(
        self, parameter: griffe.Parameter
    ) -> list[tuple[str, str | griffe.Expr | None]] | None:
        annotation = parameter.annotation
        if parameter.kind is not griffe.ParameterKind.var_keyword:
            return None
        if not isinstance(annotation, griffe.ExprSubscript):
            return None
        if not isinstance(annotation.left, griffe.ExprName):
            return None
        if annotation.left.canonical_path not in _UNPACK and annotation.left.name != "Unpack":
            return None
        inner = annotation.slice
        if not isinstance(inner, griffe.ExprName):
            return None
        typed_dict = _lookup(self.root, inner.canonical_path)
        if not isinstance(typed_dict, griffe.Class):
            return None
        return [
            (name, member.annotation)
            for name, member in typed_dict.members.items()
            if isinstance(member, griffe.Attribute)
        ]

    # --- constructors ---------------------------------------------------------------

    def runtime_init(self, cls: griffe.Class) -> griffe.Function | None:
        """The ``__init__`` a Struct or enum class takes at run time, as griffe shows one."""
        runtime = _runtime(cls.path)
        if runtime is None:
            return None
        if isinstance(runtime, enum.EnumMeta):
            values = ", ".join(repr(member.value) for member in runtime)
            parameters = [
                griffe.Parameter(
                    "value",
                    annotation=f"Literal[{values}]",
                    kind=griffe.ParameterKind.positional_or_keyword,
                )
            ]
        elif hasattr(runtime, "__struct_fields__"):
            parameters = self.struct_parameters(cls, runtime)
        elif any(str(base) in ("Protocol", "typing.Protocol") for base in cls.bases):
            return None  # a Protocol is never called
        else:
            parameters = _inspected(runtime)
            if parameters is None:
                return None
        init = griffe.Function(
            "__init__",
            parameters=griffe.Parameters(
                griffe.Parameter("self", kind=griffe.ParameterKind.positional_or_keyword),
                *parameters,
            ),
            returns="None",
            parent=cls,
            lineno=cls.lineno,
            endlineno=cls.lineno,
        )
        return init

    def struct_parameters(self, cls: griffe.Class, runtime: type[Any]) -> list[griffe.Parameter]:
        import msgspec

        defaults = {field.name: field for field in msgspec.structs.fields(runtime)}
        found = []
        for parameter in inspect.signature(runtime).parameters.values():
            field = defaults[parameter.name]
            member = _attribute(cls, parameter.name)
            annotation = self.spelled(member.annotation) if member is not None else None
            default: str | griffe.Expr | None = None
            if not field.required:
                if field.default_factory is not msgspec.NODEFAULT:
                    default = repr(field.default_factory())
                elif member is not None and member.value is not None:
                    default = self.spelled(member.value)
                else:
                    default = repr(field.default)
            found.append(
                griffe.Parameter(
                    parameter.name,
                    annotation=annotation,
                    kind=griffe.ParameterKind(parameter.kind.description),
                    default=default,
                )
            )
        return found


def _type_variable_note(variables: dict[str, str]) -> str:
    """The line under a docstring that says what each type variable of a signature is."""
    if not variables:
        return ""
    said = [
        f"``{name}`` is bound to ``{bound}``" if bound else f"``{name}`` is any type"
        for name, bound in variables.items()
    ]
    return "\n\nType variables: " + "; ".join(said) + "."


def _inspected(runtime: Any) -> list[griffe.Parameter] | None:
    """The parameters ``inspect`` finds for calling ``runtime`` (a builtin's base, say)."""
    try:
        signature = inspect.signature(runtime)
    except (TypeError, ValueError):
        return None
    return [
        griffe.Parameter(
            parameter.name,
            annotation=None
            if parameter.annotation is inspect.Parameter.empty
            else inspect.formatannotation(parameter.annotation),
            kind=griffe.ParameterKind(parameter.kind.description),
            default=None
            if parameter.default is inspect.Parameter.empty
            else repr(parameter.default),
        )
        for parameter in signature.parameters.values()
    ]


def _made_by_factory(attribute: griffe.Attribute) -> str | None:
    """A Struct field's default made by ``field(default_factory=...)``, as its value."""
    value = attribute.value
    if not (isinstance(value, griffe.ExprCall) and str(value.function) == "field"):
        return None
    owner = attribute.parent
    runtime = _runtime(owner.path) if owner is not None else None
    if runtime is None or not hasattr(runtime, "__struct_fields__"):
        return None
    import msgspec

    for field in msgspec.structs.fields(runtime):
        if field.name == attribute.name and field.default_factory is not msgspec.NODEFAULT:
            return repr(field.default_factory())
    return None


def _modules(root: griffe.Module) -> list[griffe.Module]:
    found = [root]
    for member in root.modules.values():
        if not member.name.startswith("_"):
            found += _modules(member)
    return found


def _attribute(cls: griffe.Class, name: str) -> griffe.Attribute | None:
    """The attribute ``name`` of ``cls`` or of its nearest base that declares it."""
    for klass in [cls, *cls.mro()]:
        member = klass.members.get(name)
        if isinstance(member, griffe.Attribute):
            return member
    return None


def _runtime(path: str) -> Any:
    """The object at ``path`` (``convtypes._messages.ToolCall``), imported; ``None`` if none."""
    module_path, _, name = path.rpartition(".")
    try:
        return getattr(importlib.import_module(module_path), name)
    except (ImportError, AttributeError):
        return None
