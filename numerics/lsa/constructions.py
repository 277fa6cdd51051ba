"""Attention constructions around the LSA = GD result (von Oswald et al., ICML 2023).

Tokens are **rows** here (the paper writes columns); a matrix M acts on a token e as ``M @ e``.

* The copy layer of Proposition 3: interleaved tokens x_1, y_1, …, x_N, y_N, x_q with one-hot
  positional codes are turned by one attention layer into the paired tokens (x_j, y_j) that
  Proposition 1 reads. :func:`interleaved_tokens` builds the sequence, :func:`copy_weights` the
  layer's value matrix and key–query product, :func:`copy_layer` applies it with linear attention
  or with softmax attention at logit scale β.
* Two softmax heads with key–query products ±ε M (:func:`two_head_difference`) against the linear
  attention they approximate (:func:`lsa_output`, :func:`centred_lsa`).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import softmax

from icl_verify.errors import InvalidArgument
from icl_verify.numerics.shared.checks import finite_array, finite_result, finite_scalar, positive_int, same_size
from icl_verify.numerics.shared.fuzz import Fuzz


def interleaved_tokens(X: ArrayLike, Y: ArrayLike, x_q: ArrayLike) -> NDArray[np.float64]:
    """The sequence x_1, y_1, …, x_N, y_N, x_q as rows (x_j, 0, p_t), (0, y_j, p_t), (x_q, 0, p_T).

    ``X`` is N × Nx, ``Y`` is N × Ny, ``x_q`` has Nx entries; p_t is the one-hot code of position t
    among the T = 2N + 1 tokens, so a token has D = Nx + Ny + T entries.
    """
    X = finite_array("X", X, ndim=2, nonempty=True)
    Y = finite_array("Y", Y, ndim=2, nonempty=True)
    x_q = finite_array("x_q", x_q, ndim=1, nonempty=True)
    same_size("Y", Y.shape[0], X.shape[0], "number of rows of X")
    same_size("x_q", x_q.shape[0], X.shape[1], "the width of X")
    n, nx, ny = X.shape[0], X.shape[1], Y.shape[1]
    T = 2 * n + 1
    content = np.zeros((T, nx + ny))
    content[0 : 2 * n : 2, :nx] = X
    content[1 : 2 * n : 2, nx:] = Y
    content[-1, :nx] = x_q
    return np.hstack([content, np.eye(T)])


def copy_partner(n_tokens: int) -> NDArray[np.intp]:
    """σ(t): the position token t attends to — x_j ↔ y_j swap places, the last token (x_q) attends to itself."""
    T = positive_int("n_tokens", n_tokens)
    if T % 2 == 0:
        raise InvalidArgument(f"n_tokens must be odd (2N + 1 tokens: N pairs and the query), got {T}")
    partner = np.arange(T)
    partner[0 : T - 1 : 2], partner[1 : T - 1 : 2] = np.arange(1, T - 1, 2), np.arange(0, T - 1, 2)
    return partner


def copy_weights(
    nx: int, ny: int, n_tokens: int, *, one_way: bool = False
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """(W_V, M) of the copy layer, D × D each with D = Nx + Ny + T.

    W_V keeps the y-block of a token and zeroes the rest: W_V e = (0, y, 0). M = W_Kᵀ W_Q reads
    the positional codes only: e_sᵀ M e_t = p_sᵀ A p_t with A = Σ_t p_{σ(t)} p_tᵀ, which is 1 when
    s = σ(t) and 0 otherwise (:func:`copy_partner`). ``one_way=True`` keeps only the x-tokens'
    partners, A = Σ_j p_{2j} p_{2j−1}ᵀ: the y-tokens and the query score 0 against every token.
    """
    nx, ny = positive_int("nx", nx), positive_int("ny", ny)
    partner = copy_partner(n_tokens)
    T, c = partner.size, nx + ny
    W_V, M = np.zeros((c + T, c + T)), np.zeros((c + T, c + T))
    W_V[nx:c, nx:c] = np.eye(ny)
    attending = np.arange(0, T - 1, 2) if one_way else np.arange(T)
    M[c + partner[attending], c + attending] = 1.0  # M[p_s, p_t] = 1 iff s = σ(t)
    return W_V, M


def copy_layer(
    tokens: ArrayLike, nx: int, ny: int, scale: float | None = None, *, one_way: bool = False
) -> NDArray[np.float64]:
    """One residual attention layer e_t ↦ e_t + Σ_s α_{st} W_V e_s with the copy weights (:func:`copy_weights`).

    Linear attention (``scale=None``): α_{st} = e_sᵀ M e_t. Softmax attention: α_{·t} =
    softmax_s(β e_sᵀ M e_t) over all T tokens, β = ``scale``.
    """
    tokens = finite_array("tokens", tokens, ndim=2, nonempty=True)
    nx, ny = positive_int("nx", nx), positive_int("ny", ny)
    T = tokens.shape[0]
    same_size("tokens", tokens.shape[1], nx + ny + T, "width Nx + Ny + (number of tokens)")
    W_V, M = copy_weights(nx, ny, T, one_way=one_way)
    with np.errstate(over="ignore", invalid="ignore"):
        scores = tokens @ M @ tokens.T  # scores[s, t] = e_sᵀ M e_t
        if scale is not None:
            scores = softmax(finite_scalar("scale", scale, positive=True) * scores, axis=0)
        out = tokens + scores.T @ (tokens @ W_V.T)
    return finite_result(out, "tokens or scale overflow float64 in the copy layer (entries too large)")


def _heads_inputs(
    context: ArrayLike, W_V: ArrayLike, M: ArrayLike, query: ArrayLike
) -> tuple[NDArray[np.float64], ...]:
    context = finite_array("context", context, ndim=2, nonempty=True)
    W_V = finite_array("W_V", W_V, ndim=2, nonempty=True)
    M = finite_array("M", M, ndim=2, nonempty=True)
    query = finite_array("query", query, ndim=1, nonempty=True)
    D = context.shape[1]
    same_size("W_V", W_V.shape[1], D, "the token width (axis 1 of context)")
    same_size("M", M.shape[0], D, "the token width (axis 1 of context)")
    same_size("M", M.shape[1], D, "the token width (axis 1 of context)")
    same_size("query", query.shape[0], D, "the token width (axis 1 of context)")
    return context, W_V, M, query


def _scores_and_values(
    context: ArrayLike, W_V: ArrayLike, M: ArrayLike, query: ArrayLike
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """a_i = e_iᵀ M e and v_i = W_V e_i, finite."""
    context, W_V, M, query = _heads_inputs(context, W_V, M, query)
    with np.errstate(over="ignore", invalid="ignore"):
        scores, values = context @ (M @ query), context @ W_V.T
    message = "context, W_V, M and query overflow float64 in the scores or values (entries too large)"
    return finite_result((scores, values), message)


def lsa_output(context: ArrayLike, W_V: ArrayLike, M: ArrayLike, query: ArrayLike) -> NDArray[np.float64]:
    """Linear self-attention Σ_i (e_iᵀ M e) W_V e_i = W_V Eᵀ E M e (rows; von Oswald et al. eq. 8, P = I)."""
    scores, values = _scores_and_values(context, W_V, M, query)
    with np.errstate(over="ignore", invalid="ignore"):
        return finite_result(
            values.T @ scores, "context, W_V, M and query overflow float64 in the LSA output (entries too large)"
        )


def centred_lsa(context: ArrayLike, W_V: ArrayLike, M: ArrayLike, query: ArrayLike) -> NDArray[np.float64]:
    """Σ_i (a_i − ā) W_V e_i, a_i = e_iᵀ M e: linear attention with the scores' mean over the context removed."""
    scores, values = _scores_and_values(context, W_V, M, query)
    with np.errstate(over="ignore", invalid="ignore"):
        out = values.T @ (scores - np.mean(scores))
    return finite_result(
        out, "context, W_V, M and query overflow float64 in the centred LSA output (entries too large)"
    )


