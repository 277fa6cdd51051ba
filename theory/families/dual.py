"""Claims: attention as the dual form of gradient descent (Dai et al., ACL Findings 2023, §3).

Symbolic side in the paper's convention (tokens are columns): X' ∈ R^{d×n'} demonstrations,
X ∈ R^{d×n} query text, q ∈ R^d the attention query. The numeric side (``numerics.dual``)
uses rows.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import sympy as sp
from hypothesis import strategies as st
from sympy.matrices.expressions import BlockMatrix, MatrixSymbol

from icl_verify.blocks import delta_w_icl, demo_mass, icl_attention, softmax_attention, w_zsl
from icl_verify.engine.claims import Claim, Explicit, Numeric
from icl_verify.engine.derivation import Derivation, Step
from icl_verify.engine.figure import Figure
from icl_verify.engine.statement import matrix, statement
from icl_verify.engine.strategies import dims, matrices, reals
from icl_verify.engine.symbolic import grid
from icl_verify.numerics import dual

FAMILY = "dual-gd"
PAPER = "Dai et al. 2023"


# ---------------------------------------------------------------------------------------------
# Dual form of a linear layer trained by one GD step (eq. 3–5)


def _loss(kind: str, y: sp.Matrix, t: sp.Matrix) -> sp.Expr:
    """A per-example loss ℓ(y, t): squared error or the softplus (logistic) loss."""
    if kind == "squared":
        return sum((y[k] - t[k]) ** 2 for k in range(y.shape[0])) / 2
    return sum(sp.log(1 + sp.exp(-t[k] * y[k])) for k in range(y.shape[0]))


def dual_layer_residuals(d_in: int, d_out: int, n: int, loss: str = "squared") -> list:
    """(W0 − γ∇_W L) x − (W0 x + Σ_i e_i (x_iᵀ x)), e_i = −γ ∂ℓ/∂y_i at y_i = W0 x_i.

    Both gradients are computed by SymPy differentiation, so the check is of the chain rule
    ∇_W L = Σ_i (∂ℓ/∂y_i) x_iᵀ that the dual form rests on, not of a typed-in formula.
    """
    gamma = sp.Symbol("gamma")
    W0 = sp.Matrix(MatrixSymbol("W_0", d_out, d_in))
    xs = [sp.Matrix(MatrixSymbol(f"x{i}", d_in, 1)) for i in range(n)]
    ts = [sp.Matrix(MatrixSymbol(f"t{i}", d_out, 1)) for i in range(n)]
    x = sp.Matrix(MatrixSymbol("x", d_in, 1))
    W = sp.Matrix(d_out, d_in, lambda r, c: sp.Symbol(f"w_{r}{c}"))
    L = sum(_loss(loss, W * xi, ti) for xi, ti in zip(xs, ts))
    grad_W = sp.Matrix(d_out, d_in, lambda r, c: sp.diff(L, W[r, c])).subs(dict(zip(W, W0)))
    y = sp.Matrix(sp.symbols(f"y0:{d_out}"))
    errors = []
    for xi, ti in zip(xs, ts):
        dl_dy = sp.Matrix([sp.diff(_loss(loss, y, ti), yk) for yk in y]).subs(dict(zip(y, W0 * xi)))
        errors.append(-gamma * dl_dy)
    lhs = (W0 - gamma * grad_W) * x
    rhs = W0 * x + sum((e * (xi.T * x)[0, 0] for e, xi in zip(errors, xs)), sp.zeros(d_out, 1))
    return [lhs - rhs]


@st.composite
def dual_layer_cases(draw) -> dict:
    d_in, d_out, n = draw(dims(1, 4)), draw(dims(1, 3)), draw(dims(1, 5))
    return {
        "d_in": d_in,
        "d_out": d_out,
        "n": n,
        "W0": draw(matrices(d_out, d_in)),
        "X": draw(matrices(n, d_in)),
        "T": draw(matrices(n, d_out)),
        "x": draw(matrices(1, d_in))[0],
        "gamma": draw(reals(1.0, positive=True)),
    }


def _squared_loss(W: np.ndarray, X: np.ndarray, T: np.ndarray) -> float:
    return 0.5 * float(np.sum((X @ W.T - T) ** 2))


def _central_difference_grad(W: np.ndarray, X: np.ndarray, T: np.ndarray, h: float = 1e-3) -> np.ndarray:
    """∇_W L by central differences — exact for a quadratic loss up to rounding."""
    grad = np.zeros_like(W)
    for idx in np.ndindex(W.shape):
        step = np.zeros_like(W)
        step[idx] = h
        grad[idx] = (_squared_loss(W + step, X, T) - _squared_loss(W - step, X, T)) / (2 * h)
    return grad


def _dual_layer(case: dict) -> tuple:
    W0, X, T, x, gamma = case["W0"], case["X"], case["T"], case["x"], case["gamma"]
    primal = (W0 - gamma * _central_difference_grad(W0, X, T)) @ x
    errors = -gamma * (X @ W0.T - T)  # e_i = −γ ∂ℓ/∂y_i, ℓ = ½‖y − t‖²
    dual_form = dual.dual_form_prediction(W0, errors, X, x)
    terms = gamma * np.abs(X @ W0.T - T).T @ (np.abs(X) @ np.abs(x))  # Σ_i |e_i| |x_i|ᵀ|x|
    return primal, dual_form, float(np.max(np.abs(W0) @ np.abs(x)) + np.max(terms))


DUAL_LAYER = Claim(
    name="dai-dual-form-linear-layer",
    source=f"{PAPER}, §3.1 eq. 3–5",
    statement=(
        r"(W_0 + \Delta W) x = W_0 x + \sum_i e_i (x_i'^\top x) = W_0 x + \mathrm{LinearAttn}(E, X', x),"
        r"\quad e_i = -\gamma \nabla_{y_i} \mathcal{L}"
    ),
    explicit=Explicit(
        lambda d_in, d_out, n, loss: dual_layer_residuals(d_in, d_out, n, loss),
        [dict(s, loss=loss) for loss in ("squared", "softplus") for s in grid(d_in=(1, 2), d_out=(1, 2), n=(1, 2))],
    ),
    numeric=Numeric(dual_layer_cases(), _dual_layer, rtol=1e-6),
    note="Explicit check: squared and softplus losses, gradients by SymPy differentiation; "
    "numeric check: ∇_W L by central differences.",
    assumptions=("a linear layer W0 trained by one GD step on a differentiable per-example loss",),
)


# ---------------------------------------------------------------------------------------------
# Relaxed linear ICL attention (eq. 8–9)

D_IN, D_K, D_V, N_DEMO, N_TEXT = sp.symbols("d d_k d_v n' n", positive=True, integer=True)

ICL_SYMBOLS = {
    "W_V": matrix("d_v", "d", bound=2.0),
    "W_K": matrix("d_k", "d", bound=2.0),
    "demos": matrix("d", "n_demo", bound=2.0),
    "text": matrix("d", "n_text", bound=2.0),
    "q": matrix("d_k", 1, bound=2.0),
}
"""Dai et al.'s objects as columns: values W_V x, keys W_K x, demonstrations X', query text X, query q."""
ICL_SIZES = {"d": (1, 4), "d_k": (1, 3), "d_v": (1, 3), "n_demo": (1, 4), "n_text": (1, 4)}
UNNORMALISED = "softmax and the 1/√d scale dropped (relaxed linear attention)"


def dual_weights_times_q(W_V: Any, W_K: Any, demos: Any, text: Any, q: Any) -> Any:
    """(W_ZSL + ΔW_ICL) q: the zero-shot weights plus the demonstrations' implicit update, applied to q (eq. 9)."""
    return (w_zsl(W_V, W_K, text) + delta_w_icl(W_V, W_K, demos)) @ q


