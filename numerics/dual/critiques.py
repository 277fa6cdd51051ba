"""Simulations for two critiques of the ICL ≈ fine-tuning reading of Dai et al. (2023).

* Deutch et al. 2024 (NAACL, "In-context learning and gradient descent revisited"): SimAOU of
  L2-normalised outputs is far from 0 even when the outputs are pure noise.
  The same paper finds that an untrained model scores like a trained one: compared here on in-context
  linear regression, relaxed linear attention at random weights against the GD construction.
* Shen et al. 2024 (ICML, "Position: Do pretrained transformers learn in-context by gradient descent?"):
  full-batch GD ignores the order of the demonstrations, a causal transformer does not.

Tokens are rows.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import softmax

from icl_verify.errors import InvalidArgument
from icl_verify.numerics.dual import attention, finetune
from icl_verify.numerics.dual.metrics import sim_aou
from icl_verify.numerics.shared.checks import (
    MAX_STEPS,
    finite_array,
    finite_result,
    finite_scalar,
    positive_int,
    same_size,
    seed_value,
)
from icl_verify.numerics.shared.fuzz import Fuzz, linear_data
from icl_verify.numerics.shared.gd_rate import best_gd_rate


def _unit_rows(rng: np.random.Generator, rows: int, d: int) -> NDArray[np.float64]:
    """``rows`` independent points uniform on the unit sphere S^{d−1} (normalised standard Gaussians)."""
    g = rng.standard_normal((rows, d))
    return g / np.linalg.norm(g, axis=1, keepdims=True)


def noise_sim_aou(d: int, samples: int, seed: int) -> NDArray[np.float64]:
    """SimAOU(h_ZSL, h_ICL, h_FT) for ``samples`` triples of independent uniform unit vectors in R^d (pure noise
    after an L2 normalisation, as in Deutch et al.'s critique)."""
    d, samples, seed = positive_int("d", d), positive_int("samples", samples), seed_value("seed", seed)
    if d < 2:
        raise InvalidArgument(f"d must be at least 2 (on S^0 the updates can vanish), got {d}")
    units = _unit_rows(np.random.default_rng(seed), 3 * samples, d).reshape(samples, 3, d)
    return sim_aou(units[:, 0], units[:, 1], units[:, 2])


def noisy_copies_sim_aou(d: int, sigma: float, samples: int, seed: int) -> NDArray[np.float64]:
    """SimAOU when ICL and FT add independent noise of relative size σ to a shared unit output and normalise:
    h_ZSL = z, h_ICL = (z + σ g₁) / ‖z + σ g₁‖, h_FT likewise, z uniform on S^{d−1}, g_k ~ N(0, I/d)."""
    d, samples, seed = positive_int("d", d), positive_int("samples", samples), seed_value("seed", seed)
    sigma = finite_scalar("sigma", sigma, positive=True)
    rng = np.random.default_rng(seed)
    z = _unit_rows(rng, samples, d)
    with np.errstate(all="ignore"):
        noisy = z[:, None, :] + sigma * rng.standard_normal((samples, 2, d)) / np.sqrt(d)
        noisy /= np.linalg.norm(noisy, axis=2, keepdims=True)
    finite_result(noisy, f"sigma = {sigma!r} overflows float64 in the normalisation (too large)")
    if np.any(np.all(noisy == z[:, None, :], axis=2)):
        raise InvalidArgument(f"sigma = {sigma!r} is too small: a noisy output equals z in float64 (no update)")
    return sim_aou(z, noisy[:, 0], noisy[:, 1])


def causal_softmax_stack(tokens: ArrayLike, W: ArrayLike, layers: int, *, causal: bool) -> NDArray[np.float64]:
    """The last token after ``layers`` residual softmax-attention layers x_t ← x_t + Σ_s softmax_s(x_tᵀ W x_s) x_s,
    s ranging over s ≤ t (``causal``) or over every token; the scale 1/√d is dropped as in Dai et al. §3.2."""
    x = finite_array("tokens", tokens, ndim=2, nonempty=True)
    W = finite_array("W", W, ndim=2)
    if W.shape != (x.shape[1], x.shape[1]):
        raise InvalidArgument(f"W must be square with the token width {x.shape[1]}, got shape {W.shape}")
    layers = positive_int("layers", layers, maximum=MAX_STEPS)
    n = x.shape[0]
    hidden = np.tril(np.ones((n, n), bool)) if causal else np.ones((n, n), bool)
    with np.errstate(all="ignore"):
        for _ in range(layers):
            scores = np.where(hidden, x @ W @ x.T, -np.inf)  # row t: scores of token t over tokens s
            if not np.all(np.isfinite(scores[hidden])):
                raise InvalidArgument("tokens and W give attention logits beyond float64 (entries too large)")
            x = x + softmax(scores, axis=1) @ x
    return finite_result(x[-1], "tokens and W overflow float64 in the attention stack (entries too large)")


def full_batch_gd(X: ArrayLike, Y: ArrayLike, W0: ArrayLike, lr: float, steps: int) -> NDArray[np.float64]:
    """``steps`` full-batch GD steps W ← W − lr Σ_i (W x_i − y_i) x_iᵀ on ½ Σ_i ‖W x_i − y_i‖² (rows x_i, y_i)."""
    X = finite_array("X", X, ndim=2)
    Y = finite_array("Y", Y, ndim=2)
    W = finite_array("W0", W0, ndim=2)
    if Y.shape[0] != X.shape[0]:
        raise InvalidArgument(f"Y must have as many rows as X, {X.shape[0]}, got {Y.shape[0]}")
    if W.shape != (Y.shape[1], X.shape[1]):
        raise InvalidArgument(
            f"W0 must have shape (width of Y, width of X) = {(Y.shape[1], X.shape[1])}, got {W.shape}"
        )
    lr, steps = finite_scalar("lr", lr, positive=True), positive_int("steps", steps, maximum=MAX_STEPS)
    with np.errstate(all="ignore"):
        for _ in range(steps):
            W = W - lr * (X @ W.T - Y).T @ X
    return finite_result(W, "lr, X, Y and W0 make gradient descent diverge beyond float64 (entries or lr too large)")


def gd_attention(d: int, n: int) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """(W_V, W_K) of relaxed linear attention on tokens [x, y] ∈ R^{d+1} that does one GD step in context: keys
    read x, values write η* y into the label slot, so W_V x'_i (W_K x'_i)ᵀ q = η* y_i x_iᵀ x_q e_y (von Oswald et al.
    2023, Prop. 1: one trained LSA layer reaches this; η* = 1/(n + d + 1), ``numerics.shared.gd_rate.best_gd_rate``)."""
    d, n = positive_int("d", d), positive_int("n", n)
    W_V, W_K = np.zeros((d + 1, d + 1)), np.zeros((d + 1, d + 1))
    W_V[d, d], W_K[:d, :d] = best_gd_rate(n, d), np.eye(d)
    return W_V, W_K


def regression_prompt(
    rng: np.random.Generator, d: int, n: int, n_text: int
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64], float]:
    """One prompt of in-context linear regression, tokens as rows: ``demos`` [x_i, wᵀx_i] (n, d + 1) with x_i, w ~
    N(0, I_d); ``text`` (n_text, d + 1) standard Gaussian tokens unrelated to the task (the zero-shot context);
    the query q = [x_q, 0] and its label wᵀx_q."""
    w, X, x_q = rng.standard_normal(d), rng.standard_normal((n, d)), rng.standard_normal(d)
    text = rng.standard_normal((n_text, d + 1))
    return np.column_stack([X, X @ w]), text, np.append(x_q, 0.0), float(w @ x_q)


