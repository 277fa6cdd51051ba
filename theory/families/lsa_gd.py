"""Claims: linear self-attention implements gradient descent (von Oswald et al., ICML 2023).

Written as statements (``icl_verify.statement``) over the building blocks of ``icl_verify.blocks``,
in the paper's convention (tokens are **columns**): context E = [X; Y] with X ∈ R^{Nx×N},
Y ∈ R^{Ny×N}; query e_q = [x_q; −W0 x_q]. One LSA layer adds P W_V (E Eᵀ) W_Kᵀ W_Q e to every
token e. Each statement's symbolic, explicit and numeric checks come from its one lhs and rhs;
the stacked-layer and Proposition 2 claims keep a numeric check through the row implementation
``numerics.lsa.layers`` as well.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import sympy as sp
from hypothesis import strategies as st
from sympy.matrices.expressions import BlockMatrix, Identity, MatrixSymbol, ZeroMatrix

from icl_verify.blocks import (
    context_tokens,
    delta_w,
    gd_step,
    head,
    lsa_layer,
    lsa_prediction,
    lsa_update,
    query_token,
    regression_symbols,
    theta_gd,
    theta_gdpp,
    x_part,
)
from icl_verify.blocks.backend import eye, zeros
from icl_verify.core.checks.numeric import Numeric
from icl_verify.core.checks.symbolic import Symbolic
from icl_verify.core.claims import Claim, Corrected
from icl_verify.core.derivation import Derivation, Step
from icl_verify.core.figure import Figure
from icl_verify.core.statement import statement
from icl_verify.core.symbols import matrix, scalar
from icl_verify.maths.strategies import dims, matrices, regression_cases
from icl_verify.numerics.lsa import layers as lsa
from icl_verify.numerics.lsa.regression import CODE_X_RANGE, gd, half_mse, sample_tasks

FAMILY = "lsa-gd"
PAPER = "von Oswald et al. 2023"
EXPLICIT_SIZES = {"Nx": (1, 2), "Ny": (1, 2), "N": (1, 2, 3)}
NUMERIC_SIZES = {"Nx": (1, 3), "Ny": (1, 3), "N": (1, 5)}
STATEMENT_SIZES = {"sizes": NUMERIC_SIZES, "explicit_sizes": EXPLICIT_SIZES}

NX, NY, N = sp.symbols("N_x N_y N", positive=True, integer=True)
ETA, GAMMA = sp.symbols("eta gamma", nonzero=True)

LINEAR_ATTENTION = "linear attention (softmax removed, paper eq. 8)"
CONTEXT_KEYS = "keys and values from the N context tokens only"
SQUARED_LOSS = "loss L(W) = 1/(2N) Σ‖W x_i − y_i‖² (eq. 2)"


# ---------------------------------------------------------------------------------------------
# Proposition 1 and its traps: one θ_GD layer against one GD step, context tokens and query


def one_gd_step(X: Any, Y: Any, W0: Any, x_q: Any, eta: Any) -> tuple[Any, Any]:
    """What one GD step predicts for the tokens: (x_i, y_i − ΔW x_i) and (x_q, −(W0 + ΔW) x_q) (eq. 9)."""
    dW = delta_w(W0, X, Y, eta)
    return context_tokens(X, Y - dW @ X), query_token(x_q, W0 + dW)


def theta_gd_layer(X: Any, Y: Any, W0: Any, x_q: Any, eta: Any, N: Any, include_query: bool = False) -> tuple:
    """The θ_GD layer (Proposition 1) on the context and the query, keys from the context or all tokens."""
    return lsa_layer(theta_gd(W0, eta, N), context_tokens(X, Y), query_token(x_q, W0), include_query=include_query)


PROP1 = statement(
    name="prop1-lsa-equals-gd-step",
    source=f"{PAPER}, Proposition 1 (eq. 8–9)",
    statement=(
        r"\theta_{GD}:\ e_j \mapsto e_j + \tfrac{\eta}{N} W_V (\textstyle\sum_i e_i e_i^\top) W_K^\top W_Q e_j"
        r" = (x_j,\ y_j - \Delta W x_j),\quad \hat y_q = (W_0 + \Delta W) x_q,\quad"
        r" \Delta W = -\tfrac{\eta}{N}\sum_i (W_0 x_i - y_i) x_i^\top"
    ),
    symbols=regression_symbols(),
    lhs=theta_gd_layer,
    rhs=one_gd_step,
    assumptions=(LINEAR_ATTENTION, CONTEXT_KEYS, SQUARED_LOSS),
    **STATEMENT_SIZES,
    expect="proved",
)


def query_in_keys_corrected(X: Any, Y: Any, W0: Any, x_q: Any, eta: Any, N: Any) -> tuple[Any, Any]:
    """With the query among the keys, W_V e_q = (0, 2 W0 x_q) adds (2η/N) W0 x_q (x_qᵀ x) to every y-part."""
    extra = (2 * eta / N) * W0 @ x_q @ x_q.T
    dW = delta_w(W0, X, Y, eta)
    return context_tokens(X, Y - dW @ X + extra @ X), query_token(x_q, W0 + dW - extra)


PROP1_QUERY_IN_KEYS = statement(
    name="prop1-query-in-keys-w0-nonzero",
    source=f"{PAPER}, Proposition 1 (query in the keys and values, W0 ≠ 0)",
    statement=r"\text{Proposition 1 with the query } (x_q, -W_0 x_q) \text{ also among the keys/values, } W_0 \neq 0",
    symbols=regression_symbols(w0="nonzero"),
    lhs=lambda X, Y, W0, x_q, eta, N: theta_gd_layer(X, Y, W0, x_q, eta, N, include_query=True),
    rhs=one_gd_step,
    holds=False,
    corrected=query_in_keys_corrected,
    symbolic=False,
    correction="prop1-lsa-equals-gd-step",
    note="Including the query adds (2η/N) W0 x_q ‖x_q‖² to its update: O(1) error whenever W0 x_q ≠ 0.",
    assumptions=(LINEAR_ATTENTION, "keys and values from all tokens, the query included", "W0 ≠ 0"),
    builds_on=("prop1-lsa-equals-gd-step",),
    **STATEMENT_SIZES,
)


def _zero_w0(X: Any, Y: Any) -> Any:
    """W0 = 0 of size Ny × Nx, on the side of X."""
    return zeros(Y.shape[0], X.shape[0], X)


PROP1_QUERY_IN_KEYS_W0_ZERO = statement(
    name="prop1-query-in-keys-w0-zero",
    source=f"{PAPER}, Proposition 1 (query in the keys and values, W0 = 0)",
    statement=r"W_0 = 0,\ y_q = 0:\ \text{including the query in the keys/values changes nothing}",
    symbols=regression_symbols(w0="zero"),
    lhs=lambda X, Y, x_q, eta, N: theta_gd_layer(X, Y, _zero_w0(X, Y), x_q, eta, N, include_query=True),
    rhs=lambda X, Y, x_q, eta: one_gd_step(X, Y, _zero_w0(X, Y), x_q, eta),
    assumptions=(LINEAR_ATTENTION, "keys and values from all tokens, the query included", "W0 = 0"),
    builds_on=("prop1-lsa-equals-gd-step",),
    **STATEMENT_SIZES,
    expect="proved",
)

PROP1_P_ETA = statement(
    name="prop1-p-eta-not-eta-over-n",
    source=f"{PAPER}, Proposition 1 with P = ηI",
    statement=r"\theta_{GD} \text{ with } P = \eta I \text{ (instead of } \tfrac{\eta}{N} I) \text{ is one GD step}",
    symbols=regression_symbols(),
    lhs=lambda X, Y, W0, x_q, eta, N: lsa_layer(
        theta_gd(W0, eta, N, P=eta), context_tokens(X, Y), query_token(x_q, W0)
    ),
    rhs=one_gd_step,
    holds=False,
    corrected=lambda X, Y, W0, x_q, eta, N: one_gd_step(X, Y, W0, x_q, eta * N),
    symbolic=False,
    correction="prop1-lsa-equals-gd-step",
    note="P = ηI is a GD step with rate ηN: it agrees with the paper's loss only at N = 1.",
    assumptions=(LINEAR_ATTENTION, CONTEXT_KEYS, SQUARED_LOSS),
    builds_on=("prop1-lsa-equals-gd-step",),
    **STATEMENT_SIZES,
)


# ---------------------------------------------------------------------------------------------
# Depth, damping, symmetry


def _layer_view(out: np.ndarray, case: dict) -> np.ndarray:
    """The context tokens' y-parts and the query readout of a row-convention LSA output, flattened."""
    n = case["N"]
    return np.concatenate([out[0, :n, case["Nx"] :].ravel(), lsa.readout(out, case["Ny"], n).ravel()])


