"""Claims: Akyürek et al.'s Theorems 1 and 2 and the n-example chains, as RAW programs and as
compiled transformers (ICLR 2023, §3, Appendix A).

Three levels are checked: the closed form is the intended learner (symbolic); the program's
primitive semantics equal the closed form (exact, on SymPy symbols at concrete d); the compiled
transformer (``numerics.raw.compiler``) matches the closed form to a stated relative error.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import sympy as sp
from hypothesis import strategies as st
from sympy.matrices.expressions import MatrixSymbol

from icl_verify.core.caches import cached
from icl_verify.core.checks.explicit import Explicit
from icl_verify.core.checks.numeric import Numeric
from icl_verify.core.checks.symbolic import Symbolic
from icl_verify.core.claims import Claim, Corrected
from icl_verify.core.figure import Figure
from icl_verify.maths.strategies import dims, matrices, reals
from icl_verify.numerics.raw import compiler as rc
from icl_verify.numerics.raw.learners import ridge_weights, sgd_weights
from icl_verify.numerics.raw.programs import encode_examples, ridge_chain, sgd_chain, theorem1, theorem2

FAMILY = "raw-programs"
PAPER = "Akyürek et al. 2023"

D_SYM = sp.Symbol("d", positive=True, integer=True)
ALPHA, LAM = sp.symbols("alpha lambda", positive=True)
Y = sp.Symbol("y", real=True)


# ---------------------------------------------------------------------------------------------
# The stated error bound of a compiled program

COMPILED_RTOL = 1e-9
BOUND = r"\le 10^{-9}(1+m)^2(1+s)^2"


def trace_scale(program: Any, H: np.ndarray) -> float:
    """(1 + m)²(1 + s)² over the program's reference trace: m = largest |entry|, s = largest ℓ1 norm
    of a timestep. The construction's error per product is |uv|·(R/(2N_a²) + O(u² + v²)/M²) with
    R ≲ 2s² (the balance unit carries −Σ), i.e. ≲ scale/N² = 10⁻¹⁰·scale at the default N = 10⁵;
    the claims allow 10⁻⁹·scale for the constants and the error's propagation through later steps."""
    m, s = np.max(np.abs(H)), np.max(np.abs(H).sum(axis=1))
    for op in program.ops:
        H = op.apply(H)
        m, s = max(m, np.max(np.abs(H))), max(s, np.max(np.abs(H).sum(axis=1)))
    return float((1 + m) ** 2 * (1 + s) ** 2)


@cached(maxsize=64)
def _compiled_theorem2(d: int, lam: float) -> tuple:
    program, readout = theorem2(d, lam)
    return program, readout, rc.compile_program(program)


@cached(maxsize=64)
def _compiled_ridge_chain(n: int, d: int, lam: float) -> tuple:
    program, readout = ridge_chain(n, d, lam)
    return program, readout, rc.compile_program(program)


# ---------------------------------------------------------------------------------------------
# Theorem 1: one GD step


def theorem1_gradient_residual() -> list:
    """w − α ∇_w[(wᵀx − y)² + λ‖w‖²] minus the stated w − 2α(x(wᵀx) − yx + λw), any d."""
    w, x = MatrixSymbol("w", D_SYM, 1), MatrixSymbol("x", D_SYM, 1)
    loss = w.T * x * x.T * w - 2 * Y * (x.T * w) + LAM * (w.T * w)
    stated = w - 2 * ALPHA * (x * x.T * w - Y * x + LAM * w)
    return [w - ALPHA * loss.diff(w) - stated]


THEOREM1_FORMULA = Claim(
    name="theorem1-formula-is-gd-step",
    source=f"{PAPER}, Theorem 1",
    assumptions=("squared loss with ridge penalty λ‖w‖², one example",),
    statement=r"w' = w - 2\alpha(x(w^\top x) - y x + \lambda w) = w - \alpha \nabla_w[(w^\top x - y)^2 + \lambda\|w\|^2]",
    checks=(Symbolic(theorem1_gradient_residual),),
)


def _symbols(name: str, d: int) -> list:
    return list(sp.symbols(f"{name}1:{d + 1}", real=True))


def _symbolic_examples(d: int, D: int, n: int = 1) -> tuple[np.ndarray, list, list, list]:
    """Program input with symbolic x_k, y_k and query; returns (H, xs, ys, x_query)."""
    xs = [_symbols(f"x{k}_", d) for k in range(n)]
    ys = [sp.Symbol(f"y{k}", real=True) for k in range(n)]
    xq = _symbols("q", d)
    H = np.zeros((2 * n + 1, D), dtype=object)
    for k in range(n):
        H[2 * k, 1 : 1 + d] = xs[k]
        H[2 * k + 1, 0] = ys[k]
    H[2 * n, 1 : 1 + d] = xq
    return H, xs, ys, xq


