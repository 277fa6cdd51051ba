"""The risk under covariate shift (numerics.literature.shift, Zhang, Frei & Bartlett 2024) in closed form."""

from __future__ import annotations

import numpy as np
import pytest

from icl_verify.numerics.literature.shift import shifted_risk, simulated_errors, zfb_preconditioner


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
