"""Claims: the RAW operator, its primitives, the GeLU/LayerNorm lemmas and the RAW compiler.

Akyürek et al., "What learning algorithm is in-context learning?", ICLR 2023, appendix
(conventions in docs/reference.md). Numerics: ``numerics.raw.primitives`` (semantics, rows = timesteps),
``numerics.raw.compiler`` (weights), ``numerics.raw.transformer`` (the layer).

Exact checks run the *numeric* primitive and RAW implementations on NumPy ``object`` arrays of
SymPy symbols (hidden state and weights symbolic), so the identity is checked for the code that
the numeric side runs, entry by entry, at concrete sizes.
"""

from __future__ import annotations

import numpy as np
import sympy as sp
from hypothesis import strategies as st

from icl_verify import blocks
from icl_verify.core.checks.explicit import Explicit
from icl_verify.core.checks.measured import Estimate, Measured, range_estimate
from icl_verify.core.checks.numeric import Numeric
from icl_verify.core.checks.symbolic import Symbolic
from icl_verify.core.claims import Claim, Corrected
from icl_verify.core.figure import Figure
from icl_verify.core.statement import statement
from icl_verify.core.symbols import scalar
from icl_verify.errors import InvalidArgument
from icl_verify.maths.strategies import dims, matrices, reals
from icl_verify.maths.symbolic import grid
from icl_verify.numerics.raw import compiler as rc
from icl_verify.numerics.raw.primitives import Aff, Div, Mov, Mul, Program, Raw, apply_parallel
from icl_verify.numerics.raw.transformer import gelu, layer_norm
from icl_verify.numerics.shared.stats import fit_line

FAMILY = "raw"
PAPER = "Akyürek et al. 2023"

U, V, X, T_ = sp.symbols("u v x t", real=True)
N = sp.Symbol("N", positive=True)


# ---------------------------------------------------------------------------------------------
# Symbolic helpers


def _symbolic_state(T: int, D: int) -> np.ndarray:
    """H with entries h_{t,u} (timestep t, unit u)."""
    H = np.empty((T, D), dtype=object)
    for t in range(T):
        for u in range(D):
            H[t, u] = sp.Symbol(f"h_{t}_{u}", real=True)
    return H


def _symbolic_matrix(name: str, rows: int, cols: int) -> np.ndarray:
    M = np.empty((rows, cols), dtype=object)
    for i in range(rows):
        for j in range(cols):
            M[i, j] = sp.Symbol(f"{name}_{i}_{j}", real=True)
    return M


def _residual(a: np.ndarray, b: np.ndarray) -> sp.Matrix:
    return sp.Matrix(a - b).applyfunc(sp.expand)


def _symbolic_gelu(z: sp.Expr) -> sp.Expr:
    return z * (1 + sp.erf(z / sp.sqrt(2))) / 2


# ---------------------------------------------------------------------------------------------
# Primitives are RAW instances (appendix)


def mov_residuals(T: int, D: int) -> list:
    """mov(H; s, t, rows → rows') − RAW(+, W = 0, K(t) = {s}) for every s ≤ t and block length."""
    H = _symbolic_state(T, D)
    out = []
    for src in range(T):
        for dst in range(src, T):
            for k in range(1, D + 1):
                op = Mov(src, dst, (0, k), (D - k, D))
                out.append(_residual(op.apply(H), op.raws(T)[0].apply(H)))
    return out


def aff_residuals(T: int, D: int) -> list:
    """aff(H; rows1, rows2 → out, W1, W2, b) − RAW(+, K(t) = {t}, W_a = W1, W = W2, W_o = I, b), symbolic W1, W2, b."""
    H = _symbolic_state(T, D)
    out = []
    for k in range(1, D + 1):
        op = Aff(
            (0, k),
            (D - k, D),
            (0, k),
            _symbolic_matrix("A", k, k),
            _symbolic_matrix("B", k, k),
            _symbolic_matrix("b", k, 1)[:, 0],
        )
        out.append(_residual(op.apply(H), op.raws(T)[0].apply(H)))
    return out


def mul_residuals(a: int, b: int, c: int, T: int = 2) -> list:
    """mul(H; a, b, c) − the a·c dot RAWs RAW(⊙, K(t) = {t}, W_o = 1ᵀ) applied in parallel."""
    D = a * b + b * c + a * c
    H = _symbolic_state(T, D)
    op = Mul(a, b, c, (0, a * b), (a * b, a * b + b * c), (a * b + b * c, D))
    return [_residual(op.apply(H), apply_parallel(H, op.raws(T)))]