def _gd_view(case: dict, W_from: np.ndarray, W_to: np.ndarray) -> np.ndarray:
    """What GD from W_from to W_to predicts for them: y_i − (W_to − W_from) x_i and W_to x_q."""
    moved = case["Y"] - case["X"] @ (W_to - W_from).T
    return np.concatenate([moved.ravel(), (case["x_q"] @ W_to.T).ravel()])


def _gd_scale(X: np.ndarray, Y: np.ndarray, x_q: np.ndarray, Ws: list[np.ndarray], eta: float) -> float:
    """Magnitude of the terms a GD step adds: |y| + η/N |W x − y|ᵀ|x| |x'| over the iterates W."""
    x_all = np.abs(np.vstack([X, x_q]))
    terms = [np.abs(W) @ np.abs(X).T + np.abs(Y).T for W in Ws]
    step = max(eta / X.shape[0] * float(np.max(t @ np.abs(X) @ x_all.T)) for t in terms)
    return max(step, float(np.max(np.abs(Y))), max(float(np.max(np.abs(W) @ x_all.T)) for W in Ws))


def _tokens(case: dict) -> np.ndarray:
    return lsa.make_tokens(case["X"][None], case["Y"][None], case["x_q"][None], case["W0"])


@st.composite
def stacked_cases(draw) -> dict:
    case = draw(regression_cases(w0=False, bound=1.0))
    case["K"] = draw(dims(1, 4))
    case["eta"] = min(case["eta"], 1.0)
    return case


