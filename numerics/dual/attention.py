"""Attention as the dual form of gradient descent (Dai et al., ACL Findings 2023, §3).

Vectors are rows here (the paper writes columns): ``demos`` is X' with one demonstration
token per row, ``text`` is X (the query text's tokens), ``q`` the attention query (already
projected by W_Q). ``W_V`` and ``W_K`` act on a token ``x`` as ``W @ x``.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import softmax

from icl_verify.errors import InvalidArgument
from icl_verify.numerics.shared.checks import finite_array, finite_result, finite_scalar, same_size
from icl_verify.numerics.shared.fuzz import Fuzz


def _projections(
    W_V: ArrayLike, W_K: ArrayLike, tokens: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    W_V = finite_array("W_V", W_V, ndim=2, nonempty=True)
    W_K = finite_array("W_K", W_K, ndim=2, nonempty=True)
    same_size("W_V", W_V.shape[1], tokens.shape[-1], "input width (axis 1)")
    same_size("W_K", W_K.shape[1], tokens.shape[-1], "input width (axis 1)")
    return tokens @ W_V.T, tokens @ W_K.T


def _tokens(demos: ArrayLike, text: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    demos = finite_array("demos", demos, ndim=2)
    text = finite_array("text", text, ndim=2)
    same_size("text", text.shape[1], demos.shape[1], "token width (axis 1) of demos")
    return demos, text


def _attention_inputs(
    values: ArrayLike, keys: ArrayLike, q: ArrayLike
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    values = finite_array("values", values, ndim=2)
    keys = finite_array("keys", keys, ndim=2)
    q = finite_array("q", q, ndim=1)
    same_size("keys", keys.shape[0], values.shape[0], "number of rows of values")
    same_size("q", q.shape[0], keys.shape[1], "key width")
    return values, keys, q


def _scores(keys: NDArray[np.float64], q: NDArray[np.float64], names: str) -> NDArray[np.float64]:
    """The logits k_iᵀ q, finite. SciPy's softmax subtracts the largest logit (the stable log-sum-exp form),
    so finite logits never overflow; only logits beyond float64 are refused, naming their arguments."""
    with np.errstate(over="ignore", invalid="ignore"):
        scores = keys @ q
    if not np.all(np.isfinite(scores)):
        raise InvalidArgument(f"{names} give attention logits k·q beyond float64 (entries too large)")
    return scores


def _finite_output(out: NDArray[np.float64], names: str) -> NDArray[np.float64]:
    return finite_result(out, f"{names} overflow float64 in the attention output (entries too large)")


def linear_attention(values: ArrayLike, keys: ArrayLike, q: ArrayLike) -> NDArray[np.float64]:
    """LinearAttn(V, K, q) = Σ_i v_i (k_iᵀ q) (Dai et al. eq. 4–5), for a single query vector."""
    values, keys, q = _attention_inputs(values, keys, q)
    with np.errstate(over="ignore", invalid="ignore"):
        return _finite_output(values.T @ (keys @ q), "values, keys and q")


def softmax_attention(values: ArrayLike, keys: ArrayLike, q: ArrayLike) -> NDArray[np.float64]:
    """Σ_i softmax_i(k_iᵀ q) v_i (scale 1/√d dropped, as in Dai et al.'s analysis)."""
    values, keys, q = _attention_inputs(values, keys, q)
    return _finite_output(values.T @ softmax(_scores(keys, q, "keys and q")), "values")


def icl_attention(
    W_V: ArrayLike, W_K: ArrayLike, demos: ArrayLike, text: ArrayLike, q: ArrayLike, *, use_softmax: bool
) -> NDArray[np.float64]:
    """F_ICL(q): attention of ``q`` over [X'; X] with values W_V x and keys W_K x (Dai et al. eq. 8–9)."""
    demos, text = _tokens(demos, text)
    with np.errstate(all="ignore"):
        values, keys = _projections(W_V, W_K, np.vstack([demos, text]))
    finite_result((values, keys), "W_V, W_K, demos and text overflow float64 in the projections (entries too large)")
    attend = softmax_attention if use_softmax else linear_attention
    return attend(values, keys, q)


def zero_shot_weight(W_V: ArrayLike, W_K: ArrayLike, text: ArrayLike) -> NDArray[np.float64]:
    """W_ZSL = W_V X (W_K X)ᵀ: the attention's 'weights' before any demonstration (eq. 9)."""
    text = finite_array("text", text, ndim=2)
    with np.errstate(all="ignore"):
        values, keys = _projections(W_V, W_K, text)
        return _finite_output(values.T @ keys, "W_V, W_K and text")


def delta_w_icl(W_V: ArrayLike, W_K: ArrayLike, demos: ArrayLike) -> NDArray[np.float64]:
    """ΔW_ICL = Σ_i (W_V x'_i) ⊗ (W_K x'_i): the demonstrations' implicit update (eq. 9)."""
    demos = finite_array("demos", demos, ndim=2)
    with np.errstate(all="ignore"):
        values, keys = _projections(W_V, W_K, demos)
        return _finite_output(values.T @ keys, "W_V, W_K and demos")


def demo_mass(W_K: ArrayLike, demos: ArrayLike, text: ArrayLike, q: ArrayLike) -> float:
    """λ(q): the softmax mass that ``q`` puts on the demonstrations among [X'; X]."""
    demos, text = _tokens(demos, text)
    W_K = finite_array("W_K", W_K, ndim=2)
    q = finite_array("q", q, ndim=1)
    same_size("W_K", W_K.shape[1], demos.shape[1], "input width (axis 1)")
    same_size("q", q.shape[0], W_K.shape[0], "key width (rows of W_K)")
    with np.errstate(over="ignore", invalid="ignore"):
        keys = np.vstack([demos, text]) @ W_K.T
    weights = softmax(_scores(keys, q, "W_K, demos, text and q"))
    return float(weights[: demos.shape[0]].sum())


def dual_form_prediction(
    W0: ArrayLike, errors: ArrayLike, train_inputs: ArrayLike, x: ArrayLike
) -> NDArray[np.float64]:
    """W0 x + LinearAttn(V = E, K = X', q = x): a GD-updated linear layer in its dual form (eq. 3–5).

    ``errors`` holds e_i = −γ ∂L/∂y_i as rows, ``train_inputs`` the inputs x'_i as rows.
    """
    W0 = finite_array("W0", W0, ndim=2)
    x = finite_array("x", x, ndim=1)
    errors = finite_array("errors", errors, ndim=2)
    train_inputs = finite_array("train_inputs", train_inputs, ndim=2)
    same_size("x", x.shape[0], W0.shape[1], "input width of W0")
    same_size("errors", errors.shape[1], W0.shape[0], "output width of W0 (columns)")
    same_size("train_inputs", train_inputs.shape[0], errors.shape[0], "number of rows of errors")
    with np.errstate(all="ignore"):
        out = W0 @ x + linear_attention(errors, train_inputs, x)
    return _finite_output(out, "W0, errors, train_inputs and x")


def momentum_explicit(values: ArrayLike, eta: float) -> NDArray[np.float64]:
    """m_t = Σ_{i<t} η^{t−i} v_i for t = 0..T−1 (the momentum term of Dai et al. eq. 14), as rows."""
    values = finite_array("values", values, ndim=2)
    eta = finite_scalar("eta", eta)
    T = values.shape[0]
    t, i = np.arange(T)[:, None], np.arange(T)[None, :]
    with np.errstate(all="ignore"):
        weights = np.where(i < t, eta ** np.maximum(t - i, 0).astype(float), 0.0)
        return _finite_output(weights @ values, "eta and values")


def momentum_ema(values: ArrayLike, eta: float) -> NDArray[np.float64]:
    """The same momentum term by the EMA recursion m_0 = 0, m_t = η (m_{t−1} + v_{t−1})."""
    values = finite_array("values", values, ndim=2)
    eta = finite_scalar("eta", eta)
    m = np.zeros_like(values)
    with np.errstate(all="ignore"):
        for t in range(1, values.shape[0]):
            m[t] = eta * (m[t - 1] + values[t - 1])
    return _finite_output(m, "eta and values")


# ---------------------------------------------------------------------------------------------
# Examples for the bad-input fuzzer (numerics.shared.fuzz)


def _example_attention() -> dict[str, NDArray[np.float64]]:
    r = np.random.default_rng(2)
    return {"values": r.standard_normal((4, 3)), "keys": r.standard_normal((4, 2)), "q": r.standard_normal(2)}


def _example_weights() -> dict[str, NDArray[np.float64]]:
    r = np.random.default_rng(3)
    return {"W_V": r.standard_normal((3, 2)), "W_K": r.standard_normal((3, 2))}


def _example_tokens() -> dict[str, NDArray[np.float64]]:
    r = np.random.default_rng(4)
    return {"demos": r.standard_normal((3, 2)), "text": r.standard_normal((2, 2)), "q": r.standard_normal(3)}


FUZZ = {
    "linear_attention": Fuzz(_example_attention),
    "softmax_attention": Fuzz(_example_attention),
    "icl_attention": Fuzz(
        lambda: _example_weights() | _example_tokens() | {"use_softmax": True}, fixed=("use_softmax",)
    ),
    "zero_shot_weight": Fuzz(lambda: _example_weights() | {"text": _example_tokens()["text"]}),
    "delta_w_icl": Fuzz(lambda: _example_weights() | {"demos": _example_tokens()["demos"]}),
    "demo_mass": Fuzz(lambda: {"W_K": _example_weights()["W_K"]} | _example_tokens()),
    "dual_form_prediction": Fuzz(
        lambda: {"W0": np.ones((2, 3)), "errors": np.ones((4, 2)), "train_inputs": np.ones((4, 3)), "x": np.ones(3)}
    ),
    "momentum_explicit": Fuzz(lambda: {"values": np.ones((4, 2)), "eta": 0.9}),
    "momentum_ema": Fuzz(lambda: {"values": np.ones((4, 2)), "eta": 0.9}),
}
