"""A thread with a stack large enough for any skip msgspec can make.

Where the interpreter lets msgspec skip thousands of levels of nesting (Python
3.13, or an older one whose recursion limit a program raised), a large
document could exhaust a small thread stack before msgspec gives up. Measuring
the nesting of a large document first costs more than decoding it; handing the
decode to a thread whose stack is known to be large costs a few tens of
microseconds, whatever the size. So large documents go there, and only there.

The thread is started on first use, kept for the life of the process (it
holds no lock while idle), and started again in a child after ``fork``.
"""

from __future__ import annotations

import _thread
import os
from collections.abc import Callable
from typing import Any, Final

__all__ = ["NoBigStack", "call_on_big_stack"]

STACK_BYTES: Final = 64 * 1024 * 1024
"""The worker's stack: far beyond the deepest skip msgspec may make (about
10,000 levels at some tens of bytes each on 3.13). It is address space
only; the system commits the pages a decode actually touches."""

_worker: list[_Worker] = []


class NoBigStack(RuntimeError):
    """This platform would not start a thread with a big stack."""


class _Request:
    __slots__ = ("args", "done", "error", "function", "result")

    def __init__(self, function: Callable[..., Any], args: tuple[Any, ...], done: Any) -> None:
        self.function = function
        self.args = args
        self.done = done
        self.result: Any = None
        self.error: BaseException | None = None


class _Worker:
    def __init__(self) -> None:
        import queue
        import threading

        self.requests: queue.SimpleQueue[_Request] = queue.SimpleQueue()
        self.make_event = threading.Event
        previous = threading.stack_size()
        try:
            threading.stack_size(STACK_BYTES)
            thread = threading.Thread(target=self._serve, name="convtypes-big-stack", daemon=True)
            thread.start()
        except (ValueError, RuntimeError, OSError) as exc:
            raise NoBigStack(str(exc)) from None
        finally:
            threading.stack_size(previous)

    def _serve(self) -> None:
        while True:
            request = self.requests.get()
            try:
                request.result = request.function(*request.args)
            except BaseException as exc:  # handed back to the caller as is
                request.error = exc
            request.done.set()

    def call(self, function: Callable[..., Any], args: tuple[Any, ...]) -> Any:
        request = _Request(function, args, self.make_event())
        self.requests.put(request)
        request.done.wait()
        if request.error is not None:
            raise request.error
        return request.result


def _forget_worker() -> None:
    # A forked child has no threads but its own: it starts a worker anew.
    _worker.clear()


_START_LOCK: Final = _thread.allocate_lock()
_FORK_HOOK: list[bool] = []


def call_on_big_stack(function: Callable[..., Any], *args: Any) -> Any:
    """``function(*args)``, run on the big-stack thread; its result or its exception.

    ``function`` must not call back into this module (a decoder does not):
    the worker serves one request at a time. Raises :class:`NoBigStack` if
    the thread cannot be started.
    """
    if not _worker:
        with _START_LOCK:
            if not _worker:
                _worker.append(_Worker())
                if hasattr(os, "register_at_fork") and not _FORK_HOOK:
                    os.register_at_fork(after_in_child=_forget_worker)
                    _FORK_HOOK.append(True)
    return _worker[0].call(function, args)