RELAXED_ICL = statement(
    name="dai-relaxed-icl-attention",
    source=f"{PAPER}, §3.2 eq. 8–9",
    statement=(
        r"W_V [X'; X] (W_K [X'; X])^\top q = (W_{ZSL} + \Delta W_{ICL})\, q,\quad"
        r" \Delta W_{ICL} = \sum_i (W_V x_i') \otimes (W_K x_i')"
    ),
    symbols=ICL_SYMBOLS,
    lhs=icl_attention,
    rhs=dual_weights_times_q,
    explicit=False,
    sizes=ICL_SIZES,
    assumptions=(UNNORMALISED,),
    builds_on=("dai-dual-form-linear-layer",),
)


def softmax_mixture(W_V: Any, W_K: Any, demos: Any, text: Any, q: Any) -> Any:
    """(1 − λ(q)) Attn_ZSL(q) + λ(q) Attn_demo(q): the exact form of softmax attention over [X', X] (§3.2)."""
    lam = demo_mass(W_K, demos, text, q)
    zsl = softmax_attention(W_V @ text, W_K @ text, q)
    demo = softmax_attention(W_V @ demos, W_K @ demos, q)
    return (1 - lam) * zsl + lam * demo


SOFTMAX_AS_RELAXED = statement(
    name="dai-relaxed-form-under-softmax",
    source=f"{PAPER}, §3.2 (the relaxed dual form applied to softmax attention)",
    statement=r"\mathrm{softmax\ attention}_{[X'; X]}(q) = (W_{ZSL} + \Delta W_{ICL})\, q",
    symbols=ICL_SYMBOLS,
    lhs=lambda W_V, W_K, demos, text, q: icl_attention(W_V, W_K, demos, text, q, softmax=True),
    rhs=dual_weights_times_q,
    holds=False,
    corrected=softmax_mixture,
    symbolic=False,
    explicit=False,
    sizes=ICL_SIZES,
    correction="dai-softmax-convex-mixture",
    note="The dual form needs the softmax (and 1/√d) dropped; with softmax the exact identity is a convex mixture.",
    assumptions=("softmax kept, 1/√d scale dropped",),
    builds_on=("dai-relaxed-icl-attention",),
)


