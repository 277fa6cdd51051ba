"""Claims: linear self-attention implements gradient descent (von Oswald et al., ICML 2023).

Symbolic side in the paper's convention (tokens are **columns**): context E = [X; Y] with
X ∈ R^{Nx×N}, Y ∈ R^{Ny×N}; query e_q = [x_q; −W0 x_q]. One LSA layer adds
P W_V (E Eᵀ) W_Kᵀ W_Q e to every token e. The numeric side (``numerics.lsa.layers``) uses rows.
Each ``*_residuals`` function builds lhs − rhs with matrix symbols of any size: symbolic
sizes give the dimension-free proof, integer sizes the explicit check.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import sympy as sp
from hypothesis import strategies as st
from sympy.matrices.expressions import BlockMatrix, Identity, MatrixSymbol, ZeroMatrix

from icl_verify.engine.claims import Claim, Explicit, Numeric
from icl_verify.engine.derivation import Derivation, Step
from icl_verify.engine.figure import Figure
from icl_verify.engine.strategies import dims, matrices, reals, regression_cases
from icl_verify.engine.symbolic import as_explicit, grid
from icl_verify.numerics.lsa import layers as lsa
from icl_verify.numerics.lsa.regression import CODE_X_RANGE, gd, half_mse, sample_tasks

FAMILY = "lsa-gd"
PAPER = "von Oswald et al. 2023"
SIZES = grid(Nx=range(1, 3), Ny=range(1, 3), N=range(1, 4))

NX, NY, N = sp.symbols("N_x N_y N", positive=True, integer=True)
ETA, GAMMA, LAM, S = sp.symbols("eta gamma lambda s", nonzero=True)


# ---------------------------------------------------------------------------------------------
# Symbolic building blocks (columns convention)


def _setup(nx: Any, ny: Any, n: Any, *, zero_w0: bool = False) -> dict[str, Any]:
    X, Y = MatrixSymbol("X", nx, n), MatrixSymbol("Y", ny, n)
    W0 = ZeroMatrix(ny, nx) if zero_w0 else MatrixSymbol("W_0", ny, nx)
    xq = MatrixSymbol("x_q", nx, 1)
    return {
        "X": X,
        "Y": Y,
        "W0": W0,
        "xq": xq,
        "E": BlockMatrix([[X], [Y]]),
        "eq": BlockMatrix([[xq], [-W0 * xq]]),
        "WKQ": BlockMatrix([[Identity(nx), ZeroMatrix(nx, ny)], [ZeroMatrix(ny, nx), ZeroMatrix(ny, ny)]]),
        "WV": BlockMatrix([[ZeroMatrix(nx, nx), ZeroMatrix(nx, ny)], [W0, -Identity(ny)]]),
        "dW": -(ETA / n) * (W0 * X - Y) * X.T,  # ΔW = −η ∇L(W0), L = 1/(2N) Σ‖W x_i − y_i‖²
    }


def prop1_residuals(
    nx: Any = NX, ny: Any = NY, n: Any = N, *, include_query: bool = False, p: Any = None, zero_w0: bool = False
) -> list:
    """θ_GD layer minus one GD step, for the context tokens and the query (Proposition 1).

    ``p`` replaces the scalar P = η/N (e.g. ``ETA`` for the P = η·I misprint);
    ``include_query`` adds the query to the keys/values; ``zero_w0`` sets W0 = 0.
    """
    s = _setup(nx, ny, n, zero_w0=zero_w0)
    p = ETA / n if p is None else p
    C = s["E"] * s["E"].T + (s["eq"] * s["eq"].T if include_query else ZeroMatrix(nx + ny, nx + ny))
    layer = lambda e: e + p * s["WV"] * C * s["WKQ"] * e  # noqa: E731 — the LSA layer, paper eq. 8
    X, Y, W0, xq, dW = s["X"], s["Y"], s["W0"], s["xq"], s["dW"]
    return [
        layer(s["E"]) - BlockMatrix([[X], [Y - dW * X]]),
        layer(s["eq"]) - BlockMatrix([[xq], [-(W0 + dW) * xq]]),
    ]


def _explicit(fn, **kwargs) -> Explicit:
    """The explicit check of ``fn`` at :data:`SIZES` (named as the numeric cases name them)."""
    return Explicit(lambda Nx, Ny, N: as_explicit(fn(Nx, Ny, N, **kwargs)), SIZES)


# ---------------------------------------------------------------------------------------------
# Numeric side: cases and comparisons


def _gd_scale(X: np.ndarray, Y: np.ndarray, x_q: np.ndarray, Ws: list[np.ndarray], eta: float) -> float:
    """Magnitude of the terms a GD step adds: |y| + η/N |W x − y|ᵀ|x| |x'| over the iterates W."""
    x_all = np.abs(np.vstack([X, x_q]))
    terms = [np.abs(W) @ np.abs(X).T + np.abs(Y).T for W in Ws]
    step = max(eta / X.shape[0] * float(np.max(t @ np.abs(X) @ x_all.T)) for t in terms)
    return max(step, float(np.max(np.abs(Y))), max(float(np.max(np.abs(W) @ x_all.T)) for W in Ws))