def _k_layers(case: dict) -> tuple:
    """K stacked θ_GD layers (the row implementation) against K GD steps, for any depth K."""
    X, Y, x_q, eta, n, K = case["X"], case["Y"], case["x_q"], case["eta"], case["N"], case["K"]
    params = lsa.theta_gd(case["Nx"], case["Ny"], eta, n)
    out = lsa.lsa_recurrent(_tokens(case), params, K, n)
    Ws = [gd(case["W0"], X[None], Y[None], eta, k)[0] for k in range(K + 1)]
    return _layer_view(out, case), _gd_view(case, Ws[0], Ws[-1]), _gd_scale(X, Y, x_q, Ws, eta)


def _stacked_step(X: Any, Y: Any, W: Any, x_q: Any, eta: Any, N: Any) -> tuple:
    """A θ_GD(W0 = 0) layer on the tokens (X, Y − W X; x_q, −W x_q) reached after some steps from W0 = 0."""
    E, e_q = context_tokens(X, Y - W @ X), query_token(x_q, W)
    return lsa_layer(theta_gd(_zero_w0(X, Y), eta, N), E, e_q)


def _next_iterate(X: Any, Y: Any, W: Any, x_q: Any, eta: Any) -> tuple:
    """The same tokens with W replaced by the next GD iterate W' = W − η ∇L(W)."""
    W1 = gd_step(W, X, Y, eta)
    return context_tokens(X, Y - W1 @ X), query_token(x_q, W1)


