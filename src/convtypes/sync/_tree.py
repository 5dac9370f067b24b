"""The tree that ops fold into, the same on every device that holds the same ops.

Each :class:`AddMessages` op is a node, named by its id, under the node its
``after`` names. What the tree shows depends only on the set of ops it was
given, never on their order, and a duplicate changes nothing:

- a node *joins* the tree when its chain of ``after`` reaches a first op
  (one with no ``after``); until then it *waits*, and it joins when the op
  it follows arrives;
- a leaf is a joined node no joined node follows;
- the current head is the leaf whose op has the highest ``clock``, and of
  those the one whose ``device`` sorts last (by code point): the latest
  write, in the order of Lamport clocks, wins;
- two different ops with the same id (a device that reused a clock after
  losing its state) are both kept, and the one whose canonical bytes (the
  op's JSON with each message canonical, in RFC 8785 form: what every
  language writes alike) sort first is the node; the other is listed in
  :attr:`Tree.conflicts`. One op in two spellings (another writer's key
  order or ``1.0`` for ``1``: equal, with one address) is kept the same
  way, the spelling whose JSON (:func:`encode_op`) sorts first being the
  node, so the node's bytes do not depend on which came first; it is no
  conflict;
- an op of a kind this version does not know is kept, listed in
  :attr:`Tree.unknown`, and applies nothing.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any, Final

import msgspec

from .._address import canonical
from .._canonical import canonical_json
from .._conversation import Problem, check_conversation
from .._messages import (
    MESSAGE_TYPES,
    LenientMessage,
    ToolResultMessage,
    UserMessage,
    UserMultimodalMessage,
)
from .._unknown import UnknownMessage
from .._value import is_carrier
from .._value import unknown_fields as kept_fields
from ._ops import MAX_CLOCK, AddMessages, LenientOp, UnknownOp, encode_op, op_id

__all__ = ["BranchError", "Tree", "fold"]

# The problems of check_conversation that Tree.append refuses to create.
REFUSED: Final = frozenset({"unanswered-call", "unknown-call"})
_MESSAGE_KINDS: Final = (*MESSAGE_TYPES, UnknownMessage)
_decode: Final = msgspec.json.decode


class BranchError(ValueError):
    """:meth:`Tree.append` refused to make a node, or a node id names none.

    ``code`` says why: ``unknown-node`` (no node has that id),
    ``waiting-node`` (the op is there but waits for the node it follows),
    ``no-messages``, ``clock-exhausted``, or the code of the problem of
    :func:`convtypes.check_conversation` the new branch would have:
    ``unanswered-call`` or ``unknown-call``. ``problems`` lists those
    problems, with indexes into the new branch's transcript.
    """

    code: str
    problems: tuple[Problem, ...]

    def __init__(self, code: str, text: str, problems: Sequence[Problem] = ()) -> None:
        self.code = code
        self.problems = tuple(problems)
        super().__init__(f"{code}: {text}")

    def __reduce__(self) -> tuple[type[BranchError], tuple[str, str, tuple[Problem, ...]]]:
        return (type(self), (self.code, str(self).split(": ", 1)[1], self.problems))


class Tree:
    """A conversation as a tree of ops: branches, heads, and each branch's transcript.

    Build one with :func:`fold`, or empty with ``Tree()``, and give it ops
    with :meth:`apply` as they arrive, in any order and as often as they
    come. The module's docstring gives the rules that make every device
    holding the same ops see the same tree. A tree is not locked: share one
    between threads only behind a lock of your own.
    """

    __slots__ = ("_clock", "_joined", "_leaves", "_ops", "_rivals", "_unknown", "_waiting")

    def __init__(self) -> None:
        self._ops: dict[str, AddMessages] = {}  # the op that is each node, joined or not
        self._joined: set[str] = set()
        self._waiting: dict[str, list[str]] = {}  # node id -> ids of ops waiting for it
        self._leaves: set[str] = set()
        self._unknown: dict[bytes, UnknownOp] = {}
        self._rivals: dict[str, dict[bytes, AddMessages]] = {}  # id -> every op with that id
        self._clock = 0

    # ------------------------------------------------------------ applying

    def apply(self, op: LenientOp) -> bool:
        """Apply one op; return whether the tree changed (``False`` for a duplicate).

        An op whose ``after`` has not arrived waits (see :attr:`waiting`).
        ``TypeError`` for what is not an op.
        """
        if isinstance(op, AddMessages):
            node = op.id
            existing = self._ops.get(node)
            if existing is None:
                self._ops[node] = op
                if op.clock > self._clock:
                    self._clock = op.clock
                # _place, written out: this is the whole cost of a fold.
                after = op.after
                if after is None or after in self._joined:
                    self._joined.add(node)
                    self._leaves.add(node)
                    if after is not None:
                        self._leaves.discard(after)
                    if node in self._waiting:
                        self._release(node)
                else:
                    self._waiting.setdefault(after, []).append(node)
                return True
            if existing is op:
                return False
            return self._rival(existing, op)
        if isinstance(op, UnknownOp):
            if op.raw in self._unknown:
                return False
            self._unknown[op.raw] = op
            return True
        raise TypeError(f"Tree.apply takes an op, not {type(op).__name__}")

    def _place(self, op: AddMessages) -> None:
        after = op.after
        if after is None or after in self._joined:
            node = op.id
            self._joined.add(node)
            self._leaves.add(node)
            if after is not None:
                self._leaves.discard(after)
            if node in self._waiting:
                self._release(node)
        else:
            self._waiting.setdefault(after, []).append(op.id)

    def _release(self, node: str) -> None:
        """Join the ops that wait for ``node``, and those that wait for them (no recursion)."""
        stack = self._waiting.pop(node)
        joined, leaves, waiting = self._joined, self._leaves, self._waiting
        while stack:
            child = stack.pop()
            joined.add(child)
            leaves.add(child)
            leaves.discard(self._ops[child].after)
            stack.extend(waiting.pop(child, ()))

    def _rival(self, existing: AddMessages, op: AddMessages) -> bool:
        """A second op with an id already held: keep both if their bytes differ, and pick one.

        Bytes, not ``==``: an equal op in another writer's spelling (keys
        reordered, ``1.0`` for ``1``) is kept too, so that the node's bytes
        are the same whichever spelling came first.
        """
        rivals = self._rivals.get(op.id)
        key = encode_op(op)
        if rivals is None:
            spelled = encode_op(existing)
            if key == spelled:
                return False  # a plain duplicate: the common case, and nothing kept
            rivals = self._rivals[op.id] = {spelled: existing}
        if key in rivals:
            return False
        rivals[key] = op
        winner = min(rivals.items(), key=_rank_rival)[1]
        if winner is not existing:
            self._ops[op.id] = winner
            if winner.after == existing.after:
                return True  # the same place in the tree: only the bytes change
            self._joined.clear()
            self._leaves.clear()
            self._waiting.clear()
            for held in self._ops.values():
                self._place(held)
        return True

    # ------------------------------------------------------------ reading

    def heads(self) -> list[str]:
        """The ids of the leaves, the current head first, then by the same rule."""
        return sorted(self._leaves, key=self._rank, reverse=True)

    @property
    def head(self) -> str | None:
        """The current head: the leaf written last by Lamport clock; ``None`` when empty."""
        if not self._leaves:
            return None
        return max(self._leaves, key=self._rank)

    def _rank(self, node: str) -> tuple[int, str]:
        op = self._ops[node]
        return op.clock, op.device

    def transcript(self, head: str | None = None) -> list[LenientMessage]:
        """The messages from the first op to ``head`` (by default the current head).

        ``head`` may be any joined node, not only a leaf. An empty tree has
        an empty transcript. :class:`BranchError` when ``head`` names no
        joined node.
        """
        if head is None:
            head = self.head
            if head is None:
                return []
        self._check_node(head)
        chain = []
        node: str | None = head
        while node is not None:
            op = self._ops[node]
            chain.append(op.messages)
            node = op.after
        messages: list[LenientMessage] = []
        for part in reversed(chain):
            messages.extend(part)
        return messages

    def _check_node(self, node: str) -> None:
        if node in self._joined:
            return
        if type(node) is not str:
            raise TypeError(f"a node id is a str, not {type(node).__name__}")
        if node in self._ops:
            raise BranchError(
                "waiting-node", f"op {node!r} waits for {self._ops[node].after!r}, not yet here"
            )
        raise BranchError("unknown-node", f"no node has the id {node!r}")

    def __repr__(self) -> str:
        return f"Tree({len(self._joined)} nodes, heads={self.heads()!r})"

    def __contains__(self, node: object) -> bool:
        """Whether ``node`` is the id of a joined node."""
        return node in self._joined

    def __len__(self) -> int:
        """How many nodes have joined the tree."""
        return len(self._joined)

    def node(self, node: str) -> AddMessages:
        """The op that is the joined node ``node``; :class:`BranchError` if there is none."""
        self._check_node(node)
        return self._ops[node]

    @property
    def waiting(self) -> list[AddMessages]:
        """The ops that wait for the node they follow, by clock and device."""
        held = [op for node, op in self._ops.items() if node not in self._joined]
        return sorted(held, key=lambda op: (op.clock, op.device))

    @property
    def unknown(self) -> list[UnknownOp]:
        """The ops of kinds this version does not know: kept, not applied; by their JSON."""
        return [self._unknown[raw] for raw in sorted(self._unknown)]

    @property
    def conflicts(self) -> list[AddMessages]:
        """Ops that lost to another op with the same id (see the module's rules)."""
        lost: list[AddMessages] = []
        for node, rivals in sorted(self._rivals.items()):
            node_op = self._ops[node]
            # Another spelling of the node's own op is no conflict.
            lost.extend(rivals[raw] for raw in sorted(rivals) if rivals[raw] != node_op)
        return lost

    def ops(self) -> list[LenientOp]:
        """Every op the tree holds, to store or send again: nothing it was given is lost.

        Duplicates once. Known ops by clock and device (the node of an id
        before its rivals), then unknown ones by their JSON; the same list
        for the same set of ops, in whatever order they came.
        """
        nodes = sorted(self._ops.values(), key=lambda op: (op.clock, op.device))
        held: list[LenientOp] = []
        for op in nodes:
            held.append(op)
            rivals = self._rivals.get(op.id)
            if rivals:
                held.extend(rivals[raw] for raw in sorted(rivals) if rivals[raw] is not op)
        held.extend(self.unknown)
        return held

    # ------------------------------------------------------------ writing

    def append(
        self, messages: Iterable[LenientMessage], *, after: str | None, device: str
    ) -> AddMessages:
        """Make the op that adds ``messages`` after node ``after``, apply it, return it.

        The caller stores the op (:func:`append_ops`) and sends it to the
        other devices. Its clock is one more than the highest this tree has
        seen, so its id is new and it sorts after everything the device
        knew of. ``after=None`` starts a conversation (or a new root).

        It refuses, with :class:`BranchError`, to make a branch that
        :func:`convtypes.check_conversation` would flag with a *new*
        ``unanswered-call`` or ``unknown-call``: a user turn while a tool
        call of the branch is still open, or a tool result that answers no
        call of the branch. Calls left open at the end are the normal state
        right after a reply (the tools have not run yet), so an assistant
        turn whose calls are unanswered is accepted; its results follow, in
        this op or the next, and a user turn may come once they have, in
        the same op as the results or later. Problems the branch had
        before (from a writer that did not check) do not block it.
        """
        if isinstance(messages, (str, bytes)) or not isinstance(messages, Iterable):
            raise TypeError(
                f"Tree.append takes an iterable of messages, got {type(messages).__name__}"
            )
        items = list(messages)
        for index, item in enumerate(items):
            if not isinstance(item, _MESSAGE_KINDS):
                kind = type(item).__name__
                raise TypeError(f"Tree.append adds messages; item {index} is a {kind}")
        if not items:
            raise BranchError("no-messages", "an op adds at least one message")
        base = [] if after is None else self.transcript(after)
        new = _new_problems(base, items)
        if new:
            first = new[0]
            raise BranchError(first.code, f"message {first.index}: {first.text}", new)
        clock = self._clock + 1
        if clock > MAX_CLOCK:
            raise BranchError("clock-exhausted", f"no clock is left after {self._clock}")
        op = AddMessages(
            id=op_id(clock, device), device=device, clock=clock, after=after, messages=items
        )
        self.apply(op)
        return op


# Only these messages can bring a refused problem: a user turn (over an open
# call) and a tool result (answering nothing).
_CHECKED: Final = (UserMessage, UserMultimodalMessage, ToolResultMessage)


def _new_problems(base: list[LenientMessage], added: list[LenientMessage]) -> list[Problem]:
    """The refused problems that ``base + added`` has and ``base`` had not.

    Usually one pass over the branch, and none when the added messages hold
    no user turn and no tool result (a reply).
    """
    if not any(isinstance(message, _CHECKED) for message in added):
        return []
    found = [p for p in check_conversation([*base, *added]) if p.code in REFUSED]
    if not found:
        return []
    before: Counter[Problem] = Counter()
    if base:
        before.update(p for p in check_conversation(base) if p.code in REFUSED)
    new = []
    for problem in found:
        if before[problem]:
            before[problem] -= 1
        else:
            new.append(problem)
    return new


def canonical_op(op: AddMessages) -> bytes:
    """The op's canonical bytes: its JSON, each message canonical, written as RFC 8785 writes.

    What every language makes alike (docs/identity.md), where ``encode_op``
    bytes hang on how this library lays out a number.
    """
    wire: dict[str, Any] = {"op": "add", "id": op.id, "device": op.device, "clock": op.clock}
    if op.after is not None:
        wire["after"] = op.after
    if is_carrier(type(op)):
        for key, extra in kept_fields(op).items():
            wire.setdefault(key, extra)
    wire["messages"] = [_decode(canonical(message)) for message in op.messages]
    return canonical_json(wire)


def _rank_rival(item: tuple[bytes, AddMessages]) -> tuple[bytes, bytes]:
    """Rivals by canonical bytes; one op's spellings, equal there, by their JSON."""
    return canonical_op(item[1]), item[0]


def fold(ops: Iterable[LenientOp]) -> Tree:
    """The tree of ``ops``, in any order, duplicates and all: ``Tree.apply`` of each."""
    tree = Tree()
    for op in ops:
        tree.apply(op)
    return tree