def strict_aff_residuals(T: int, D: int) -> list:
    """aff minus its RAW read with the paper's strict mask K(i) ⊆ {j < i}."""
    H = _symbolic_state(T, D)
    op = Aff(
        (0, D),
        (0, D),
        (0, D),
        _symbolic_matrix("A", D, D),
        _symbolic_matrix("B", D, D),
        _symbolic_matrix("b", D, 1)[:, 0],
    )
    return [_residual(op.apply(H), op.raws(T)[0].apply(H, mask="strict"))]


@st.composite
def state_cases(draw, *, max_T: int = 4, max_D: int = 5) -> dict:
    T, D = draw(dims(1, max_T)), draw(dims(1, max_D))
    return {"T": T, "D": D, "H": draw(matrices(T, D))}


@st.composite
def mov_cases(draw) -> dict:
    case = draw(state_cases())
    T, D = case["T"], case["D"]
    k = draw(dims(1, D))
    src = draw(st.integers(0, T - 1))
    case.update(
        src=src, dst=draw(st.integers(src, T - 1)), k=k, a=draw(st.integers(0, D - k)), b=draw(st.integers(0, D - k))
    )
    return case


def _mov_pair(case: dict) -> tuple:
    op = Mov(case["src"], case["dst"], (case["a"], case["a"] + case["k"]), (case["b"], case["b"] + case["k"]))
    return op.apply(case["H"]), op.raws(case["T"])[0].apply(case["H"])


@st.composite
def aff_cases(draw) -> dict:
    case = draw(state_cases())
    T, D = case["T"], case["D"]
    k1, k2, k = draw(dims(1, D)), draw(dims(1, D)), draw(dims(1, D))
    cols = draw(st.lists(st.integers(0, T - 1), min_size=1, max_size=T, unique=True))
    case.update(
        r1=draw(st.integers(0, D - k1)),
        k1=k1,
        r2=draw(st.integers(0, D - k2)),
        k2=k2,
        o=draw(st.integers(0, D - k)),
        k=k,
        W1=draw(matrices(k, k1)),
        W2=draw(matrices(k, k2)),
        b=draw(matrices(1, k))[0],
        cols=tuple(cols),
    )
    return case


def _aff_op(case: dict) -> Aff:
    r1, r2, o = (
        (case["r1"], case["r1"] + case["k1"]),
        (case["r2"], case["r2"] + case["k2"]),
        (case["o"], case["o"] + case["k"]),
    )
    return Aff(r1, r2, o, case["W1"], case["W2"], case["b"], case["cols"])


def _aff_pair(case: dict, mask: str = "inclusive") -> tuple:
    op = _aff_op(case)
    return op.apply(case["H"]), op.raws(case["T"])[0].apply(case["H"], mask=mask)


@st.composite
def mul_cases(draw) -> dict:
    a, b, c, T = draw(dims(1, 3)), draw(dims(1, 3)), draw(dims(1, 3)), draw(dims(1, 3))
    D = a * b + b * c + a * c + draw(st.integers(0, 2))
    return {
        "a": a,
        "b": b,
        "c": c,
        "T": T,
        "D": D,
        "H": draw(matrices(T, D)),
        "cols": tuple(draw(st.lists(st.integers(0, T - 1), min_size=1, max_size=T, unique=True))),
    }


def _mul_op(case: dict) -> Mul:
    a, b, c = case["a"], case["b"], case["c"]
    return Mul(a, b, c, (0, a * b), (a * b, a * b + b * c), (a * b + b * c, a * b + b * c + a * c), case["cols"])


def _mul_pair(case: dict) -> tuple:
    op = _mul_op(case)
    H = case["H"]
    return op.apply(H), apply_parallel(H, op.raws(case["T"])), np.max(np.abs(H)) ** 2 * case["b"]


_RAW_SIZES = grid(T=range(1, 4), D=range(1, 3))

MOV_IS_RAW = Claim(
    name="mov-is-raw",
    source=f"{PAPER}, appendix (mov as RAW)",
    assumptions=("K(i) = ∅ means timestep i is not written",),
    statement=r"\mathrm{mov}(H; s, t, i{:}j \to i'{:}j') = \mathrm{RAW}(+,\ W = 0,\ K(t) = \{s\},\ K(i \ne t) = \emptyset,\ W_a = W_o = I)",
    checks=(
        Explicit(mov_residuals, _RAW_SIZES),
        Numeric(mov_cases(), _mov_pair, rtol=0, atol=0),
    ),
    note="K(i) = ∅ is read as 'timestep i not written' (the paper leaves 1/|K(i)| undefined there).",
)

