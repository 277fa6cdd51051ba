"""The least-squares baselines (numerics.literature.baselines, Garg et al. 2022) against the pseudo-inverse."""

from __future__ import annotations

import numpy as np
import pytest

from icl_verify.numerics.literature.baselines import least_squares_errors


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
