"""Iterative Newton (numerics.literature.newton, Fu et al. 2024) by hand, its convergence and its bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest

from icl_verify.numerics.literature.newton import boundary_rate, newton_iterates, newton_residual

RNG = np.random.default_rng(3)


def test_newton_steps_by_hand():
    # S = 2, α = 0.1: M₀ = 0.2, M₁ = 2·0.2 − 0.2·2·0.2 = 0.32, residual 1 − 0.64 = 0.36 = (1 − 0.1·4)²
    M = newton_iterates([[2.0]], 0.1, 1)
    np.testing.assert_allclose([m[0, 0] for m in M], [0.2, 0.32], rtol=1e-15)
    np.testing.assert_allclose(newton_residual([[2.0]], 0.1, 1), [[0.36]], rtol=1e-14)


def test_newton_converges_to_the_inverse_inside_the_boundary():
    X = RNG.normal(size=(20, 3))
    S = X.T @ X
    M = newton_iterates(S, 0.9 * boundary_rate(S), 40)[-1]
    np.testing.assert_allclose(M, np.linalg.inv(S), rtol=1e-10)


def test_boundary_rate_is_two_over_the_top_eigenvalue_squared():
    assert boundary_rate(np.diag([1.0, 2.0])) == pytest.approx(0.5, rel=1e-15)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: newton_iterates(np.ones((2, 3)), 0.1, 1), "S must be square"),
        (lambda: newton_iterates(np.eye(2), 0.1, -1), "steps must be a non-negative integer"),
        (lambda: newton_iterates(np.eye(2), math.nan, 1), "alpha must be finite"),
        (lambda: newton_iterates([[10.0]], 1.0, 30), "iterative Newton overflowed"),
        (lambda: boundary_rate([[0.0, 1.0], [2.0, 0.0]]), "S must be symmetric"),
        (lambda: boundary_rate(-np.eye(2)), "S must have a positive largest eigenvalue"),
    ],
)
def test_newton_rejects_bad_input(call, message):
    with pytest.raises(ValueError, match=message):
        call()
