"""Dimension-free moment algebra: expectations of products of random data matrices.

**Representation.** A product is written as a SymPy matrix expression in which some
``MatrixSymbol``s are random, e.g. ``X.T * X * M * X.T * X`` with ``X = MatrixSymbol("X", N, d)``
of symbolic shape; each random symbol is given a :class:`Law`. The expression is expanded into words
(products of factors); each word is an index network: an index node between consecutive factors,
every factor an edge between two nodes (a trace closes the word into a cycle). Constants
(``MatrixSymbol``, ``Inverse``, … of anything non-random) stay edges; identities merge their two nodes.

**Pairing rule.** The rows of a random matrix are independent, each with covariance Σ (its
:class:`Law`), so for a Gaussian law Isserlis' theorem (Isserlis 1918) gives
E[R_{ia} R_{jb} R_{kc} R_{ld}] = δ_ij Σ_ab δ_kl Σ_cd + δ_ik Σ_ac δ_jl Σ_bd + δ_il Σ_ad δ_jk Σ_bc, and in
general the sum over all pairings of the occurrences of each random symbol (independent symbols pair
only among themselves). A pair merges the two row nodes (δ) and joins the two column nodes by a Σ
edge. For iid entries of variance s² and kurtosis κ (``Law.iid``) the fourth cumulant adds, for
every block of four occurrences, (κ − 3) s⁴ δ_{ijkl} δ_{abcd}: all four row nodes merge and all four
column nodes merge. Odd moments vanish (entries symmetric about 0).

**Contraction.** After the merges every node has two edges (or one, at the two ends of an open
product), so the network is a union of cycles — each a trace of the product of its edges, read in
a canonical rotation and direction — of isolated nodes — each a factor of its dimension (N, d, …) —
and, for a matrix expression, one path between the ends: the matrix result. So
E[XᵀX] = N Σ and E[XᵀX M XᵀX] = N² Σ M Σ + N Σ Mᵀ Σ + N tr(Σ M) Σ (Wishart moments, Gupta & Nagar
2000, Ch. 3) come out for symbolic N, d and Σ.

**The fragment it decides.** Polynomials in the random symbols: sums of products whose factors
are random symbols (transposed or not) and constants, scaled by products of traces of such
products (positive integer powers) and by constant scalars. Outside it, :class:`OutsideFragment`
(a ``ValueError``) says why, and nothing is computed: a random symbol under an inverse, a
negative or fractional power, a root or any other function (E[x (xᵀx)⁻¹ xᵀ] is no polynomial
moment); moments above the fourth of an iid law (variance and kurtosis fix E r² and E r⁴ only —
a law with κ = 3 need not be Gaussian); a fourth-cumulant node that meets a matrix other than the
identity (a Hadamard-type sum Σ_a M_aa …, not a trace of products); and more than
:data:`MAX_PAIRINGS` pairings in one term (E[(xᵀx)^k] has (2k − 1)!! of them; a 1 × 1 Gaussian
symbol needs none: every pairing of its 2k occurrences has the same value, so E[x^2k] =
(2k − 1)!! σ^2k in closed form). Correlated rows and non-zero means are not modelled. Traces are
canonical only up to rotation and reversal of symmetric factors; a covariance is symmetric, and
appears untransposed in every result.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import sympy as sp
from sympy.matrices.expressions import (
    Identity,
    Inverse,
    MatAdd,
    MatMul,
    MatPow,
    MatrixExpr,
    MatrixSymbol,
    Trace,
    Transpose,
    ZeroMatrix,
)

from icl_verify.errors import InvalidArgument

__all__ = [
    "MAX_PAIRINGS",
    "Law",
    "OutsideFragment",
    "commutative_value",
    "expectation",
    "normal_form",
    "trace_gradient",
]

MAX_PAIRINGS = 10_395
"""The most pairings (partitions of the random occurrences) enumerated for one term, 11!! (E‖x‖¹² of a Gaussian vector, about ten seconds); beyond, :class:`OutsideFragment`."""


class OutsideFragment(ValueError):
    """An expectation outside the fragment the moment algebra decides (module docstring): undecided, not an error."""


def immutable(value: Any) -> Any:
    """An explicit SymPy matrix as an ``ImmutableMatrix`` (a matrix expression); anything else unchanged.

    A mutable ``sp.Matrix`` is neither hashable nor a ``MatrixExpr``: converted, it enters products,
    traces and laws like every other matrix.
    """
    return sp.ImmutableMatrix(value) if isinstance(value, sp.MatrixBase) else value


@dataclass(frozen=True)
class Law:
    """The law of a random matrix: independent rows; ``covariance`` Σ of a Gaussian row, or iid entries.

    Use :meth:`gaussian` (rows N(0, Σ)) or :meth:`iid` (entries iid, symmetric, variance s², kurtosis κ).
    ``is_gaussian`` says whether every moment is fixed (Isserlis); an iid law fixes moments up to the fourth only.
    """

    covariance: MatrixExpr | None
    variance: sp.Expr
    kurtosis: sp.Expr
    is_gaussian: bool = False

    @classmethod
    def gaussian(cls, covariance: MatrixExpr | sp.MatrixBase | sp.Expr) -> Law:
        """Rows iid N(0, Σ) for Σ any SymPy matrix (symbol, expression, explicit, mutable or not); a scalar Σ = s² means iid N(0, s²) entries."""
        covariance = immutable(covariance)
        if isinstance(covariance, MatrixExpr):
            return cls(covariance, sp.S.One, sp.Integer(3), True)
        return cls(None, sp.sympify(covariance), sp.Integer(3), True)

    @classmethod
    def iid(cls, variance: sp.Expr, kurtosis: sp.Expr) -> Law:
        """Entries iid and symmetric with E r² = s², E r⁴ = κ s⁴ (κ = 3: Gaussian, κ = 1: Rademacher)."""
        return cls(None, sp.sympify(variance), sp.sympify(kurtosis), False)

    @property
    def cumulant4(self) -> sp.Expr:
        """The fourth cumulant (κ − 3) s⁴ of an entry (0 for a Gaussian law)."""
        return sp.S.Zero if self.is_gaussian else sp.expand((self.kurtosis - 3) * self.variance**2)


@dataclass(frozen=True)
class _Factor:
    """One factor of a word: a matrix (random symbol or constant), possibly transposed."""

    matrix: MatrixExpr
    transposed: bool

    @property
    def shape(self) -> tuple[sp.Expr, sp.Expr]:
        rows, cols = self.matrix.shape
        return (cols, rows) if self.transposed else (rows, cols)

    def flipped(self) -> _Factor:
        return _Factor(self.matrix, not self.transposed)


Word = tuple[sp.Expr, tuple[_Factor, ...]]


def _words(expr: MatrixExpr) -> list[Word]:
    """``expr`` expanded into (coefficient, factors) terms; ``[]`` for a zero matrix."""
    if isinstance(expr, ZeroMatrix):
        return []
    if isinstance(expr, Identity):
        return [(sp.S.One, ())]
    if isinstance(expr, MatAdd):
        return [w for arg in expr.args for w in _words(arg)]
    if isinstance(expr, MatMul):
        coeff = sp.Mul(*[a for a in expr.args if not isinstance(a, MatrixExpr)])
        parts = [_words(a) for a in expr.args if isinstance(a, MatrixExpr)]
        return [
            (coeff * sp.Mul(*[c for c, _ in combo]), tuple(f for _, fs in combo for f in fs))
            for combo in itertools.product(*parts)
        ]
    if isinstance(expr, Transpose):
        return [(c, tuple(f.flipped() for f in reversed(fs))) for c, fs in _words(expr.arg)]
    if isinstance(expr, MatPow) and expr.exp.is_Integer and expr.exp >= 0:
        return _words(MatMul(*[expr.base] * int(expr.exp))) if expr.exp else [(sp.S.One, ())]
    return [(sp.S.One, (_Factor(expr, False),))]


class _Network:
    """Index nodes (with dimensions) joined by constant edges; union–find merges nodes."""

    def __init__(self) -> None:
        self.dims: list[sp.Expr] = []
        self.parent: list[int] = []
        self.edges: list[tuple[int, int, MatrixExpr, bool]] = []  # (u, v, M, transposed): entry M'_{uv}

    def node(self, dim: sp.Expr) -> int:
        self.dims.append(dim)
        self.parent.append(len(self.parent))
        return len(self.parent) - 1

    def find(self, u: int) -> int:
        while self.parent[u] != u:
            self.parent[u] = self.parent[self.parent[u]]
            u = self.parent[u]
        return u

    def merge(self, u: int, v: int) -> None:
        self.parent[self.find(u)] = self.find(v)


@dataclass(frozen=True)
class _Occurrence:
    symbol: MatrixSymbol
    row: int
    col: int


def _lay_out(net: _Network, factors: Sequence[_Factor], closed: bool, laws: Mapping[MatrixSymbol, Law]):
    """Add one (non-empty) word's nodes and edges; return its random occurrences and its (first, last) node."""
    nodes = [net.node(factors[0].shape[0])] + [net.node(f.shape[1]) for f in factors[:-1]]
    nodes.append(nodes[0] if closed else net.node(factors[-1].shape[1]))
    occurrences = []
    for f, u, v in zip(factors, nodes, nodes[1:]):
        _constant_or_random(f.matrix, laws)
        if f.matrix in laws:
            row, col = (v, u) if f.transposed else (u, v)
            occurrences.append(_Occurrence(f.matrix, row, col))
        elif isinstance(f.matrix, Identity):
            net.merge(u, v)
        else:
            net.edges.append((u, v, f.matrix, f.transposed))
    return occurrences, (nodes[0], nodes[-1])