@st.composite
def icl_cases(draw) -> dict:
    """Rows-convention cases for ``numerics.dual`` (demonstrations and text tokens as rows)."""
    d, dk, dv = draw(dims(1, 4)), draw(dims(1, 3)), draw(dims(1, 3))
    n_demo, n_text = draw(dims(1, 4)), draw(dims(1, 4))
    return {
        "d": d,
        "d_k": dk,
        "d_v": dv,
        "n_demo": n_demo,
        "n_text": n_text,
        "W_V": draw(matrices(dv, d, 2.0)),
        "W_K": draw(matrices(dk, d, 2.0)),
        "demos": draw(matrices(n_demo, d, 2.0)),
        "text": draw(matrices(n_text, d, 2.0)),
        "q": draw(matrices(1, dk, 2.0))[0],
    }


def _dual_weights_times_q(case: dict) -> np.ndarray:
    """(W_ZSL + ΔW_ICL) q through ``numerics.dual`` (rows), for the figure."""
    W = dual.zero_shot_weight(case["W_V"], case["W_K"], case["text"]) + dual.delta_w_icl(
        case["W_V"], case["W_K"], case["demos"]
    )
    return W @ case["q"]


# ---------------------------------------------------------------------------------------------
# The exact softmax identity: a convex mixture of zero-shot and demonstration attention