def theorem1_program_residual(d: int, lam_term: str = "formula") -> list:
    """The Appendix-A program's w' and prediction (primitive semantics, symbolic) minus Theorem 1's."""
    w = np.array(_symbols("w", d), dtype=object)
    program, (block, t) = theorem1(d, w, ALPHA, LAM, lam_term)
    H, xs, ys, xq = _symbolic_examples(d, program.D)
    out = program.run(H)
    pred, w_prog = program.read(out, block, t)[0], sp.Matrix(program.read(out, "w_new", 1))
    W, x = sp.Matrix(w), sp.Matrix(xs[0])
    w_new = W - 2 * ALPHA * (x * (W.T * x)[0] - ys[0] * x + LAM * W)
    return [(w_prog - w_new).applyfunc(sp.expand), sp.expand(pred - (w_new.T * sp.Matrix(xq))[0])]


def _t1_explicit(lam_term: str) -> Explicit:
    """Exact check at d = 1, 2, 3 of the program with the given λ term."""
    return Explicit(lambda d: theorem1_program_residual(d, lam_term), [{"d": 1}, {"d": 2}, {"d": 3}])


def _t1_formula_residual(d: int) -> list:
    """A printed λ variant's explicit control: the program with Theorem 1's own λ term."""
    return theorem1_program_residual(d, "formula")


@st.composite
def theorem1_cases(draw, *, d: int | None = None) -> dict:
    d = draw(dims(1, 6)) if d is None else d
    return {
        "d": d,
        "w": draw(matrices(1, d, 2.0))[0],
        "x1": draw(matrices(1, d, 2.0))[0],
        "x2": draw(matrices(1, d, 2.0))[0],
        "y1": draw(reals(2.0)),
        "alpha": draw(reals(0.5, positive=True)),
        "lam": draw(reals(1.0, positive=True)),
    }


def _theorem1_compiled(case: dict, lam_term: str = "formula") -> tuple:
    """Compiled Theorem-1 transformer's prediction vs the closed form w'ᵀx₂ (λ term as in the theorem)."""
    program, (block, t) = theorem1(case["d"], case["w"], case["alpha"], case["lam"], lam_term)
    H = encode_examples(case["x1"][None], np.array([case["y1"]]), case["x2"], program.D)
    pred = program.read(rc.compile_program(program).run(H), block, t)
    w, x, y, a, lam = case["w"], case["x1"], case["y1"], case["alpha"], case["lam"]
    w_new = w - 2 * a * (x * (w @ x) - y * x + lam * w)
    return pred, np.array([w_new @ case["x2"]]), trace_scale(program, H)


THEOREM1_PROGRAM = Claim(
    name="theorem1-program",
    source=f"{PAPER}, Theorem 1, Appendix A (mov, aff, aff, mul, aff, aff, aff, mov, mul)",
    builds_on=("theorem1-formula-is-gd-step",),
    statement=r"\text{program semantics: } \hat y = w'^\top x_2,\ w' = w - 2\alpha(x(w^\top x) - yx + \lambda w)",
    checks=(_t1_explicit("formula"),),
)

THEOREM1_COMPILED_D8 = Claim(
    name="theorem1-compiled-d8",
    source=f"{PAPER}, Theorem 1 at d = 8",
    builds_on=("theorem1-program", "compiled-raw-layer"),
    statement=r"d = 8:\ |\text{compiled prediction} - w'^\top x_2| " + BOUND,
    note="m, s: largest entry and largest timestep ℓ1 norm of the program's reference trace (see trace_scale).",
    checks=(
        Numeric(theorem1_cases(d=8).map(lambda c: {**c, "d": 8}), _theorem1_compiled, rtol=COMPILED_RTOL, atol=1e-12),
    ),
)

THEOREM1_OP_LIST = Claim(
    name="theorem1-lambda-op-list",
    source=f"{PAPER}, Appendix A operation list (−λw)",
    statement=r"\text{the program with } g \leftarrow g - \lambda w \text{ computes } w'^\top x_2 \text{ of Theorem 1}",
    checks=(
        _t1_explicit("op-list"),
        Numeric(
            theorem1_cases(),
            lambda c: _theorem1_compiled(c, "op-list"),
            rtol=COMPILED_RTOL,
            atol=1e-12,
        ),
    ),
    holds=False,
    corrected=Corrected("theorem1-formula-is-gd-step", explicit=_t1_formula_residual, numeric=_theorem1_compiled),
    note="Differs by 4αλ wᵀx₂ from the theorem whenever λ wᵀx₂ ≠ 0.",
)

