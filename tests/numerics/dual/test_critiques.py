"""Fine-tuning relaxed attention and the critiques' simulations against independent computations."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings

from icl_verify.families import dual_critiques as fam
from icl_verify.families.dual import ft_cases
from icl_verify.maths.symbolic import is_zero
from icl_verify.numerics.dual import critiques, finetune

FAST = settings(max_examples=30, deadline=None)


def _loss(W_V, W_K, case):
    """L = −Σ_i t_iᵀ W_V S W_Kᵀ q_i written as a loop over the demonstrations (rows)."""
    S = case["text"].T @ case["text"]
    return -sum(t @ W_V @ S @ W_K.T @ q for t, q in zip(case["targets"], case["queries"]))


@FAST
@given(ft_cases())
def test_linear_loss_gradients_match_central_differences(case):
    """L is linear in each matrix, so central differences are exact up to rounding."""
    W_V, W_K, h = case["W_V"], case["W_K"], 0.5
    grad_V, grad_K = finetune.linear_loss_gradients(W_V, W_K, case["text"], case["targets"], case["queries"])
    pairs = ((grad_V, W_V, lambda E: _loss(W_V + E, W_K, case)), (grad_K, W_K, lambda E: _loss(W_V, W_K + E, case)))
    for grad, W, loss in pairs:
        want = np.zeros_like(W)
        for idx in np.ndindex(W.shape):
            step = np.zeros_like(W)
            step[idx] = h
            want[idx] = (loss(step) - loss(-step)) / (2 * h)
        np.testing.assert_allclose(grad, want, rtol=1e-9, atol=1e-9 * (1 + np.abs(want).max()))


def test_value_step_with_orthogonal_keys_and_identity_text_equals_icl():
    """The special case named in dai-ft-equals-icl: W_K orthogonal, S = XᵀX = I, lr = 1 ⇒ ΔW_FT = ΔW_ICL."""
    rng = np.random.default_rng(0)
    W_K = np.linalg.qr(rng.standard_normal((3, 3)))[0]
    W_V, demos = rng.standard_normal((2, 3)), rng.standard_normal((4, 3))
    ft = finetune.delta_w_ft(W_V, W_K, np.eye(3), demos @ W_V.T, demos @ W_K.T, 1.0, train_keys=False)
    icl = sum(np.outer(W_V @ x, W_K @ x) for x in demos)
    np.testing.assert_allclose(ft, icl, atol=1e-12)


def test_noise_closed_form_at_small_dimensions_by_hand():
    # d = 3: t = hᵀz is uniform on [−1, 1], E√((1 − t)/2) = ∫₀¹ √s ds = 2/3 → (2/3)² = 4/9;
    # d = 2: s ~ Beta(½, ½), E√s = B(1, ½)/B(½, ½) = 2/π → 4/π².
    assert fam.noise_sim_aou_mean(3) == sp.Rational(4, 9)
    assert sp.simplify(fam.noise_sim_aou_mean(2) - 4 / sp.pi**2) == 0
    assert float(fam.noise_sim_aou_mean(10_000)) == pytest.approx(0.5 - 1 / 80_000, abs=1e-8)


def test_noise_simulation_at_d_2_matches_4_over_pi_squared():
    values = critiques.noise_sim_aou(2, 20_000, seed=3)
    se = values.std() / np.sqrt(values.size)
    assert abs(values.mean() - 4 / np.pi**2) < 4 * se


def test_noisy_copies_closed_form_by_hand():
    # σ = √3: √(1 + σ²) = 2 → ½(1 − ½) = ¼; σ → ∞ gives ½ (pure noise), σ → 0 gives 0
    sigma = sp.Symbol("sigma", positive=True)
    assert fam.noisy_copies_limit(sp.sqrt(3)) == sp.Rational(1, 4)
    assert sp.limit(fam.noisy_copies_limit(sigma), sigma, sp.oo) == sp.Rational(1, 2)
    assert fam.noisy_copies_limit(sp.Integer(0)) == 0


def _stack_by_loops(tokens, W, layers, causal):
    x = [row.astype(float) for row in tokens]
    for _ in range(layers):
        new = []
        for t in range(len(x)):
            seen = range(t + 1) if causal else range(len(x))
            scores = np.array([x[t] @ W @ x[s] for s in seen])
            weights = np.exp(scores - scores.max()) / np.exp(scores - scores.max()).sum()
            new.append(x[t] + sum(w * x[s] for w, s in zip(weights, seen)))
        x = new
    return x[-1]


@pytest.mark.parametrize("causal", [True, False])
def test_causal_softmax_stack_matches_loops(causal):
    rng = np.random.default_rng(1)
    tokens, W = rng.standard_normal((4, 3)), rng.standard_normal((3, 3))
    np.testing.assert_allclose(
        critiques.causal_softmax_stack(tokens, W, 2, causal=causal),
        _stack_by_loops(tokens, W, 2, causal),
        atol=1e-12,
    )


def test_one_causal_layer_ignores_the_order_of_the_demonstrations_two_do_not():
    """d = 1, demos (1, 0), query 1, W = 1. One layer: the query attends to the whole set. Two layers:
    causal token 0 sees only itself, so swapping the demonstrations changes what the query reads."""
    demos, query, W = np.array([[1.0], [0.0]]), np.array([[1.0]]), np.array([[1.0]])
    for layers, invariant in ((1, True), (2, False)):
        a = critiques.causal_softmax_stack(np.vstack([demos, query]), W, layers, causal=True)
        b = critiques.causal_softmax_stack(np.vstack([demos[::-1], query]), W, layers, causal=True)
        assert np.allclose(a, b, atol=1e-12) is invariant


def test_full_batch_gd_one_step_by_hand():
    # W0 = 0, x = (1, 2), y = 3: gradient −y xᵀ = (−3, −6); lr = 0.1 → W = (0.3, 0.6)
    W = critiques.full_batch_gd(np.array([[1.0, 2.0]]), np.array([[3.0]]), np.zeros((1, 2)), 0.1, 1)
    np.testing.assert_allclose(W, [[0.3, 0.6]], atol=1e-15)


def test_the_symbolic_order_check_can_fail_for_sequential_updates():
    """Per-demonstration (online) GD depends on the order: with scalars w, x_i, y_i the swap leaves a residual."""
    w, gamma, a, b = sp.symbols("w gamma a b")

    def online(xs, ys):
        v = w
        for x, y in zip(xs, ys):
            v = v - gamma * (v * x - y) * x
        return v

    residual = sp.factor(sp.expand(online([a, b], [1, 2]) - online([b, a], [2, 1])))
    assert residual == a * b * gamma**2 * (2 * a - b)  # by hand: the two orders differ at second order in γ
    assert all(is_zero(r) is True for r in fam.gd_order_residuals())


@pytest.mark.parametrize(
    "call, match",
    [
        (
            lambda: finetune.delta_w_ft(
                np.ones((2, 3)),
                np.ones((2, 2)),
                np.ones((1, 3)),
                np.ones((1, 2)),
                np.ones((1, 2)),
                0.1,
                train_keys=False,
            ),
            "W_K",
        ),
        (
            lambda: finetune.finetune_step(
                np.ones((2, 2)),
                np.ones((2, 2)),
                np.ones((1, 2)),
                np.ones((1, 2)),
                np.ones((1, 2)),
                -1.0,
                train_keys=False,
            ),
            "lr",
        ),
        (lambda: critiques.noise_sim_aou(1, 10, 0), "d must be at least 2"),
        (lambda: critiques.noisy_copies_sim_aou(4, 1e-300, 3, 0), "sigma"),
        (
            lambda: critiques.causal_softmax_stack(np.ones((2, 2)), np.ones((3, 3)), 1, causal=True),
            "W must be square",
        ),
        (
            lambda: critiques.full_batch_gd(np.ones((2, 2)), np.ones((3, 1)), np.ones((1, 2)), 0.1, 1),
            "Y must have",
        ),
        (lambda: critiques.full_batch_gd(np.ones((2, 2)), np.ones((2, 1)), np.ones((1, 2)), 1e200, 3), "lr"),
    ],
)
def test_bad_input_names_the_argument(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_gd_attention_predicts_one_gd_step_in_the_label_slot():
    """ICL output's label slot, by loops over the tokens: η* Σ_t y_t x_tᵀ x_q over demonstrations and text tokens
    (the text's 'labels' are its last Gaussian coordinate), η* = 1/(n + d + 1)."""
    rng = np.random.default_rng(4)
    d, n = 3, 5
    demos, text, q, _ = critiques.regression_prompt(rng, d, n, 2)
    assert q[d] == 0.0 and demos.shape == (n, d + 1) and text.shape == (2, d + 1)
    W_V, W_K = critiques.gd_attention(d, n)
    _, prediction = critiques.model_sim_aou(W_V, W_K, demos, text, q, 0.1)
    by_hand = sum(tok[d] * (tok[:d] @ q[:d]) for tok in (*demos, *text)) / (n + d + 1)
    assert prediction == pytest.approx(by_hand, rel=1e-12)


def test_trained_model_learns_in_context_and_scores_plus_or_minus_one():
    """The GD construction's ICL error: E(x_qᵀ(w − ηXᵀy))² = d − η n d at η* (best_gd_rate's docstring) plus the
    text tokens' term η² n_text d (independent y_t, x_t ~ N(0, 1)): 4 − 32/13 + 12/169 = 1.6095 at d = 4, n = 8,
    n_text = 3. Its updates both lie along the label slot, so its SimAOU is ±1 on every prompt; not so untrained."""
    runs = critiques.untrained_vs_trained(4, 8, 3, 1000, 2, 0.1)
    errors = runs["trained_error"]
    assert abs(errors.mean() - (4 - 32 / 13 + 12 / 169)) < 4 * errors.std() / np.sqrt(errors.size)
    assert runs["untrained_error"].mean() > 4  # worse than predicting 0
    np.testing.assert_allclose(np.abs(runs["trained"]), 1.0, atol=1e-12)
    assert np.mean(np.abs(np.abs(runs["untrained"]) - 1) > 1e-3) > 0.9


def test_untrained_vs_trained_bad_input():
    with pytest.raises(ValueError, match="samples must be a positive integer"):
        critiques.untrained_vs_trained(4, 8, 3, 0, 0, 0.1)
    with pytest.raises(ValueError, match="lr must be positive"):
        critiques.untrained_vs_trained(4, 8, 3, 10, 0, -0.1)