def _layer_view(out: np.ndarray, case: dict) -> np.ndarray:
    """The context tokens' y-parts and the query readout of an LSA output, flattened."""
    n = case["N"]
    return np.concatenate([out[0, :n, case["Nx"] :].ravel(), lsa.readout(out, case["Ny"], n).ravel()])


def _gd_view(case: dict, W_from: np.ndarray, W_to: np.ndarray) -> np.ndarray:
    """What GD from W_from to W_to predicts for them: y_i − (W_to − W_from) x_i and W_to x_q."""
    moved = case["Y"] - case["X"] @ (W_to - W_from).T
    return np.concatenate([moved.ravel(), (case["x_q"] @ W_to.T).ravel()])


def _tokens(case: dict) -> np.ndarray:
    return lsa.make_tokens(case["X"][None], case["Y"][None], case["x_q"][None], case["W0"])


def _one_gd_step(case: dict, *, include_query: bool = False, p_times_n: bool = False) -> tuple:
    """(LSA layer output, one GD step) for the context y-parts and the query readout."""
    X, Y, x_q, W0, eta, n = case["X"], case["Y"], case["x_q"], case["W0"], case["eta"], case["N"]
    params = lsa.theta_gd(case["Nx"], case["Ny"], eta, n, W0)
    if p_times_n:
        params = replace(params, P=params.P * n)
    out = lsa.lsa_layer(_tokens(case), params, n, include_query=include_query)
    W1 = gd(W0, X[None], Y[None], eta)[0]
    return _layer_view(out, case), _gd_view(case, W0, W1), _gd_scale(X, Y, x_q, [W0, W1], eta)


# ---------------------------------------------------------------------------------------------
# Proposition 1 and its traps

PROP1 = Claim(
    name="prop1-lsa-equals-gd-step",
    source=f"{PAPER}, Proposition 1 (eq. 8–9)",
    statement=(
        r"\theta_{GD}:\ e_j \mapsto e_j + \tfrac{\eta}{N} W_V (\textstyle\sum_i e_i e_i^\top) W_K^\top W_Q e_j"
        r" = (x_j,\ y_j - \Delta W x_j),\quad \hat y_q = (W_0 + \Delta W) x_q,\quad"
        r" \Delta W = -\tfrac{\eta}{N}\sum_i (W_0 x_i - y_i) x_i^\top"
    ),
    symbolic=prop1_residuals,
    explicit=_explicit(prop1_residuals),
    numeric=Numeric(regression_cases(), _one_gd_step),
)

PROP1_QUERY_IN_KEYS = Claim(
    name="prop1-query-in-keys-w0-nonzero",
    source=f"{PAPER}, Proposition 1 (query in the keys and values, W0 ≠ 0)",
    statement=r"\text{Proposition 1 with the query } (x_q, -W_0 x_q) \text{ also among the keys/values, } W_0 \neq 0",
    explicit=_explicit(prop1_residuals, include_query=True),
    numeric=Numeric(regression_cases(), lambda c: _one_gd_step(c, include_query=True)),
    holds=False,
    correction="prop1-lsa-equals-gd-step",
    note="Including the query adds (2η/N) W0 x_q ‖x_q‖² to its update: O(1) error whenever W0 x_q ≠ 0.",
)