def _blocks(items: Sequence[Any], sizes: tuple[int, ...]) -> Iterator[list[tuple[Any, ...]]]:
    """Every partition of ``items`` into blocks whose sizes are in ``sizes``."""
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for size in sizes:
        for others in itertools.combinations(range(len(rest)), size - 1):
            block = (first, *(rest[i] for i in others))
            remaining = [x for i, x in enumerate(rest) if i not in others]
            for tail in _blocks(remaining, sizes):
                yield [block, *tail]


def _random_inside(expr: Any, laws: Mapping[MatrixSymbol, Law]) -> list[MatrixSymbol]:
    """The random symbols occurring anywhere in ``expr``."""
    atoms = expr.atoms(MatrixSymbol) if isinstance(expr, sp.Basic) else set()
    return sorted((s for s in atoms if s in laws), key=str)


def _constant_or_random(matrix: MatrixExpr, laws: Mapping[MatrixSymbol, Law]) -> None:
    """A factor of a word is a random symbol or a constant: a random symbol inside anything else is outside the fragment."""
    inside = [] if matrix in laws else _random_inside(matrix, laws)
    if inside:
        names = ", ".join(s.name for s in inside)
        raise OutsideFragment(
            f"the random {names} occurs inside {matrix} (an inverse, power, root or other function): "
            "not a polynomial in the random inputs, outside the Wick fragment"
        )