THEOREM1_WALKTHROUGH = Claim(
    name="theorem1-lambda-walkthrough",
    source=f"{PAPER}, Appendix A walkthrough (−2λw)",
    statement=r"\text{the program with } g \leftarrow g - 2\lambda w \text{ computes } w'^\top x_2 \text{ of Theorem 1}",
    checks=(_t1_explicit("walkthrough"),),
    holds=False,
    corrected=Corrected("theorem1-formula-is-gd-step", explicit=_t1_formula_residual),
    note="Differs by 6αλ wᵀx₂ from the theorem whenever λ wᵀx₂ ≠ 0.",
)


# ---------------------------------------------------------------------------------------------
# Theorem 2: one Sherman–Morrison update


def theorem2_program_residual(d: int) -> list:
    """The Theorem-2 program's w' and prediction (symbolic) minus (λI + x₁x₁ᵀ)⁻¹ x₁ y₁ and its prediction."""
    program, (block, t) = theorem2(d, LAM)
    H, xs, ys, xq = _symbolic_examples(d, program.D)
    out = program.run(H)
    pred, w_prog = program.read(out, block, t)[0], sp.Matrix(program.read(out, "w_new", 1))
    x = sp.Matrix(xs[0])
    w_new = (LAM * sp.eye(d) + x * x.T).inv() * x * ys[0]
    return [(w_prog - w_new).applyfunc(sp.simplify), sp.simplify(pred - (w_new.T * sp.Matrix(xq))[0])]


THEOREM2_PROGRAM = Claim(
    name="theorem2-program",
    source=f"{PAPER}, Theorem 2 (Sherman–Morrison program)",
    statement=r"\text{program semantics: } w' = (\lambda I + x_1 x_1^\top)^{-1} x_1 y_1,\ \hat y = w'^\top x_2",
    checks=(Explicit(theorem2_program_residual, [{"d": 1}, {"d": 2}]),),
)


@st.composite
def theorem2_cases(draw, *, d: int | None = None) -> dict:
    d = draw(dims(1, 5)) if d is None else d
    return {
        "d": d,
        "x1": draw(matrices(1, d, 2.0))[0],
        "x2": draw(matrices(1, d, 2.0))[0],
        "y1": draw(reals(2.0)),
        "lam": draw(st.sampled_from([0.25, 0.5, 1.0, 2.0])),
    }


def _theorem2_compiled(case: dict) -> tuple:
    program, (block, t), compiled = _compiled_theorem2(case["d"], case["lam"])
    H = encode_examples(case["x1"][None], np.array([case["y1"]]), case["x2"], program.D)
    pred = program.read(compiled.run(H), block, t)
    w = ridge_weights(case["x1"][None], np.array([case["y1"]]), case["lam"])
    return pred, np.array([w @ case["x2"]]), trace_scale(program, H)


THEOREM2_COMPILED_D8 = Claim(
    name="theorem2-compiled-d8",
    source=f"{PAPER}, Theorem 2 at d = 8",
    builds_on=("theorem2-program", "compiled-raw-layer", "layernorm-division-limit"),
    statement=r"d = 8:\ |\text{compiled prediction} - ((\lambda I + x_1x_1^\top)^{-1} x_1 y_1)^\top x_2| " + BOUND,
    checks=(
        Numeric(theorem2_cases(d=8).map(lambda c: {**c, "d": 8}), _theorem2_compiled, rtol=COMPILED_RTOL, atol=1e-12),
    ),
)


# ---------------------------------------------------------------------------------------------
# Chains over n examples


@st.composite
def chain_cases(draw, *, max_n: int = 3, max_d: int = 3) -> dict:
    n, d = draw(dims(1, max_n)), draw(dims(1, max_d))
    return {
        "n": n,
        "d": d,
        "X": draw(matrices(n, d, 1.5)),
        "y": draw(matrices(1, n, 1.5))[0],
        "x_query": draw(matrices(1, d, 1.5))[0],
        "w0": draw(matrices(1, d, 1.0))[0],
        "alpha": draw(st.floats(0.01, 0.2)),
        "lam": draw(st.sampled_from([0.25, 0.5, 1.0, 2.0])),
    }


