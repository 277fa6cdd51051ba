"""numerics.dual.attention against independent loops over tokens (Dai et al.'s sums written out)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings

from icl_verify.families.dual import icl_cases, momentum_cases
from icl_verify.numerics.dual import attention

FAST = settings(max_examples=40, deadline=None)


@FAST
@given(icl_cases())
def test_linear_and_softmax_attention_match_loops(case):
    tokens = np.vstack([case["demos"], case["text"]])
    values, keys, q = tokens @ case["W_V"].T, tokens @ case["W_K"].T, case["q"]
    linear = sum(v * (k @ q) for v, k in zip(values, keys))
    scores = np.array([k @ q for k in keys])
    weights = np.exp(scores - scores.max()) / np.exp(scores - scores.max()).sum()
    soft = sum(w * v for w, v in zip(weights, values))
    np.testing.assert_allclose(attention.linear_attention(values, keys, q), linear, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(attention.softmax_attention(values, keys, q), soft, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(
        attention.icl_attention(case["W_V"], case["W_K"], case["demos"], case["text"], q, use_softmax=True),
        soft,
        rtol=1e-10,
        atol=1e-12,
    )
    assert attention.demo_mass(case["W_K"], case["demos"], case["text"], q) == pytest.approx(
        weights[: case["n_demo"]].sum(), rel=1e-12, abs=1e-15
    )


@FAST
@given(icl_cases())
def test_delta_w_icl_is_a_sum_of_outer_products(case):
    want = sum(np.outer(case["W_V"] @ x, case["W_K"] @ x) for x in case["demos"])
    np.testing.assert_allclose(
        attention.delta_w_icl(case["W_V"], case["W_K"], case["demos"]), want, rtol=1e-12, atol=1e-12
    )


@FAST
@given(momentum_cases())
def test_momentum_explicit_matches_double_loop(case):
    v, eta = case["values"], case["eta"]
    want = np.zeros_like(v)
    for t in range(v.shape[0]):
        for i in range(t):
            want[t] += eta ** (t - i) * v[i]
    np.testing.assert_allclose(attention.momentum_explicit(v, eta), want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: attention.linear_attention(np.ones((3, 2)), np.ones((2, 2)), np.ones(2)), "keys"),
        (lambda: attention.linear_attention(np.ones((3, 2)), np.ones((3, 2)), np.ones(3)), "q"),
        (lambda: attention.softmax_attention(np.ones((3, 2)), np.ones((3, 2)), np.array([np.nan, 0.0])), "q"),
        (
            lambda: attention.icl_attention(
                np.ones((2, 3)), np.ones((2, 2)), np.ones((1, 2)), np.ones((1, 2)), np.ones(2), use_softmax=False
            ),
            "W_V",
        ),
        (
            lambda: attention.icl_attention(
                np.ones((2, 2)), np.ones((2, 2)), np.ones((1, 2)), np.ones((1, 3)), np.ones(2), use_softmax=False
            ),
            "text",
        ),
        (lambda: attention.momentum_ema(np.ones(3), 0.5), "values"),
        (lambda: attention.dual_form_prediction(np.ones((2, 3)), np.ones((1, 2)), np.ones((1, 3)), np.ones(2)), "x"),
    ],
)
def test_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()
