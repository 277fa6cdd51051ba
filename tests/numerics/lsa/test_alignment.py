"""Alignment metrics between LSA and GD: exact cases from Proposition 1, symmetry and brute force."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from icl_verify.numerics.lsa.alignment import (
    effective_preconditioner,
    fit_preconditioner,
    gd_model,
    gd_reference,
    gdpp_model,
    interpolate,
    line_search_rate,
    lsa_model,
    mean_interval,
    model_cos,
    model_diff,
    one_step_rate,
    preconditioner_moments,
    predict,
    preds_diff,
    product_alignment,
    query_gradient,
    task_losses,
    tune_gdpp,
)
from icl_verify.numerics.lsa.layers import LSAParams, theta_gdpp
from icl_verify.numerics.lsa.regression import RegressionTasks, gd, sample_tasks


def _tasks(batch=64, n=6, nx=3, seed=0, **kw) -> RegressionTasks:
    return sample_tasks(np.random.default_rng(seed), batch, n, nx, n_queries=4, **kw)


def _random_params(D, heads=1, seed=1) -> LSAParams:
    rng = np.random.default_rng(seed)
    return LSAParams(*(0.3 * rng.standard_normal((heads, D, D)) for _ in range(4)))


def test_query_gradient_is_the_linear_map():
    tasks = _tasks()
    model = lsa_model([_random_params(4), _random_params(4, seed=2)])
    J = query_gradient(model, tasks)
    np.testing.assert_allclose(predict(model, tasks), np.einsum("byx,bqx->bqy", J, tasks.x_q), atol=1e-12)


def test_gd_model_gradient_is_the_gd_weights():
    tasks = _tasks()
    W = gd(np.zeros((1, 3)), tasks.X, tasks.Y, 0.7, 2)
    np.testing.assert_allclose(query_gradient(gd_model(0.7, 2), tasks), W, atol=1e-12)


def test_theta_gd_matches_gd_in_every_metric():
    """Proposition 1: θ_GD(η) and one GD step are the same model (two independent implementations)."""
    tasks = _tasks()
    lsa, ref = lsa_model([gd_reference(3, 1, 0.9, 6)]), gd_model(0.9)
    np.testing.assert_allclose(model_cos(lsa, ref, tasks), 1.0, atol=1e-12)
    assert np.max(model_diff(lsa, ref, tasks)) < 1e-12
    assert np.max(preds_diff(lsa, ref, tasks)) < 1e-12


def test_model_cos_of_opposite_and_scaled_models():
    tasks = _tasks()
    ref = gd_model(1.0)
    flipped = lambda X, Y, q: -ref(X, Y, q)  # noqa: E731
    np.testing.assert_allclose(model_cos(flipped, ref, tasks), -1.0, atol=1e-12)
    np.testing.assert_allclose(model_cos(gd_model(3.0), ref, tasks), 1.0, atol=1e-12)
    np.testing.assert_allclose(
        model_diff(gd_model(3.0), ref, tasks), 2 * np.linalg.norm(query_gradient(ref, tasks), axis=(1, 2))
    )


def test_one_step_rate_is_the_quadratic_minimum():
    tasks = _tasks(batch=500)
    eta = one_step_rate(tasks)
    loss = lambda e: float(np.mean(task_losses(gd_model(e), tasks)))  # noqa: E731
    assert loss(eta) < min(loss(eta * 0.99), loss(eta * 1.01))
    # bounded Brent search agrees with the exact minimiser
    assert line_search_rate(tasks, 1, upper=3 * eta) == pytest.approx(eta, rel=1e-4)


def test_line_search_for_two_steps_finds_a_minimum():
    tasks = _tasks(batch=500)
    eta = line_search_rate(tasks, 2)
    loss = lambda e: float(np.mean(task_losses(gd_model(e, 2), tasks)))  # noqa: E731
    assert loss(eta) <= min(loss(eta * 0.98), loss(eta * 1.02))


@pytest.mark.parametrize("steps", [1, 2, 3, 4, 5])
def test_line_search_is_the_interior_minimum_of_a_dense_grid(steps):
    """On the paper's task (d = N = 10, x ~ U(−½, ½)) the K-step optimum lies above the old fixed bound
    2N / q99(λ_max(XᵀX)) for small K; the search must find the grid's minimum, away from any edge."""
    tasks = sample_tasks(np.random.default_rng(steps), 500, 10, 10, x_range=0.5)
    eta = line_search_rate(tasks, steps)
    grid = np.arange(4.0, 8.0, 0.02)
    losses = np.array([np.mean(task_losses(gd_model(g, steps), tasks)) for g in grid])
    best = int(np.argmin(losses))
    assert 0 < best < grid.size - 1  # the grid itself brackets the minimum
    assert abs(eta - grid[best]) <= 0.02
    assert np.mean(task_losses(gd_model(eta, steps), tasks)) <= losses[best]


def test_line_search_raises_when_the_minimum_is_on_the_bound():
    tasks = sample_tasks(np.random.default_rng(0), 500, 10, 10, x_range=0.5)
    with pytest.raises(ValueError, match="upper: the 2-step loss is minimised at the edge"):
        line_search_rate(tasks, 2, upper=4.0)