def two_head_difference(
    context: ArrayLike, W_V: ArrayLike, M: ArrayLike, query: ArrayLike, eps: float
) -> NDArray[np.float64]:
    """N (h(ε) − h(−ε)) / (2ε), h(±ε) = Σ_i softmax_i(±ε e_iᵀ M e) W_V e_i: two softmax heads subtracted.

    The scores are shifted by their maximum inside SciPy's softmax, so large logits never overflow.
    """
    eps = finite_scalar("eps", eps, positive=True)
    scores, values = _scores_and_values(context, W_V, M, query)
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        heads = [values.T @ softmax(sign * eps * scores) for sign in (1.0, -1.0)]
        out = scores.size * (heads[0] - heads[1]) / (2 * eps)
    return finite_result(out, "context, W_V, M, query or eps overflow float64 in the two heads (entries too large)")


# ---------------------------------------------------------------------------------------------
# Examples for the bad-input fuzzer (numerics.shared.fuzz)


def _example_pairs() -> dict[str, NDArray[np.float64]]:
    r = np.random.default_rng(6)
    return {"X": r.standard_normal((3, 2)), "Y": r.standard_normal((3, 1)), "x_q": r.standard_normal(2)}


def _example_heads() -> dict[str, NDArray[np.float64]]:
    r = np.random.default_rng(7)
    return {
        "context": r.standard_normal((4, 3)),
        "W_V": r.standard_normal((2, 3)),
        "M": r.standard_normal((3, 3)),
        "query": r.standard_normal(3),
    }


FUZZ = {
    "interleaved_tokens": Fuzz(_example_pairs),
    "copy_partner": Fuzz(lambda: {"n_tokens": 7}),
    "copy_weights": Fuzz(lambda: {"nx": 2, "ny": 1, "n_tokens": 7}),
    "copy_layer": Fuzz(lambda: {"tokens": interleaved_tokens(**_example_pairs()), "nx": 2, "ny": 1, "scale": 10.0}),
    "lsa_output": Fuzz(_example_heads),
    "centred_lsa": Fuzz(_example_heads),
    "two_head_difference": Fuzz(lambda: _example_heads() | {"eps": 0.01}),
}