def _query_in_keys_w0_zero(nx: Any = NX, ny: Any = NY, n: Any = N) -> list:
    return prop1_residuals(nx, ny, n, include_query=True, zero_w0=True)


PROP1_QUERY_IN_KEYS_W0_ZERO = Claim(
    name="prop1-query-in-keys-w0-zero",
    source=f"{PAPER}, Proposition 1 (query in the keys and values, W0 = 0)",
    statement=r"W_0 = 0,\ y_q = 0:\ \text{including the query in the keys/values changes nothing}",
    symbolic=_query_in_keys_w0_zero,
    explicit=_explicit(_query_in_keys_w0_zero),
    numeric=Numeric(regression_cases(w0=False), lambda c: _one_gd_step(c, include_query=True)),
)

PROP1_P_ETA = Claim(
    name="prop1-p-eta-not-eta-over-n",
    source=f"{PAPER}, Proposition 1 with P = ηI",
    statement=r"\theta_{GD} \text{ with } P = \eta I \text{ (instead of } \tfrac{\eta}{N} I) \text{ is one GD step}",
    explicit=_explicit(prop1_residuals, p=ETA),
    numeric=Numeric(regression_cases(), lambda c: _one_gd_step(c, p_times_n=True)),
    holds=False,
    correction="prop1-lsa-equals-gd-step",
    note="P = ηI is a GD step with rate ηN: it agrees with the paper's loss only at N = 1.",
)


# ---------------------------------------------------------------------------------------------
# Depth, damping, symmetry


def stacked_step_residuals(nx: Any = NX, ny: Any = NY, n: Any = N) -> list:
    """Induction step: a θ_GD(W0 = 0) layer maps (X, Y − W X; x_q, −W x_q) to the same with W' = W − η∇L(W)."""
    s = _setup(nx, ny, n)
    X, Y, xq = s["X"], s["Y"], s["xq"]
    W = MatrixSymbol("W", ny, nx)
    WV0 = BlockMatrix([[ZeroMatrix(nx, nx), ZeroMatrix(nx, ny)], [ZeroMatrix(ny, nx), -Identity(ny)]])
    E = BlockMatrix([[X], [Y - W * X]])
    eq = BlockMatrix([[xq], [-W * xq]])
    step = lambda e: e + (ETA / n) * WV0 * (E * E.T) * s["WKQ"] * e  # noqa: E731
    W1 = W - (ETA / n) * (W * X - Y) * X.T
    return [step(E) - BlockMatrix([[X], [Y - W1 * X]]), step(eq) - BlockMatrix([[xq], [-W1 * xq]])]


@st.composite
def stacked_cases(draw) -> dict:
    case = draw(regression_cases(w0=False, bound=1.0))
    case["K"] = draw(dims(1, 4))
    case["eta"] = min(case["eta"], 1.0)
    return case


def _k_layers(case: dict) -> tuple:
    X, Y, x_q, eta, n, K = case["X"], case["Y"], case["x_q"], case["eta"], case["N"], case["K"]
    params = lsa.theta_gd(case["Nx"], case["Ny"], eta, n)
    out = lsa.lsa_recurrent(_tokens(case), params, K, n)
    Ws = [gd(case["W0"], X[None], Y[None], eta, k)[0] for k in range(K + 1)]
    return _layer_view(out, case), _gd_view(case, Ws[0], Ws[-1]), _gd_scale(X, Y, x_q, Ws, eta)


K_LAYERS = Claim(
    name="k-layers-equal-k-gd-steps",
    source=f"{PAPER}, §3 (stacked θ_GD layers)",
    statement=(
        r"K \text{ stacked } \theta_{GD}(W_0{=}0) \text{ layers: context } y_i \mapsto y_i - W_K x_i,\ "
        r"\hat y_q = W_K x_q,\ W_{k+1} = W_k - \eta \nabla L(W_k),\ W_0 = 0"
    ),
    symbolic=stacked_step_residuals,
    explicit=_explicit(stacked_step_residuals),
    numeric=Numeric(stacked_cases(), _k_layers),
    note="Proved by induction on K: the symbolic check is the induction step (any W, any size); K = 0 is trivial.",
)