def _sgd_chain(case: dict, *, compiled: bool) -> tuple:
    program, (block, t) = sgd_chain(case["n"], case["d"], case["w0"], case["alpha"], case["lam"])
    H = encode_examples(case["X"], case["y"], case["x_query"], program.D)
    w = sgd_weights(case["X"], case["y"], case["alpha"], case["lam"], case["w0"])
    rhs = np.array([w @ case["x_query"]])
    if not compiled:
        return program.read(program.run(H), block, t), rhs
    return program.read(rc.compile_program(program).run(H), block, t), rhs, trace_scale(program, H)


def _ridge_chain(case: dict, *, compiled: bool) -> tuple:
    program, (block, t) = ridge_chain(case["n"], case["d"], case["lam"])
    H = encode_examples(case["X"], case["y"], case["x_query"], program.D)
    rhs = np.array([ridge_weights(case["X"], case["y"], case["lam"]) @ case["x_query"]])
    if not compiled:
        return program.read(program.run(H), block, t), rhs
    network = _compiled_ridge_chain(case["n"], case["d"], case["lam"])[2]
    return program.read(network.run(H), block, t), rhs, trace_scale(program, H)


SGD_CHAIN_PROGRAM = Claim(
    name="sgd-chain-program",
    source=f"{PAPER}, §3 (n examples need O(n) layers): one-pass SGD",
    builds_on=("theorem1-program",),
    statement=r"\text{program semantics} = w_n^\top x_q,\ w_k = w_{k-1} - 2\alpha(x_k(w_{k-1}^\top x_k) - y_k x_k + \lambda w_{k-1})",
    checks=(Numeric(chain_cases(), lambda c: _sgd_chain(c, compiled=False), rtol=1e-12, atol=1e-12),),
)

SGD_CHAIN_COMPILED = Claim(
    name="sgd-chain-compiled",
    source=f"{PAPER}, §3: one-pass SGD compiled",
    builds_on=("sgd-chain-program", "compiled-raw-layer"),
    statement=r"|\text{compiled one-pass SGD prediction} - w_n^\top x_q| " + BOUND,
    checks=(Numeric(chain_cases(), lambda c: _sgd_chain(c, compiled=True), rtol=COMPILED_RTOL, atol=1e-12),),
)

RIDGE_CHAIN_PROGRAM = Claim(
    name="ridge-chain-program",
    source=f"{PAPER}, §3 (chaining n Sherman–Morrison updates)",
    builds_on=("theorem2-program",),
    statement=r"\text{program semantics} = ((X^\top X + \lambda I)^{-1} X^\top y)^\top x_q",
    checks=(Numeric(chain_cases(), lambda c: _ridge_chain(c, compiled=False), rtol=1e-10, atol=1e-12),),
)

RIDGE_CHAIN_COMPILED = Claim(
    name="ridge-chain-compiled",
    source=f"{PAPER}, §3: ridge by n Sherman–Morrison updates, compiled",
    builds_on=("ridge-chain-program", "compiled-raw-layer", "layernorm-division-limit"),
    statement=r"|\text{compiled ridge-chain prediction} - ((X^\top X + \lambda I)^{-1} X^\top y)^\top x_q| " + BOUND,
    checks=(Numeric(chain_cases(), lambda c: _ridge_chain(c, compiled=True), rtol=COMPILED_RTOL, atol=1e-12),),
)


# ---------------------------------------------------------------------------------------------
# Depth and width of the compiled programs


def _sizes(build, *args: Any) -> tuple[int, int, int]:
    """(depth, compiled width, data width) of a compiled program."""
    program, _ = build(*args)
    compiled = rc.compile_program(program)
    return compiled.depth, compiled.width, program.D


def _poly_residual(values: list[float], degree: int) -> float:
    """Largest (degree+1)-th finite difference: 0 iff the values are a polynomial of that degree."""
    return float(np.max(np.abs(np.diff(values, degree + 1))))


def _theorem1_sizes(case: dict) -> tuple:
    d = case["d"]
    rows = [_sizes(theorem1, k, np.ones(k), 0.1, 0.1) for k in (d, d + 1, d + 2)]
    depth_change = max(r[0] for r in rows) - min(r[0] for r in rows)
    return np.array([depth_change, _poly_residual([r[1] for r in rows], 1)]), np.zeros(2)


def _theorem2_sizes(case: dict) -> tuple:
    d = case["d"]
    rows = [(c.depth, c.width, p.D) for p, _, c in (_compiled_theorem2(k, 0.5) for k in (d, d + 1, d + 2, d + 3))]
    depth_change = max(r[0] for r in rows) - min(r[0] for r in rows)
    return np.array([depth_change, _poly_residual([r[1] for r in rows], 2)]), np.zeros(2)


