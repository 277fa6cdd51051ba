"""The copy layer and the two-head construction (numerics.lsa.constructions) against hand-written
expectations and independent loop implementations of attention."""

from __future__ import annotations

import math

import numpy as np
import pytest

from icl_verify.families import lsa_constructions as fam
from icl_verify.maths.symbolic import is_zero
from icl_verify.numerics.lsa import constructions as con


def _task(seed: int = 0, n: int = 3, nx: int = 2, ny: int = 1) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return rng.standard_normal((n, nx)), rng.standard_normal((n, ny)), rng.standard_normal(nx)


def test_interleaved_tokens_layout_written_out():
    tokens = con.interleaved_tokens([[1.0, 2.0]], [[3.0]], [4.0, 5.0])
    expected = np.array(
        [
            [1, 2, 0, 1, 0, 0],  # x_1 with code p_1
            [0, 0, 3, 0, 1, 0],  # y_1 with code p_2
            [4, 5, 0, 0, 0, 1],  # x_q with code p_3
        ],
        dtype=float,
    )
    np.testing.assert_array_equal(tokens, expected)


def test_copy_partner_swaps_pairs_and_fixes_the_query():
    np.testing.assert_array_equal(con.copy_partner(7), [1, 0, 3, 2, 5, 4, 6])
    with pytest.raises(ValueError, match="n_tokens must be odd"):
        con.copy_partner(6)