K_LAYERS = statement(
    name="k-layers-equal-k-gd-steps",
    source=f"{PAPER}, §3 (stacked θ_GD layers)",
    statement=(
        r"K \text{ stacked } \theta_{GD}(W_0{=}0) \text{ layers: context } y_i \mapsto y_i - W_K x_i,\ "
        r"\hat y_q = W_K x_q,\ W_{k+1} = W_k - \eta \nabla L(W_k),\ W_0 = 0"
    ),
    symbols={**regression_symbols(w0="zero"), "W": matrix("Ny", "Nx")},
    lhs=_stacked_step,
    rhs=_next_iterate,
    note="Proved by induction on K: the symbolic check is the induction step (any W, any size); K = 0 is trivial.",
    assumptions=(LINEAR_ATTENTION, CONTEXT_KEYS, SQUARED_LOSS, "W0 = 0"),
    builds_on=("prop1-lsa-equals-gd-step",),
    **STATEMENT_SIZES,
    expect="proved",
)
K_LAYERS = replace(
    K_LAYERS,
    checks=tuple(Numeric(stacked_cases(), _k_layers) if isinstance(c, Numeric) else c for c in K_LAYERS.checks),
)
"""The induction step as a statement; the numeric check runs whole stacks of K = 1..4 layers."""


def _damped(X: Any, Y: Any, W0: Any, x_q: Any, eta: Any, lam: Any, N: Any) -> tuple:
    """e ↦ e + λ · (the θ_GD(η) update of e), for the context and the query."""
    h, E, e_q = theta_gd(W0, eta, N), context_tokens(X, Y), query_token(x_q, W0)
    return E + lam * lsa_update(h, E, E), e_q + lam * lsa_update(h, E, e_q)


DAMPING = statement(
    name="damping-equals-scaled-step",
    source=f"{PAPER}, §3 (damped recurrent layers)",
    statement=r"e \mapsto e + \lambda\,\mathrm{LSA}_{\theta_{GD}(\eta)}(e) \ \equiv\ \theta_{GD}(\lambda\eta)",
    symbols={**regression_symbols(), "lam": scalar(nonzero=True)},
    lhs=_damped,
    rhs=lambda X, Y, W0, x_q, eta, lam, N: theta_gd_layer(X, Y, W0, x_q, lam * eta, N),
    explicit=False,
    assumptions=(LINEAR_ATTENTION, CONTEXT_KEYS),
    builds_on=("prop1-lsa-equals-gd-step",),
    sizes=NUMERIC_SIZES,
    expect="proved",
)

RESCALING = statement(
    name="lsa-rescaling-invariance",
    source=f"{PAPER}, §3 (only P W_V and W_Kᵀ W_Q matter)",
    statement=r"(P W_V \cdot s,\ W_K^\top W_Q / s) \text{ gives the same layer for every } s \neq 0",
    symbols={
        **{name: matrix("D", "D", bound=1.0) for name in ("P", "W_V", "W_K", "W_Q")},
        "E": matrix("D", "T"),
        "s": scalar(nonzero=True, bound=4.0),
    },
    lhs=lambda P, W_V, W_K, W_Q, E, s: lsa_update(head(P, s * W_V, W_K, W_Q / s), E, E),
    rhs=lambda P, W_V, W_K, W_Q, E: lsa_update(head(P, W_V, W_K, W_Q), E, E),
    explicit=False,
    assumptions=(LINEAR_ATTENTION,),
    sizes={"D": (1, 4), "T": (2, 5)},
    expect="proved",
)


# ---------------------------------------------------------------------------------------------
# GD++ and Proposition 2


def _gdpp_targets(X: Any, Y: Any, W0: Any, x_q: Any, eta: Any, gamma: Any) -> tuple:
    """x_j ↦ (I − γ XXᵀ) x_j and y_j ↦ y_j − ΔW x_j, for the context and the query (eq. 23)."""
    A = eye(X.shape[0], X) - gamma * X @ X.T
    dW = delta_w(W0, X, Y, eta)
    y_query = -((W0 + dW) @ x_q)
    return context_tokens(A @ X, Y - dW @ X), context_tokens(A @ x_q, y_query)


