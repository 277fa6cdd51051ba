"""BLAS thread control for training loops (via threadpoolctl)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from threadpoolctl import threadpool_limits

from icl_verify.numerics.shared.checks import positive_int


@contextmanager
def blas_threads(n: int) -> Iterator[None]:
    """Run the block with at most ``n`` BLAS threads, restoring the previous limits afterwards.

    Sweeps and checks run one worker process per core, so more BLAS threads per worker would only
    compete for the same cores (on a machine other jobs share, the threaded paths of these small
    products collapse). A threaded product may split and reorder its inner sums, so results on
    different thread counts agree within rounding, not bit for bit; one thread per job removes that
    reordering, though two processes may still round differently (SIMD loops and BLAS kernels may
    depend on memory alignment), so compare runs on different executors within rounding too.
    """
    with threadpool_limits(limits=positive_int("n", n), user_api="blas"):
        yield


# ---------------------------------------------------------------------------------------------
# Examples for the bad-input fuzzer (numerics.shared.fuzz)

FUZZ_EXEMPT = {"blas_threads": "BLAS thread pinning, a context manager tested on its own"}
