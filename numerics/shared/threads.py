"""BLAS thread control for training loops (via threadpoolctl)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from threadpoolctl import threadpool_limits

from icl_verify.numerics.shared.checks import positive_int


@contextmanager
def blas_threads(n: int) -> Iterator[None]:
    """Run the block with at most ``n`` BLAS threads, restoring the previous limits afterwards.

    The training loops multiply small matrices, for which OpenBLAS's threaded path is many times
    slower than one thread on a shared 2-core machine (docs/performance.md); one thread per job
    also makes results bitwise identical on every executor.
    """
    with threadpool_limits(limits=positive_int("n", n), user_api="blas"):
        yield