AFF_IS_RAW = Claim(
    name="aff-is-raw",
    source=f"{PAPER}, appendix (aff as RAW)",
    statement=r"\mathrm{aff}(H; W_1, W_2, b) = \mathrm{RAW}(+,\ K(t) = \{t\},\ W_a = W_1,\ W = W_2,\ W_o = I,\ +b)",
    checks=(
        Explicit(aff_residuals, _RAW_SIZES),
        Numeric(aff_cases(), _aff_pair, rtol=1e-15, atol=1e-12),
    ),
)

DOT_MUL_ARE_RAW = Claim(
    name="mul-is-parallel-dot-raws",
    source=f"{PAPER}, appendix (dot as RAW; mul as parallel dots, Lemma 7)",
    statement=(
        r"\mathrm{dot} = \mathrm{RAW}(\odot,\ K(t) = \{t\},\ W_a = W = I,\ W_o = \mathbf 1^\top);\ "
        r"\mathrm{mul}(a, b, c) = a c \text{ parallel dots}"
    ),
    checks=(
        Explicit(mul_residuals, grid(a=range(1, 3), b=range(1, 3), c=range(1, 3))),
        Numeric(mul_cases(), _mul_pair, rtol=1e-14, atol=1e-12),
    ),
)

STRICT_MASK_AFF = Claim(
    name="raw-strict-mask-aff",
    source=f"{PAPER}, appendix (RAW with K(i) ⊆ {{j < i}} as printed)",
    statement=r"\text{With reads restricted to } j < i,\ \mathrm{aff} = \mathrm{RAW}(+, K(t) = \{t\}, \dots)",
    checks=(
        Explicit(strict_aff_residuals, grid(T=range(1, 3), D=range(1, 3))),
        Numeric(aff_cases(), lambda c: _aff_pair(c, mask="strict"), rtol=1e-15, atol=1e-12),
    ),
    holds=False,
    corrected=Corrected("aff-is-raw", explicit=aff_residuals, numeric=_aff_pair),
    note="aff and dot read the current timestep; under j < i their K(t) = {t} is empty and nothing is written.",
)


def _mov_as_printed(case: dict) -> tuple:
    """Whether the appendix's mov(H; t, s, …), read with the definition's (source, target) order, is a
    valid program computing mov(H; s, t, …): 1 if so, else 0 (against 1).

    With s < t the swapped call reads from a future timestep and is rejected — no output to
    compare, so the comparison is of this yes/no, never of a NaN.
    """
    intended = Mov(case["src"], case["dst"], (case["a"], case["a"] + case["k"]), (case["b"], case["b"] + case["k"]))
    try:
        swapped = Mov(case["dst"], case["src"], intended.rows_from, intended.rows_to).apply(case["H"])
    except InvalidArgument:  # reads from a future timestep: the swapped program is rejected
        return np.array([0.0]), np.array([1.0])
    return np.array([float(np.array_equal(swapped, intended.apply(case["H"])))]), np.array([1.0])


MOV_ORDER = Claim(
    name="mov-argument-order-as-printed",
    source=f"{PAPER}, Appendix A programs (mov written as (target, source))",
    statement=r"\mathrm{mov}(H; t, s, \dots) \text{ (appendix order) read by the definition} = \mathrm{mov}(H; s, t, \dots)",
    checks=(Numeric(mov_cases(), _mov_as_printed, rtol=0, atol=0),),
    holds=False,
    corrected=Corrected("mov-is-raw", numeric=_mov_pair),
    note="With s < t the swapped call reads from a future timestep and is rejected (residual 1: no valid program).",
)


# ---------------------------------------------------------------------------------------------
# GeLU and LayerNorm lemmas (Lemma 3 and 6)

GELU_LEADING = -U * V * (2 * U**2 + 3 * U * V + 2 * V**2) / 6
GELU_SIXTH = U * V * (18 * U**4 + 45 * U**3 * V + 60 * U**2 * V**2 + 45 * U * V**3 + 18 * V**4) / 240


def gelu_product_series() -> list:
    """√(π/2)(GeLU(tu+tv) − GeLU(tu) − GeLU(tv)) − (t²uv + t⁴·c₄ + t⁶·c₆) up to O(t⁸): no t³, t⁵ terms."""
    e = sp.sqrt(sp.pi / 2) * (_symbolic_gelu(T_ * (U + V)) - _symbolic_gelu(T_ * U) - _symbolic_gelu(T_ * V))
    series = sp.series(e, T_, 0, 8).removeO()
    return [series - (T_**2 * U * V + T_**4 * GELU_LEADING + T_**6 * GELU_SIXTH)]


