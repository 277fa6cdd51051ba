"""Linear self-attention (LSA) and its gradient-descent weights (von Oswald et al., ICML 2023).

One LSA layer (paper eq. 7–8, softmax removed, no 1/N inside the attention) updates every token

    e_j ← e_j + Σ_h P_h W_{V,h} (Σ_{i∈keys} e_i e_iᵀ) W_{K,h}ᵀ W_{Q,h} e_j,

where the keys/values are the N context tokens only (the paper's construction) or, with
``include_query=True``, all tokens. Tokens are rows of a ``(B, T, Nx+Ny)`` array
; the paper writes them as columns, so the matrices below act on a token ``e``
as ``M @ e`` and on a row batch as ``E @ M.T``.

Context token j is (x_j, y_j); the query token is (x_q, −W0 x_q) and the prediction is read
out as **minus** its y-part (paper §2, Proposition 1).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from icl_verify.errors import InvalidArgument
from icl_verify.numerics.shared.checks import finite_array, finite_result, finite_scalar, positive_int, same_size
from icl_verify.numerics.shared.fuzz import Fuzz


@dataclass(frozen=True)
class LSAParams:
    """Weights of one multi-head LSA layer, heads stacked on axis 0.

    ``P``: (H, D, Dv), ``W_V``: (H, Dv, D), ``W_K`` and ``W_Q``: (H, Dk, D), D = token width.
    """

    P: NDArray[np.float64]
    W_V: NDArray[np.float64]
    W_K: NDArray[np.float64]
    W_Q: NDArray[np.float64]

    def __post_init__(self) -> None:
        P = finite_array("P", self.P, ndim=3)
        W_V = finite_array("W_V", self.W_V, ndim=3)
        W_K = finite_array("W_K", self.W_K, ndim=3)
        W_Q = finite_array("W_Q", self.W_Q, ndim=3)
        H, D, Dv = P.shape
        if W_V.shape != (H, Dv, D):
            raise InvalidArgument(f"W_V must have shape (H, Dv, D) = {(H, Dv, D)}, got {W_V.shape}")
        if W_K.shape[0] != H or W_K.shape[2] != D:
            raise InvalidArgument(f"W_K must have shape (H, Dk, D) with H = {H}, D = {D}, got {W_K.shape}")
        if W_Q.shape != W_K.shape:
            raise InvalidArgument(f"W_Q must have the shape of W_K {W_K.shape}, got {W_Q.shape}")
        for name, arr in (("P", P), ("W_V", W_V), ("W_K", W_K), ("W_Q", W_Q)):
            object.__setattr__(self, name, arr)

    @property
    def width(self) -> int:
        """Token width D."""
        return self.P.shape[1]

    def value_map(self) -> NDArray[np.float64]:
        """The products P_h W_{V,h}, shape (H, D, D) — all that matters of P and W_V."""
        return self.P @ self.W_V

    def key_query_map(self) -> NDArray[np.float64]:
        """The products W_{K,h}ᵀ W_{Q,h}, shape (H, D, D) — all that matters of W_K and W_Q."""
        return np.swapaxes(self.W_K, 1, 2) @ self.W_Q


def _tokens(tokens: ArrayLike, width: int | None = None) -> NDArray[np.float64]:
    E = finite_array("tokens", tokens, ndim=3)
    if width is not None:
        same_size("tokens", E.shape[2], width, "token width (axis 2)")
    return E


def _n_context(n_context: object, n_tokens: int) -> int:
    n = positive_int("n_context", n_context)
    if n > n_tokens:
        raise InvalidArgument(f"n_context must be at most the number of tokens {n_tokens}, got {n}")
    return n


def stack_times(a: NDArray[np.float64], w: NDArray[np.float64]) -> NDArray[np.float64]:
    """a_b w for every matrix a_b of the stack ``a`` (B, I, J), as one matrix product over all B·I rows."""
    return (a.reshape(-1, a.shape[-1]) @ w).reshape(*a.shape[:-1], w.shape[-1])


def times_stack(w: NDArray[np.float64], a: NDArray[np.float64]) -> NDArray[np.float64]:
    """w a_b for every matrix a_b of the stack ``a`` (B, I, J), as one matrix product: (a_bᵀ wᵀ)ᵀ."""
    return np.swapaxes(stack_times(np.swapaxes(a, 1, 2), w.T), 1, 2)


def attention_maps(V: NDArray[np.float64], C: NDArray[np.float64], K: NDArray[np.float64]) -> NDArray[np.float64]:
    """M_b = Σ_h V_h C_b K_h for every task b: heads' value maps V and key–query maps K (H, D, D), C (B, D, D).

    The factors V_h and K_h are shared by the tasks, so each product is one matrix product (not B small ones).
    """
    return sum(times_stack(V[h], stack_times(C, K[h])) for h in range(V.shape[0]))


def lsa_update(
    tokens: ArrayLike, params: LSAParams, n_context: int, *, include_query: bool = False
) -> NDArray[np.float64]:
    """The attention term Σ_h P_h W_V,h C W_K,hᵀ W_Q,h e_j for every token, shape of ``tokens``.

    C = Σ_i e_i e_iᵀ over the first ``n_context`` tokens, or over all tokens when
    ``include_query`` (the variant that breaks Proposition 1 when W0 ≠ 0).
    """
    E = _tokens(tokens, params.width)
    n = _n_context(n_context, E.shape[1])
    keys = E if include_query else E[:, :n]
    C = np.swapaxes(keys, 1, 2) @ keys
    return E @ np.swapaxes(attention_maps(params.value_map(), C, params.key_query_map()), 1, 2)


def lsa_layer(
    tokens: ArrayLike, params: LSAParams, n_context: int, *, include_query: bool = False, damping: float = 1.0
) -> NDArray[np.float64]:
    """One residual LSA layer e ← e + damping · :func:`lsa_update` (damping = 1 is the paper's layer)."""
    damping = finite_scalar("damping", damping)
    E = _tokens(tokens)
    return E + damping * lsa_update(E, params, n_context, include_query=include_query)


def lsa_stack(
    tokens: ArrayLike,
    layers: Sequence[LSAParams],
    n_context: int,
    *,
    include_query: bool = False,
    damping: float = 1.0,
) -> NDArray[np.float64]:
    """Apply the layers in order (a deep LSA; pass the same layer repeatedly for a recurrent one)."""
    if len(layers) == 0:
        raise InvalidArgument("layers must contain at least one LSAParams")
    E = _tokens(tokens)
    for params in layers:
        E = lsa_layer(E, params, n_context, include_query=include_query, damping=damping)
    return E


def lsa_recurrent(
    tokens: ArrayLike, params: LSAParams, n_layers: int, n_context: int, *, damping: float = 1.0
) -> NDArray[np.float64]:
    """The same layer applied ``n_layers`` times (weight-tied / recurrent LSA, paper §3)."""
    return lsa_stack(tokens, [params] * positive_int("n_layers", n_layers), n_context, damping=damping)


def _w0(w0: ArrayLike | None, nx: int, ny: int) -> NDArray[np.float64]:
    if w0 is None:
        return np.zeros((ny, nx))
    W0 = finite_array("w0", w0, ndim=2)
    if W0.shape != (ny, nx):
        raise InvalidArgument(f"w0 must have shape (Ny, Nx) = {(ny, nx)}, got {W0.shape}")
    return W0


def theta_gd(nx: int, ny: int, eta: float, n_context: int, w0: ArrayLike | None = None) -> LSAParams:
    """θ_GD of Proposition 1: W_K = W_Q = [[I_x, 0], [0, 0]], W_V = [[0, 0], [W0, −I_y]], P = (η/N) I.

    One layer with these weights performs one GD step from ``w0`` (default 0) on
    L(W) = 1/(2N) Σ‖W x_i − y_i‖².
    """
    nx, ny, n = positive_int("nx", nx), positive_int("ny", ny), positive_int("n_context", n_context)
    eta = finite_scalar("eta", eta)
    D = nx + ny
    W_KQ = np.zeros((D, D))
    W_KQ[:nx, :nx] = np.eye(nx)
    W_V = np.zeros((D, D))
    W_V[nx:, :nx] = _w0(w0, nx, ny)
    W_V[nx:, nx:] = -np.eye(ny)
    P = (eta / n) * np.eye(D)
    return LSAParams(P=P[None], W_V=W_V[None], W_K=W_KQ[None], W_Q=W_KQ[None])


def theta_gdpp(nx: int, ny: int, eta: float, gamma: float, n_context: int, w0: ArrayLike | None = None) -> LSAParams:
    """GD++ (paper eq. 23): θ_GD with W_V = [[I_x, 0], [W0, −I_y]] and P = [[−γ I_x, 0], [0, (η/N) I_y]].

    The layer maps x_j ← (I − γ XXᵀ) x_j (XXᵀ = Σ_i x_i x_iᵀ, unnormalised) and y_j ← y_j − ΔW x_j.
    """
    base = theta_gd(nx, ny, eta, n_context, w0)
    gamma = finite_scalar("gamma", gamma)
    W_V = base.W_V.copy()
    W_V[0, :nx, :nx] = np.eye(nx)
    P = base.P.copy()
    P[0, :nx, :nx] = -gamma * np.eye(nx)
    return LSAParams(P=P, W_V=W_V, W_K=base.W_K, W_Q=base.W_Q)


def make_tokens(X: ArrayLike, Y: ArrayLike, x_q: ArrayLike, w0: ArrayLike | None = None) -> NDArray[np.float64]:
    """Stack context tokens (x_i, y_i) and query tokens (x_q, −W0 x_q) into ``(B, N+Q, Nx+Ny)``."""
    X = finite_array("X", X, ndim=3)
    Y = finite_array("Y", Y, ndim=3)
    x_q = finite_array("x_q", x_q, ndim=3)
    same_size("Y", Y.shape[0], X.shape[0], "batch size (axis 0) of X")
    same_size("Y", Y.shape[1], X.shape[1], "number of examples (axis 1) of X")
    same_size("x_q", x_q.shape[0], X.shape[0], "batch size (axis 0) of X")
    same_size("x_q", x_q.shape[2], X.shape[2], "input width Nx (axis 2) of X")
    W0 = _w0(w0, X.shape[2], Y.shape[2])
    context = np.concatenate([X, Y], axis=2)
    query = np.concatenate([x_q, -x_q @ W0.T], axis=2)
    return np.concatenate([context, query], axis=1)


def readout(tokens: ArrayLike, ny: int, n_context: int) -> NDArray[np.float64]:
    """Prediction for every query token: minus its y-part, shape ``(B, Q, Ny)``."""
    E = _tokens(tokens)
    ny = positive_int("ny", ny)
    n = _n_context(n_context, E.shape[1])
    return -E[:, n:, E.shape[2] - ny :]


def residual_mlp(x: ArrayLike, W1: ArrayLike, b1: ArrayLike, W2: ArrayLike) -> NDArray[np.float64]:
    """m(x) = x + W2 tanh(W1 x + b1), applied to the rows of ``x`` (the MLP of Proposition 2)."""
    x = finite_array("x", x, ndim=(2, 3))
    W1 = finite_array("W1", W1, ndim=2, nonempty=True)
    b1 = finite_array("b1", b1, ndim=1)
    W2 = finite_array("W2", W2, ndim=2)
    same_size("W1", W1.shape[1], x.shape[-1], "input width (axis 1)")
    same_size("b1", b1.shape[0], W1.shape[0], "hidden width")
    if W2.shape != (x.shape[-1], W1.shape[0]):
        raise InvalidArgument(f"W2 must have shape {(x.shape[-1], W1.shape[0])}, got {W2.shape}")
    with np.errstate(all="ignore"):
        out = x + np.tanh(x @ W1.T + b1) @ W2.T
    return finite_result(out, "x, W1, b1 and W2 overflow float64 in the MLP (entries too large)")


# ---------------------------------------------------------------------------------------------
# Examples for the bad-input fuzzer (numerics.shared.fuzz)


def _example_tokens() -> dict[str, NDArray[np.float64]]:
    r = np.random.default_rng(1)
    return {"X": r.standard_normal((2, 4, 3)), "Y": r.standard_normal((2, 4, 1)), "x_q": r.standard_normal((2, 1, 3))}


FUZZ = {
    "theta_gd": Fuzz(lambda: {"nx": 2, "ny": 1, "eta": 0.1, "n_context": 4}),
    "theta_gdpp": Fuzz(lambda: {"nx": 2, "ny": 1, "eta": 0.1, "gamma": 0.2, "n_context": 4}),
    "make_tokens": Fuzz(_example_tokens),
    "residual_mlp": Fuzz(
        lambda: {"x": np.ones((2, 3)), "W1": np.ones((4, 3)), "b1": np.zeros(4), "W2": np.ones((3, 4))}
    ),
}
FUZZ_EXEMPT = {
    **{
        name: "an array kernel of lsa_update and the trainer, on arrays they checked"
        for name in ("stack_times", "times_stack", "attention_maps")
    },
    # functions of LSAParams: corrupting them means building a bad LSAParams, which its constructor refuses
    **{
        name: "takes LSAParams (validated by its constructor)"
        for name in ("lsa_update", "lsa_layer", "lsa_stack", "lsa_recurrent", "readout")
    },
}