def _scalar_symbol(symbol: MatrixSymbol) -> bool:
    return symbol.rows == 1 and symbol.cols == 1


def _pairing_count(symbol: MatrixSymbol, occurrences: int, law: Law) -> int:
    """How many partitions :func:`_pairings` enumerates for ``occurrences`` occurrences of ``symbol``."""
    if (law.is_gaussian and _scalar_symbol(symbol)) or occurrences % 2:
        return 1
    return int(sp.factorial2(occurrences - 1)) if law.is_gaussian else 4  # non-Gaussian: at most 5 occurrences


def _pairings(symbol: MatrixSymbol, occurrences: Sequence[_Occurrence], law: Law):
    """(coefficient, blocks) of each partition of one symbol's occurrences that contributes to the moment.

    A 1 × 1 Gaussian symbol is a scalar: every pairing of its 2k occurrences joins 1-dimensional
    nodes by the same k covariance edges, so one pairing weighted by their number (2k − 1)!!
    stands for all (E z^2k = (2k − 1)!! σ^2k).
    """
    if not law.is_gaussian and len(occurrences) > 5:
        raise OutsideFragment(
            f"law of {symbol}: {len(occurrences)} occurrences need moments above the fourth, which variance and "
            "kurtosis do not fix (declare a Gaussian law if that is meant)"
        )
    if law.is_gaussian and _scalar_symbol(symbol):
        if len(occurrences) % 2 == 0:
            pairs = [tuple(occurrences[i : i + 2]) for i in range(0, len(occurrences), 2)]
            yield sp.factorial2(len(occurrences) - 1) * law.variance ** len(pairs), pairs
        return
    for blocks in _blocks(list(occurrences), (2,) if law.is_gaussian else (2, 4)):
        fours = sum(len(b) == 4 for b in blocks)
        yield law.cumulant4**fours * law.variance ** (len(blocks) - fours), blocks