def model_sim_aou(
    W_V: NDArray[np.float64],
    W_K: NDArray[np.float64],
    demos: NDArray[np.float64],
    text: NDArray[np.float64],
    q: NDArray[np.float64],
    lr: float,
) -> tuple[float | NDArray[np.float64], float]:
    """SimAOU (Dai et al. §4.3) of one model on one prompt, FT = one GD step on keys and values
    (``numerics.dual.finetune``, targets W_V x'_i at queries W_K x'_i), and the ICL output's label slot."""
    q = finite_array("q", q, ndim=1)
    W_zsl = attention.zero_shot_weight(W_V, W_K, text)
    same_size("q", q.size, W_zsl.shape[1], "as many entries as W_K has rows")
    W_icl = W_zsl + attention.delta_w_icl(W_V, W_K, demos)
    with np.errstate(all="ignore"):
        values, keys = demos @ np.asarray(W_V, float).T, demos @ np.asarray(W_K, float).T
        W_ft = W_zsl + finetune.delta_w_ft(W_V, W_K, text, values, keys, lr, train_keys=True)
        h_zsl, h_icl, h_ft = finite_result(
            [W @ q for W in (W_zsl, W_icl, W_ft)], "W_V, W_K, demos, text and q overflow"
        )
    if np.array_equal(h_icl, h_zsl) or np.array_equal(h_ft, h_zsl):
        raise InvalidArgument(
            f"W_V, W_K, demos, text, q and lr = {lr!r} leave an output unchanged by ICL or FT: no SimAOU"
        )
    return sim_aou(h_zsl, h_icl, h_ft), float(h_icl[-1])