def damping_residuals(nx: Any = NX, ny: Any = NY, n: Any = N) -> list:
    """e + λ·(θ_GD(η) update) equals the θ_GD(λη) layer."""
    s = _setup(nx, ny, n)
    upd = lambda e, p: p * s["WV"] * (s["E"] * s["E"].T) * s["WKQ"] * e  # noqa: E731
    return [upd(e, LAM * ETA / n) - LAM * upd(e, ETA / n) for e in (s["E"], s["eq"])]


@st.composite
def damping_cases(draw) -> dict:
    case = draw(regression_cases())
    case["lambda"] = draw(reals(2.0))
    return case


def _damped(case: dict) -> tuple:
    lam = case["lambda"]
    X, Y, x_q, W0, eta, n = case["X"], case["Y"], case["x_q"], case["W0"], case["eta"], case["N"]
    params = lsa.theta_gd(case["Nx"], case["Ny"], eta, n, W0)
    out = lsa.lsa_layer(_tokens(case), params, n, damping=lam)
    W1 = gd(W0, X[None], Y[None], lam * eta)[0]
    return _layer_view(out, case), _gd_view(case, W0, W1), _gd_scale(X, Y, x_q, [W0, W1], abs(lam) * eta)


DAMPING = Claim(
    name="damping-equals-scaled-step",
    source=f"{PAPER}, §3 (damped recurrent layers)",
    statement=r"e \mapsto e + \lambda\,\mathrm{LSA}_{\theta_{GD}(\eta)}(e) \ \equiv\ \theta_{GD}(\lambda\eta)",
    symbolic=damping_residuals,
    numeric=Numeric(damping_cases(), _damped),
)


def rescaling_residuals() -> list:
    """P (s W_V) C W_Kᵀ (W_Q / s) e − P W_V C W_Kᵀ W_Q e for arbitrary matrices and s ≠ 0."""
    D, T = sp.symbols("D T", positive=True, integer=True)
    P, WV, WK, WQ = (MatrixSymbol(name, D, D) for name in ("P", "W_V", "W_K", "W_Q"))
    E = MatrixSymbol("E", D, T)
    C = E * E.T
    return [P * (S * WV) * C * WK.T * (WQ / S) * E - P * WV * C * WK.T * WQ * E]


@st.composite
def lsa_param_cases(draw) -> dict:
    H, D, T = draw(dims(1, 2)), draw(dims(1, 4)), draw(dims(2, 5))
    n = draw(dims(1, T))
    s = draw(st.one_of(reals(4.0, positive=True), reals(4.0, positive=True).map(lambda v: -v)))
    arrays = {k: np.stack([draw(matrices(D, D, 1.0)) for _ in range(H)]) for k in ("P", "W_V", "W_K", "W_Q")}
    return {"H": H, "D": D, "T": T, "N": n, "s": s, "tokens": draw(matrices(T, D)), **arrays}


def _rescaled(case: dict) -> tuple:
    params = lsa.LSAParams(case["P"], case["W_V"], case["W_K"], case["W_Q"])
    scaled = replace(params, W_V=params.W_V * case["s"], W_Q=params.W_Q / case["s"])
    tokens = case["tokens"][None]
    lhs = lsa.lsa_layer(tokens, scaled, case["N"])
    rhs = lsa.lsa_layer(tokens, params, case["N"])
    return lhs, rhs, float(np.max(np.abs(lsa.lsa_update(tokens, params, case["N"])))) * 4


RESCALING = Claim(
    name="lsa-rescaling-invariance",
    source=f"{PAPER}, §3 (only P W_V and W_Kᵀ W_Q matter)",
    statement=r"(P W_V \cdot s,\ W_K^\top W_Q / s) \text{ gives the same layer for every } s \neq 0",
    symbolic=rescaling_residuals,
    numeric=Numeric(lsa_param_cases(), _rescaled),
)


# ---------------------------------------------------------------------------------------------
# GD++ and Proposition 2


