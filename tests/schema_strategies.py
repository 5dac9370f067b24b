"""Generated JSON Schemas for the property tests of every schema translation.

The dialects that translate a tool's schema (Gemini into its ``Schema``,
Ollama into the fields its tool type keeps) share one promise: what the
translation lets a model send is a value the tool's own schema accepts.
The schemas here are small (property names ``a``-``c``, integers -3..3) so
that values drawn from a translation often land on the places where it
could go wrong. Beside the general grammar there is a focused one
(:func:`joined`): objects joined by ``allOf``, ``anyOf``, ``oneOf`` or a
``$ref`` beside other keywords, each with ``additionalProperties`` as a
boolean or a schema. Those are where translations widened a schema before,
and they are drawn on their own, so that even a replayed, derandomized run
reaches them.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

Strategy = st.SearchStrategy[dict[str, Any]]

NAMES = st.sampled_from(["a", "b", "c"])
SMALL = st.integers(-3, 3)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    SMALL,
    st.sampled_from([0.5, -1.5, 2.0]),
    st.sampled_from(["", "a", "ab"]),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(NAMES, inner, max_size=3),
    max_leaves=6,
)


def wrap(prop: dict[str, Any], **root: Any) -> dict[str, Any]:
    """An arguments object with one required property ``x``."""
    return {"type": "object", "properties": {"x": prop}, "required": ["x"], **root}


def annotated(schema: Strategy) -> Strategy:
    """``schema`` with some of the keywords that only annotate."""
    notes = st.fixed_dictionaries(
        {},
        optional={
            "title": st.just("T"),
            "description": st.just("d"),
            "examples": st.just([1]),
            "$comment": st.just("c"),
        },
    )
    return st.tuples(schema, notes).map(lambda pair: {**pair[0], **pair[1]})


def leaves() -> Strategy:
    """Schemas of one value each: typed, bounded, enumerated, constant."""
    bounds = {"minimum": SMALL, "maximum": SMALL}
    integer = st.fixed_dictionaries(
        {"type": st.just("integer")},
        optional={**bounds, "exclusiveMinimum": SMALL, "exclusiveMaximum": SMALL},
    )
    string = st.fixed_dictionaries(
        {"type": st.just("string")},
        optional={"minLength": st.integers(0, 2), "maxLength": st.integers(0, 3)},
    )
    return annotated(
        st.one_of(
            integer,
            string,
            st.fixed_dictionaries({"type": st.just("number")}, optional=bounds),
            st.just({"type": "boolean"}),
            st.lists(SCALARS, min_size=1, max_size=4).map(lambda values: {"enum": values}),
            SCALARS.map(lambda value: {"const": value}),
            st.lists(
                st.sampled_from(["string", "integer", "number", "null", "boolean"]),
                min_size=1,
                max_size=3,
                unique=True,
            ).map(lambda names: {"type": names}),
            st.tuples(string, st.lists(st.sampled_from(["", "a", "ab", 1]), min_size=1)).map(
                lambda pair: {**pair[0], "enum": pair[1]}
            ),
        )
    )


def objects(inner: Strategy, exact: bool) -> Strategy:
    """Objects of ``inner`` properties, some required, with or without other names.

    ``additionalProperties`` is a boolean or a schema; where the translation
    must be exact it is ``false`` (Gemini never sends an undeclared property).
    """
    extra = st.just(False) if exact else st.booleans() | inner
    return st.dictionaries(NAMES, inner, min_size=1, max_size=3).flatmap(
        lambda properties: st.fixed_dictionaries(
            {
                "type": st.just("object"),
                "properties": st.just(properties),
                "required": st.lists(st.sampled_from(sorted(properties)), unique=True),
            },
            optional={"additionalProperties": extra},
        ).map(lambda schema: {**schema, "additionalProperties": False} if exact else schema)
    )


def joined(inner: Strategy, exact: bool) -> Strategy:
    """Objects joined: ``allOf``, ``anyOf``, ``oneOf``, and a ``$ref`` beside keywords.

    A ``D`` key stands for a reference: :func:`rooted` moves its schema into
    ``$defs`` and leaves a ``$ref`` beside the keywords around it.
    """
    one = objects(inner, exact)
    several = st.lists(one, min_size=2, max_size=3)
    return st.one_of(
        several.map(lambda schemas: {"allOf": schemas}),
        several.map(lambda schemas: {"anyOf": schemas}),
        several.map(lambda schemas: {"oneOf": schemas}),
        st.tuples(one, one).map(lambda pair: {**pair[1], "D": pair[0]}),
        st.tuples(one, several).map(lambda pair: {**pair[0], "allOf": pair[1]}),
    )


def schemas(exact: bool) -> Strategy:
    """Argument schemas of the whole grammar, property ``x`` holding the generated part."""

    def grow(inner: Strategy) -> Strategy:
        arrays = st.fixed_dictionaries(
            {"type": st.just("array"), "items": inner},
            optional={"minItems": st.integers(0, 1), "maxItems": st.integers(1, 3)},
        )
        members = st.lists(inner, min_size=1, max_size=3)
        return annotated(
            st.one_of(
                objects(inner, exact),
                arrays,
                members.map(lambda schemas: {"anyOf": schemas}),
                inner.map(lambda schema: {"anyOf": [schema, {"type": "null"}]}),
                members.map(lambda schemas: {"oneOf": schemas}),
                members.map(lambda schemas: {"allOf": schemas}),
                inner.map(lambda schema: {"$ref": "#/$defs/D", "D": schema}),
                joined(inner, exact),
            )
        )

    return st.recursive(leaves(), grow, max_leaves=6).map(rooted)


PLAIN = st.one_of(
    st.sampled_from([{"type": "integer"}, {"type": "string"}, {"type": "boolean"}]),
    st.fixed_dictionaries({"type": st.just("integer")}, optional={"minimum": SMALL}),
    st.lists(st.sampled_from(["a", "b", 1, None]), min_size=1, max_size=3).map(
        lambda values: {"enum": values}
    ),
)


def joined_schemas(exact: bool) -> Strategy:
    """Argument schemas whose property ``x`` is a join of objects (see :func:`joined`).

    Kept small, so that many joins are drawn in a few seconds: the
    properties are plain values, or one level of objects of them.
    """
    inner = PLAIN | objects(PLAIN, exact)
    return joined(inner, exact).map(rooted)


def rooted(prop: dict[str, Any]) -> dict[str, Any]:
    """``prop`` as property ``x`` of the arguments, each ``D`` moved into ``$defs``."""
    defs: dict[str, Any] = {}

    def lift(value: Any) -> Any:
        if isinstance(value, dict):
            value = {key: lift(item) for key, item in value.items()}
            if "D" in value:
                name = f"D{len(defs)}"
                defs[name] = value.pop("D")
                value["$ref"] = f"#/$defs/{name}"
            return value
        if isinstance(value, list):
            return [lift(item) for item in value]
        return value

    lifted = lift(prop)
    return {**wrap(lifted), "$defs": defs}
