"""Linear self-attention and gradient descent on linear regression (von Oswald et al., ICML 2023).

Tokens are columns, as in the paper: the context E = [X; Y] with X ∈ R^{Nx×N}, Y ∈ R^{Ny×N}
(eq. 1), the query e_q = [x_q; −W0 x_q] (§2). One LSA layer (eq. 7–8, softmax removed) adds to a
token e the update Σ_h P_h W_{V,h} (Σ_{i∈keys} e_i e_iᵀ) W_{K,h}ᵀ W_{Q,h} e. Every function takes
SymPy matrices (symbolic or concrete sizes) or NumPy arrays alike (see ``blocks.backend``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from icl_verify.blocks.backend import block, eye, hstack, inverse, matrix_arg, scale, vstack, zeros
from icl_verify.core.symbols import matrix, scalar
from icl_verify.errors import InvalidArgument
from icl_verify.numerics.shared.checks import MAX_STEPS, nonnegative_int


@dataclass(frozen=True)
class Head:
    """One LSA head: the projection P, the value map W_V and the key–query product W_Kᵀ W_Q.

    ``P`` may be a scalar (P = p·I) or a matrix. Only P W_V and W_Kᵀ W_Q enter the layer
    (von Oswald et al. 2023, §3), so the head stores the product W_Kᵀ W_Q as ``W_KQ``.
    """

    P: Any
    W_V: Any
    W_KQ: Any


def head(P: Any, W_V: Any, W_K: Any, W_Q: Any) -> Head:
    """The head with key and query matrices W_K, W_Q (eq. 7): W_KQ = W_Kᵀ W_Q."""
    return Head(P, W_V, W_K.T @ W_Q)


def context_tokens(X: Any, Y: Any) -> Any:
    """E = [X; Y]: one context token e_i = (x_i, y_i) per column (eq. 1)."""
    return vstack(X, Y)


def query_token(x_q: Any, W0: Any = None, Ny: Any = None) -> Any:
    """e_q = [x_q; −W0 x_q] (§2, Proposition 1); with ``W0=None`` the y-part is 0 (``Ny`` rows)."""
    lower = zeros(Ny, x_q.shape[1], x_q) if W0 is None else -(W0 @ x_q)
    return vstack(x_q, lower)


def readout(e: Any, Ny: Any) -> Any:
    """The prediction read from a token: minus its last ``Ny`` entries (Proposition 1)."""
    nx = e.shape[0] - Ny
    return -(hstack(zeros(Ny, nx, e), eye(Ny, e)) @ e)


def x_part(e: Any, Nx: Any) -> Any:
    """The first ``Nx`` rows of a token (or of the tokens): its x-part."""
    ny = e.shape[0] - Nx
    return hstack(eye(Nx, e), zeros(Nx, ny, e)) @ e


def y_part(e: Any, Ny: Any) -> Any:
    """The last ``Ny`` rows of a token (or of the tokens): its y-part."""
    return -readout(e, Ny)


def lsa_update(heads: Head | Sequence[Head], keys: Any, e: Any) -> Any:
    """Σ_h P_h W_{V,h} (K Kᵀ) W_{KQ,h} e, with the key/value tokens ``keys`` as columns (eq. 8)."""
    heads = [heads] if isinstance(heads, Head) else list(heads)
    gram = keys @ keys.T
    terms = [scale(h.P, h.W_V @ gram @ h.W_KQ @ e) for h in heads]
    out = terms[0]
    for t in terms[1:]:
        out = out + t
    return out


def lsa_layer(heads: Head | Sequence[Head], E: Any, e_q: Any, *, include_query: bool = False) -> tuple[Any, Any]:
    """One LSA layer on the context E and the query e_q: (E + update(E), e_q + update(e_q)) (eq. 8).

    The keys/values are the context tokens (the paper's construction) or, with
    ``include_query=True``, all tokens: Σ_i e_i e_iᵀ + e_q e_qᵀ.
    """
    keys = hstack(E, e_q) if include_query else E
    return E + lsa_update(heads, keys, E), e_q + lsa_update(heads, keys, e_q)


def lsa_prediction(heads: Head | Sequence[Head], X: Any, Y: Any, x_q: Any, W0: Any = None, **layer: Any) -> Any:
    """ŷ_q: the readout of the query token after one LSA layer on context (X, Y) and query (x_q, −W0 x_q).

    Keyword arguments (``include_query``) go to :func:`lsa_layer`; ``W0=None`` starts from W0 = 0.
    """
    ny = Y.shape[0]
    _, e_q = lsa_layer(heads, context_tokens(X, Y), query_token(x_q, W0, ny), **layer)
    return readout(e_q, ny)


def regression_symbols(*, w0: str = "any", bound: float = 3.0) -> dict[str, Any]:
    """The symbols of one linear-regression task for :func:`icl_verify.statement` (eq. 1–2, columns):
    X (Nx × N), Y (Ny × N), W0 (Ny × Nx), x_q (Nx × 1) and a step size η > 0.

    ``w0``: ``"any"``, ``"nonzero"`` (never all zero on the numeric side) or ``"zero"`` (no W0).
    """
    if w0 not in ("any", "nonzero", "zero"):
        raise InvalidArgument(f"w0 must be 'any', 'nonzero' or 'zero', got {w0!r}")
    symbols = {"X": matrix("Nx", "N", bound=bound), "Y": matrix("Ny", "N", bound=bound)}
    if w0 != "zero":
        symbols["W0"] = matrix("Ny", "Nx", nonzero=w0 == "nonzero", bound=bound)
    return {**symbols, "x_q": matrix("Nx", 1, bound=bound), "eta": scalar(positive=True)}


def _selectors(Nx: Any, Ny: Any, like: Any) -> tuple[Any, Any]:
    """diag(I_x, 0) — the key/query product W_Kᵀ W_Q of θ_GD — and the block 0 of size Ny × Nx."""
    kq = block([[eye(Nx, like), zeros(Nx, Ny, like)], [zeros(Ny, Nx, like), zeros(Ny, Ny, like)]])
    return kq, zeros(Ny, Nx, like)


def theta_gd(W0: Any, eta: Any, N: Any, *, P: Any = None) -> Head:
    """θ_GD (Proposition 1): P = η/N, W_V = [[0, 0], [W0, −I]], W_Kᵀ W_Q = diag(I, 0).

    ``W0`` is Ny × Nx; ``P`` overrides the scalar η/N (e.g. η for the P = ηI variant).
    """
    ny, nx = W0.shape
    kq, _ = _selectors(nx, ny, W0)
    W_V = block([[zeros(nx, nx, W0), zeros(nx, ny, W0)], [W0, -eye(ny, W0)]])
    return Head(eta / N if P is None else P, W_V, kq)


def theta_gdpp(W0: Any, eta: Any, gamma: Any, N: Any) -> Head:
    """GD++ (eq. 23): W_V = [[I, 0], [W0, −I]], P = diag(−γ I, (η/N) I), W_Kᵀ W_Q = diag(I, 0)."""
    ny, nx = W0.shape
    kq, _ = _selectors(nx, ny, W0)
    W_V = block([[eye(nx, W0), zeros(nx, ny, W0)], [W0, -eye(ny, W0)]])
    P = block([[-gamma * eye(nx, W0), zeros(nx, ny, W0)], [zeros(ny, nx, W0), (eta / N) * eye(ny, W0)]])
    return Head(P, W_V, kq)


def _regression(W: Any, X: Any, Y: Any) -> None:
    """W (Ny × Nx), X (Nx × N) and Y (Ny × N) conform (tokens as columns, eq. 1–2), or :class:`InvalidArgument`."""
    matrix_arg("W", W)
    matrix_arg("X", X, rows=W.shape[1])
    matrix_arg("Y", Y, rows=W.shape[0], cols=X.shape[1])


def gd_gradient(W: Any, X: Any, Y: Any) -> Any:
    """∇L(W) = (1/N) (W X − Y) Xᵀ of L(W) = 1/(2N) Σ_i ‖W x_i − y_i‖² (eq. 2)."""
    _regression(W, X, Y)
    return (W @ X - Y) @ X.T / X.shape[1]


def gd_step(W: Any, X: Any, Y: Any, eta: Any) -> Any:
    """One gradient step W − η ∇L(W) on the linear regression loss (eq. 2)."""
    return W - eta * gd_gradient(W, X, Y)


def gd_steps(W0: Any, X: Any, Y: Any, eta: Any, K: int) -> Any:
    """K gradient steps from W0 (§3: K stacked θ_GD layers); K an integer in [0, ``MAX_STEPS``]."""
    W = W0
    for _ in range(nonnegative_int("K", K, maximum=MAX_STEPS)):
        W = gd_step(W, X, Y, eta)
    return W


def preconditioned_gd_step(W: Any, X: Any, Y: Any, eta: Any, Gamma: Any) -> Any:
    """W − η ∇L(W) Γ: a gradient step preconditioned on the input side by Γ (Nx × Nx; §4, GD++)."""
    matrix_arg("Gamma", Gamma, rows=W.shape[1], cols=W.shape[1])
    return W - eta * gd_gradient(W, X, Y) @ Gamma


def delta_w(W0: Any, X: Any, Y: Any, eta: Any) -> Any:
    """ΔW = −η ∇L(W0) = −(η/N) Σ_i (W0 x_i − y_i) x_iᵀ (eq. 2, Proposition 1)."""
    return -eta * gd_gradient(W0, X, Y)


def ridge(X: Any, Y: Any, lam: Any) -> Any:
    """The ridge solution W = Y Xᵀ (X Xᵀ + λ I)⁻¹ of min ‖W X − Y‖² + λ ‖W‖²."""
    matrix_arg("Y", Y, cols=matrix_arg("X", X).shape[1])
    return Y @ X.T @ inverse(X @ X.T + lam * eye(X.shape[0], X))


def sherman_morrison(A_inv: Any, u: Any, v: Any) -> Any:
    """(A + u vᵀ)⁻¹ = A⁻¹ − A⁻¹ u vᵀ A⁻¹ / (1 + vᵀ A⁻¹ u), from A⁻¹ and columns u, v (rank-one update)."""
    n = matrix_arg("A_inv", A_inv, cols=A_inv.shape[0]).shape[0]
    matrix_arg("u", u, rows=n, cols=1)
    matrix_arg("v", v, rows=n, cols=1)
    denominator = 1 + (v.T @ A_inv @ u)[0, 0]
    return A_inv - (A_inv @ u @ v.T @ A_inv) / denominator