def gdpp_residuals(nx: Any = NX, ny: Any = NY, n: Any = N) -> list:
    """GD++ layer (eq. 23) minus x_j ↦ (I − γ XXᵀ) x_j, y_j ↦ y_j − ΔW x_j, for context and query."""
    s = _setup(nx, ny, n)
    X, Y, W0, xq, dW = s["X"], s["Y"], s["W0"], s["xq"], s["dW"]
    WV = BlockMatrix([[Identity(nx), ZeroMatrix(nx, ny)], [W0, -Identity(ny)]])
    P = BlockMatrix([[-GAMMA * Identity(nx), ZeroMatrix(nx, ny)], [ZeroMatrix(ny, nx), (ETA / n) * Identity(ny)]])
    layer = lambda e: e + P * WV * (s["E"] * s["E"].T) * s["WKQ"] * e  # noqa: E731
    A = Identity(nx) - GAMMA * X * X.T
    return [
        layer(s["E"]) - BlockMatrix([[A * X], [Y - dW * X]]),
        layer(s["eq"]) - BlockMatrix([[A * xq], [-(W0 + dW) * xq]]),
    ]


@st.composite
def gdpp_cases(draw) -> dict:
    case = draw(regression_cases())
    case["gamma"] = draw(reals(1.0))
    return case


def _gdpp(case: dict) -> tuple:
    X, Y, x_q, W0, eta, n, g = case["X"], case["Y"], case["x_q"], case["W0"], case["eta"], case["N"], case["gamma"]
    params = lsa.theta_gdpp(case["Nx"], case["Ny"], eta, g, n, W0)
    out = lsa.lsa_layer(_tokens(case), params, n)[0]
    W1 = gd(W0, X[None], Y[None], eta)[0]
    x_all = np.vstack([X, x_q])
    A = np.eye(case["Nx"]) - g * X.T @ X
    rhs_x = x_all @ A.T
    rhs_y = np.vstack([Y - X @ (W1 - W0).T, -x_q @ W1.T])
    lhs = out.ravel()
    rhs = np.hstack([rhs_x, rhs_y]).ravel()
    scale = max(_gd_scale(X, Y, x_q, [W0, W1], eta), float(np.max(np.abs(g) * np.abs(x_all) @ np.abs(X.T @ X))))
    return lhs, rhs, scale


GDPP = Claim(
    name="gdpp-update",
    source=f"{PAPER}, GD++ (eq. 23; eq. 22 as printed drops a factor)",
    statement=(
        r"W_V = \begin{psmallmatrix} I & 0 \\ W_0 & -I \end{psmallmatrix},\ "
        r"P = \begin{psmallmatrix} -\gamma I & 0 \\ 0 & \frac{\eta}{N} I \end{psmallmatrix}:\ "
        r"x_j \mapsto (I - \gamma X X^\top) x_j,\ y_j \mapsto y_j - \Delta W x_j"
    ),
    symbolic=gdpp_residuals,
    explicit=_explicit(gdpp_residuals),
    numeric=Numeric(gdpp_cases(), _gdpp),
)


def gdpp_conditioning_residuals() -> list:
    """(I − γH) H (I − γH) = H − 2γH² + γ²H³ for any square H."""
    d = sp.Symbol("d", positive=True, integer=True)
    H, Id = MatrixSymbol("H", d, d), Identity(d)
    return [(Id - GAMMA * H) * H * (Id - GAMMA * H) - (H - 2 * GAMMA * H * H + GAMMA**2 * H * H * H)]


def _gdpp_spectrum(case: dict) -> tuple:
    X, n, g = case["X"], case["N"], case["gamma"]
    params = lsa.theta_gdpp(case["Nx"], case["Ny"], case["eta"], g, n, case["W0"])
    new_x = lsa.lsa_layer(_tokens(case), params, n)[0, :n, : case["Nx"]]
    lam = np.linalg.eigvalsh(X.T @ X)
    lhs = np.sort(np.linalg.eigvalsh(new_x.T @ new_x))
    rhs = np.sort(lam - 2 * g * lam**2 + g**2 * lam**3)
    return lhs, rhs, float(np.max(lam * (1 + abs(g) * lam) ** 2))