@st.composite
def gelu_cases(draw) -> dict:
    return {"u": draw(reals(3.0)), "v": draw(reals(3.0)), "M": draw(st.floats(200.0, 1000.0))}


def _gelu_product(case: dict) -> tuple:
    """M²√(π/2)(GeLU((u+v)/M) − GeLU(u/M) − GeLU(v/M)) vs uv + c₄/M² + c₆/M⁴.

    For |u|, |v| ≤ 3 and M ≥ 200 the t⁸ remainder is below 10⁻¹⁰ and float64 round-off below
    10⁻¹², so the tolerance 10⁻⁹ tests the first three terms of the series.
    """
    u, v, M = case["u"], case["v"], case["M"]
    lhs = M * M * np.sqrt(np.pi / 2) * (gelu((u + v) / M) - gelu(u / M) - gelu(v / M))
    c4 = float(GELU_LEADING.subs({U: u, V: v}))
    c6 = float(GELU_SIXTH.subs({U: u, V: v}))
    return lhs, u * v + c4 / M**2 + c6 / M**4, abs(u * v)


GELU_MUL = Claim(
    name="gelu-multiplication-lemma",
    source=f"{PAPER}, Lemma 3 (multiplication from GeLU)",
    statement=(
        r"\sqrt{\pi/2}\,(\mathrm{GeLU}(u+v) - \mathrm{GeLU}(u) - \mathrm{GeLU}(v)) = uv"
        r" - \tfrac{uv(2u^2 + 3uv + 2v^2)}{6} + O(\|(u,v)\|^6)"
    ),
    checks=(
        Symbolic(gelu_product_series),
        Numeric(gelu_cases(), _gelu_product, rtol=1e-10, atol=1e-9),
    ),
    note=(
        "No third-order term: the leading error is fourth order, so inputs scaled by 1/M and output by M² "
        "give uv − uv(2u²+3uv+2v²)/(6M²): O(1/M²), not the O(1/M) the construction is usually quoted with."
    ),
)


GELU_ODD_PAIR = statement(
    name="gelu-odd-pair-identity",
    source=f"{PAPER}, appendix (GeLU bypass); exact form used by the compiler",
    statement=r"\mathrm{GeLU}(x) - \mathrm{GeLU}(-x) = x \ \text{for every } x",
    symbols={"x": scalar(bound=50.0)},
    lhs=lambda x: blocks.gelu(x) - blocks.gelu(-x),
    rhs=lambda x: x,
    explicit=False,
    expect="proved",
)


def gelu_bypass_limit() -> list:
    """lim_{N→∞} GeLU(N + x) − N − x."""
    return [sp.limit(_symbolic_gelu(N + X) - N - X, N, sp.oo)]


GELU_BYPASS = Claim(
    name="gelu-bypass-limit",
    source=f"{PAPER}, appendix (GeLU bypass)",
    statement=r"\lim_{N\to\infty} \mathrm{GeLU}(N + x) - N = x",
    checks=(Symbolic(gelu_bypass_limit),),
)


S_REST = sp.Symbol("S", nonnegative=True)
C_DEN = sp.Symbol("c", real=True, nonzero=True)


def _ln_vector(xs: list, big: sp.Expr) -> list:
    return xs + [big, -big, -sum(xs)]


def _symbolic_layer_norm(z: list) -> list:
    L = len(z)
    mean = sum(z) / L
    std = sp.sqrt(sum((e - mean) ** 2 for e in z) / L)
    return [(e - mean) / std for e in z]


def layernorm_bypass_residuals(k: int | None = None) -> list:
    """N√(2/L)·λ(z) − z as N → ∞ for z = [x, N, −N, −Σx] (entries x); general form via S = ‖x‖² + (Σx)²."""
    if k is None:  # mean is 0, so λ(z)_x = x √L / ‖z‖ with ‖z‖² = 2N² + S
        return [sp.limit(N * sp.sqrt(2) * X / sp.sqrt(2 * N**2 + S_REST), N, sp.oo) - X]
    xs = list(sp.symbols(f"x1:{k + 1}", real=True))
    z = _ln_vector(xs, N)
    ln = _symbolic_layer_norm(z)
    gain = N * sp.sqrt(sp.Rational(2, len(z)))
    return [sp.limit(gain * ln[i], N, sp.oo) - xs[i] for i in range(k)]