def _apply(net: _Network, blocks: Sequence[tuple[_Occurrence, ...]], law: Law) -> None:
    """Merge rows (δ) and join columns (Σ edge, or merge for scalar covariance) of each block."""
    for block in blocks:
        for a in block[1:]:
            net.merge(block[0].row, a.row)
        if law.covariance is None or isinstance(law.covariance, Identity):
            for a in block[1:]:
                net.merge(block[0].col, a.col)
        else:
            (a, b) = block
            net.edges.append((a.col, b.col, law.covariance, False))


def _symmetric(matrix: MatrixExpr, laws: Mapping[MatrixSymbol, Law]) -> bool:
    return any(law.covariance == matrix for law in laws.values())


def _walk(
    net: _Network, start: int, incident: dict[int, list[int]], used: set[int], laws: Mapping[MatrixSymbol, Law]
) -> tuple[list[_Factor], list[int]]:
    """Follow unused edges from ``start`` until none is left; the oriented factors and the nodes passed (start to end)."""
    factors: list[_Factor] = []
    nodes = [start]
    while True:
        node = nodes[-1]
        free = [e for e in incident[node] if e not in used]
        if not free:
            return factors, nodes
        e = free[0]
        used.add(e)
        u, v, m, t = net.edges[e]
        u, v = net.find(u), net.find(v)
        forward = u == node
        factors.append(_Factor(m, False if _symmetric(m, laws) else t if forward else not t))
        nodes.append(v if forward else u)


def _split(
    net: _Network, factors: list[_Factor], nodes: list[int], closed: bool
) -> tuple[list[list[_Factor]], list[_Factor], list[_Factor]]:
    """A walk cut at its inner nodes of dimension 1: (the 1 × 1 segments, the matrix segments at either end).

    At a node of dimension 1 the index takes one value, so the product factorises there: a segment
    between two such nodes is a 1 × 1 matrix, a scalar (its trace); vectors' inner products such
    as bᵀm thus leave the matrix product (m bᵀ m mᵀ = tr(bᵀm) m mᵀ) and equal moments print alike.
    A closed walk (a cycle) is cut at every such node and is the product of its segments' traces.
    """
    inner = range(0, len(factors)) if closed else range(1, len(factors))
    cuts = [i for i in inner if net.dims[nodes[i]] == 1]
    if not cuts:
        return [], factors, []
    if closed:
        k = cuts[0]
        factors, cuts = factors[k:] + factors[:k], [c - k for c in cuts] + [len(factors)]
        return [factors[a:b] for a, b in itertools.pairwise(cuts)], [], []
    bounds = [0, *cuts, len(factors)]
    segments = [factors[a:b] for a, b in itertools.pairwise(bounds)]
    head, tail = segments[0], segments[-1]
    scalars = segments[1:-1]
    if net.dims[nodes[0]] == 1:
        scalars, head = [head, *scalars], []
    if net.dims[nodes[-1]] == 1:
        scalars, tail = [*scalars, tail], []
    return scalars, head, tail


