"""Claims: attention as the dual form of gradient descent (Dai et al., ACL Findings 2023, §3).

Symbolic side in the paper's convention (tokens are columns): X' ∈ R^{d×n'} demonstrations,
X ∈ R^{d×n} query text, q ∈ R^d the attention query. The numeric side (``numerics.dual.attention``)
uses rows.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import sympy as sp
from hypothesis import strategies as st
from sympy.matrices.expressions import BlockMatrix, MatrixSymbol

from icl_verify.blocks import delta_w_icl, demo_mass, icl_attention, softmax_attention, w_zsl
from icl_verify.blocks.attention import delta_w_ft
from icl_verify.core.checks.explicit import Explicit
from icl_verify.core.checks.numeric import Numeric
from icl_verify.core.checks.symbolic import Symbolic
from icl_verify.core.claims import Claim
from icl_verify.core.derivation import Derivation, Step
from icl_verify.core.figure import Figure
from icl_verify.core.statement import statement
from icl_verify.core.symbols import matrix, scalar
from icl_verify.maths.strategies import dims, matrices, reals
from icl_verify.maths.symbolic import grid
from icl_verify.numerics.dual import attention as dual
from icl_verify.numerics.dual import finetune as dual_finetune

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


def _central_difference_grad(W: np.ndarray, X: np.ndarray, T: np.ndarray, h: float = 1.0) -> np.ndarray:
    """∇_W L by central differences — exact for a quadratic loss at any step h, up to rounding. The rounding
    error is about ε·L/h per entry, so h = 1 (not a small h, whose ε·L/h exceeded the 1e-12 absolute
    tolerance on cases with tiny inputs and an O(10) loss)."""
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
    checks=(
        Explicit(
            lambda d_in, d_out, n, loss: dual_layer_residuals(d_in, d_out, n, loss),
            [dict(s, loss=loss) for loss in ("squared", "softplus") for s in grid(d_in=(1, 2), d_out=(1, 2), n=(1, 2))],
        ),
        Numeric(dual_layer_cases(), _dual_layer, rtol=1e-6),
    ),
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
    expect="proved",
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


def _attention_layer(draw, d: int, dk: int, dv: int, n_demo: int, n_text: int) -> dict:
    """The sizes, value and key matrices and text tokens (rows) shared by the cases of both sides."""
    return {
        "d": d,
        "d_k": dk,
        "d_v": dv,
        "n_demo": n_demo,
        "n_text": n_text,
        "W_V": draw(matrices(dv, d, 2.0)),
        "W_K": draw(matrices(dk, d, 2.0)),
        "text": draw(matrices(n_text, d, 2.0)),
    }


@st.composite
def icl_cases(draw) -> dict:
    """Rows-convention cases for ``numerics.dual.attention`` (demonstrations and text tokens as rows)."""
    d, dk, dv = draw(dims(1, 4)), draw(dims(1, 3)), draw(dims(1, 3))
    case = _attention_layer(draw, d, dk, dv, n_demo=draw(dims(1, 4)), n_text=draw(dims(1, 4)))
    return case | {"demos": draw(matrices(case["n_demo"], d, 2.0)), "q": draw(matrices(1, dk, 2.0))[0]}


def _dual_weights_times_q(case: dict) -> np.ndarray:
    """(W_ZSL + ΔW_ICL) q through ``numerics.dual.attention`` (rows), for the figure."""
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
    checks=(
        Explicit(softmax_mixture_residuals, grid(n_demo=(1, 2, 3), n_text=(1, 2), d_v=(1, 2))),
        Numeric(icl_cases(), _softmax_mixture),
    ),
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
    checks=(
        Explicit(momentum_residuals, [{"T": T} for T in range(1, 9)]),
        Numeric(momentum_cases(), _momentum),
    ),
)


# ---------------------------------------------------------------------------------------------
# Fine-tuning the keys and values on the demonstrations (§3.3): what relates ΔW_FT to ΔW_ICL

FT_SYMBOLS = {
    "W_V": matrix("d_v", "d", bound=2.0),
    "W_K": matrix("d_k", "d", bound=2.0),
    "text": matrix("d", "n_text", bound=2.0),
    "targets": matrix("d_v", "n_demo", bound=2.0),
    "queries": matrix("d_k", "n_demo", bound=2.0),
    "lr": scalar(positive=True, bound=1.0),
}
"""Columns: fine-tuning targets t_i (values) and queries q_i (keys) of the linear loss L = −Σ_i t_iᵀ W_V S W_Kᵀ q_i."""
FT_SIZES = {"d": (1, 3), "d_k": (1, 3), "d_v": (1, 3), "n_demo": (1, 3), "n_text": (1, 3)}
LINEAR_LOSS = "one full-batch GD step of rate lr on the linear loss L = −Σ_i t_iᵀ W_V S W_Kᵀ q_i, S = X Xᵀ"


def _ft_symbols(sizes: dict) -> dict:
    """Explicit SymPy matrices of every fine-tuning input at concrete ``sizes`` (and the rate ``lr``)."""
    shape = {"W_V": ("d_v", "d"), "W_K": ("d_k", "d"), "text": ("d", "n_text")}
    shape |= {"targets": ("d_v", "n_demo"), "queries": ("d_k", "n_demo")}
    values = {k: sp.Matrix(MatrixSymbol(k, sizes[r], sizes[c])) for k, (r, c) in shape.items()}
    return values | {"lr": sp.Symbol("lr", positive=True)}


def _gd_step_by_differentiation(v: dict, *, train_keys: bool) -> Any:
    """ΔW_FT with the gradient of L taken by SymPy (not the closed form of ``linear_loss_steps``)."""
    W_V, W_K, T, Q, lr = v["W_V"], v["W_K"], v["targets"], v["queries"], v["lr"]
    S = v["text"] * v["text"].T
    A = sp.Matrix(*W_V.shape, lambda r, c: sp.Symbol(f"a_{r}{c}"))
    B = sp.Matrix(*W_K.shape, lambda r, c: sp.Symbol(f"b_{r}{c}"))
    L = -sum((T[:, i].T * A * S * B.T * Q[:, i])[0, 0] for i in range(T.shape[1]))
    at = dict(zip(A, W_V)) | dict(zip(B, W_K))
    grad = lambda M: M.applyfunc(lambda m: sp.diff(L, m)).subs(at)  # noqa: E731
    new_K = W_K - lr * grad(B) if train_keys else W_K
    return (W_V - lr * grad(A)) * S * new_K.T - W_V * S * W_K.T


def ft_value_form(W_V: Any, W_K: Any, text: Any, targets: Any, queries: Any, lr: Any) -> Any:
    """lr Σ_i t_i ⊗ k̃_i with k̃_i = W_K S² W_Kᵀ q_i: the outer-product (dual) form of the value-only update."""
    S = text @ text.T
    return lr * targets @ (W_K @ S @ S @ W_K.T @ queries).T


def ft_key_value_form(W_V: Any, W_K: Any, text: Any, targets: Any, queries: Any, lr: Any) -> Any:
    """lr Σ_i (t_i ⊗ k̃_i + ṽ_i ⊗ q_i) + lr² T Qᵀ W_K S³ W_Vᵀ T Qᵀ, ṽ_i = W_V S² W_Vᵀ t_i: both matrices trained."""
    S = text @ text.T
    first = ft_value_form(W_V, W_K, text, targets, queries, lr) + lr * (W_V @ S @ S @ W_V.T @ targets) @ queries.T
    return first + lr * lr * targets @ queries.T @ W_K @ S @ S @ S @ W_V.T @ targets @ queries.T


def _ft_symbolic(form: Any, *, train_keys: bool) -> list:
    """Dimension-free: ΔW_FT of ``blocks.delta_w_ft`` minus ``form``, on matrix symbols of symbolic size."""
    d, dk, dv, n, m = sp.symbols("d d_k d_v n_text n_demo", positive=True, integer=True)
    args = (MatrixSymbol("W_V", dv, d), MatrixSymbol("W_K", dk, d), MatrixSymbol("X", d, n))
    args += (MatrixSymbol("T", dv, m), MatrixSymbol("Q", dk, m), sp.Symbol("lr", positive=True))
    return [delta_w_ft(*args, train_keys=train_keys) - form(*args)]


def _ft_explicit(form: Any, *, train_keys: bool):
    """At concrete sizes: ΔW_FT with the gradient by SymPy differentiation, minus ``form``."""

    def residual(**sizes: int) -> list:
        v = _ft_symbols(sizes)
        names = ("W_V", "W_K", "text", "targets", "queries", "lr")
        return [_gd_step_by_differentiation(v, train_keys=train_keys) - form(*(v[k] for k in names))]

    return residual


@st.composite
def ft_cases(draw) -> dict:
    """Rows-convention cases for ``numerics.dual.finetune``: text, targets and queries as rows."""
    case = _attention_layer(draw, *(draw(dims(1, 3)) for _ in range(5)))
    n_demo, dk, dv = case["n_demo"], case["d_k"], case["d_v"]
    return case | {
        "targets": draw(matrices(n_demo, dv, 2.0)),
        "queries": draw(matrices(n_demo, dk, 2.0)),
        "lr": draw(reals(1.0, positive=True)),
    }


def _ft_loops(case: dict, *, train_keys: bool) -> tuple:
    """numerics.dual.finetune against the outer products summed over the demonstrations one by one."""
    W_V, W_K, X, T, Q, lr = (case[k] for k in ("W_V", "W_K", "text", "targets", "queries", "lr"))
    S = X.T @ X  # rows: S = Σ_j x_j x_jᵀ over the text tokens
    want = lr * sum(np.outer(t, W_K @ S @ S @ W_K.T @ q) for t, q in zip(T, Q))
    if train_keys:
        want = want + lr * sum(np.outer(W_V @ S @ S @ W_V.T @ t, q) for t, q in zip(T, Q))
        cross = sum(np.outer(t, q) for t, q in zip(T, Q))
        want = want + lr**2 * cross @ W_K @ S @ S @ S @ W_V.T @ cross
    got = dual_finetune.delta_w_ft(W_V, W_K, X, T, Q, lr, train_keys=train_keys)
    scale = (1 + lr) ** 2 * (1 + np.linalg.norm(S)) ** 3 * (1 + np.linalg.norm(T) * np.linalg.norm(Q)) ** 2
    scale *= (1 + np.linalg.norm(W_V)) ** 2 * (1 + np.linalg.norm(W_K)) ** 2
    return got, want, scale


FT_VALUE_STEP = Claim(
    name="dai-ft-value-step-dual-form",
    source=f"{PAPER}, §3.3 eq. 10–11 (fine-tuning the attention's value matrix)",
    statement=(
        r"W_V' S W_K^\top - W_V S W_K^\top = \gamma \textstyle\sum_i t_i \otimes \tilde k_i,"
        r"\quad \tilde k_i = W_K S^2 W_K^\top q_i,\ S = XX^\top"
    ),
    checks=(
        Symbolic(lambda: _ft_symbolic(ft_value_form, train_keys=False)),
        Explicit(
            _ft_explicit(ft_value_form, train_keys=False),
            grid(d=(1, 2), d_k=(1,), d_v=(1,), n_demo=(1, 2), n_text=(1,)),
        ),
        Numeric(ft_cases(), lambda c: _ft_loops(c, train_keys=False)),
    ),
    note="One GD step on W_V alone gives an update of ΔW_ICL's outer-product form: values t_i, but keys "
    "W_K S² W_Kᵀ q_i shaped by the query text (S), not W_K x'_i. Explicit check: the gradient by SymPy "
    "differentiation; numeric check: numerics.dual.finetune against a loop over the demonstrations.",
    assumptions=(LINEAR_LOSS, "only W_V trained"),
    builds_on=("dai-relaxed-icl-attention",),
)

FT_KEY_VALUE_STEP = Claim(
    name="dai-ft-key-value-step",
    source=f"{PAPER}, §3.3 eq. 10–11 (fine-tuning keys and values)",
    statement=(
        r"\Delta W_{FT} = \gamma \textstyle\sum_i (t_i \otimes \tilde k_i + \tilde v_i \otimes q_i)"
        r" + \gamma^2\, T Q^\top W_K S^3 W_V^\top T Q^\top,\quad \tilde v_i = W_V S^2 W_V^\top t_i"
    ),
    checks=(
        Symbolic(lambda: _ft_symbolic(ft_key_value_form, train_keys=True)),
        Explicit(
            _ft_explicit(ft_key_value_form, train_keys=True),
            grid(d=(1, 2), d_k=(1,), d_v=(1,), n_demo=(1,), n_text=(1,)),
        ),
        Numeric(ft_cases(), lambda c: _ft_loops(c, train_keys=True)),
    ),
    note="Training W_K as well adds a second sum of outer products and a term quadratic in γ and in the "
    "demonstrations: no longer a single sum of one outer product per demonstration, as ΔW_ICL is.",
    assumptions=(LINEAR_LOSS, "W_V and W_K trained"),
    builds_on=("dai-ft-value-step-dual-form",),
)


def _ft_on_demos(W_V: Any, W_K: Any, demos: Any, text: Any, lr: Any) -> Any:
    """ΔW_FT of a value-only step whose targets are the demonstrations' values and queries their keys."""
    return delta_w_ft(W_V, W_K, text, W_V @ demos, W_K @ demos, lr, train_keys=False)