def softmax_mixture_residuals(n_demo: int, n_text: int, d_v: int) -> list:
    """Attn_ICL − ((1 − λ) Attn_ZSL + λ Attn_demo) with symbolic scores s and values v."""
    s = sp.symbols(f"s0:{n_demo + n_text}", real=True)
    V = sp.Matrix(MatrixSymbol("V", n_demo + n_text, d_v))
    w = [sp.exp(si) for si in s]
    attend = lambda idx: sum((w[i] * V[i, :] for i in idx), sp.zeros(1, d_v)) / sum(w[i] for i in idx)  # noqa: E731
    demo, text, every = range(n_demo), range(n_demo, n_demo + n_text), range(n_demo + n_text)
    lam = sum(w[i] for i in demo) / sum(w[i] for i in every)
    return [attend(every) - ((1 - lam) * attend(text) + lam * attend(demo))]


def _softmax_mixture(case: dict) -> tuple:
    W_V, W_K, demos, text, q = case["W_V"], case["W_K"], case["demos"], case["text"], case["q"]
    lam = dual.demo_mass(W_K, demos, text, q)
    zsl = dual.softmax_attention(text @ W_V.T, text @ W_K.T, q)
    demo = dual.softmax_attention(demos @ W_V.T, demos @ W_K.T, q)
    full = dual.icl_attention(W_V, W_K, demos, text, q, use_softmax=True)
    scale = float(np.max(np.abs(np.vstack([demos, text]) @ W_V.T)))
    return full, (1 - lam) * zsl + lam * demo, scale


SOFTMAX_MIXTURE = Claim(
    name="dai-softmax-convex-mixture",
    source=f"{PAPER}, §3.2 with softmax kept",
    statement=(
        r"\mathrm{Attn}_{ICL}(q) = (1 - \lambda(q))\,\mathrm{Attn}_{ZSL}(q) + \lambda(q)\,\mathrm{Attn}_{demo}(q),"
        r"\quad \lambda(q) = \textstyle\sum_{i \in demo} \mathrm{softmax}_i"
    ),
    explicit=Explicit(softmax_mixture_residuals, grid(n_demo=(1, 2, 3), n_text=(1, 2), d_v=(1, 2))),
    numeric=Numeric(icl_cases(), _softmax_mixture),
    assumptions=("softmax kept, 1/√d scale dropped",),
)


# ---------------------------------------------------------------------------------------------
# Momentum attention (eq. 14)


def momentum_residuals(T: int) -> list:
    """EMA recursion m_t = η(m_{t−1} + v_{t−1}), m_0 = 0, minus the explicit Σ_{i<t} η^{t−i} v_i."""
    eta = sp.Symbol("eta")
    v = sp.symbols(f"v0:{T}")
    m: list[Any] = [sp.Integer(0)]
    for t in range(1, T):
        m.append(eta * (m[t - 1] + v[t - 1]))
    explicit = [sum((eta ** (t - i) * v[i] for i in range(t)), sp.Integer(0)) for t in range(T)]
    return [sp.Matrix([a - b for a, b in zip(m, explicit)])]


@st.composite
def momentum_cases(draw) -> dict:
    T, d = draw(dims(1, 8)), draw(dims(1, 3))
    return {"T": T, "d": d, "values": draw(matrices(T, d)), "eta": draw(reals(1.5))}


def _momentum(case: dict) -> tuple:
    values, eta = case["values"], case["eta"]
    scale = float(np.sum(np.abs(values))) * max(1.0, abs(eta)) ** case["T"]
    return dual.momentum_ema(values, eta), dual.momentum_explicit(values, eta), scale


MOMENTUM = Claim(
    name="dai-momentum-ema",
    source=f"{PAPER}, §5 eq. 14 (momentum attention)",
    statement=r"m_t = \eta (m_{t-1} + v_{t-1}),\ m_0 = 0 \iff m_t = \textstyle\sum_{i<t} \eta^{t-i} v_i",
    explicit=Explicit(momentum_residuals, [{"T": T} for T in range(1, 9)]),
    numeric=Numeric(momentum_cases(), _momentum),
)