def _ln_bypass_numeric(case: dict) -> tuple:
    x, n = case["x"], case["N"]
    z = np.concatenate([x, [n, -n, -x.sum()]])
    lhs = n * np.sqrt(2 / z.size) * layer_norm(z)
    S = float(x @ x + x.sum() ** 2)
    return lhs, z / np.sqrt(1 + S / (2 * n * n))


@st.composite
def ln_cases(draw) -> dict:
    k = draw(dims(1, 6))
    return {"k": k, "x": draw(matrices(1, k))[0], "N": draw(st.floats(1.0, 1e6))}


LN_BYPASS = Claim(
    name="layernorm-bypass-limit",
    source=f"{PAPER}, appendix (LayerNorm bypass) [derived form]",
    statement=(
        r"z = [x, N, -N, -\textstyle\sum x]:\ N\sqrt{2/L}\,\lambda(z) = z\,(1 + S/(2N^2))^{-1/2} \to z,"
        r"\ S = \|x\|^2 + (\textstyle\sum x)^2"
    ),
    checks=(
        Symbolic(lambda: layernorm_bypass_residuals()),
        Explicit(lambda k: layernorm_bypass_residuals(k), [{"k": 1}, {"k": 2}]),
        Numeric(ln_cases(), _ln_bypass_numeric, rtol=1e-13, atol=1e-13),
    ),
    note="Relative error S/(4N²): O(1/N²).",
)


def layernorm_division_residuals(k: int | None = None) -> list:
    """N√(2/L)·λ(z)_y − y/|c| as N → ∞ for z = [y, Nc, −Nc, −Σy]."""
    if k is None:
        y = sp.Symbol("y", real=True)
        return [sp.limit(N * sp.sqrt(2) * y / sp.sqrt(2 * N**2 * C_DEN**2 + S_REST), N, sp.oo) - y / sp.Abs(C_DEN)]
    ys = list(sp.symbols(f"y1:{k + 1}", real=True))
    z = _ln_vector(ys, N * C_DEN)
    ln = _symbolic_layer_norm(z)
    gain = N * sp.sqrt(sp.Rational(2, len(z)))
    return [sp.simplify(sp.limit(gain * ln[i], N, sp.oo) - ys[i] / sp.Abs(C_DEN)) for i in range(k)]


LN_DIVISION = Claim(
    name="layernorm-division-limit",
    source=f"{PAPER}, appendix (division via LayerNorm) [derived form]",
    statement=r"z = [y, Nc, -Nc, -\textstyle\sum y]:\ \lim_{N\to\infty} N\sqrt{2/L}\,\lambda(z)_y = y/|c|",
    checks=(
        Symbolic(lambda: layernorm_division_residuals()),
        Explicit(lambda k: layernorm_division_residuals(k), [{"k": 1}]),
    ),
    note="The absolute value is why div divides by |h[i']|.",
)


# ---------------------------------------------------------------------------------------------
# The compiler: one layer per RAW (Lemma 3), parallel RAWs (Lemma 7)


@st.composite
def raw_cases(draw, *, max_T: int = 4, max_D: int = 4, max_raws: int = 2) -> dict:
    """Random independent RAWs (any K with j ≤ i, ⊛ ∈ {+, ⊙}) on a random state, writes disjoint."""
    T, D = draw(dims(1, max_T)), draw(dims(2, max_D))
    free = list(range(D))
    raws = []
    for _ in range(draw(dims(1, max_raws))):
        if not free:
            break
        w = draw(st.lists(st.sampled_from(free), min_size=1, max_size=min(2, len(free)), unique=True))
        free = [u for u in free if u not in w]
        raws.append(draw(_one_raw(T, D, tuple(w))))
    return {"T": T, "D": D, "H": draw(matrices(T, D, 2.0)), "raws": raws}


@st.composite
def _one_raw(draw, T: int, D: int, w: tuple[int, ...]) -> Raw:
    op = draw(st.sampled_from(["+", "*"]))
    p = draw(dims(1, 2))
    r = tuple(draw(st.lists(st.integers(0, D - 1), min_size=1, max_size=3)))
    s = tuple(draw(st.lists(st.integers(0, D - 1), min_size=1 if op == "*" else 0, max_size=3)))
    K = tuple(tuple(draw(st.lists(st.integers(0, i), max_size=i + 1, unique=True))) for i in range(T))
    W = draw(matrices(p, len(s), 1.0)) if s else None
    bias = draw(st.one_of(st.none(), matrices(1, len(w), 1.0).map(lambda m: m[0])))
    return Raw(op, r, s, w, K, draw(matrices(p, len(r), 1.0)), W, draw(matrices(len(w), p, 1.0)), bias)


