"""The RAW (read–arithmetic–write) operator and the primitives mov, mul, div, aff, dot.

Akyürek et al., "What learning algorithm is in-context learning?", ICLR 2023, §3 and
appendix (definition of RAW, eq. 26–27; the primitives).

Orientation. The paper's hidden state H has one **column per timestep** and one row per hidden
unit. Here ``H`` has shape ``(T, D)``: **row t is timestep t**, column u is hidden unit u — the
paper's ``H[u, t]`` is ``H[t, u]``. Unit ranges ("rows" in the paper) are half-open pairs
``(start, stop)``; index lists are tuples of unit indices.

RAW(⊛, s, r, w, W_o, W_a, W, K) with ⊛ ∈ {+, ⊙} (eq. 26–27):

    h'_i[w] = W_o( ((1/|K(i)|) Σ_{k∈K(i)} W_a h_k[r]) ⊛ W h_i[s] ) + b,   other units copied,

with K(i) ⊆ {j ≤ i} (reads of the current step are needed by aff/dot, so j ≤ i — the paper's
text says j < i; see ``mask``). Two conventions the paper leaves open are fixed here:
  * K(i) = ∅ leaves timestep i unchanged (no write), so mov touches only its target timestep;
  * an optional bias b (added after W_o) expresses aff's constant term.

All functions accept float arrays (validated: finite, right shapes) and, for exact evaluation by
``theory/``, NumPy ``object`` arrays (e.g. of SymPy symbols; numerics never imports SymPy).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from icl_verify.errors import InvalidArgument
from icl_verify.numerics.shared.checks import finite_array, positive_int

Rows = tuple[int, int]
Mask = Literal["inclusive", "strict"]


# ---------------------------------------------------------------------------------------------
# Validation helpers


def hidden_state(name: str, H: object) -> np.ndarray:
    """``H`` as a ``(T, D)`` array: float64 (finite) or an ``object`` array for exact evaluation."""
    if isinstance(H, np.ndarray) and H.dtype == object:
        if H.ndim != 2:
            raise InvalidArgument(f"{name} must have shape (T, D), got {H.shape}")
        return H
    arr = finite_array(name, H, ndim=2)
    if 0 in arr.shape:
        raise InvalidArgument(f"{name} must have at least one timestep and one unit, got shape {arr.shape}")
    return arr


def unit_range(name: str, rows: object, width: int) -> tuple[int, ...]:
    """The units of a half-open range ``(start, stop)`` inside ``[0, width)``; ``ValueError`` otherwise."""
    if not isinstance(rows, (tuple, list)) or len(rows) != 2:
        raise InvalidArgument(f"{name} must be a (start, stop) pair, got {rows!r}")
    start, stop = (int(v) for v in rows)
    if not 0 <= start < stop <= width:
        raise InvalidArgument(f"{name} = {tuple(rows)} is out of range: need 0 <= start < stop <= {width}")
    return tuple(range(start, stop))


def _units(name: str, units: Iterable[int], width: int, *, distinct: bool = False) -> tuple[int, ...]:
    out = tuple(int(u) for u in units)
    bad = [u for u in out if not 0 <= u < width]
    if bad:
        raise InvalidArgument(f"{name} has units {bad} out of range [0, {width})")
    if distinct and len(set(out)) != len(out):
        raise InvalidArgument(f"{name} writes a unit more than once (overlapping write rows): {out}")
    return out


def is_exact(value: object) -> bool:
    """True for exact (symbolic) values handed in by ``theory/``: objects with ``free_symbols``."""
    return hasattr(value, "free_symbols") or (isinstance(value, np.ndarray) and value.dtype == object)


def weights(name: str, value: object, *, ndim: int) -> np.ndarray:
    """A finite float64 weight array, or an ``object`` array of exact values passed through."""
    if isinstance(value, np.ndarray) and value.dtype == object:
        if value.ndim != ndim:
            raise InvalidArgument(f"{name} must have {ndim} dimensions, got shape {value.shape}")
        return value
    return finite_array(name, value, ndim=ndim)


def _matrix(name: str, M: object, shape: tuple[int, int]) -> np.ndarray:
    arr = weights(name, M, ndim=2)
    if arr.shape != shape:
        raise InvalidArgument(f"{name} must have shape {shape}, got {arr.shape}")
    return arr


def _columns(name: str, columns: Iterable[int] | None, T: int) -> tuple[int, ...]:
    if columns is None:
        return tuple(range(T))
    cols = tuple(sorted({int(c) for c in columns}))
    if not cols or cols[0] < 0 or cols[-1] >= T:
        raise InvalidArgument(f"{name} must be non-empty timesteps in [0, {T}), got {columns!r}")
    return cols


# ---------------------------------------------------------------------------------------------
# The RAW operator


@dataclass(frozen=True)
class Raw:
    """One RAW operator (Akyürek et al. appendix, eq. 26–27) on a hidden state with T timesteps.

    ``K[i]`` lists the timesteps read at step i (K(i) ⊆ {j ≤ i}); ``W_a`` is (p, |r|), ``W`` is
    (p, |s|) or ``None`` (W = 0), ``W_o`` is (|w|, p), ``bias`` is (|w|,) or ``None``.
    """

    op: Literal["+", "*"]
    r: tuple[int, ...]
    s: tuple[int, ...]
    w: tuple[int, ...]
    K: tuple[tuple[int, ...], ...]
    W_a: np.ndarray
    W: np.ndarray | None
    W_o: np.ndarray
    bias: np.ndarray | None = None

    def __post_init__(self) -> None:
        if self.op not in ("+", "*"):
            raise InvalidArgument(f"op must be '+' or '*' (⊙), got {self.op!r}")
        r, s = tuple(int(u) for u in self.r), tuple(int(u) for u in self.s)
        w = tuple(int(u) for u in self.w)
        if not r or not w:
            raise InvalidArgument("r and w must be non-empty unit lists")
        if len(set(w)) != len(w):
            raise InvalidArgument(f"w writes a unit more than once (overlapping write rows): {w}")
        W_a = weights("W_a", self.W_a, ndim=2)
        p = W_a.shape[0]
        if W_a.shape[1] != len(r):
            raise InvalidArgument(f"W_a must have |r| = {len(r)} columns, got shape {W_a.shape}")
        W = None if self.W is None else _matrix("W", self.W, (p, len(s)))
        if self.op == "*" and W is None:
            raise InvalidArgument("op '*' (⊙) needs W")
        W_o = _matrix("W_o", self.W_o, (len(w), p))
        bias = None if self.bias is None else weights("bias", self.bias, ndim=1)
        if bias is not None and bias.shape != (len(w),):
            raise InvalidArgument(f"bias must have shape ({len(w)},), got {bias.shape}")
        K = tuple(tuple(int(j) for j in Ki) for Ki in self.K)
        if not K:
            raise InvalidArgument("K must give the read set of every timestep")
        for i, Ki in enumerate(K):
            future = [j for j in Ki if j > i]
            if future:
                raise InvalidArgument(f"K[{i}] reads from a future timestep {future}: need K(i) ⊆ {{j <= i}}")
            if any(j < 0 for j in Ki) or len(set(Ki)) != len(Ki):
                raise InvalidArgument(f"K[{i}] must list distinct timesteps in [0, {i}], got {Ki}")
        for name, value in (
            ("r", r),
            ("s", s),
            ("w", w),
            ("K", K),
            ("W_a", W_a),
            ("W", W),
            ("W_o", W_o),
            ("bias", bias),
        ):
            object.__setattr__(self, name, value)

    @property
    def T(self) -> int:
        """Number of timesteps this RAW is defined on."""
        return len(self.K)

    @property
    def p(self) -> int:
        """Width of the arithmetic (rows of W_a)."""
        return self.W_a.shape[0]

    def reads(self) -> frozenset[int]:
        """Units read: r ∪ s."""
        return frozenset(self.r) | frozenset(self.s)

    def writes(self) -> frozenset[int]:
        return frozenset(self.w)

    def check_width(self, D: int) -> None:
        """``ValueError`` unless every unit index lies in [0, D)."""
        for name in ("r", "s", "w"):
            _units(name, getattr(self, name), D)

    def apply(self, H: object, *, mask: Mask = "inclusive") -> np.ndarray:
        """The RAW semantics (eq. 26–27) on ``H`` (T, D).

        ``mask="strict"`` reads only j < i (the paper's text): K(i) is cut to K(i) ∩ {j < i}.
        """
        H = hidden_state("H", H)
        if H.shape[0] != self.T:
            raise InvalidArgument(f"H must have T = {self.T} timesteps (rows), got {H.shape[0]}")
        self.check_width(H.shape[1])
        if mask not in ("inclusive", "strict"):
            raise InvalidArgument(f"mask must be 'inclusive' or 'strict', got {mask!r}")
        out = H.copy()
        r, s, w = list(self.r), list(self.s), list(self.w)
        for i, Ki in enumerate(self.K):
            reads = [k for k in Ki if mask == "inclusive" or k < i]
            if not reads:
                continue
            read = sum(self.W_a @ H[k, r] for k in reads) / len(reads)
            if self.W is None:
                value = read
            else:
                current = self.W @ H[i, s]
                value = read + current if self.op == "+" else read * current
            out[i, w] = self.W_o @ value + (0 if self.bias is None else self.bias)
        return out


def raw(H: object, raw_op: Raw, *, mask: Mask = "inclusive") -> np.ndarray:
    """Apply one RAW operator (shorthand for ``raw_op.apply(H, mask=mask)``)."""
    return raw_op.apply(H, mask=mask)


def apply_parallel(H: object, raws: Sequence[Raw]) -> np.ndarray:
    """Independent RAWs applied to the same input, writes combined (Akyürek et al. Lemma 7).

    ``ValueError`` if two RAWs write the same unit at the same timestep.
    """
    H = hidden_state("H", H)
    out = H.copy()
    written: dict[tuple[int, int], int] = {}
    for n, op in enumerate(raws):
        new = op.apply(H)
        for i, Ki in enumerate(op.K):
            if not Ki:
                continue
            for u in op.w:
                if (i, u) in written:
                    raise InvalidArgument(f"raws[{n}] and raws[{written[(i, u)]}] both write unit {u} at timestep {i}")
                written[(i, u)] = n
            out[i, list(op.w)] = new[i, list(op.w)]
    return out


# ---------------------------------------------------------------------------------------------
# Primitives (Akyürek et al., appendix), as operations in a program


def _self_reads(T: int, columns: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """K(i) = {i} on the given timesteps, ∅ elsewhere."""
    return tuple((i,) if i in columns else () for i in range(T))


@dataclass(frozen=True)
class Mov:
    """mov(H; s, t, i:j → i':j'): copy timestep ``src`` units ``rows_from`` into timestep ``dst`` units ``rows_to``.

    Argument order is (source, target) as in the paper's definition (the appendix's programs
    write (target, source) — a trap listed in docs/reference.md). Needs ``dst >= src``.
    """

    src: int
    dst: int
    rows_from: Rows
    rows_to: Rows

    def validate(self, T: int, D: int) -> None:
        a, b = unit_range("rows_from", self.rows_from, D), unit_range("rows_to", self.rows_to, D)
        if len(a) != len(b):
            raise InvalidArgument(f"rows_from and rows_to must have the same length, got {len(a)} and {len(b)}")
        for name, t in (("src", self.src), ("dst", self.dst)):
            if not 0 <= t < T:
                raise InvalidArgument(f"{name} = {t} is out of range [0, {T})")
        if self.dst < self.src:
            raise InvalidArgument(f"mov reads from a future timestep: src = {self.src} > dst = {self.dst}")

    def reads(self) -> frozenset[int]:
        return frozenset(range(*self.rows_from))

    def writes(self) -> frozenset[int]:
        return frozenset(range(*self.rows_to))

    def apply(self, H: object) -> np.ndarray:
        H = hidden_state("H", H)
        self.validate(*H.shape)
        out = H.copy()
        out[self.dst, slice(*self.rows_to)] = H[self.src, slice(*self.rows_from)]
        return out

    def raws(self, T: int) -> list[Raw]:
        """mov = RAW(+, W = 0, K(dst) = {src}, W_a = W_o = I) (appendix)."""
        n = self.rows_from[1] - self.rows_from[0]
        K = tuple((self.src,) if i == self.dst else () for i in range(T))
        return [Raw("+", tuple(range(*self.rows_from)), (), tuple(range(*self.rows_to)), K, np.eye(n), None, np.eye(n))]


class _TwoOperands:
    """Rows read and written by a per-column primitive with operands ``rows1``, ``rows2`` → ``rows_out``."""

    rows1: tuple[int, int]
    rows2: tuple[int, int]
    rows_out: tuple[int, int]

    def reads(self) -> frozenset[int]:
        return frozenset(range(*self.rows1)) | frozenset(range(*self.rows2))

    def writes(self) -> frozenset[int]:
        return frozenset(range(*self.rows_out))


@dataclass(frozen=True)
class Aff(_TwoOperands):
    """aff(H; rows1, rows2 → out, W1, W2, b): h[out] = W1 h[rows1] + W2 h[rows2] + b per timestep."""

    rows1: Rows
    rows2: Rows
    rows_out: Rows
    W1: np.ndarray
    W2: np.ndarray
    b: np.ndarray
    columns: tuple[int, ...] | None = None

    def __post_init__(self) -> None:
        for name in ("W1", "W2"):
            object.__setattr__(self, name, weights(name, getattr(self, name), ndim=2))
        object.__setattr__(self, "b", weights("b", self.b, ndim=1))

    def validate(self, T: int, D: int) -> None:
        r1, r2 = unit_range("rows1", self.rows1, D), unit_range("rows2", self.rows2, D)
        out = unit_range("rows_out", self.rows_out, D)
        _matrix("W1", self.W1, (len(out), len(r1)))
        _matrix("W2", self.W2, (len(out), len(r2)))
        if self.b.shape != (len(out),):
            raise InvalidArgument(f"b must have shape ({len(out)},), got {self.b.shape}")
        _columns("columns", self.columns, T)

    def apply(self, H: object) -> np.ndarray:
        H = hidden_state("H", H)
        self.validate(*H.shape)
        out = H.copy()
        for t in _columns("columns", self.columns, H.shape[0]):
            out[t, slice(*self.rows_out)] = (
                self.W1 @ H[t, slice(*self.rows1)] + self.W2 @ H[t, slice(*self.rows2)] + self.b
            )
        return out

    def raws(self, T: int) -> list[Raw]:
        """aff = RAW(+, K(t) = {t}, W_a = W1, W = W2, W_o = I, bias b) (appendix)."""
        K = _self_reads(T, _columns("columns", self.columns, T))
        n = self.rows_out[1] - self.rows_out[0]
        rng = lambda rows: tuple(range(*rows))  # noqa: E731
        return [Raw("+", rng(self.rows1), rng(self.rows2), rng(self.rows_out), K, self.W1, self.W2, np.eye(n), self.b)]


@dataclass(frozen=True)
class Mul(_TwoOperands):
    """mul(H; a, b, c, rows1, rows2 → out): per timestep the (a×b)·(b×c) product.

    Operands and result are stored row-major: A[i, j] = h[rows1[0] + i·b + j].
    """

    a: int
    b: int
    c: int
    rows1: Rows
    rows2: Rows
    rows_out: Rows
    columns: tuple[int, ...] | None = None

    def validate(self, T: int, D: int) -> None:
        a, b, c = (positive_int(n, getattr(self, n)) for n in ("a", "b", "c"))
        for name, size in (("rows1", a * b), ("rows2", b * c), ("rows_out", a * c)):
            units = unit_range(name, getattr(self, name), D)
            if len(units) != size:
                raise InvalidArgument(f"{name} must span {size} units for a={a}, b={b}, c={c}, got {len(units)}")
        _columns("columns", self.columns, T)

    def apply(self, H: object) -> np.ndarray:
        H = hidden_state("H", H)
        self.validate(*H.shape)
        out = H.copy()
        for t in _columns("columns", self.columns, H.shape[0]):
            A = H[t, slice(*self.rows1)].reshape(self.a, self.b)
            B = H[t, slice(*self.rows2)].reshape(self.b, self.c)
            out[t, slice(*self.rows_out)] = (A @ B).reshape(-1)
        return out

    def raws(self, T: int) -> list[Raw]:
        """mul = a·c parallel dots; dot = RAW(⊙, K(t) = {t}, W_a = W = I, W_o = 1ᵀ) (appendix)."""
        K = _self_reads(T, _columns("columns", self.columns, T))
        a0, b0, o0 = self.rows1[0], self.rows2[0], self.rows_out[0]
        out = []
        for i in range(self.a):
            for k in range(self.c):
                r = tuple(a0 + i * self.b + j for j in range(self.b))
                s = tuple(b0 + j * self.c + k for j in range(self.b))
                out.append(
                    Raw("*", r, s, (o0 + i * self.c + k,), K, np.eye(self.b), np.eye(self.b), np.ones((1, self.b)))
                )
        return out


@dataclass(frozen=True)
class Div:
    """div(H; rows, i', out): h[out] = h[rows] / |h[i']| per timestep (|·| from LayerNorm)."""

    rows: Rows
    denom: int
    rows_out: Rows
    columns: tuple[int, ...] | None = None

    def validate(self, T: int, D: int) -> None:
        a, b = unit_range("rows", self.rows, D), unit_range("rows_out", self.rows_out, D)
        if len(a) != len(b):
            raise InvalidArgument(f"rows and rows_out must have the same length, got {len(a)} and {len(b)}")
        _units("denom", [self.denom], D)
        _columns("columns", self.columns, T)

    def reads(self) -> frozenset[int]:
        return frozenset(range(*self.rows)) | {self.denom}

    def writes(self) -> frozenset[int]:
        return frozenset(range(*self.rows_out))

    def apply(self, H: object) -> np.ndarray:
        H = hidden_state("H", H)
        self.validate(*H.shape)
        out = H.copy()
        for t in _columns("columns", self.columns, H.shape[0]):
            c = H[t, self.denom]
            if c == 0:
                raise InvalidArgument(f"div: denominator unit {self.denom} is zero at timestep {t}")
            out[t, slice(*self.rows_out)] = H[t, slice(*self.rows)] / abs(c)
        return out


Op = Mov | Aff | Mul | Div


def mov(H: object, src: int, dst: int, rows_from: Rows, rows_to: Rows) -> np.ndarray:
    """mov(H; src, dst, rows_from → rows_to) (Akyürek et al. appendix)."""
    return Mov(src, dst, rows_from, rows_to).apply(H)


def aff(
    H: object, rows1: Rows, rows2: Rows, rows_out: Rows, W1: object, W2: object, b: object, columns=None
) -> np.ndarray:
    """aff(H; rows1, rows2 → rows_out, W1, W2, b) (Akyürek et al., appendix)."""
    return Aff(rows1, rows2, rows_out, W1, W2, b, columns).apply(H)


def mul(H: object, a: int, b: int, c: int, rows1: Rows, rows2: Rows, rows_out: Rows, columns=None) -> np.ndarray:
    """mul(H; a, b, c, rows1, rows2 → rows_out) (Akyürek et al., appendix)."""
    return Mul(a, b, c, rows1, rows2, rows_out, columns).apply(H)


def dot(H: object, rows1: Rows, rows2: Rows, out: int, columns=None) -> np.ndarray:
    """dot(H; rows1, rows2 → out) = mul with a = c = 1 (Akyürek et al. appendix)."""
    n = rows1[1] - rows1[0]
    return Mul(1, n, 1, rows1, rows2, (out, out + 1), columns).apply(H)


def div(H: object, rows: Rows, denom: int, rows_out: Rows, columns=None) -> np.ndarray:
    """div(H; rows, i' → rows_out) (Akyürek et al., appendix; division via LayerNorm)."""
    return Div(rows, denom, rows_out, columns).apply(H)


# ---------------------------------------------------------------------------------------------
# Programs


@dataclass(frozen=True)
class Program:
    """A list of primitives on a declared layout: T timesteps, D units, named unit ranges.

    Every op is validated against (T, D) on construction; ``run`` is the reference semantics.
    """

    T: int
    D: int
    ops: tuple[Op, ...]
    layout: dict[str, Rows] = field(default_factory=dict)

    def __post_init__(self) -> None:
        positive_int("T", self.T)
        positive_int("D", self.D)
        ops = tuple(self.ops)
        if not ops:
            raise InvalidArgument("ops must contain at least one primitive")
        for n, op in enumerate(ops):
            if not isinstance(op, (Mov, Aff, Mul, Div)):
                raise InvalidArgument(
                    f"ops[{n}] is not a supported primitive (Mov, Aff, Mul, Div): {type(op).__name__}"
                )
            try:
                op.validate(self.T, self.D)
            except InvalidArgument as exc:
                raise InvalidArgument(f"ops[{n}] ({type(op).__name__}): {exc}") from None
        for name, rows in self.layout.items():
            unit_range(f"layout[{name!r}]", rows, self.D)
        object.__setattr__(self, "ops", ops)

    def run(self, H: object) -> np.ndarray:
        """The reference semantics: apply the primitives in order."""
        H = hidden_state("H", H)
        if H.shape != (self.T, self.D):
            raise InvalidArgument(f"H must have shape (T, D) = {(self.T, self.D)}, got {H.shape}")
        for op in self.ops:
            H = op.apply(H)
        return H

    def read(self, H: np.ndarray, name: str, t: int) -> np.ndarray:
        """Units ``layout[name]`` of timestep ``t``."""
        if name not in self.layout:
            raise InvalidArgument(f"layout has no block {name!r}; blocks: {sorted(self.layout)}")
        return H[t, slice(*self.layout[name])]


# ---------------------------------------------------------------------------------------------
# Examples for the bad-input fuzzer (numerics.shared.fuzz)

FUZZ_EXEMPT = {
    **{name: "a validator of the RAW primitives" for name in ("hidden_state", "unit_range", "weights")},
    "is_exact": "a predicate: every value is a valid input",
    # functions of Raw and Program objects: a bad one is refused by their constructors
    **{
        name: "a RAW primitive on a validated hidden state"
        for name in ("raw", "apply_parallel", "mov", "aff", "mul", "dot", "div")
    },
}
