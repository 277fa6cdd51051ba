"""The discrete-prior posterior mean (numerics.literature.dmmse, Raventós et al. 2023) by hand, and its bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest

from icl_verify.numerics.literature.dmmse import dmmse_ridge_gaps, dmmse_weights

RNG = np.random.default_rng(3)


def test_dmmse_by_hand():
    # X = 1, y = 1, tasks 0 and 1, σ² = 1/2: log-weights −1 and 0, so ŵ = 1/(1 + e⁻¹)
    assert dmmse_weights([[1.0]], [1.0], [[0.0], [1.0]], 0.5)[0] == pytest.approx(1 / (1 + math.exp(-1)), rel=1e-15)
    task = RNG.normal(size=(1, 3))
    np.testing.assert_array_equal(dmmse_weights(RNG.normal(size=(4, 3)), RNG.normal(size=4), task, 1.0), task[0])


def test_dmmse_gaps_shape_and_bad_input():
    X, y = np.eye(2), np.ones(2)
    assert dmmse_ridge_gaps(X, y, 1.0, [2, 4], pools=5, seed=0).shape == (5, 2)
    with pytest.raises(ValueError, match="Ms must be positive integers that divide their maximum"):
        dmmse_ridge_gaps(X, y, 1.0, [3, 4], pools=5, seed=0)
    with pytest.raises(ValueError, match="Ms must be positive integers"):  # beyond 2**53 a float holds no integer count
        dmmse_ridge_gaps(X, y, 1.0, [2, 1e300], pools=5, seed=0)
    with pytest.raises(ValueError, match="tasks must have columns = the columns of X"):
        dmmse_weights(np.ones((2, 2)), np.ones(2), np.ones((3, 1)), 1.0)
