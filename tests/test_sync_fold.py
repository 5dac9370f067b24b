"""Every order of the same ops folds to the same tree.

Devices share one conversation through ops. Hypothesis draws what they do:
turns (with tool calls answered in a later op), regenerated replies, forks
from an earlier node, syncs between the online devices, and a device that
stays offline until the end. The ops they wrote, each sent one to three
times, with an op of a kind this version does not know and a newer writer's
op, are then folded in 50 random orders, and every order must agree.
"""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

import convtypes as ct
from convtypes.sync import AddMessages, LenientOp, Tree, UnknownOp, decode_op, encode_op, fold

DEVICES = ("phone", "laptop", "desk", "offline")
ACTIONS = ("turn", "turn", "reply", "regenerate", "fork", "sync")
ORDERS = 50


def _answers(tree: Tree, node: str | None) -> list[ct.Message]:
    """Results for the calls still open at ``node``, so a user turn may follow."""
    if node is None:
        return []
    open_ = ct.open_calls(tree.transcript(node))
    return [ct.ToolResultMessage(tool_use_id=call.id or "", content="done") for call in open_]


def _act(tree: Tree, device: str, action: str, pick: int, step: int) -> AddMessages:
    head = tree.head
    if action == "turn" or head is None:
        messages = [*_answers(tree, head), ct.UserMessage(content=f"{device} asks {step}")]
        return tree.append(messages, after=head, device=device)
    if action == "reply":
        calls: tuple[ct.ToolCall, ...] = ()
        if pick % 2:
            calls = (ct.ToolCall(id=f"{device}-{step}", name="look", arguments={"n": step}),)
        items = ct.ProviderOutputItemsMessage(
            protocol="openai-responses", items=[{"type": "reasoning", "id": f"rs_{device}_{step}"}]
        )
        reply = ct.AssistantMessage(content=f"{device} answers {step}", tool_calls=calls)
        return tree.append([items, reply], after=head, device=device)
    if action == "regenerate":
        # A sibling of the head: the same place, another reply.
        after = tree.node(head).after
        again = ct.AssistantMessage(content=f"{device} tries again {step}")
        return tree.append([again], after=after, device=device)
    # A fork from an earlier node.
    nodes = sorted(op.id for op in tree.ops() if isinstance(op, AddMessages) and op.id in tree)
    after = nodes[pick % len(nodes)]
    messages = [*_answers(tree, after), ct.UserMessage(content=f"{device} forks {step}")]
    return tree.append(messages, after=after, device=device)


NEWER_KIND = UnknownOp(op="pin", raw=b'{"op":"pin","node":"1@phone","by":"tablet"}')


@st.composite
def histories(draw: st.DrawFn) -> tuple[list[LenientOp], list[Tree]]:
    """The ops devices wrote, as sent (duplicates and all), and each device's tree."""
    trees = {device: Tree() for device in DEVICES}
    sent: list[AddMessages] = []
    steps = draw(
        st.lists(
            st.tuples(st.sampled_from(DEVICES), st.sampled_from(ACTIONS), st.integers(0, 50)),
            min_size=1,
            max_size=25,
        )
    )
    for step, (device, action, pick) in enumerate(steps):
        tree = trees[device]
        if action == "sync":
            if device != "offline":
                for other in DEVICES[:-1]:
                    for op in sent:
                        trees[other].apply(op)
            continue
        sent.append(_act(tree, device, action, pick, step))
    ops: list[LenientOp] = []
    for op in sent:
        ops.extend([op] * draw(st.integers(1, 3)))
    if sent:
        # A newer writer's op: a field and a role this version does not know.
        newer = decode_op(
            b'{"op":"add","id":"999@tablet","device":"tablet","clock":999,"after":"'
            + sent[0].id.encode()
            + b'","messages":[{"role":"developer","content":"new"}],"sig":"x"}'
        )
        ops += [newer, newer]
    ops += [NEWER_KIND, NEWER_KIND]
    return ops, list(trees.values())


def _view(tree: Tree) -> tuple[object, ...]:
    heads = tree.heads()
    return (
        heads,
        tree.head,
        [ct.encode(tree.transcript(head)) for head in heads],
        [encode_op(op) for op in tree.ops()],
        tree.waiting,
        tree.unknown,
    )


@given(histories(), st.randoms(use_true_random=False))
def test_every_order_folds_to_the_same_tree(
    history: tuple[list[LenientOp], list[Tree]], rng: random.Random
) -> None:
    ops, trees = history
    expected = _view(fold(ops))
    first = fold(ops)
    assert first.waiting == [] and first.unknown == [NEWER_KIND]
    assert first.head is None or first.transcript() == first.transcript(first.head)
    for _ in range(ORDERS):
        shuffled = ops[:]
        rng.shuffle(shuffled)
        assert _view(fold(shuffled)) == expected
    # A device that has every op sees the same tree as the fold.
    for tree in trees:
        for op in ops:
            tree.apply(op)
        assert _view(tree) == expected


def test_the_scenario_covers_what_it_says() -> None:
    """One fixed history, to show each kind of event occurs: a check on the generator."""
    trees = {device: Tree() for device in DEVICES}
    sent: list[AddMessages] = []
    script = [
        ("phone", "turn", 0), ("phone", "reply", 1), ("phone", "sync", 0),
        ("laptop", "turn", 0), ("phone", "turn", 0), ("laptop", "regenerate", 0),
        ("offline", "turn", 0), ("offline", "reply", 0), ("desk", "fork", 0),
        ("desk", "sync", 0),
    ]  # fmt: skip
    for step, (device, action, pick) in enumerate(script):
        if action == "sync":
            for other in DEVICES[:-1]:
                for op in sent:
                    trees[other].apply(op)
            continue
        sent.append(_act(trees[device], device, action, pick, step))
    tree = fold(sent)
    # Two roots (the phone's and the offline device's), the laptop's
    # concurrent turn, its regenerate, and the desk's fork.
    assert len([op for op in sent if op.after is None]) == 2
    assert len(tree.heads()) >= 4
    assert tree.waiting == []
