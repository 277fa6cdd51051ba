"""Explicit caches: results that are expensive to compute (trained models, compiled networks,
symbolic moments) are memoised with :func:`cached`, and :func:`clear_caches` empties them all.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])

_CACHED: list[Any] = []


def cached(maxsize: int | None = None) -> Callable[[F], F]:
    """``functools.lru_cache(maxsize)``, registered so that :func:`clear_caches` can empty it.

    >>> @cached()
    ... def square(x):
    ...     return x * x
    >>> square(3), square.cache_info().currsize
    (9, 1)
    >>> clear_caches(); square.cache_info().currsize
    0
    """

    def decorate(fn: F) -> F:
        wrapped = functools.lru_cache(maxsize=maxsize)(fn)
        _CACHED.append(wrapped)
        return wrapped  # type: ignore[return-value]

    return decorate


def clear_caches() -> None:
    """Empty every cache made with :func:`cached` (memory is freed; later calls recompute)."""
    for fn in _CACHED:
        fn.cache_clear()