# ---------------------------------------------------------------------------------------------
# Derivation (rendered by `icl-verify docs`; every step checked by SymPy)


def _relaxed_icl_derivation() -> Derivation:
    W_V, W_K = MatrixSymbol("W_V", D_V, D_IN), MatrixSymbol("W_K", D_K, D_IN)
    Xd, X = MatrixSymbol("X'", D_IN, N_DEMO), MatrixSymbol("X", D_IN, N_TEXT)
    q = MatrixSymbol("q", D_K, 1)
    tokens = BlockMatrix([[Xd, X]])
    return Derivation(
        name="relaxed-icl-attention",
        title="Relaxed ICL attention = zero-shot weights + demonstration update",
        source=f"{PAPER}, §3.2 eq. 8–9",
        start=(W_V * tokens) * (W_K * tokens).T * q,
        steps=[
            Step(W_V * tokens * tokens.T * W_K.T * q, "(W_K T)ᵀ = Tᵀ W_Kᵀ"),
            Step(W_V * (Xd * Xd.T + X * X.T) * W_K.T * q, "(X' X)(X' X)ᵀ = X'X'ᵀ + XXᵀ (block product)"),
            Step(
                (W_V * X * (W_K * X).T + W_V * Xd * (W_K * Xd).T) * q,
                "distribute: W_ZSL = W_V X (W_K X)ᵀ and ΔW_ICL = Σ_i (W_V x'_i)(W_K x'_i)ᵀ",
                "eq. 9",
            ),
        ],
        intro="Columns are tokens: X' holds the demonstrations, X the query text, q the attention query. "
        "Dropping softmax and the 1/√d scale makes attention linear in the keys and values.",
    )


RELAXED_ICL_DERIVATION = _relaxed_icl_derivation()


# ---------------------------------------------------------------------------------------------
# Figure: under softmax the convex mixture is exact and the relaxed dual form is not


def _softmax_forms_data(seed: int = 0, instances: int = 60, d: int = 4) -> dict:
    """|softmax attention − mixture| and |softmax attention − (W_ZSL + ΔW_ICL) q| over random instances."""
    rng = np.random.default_rng(seed)
    n_demos, mixture_err, relaxed_err = [], [], []
    for k in range(instances):
        n_demo = 1 + k % 8
        case = {
            "W_V": rng.standard_normal((d, d)) / np.sqrt(d),
            "W_K": rng.standard_normal((d, d)) / np.sqrt(d),
            "demos": rng.standard_normal((n_demo, d)),
            "text": rng.standard_normal((3, d)),
            "q": rng.standard_normal(d),
        }
        full, mixture, _ = _softmax_mixture(case)
        n_demos.append(n_demo)
        mixture_err.append(float(np.max(np.abs(full - mixture))))
        relaxed_err.append(float(np.max(np.abs(full - _dual_weights_times_q(case)))))
    return {"n_demo": np.array(n_demos), "mixture": np.array(mixture_err), "relaxed": np.array(relaxed_err)}


def _draw_softmax_forms(ax, data) -> None:
    floor = 1e-17  # exact zeros drawn at the floor of the log axis
    ax.semilogy(data["n_demo"], np.maximum(data["relaxed"], floor), "s", color="tab:red", label="relaxed dual form")
    ax.semilogy(data["n_demo"], np.maximum(data["mixture"], floor), "o", color="tab:green", label="convex mixture")
    ax.set_xlabel("number of demonstrations n'")
    ax.set_ylabel("max |difference| from softmax attention")
    ax.legend()


FIGURES = (
    Figure(
        name="softmax-forms",
        caption="Softmax attention over [X'; X] against the two candidate identities, 60 random "
        "instances (d = 4, 3 query-text tokens, seed 0): the convex mixture agrees to rounding "
        "error; the relaxed dual form (W_ZSL + ΔW_ICL) q is off by O(1).",
        data=_softmax_forms_data,
        draw=_draw_softmax_forms,
    ),
)
