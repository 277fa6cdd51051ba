"""numerics.lsa.layers against independent per-token, per-head loops, and its input validation."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from icl_verify.maths.strategies import dims, matrices
from icl_verify.numerics.lsa import layers as lsa

FAST = settings(max_examples=40, deadline=None)


@st.composite
def layer_cases(draw):
    H, D, Dk, Dv, T = draw(dims(1, 3)), draw(dims(1, 4)), draw(dims(1, 3)), draw(dims(1, 3)), draw(dims(1, 5))
    B = draw(dims(1, 2))
    params = lsa.LSAParams(
        P=np.stack([draw(matrices(D, Dv)) for _ in range(H)]),
        W_V=np.stack([draw(matrices(Dv, D)) for _ in range(H)]),
        W_K=np.stack([draw(matrices(Dk, D)) for _ in range(H)]),
        W_Q=np.stack([draw(matrices(Dk, D)) for _ in range(H)]),
    )
    tokens = np.stack([draw(matrices(T, D)) for _ in range(B)])
    return params, tokens, draw(dims(1, T)), draw(st.booleans())


def _loop_layer(params, tokens, n, include_query):
    """e_j + Σ_h P_h W_V,h (Σ_i e_i e_iᵀ) W_K,hᵀ W_Q,h e_j, written token by token (paper eq. 8)."""
    out = tokens.copy()
    for b in range(tokens.shape[0]):
        keys = tokens[b] if include_query else tokens[b, :n]
        C = sum(np.outer(e, e) for e in keys)
        for j, e in enumerate(tokens[b]):
            for h in range(params.P.shape[0]):
                out[b, j] += params.P[h] @ params.W_V[h] @ C @ params.W_K[h].T @ params.W_Q[h] @ e
    return out


@FAST
@given(layer_cases())
def test_layer_matches_token_loop(case):
    params, tokens, n, include_query = case
    got = lsa.lsa_layer(tokens, params, n, include_query=include_query)
    want = _loop_layer(params, tokens, n, include_query)
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-9)


@FAST
@given(layer_cases(), st.floats(-2, 2))
def test_damping_scales_the_update(case, lam):
    params, tokens, n, _ = case
    got = lsa.lsa_layer(tokens, params, n, damping=lam)
    want = tokens + lam * (_loop_layer(params, tokens, n, False) - tokens)
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-9)


@FAST
@given(dims(1, 3), dims(1, 4), dims(1, 4), dims(1, 4), st.data())
def test_stack_products_are_the_per_matrix_products(b, rows, inner, cols, data):
    """stack_times and times_stack (one matrix product over the stack) against a product per matrix."""
    a = np.stack([data.draw(matrices(rows, inner)) for _ in range(b)])
    w, u = data.draw(matrices(inner, cols)), data.draw(matrices(cols, rows))
    np.testing.assert_allclose(lsa.stack_times(a, w), np.stack([m @ w for m in a]), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(lsa.times_stack(u, a), np.stack([u @ m for m in a]), rtol=1e-12, atol=1e-12)


def test_stack_and_recurrent_apply_layers_in_order():
    rng = np.random.default_rng(0)
    p1 = lsa.LSAParams(*(rng.standard_normal((1, 3, 3)) * 0.3 for _ in range(4)))
    p2 = lsa.LSAParams(*(rng.standard_normal((2, 3, 3)) * 0.3 for _ in range(4)))
    tokens = rng.standard_normal((2, 4, 3))
    two = lsa.lsa_stack(tokens, [p1, p2], 3)
    np.testing.assert_allclose(two, _loop_layer(p2, _loop_layer(p1, tokens, 3, False), 3, False), rtol=1e-12)
    three = lsa.lsa_recurrent(tokens, p1, 3, 3, damping=0.5)
    want = tokens
    for _ in range(3):
        want = want + 0.5 * (_loop_layer(p1, want, 3, False) - want)
    np.testing.assert_allclose(three, want, rtol=1e-12)


def test_theta_gd_matrices_are_those_of_proposition_1():
    W0 = np.array([[2.0, -1.0]])
    p = lsa.theta_gd(nx=2, ny=1, eta=0.3, n_context=5, w0=W0)
    assert p.P.shape == (1, 3, 3)
    np.testing.assert_array_equal(p.W_K[0], np.diag([1.0, 1.0, 0.0]))
    np.testing.assert_array_equal(p.W_Q[0], p.W_K[0])
    np.testing.assert_array_equal(p.W_V[0], [[0, 0, 0], [0, 0, 0], [2.0, -1.0, -1.0]])
    np.testing.assert_allclose(p.P[0], 0.3 / 5 * np.eye(3))


def test_theta_gdpp_matrices_are_those_of_eq_23():
    p = lsa.theta_gdpp(nx=2, ny=1, eta=0.5, gamma=0.25, n_context=2)
    np.testing.assert_array_equal(p.W_V[0], [[1, 0, 0], [0, 1, 0], [0, 0, -1]])
    np.testing.assert_allclose(p.P[0], np.diag([-0.25, -0.25, 0.25]))


def test_make_tokens_and_readout():
    X, Y, xq = np.ones((1, 2, 2)), np.full((1, 2, 1), 3.0), np.array([[[1.0, 2.0]]])
    W0 = np.array([[1.0, 1.0]])
    tokens = lsa.make_tokens(X, Y, xq, W0)
    np.testing.assert_array_equal(tokens[0], [[1, 1, 3], [1, 1, 3], [1, 2, -3]])
    np.testing.assert_array_equal(lsa.readout(tokens, ny=1, n_context=2), [[[3.0]]])


def test_value_and_key_query_maps():
    rng = np.random.default_rng(1)
    p = lsa.LSAParams(*(rng.standard_normal((2, 3, 3)) for _ in range(4)))
    np.testing.assert_allclose(p.value_map()[1], p.P[1] @ p.W_V[1])
    np.testing.assert_allclose(p.key_query_map()[1], p.W_K[1].T @ p.W_Q[1])


def test_residual_mlp():
    x = np.array([[1.0, -1.0]])
    W1, b1, W2 = np.array([[1.0, 0.0]]), np.array([0.5]), np.array([[2.0], [0.0]])
    np.testing.assert_allclose(lsa.residual_mlp(x, W1, b1, W2), [[1 + 2 * np.tanh(1.5), -1.0]])


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: lsa.theta_gd(0, 1, 0.1, 3), "nx"),
        (lambda: lsa.theta_gd(1, 1, 0.1, -2), "n_context"),
        (lambda: lsa.theta_gd(1, 1, float("nan"), 2), "eta"),
        (lambda: lsa.theta_gd(2, 1, 0.1, 2, w0=np.ones((2, 2))), "w0"),
        (lambda: lsa.theta_gdpp(1, 1, 0.1, float("inf"), 2), "gamma"),
        (lambda: lsa.LSAParams(np.ones((1, 2, 2)), np.ones((1, 3, 2)), np.ones((1, 2, 2)), np.ones((1, 2, 2))), "W_V"),
        (lambda: lsa.LSAParams(np.ones((2, 2)), np.ones((1, 2, 2)), np.ones((1, 2, 2)), np.ones((1, 2, 2))), "P"),
        (lambda: lsa.lsa_layer(np.ones((1, 3, 4)), lsa.theta_gd(1, 1, 0.1, 2), 2), "tokens"),
        (lambda: lsa.lsa_layer(np.ones((1, 3, 2)), lsa.theta_gd(1, 1, 0.1, 2), 4), "n_context"),
        (lambda: lsa.lsa_layer(np.full((1, 3, 2), np.nan), lsa.theta_gd(1, 1, 0.1, 2), 2), "tokens"),
        (lambda: lsa.lsa_stack(np.ones((1, 3, 2)), [], 2), "layers"),
        (lambda: lsa.make_tokens(np.ones((1, 2, 2)), np.ones((1, 3, 1)), np.ones((1, 1, 2))), "Y"),
        (lambda: lsa.make_tokens(np.ones((1, 2, 2)), np.ones((1, 2, 1)), np.ones((1, 1, 3))), "x_q"),
    ],
)
def test_bad_input_raises_value_error_naming_the_argument(call, match):
    with pytest.raises(ValueError, match=match):
        call()