def _compiled_error_scale(H: np.ndarray, compiled: rc.Compiled) -> float:
    """Magnitude the O(1/N²) terms scale with: |uv| · (‖z‖² + u² + v²) ≲ (1 + max|H|)⁴ · width."""
    return float((1 + np.max(np.abs(H))) ** 4 * compiled.width)


def _compiled_raws(case: dict) -> tuple:
    compiled = rc.compile_raws(case["raws"], case["D"])
    H = case["H"]
    return compiled.run(H), apply_parallel(H, case["raws"]), _compiled_error_scale(H, compiled)


COMPILED_RAW = Claim(
    name="compiled-raw-layer",
    source=f"{PAPER}, Lemmas 3 and 7 (a layer realises independent RAWs)",
    builds_on=("gelu-multiplication-lemma", "gelu-odd-pair-identity", "layernorm-bypass-limit"),
    statement=(
        r"\text{one compiled layer (softmax attention, GeLU MLP, LayerNorm)} \equiv \mathrm{RAW}_1 \| \dots \| \mathrm{RAW}_m"
        r"\ \text{to } 10^{-8} \cdot \text{scale at } \beta = 100,\ M = N_a = 10^5"
    ),
    checks=(Numeric(raw_cases(), _compiled_raws, rtol=1e-8, atol=1e-10),),
    note="Scale (1 + max|H|)⁴·width bounds |uv|(‖z‖² + u² + v²); the construction error is that over N² = 10¹⁰.",
)


# ---------------------------------------------------------------------------------------------
# Error versus scale: measured rates


MUL_OP = Mul(1, 2, 1, (0, 2), (2, 4), (4, 5))


def mul_layer_error(H: np.ndarray, n: float) -> float:
    """Max error of a compiled ⊙ layer (a dot product, T = 3, D = 6) vs its semantics at scale N (β = 100)."""
    compiled = rc.compile_raws(MUL_OP.raws(H.shape[0]), H.shape[1], rc.Scales.uniform(n, attention=100.0))
    return float(np.max(np.abs(compiled.run(H, check_range=False) - MUL_OP.apply(H))))  # the error is the measurement


def _slope(xs: np.ndarray, ys: np.ndarray) -> float:
    """Least-squares slope of ys against xs (``numerics.shared.stats.fit_line``)."""
    return fit_line(xs, ys).slope.estimate


SCALE_GRID = np.array([100.0, 300.0, 1000.0, 3000.0])
N_SEEDS = 8


SCALE_AXES = f"slopes of log error vs log N over N ∈ {SCALE_GRID.tolist()}, one per sampled state"
"""What the compiled-mul/div rate claims fit (their evidence's context)."""


MUL_RATE_SLOPE = -2.0
"""The compiled ⊙ error's log–log slope in N (Lemma 3: both error terms are O(1/N²))."""


def mul_rate(H: np.ndarray) -> float:
    """Log–log slope of the compiled ⊙ error over N ∈ [100, 3000] for one state H."""
    return _slope(np.log(SCALE_GRID), np.log([mul_layer_error(H, n) for n in SCALE_GRID]))


def measure_mul_rate(seed: int) -> Estimate:
    """Mean slope over random states U(−1, 1)^{3×6}; the interval is [min, max] over the states."""
    rng = np.random.default_rng(seed)
    slopes = [mul_rate(rng.uniform(-1, 1, (3, 6))) for _ in range(N_SEEDS)]
    return range_estimate(slopes, MUL_RATE_SLOPE, 0.1, "slopes", SCALE_AXES)


MUL_RATE = Claim(
    name="compiled-mul-error-rate",
    source=f"{PAPER}, Lemma 3 (error from the GeLU Taylor remainder and the LayerNorm bypass)",
    builds_on=("compiled-raw-layer", "gelu-multiplication-lemma", "layernorm-bypass-limit"),
    statement=r"\|\text{compiled } \odot\text{-layer} - \mathrm{RAW}\|_\infty \propto N^{-2}\ (\text{slope } -2 \pm 0.1)",
    checks=(Measured(measure_mul_rate),),
    note="Both terms are 1/N²: −uv(2u²+3uv+2v²)/(6M²) (GeLU) and −uv·R/(2N_a²) (LayerNorm, R = ‖z‖² − 2N_a²).",
)