def _canonical_cycle(factors: Sequence[_Factor], laws) -> tuple[_Factor, ...]:
    """The rotation/reversal of a cycle with the smallest printed form (traces are cyclic and tr Mᵀ = tr M)."""

    def flip(f: _Factor) -> _Factor:
        return f if _symmetric(f.matrix, laws) else f.flipped()

    backward = [flip(f) for f in reversed(factors)]
    candidates = [tuple(seq[k:] + seq[:k]) for seq in (list(factors), backward) for k in range(len(factors))]
    return min(candidates, key=lambda c: [(str(f.matrix), f.transposed) for f in c])


def _product(factors: Sequence[_Factor]) -> MatrixExpr:
    return MatMul(*[f.matrix.T if f.transposed else f.matrix for f in factors]).doit()


def _contract(net: _Network, ends: tuple[int, int] | None, laws: Mapping[MatrixSymbol, Law]) -> Any:
    """The value of a network whose every node has degree 2 (ends: degree 1), as described above."""
    incident: dict[int, list[int]] = {net.find(u): [] for u in range(len(net.parent))}
    for e, (u, v, _, _) in enumerate(net.edges):
        incident[net.find(u)].append(e)
        incident[net.find(v)].append(e)
    roots = set(incident)
    tips = set() if ends is None else {net.find(ends[0]), net.find(ends[1])}
    for r in roots:
        degree = 1 if r in tips and len(tips) == 2 else 0 if r in tips else 2
        if len(incident[r]) not in {0, degree}:
            raise OutsideFragment(
                "a fourth-cumulant index meets a matrix other than the identity: a Hadamard-type sum, not a trace"
            )
    used: set[int] = set()
    value: Any = sp.S.One
    result: MatrixExpr | None = None
    if ends is not None:
        start, end = net.find(ends[0]), net.find(ends[1])
        path, nodes = _walk(net, start, incident, used, laws)
        if nodes[-1] != end:
            raise InvalidArgument("the open ends of the product are not joined (inconsistent shapes)")
        scalars, head, tail = _split(net, path, nodes, False)
        for segment in scalars:
            value *= Trace(_product(_canonical_cycle(segment, laws)))
        kept = head + tail
        result = _product(kept) if kept else Identity(net.dims[start])
    for r in sorted(roots - tips):
        if not incident[r]:
            value *= net.dims[r]
        elif not all(e in used for e in incident[r]):
            cycle, nodes = _walk(net, r, incident, used, laws)
            scalars, _, _ = _split(net, cycle, nodes, True)
            for segment in scalars or [cycle]:
                value *= Trace(_product(_canonical_cycle(segment, laws)))
    return value if result is None else value * result


def _expect_term(coeff: sp.Expr, cycles: Sequence[tuple[_Factor, ...]], open_word, shape, laws) -> Any:
    """E of coeff · Π tr(cycle) · (open word), summed over the pairings of every random symbol."""
    total: Any = ZeroMatrix(*shape) if open_word is not None else sp.S.Zero
    layout = _Network()
    occurrences: list[_Occurrence] = []
    for cycle in cycles:
        occurrences += _lay_out(layout, cycle, True, laws)[0]
    ends = None
    if open_word is not None:
        if open_word:
            occ, ends = _lay_out(layout, open_word, False, laws)
            occurrences += occ
        else:
            n = layout.node(shape[0])
            ends = (n, n)
    by_symbol = {s: [o for o in occurrences if o.symbol == s] for s in dict.fromkeys(o.symbol for o in occurrences)}
    count = math.prod(_pairing_count(s, len(occ), laws[s]) for s, occ in by_symbol.items())
    if count > MAX_PAIRINGS:
        raise OutsideFragment(f"{count} pairings in one term, more than the {MAX_PAIRINGS} enumerated")
    per_symbol = [list(_pairings(s, occ, laws[s])) for s, occ in by_symbol.items()]
    for choice in itertools.product(*per_symbol):
        net = _Network()
        net.dims, net.parent, net.edges = list(layout.dims), list(layout.parent), list(layout.edges)
        weight = coeff
        for s, (c, blocks) in zip(by_symbol, choice):
            weight *= c
            _apply(net, blocks, laws[s])
        if weight != 0:
            total = total + weight * _contract(net, ends, laws)
    return total


