"""RAW programs for Akyürek et al.'s Theorems 1 and 2 and their n-example chains (ICLR 2023, §3, Appendix A).

Timesteps follow the paper's encoding (Akyürek et al. 2023, Appendix A): x̃_k = [0, x_k] at timestep 2k,
ỹ_k = [y_k, 0] at timestep 2k + 1 (k = 0..n−1), the query x̃ at timestep 2n. Unit 0 holds y,
units 1..d hold x, scratch units follow (declared in each program's ``layout``). Rows = timesteps
(see ``numerics.raw.primitives``).

Each builder returns ``(program, readout)``: ``readout`` names the layout block and timestep
holding the prediction. The λ term of Theorem 1 is an explicit option because the paper states
it three ways (a trap listed in docs/reference.md): ``"formula"`` (+λw, the theorem and the gradient of
(wᵀx − y)² + λ‖w‖²), ``"op-list"`` (−λw, Appendix A's operation list) and ``"walkthrough"``
(−2λw, the appendix's prose).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Literal

import numpy as np

from icl_verify.errors import InvalidArgument
from icl_verify.numerics.raw.compiler import Scales, compile_program
from icl_verify.numerics.raw.learners import Learner
from icl_verify.numerics.raw.primitives import Aff, Div, Mov, Mul, Op, Program, is_exact, weights
from icl_verify.numerics.shared.checks import finite_array, finite_scalar, positive_int
from icl_verify.numerics.shared.fuzz import Fuzz

LamTerm = Literal["formula", "op-list", "walkthrough"]
LAMBDA_COEFFICIENT: dict[str, float] = {"formula": 1.0, "op-list": -1.0, "walkthrough": -2.0}


def _blocks(d: int, spec: list[tuple[str, int]]) -> dict[str, tuple[int, int]]:
    """Consecutive unit blocks: y (1), x (d), then ``spec``."""
    layout, start = {}, 0
    for name, size in [("y", 1), ("x", d)] + spec:
        layout[name] = (start, start + size)
        start += size
    return layout


def _zero(rows: int, cols: int) -> np.ndarray:
    return np.zeros((rows, cols))


def _scalar(name: str, value: object, *, positive: bool = False) -> object:
    """A finite real (validated) or an exact symbolic value from ``theory/`` (passed through)."""
    return value if is_exact(value) else finite_scalar(name, value, positive=positive)


def _vector(name: str, value: object, d: int) -> np.ndarray:
    v = weights(name, value, ndim=1)
    if v.shape != (d,):
        raise InvalidArgument(f"{name} must have shape ({d},), got {v.shape}")
    return v


def encode_examples(X: object, y: object, x_query: object, D: int) -> np.ndarray:
    """The program input H (2n + 1, D): rows x̃_1, ỹ_1, …, x̃_n, ỹ_n, x̃_query, scratch zero."""
    X = finite_array("X", X, ndim=2, nonempty=True)
    y = finite_array("y", y, ndim=1)
    x_query = finite_array("x_query", x_query, ndim=1)
    D = positive_int("D", D)
    n, d = X.shape
    if d + 1 > D:
        raise InvalidArgument(f"D must hold y and x (at least d + 1 = {d + 1} units), got {D}")
    if y.shape != (n,) or x_query.shape != (d,):
        raise InvalidArgument(f"y must have shape ({n},) and x_query ({d},), got {y.shape} and {x_query.shape}")
    H = np.zeros((2 * n + 1, D))
    H[0 : 2 * n : 2, 1 : 1 + d] = X
    H[1 : 2 * n : 2, 0] = y
    H[2 * n, 1 : 1 + d] = x_query
    return H


def theorem1(d: int, w: object, alpha: float, lam: float, lam_term: LamTerm = "formula") -> tuple[Program, tuple]:
    """One GD step on one example (Theorem 1, Appendix A): mov, aff, aff, mul, aff, aff, aff, mov, mul.

    w' = w − 2α(x(wᵀx) − y x + c·λ w) with c = +1 (formula), −1 (op list), −2 (walkthrough);
    prediction w'ᵀ x₂. Timesteps: x̃₁ (0), ỹ₁ (1), x̃₂ (2). ``w`` is the (constant) initial weight.
    """
    d = positive_int("d", d)
    w = _vector("w", w, d)
    alpha, lam = _scalar("alpha", alpha), _scalar("lam", lam)
    if lam_term not in LAMBDA_COEFFICIENT:
        raise InvalidArgument(f"lam_term must be one of {sorted(LAMBDA_COEFFICIENT)}, got {lam_term!r}")
    L = _blocks(d, [("u", 1), ("r", 1), ("g", d), ("w_new", d), ("pred", 1)])
    y, x, u, r, g, wn, pred = (L[k] for k in ("y", "x", "u", "r", "g", "w_new", "pred"))
    col = (1,)
    ops: list[Op] = [
        Mov(0, 1, x, x),
        Aff(x, y, u, w[None, :], _zero(1, 1), np.zeros(1), col),  # u = wᵀx
        Aff(u, y, r, np.ones((1, 1)), -np.ones((1, 1)), np.zeros(1), col),  # r = u − y
        Mul(d, 1, 1, x, r, g, col),  # g = x r
        Aff(g, y, g, np.eye(d), _zero(d, 1), LAMBDA_COEFFICIENT[lam_term] * lam * w, col),  # g += c λ w
        Aff(g, y, g, -2 * alpha * np.eye(d), _zero(d, 1), np.zeros(d), col),  # Δ = −2α g
        Aff(g, y, wn, np.eye(d), _zero(d, 1), w, col),  # w' = w + Δ
        Mov(1, 2, wn, wn),
        Mul(1, d, 1, wn, x, pred, (2,)),  # w'ᵀ x₂
    ]
    return Program(3, L["pred"][1], tuple(ops), L), ("pred", 2)


def theorem2(d: int, lam: float) -> tuple[Program, tuple]:
    """One Sherman–Morrison update from A₀ = λI (Theorem 2): w' = (λI + x₁x₁ᵀ)⁻¹ x₁ y₁.

    (A + x xᵀ)⁻¹ = B − (Bx)(Bx)ᵀ / (1 + xᵀBx), B = A⁻¹ symmetric; prediction w'ᵀ x₂.
    """
    d = positive_int("d", d)
    lam = _scalar("lam", lam, positive=True)
    L = _blocks(d, [("B", d * d), ("z", d), ("q", 1), ("c", 1), ("Z", d * d), ("v", d), ("w_new", d), ("pred", 1)])
    col = (1,)
    ops = [Mov(0, 1, L["x"], L["x"])] + _init_inverse(L, d, lam, col, with_sum=False)
    ops += _sherman_morrison(L, d, col)
    ops += [
        Mul(d, d, 1, L["B"], L["x"], L["v"], col),  # v = B' x
        Mul(d, 1, 1, L["v"], L["y"], L["w_new"], col),  # w' = v y
        Mov(1, 2, L["w_new"], L["w_new"]),
        Mul(1, d, 1, L["w_new"], L["x"], L["pred"], (2,)),
    ]
    return Program(3, L["pred"][1], tuple(ops), L), ("pred", 2)


def _init_inverse(L: dict, d: int, lam: float, col: tuple[int, ...], *, with_sum: bool) -> list[Op]:
    """B = I/λ (and s = 0 when ``with_sum``) as an aff with bias."""
    out = L["Bs"] if with_sum else L["B"]
    size = out[1] - out[0]
    b = np.zeros(size, dtype=object if is_exact(lam) else np.float64)
    for i in range(d):
        b[i * d + i] = 1 / lam
    return [Aff(L["y"], L["y"], out, _zero(size, 1), _zero(size, 1), b, col)]


def _sherman_morrison(L: dict, d: int, col: tuple[int, ...]) -> list[Op]:
    """B ← B − (Bx)(Bx)ᵀ / |1 + xᵀBx| (Sherman–Morrison with u = v = x)."""
    return [
        Mul(d, d, 1, L["B"], L["x"], L["z"], col),  # z = B x
        Mul(1, d, 1, L["x"], L["z"], L["q"], col),  # q = xᵀ z
        Mul(d, 1, d, L["z"], L["z"], L["Z"], col),  # Z = z zᵀ
        Aff(L["q"], L["y"], L["c"], np.ones((1, 1)), _zero(1, 1), np.ones(1), col),  # c = 1 + q
        Div(L["Z"], L["c"][0], L["Z"], col),  # Z / |c|
        Aff(L["B"], L["Z"], L["B"], np.eye(d * d), -np.eye(d * d), np.zeros(d * d), col),  # B − Z
    ]


def _example_columns(n: int) -> Iterator[tuple[int, int]]:
    """(x̃_k timestep, ỹ_k timestep) for k = 0..n−1."""
    for k in range(n):
        yield 2 * k, 2 * k + 1


def sgd_chain(n: int, d: int, w0: object, alpha: float, lam: float) -> tuple[Program, tuple]:
    """One-pass SGD over n examples: n Theorem-1 steps w ← w − 2α(x(wᵀx) − yx + λw), then w_nᵀ x_query.

    w is carried in the hidden state from ỹ_k to ỹ_{k+1} by mov.
    """
    n, d = positive_int("n", n), positive_int("d", d)
    w0 = _vector("w0", w0, d)
    alpha, lam = _scalar("alpha", alpha), _scalar("lam", lam)
    L = _blocks(d, [("w", d), ("p", 1), ("r", 1), ("g", d), ("pred", 1)])
    ops: list[Op] = [Aff(L["y"], L["y"], L["w"], _zero(d, 1), _zero(d, 1), w0, (1,))]
    for xt, yt in _example_columns(n):
        col = (yt,)
        ops.append(Mov(xt, yt, L["x"], L["x"]))
        if yt > 1:
            ops.append(Mov(yt - 2, yt, L["w"], L["w"]))
        ops += [
            Mul(1, d, 1, L["w"], L["x"], L["p"], col),  # p = wᵀx
            Aff(L["p"], L["y"], L["r"], np.ones((1, 1)), -np.ones((1, 1)), np.zeros(1), col),  # r = p − y
            Mul(d, 1, 1, L["x"], L["r"], L["g"], col),  # g = x r
            Aff(L["w"], L["g"], L["w"], (1 - 2 * alpha * lam) * np.eye(d), -2 * alpha * np.eye(d), np.zeros(d), col),
        ]
    q = 2 * n
    ops += [Mov(q - 1, q, L["w"], L["w"]), Mul(1, d, 1, L["w"], L["x"], L["pred"], (q,))]
    return Program(2 * n + 1, L["pred"][1], tuple(ops), L), ("pred", q)


def ridge_chain(n: int, d: int, lam: float) -> tuple[Program, tuple]:
    """Ridge by n Sherman–Morrison updates: B_n = (XᵀX + λI)⁻¹, s_n = Xᵀy, prediction (B_n s_n)ᵀ x_query."""
    n, d = positive_int("n", n), positive_int("d", d)
    lam = _scalar("lam", lam, positive=True)
    spec = [("Bs", d * d + d), ("z", d), ("q", 1), ("c", 1), ("Z", d * d), ("yx", d), ("w_new", d), ("pred", 1)]
    L = _blocks(d, spec)
    b0 = L["Bs"][0]
    L["B"], L["s"] = (b0, b0 + d * d), (b0 + d * d, b0 + d * d + d)
    ops: list[Op] = _init_inverse(L, d, lam, (1,), with_sum=True)
    for xt, yt in _example_columns(n):
        col = (yt,)
        ops.append(Mov(xt, yt, L["x"], L["x"]))
        if yt > 1:
            ops.append(Mov(yt - 2, yt, L["Bs"], L["Bs"]))
        ops.append(Mul(d, 1, 1, L["x"], L["y"], L["yx"], col))  # yx = x y
        ops += _sherman_morrison(L, d, col)
        ops.append(Aff(L["s"], L["yx"], L["s"], np.eye(d), np.eye(d), np.zeros(d), col))  # s += x y
    q = 2 * n
    ops += [
        Mov(q - 1, q, L["Bs"], L["Bs"]),
        Mul(d, d, 1, L["B"], L["s"], L["w_new"], (q,)),  # w = B s
        Mul(1, d, 1, L["w_new"], L["x"], L["pred"], (q,)),
    ]
    return Program(2 * n + 1, L["pred"][1], tuple(ops), L), ("pred", q)


def compiled_learner(
    kind: Literal["ridge", "sgd"],
    n: int,
    d: int,
    *,
    lam: float = 0.5,
    alpha: float = 0.05,
    w0: object = None,
    scales: Scales | None = None,
) -> Learner:
    """The compiled n-example chain as a learner ``(X, y, X_query) -> predictions`` (one forward per query),
    so SPD/ILWD (``numerics.raw.learners``) can compare the transformer with any reference learner."""
    if kind == "ridge":
        program, (block, t) = ridge_chain(n, d, lam)
    elif kind == "sgd":
        program, (block, t) = sgd_chain(n, d, np.zeros(d) if w0 is None else w0, alpha, lam)
    else:
        raise InvalidArgument(f"kind must be 'ridge' or 'sgd', got {kind!r}")
    network = compile_program(program, scales or Scales())

    def learner(X: np.ndarray, y: np.ndarray, X_query: np.ndarray) -> np.ndarray:
        Q = finite_array("X_query", X_query, ndim=2)
        return np.array([program.read(network.run(encode_examples(X, y, q, program.D)), block, t)[0] for q in Q])

    return learner


# ---------------------------------------------------------------------------------------------
# Examples for the bad-input fuzzer (numerics.shared.fuzz)

FUZZ = {
    "encode_examples": Fuzz(lambda: {"X": np.ones((2, 2)), "y": np.ones(2), "x_query": np.ones(2), "D": 6}),
    "theorem1": Fuzz(lambda: {"d": 2, "w": np.array([0.5, -0.5]), "alpha": 0.1, "lam": 0.2}),
    "theorem2": Fuzz(lambda: {"d": 2, "lam": 0.5}),
    "sgd_chain": Fuzz(lambda: {"n": 2, "d": 2, "w0": np.zeros(2), "alpha": 0.1, "lam": 0.2}),
    "ridge_chain": Fuzz(lambda: {"n": 2, "d": 2, "lam": 0.5}),
}
FUZZ_EXEMPT = {"compiled_learner": "builds a compiled chain; its numbers are those of sgd_chain/ridge_chain"}
