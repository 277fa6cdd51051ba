"""The best one-step GD rate η* (numerics.shared.gd_rate) against a Monte Carlo minimiser of the error."""

from __future__ import annotations

import numpy as np
import pytest

from icl_verify.numerics.shared.gd_rate import best_gd_rate


def test_best_gd_rate_minimises_the_monte_carlo_error():
    # the one-step error e(η) = E(x_qᵀ(w − ηXᵀy))² is quadratic in η; its sample minimiser over many
    # tasks is Σ ⟨w, XᵀXw⟩ / Σ ‖Xᵀy‖² (E over x_q = I), an estimate of η* = 1/(n + d + 1 + σ²)
    n, d, sigma, tasks = 8, 4, 0.5, 40_000
    rng = np.random.default_rng(5)
    W = rng.standard_normal((tasks, d))
    X = rng.standard_normal((tasks, n, d))
    y = np.einsum("bnd,bd->bn", X, W) + sigma * rng.standard_normal((tasks, n))
    Xty = np.einsum("bnd,bn->bd", X, y)
    eta_hat = np.sum(W * Xty) / np.sum(Xty**2)
    assert eta_hat == pytest.approx(best_gd_rate(n, d, sigma), rel=0.02)  # MC relative error ≈ 0.3 %