def _trace_words(expr: sp.Expr, laws: Mapping[MatrixSymbol, Law]) -> list[tuple[sp.Expr, list[tuple[_Factor, ...]]]]:
    """A scalar expression expanded into (coefficient, cycles): products of traces times constants.

    A factor with no random symbol in it is a constant whatever it is (1/tr Λ, det Λ); a random
    symbol elsewhere than in a trace raised to a positive integer power is :class:`OutsideFragment`.
    A word's own coefficient may hold random traces too (tr((xᵀx) x xᵀ)): it is expanded the same way.
    """
    out = []
    for term in sp.Add.make_args(sp.expand(expr)):
        options: list[list[tuple[sp.Expr, list[tuple[_Factor, ...]]]]] = []
        coeff = sp.S.One
        for factor in sp.Mul.make_args(term):
            base, power = factor.as_base_exp()
            if isinstance(base, Trace) and power.is_Integer and power > 0:
                size = base.arg.shape[0]
                expanded = [
                    (inner * (size if not fs else 1), [fs, *cycles] if fs else cycles)
                    for c, fs in _words(base.arg)
                    for inner, cycles in _trace_words(c, laws)
                ]
                options += [expanded] * int(power)
            elif _random_inside(factor, laws):
                raise OutsideFragment(
                    f"unsupported scalar factor {factor}: a random input under a function other than a positive "
                    "integer power of a trace, outside the Wick fragment"
                )
            else:  # a constant: its traces in canonical rotation
                coeff *= factor.xreplace({t: normal_form(t) for t in factor.atoms(Trace) if t != factor})
        for combo in itertools.product(*options):
            out.append((coeff * sp.Mul(*[c for c, _ in combo]), [fs for _, cycles in combo for fs in cycles]))
    return out


def expectation(expr: Any, laws: Mapping[MatrixSymbol, Law]) -> Any:
    """E[expr] for a polynomial matrix expression (or scalar built from traces) in random matrix symbols.

    Random symbols are the keys of ``laws``; different symbols are independent. Shapes and covariances
    may be symbolic. A matrix expression gives a matrix expression, a scalar gives a scalar.

    >>> N, d = sp.symbols("N d", positive=True, integer=True)
    >>> X, S = sp.MatrixSymbol("X", N, d), sp.MatrixSymbol("Sigma", d, d)
    >>> expectation(X.T * X, {X: Law.gaussian(S)})
    N*Sigma
    >>> sp.factor(expectation(Trace(X.T * X * X.T * X), {X: Law.gaussian(sp.S.One)}))
    N*d*(N + d + 1)
    """
    for symbol in laws:
        if not isinstance(symbol, MatrixSymbol):
            raise InvalidArgument(f"laws: keys must be MatrixSymbols, got {symbol!r}")
    expr = _immutable_inside(expr)
    if isinstance(expr, MatrixExpr):
        total: Any = ZeroMatrix(*expr.shape)
        for coeff, factors in _words(expr):
            for c, cycles in _trace_words(coeff, laws):
                total = total + _expect_term(c, cycles, factors, expr.shape, laws)
        return sp.expand(total)
    terms = _trace_words(expr, laws)
    return sp.expand(sum((_expect_term(c, cycles, None, None, laws) for c, cycles in terms), sp.S.Zero))


