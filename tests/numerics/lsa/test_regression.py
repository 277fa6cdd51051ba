"""numerics.lsa.regression: the task sampler's options, GD, and input validation."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings

from icl_verify.maths.strategies import dims, reals
from icl_verify.numerics.lsa import regression as reg


def test_uniform_inputs_respect_the_range_and_have_variance_a2_over_3():
    rng = np.random.default_rng(0)
    for a in (reg.CODE_X_RANGE, reg.PAPER_X_RANGE):
        t = reg.sample_tasks(rng, 2000, 20, 3, x_range=a)
        x = np.concatenate([t.X.ravel(), t.x_q.ravel()])
        assert np.all(np.abs(x) <= a)
        # Var U(-a, a) = a²/3; 126 000 draws → standard error of the variance ≈ 0.3 % of a².
        assert np.var(x) == pytest.approx(a**2 / 3, rel=0.02)


def test_gaussian_inputs_and_noise():
    rng = np.random.default_rng(1)
    t = reg.sample_tasks(rng, 4000, 10, 2, x_dist="gaussian", x_std=2.0, noise_std=0.5)
    assert np.var(t.X) == pytest.approx(4.0, rel=0.02)
    noise = t.Y - np.einsum("bnx,byx->bny", t.X, t.W)
    assert np.std(noise) == pytest.approx(0.5, rel=0.02)


def test_noiseless_labels_are_linear_and_shapes_are_batch_first():
    t = reg.sample_tasks(np.random.default_rng(2), 5, 7, 3, ny=2, n_queries=4, seed=2)
    assert t.X.shape == (5, 7, 3) and t.Y.shape == (5, 7, 2) and t.x_q.shape == (5, 4, 3) and t.W.shape == (5, 2, 3)
    np.testing.assert_allclose(t.y_q, np.einsum("bnx,byx->bny", t.x_q, t.W))
    assert t.seed == 2


def test_same_generator_state_same_tasks():
    a = reg.sample_tasks(np.random.default_rng(9), 3, 4, 2)
    b = reg.sample_tasks(np.random.default_rng(9), 3, 4, 2)
    np.testing.assert_array_equal(a.X, b.X)


@settings(max_examples=40, deadline=None)
@given(dims(1, 3), dims(1, 2), dims(1, 5), reals(1.0, positive=True), dims(0, 3))
def test_gd_matches_a_loop_over_examples(nx, ny, n, eta, steps):
    rng = np.random.default_rng(nx * 100 + ny * 10 + n)
    X, Y, W = rng.standard_normal((1, n, nx)), rng.standard_normal((1, n, ny)), rng.standard_normal((ny, nx))
    want = W.copy()
    for _ in range(steps):  # W ← W − (η/N) Σ_i (W x_i − y_i) x_iᵀ
        want = want - eta / n * sum(np.outer(want @ X[0, i] - Y[0, i], X[0, i]) for i in range(n))
    np.testing.assert_allclose(reg.gd(W, X, Y, eta, steps)[0], want, rtol=1e-10, atol=1e-12)


def test_loss_and_gradient_agree_with_finite_differences():
    rng = np.random.default_rng(3)
    X, Y, W = rng.standard_normal((1, 6, 3)), rng.standard_normal((1, 6, 2)), rng.standard_normal((2, 3))
    grad = reg.linreg_grad(W, X, Y)[0]
    h = 1e-6
    for idx in np.ndindex(W.shape):
        step = np.zeros_like(W)
        step[idx] = h
        fd = (reg.linreg_loss(W + step, X, Y)[0] - reg.linreg_loss(W - step, X, Y)[0]) / (2 * h)
        assert fd == pytest.approx(grad[idx], rel=1e-6, abs=1e-8)


def test_half_mse():
    assert reg.half_mse([1.0, 3.0], [0.0, 0.0]) == pytest.approx(0.5 * (1 + 9) / 2)


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: reg.sample_tasks(np.random.default_rng(0), 0, 3, 2), "batch"),
        (lambda: reg.sample_tasks(np.random.default_rng(0), 1, 3, 2, x_dist="cauchy"), "x_dist"),
        (lambda: reg.sample_tasks(np.random.default_rng(0), 1, 3, 2, x_range=-1), "x_range"),
        (lambda: reg.sample_tasks(np.random.default_rng(0), 1, 3, 2, noise_std=-0.1), "noise_std"),
        (lambda: reg.sample_tasks(0, 1, 3, 2), "rng"),
        (lambda: reg.gd(np.ones((1, 2)), np.ones((1, 3, 2)), np.ones((1, 4, 1)), 0.1), "Y"),
        (lambda: reg.gd(np.ones((2, 2)), np.ones((1, 3, 2)), np.ones((1, 3, 1)), 0.1), "W"),
        (lambda: reg.gd(np.ones((1, 2)), np.ones((1, 3, 2)), np.ones((1, 3, 1)), 0.1, steps=-1), "steps"),
        (lambda: reg.gd(np.ones((1, 2)), np.full((1, 3, 2), np.inf), np.ones((1, 3, 1)), 0.1), "X"),
        (lambda: reg.half_mse([1.0], [1.0, 2.0]), "same shape"),
    ],
)
def test_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()