GDPP = statement(
    name="gdpp-update",
    source=f"{PAPER}, GD++ (eq. 23; eq. 22 as printed drops a factor)",
    statement=(
        r"W_V = \begin{psmallmatrix} I & 0 \\ W_0 & -I \end{psmallmatrix},\ "
        r"P = \begin{psmallmatrix} -\gamma I & 0 \\ 0 & \frac{\eta}{N} I \end{psmallmatrix}:\ "
        r"x_j \mapsto (I - \gamma X X^\top) x_j,\ y_j \mapsto y_j - \Delta W x_j"
    ),
    symbols={**regression_symbols(), "gamma": scalar(bound=1.0)},
    lhs=lambda X, Y, W0, x_q, eta, gamma, N: lsa_layer(
        theta_gdpp(W0, eta, gamma, N), context_tokens(X, Y), query_token(x_q, W0)
    ),
    rhs=_gdpp_targets,
    assumptions=(LINEAR_ATTENTION, CONTEXT_KEYS, SQUARED_LOSS),
    builds_on=("prop1-lsa-equals-gd-step",),
    **STATEMENT_SIZES,
    expect="proved",
)


def gdpp_gram(X: Any, Y: Any, W0: Any, x_q: Any, eta: Any, gamma: Any, N: Any, Nx: Any) -> Any:
    """Σ_i x_i' x_i'ᵀ: the Gram matrix of the context inputs after the GD++ layer."""
    E, _ = lsa_layer(theta_gdpp(W0, eta, gamma, N), context_tokens(X, Y), query_token(x_q, W0))
    new_x = x_part(E, Nx)
    return new_x @ new_x.T


def gdpp_gram_polynomial(X: Any, gamma: Any) -> Any:
    """H − 2γH² + γ²H³, H = X Xᵀ: each eigenvalue λ of H becomes λ − 2γλ² + γ²λ³."""
    H = X @ X.T
    return H - 2 * gamma * H @ H + gamma**2 * H @ H @ H


GDPP_CONDITIONING = statement(
    name="gdpp-hessian-spectrum",
    source=f"{PAPER}, §4 (GD++ improves the data Hessian's conditioning)",
    statement=r"\operatorname{spec}\big(\textstyle\sum_i x_i' x_i'^\top\big) = \{\lambda - 2\gamma\lambda^2 + \gamma^2\lambda^3\}",
    symbols={**regression_symbols(), "gamma": scalar(bound=1.0)},
    lhs=gdpp_gram,
    rhs=gdpp_gram_polynomial,
    explicit=False,
    assumptions=("GD++ with γ shared by all tokens",),
    builds_on=("gdpp-update",),
    sizes=NUMERIC_SIZES,
    expect="proved",
)
"""Stated as the matrix identity Σ_i x_i' x_i'ᵀ = H − 2γH² + γ²H³ (H = Σ_i x_i x_iᵀ), a polynomial in H: same eigenvectors, each
eigenvalue mapped by λ ↦ λ − 2γλ² + γ²λ³."""


def kernel_residuals(nm: Any = NX, ny: Any = NY, n: Any = N) -> list:
    """With features M = m(X) and W0 = 0, the θ_GD readout is (η/N) Y Mᵀ m(x_q) = (η/N) Σ y_i k(x_i, x_q)."""
    M, Y, m_q = MatrixSymbol("X", nm, n), MatrixSymbol("Y", ny, n), MatrixSymbol("x_q", nm, 1)  # read as features
    return [lsa_prediction(theta_gd(ZeroMatrix(ny, nm), ETA, n), M, Y, m_q) - (ETA / n) * Y * M.T * m_q]


@st.composite
def kernel_cases(draw) -> dict:
    case = draw(regression_cases(w0=False))
    hidden = draw(dims(1, 4))
    case.update(hidden=hidden, W1=draw(matrices(hidden, case["Nx"])), b1=draw(matrices(1, hidden)))
    case["W2"] = draw(matrices(case["Nx"], hidden))
    return case