@st.composite
def rate_states(draw) -> dict:
    """A state (T = 3, D = 6) whose multiplied units lie in [1/16, 17/16], so every product is non-zero."""
    H = draw(matrices(3, 6, 1.0))
    H[:, :4] = np.abs(H[:, :4]) + 1 / 16
    return {"H": H}


def _rate(case: dict, slope: float) -> tuple:
    """The compiled ⊙ layer's log–log error slope on one state against ``slope``."""
    return np.array([mul_rate(case["H"])]), np.array([slope])


MUL_RATE_LINEAR = Claim(
    name="compiled-mul-error-rate-1-over-n",
    source=f"{PAPER}, appendix (GeLU multiplication: inputs scaled by 1/N, output by N²) read as an O(1/N) error",
    statement=r"\|\text{compiled } \odot\text{-layer} - \mathrm{RAW}\|_\infty \propto N^{-1}\ (\text{log–log slope } -1 \pm 0.2)",
    checks=(Numeric(rate_states(), lambda c: _rate(c, -1.0), rtol=0, atol=0.2),),
    holds=False,
    corrected=Corrected("compiled-mul-error-rate", numeric=lambda c: _rate(c, MUL_RATE_SLOPE)),
    note="O(1/N) is a valid but loose bound; the measured log–log slope is −2 (see compiled-mul-error-rate).",
)


DIV_OP = Div((0, 3), 3, (4, 7))


def div_layer_error(H: np.ndarray, n: float) -> float:
    """Max error of a compiled division layer (T = 3, D = 7, denominators h[3]) at scale N (N_d = N²)."""
    compiled = rc.compile_program(Program(H.shape[0], H.shape[1], (DIV_OP,)), rc.Scales.uniform(n, attention=100.0))
    return float(np.max(np.abs(compiled.run(H, check_range=False) - DIV_OP.apply(H))))  # the error is the measurement


def measure_div_rate(seed: int) -> Estimate:
    """Log–log slope of the compiled division's error over N ∈ [100, 3000]; denominators in [1/2, 2]."""
    rng = np.random.default_rng(seed)
    slopes = []
    for _ in range(N_SEEDS):
        H = rng.uniform(-1, 1, (3, 7))
        H[:, 3] = rng.choice([-1, 1], 3) * rng.uniform(0.5, 2.0, 3)
        slopes.append(_slope(np.log(SCALE_GRID), np.log([div_layer_error(H, n) for n in SCALE_GRID])))
    return range_estimate(slopes, -2.0, 0.1, "slopes", SCALE_AXES)


DIV_RATE = Claim(
    name="compiled-div-error-rate",
    source=f"{PAPER}, appendix (division via LayerNorm)",
    builds_on=("layernorm-division-limit",),
    statement=(
        r"\text{compiled div error} = \tfrac{y}{|c|}\big(1 - (1 + \tfrac{2N_a^2 + R}{2N_d^2c^2})^{-1/2}\big)"
        r" \propto N^{-2} \text{ at } N_a = N,\ N_d = N^2\ (\text{slope } -2 \pm 0.1)"
    ),
    checks=(Measured(measure_div_rate),),
)


@st.composite
def div_states(draw) -> dict:
    """A state (T = 3, D = 7) with non-zero denominators h[3] of either sign, |h[3]| ∈ [1/2, 2]."""
    H = draw(matrices(3, 7, 1.0))
    signs = np.array(draw(st.lists(st.sampled_from([-1.0, 1.0]), min_size=3, max_size=3)))
    H[:, 3] = signs * (0.5 + 0.75 * (np.abs(H[:, 3]) + 1))
    return {"H": H}


DIV_ROUNDOFF = float(np.finfo(np.float64).eps) * rc.Scales().divide
"""Absolute accuracy of the compiled division at the default scales: ε·N_d ≈ 2.2e-6.

The LayerNorm that divides sees entries ±N_d·c (N_d = 10¹⁰) beside y = O(1), so its mean and
variance lose ~ε·N_d to round-off — the limit of the default scales. The loss is absolute, not relative to y: over 1000 states like
:func:`div_states` (seed 0) the y/|c| form was off by at most 1.5e-7, and by 5e-8 with y = 0,
while with y scaled by 10⁻³ to 1 the error relative to max |y/|c|| reached 2e-4. The construction's own
O(1/N²) term is ≈ y/|c|·N_a²/(2N_d²c²) ≤ 2e-10 here.
"""


