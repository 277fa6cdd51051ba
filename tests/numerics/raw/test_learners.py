"""Tests for numerics.raw.learners: reference learners, SPD and ILWD (Akyürek et al. §4)."""

from __future__ import annotations

import numpy as np
import pytest

from icl_verify.numerics.raw.learners import (
    bayes_weights,
    gd_step_weights,
    ilwd,
    implied_weights,
    knn,
    learners,
    linear,
    ols_weights,
    ridge_weights,
    sgd_weights,
    spd,
)

RNG = np.random.default_rng(7)


def test_ols_recovers_weights_and_is_minimum_norm_when_underdetermined():
    X, w = RNG.normal(size=(10, 3)), RNG.normal(size=3)
    np.testing.assert_allclose(ols_weights(X, X @ w), w, rtol=1e-12)
    Xs, y = RNG.normal(size=(2, 5)), RNG.normal(size=2)
    min_norm = Xs.T @ np.linalg.solve(Xs @ Xs.T, y)  # the interpolant in the row space of X
    np.testing.assert_allclose(ols_weights(Xs, y), min_norm, rtol=1e-12)


def test_ridge_equals_augmented_least_squares():
    X, y, lam = RNG.normal(size=(6, 4)), RNG.normal(size=6), 0.7
    aug_X = np.vstack([X, np.sqrt(lam) * np.eye(4)])
    aug_y = np.concatenate([y, np.zeros(4)])
    np.testing.assert_allclose(ridge_weights(X, y, lam), np.linalg.lstsq(aug_X, aug_y, rcond=None)[0], rtol=1e-12)


def test_gd_and_sgd_steps_by_hand():
    X, y = np.array([[1.0, 0.0], [0.0, 2.0]]), np.array([1.0, 1.0])
    # from 0: w = −2α ∇-half = 2α Xᵀy
    np.testing.assert_allclose(gd_step_weights(X, y, 0.25), [0.5, 1.0])
    # SGD: first example gives w = (0.5, 0); second: w − 0.5((0,2)(0) − (0,2)) = (0.5, 1.0); λ = 0
    np.testing.assert_allclose(sgd_weights(X, y, 0.25), [0.5, 1.0])
    x, w0, a, lam, yy = RNG.normal(size=3), RNG.normal(size=3), 0.1, 0.3, 0.4
    theorem1 = w0 - 2 * a * (x * (w0 @ x) - yy * x + lam * w0)
    np.testing.assert_allclose(sgd_weights(x[None], np.array([yy]), a, lam, w0), theorem1, rtol=1e-14)
    np.testing.assert_allclose(gd_step_weights(x[None], np.array([yy]), a, lam, w0), theorem1, rtol=1e-14)


def test_sgd_depends_on_order():
    X, y = RNG.normal(size=(3, 2)), RNG.normal(size=3)
    assert not np.allclose(sgd_weights(X, y, 0.2), sgd_weights(X[::-1], y[::-1], 0.2))


def test_bayes_posterior_mean_equals_ridge():
    X, y = RNG.normal(size=(5, 3)), RNG.normal(size=5)
    np.testing.assert_allclose(bayes_weights(X, y, 0.5, 2.0), ridge_weights(X, y, 0.25), rtol=1e-12)


def test_knn_uniform_and_distance():
    X = np.array([[0.0], [1.0], [3.0], [10.0]])
    y = np.array([0.0, 1.0, 3.0, 10.0])
    q = np.array([[1.5], [3.0]])
    np.testing.assert_allclose(knn(X, y, q, k=3), [4.0 / 3.0, 4.0 / 3.0])
    # q = 1.5: neighbours 1 (d 0.5), 0 (d 1.5), 3 (d 1.5) → (2·1 + 0 + 3/1.5) / (2 + 2/1.5)
    np.testing.assert_allclose(knn(X, y, q[:1], k=3, weighting="distance"), [(2.0 + 2.0) / (2.0 + 4.0 / 3.0)])
    np.testing.assert_allclose(knn(X, y, q[1:], k=3, weighting="distance"), [3.0])  # exact match
    np.testing.assert_allclose(knn(X, y, q, k=10), [3.5, 3.5])  # k capped at n