def _kernel(case: dict, *, printed: bool = False) -> tuple:
    X, Y, x_q, eta, n = case["X"], case["Y"], case["x_q"], case["eta"], case["N"]
    m = lambda v: lsa.residual_mlp(v, case["W1"], case["b1"][0], case["W2"])  # noqa: E731
    tokens = lsa.make_tokens(m(X)[None], Y[None], m(x_q)[None])
    out = lsa.lsa_layer(tokens, lsa.theta_gd(case["Nx"], case["Ny"], eta, n), n)
    lhs = lsa.readout(out, case["Ny"], n).ravel()
    factor = 1.0 if printed else eta / n
    kernel = [float(m(X[i : i + 1])[0] @ m(x_q)[0]) for i in range(n)]  # k(x_i, x_q) = m(x_i)ᵀ m(x_q)
    rhs = factor * sum(Y[i] * kernel[i] for i in range(n))
    scale = eta / n * float(np.sum(np.abs(Y).sum(axis=1) * np.abs(kernel))) + float(np.max(np.abs(rhs)))
    return lhs, rhs, scale


PROP2 = Claim(
    name="prop2-mlp-lsa-kernel-gd",
    source=f"{PAPER}, Proposition 2 (with the η/N factor the paper drops)",
    statement=r"\hat y_q = \tfrac{\eta}{N} \sum_i y_i\, k(x_i, x_q),\quad k(a, b) = m(a)^\top m(b)",
    checks=(
        Symbolic(kernel_residuals),
        Numeric(kernel_cases(), _kernel),
    ),
    assumptions=(LINEAR_ATTENTION, CONTEXT_KEYS, "W0 = 0", "the same features m(x) for context and query"),
    builds_on=("prop1-lsa-equals-gd-step",),
)

PROP2_AS_PRINTED = Claim(
    name="prop2-as-printed",
    source=f"{PAPER}, Proposition 2 as printed",
    statement=r"\hat y_q = \sum_i y_i\, k(x_i, x_q)",
    checks=(Numeric(kernel_cases(), lambda c: _kernel(c, printed=True)),),
    holds=False,
    corrected=Corrected("prop2-mlp-lsa-kernel-gd", numeric=_kernel),
    note="The printed form omits η/N; the θ_GD layer gives (η/N) Σ y_i k(x_i, x_q).",
    assumptions=(LINEAR_ATTENTION, CONTEXT_KEYS, "W0 = 0", "the same features m(x) for context and query"),
    builds_on=("prop1-lsa-equals-gd-step",),
)


# ---------------------------------------------------------------------------------------------
# Derivations (rendered by `icl-verify docs`; every step checked by SymPy)


def _prop1_query_derivation() -> Derivation:
    X, Y, W0, xq = (
        MatrixSymbol("X", NX, N),
        MatrixSymbol("Y", NY, N),
        MatrixSymbol("W_0", NY, NX),
        MatrixSymbol("x_q", NX, 1),
    )
    theta, E, eq = theta_gd(W0, ETA, N), context_tokens(X, Y), query_token(xq, W0)
    zero_y = ZeroMatrix(NY, 1)
    steps = [
        Step(
            eq + (ETA / N) * theta.W_V * E * E.T * BlockMatrix([[xq], [zero_y]]),
            "W_K = W_Q = diag(I_x, 0) keep x_q only",
            "θ_GD",
        ),
        Step(eq + (ETA / N) * theta.W_V * E * X.T * xq, "Eᵀ [x_q; 0] = Xᵀ x_q, i.e. Σ_i e_i x_iᵀ x_q", "eq. 8"),
        Step(
            eq + (ETA / N) * BlockMatrix([[ZeroMatrix(NX, N)], [W0 * X - Y]]) * X.T * xq,
            "W_V e_i = (0, W0 x_i − y_i)",
            "θ_GD",
        ),
        Step(BlockMatrix([[xq], [-W0 * xq + (ETA / N) * (W0 * X - Y) * X.T * xq]]), "collect the blocks", ""),
        Step(
            BlockMatrix([[xq], [-(W0 + delta_w(W0, X, Y, ETA)) * xq]]),
            "ΔW = −(η/N) Σ_i (W0 x_i − y_i) x_iᵀ, one GD step on L = 1/(2N) Σ‖W x_i − y_i‖²",
            "eq. 2",
        ),
    ]
    return Derivation(
        name="prop1-query",
        title="Proposition 1: the query token after one θ_GD layer",
        source=f"{PAPER}, Proposition 1",
        start=eq + (ETA / N) * theta.W_V * E * E.T * theta.W_KQ * eq,
        steps=steps,
        intro="Columns are tokens; E = [X; Y] holds the N context tokens and e_q = (x_q, −W0 x_q) the query. "
        "The readout is minus the query's y-part, so the last line is the prediction (W0 + ΔW) x_q.",
    )