GDPP_CONDITIONING = Claim(
    name="gdpp-hessian-spectrum",
    source=f"{PAPER}, §4 (GD++ improves the data Hessian's conditioning)",
    statement=r"\operatorname{spec}\big(\textstyle\sum_i x_i' x_i'^\top\big) = \{\lambda - 2\gamma\lambda^2 + \gamma^2\lambda^3\}",
    symbolic=gdpp_conditioning_residuals,
    numeric=Numeric(gdpp_cases(), _gdpp_spectrum),
)


def kernel_residuals(nm: Any = NX, ny: Any = NY, n: Any = N) -> list:
    """With features M = m(X) and W0 = 0, the θ_GD readout is (η/N) Y Mᵀ m(x_q) = (η/N) Σ y_i k(x_i, x_q)."""
    s = _setup(nm, ny, n)
    M, Y, mq = s["X"], s["Y"], s["xq"]  # the same symbols, read as MLP features
    WV0 = BlockMatrix([[ZeroMatrix(nm, nm), ZeroMatrix(nm, ny)], [ZeroMatrix(ny, nm), -Identity(ny)]])
    eq = BlockMatrix([[mq], [ZeroMatrix(ny, 1)]])
    out = eq + (ETA / n) * WV0 * (s["E"] * s["E"].T) * s["WKQ"] * eq
    readout = -BlockMatrix([[ZeroMatrix(ny, nm), Identity(ny)]]) * out
    return [readout - (ETA / n) * Y * M.T * mq]


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
    symbolic=kernel_residuals,
    numeric=Numeric(kernel_cases(), _kernel),
)

PROP2_AS_PRINTED = Claim(
    name="prop2-as-printed",
    source=f"{PAPER}, Proposition 2 as printed",
    statement=r"\hat y_q = \sum_i y_i\, k(x_i, x_q)",
    numeric=Numeric(kernel_cases(), lambda c: _kernel(c, printed=True)),
    holds=False,
    correction="prop2-mlp-lsa-kernel-gd",
    note="The printed form omits η/N; the θ_GD layer gives (η/N) Σ y_i k(x_i, x_q).",
)


# ---------------------------------------------------------------------------------------------
# Derivations (rendered by `icl-verify docs`; every step checked by SymPy)


def _prop1_query_derivation() -> Derivation:
    s = _setup(NX, NY, N)
    X, Y, W0, xq, E, eq = s["X"], s["Y"], s["W0"], s["xq"], s["E"], s["eq"]
    zero_y = ZeroMatrix(NY, 1)
    steps = [
        Step(
            eq + (ETA / N) * s["WV"] * E * E.T * BlockMatrix([[xq], [zero_y]]),
            "W_K = W_Q = diag(I_x, 0) keep x_q only",
            "θ_GD",
        ),
        Step(eq + (ETA / N) * s["WV"] * E * X.T * xq, "Eᵀ [x_q; 0] = Xᵀ x_q, i.e. Σ_i e_i x_iᵀ x_q", "eq. 8"),
        Step(
            eq + (ETA / N) * BlockMatrix([[ZeroMatrix(NX, N)], [W0 * X - Y]]) * X.T * xq,
            "W_V e_i = (0, W0 x_i − y_i)",
            "θ_GD",
        ),
        Step(BlockMatrix([[xq], [-W0 * xq + (ETA / N) * (W0 * X - Y) * X.T * xq]]), "collect the blocks", ""),
        Step(
            BlockMatrix([[xq], [-(W0 + s["dW"]) * xq]]),
            "ΔW = −(η/N) Σ_i (W0 x_i − y_i) x_iᵀ, one GD step on L = 1/(2N) Σ‖W x_i − y_i‖²",
            "eq. 2",
        ),
    ]
    return Derivation(
        name="prop1-query",
        title="Proposition 1: the query token after one θ_GD layer",
        source=f"{PAPER}, Proposition 1",
        start=eq + (ETA / N) * s["WV"] * E * E.T * s["WKQ"] * eq,
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
    for k in ks:
        out = lsa.lsa_recurrent(tokens, params, k, n) if k else tokens
        layer_loss.append(half_mse(lsa.readout(out, 1, n), tasks.y_q))
        W = gd(np.zeros((1, d)), tasks.X, tasks.Y, eta, int(k))
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
