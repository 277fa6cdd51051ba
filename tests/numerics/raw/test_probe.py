"""Tests for numerics.raw.probe: the small transformer's backprop, its masking and the probe statistics.

The gradient is checked twice: against central finite differences, and against the complex-step
derivative Im f(θ + ih e_k)/h of an independent loop-by-loop forward pass written from the formulas
in the module docstring (no shared code with the batched implementation, exact to rounding).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from icl_verify.families import raw_probe as fam
from icl_verify.numerics.raw.learners import gd_step_weights
from icl_verify.numerics.raw.probe import (
    ProbeConfig,
    Trained,
    as_learner,
    forward,
    init_params,
    loss_and_grads,
    paired_log_ratios,
    probe,
    ratio_of_means,
    sample_tasks,
    train,
    train_best,
)
from icl_verify.numerics.shared.gd_rate import best_gd_rate

TINY = ProbeConfig(d=2, n=3, depth=2, width=3, hidden=4, init_scale=1.0)


def _tiny_problem(seed: int = 0):
    rng = np.random.default_rng(seed)
    params = init_params(TINY, rng)
    for p in params[1:]:  # non-zero biases so their gradients are exercised
        p["b1"], p["b2"] = rng.standard_normal(p["b1"].shape), rng.standard_normal(p["b2"].shape)
    params[0]["b_out"] = rng.standard_normal(1)
    return params, sample_tasks(rng, 2, TINY.n, 2, TINY.d, 0.3)


def reference_loss(params, X, y, Q, y_q):
    """The loss computed token by token with explicit sums (works on complex parameters)."""
    io, layers = params[0], params[1:]
    B, n = X.shape[:2]
    total = 0.0
    for b in range(B):
        rows = [np.concatenate([X[b, i], [y[b, i], 0.0]]) for i in range(n)]
        rows += [np.concatenate([Q[b, j], [0.0, 1.0]]) for j in range(Q.shape[1])]
        h = [r @ io["W_in"] for r in rows]
        for p in layers:
            keys = [h[j] @ p["Wk"] for j in range(n)]
            values = [h[j] @ p["Wv"] for j in range(n)]
            new = []
            for t in range(len(h)):
                query = h[t] @ p["Wq"]
                h1 = h[t] + sum((query @ keys[j]) * values[j] for j in range(n)) / n
                z = h1 @ p["W1"] + p["b1"]
                relu = np.where(z.real > 0, z, 0.0)
                new.append(h1 + relu @ p["W2"] + p["b2"])
            h = new
        for j in range(Q.shape[1]):
            total = total + (h[n + j] @ io["w_out"] + io["b_out"][0] - y_q[b, j]) ** 2
    return total / (B * Q.shape[1])


def test_forward_matches_the_loop_reference():
    params, (X, y, Q, y_q) = _tiny_problem()
    loss, _ = loss_and_grads(params, X, y, Q, y_q)
    assert loss == pytest.approx(reference_loss(params, X, y, Q, y_q), rel=1e-12)


def _entries(params: list[dict[str, np.ndarray]]) -> Iterator[tuple[int, str, tuple[int, ...]]]:
    """(layer, name, index) of every parameter entry, for the entrywise derivative checks."""
    for i, p in enumerate(params):
        for key, value in p.items():
            for idx in np.ndindex(value.shape):
                yield i, key, idx


def test_gradient_matches_complex_step_of_the_reference():
    params, task = _tiny_problem(1)
    _, grads = loss_and_grads(params, *task)
    h = 1e-30
    for i, key, idx in _entries(params):
        shifted = [{k: v.astype(complex) for k, v in q.items()} for q in params]
        shifted[i][key][idx] += 1j * h
        expected = reference_loss(shifted, *task).imag / h
        assert grads[i][key][idx] == pytest.approx(expected, rel=1e-9, abs=1e-12), (i, key, idx)


def test_gradient_matches_central_differences():
    params, task = _tiny_problem(2)
    _, grads = loss_and_grads(params, *task)
    eps = 1e-6
    for i, key, idx in _entries(params):
        value = params[i][key]
        old = value[idx]
        value[idx] = old + eps
        up = loss_and_grads(params, *task)[0]
        value[idx] = old - eps
        down = loss_and_grads(params, *task)[0]
        value[idx] = old
        # central differences: error O(eps² f''') plus rounding O(ε_mach |f| / eps) ≈ 1e-9 here
        assert grads[i][key][idx] == pytest.approx((up - down) / (2 * eps), abs=1e-6), (i, key, idx)


def test_queries_do_not_see_each_other_or_change_the_context():
    params, (X, y, Q, _) = _tiny_problem(3)
    pred = forward(params, X, y, Q)[0]
    Q2 = Q.copy()
    Q2[:, 1] += 5.0
    pred2 = forward(params, X, y, Q2)[0]
    np.testing.assert_array_equal(pred[:, 0], pred2[:, 0])
    alone = forward(params, X, y, Q[:, :1])[0]
    np.testing.assert_allclose(alone[:, 0], pred[:, 0], rtol=1e-13)


def test_ratio_of_means_by_hand():
    r, se = ratio_of_means(np.array([1.0, 2.0, 3.0]), np.array([1.0, 1.0, 1.0]))
    # R = 2, a − R b = (−1, 0, 1), sample sd 1, se = 1/√3
    assert r == 2.0 and se == pytest.approx(1 / np.sqrt(3))
    with pytest.raises(ValueError, match="b must have a positive mean"):
        ratio_of_means(np.ones(3), np.zeros(3))


def test_paired_log_ratios_by_hand():
    # a/b = (2, 4): logs (ln 2, ln 4), geometric mean exp(ln 8 / 2) = √8
    logs = paired_log_ratios(np.array([2.0, 8.0]), np.array([1.0, 2.0]))
    np.testing.assert_allclose(logs, [np.log(2), np.log(4)], rtol=1e-15)
    assert np.exp(logs.mean()) == pytest.approx(np.sqrt(8), rel=1e-15)
    with pytest.raises(ValueError, match="a and b must hold positive numbers"):
        paired_log_ratios(np.array([1.0, 0.0]), np.ones(2))
    with pytest.raises(ValueError, match="paired samples of the same length"):
        paired_log_ratios(np.ones(3), np.ones(2))


def test_one_extreme_task_moves_the_ratio_of_means_but_not_the_geometric_mean():
    """399 tasks with a/b = 0.1 and one with a/b = 1000 (a nearly singular XᵀX): the ratio of means is
    (399 · 0.1 + 1000) / 400 = 2.59975 > 1, the geometric mean 0.1 · 10^(4/400) = 0.1 · 10^0.01 ≈ 0.1023 < 1."""
    a, b = np.r_[np.full(399, 0.1), 1000.0], np.ones(400)
    assert a.mean() / b.mean() == pytest.approx(2.59975, rel=1e-12)
    assert fam._geometric_ratio(a, b) == pytest.approx(0.1 * 10**0.01, rel=1e-12)


def test_probe_of_a_model_that_is_one_gd_step():
    # von Oswald et al. 2023's construction by hand: one layer whose attention writes
    # η* Σ_j (x_qᵀx_j) y_j into an output unit (the MLP switched off) is exactly one GD step
    cfg = ProbeConfig(d=2, n=5, depth=1, width=5, hidden=1)
    eta, d, n = best_gd_rate(cfg.n, cfg.d), cfg.d, cfg.n
    io = {"W_in": np.eye(d + 2, 5), "w_out": np.eye(5)[4], "b_out": np.zeros(1)}
    Wq, Wk, Wv = np.zeros((5, 5)), np.zeros((5, 5)), np.zeros((5, 5))
    Wq[:d, :d] = np.eye(d)  # query reads x
    Wk[:d, :d] = np.eye(d)  # key reads x_j
    Wv[d, 4] = n * eta  # value writes n η* y_j into unit 4; the 1/n of attention cancels it
    layer = {"Wq": Wq, "Wk": Wk, "Wv": Wv, "W1": np.zeros((5, 1)), "b1": np.zeros(1), "W2": np.zeros((1, 5))}
    layer["b2"] = np.zeros(5)
    model = Trained([io, layer], np.zeros(1), 0, cfg)
    refs = {"gd": lambda X, y: gd_step_weights(X, y, eta / 2), "zero": lambda X, y: np.zeros(X.shape[1])}
    result = probe(model, refs, seed=0, n_tasks=20)
    assert np.max(result.spd["gd"]) < 1e-24 and np.max(result.ilwd["gd"]) < 1e-24
    assert np.min(result.spd["zero"]) > 0
    rng = np.random.default_rng(6)
    X, y, Q = rng.standard_normal((n, d)), rng.standard_normal(n), rng.standard_normal((3, d))
    np.testing.assert_allclose(as_learner(model)(X, y, Q), Q @ (eta * X.T @ y), rtol=1e-12)


def test_bad_input_raises():
    with pytest.raises(ValueError, match="depth must be a positive integer"):
        ProbeConfig(depth=0)
    with pytest.raises(ValueError, match="noise_std must be non-negative"):
        ProbeConfig(noise_std=-1.0)
    params, _ = _tiny_problem()
    learner = as_learner(Trained(params, np.zeros(1), 0, TINY))
    with pytest.raises(ValueError, match="the model takes X"):
        learner(np.ones((4, 2)), np.ones(4), np.ones((1, 2)))


def test_train_best_keeps_the_run_with_the_lowest_final_training_loss():
    cfg = ProbeConfig(d=2, n=3, depth=2, width=4, hidden=4, steps=20, batch=4)
    runs = [train(cfg, 3, r) for r in range(3)]
    tails = [float(np.mean(run.losses[-2:])) for run in runs]  # last tenth of 20 steps
    best = train_best(cfg, 3, 3)
    np.testing.assert_array_equal(best.losses, runs[int(np.argmin(tails))].losses)
    np.testing.assert_array_equal(train(cfg, 3).losses, runs[0].losses)  # restart 0 is the plain seeded run
    assert not np.array_equal(runs[0].losses, runs[1].losses)