FT_EQUALS_ICL = statement(
    name="dai-ft-equals-icl",
    source=f'{PAPER}, §3.3 ("ICL ≈ fine-tuning": ΔW_ICL read as the FT update)',
    statement=r"\Delta W_{FT} = \Delta W_{ICL} = \textstyle\sum_i (W_V x_i') \otimes (W_K x_i')",
    symbols={k: ICL_SYMBOLS[k] for k in ("W_V", "W_K", "demos", "text")} | {"lr": scalar(positive=True, bound=1.0)},
    lhs=_ft_on_demos,
    rhs=delta_w_icl,
    holds=False,
    corrected=lambda W_V, W_K, demos, text, lr: ft_value_form(W_V, W_K, text, W_V @ demos, W_K @ demos, lr),
    symbolic=False,
    sizes={k: ICL_SIZES[k] for k in ("d", "d_k", "d_v", "n_demo", "n_text")},
    explicit_sizes={"d": (1,), "d_k": (1,), "d_v": (1,), "n_demo": (1,), "n_text": (1,)},
    correction="dai-ft-value-step-dual-form",
    note="Both updates are sums of outer products with the same values W_V x'_i, but FT's keys are "
    "γ W_K S² W_Kᵀ W_K x'_i: equal to ICL's W_K x'_i only for special W_K, S and γ (e.g. W_K orthogonal, "
    "S = I, γ = 1), so the dual form shows the same form of update, not the same update.",
    assumptions=(LINEAR_LOSS, "targets t_i = W_V x'_i, queries q_i = W_K x'_i"),
    builds_on=("dai-ft-value-step-dual-form",),
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