def _chain_depth(case: dict) -> tuple:
    n = case["n"]
    depths = [_sizes(ridge_chain, k, 2, 0.5)[0] for k in (n, n + 1, n + 2)]
    return np.array([_poly_residual(depths, 1)]), np.zeros(1)


SIZE_CASES = st.fixed_dictionaries({"d": dims(1, 8)})

THEOREM1_SIZE = Claim(
    name="theorem1-size",
    source=f"{PAPER}, Theorem 1 (constant depth, O(d) width)",
    builds_on=("theorem1-program",),
    statement=r"\text{compiled Theorem-1 depth is independent of } d,\ \text{width is affine in } d",
    checks=(Numeric(SIZE_CASES, _theorem1_sizes, rtol=0, atol=0),),
    note="Checked over d ∈ [1, 10] (differences of three consecutive d): depth 9, width 5d + 11.",
)

THEOREM2_SIZE = Claim(
    name="theorem2-size",
    source=f"{PAPER}, Theorem 2 (constant depth, O(d²) width)",
    builds_on=("theorem2-program",),
    statement=r"\text{compiled Theorem-2 depth is independent of } d,\ \text{width is quadratic in } d",
    checks=(Numeric(SIZE_CASES, _theorem2_sizes, rtol=0, atol=0),),
)

CHAIN_DEPTH = Claim(
    name="ridge-chain-depth-linear",
    source=f"{PAPER}, §3 (n examples need O(n) layers)",
    builds_on=("ridge-chain-program",),
    statement=r"\text{compiled ridge-chain depth is affine in } n",
    checks=(Numeric(st.fixed_dictionaries({"n": dims(1, 6)}), _chain_depth, rtol=0, atol=0),),
)


# ---------------------------------------------------------------------------------------------
# Figure: compiled Theorem 1 and 2 transformers against the closed forms, over the scale N


def _theorem_error_data(seed: int = 0, d: int = 4) -> dict:
    """Relative error of the compiled Theorem 1 (one GD step) and Theorem 2 (one Sherman–Morrison
    update) predictions against their closed forms, over the construction's scale N — the small N
    lie outside the range each network is compiled for, which is what the figure shows."""
    rng = np.random.default_rng(seed)
    x1, x2, w = rng.standard_normal(d) / np.sqrt(d), rng.standard_normal(d) / np.sqrt(d), rng.standard_normal(d)
    y1, alpha, lam = float(w @ x1), 0.1, 0.5
    grid = np.array([1e2, 1e3, 1e4, 1e5])
    t1, t2 = [], []
    for n in grid:
        scales = rc.Scales.uniform(float(n), attention=100.0)
        program, (block, t) = theorem1(d, w, alpha, lam)
        H = encode_examples(x1[None], np.array([y1]), x2, program.D)
        pred = program.read(rc.compile_program(program, scales).run(H, check_range=False), block, t)[0]
        exact = (w - 2 * alpha * (x1 * (w @ x1) - y1 * x1 + lam * w)) @ x2
        t1.append(abs(pred - exact) / abs(exact))
        program, (block, t) = theorem2(d, lam)
        H = encode_examples(x1[None], np.array([y1]), x2, program.D)
        pred = program.read(rc.compile_program(program, scales).run(H, check_range=False), block, t)[0]
        exact = ridge_weights(x1[None], np.array([y1]), lam) @ x2
        t2.append(abs(pred - exact) / abs(exact))
    return {"N": grid, "theorem1": np.array(t1), "theorem2": np.array(t2)}


def _draw_theorem_error(ax, data) -> None:
    ax.loglog(data["N"], data["theorem1"], "o-", label="Theorem 1 (one GD step)")
    ax.loglog(data["N"], data["theorem2"], "s-", label="Theorem 2 (Sherman–Morrison)")
    ax.set_xlabel("construction scale N")
    ax.set_ylabel("relative error of the prediction")
    ax.legend()


FIGURES = (
    Figure(
        name="theorem-error",
        caption="Compiled transformers for Akyürek et al.'s Theorems 1 and 2 (d = 4, seed 0) against the "
        "closed forms w'ᵀx₂ and ((λI + x₁x₁ᵀ)⁻¹x₁y₁)ᵀx₂, over the construction's scale N (attention "
        "inverse temperature 100).",
        data=_theorem_error_data,
        draw=_draw_theorem_error,
    ),
)
