"""Thread limits for work that may spawn threads (BLAS, OpenMP, torch)."""

from __future__ import annotations

import sys
from typing import Any

__all__ = ["limit_threads"]


def limit_threads() -> Any:
    """Context limiting BLAS/OpenMP pools (and torch, when imported) to one thread."""
    from contextlib import ExitStack

    from threadpoolctl import threadpool_limits

    stack = ExitStack()
    stack.enter_context(threadpool_limits(limits=1))
    torch = sys.modules.get("torch")
    if torch is not None:
        previous = torch.get_num_threads()
        torch.set_num_threads(1)
        stack.callback(torch.set_num_threads, previous)
    return stack
