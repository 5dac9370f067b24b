"""Sync: conversation ops that fold to the same conversation on every device.

Devices that share a conversation share its *ops*, not its transcript. Each
op adds messages after a node of the conversation's tree, so appends that
cross, a regenerated reply, a fork from an earlier message, and a device
that was offline all merge without a conflict to resolve:

- :class:`AddMessages` (the one kind of :data:`Op` this version knows) and
  :class:`UnknownOp`, what a newer writer's unknown op kind is read as;
  :func:`encode_op` and :func:`decode_op` write and read one;
- :func:`fold` and :class:`Tree`: every device that holds the same ops sees
  the same tree, heads and transcripts, whatever order they came in;
  :meth:`Tree.append` makes the next op;
- :func:`append_ops` and :func:`read_ops`: an op log on disk, appended whole
  and read from a byte cursor.

The format is specified for other languages in the docs ("Sync: the op
format") and in ``schema/ops.schema.json``. ``import convtypes`` does not
import this package.
"""

from ._files import append_ops, read_ops
from ._ops import (
    MAX_CLOCK,
    AddMessages,
    LenientOp,
    Op,
    UnknownOp,
    decode_op,
    encode_op,
    op_id,
)
from ._tree import BranchError, Tree, fold

__all__ = [
    "MAX_CLOCK",
    "AddMessages",
    "BranchError",
    "LenientOp",
    "Op",
    "Tree",
    "UnknownOp",
    "append_ops",
    "decode_op",
    "encode_op",
    "fold",
    "op_id",
    "read_ops",
]
