"""numerics.shared.threads.blas_threads limits the BLAS pool inside the block and restores it after."""

from __future__ import annotations

import pytest
from threadpoolctl import threadpool_info

from icl_verify.numerics.shared.threads import blas_threads


def _blas_threads() -> list[int]:
    return [p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"]


def test_limits_inside_and_restores_after():
    before = _blas_threads()
    with blas_threads(1):
        assert all(n == 1 for n in _blas_threads())
    assert _blas_threads() == before


def test_rejects_non_positive():
    with pytest.raises(ValueError, match="n must be a positive integer"), blas_threads(0):
        pass