def _gdpp_conditioning_derivation() -> Derivation:
    d = sp.Symbol("d", positive=True, integer=True)
    H, Id = MatrixSymbol("H", d, d), Identity(d)
    return Derivation(
        name="gdpp-conditioning",
        title="GD++: the transformed data's Gram matrix",
        source=f"{PAPER}, §4",
        start=(Id - GAMMA * H) * H * (Id - GAMMA * H),
        steps=[
            Step((H - GAMMA * H * H) * (Id - GAMMA * H), "multiply out the left factor"),
            Step(H - 2 * GAMMA * H * H + GAMMA**2 * H * H * H, "multiply out the right factor; H commutes with itself"),
        ],
        intro="With H = Σ_i x_i x_iᵀ, GD++ maps every x_j to (I − γH) x_j, so the new Gram matrix is "
        "(I − γH) H (I − γH): each eigenvalue λ of H becomes λ − 2γλ² + γ²λ³.",
    )


PROP1_QUERY_DERIVATION = _prop1_query_derivation()
GDPP_CONDITIONING_DERIVATION = _gdpp_conditioning_derivation()


# ---------------------------------------------------------------------------------------------
# Figure: stacked θ_GD layers and GD steps give the same loss curve


def _depth_curve_data(seed: int = 0, batch: int = 2000, n: int = 10, d: int = 10, eta: float = 3.0) -> dict:
    """½·MSE on the query after K θ_GD layers and after K GD steps, K = 0..10 (the paper's d = N = 10)."""
    rng = np.random.default_rng(seed)
    tasks = sample_tasks(rng, batch, n, d, x_range=CODE_X_RANGE, seed=seed)
    tokens = lsa.make_tokens(tasks.X, tasks.Y, tasks.x_q)
    params = lsa.theta_gd(d, 1, eta, n)
    ks = np.arange(11)
    layer_loss, gd_loss = [], []
    out, W = tokens, np.zeros((batch, 1, d))
    for k in ks:  # one more layer and one more GD step each time
        if k:
            out, W = lsa.lsa_layer(out, params, n), gd(W, tasks.X, tasks.Y, eta)
        layer_loss.append(half_mse(lsa.readout(out, 1, n), tasks.y_q))
        gd_loss.append(half_mse(np.einsum("bqx,byx->bqy", tasks.x_q, W), tasks.y_q))
    return {"K": ks, "lsa": np.array(layer_loss), "gd": np.array(gd_loss)}


def _draw_depth_curve(ax, data) -> None:
    ax.plot(data["K"], data["gd"], "-", color="0.3", label="K steps of GD (η = 3)")
    ax.plot(data["K"], data["lsa"], "o", color="tab:blue", label="K stacked θ_GD layers")
    ax.set_yscale("log")
    ax.set_xlabel("K (layers = steps)")
    ax.set_ylabel("½·MSE on the query")
    ax.legend()


FIGURES = (
    Figure(
        name="depth-curve",
        caption="K stacked θ_GD layers and K GD steps from W = 0 give the same query loss "
        "(2000 tasks, d = N = 10, x ~ U(−0.5, 0.5) as in the authors' code, seed 0).",
        data=_depth_curve_data,
        draw=_draw_depth_curve,
    ),
)