def _division(case: dict, *, signed: bool) -> tuple:
    """The compiled division layer's output units vs y / c (``signed``) or y / |c| (the derived limit)."""
    H = case["H"]
    compiled = rc.compile_program(Program(3, 7, (DIV_OP,)))
    c = H[:, 3:4] if signed else np.abs(H[:, 3:4])
    return compiled.run(H)[:, 4:7], H[:, 0:3] / c


DIV_SIGNED = Claim(
    name="div-by-signed-denominator",
    source=f"{PAPER}, appendix (division via LayerNorm) read as h[rows] / h[i']",
    statement=r"\text{the compiled div layer outputs } y / c \text{ (signed denominator)}",
    checks=(
        Numeric(
            div_states(),
            lambda c: _division(c, signed=True),
            rtol=0,
            atol=DIV_ROUNDOFF,
        ),
    ),
    holds=False,
    corrected=Corrected("layernorm-division-limit", numeric=lambda c: _division(c, signed=False)),
    note=(
        "LayerNorm sees only c², so the layer divides by |c|: the sign of a negative denominator is lost. "
        "Tolerance: the layer's round-off ε·N_d ≈ 2.2e-6 (absolute), which the y/|c| form meets."
    ),
)


BETA_GRID = np.array([10.0, 20.0, 30.0, 40.0])


def _mov_layer_error(seed: int, beta: float) -> float:
    rng = np.random.default_rng(seed)
    T, D = 4, 3
    op = Mov(0, 2, (0, 2), (1, 3))
    H = rng.uniform(-1, 1, (T, D))
    compiled = rc.compile_raws(op.raws(T), D, rc.Scales(attention=beta))
    return float(np.max(np.abs(compiled.run(H) - op.apply(H))))


def measure_attention_rate(seed: int) -> Estimate:
    """Slope of ln(error) vs β for a compiled mov (hard attention with a sink at logit β/2)."""
    slopes = [
        _slope(BETA_GRID, np.log([_mov_layer_error(seed * 1000 + k, b) for b in BETA_GRID])) for k in range(N_SEEDS)
    ]
    context = f"slopes of ln error vs β over β ∈ {BETA_GRID.tolist()}, one per sampled state"
    return range_estimate(slopes, -0.5, 0.02, "slopes", context)


ATTENTION_RATE = Claim(
    name="compiled-attention-error-rate",
    source=f"{PAPER}, Lemma 3 (hard attention by a large inverse temperature)",
    assumptions=("hard attention approximated by softmax at inverse temperature β",),
    builds_on=("mov-is-raw",),
    statement=r"\text{mov layer error} \propto e^{-\beta/2}\ (\text{the sink's logit margin } \beta/2)",
    checks=(Measured(measure_attention_rate),),
)


# ---------------------------------------------------------------------------------------------
# Figure: compiled layers' error against the construction's scale N


def _error_vs_scale_data(seed: int = 0) -> dict:
    """Max error of the compiled ⊙ and division layers vs N for one seeded state (as in the rate claims)."""
    rng = np.random.default_rng(seed)
    grid = np.geomspace(30.0, 3000.0, 9)
    H_mul = rng.uniform(-1, 1, (3, 6))
    H_div = rng.uniform(-1, 1, (3, 7))
    H_div[:, 3] = rng.choice([-1, 1], 3) * rng.uniform(0.5, 2.0, 3)
    return {
        "N": grid,
        "mul": np.array([mul_layer_error(H_mul, n) for n in grid]),
        "div": np.array([div_layer_error(H_div, n) for n in grid]),
    }


def _draw_error_vs_scale(ax, data) -> None:
    ax.loglog(data["N"], data["mul"], "o-", label="⊙ layer (GeLU product)")
    ax.loglog(data["N"], data["div"], "s-", label="division layer (LayerNorm)")
    ref = data["mul"][0] * (data["N"] / data["N"][0]) ** -2.0
    ax.loglog(data["N"], ref, ":", color="0.4", label="slope −2")
    ax.set_xlabel("construction scale N")
    ax.set_ylabel("max |compiled − RAW|")
    ax.legend()


FIGURES = (
    Figure(
        name="error-vs-scale",
        caption="Compiled layers against their RAW semantics as the construction's scale N grows "
        "(attention inverse temperature 100, one random state per layer, seed 0): both errors fall like "
        "1/N², not the 1/N usually quoted.",
        data=_error_vs_scale_data,
        draw=_draw_error_vs_scale,
    ),
)