def _immutable_inside(expr: Any) -> Any:
    """``expr`` with every explicit matrix in it immutable (:func:`immutable`)."""
    expr = immutable(expr)
    if isinstance(expr, sp.Basic):
        mutable = {m: immutable(m) for m in sp.preorder_traversal(expr) if isinstance(m, sp.MatrixBase)}
        return expr.xreplace(mutable) if mutable else expr
    return expr


def normal_form(expr: Any) -> Any:
    """``expr`` with its traces in canonical rotation, so that equal expressions print equally (no randomness)."""
    return expectation(expr, {})


def trace_gradient(expr: sp.Expr, variable: MatrixSymbol) -> MatrixExpr:
    """G with expr = Σ tr(variable · Pᵢ)-terms = tr(Gᵀ · variable) for ``expr`` linear in ``variable``.

    The directional derivative of a loss along ``variable`` (a direction B) is tr(Gᵀ B); G = 0 is
    stationarity. Each trace is rotated to start with the variable (or with its transpose, read
    reversed), so G is exact for every dimension.
    """
    total: MatrixExpr = ZeroMatrix(*variable.shape)
    for coeff, cycles in _trace_words(expr, {}):
        hits = [(i, cycle) for i, cycle in enumerate(cycles) if any(f.matrix == variable for f in cycle)]
        if len(hits) != 1 or sum(f.matrix == variable for f in hits[0][1]) != 1:
            raise InvalidArgument(
                f"expr must be linear in {variable}, got a term with {len(hits)} traces containing it"
            )
        i, cycle = hits[0]
        k = next(j for j, f in enumerate(cycle) if f.matrix == variable)
        if cycle[k].transposed:
            cycle = tuple(f.flipped() for f in reversed(cycle))
            k = len(cycle) - 1 - k
        rest = cycle[k + 1 :] + cycle[:k]  # tr(B · rest) = tr(Gᵀ B) with G = restᵀ
        others = sp.Mul(*[Trace(_product(c)) for j, c in enumerate(cycles) if j != i])
        total = total + coeff * others * (_product(rest).T if rest else Identity(variable.shape[0]))
    return sp.expand(total)


def commutative_value(expr: Any, symbol: MatrixSymbol, scalar: sp.Symbol) -> sp.Expr:
    """``expr`` — built from one symmetric matrix Λ, identities, scalars and traces — as a function of Λ.

    For symmetric Λ = Q diag(λ) Qᵀ every such expression is Q f(diag(λ)) Qᵀ with the same rational f
    applied to each eigenvalue, transposes changing nothing; traces are fixed scalars and become fresh
    symbols. So f = 0 as a rational function proves expr = 0 for every dimension and every symmetric Λ
    (where the inverses exist).
    """
    traces = {t: sp.Symbol(f"tr_{k}", real=True) for k, t in enumerate(sorted(expr.atoms(Trace), key=str))}

    def value(e: Any) -> sp.Expr:
        if e == symbol:
            return scalar
        if isinstance(e, Identity):
            return sp.S.One
        if isinstance(e, ZeroMatrix):
            return sp.S.Zero
        if isinstance(e, Transpose):
            return value(e.arg)
        if isinstance(e, Inverse):
            return 1 / value(e.arg)
        if isinstance(e, MatPow):
            return value(e.base) ** e.exp
        if isinstance(e, (MatMul, sp.Mul)):
            return sp.Mul(*[value(a) for a in e.args])
        if isinstance(e, (MatAdd, sp.Add)):
            return sp.Add(*[value(a) for a in e.args])
        if isinstance(e, sp.Pow):
            return value(e.base) ** e.exp
        if isinstance(e, MatrixExpr):
            raise InvalidArgument(f"commutative_value: {e} is not a function of {symbol}")
        return e

    return sp.simplify(value(expr.xreplace(traces)))