def test_tune_gdpp_improves_on_gd():
    """GD++ with γ = 0 is GD, so tuned GD++ is at least as good as tuned GD on the same tasks."""
    tasks = _tasks(batch=400)
    eta = line_search_rate(tasks, 2)
    eta_pp, gamma = tune_gdpp(tasks, 2, eta)
    gd_loss = np.mean(task_losses(gd_model(eta, 2), tasks))
    np.testing.assert_allclose(predict(gdpp_model(eta, 0.0, 2), tasks), predict(gd_model(eta, 2), tasks), atol=1e-10)
    assert np.mean(task_losses(gdpp_model(eta_pp, gamma, 2), tasks)) <= gd_loss


@pytest.mark.parametrize("steps", [1, 3])
def test_direct_gdpp_equals_stacked_theta_gdpp_layers(steps):
    """The direct GD++ recursion and numerics.lsa.layers's θ_GD++ layers (paper eq. 23) are the same model."""
    tasks = _tasks()
    layer = theta_gdpp(3, 1, 0.8, 0.05, 6)
    np.testing.assert_allclose(
        predict(gdpp_model(0.8, 0.05, steps), tasks), predict(lsa_model([layer] * steps), tasks), atol=1e-12
    )


def test_product_alignment_undoes_the_rescaling():
    ref = gd_reference(3, 1, 1.3, 6)
    for s in (2.5, -0.4):
        scaled = replace(ref, W_V=ref.W_V * s, W_Q=ref.W_Q / s)
        s_hat, err_v, err_k = product_alignment(scaled, ref)
        assert s_hat == pytest.approx(1 / s)
        assert err_v < 1e-12 and err_k < 1e-12


def test_interpolation_of_rescaled_copy_is_the_same_model():
    tasks = _tasks()
    ref = gd_reference(3, 1, 1.3, 6)
    scaled = replace(ref, W_V=ref.W_V * -3.0, W_Q=ref.W_Q / -3.0)
    mixed = interpolate(scaled, ref)
    np.testing.assert_allclose(predict(lsa_model([mixed]), tasks), predict(gd_model(1.3), tasks), atol=1e-12)


def test_effective_preconditioner_of_theta_gd_is_eta_identity():
    np.testing.assert_allclose(effective_preconditioner(gd_reference(4, 1, 0.8, 7), 4, 7), 0.8 * np.eye(4), atol=1e-14)


def test_effective_preconditioner_is_the_label_odd_part():
    """For any 1-layer weights, (ŷ(Y) − ŷ(−Y))/2 = x_qᵀ A (1/N) Σ y_i x_i (brute force, 2 heads)."""
    tasks = _tasks()
    params = _random_params(4, heads=2)
    model = lsa_model([params])
    odd = 0.5 * (model(tasks.X, tasks.Y, tasks.x_q) - model(tasks.X, -tasks.Y, tasks.x_q))
    A = effective_preconditioner(params, 3, 6)
    g = np.einsum("bn,bnx->bx", tasks.Y[..., 0], tasks.X) / 6
    np.testing.assert_allclose(odd[..., 0], np.einsum("bqa,ac,bc->bq", tasks.x_q, A, g), atol=1e-12)


def test_fit_preconditioner_recovers_a_planted_matrix():
    """Labels y_q = x_qᵀ A g exactly ⇒ least squares returns A; moments of two halves pool exactly."""
    tasks = _tasks(batch=200)
    A = np.array([[0.5, -1.0, 0.0], [2.0, 0.3, 0.1], [0.0, 0.7, -0.2]])
    g = np.einsum("bn,bnx->bx", tasks.Y[..., 0], tasks.X) / 6
    planted = replace(tasks, y_q=np.einsum("bqa,ac,bc->bq", tasks.x_q, A, g)[..., None])
    np.testing.assert_allclose(fit_preconditioner(preconditioner_moments(planted)), A, atol=1e-9)
    half = [
        replace(planted, **{k: getattr(planted, k)[sl] for k in ("X", "Y", "x_q", "y_q", "W")})
        for sl in (slice(0, 100), slice(100, 200))
    ]
    pooled = tuple(a + b for a, b in zip(*(preconditioner_moments(h) for h in half)))
    np.testing.assert_allclose(fit_preconditioner(pooled), A, atol=1e-9)


def test_mean_interval():
    m, lo, hi = mean_interval([1.0, 2.0, 3.0, 4.0], z=2.0)
    se = np.std([1, 2, 3, 4], ddof=1) / 2
    assert (m, lo, hi) == pytest.approx((2.5, 2.5 - 2 * se, 2.5 + 2 * se))


def test_bad_input_names_the_argument():
    with pytest.raises(ValueError, match="eta"):
        gd_model(float("nan"))
    with pytest.raises(ValueError, match="steps"):
        gdpp_model(1.0, 0.1, 0)
    with pytest.raises(ValueError, match="params"):
        product_alignment(_random_params(4, heads=2), gd_reference(3, 1, 1.0, 5))
    with pytest.raises(ValueError, match="params"):
        effective_preconditioner(_random_params(5), 3, 6)
    with pytest.raises(ValueError, match="samples"):
        mean_interval([1.0])
    with pytest.raises(ValueError, match="tasks"):
        preconditioner_moments(sample_tasks(np.random.default_rng(0), 2, 3, 2, ny=2))
    with pytest.raises(ValueError, match="upper"):
        line_search_rate(_tasks(), 2, upper=-1.0)