def untrained_vs_trained(
    d: int, n: int, n_text: int, samples: int, seed: int, lr: float
) -> dict[str, NDArray[np.float64]]:
    """Per prompt: SimAOU of the untrained model (W_V, W_K ~ N(0, 1/(d + 1)) entries, fresh per prompt) and of
    the GD construction (:func:`gd_attention`) on the same prompt, and the squared error of each ICL prediction."""
    d, n, n_text = positive_int("d", d), positive_int("n", n), positive_int("n_text", n_text)
    samples, lr = positive_int("samples", samples), finite_scalar("lr", lr, positive=True)
    rng = np.random.default_rng(seed_value("seed", seed))
    trained = gd_attention(d, n)
    out = {key: np.empty(samples) for key in ("untrained", "trained", "untrained_error", "trained_error")}
    for k in range(samples):
        demos, text, q, label = regression_prompt(rng, d, n, n_text)
        untrained = rng.standard_normal((2, d + 1, d + 1)) / np.sqrt(d + 1)
        for name, (W_V, W_K) in (("untrained", untrained), ("trained", trained)):
            out[name][k], prediction = model_sim_aou(W_V, W_K, demos, text, q, lr)
            out[f"{name}_error"][k] = (prediction - label) ** 2
    return out


# ---------------------------------------------------------------------------------------------
# Examples for the bad-input fuzzer (numerics.shared.fuzz)

FUZZ = {
    "noise_sim_aou": Fuzz(lambda: {"d": 3, "samples": 5, "seed": 0}),
    "noisy_copies_sim_aou": Fuzz(lambda: {"d": 3, "sigma": 1.0, "samples": 5, "seed": 0}),
    "causal_softmax_stack": Fuzz(
        lambda: {
            "tokens": np.random.default_rng(9).standard_normal((3, 2)),
            "W": np.random.default_rng(10).standard_normal((2, 2)),
            "layers": 2,
            "causal": True,
        },
        fixed=("causal",),
    ),
    "full_batch_gd": Fuzz(
        lambda: {
            "X": linear_data()["X"],
            "Y": linear_data()["y"][:, None],
            "W0": np.zeros((1, 2)),
            "lr": 0.05,
            "steps": 3,
        }
    ),
    "gd_attention": Fuzz(lambda: {"d": 3, "n": 5}),
    "model_sim_aou": Fuzz(
        lambda: (
            dict(zip(("W_V", "W_K"), np.random.default_rng(13).standard_normal((2, 3, 3))))
            | {"demos": np.random.default_rng(14).standard_normal((4, 3))}
            | {"text": np.random.default_rng(15).standard_normal((2, 3))}
            | {"q": np.random.default_rng(16).standard_normal(3), "lr": 0.1}
        )
    ),
    "untrained_vs_trained": Fuzz(lambda: {"d": 2, "n": 3, "n_text": 2, "samples": 3, "seed": 0, "lr": 0.1}),
}
FUZZ_EXEMPT = {
    "regression_prompt": "draws from the caller's Generator; untrained_vs_trained validates its sizes",
}
