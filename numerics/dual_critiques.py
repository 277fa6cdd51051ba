"""Simulations for two critiques of the ICL ≈ fine-tuning reading of Dai et al. (2023).

* Deutch et al. 2024 (NAACL, "In-context learning and gradient descent revisited"): SimAOU of
  L2-normalised outputs is far from 0 even when the outputs are pure noise.
* Shen et al. 2024 (ICML, "Position: Do pretrained transformers learn in-context by gradient descent?"):
  full-batch GD ignores the order of the demonstrations, a causal transformer does not.

Tokens are rows.
"""

from __future__ import annotations

import numpy as np
from scipy.special import softmax

from icl_verify.numerics.dual_metrics import sim_aou
from icl_verify.numerics.shared.checks import finite_array, finite_result, finite_scalar, positive_int, seed_value


def _unit_rows(rng: np.random.Generator, rows: int, d: int) -> np.ndarray:
    """``rows`` independent points uniform on the unit sphere S^{d−1} (normalised standard Gaussians)."""
    g = rng.standard_normal((rows, d))
    return g / np.linalg.norm(g, axis=1, keepdims=True)


def noise_sim_aou(d: int, samples: int, seed: int) -> np.ndarray:
    """SimAOU(h_ZSL, h_ICL, h_FT) for ``samples`` triples of independent uniform unit vectors in R^d (pure noise
    after an L2 normalisation, as in Deutch et al.'s critique)."""
    d, samples, seed = positive_int("d", d), positive_int("samples", samples), seed_value("seed", seed)
    if d < 2:
        raise ValueError(f"d must be at least 2 (on S^0 the updates can vanish), got {d}")
    units = _unit_rows(np.random.default_rng(seed), 3 * samples, d).reshape(samples, 3, d)
    return sim_aou(units[:, 0], units[:, 1], units[:, 2])


def noisy_copies_sim_aou(d: int, sigma: float, samples: int, seed: int) -> np.ndarray:
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
        raise ValueError(f"sigma = {sigma!r} is too small: a noisy output equals z in float64 (no update)")
    return sim_aou(z, noisy[:, 0], noisy[:, 1])


def causal_softmax_stack(tokens: object, W: object, layers: int, *, causal: bool) -> np.ndarray:
    """The last token after ``layers`` residual softmax-attention layers x_t ← x_t + Σ_s softmax_s(x_tᵀ W x_s) x_s,
    s ranging over s ≤ t (``causal``) or over every token; the scale 1/√d is dropped as in Dai et al. §3.2."""
    x = finite_array("tokens", tokens, ndim=2, nonempty=True)
    W = finite_array("W", W, ndim=2)
    if W.shape != (x.shape[1], x.shape[1]):
        raise ValueError(f"W must be square with the token width {x.shape[1]}, got shape {W.shape}")
    layers = positive_int("layers", layers)
    n = x.shape[0]
    hidden = np.tril(np.ones((n, n), bool)) if causal else np.ones((n, n), bool)
    with np.errstate(all="ignore"):
        for _ in range(layers):
            scores = np.where(hidden, x @ W @ x.T, -np.inf)  # row t: scores of token t over tokens s
            if not np.all(np.isfinite(scores[hidden])):
                raise ValueError("tokens and W give attention logits beyond float64 (entries too large)")
            x = x + softmax(scores, axis=1) @ x
    return finite_result(x[-1], "tokens and W overflow float64 in the attention stack (entries too large)")


def full_batch_gd(X: object, Y: object, W0: object, lr: float, steps: int) -> np.ndarray:
    """``steps`` full-batch GD steps W ← W − lr Σ_i (W x_i − y_i) x_iᵀ on ½ Σ_i ‖W x_i − y_i‖² (rows x_i, y_i)."""
    X = finite_array("X", X, ndim=2)
    Y = finite_array("Y", Y, ndim=2)
    W = finite_array("W0", W0, ndim=2)
    if Y.shape[0] != X.shape[0]:
        raise ValueError(f"Y must have as many rows as X, {X.shape[0]}, got {Y.shape[0]}")
    if W.shape != (Y.shape[1], X.shape[1]):
        raise ValueError(f"W0 must have shape (width of Y, width of X) = {(Y.shape[1], X.shape[1])}, got {W.shape}")
    lr, steps = finite_scalar("lr", lr, positive=True), positive_int("steps", steps)
    with np.errstate(all="ignore"):
        for _ in range(steps):
            W = W - lr * (X @ W.T - Y).T @ X
    return finite_result(W, "lr, X, Y and W0 make gradient descent diverge beyond float64 (entries or lr too large)")