def _paired_by_hand(X: np.ndarray, Y: np.ndarray, x_q: np.ndarray) -> np.ndarray:
    """The paired sequence written token by token: (x_j, y_j, p), (0, y_j, p), (x_q, 0, p)."""
    n, nx, ny = X.shape[0], X.shape[1], Y.shape[1]
    T = 2 * n + 1
    rows = []
    for t in range(T):
        content = np.zeros(nx + ny)
        if t == T - 1:
            content[:nx] = x_q
        elif t % 2 == 0:
            content[:nx], content[nx:] = X[t // 2], Y[t // 2]
        else:
            content[nx:] = Y[t // 2]
        rows.append(np.concatenate([content, np.eye(T)[t]]))
    return np.array(rows)


@pytest.mark.parametrize("one_way", [False, True])
@pytest.mark.parametrize(("n", "nx", "ny"), [(1, 1, 1), (3, 2, 1), (4, 1, 3)])
def test_linear_copy_layer_pairs_every_x_token_with_its_y(n, nx, ny, one_way):
    X, Y, x_q = _task(n, n, nx, ny)
    out = con.copy_layer(con.interleaved_tokens(X, Y, x_q), nx, ny, one_way=one_way)
    np.testing.assert_allclose(out, _paired_by_hand(X, Y, x_q), rtol=0, atol=1e-14)


def _softmax_layer_by_loops(tokens: np.ndarray, nx: int, ny: int, beta: float, one_way: bool) -> np.ndarray:
    """Softmax attention over all tokens with scores β·[s is t's partner], by explicit loops and math.exp."""
    T = tokens.shape[0]
    partner = {t: t + 1 if t % 2 == 0 else t - 1 for t in range(T - 1)} | {T - 1: T - 1}
    out = tokens.copy()
    for t in range(T):
        has_partner = t % 2 == 0 and t < T - 1 if one_way else True
        logits = [beta if has_partner and s == partner[t] else 0.0 for s in range(T)]
        z = sum(math.exp(v) for v in logits)
        for s in range(T):
            out[t, nx : nx + ny] += math.exp(logits[s]) / z * tokens[s, nx : nx + ny]
    return out


@pytest.mark.parametrize("one_way", [False, True])
@pytest.mark.parametrize("beta", [0.5, 3.0, 9.0])
def test_softmax_copy_layer_matches_a_loop_implementation(beta, one_way):
    X, Y, x_q = _task(1, 3, 2, 2)
    tokens = con.interleaved_tokens(X, Y, x_q)
    expected = _softmax_layer_by_loops(tokens, 2, 2, beta, one_way)
    np.testing.assert_allclose(con.copy_layer(tokens, 2, 2, scale=beta, one_way=one_way), expected, atol=1e-13)


def test_one_way_softmax_leaves_the_uniform_average_on_the_y_tokens_at_any_scale():
    X, Y, x_q = _task(2, 4, 2, 1)
    tokens = con.interleaved_tokens(X, Y, x_q)
    miss = con.copy_layer(tokens, 2, 1, scale=30.0, one_way=True) - _paired_by_hand(X, Y, x_q)
    # softmax of an all-zero row is 1/T on every token: each y-token and the query gain Σ_j y_j / T
    np.testing.assert_allclose(miss[1::2, 2], Y.sum() / 9, rtol=1e-12)
    np.testing.assert_allclose(miss[0:8:2], 0.0, atol=1e-11)  # the x-tokens: e^{−30}-small


def test_softmax_copy_error_times_normaliser_is_independent_of_beta():
    # Δ_t (e^β + T − 1) is the same at every β (the exact error form of the family docstring)
    X, Y, x_q = _task(3, 2, 1, 1)
    tokens = con.interleaved_tokens(X, Y, x_q)
    exact = con.copy_layer(tokens, 1, 1)
    scaled = [(con.copy_layer(tokens, 1, 1, scale=b) - exact) * (math.exp(b) + 4) for b in (1.0, 4.0, 7.0)]
    np.testing.assert_allclose(scaled[0], scaled[1], atol=1e-10)
    np.testing.assert_allclose(scaled[0], scaled[2], atol=1e-9)


def _head_task(seed: int = 4, n: int = 5, d: int = 3, dv: int = 2) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    return rng.uniform(-1, 1, (n, d)), rng.standard_normal((dv, d)), rng.standard_normal((d, d)), rng.uniform(-1, 1, d)


def test_lsa_and_centred_lsa_match_their_matrix_forms():
    E, W_V, M, e = _head_task()
    n = E.shape[0]
    np.testing.assert_allclose(con.lsa_output(E, W_V, M, e), W_V @ E.T @ E @ M @ e, rtol=1e-12)
    centring = np.eye(n) - np.ones((n, n)) / n
    np.testing.assert_allclose(con.centred_lsa(E, W_V, M, e), W_V @ E.T @ centring @ E @ M @ e, rtol=1e-12)


def test_two_head_difference_matches_two_loop_heads():
    E, W_V, M, e = _head_task()
    eps, n = 0.3, E.shape[0]

    def head(sign: float) -> np.ndarray:
        logits = [sign * eps * float(E[i] @ M @ e) for i in range(n)]
        z = sum(math.exp(v) for v in logits)
        return sum(math.exp(logits[i]) / z * (W_V @ E[i]) for i in range(n))

    expected = n * (head(1.0) - head(-1.0)) / (2 * eps)
    np.testing.assert_allclose(con.two_head_difference(E, W_V, M, e, eps), expected, rtol=1e-12)


def test_two_head_error_quarters_when_eps_halves():
    # error = c ε² + O(ε⁴): the ratio at ε and ε/2 is 4 (1 + O(ε²))
    E, W_V, M, e = _head_task()
    target = con.centred_lsa(E, W_V, M, e)
    err = [np.linalg.norm(con.two_head_difference(E, W_V, M, e, eps) - target) for eps in (1e-2, 5e-3)]
    assert err[0] / err[1] == pytest.approx(4.0, rel=1e-3)
    # against the uncentred LSA output the miss is ā Σ_i v_i, not small
    miss = con.lsa_output(E, W_V, M, e) - target
    scores = E @ M @ e
    np.testing.assert_allclose(miss, scores.mean() * (E @ W_V.T).sum(axis=0), rtol=1e-12)


def test_symbolic_copy_residuals_vanish():
    assert is_zero(fam.sorted_copy_residual()) is True  # symbolic N, Nx, Ny, tokens sorted
    assert all(r.expand().is_zero_matrix for r in fam.linear_copy_residual(2, 1, 2))  # interleaved, exact sizes


def test_bad_input_is_named():
    tokens = con.interleaved_tokens(*_task())
    with pytest.raises(ValueError, match="tokens must have width"):
        con.copy_layer(tokens, 1, 1)
    with pytest.raises(ValueError, match="scale must be positive"):
        con.copy_layer(tokens, 2, 1, scale=-1.0)
    with pytest.raises(ValueError, match="eps must be positive"):
        con.two_head_difference(*_head_task(), 0.0)
    with pytest.raises(ValueError, match="query must have"):
        E, W_V, M, _ = _head_task()
        con.lsa_output(E, W_V, M, np.ones(4))