def test_spd_and_ilwd_properties():
    L = learners()
    same = spd(L["ols"], L["ols"], n=5, d=3, seed=1, n_tasks=10)
    assert same.value == 0.0 and same.seed == 1
    a = spd(L["ols"], L["gd"], n=5, d=3, seed=1, n_tasks=10)
    b = spd(L["gd"], L["ols"], n=5, d=3, seed=1, n_tasks=10)
    assert a.value == pytest.approx(b.value) and a.value > 0
    assert ilwd(L["ridge"], L["ridge"], n=5, d=3, seed=2, n_tasks=5).value == 0.0
    # a linear learner's implied weights are its weights
    X, y, probes = RNG.normal(size=(6, 3)), RNG.normal(size=6), RNG.normal(size=(12, 3))
    np.testing.assert_allclose(implied_weights(L["ridge"], X, y, probes), ridge_weights(X, y, 0.1), rtol=1e-10)
    near = ilwd(linear(ols_weights), linear(ridge_weights, lam=1e-6), n=4, d=6, seed=3, n_tasks=10)
    assert near.value < 1e-8
    assert spd(L["ols"], L["knn-uniform"], n=8, d=2, seed=4, n_tasks=5) == spd(
        L["ols"], L["knn-uniform"], n=8, d=2, seed=4, n_tasks=5
    )


def test_bad_inputs_raise():
    with pytest.raises(ValueError, match="X must be"):
        ols_weights(np.zeros((3, 2)), np.zeros(2))
    with pytest.raises(ValueError, match="lam must be positive"):
        ridge_weights(np.ones((2, 2)), np.ones(2), 0.0)
    with pytest.raises(ValueError, match="weighting"):
        knn(np.ones((2, 1)), np.ones(2), np.ones((1, 1)), weighting="gaussian")
    with pytest.raises(ValueError, match="n_probes"):
        ilwd(linear(ols_weights), linear(ols_weights), n=3, d=4, seed=0, n_probes=2)
    with pytest.raises(ValueError, match="finite"):
        sgd_weights(np.array([[np.nan]]), np.ones(1), 0.1)


def test_compiled_chains_are_learners():
    from icl_verify.numerics.raw.programs import compiled_learner

    # Draws of the test's own (not the module's generator, whose state depends on the order the tests run in), and
    # the error measured against the predictions' scale: the compiled program's rounding is relative to the size of
    # what it computes, not to each entry (an entry near 0 differs by 6e-8, relatively 2e-5, at another draw).
    rng = np.random.default_rng(8)
    X, y, Q = rng.normal(size=(3, 2)), rng.normal(size=3), rng.normal(size=(2, 2))
    expected = Q @ ridge_weights(X, y, 0.5)
    scale = 1e-6 * np.abs(expected).max()
    np.testing.assert_allclose(compiled_learner("ridge", 3, 2, lam=0.5)(X, y, Q), expected, rtol=0, atol=scale)
    w0 = rng.normal(size=2)
    expected = Q @ sgd_weights(X, y, 0.05, 0.5, w0)
    scale = 1e-6 * np.abs(expected).max()
    np.testing.assert_allclose(
        compiled_learner("sgd", 3, 2, lam=0.5, alpha=0.05, w0=w0)(X, y, Q), expected, rtol=0, atol=scale
    )
    with pytest.raises(ValueError, match="kind"):
        compiled_learner("ols", 3, 2)


def test_sgd_divergence_is_reported_not_returned():
    # every step multiplies the component along x = (1, 1) by 1 − 2α‖x‖² = −3 (α = 1, λ = 0):
    # after 200 steps ‖w‖ ≈ 3²⁰⁰ ≈ 1e95, finite but meaningless
    X = np.ones((200, 2))
    with pytest.raises(ValueError, match=r"sgd_weights diverged: .* times the bound .* alpha or lam"):
        sgd_weights(X, np.ones(200), 1.0)


def test_sgd_mildly_expanding_pass_is_still_returned():
    # three expanding steps (factor −3 each along x) stay within the growth limit and match the recursion:
    # from w = 0 with y = 1, x = (1, 1): w_k = −3 w_{k-1} + 2x, i.e. 2x, −4x, 14x
    X = np.ones((3, 2))
    np.testing.assert_allclose(sgd_weights(X, np.ones(3), 1.0), [14.0, 14.0])
