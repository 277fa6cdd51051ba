"""Tests for numerics.literature: iterative Newton, the least-squares baselines and dMMSE."""

from __future__ import annotations

import math

import numpy as np
import pytest

from icl_verify.numerics.literature.baselines import least_squares_errors
from icl_verify.numerics.literature.dmmse import dmmse_ridge_gaps, dmmse_weights
from icl_verify.numerics.literature.newton import boundary_rate, newton_iterates, newton_residual
from icl_verify.numerics.literature.shift import shifted_risk, simulated_errors, zfb_preconditioner

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


def test_least_squares_fit_is_the_pseudo_inverse_in_both_regimes():
    # noiseless with k ≥ d: exact recovery; the errors are round-off
    assert least_squares_errors(6, 3, 0.0, 50, seed=0).max() < 1e-20
    # k < d: the same tasks through numpy's pseudo-inverse give the same errors
    rng = np.random.default_rng(5)
    X, w, x_q = rng.standard_normal((50, 2, 5)), rng.standard_normal((50, 5)), rng.standard_normal((50, 5))
    y = np.einsum("tkd,td->tk", X, w) + 0.0 * rng.standard_normal((50, 2))
    expected = np.einsum("td,td->t", x_q, np.einsum("tdk,tk->td", np.linalg.pinv(X), y) - w) ** 2
    np.testing.assert_allclose(least_squares_errors(2, 5, 0.0, 50, seed=5), expected, rtol=1e-9)


def test_least_squares_errors_reject_bad_sizes():
    with pytest.raises(ValueError, match="k must be a positive integer"):
        least_squares_errors(0, 3, 0.0, 10, seed=0)
    with pytest.raises(ValueError, match="noise_std must be non-negative"):
        least_squares_errors(4, 3, -1.0, 10, seed=0)


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
    with pytest.raises(ValueError, match="tasks must have columns = the columns of X"):
        dmmse_weights(np.ones((2, 2)), np.ones(2), np.ones((3, 1)), 1.0)


def test_shifted_risk_in_one_dimension_by_chi_square_moments():
    # d = 1: h = (1/M)Σx_i² w with E[(Σx_i²)²] = M(M + 2)λ², so R = λ(a²λ²s(1 + 2/M) − 2aλs + s)
    a, lam, s, m = 0.7, 1.5, 2.0, 5
    expected = lam * (a**2 * lam**2 * s * (1 + 2 / m) - 2 * a * lam * s + s)
    assert shifted_risk([[a]], [[lam]], [[s]], m) == pytest.approx(expected, rel=1e-14)


def test_in_distribution_risk_is_trace_lambda_minus_trace_gamma_inverse_lambda_squared():
    # Λ' = Λ, Σ_w = I, M = N: E[hhᵀ] = ΛΓ, so R = tr Λ − tr(Γ⁻¹Λ²)
    lam, n = np.diag([1.0, 0.5, 2.0]), 10
    gamma = (1 + 1 / n) * lam + np.trace(lam) / n * np.eye(3)
    np.testing.assert_allclose(zfb_preconditioner(lam, n), gamma, rtol=1e-15)
    A = np.linalg.inv(gamma)
    expected = np.trace(lam) - np.trace(A @ lam @ lam)
    assert shifted_risk(A, lam, np.eye(3), n) == pytest.approx(expected, rel=1e-12)


def test_shift_inputs_are_checked():
    with pytest.raises(ValueError, match="Lambda_test must be positive definite"):
        shifted_risk(np.eye(2), -np.eye(2), np.eye(2), 3)
    with pytest.raises(ValueError, match="Sigma_w must have size = the size of Lambda_test"):
        shifted_risk(np.eye(2), np.eye(2), np.eye(3), 3)
    with pytest.raises(ValueError, match="tasks must be 'gaussian' or 'sphere'"):
        simulated_errors(np.eye(2), np.eye(2), np.eye(2), 3, 10, 0, tasks="cauchy")
