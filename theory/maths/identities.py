"""Deciding matrix identities for every size: canonical forms and rational identity testing.

A residual lhs − rhs built from matrix symbols of symbolic size with +, ×, ᵀ, scalar coefficients,
inverses, traces and determinants is decided by :func:`decide`, in two stages (with clearing
denominators between them).

1. **Canonical form (deterministic).** Transposes are pushed down to the letters
   ((AB)ᵀ = BᵀAᵀ, (M⁻¹)ᵀ = (Mᵀ)⁻¹), products and sums are expanded into words of letters with
   scalar coefficients, every trace of a word is rewritten to one representative of its class
   under cyclic rotation and transposition (tr(w) = tr(rotated w) = tr(wᵀ)), an inverse or a
   determinant becomes an opaque letter (resp. scalar) named by the canonical form of its argument
   (det Mᵀ = det M). Every rewriting is an identity valid at every size and every point, so a
   canonical form of 0 proves the residual zero for **every** size — no theorem on sizes needed.
   It decides every trace polynomial (a residual without inverses or determinants) of the free
   algebra; it proves e.g. tr(ABC) = tr(CAB), (AB)ᵀ = BᵀAᵀ.

2. **Rational identity testing over GF(p) (randomized, stated failure probability).** A residual
   with inverses, no traces or determinants, whose canonical form is not 0, is a noncommutative
   rational expression in the letters (a transposed symbol Aᵀ counted as a letter of its own:
   an identity of the free skew field with independent letters holds a fortiori when Aᵀ is the
   transpose of A). It is zero in the free skew field if and only if it vanishes on N×N matrices
   for one N ≥ 2s, s its formula size: by Hrubeš & Wigderson (2015, *Theory of Computing* 11,
   Thm. 2.5) a formula of size s is an entry of A⁻¹ for a linear matrix A of size ≤ 2s, so
   f ≠ 0 exactly when a linear matrix of size ≤ 2s + 1 is invertible over the free skew field,
   and by Derksen & Makam (2017, *Adv. Math.* 310, Thm. 1.8, regularity of blow-ups) an n × n
   linear matrix invertible over the free skew field is invertible at d × d matrices for every
   d ≥ n − 1. A rational expression zero in the free skew field vanishes at every matrix point of
   every size where it is defined (Amitsur 1966, *J. Algebra* 3). The test evaluates the residual
   exactly at random points of M_N(GF(p)), p = 2³¹ − 1; a non-zero rational function of the
   entries vanishes at a random point with probability at most deg/p (Schwartz 1980; Zippel
   1979), deg bounded from the expression (:func:`_degree`), so the failure probability is at most
   (deg/(p − deg_den))^trials, stated in the evidence.

   **Only square matrices of one size.** The free skew field inverts every non-zero element, so
   setting every size to one N would treat a rectangular X as invertible: X(XᵀX)⁻¹Xᵀ = I, true for
   square X, false for n × d with n > d, would pass. Stage 2 therefore runs only when every matrix
   of the residual is n × n for one size symbol n; a residual with rectangular or differently sized
   matrices is left to clearing denominators (below), and otherwise undecided — the exact and numeric checks still
   cover the sizes they draw — unless it is refuted. Size
   symbols that occur as scalars (tr I_n = n) are drawn as independent field elements. A 1 × 1
   block used as a scalar (an entry ``M[0, 0]``) is outside the algebra: no proof.

Between the two, **clearing denominators** (:func:`cleared_zero`, deterministic) proves rational
identities of any shape — push-through, Woodbury with a thin U, Sherman–Morrison with columns — by
multiplying the residual by the matrices it inverts and dropping common outer factors, each step
valid wherever the residual is defined, until its canonical form is 0.

**Traces and determinants of rational expressions** (:func:`reduced_zero`, deterministic): a word with
M⁻¹ next to the single longest word u of M = a·u + r is rewritten (M⁻¹u = (I − M⁻¹r)/a; in a trace at
any rotation, tr(AB) = tr(BA)), and determinants are split by the theorems of :data:`THEOREMS`
(multiplicativity, det(cA) = cⁿ det A, det M⁻¹ = 1/det M, Sylvester's det(I_n + AB) = det(I_k + BA),
the matrix determinant lemma, a 1 × 1 determinant is its entry); a reduced form of 0 proves the
residual wherever it is defined, for every size, and the evidence cites the theorems used. This
proves tr(X(XᵀX + λI)⁻¹Xᵀ) = d − λ tr((XᵀX + λI)⁻¹) for X n × d.

**Powers with a symbolic exponent** (K of an induction): M^(aK + c) is the word (Mᴷ)ᵃMᶜ with Mᴷ an
opaque letter; letters that are functions of one letter x (x, p(x)⁻¹, p(x)ᴷ) commute, and words are
compared in the normal form of that partially commutative monoid. A canonical form of 0 proves the
identity for every K ≥ 0 and every size; otherwise the answer is undecided (never refuted).

Anything else (a trace or determinant the reduction leaves non-zero, functions such as ``sqrt``)
has no sound procedure here: the answer is undecided, saying what was tried, unless an exact
evaluation at concrete sizes (the smallest first) with the true transposes is non-zero, which refutes
(over GF(p) a non-zero value of a rational function with integer coefficients proves it non-zero over ℚ).
The trap of identities that hold at small sizes only (Cayley–Hamilton: tr identities of degree
n + 1 on n × n matrices, Procesi 1976 / Razmyslov 1974; the standard polynomial s₄ on 2 × 2
matrices, Amitsur & Levitzki 1950) is avoided: stage 1 never uses sizes, stage 2 tests at N ≥ 2s.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import reduce
from typing import Any

import numpy as np
import sympy as sp
from sympy.matrices.expressions import (
    Determinant,
    Identity,
    Inverse,
    MatAdd,
    MatMul,
    MatPow,
    MatrixExpr,
    MatrixSymbol,
    OneMatrix,
    Trace,
    Transpose,
    ZeroMatrix,
)

PRIME = 2**31 - 1
"""The field of the identity test, GF(2³¹ − 1) (a Mersenne prime; products fit in 64-bit integers)."""

MAX_SIZE = 255
"""The largest test size N (int64 products stay exact below 256)."""

TRIALS = 3
"""Random points at which a refutation is sought."""

TARGET_BITS = 60
"""The identity test draws points until its failure probability is at most 2⁻⁶⁰."""


class Unsupported(Exception):
    """The expression leaves the algebra a procedure decides (reported as undecided, never as a pass)."""


@dataclass(frozen=True)
class Decision:
    """The answer for one residual: ``holds`` True (zero for every size), False (refuted) or None (undecided).

    ``how`` says what was proved and by which argument, for the evidence; ``sizes`` are the sizes a
    refutation was found at; ``failure`` the probability bound of a randomized proof (0 for a
    deterministic one).
    """

    holds: bool | None
    how: str
    sizes: dict[sp.Symbol, int] | None = None
    failure: float = 0.0


# ---------------------------------------------------------------------------------------------
# Stage 1: canonical forms of trace polynomials (inverses and determinants as opaque atoms)

Word = tuple[str, ...]
Poly = dict[Word, sp.Expr]  # word -> scalar coefficient; the empty word is the identity of the type


@dataclass
class _Canon:
    """Canonical forms, with the transpose of every letter met (``A`` ↔ ``A'``).

    Letters that are functions of one letter x — x itself, p(x)⁻¹ and p(x)ᴷ for a polynomial p, K a
    symbol — lie in the commutative algebra generated by x (p(x)⁻¹ is a polynomial in x by
    Cayley–Hamilton), so they commute with each other: their ``root`` is x, and words are put in the
    lexicographic normal form of that partially commutative monoid (Anisimov & Knuth 1979).
    """

    transpose_of: dict[str, str]
    has_rational: bool = False  # an inverse or determinant atom was met
    expr_of: dict[str, MatrixExpr] = field(default_factory=dict)  # each letter as a matrix expression
    inverted: dict[str, Poly] = field(default_factory=dict)  # each inverse letter M⁻¹ → the polynomial of M
    roots: dict[str, str] = field(default_factory=dict)  # a letter that is a function of one letter x → x
    words: dict[Word, str] = field(default_factory=dict)  # a word w that letters are functions of → its letter

    def letter(self, name: str, transposed_name: str, expr: MatrixExpr) -> str:
        self.transpose_of[name], self.transpose_of[transposed_name] = transposed_name, name
        self.expr_of[name] = expr
        return name

    def matrix(self, m: Any, t: bool = False) -> Poly:
        """The canonical polynomial of ``m`` (of ``mᵀ`` when ``t``)."""
        if isinstance(m, MatrixSymbol):
            name = str(m.name)
            letter = self.letter(name + "'" if t else name, name if t else name + "'", m.T if t else m)
            return {(letter,): sp.Integer(1)}
        if isinstance(m, Identity):
            return {(): sp.Integer(1)}
        if isinstance(m, ZeroMatrix):
            return {}
        if isinstance(m, OneMatrix):  # a constant letter per shape (its relations unused: sound, not complete)
            rows, cols = (m.cols, m.rows) if t else (m.rows, m.cols)
            name, name_t = f"𝟙[{sp.sstr(rows)}×{sp.sstr(cols)}]", f"𝟙[{sp.sstr(cols)}×{sp.sstr(rows)}]"
            return {(self.letter(name, name_t, OneMatrix(rows, cols)),): sp.Integer(1)}
        if isinstance(m, Transpose):
            return self.matrix(m.arg, not t)
        if isinstance(m, MatAdd):
            return reduce(_add, (self.matrix(a, t) for a in m.args), {})
        if isinstance(m, MatMul):
            scalars = [a for a in m.args if not isinstance(a, MatrixExpr)]
            factors = [self.matrix(a, t) for a in m.args if isinstance(a, MatrixExpr)]
            product = reduce(_mul, reversed(factors) if t else factors, _unit())
            coeff = self.scalar(sp.Mul(*scalars))
            return {w: c * coeff for w, c in product.items()}
        if isinstance(m, MatPow) and m.exp.is_Integer:
            base = self.inverse(m.base, t) if m.exp < 0 else self.matrix(m.base, t)
            return reduce(_mul, [base] * abs(int(m.exp)), _unit())
        if isinstance(m, MatPow):
            return self.power(m, t)
        if isinstance(m, Inverse):
            return self.inverse(m.arg, t)
        raise Unsupported(f"{type(m).__name__} is outside +, ×, ᵀ, inverse, powers")

    def power(self, m: MatPow, t: bool) -> Poly:
        """Mᵃᴷ⁺ᶜ (a ≥ 1, c ≥ 0 integers, K a symbol) as (Mᴷ)ᵃ·Mᶜ, Mᴷ an opaque letter commuting with M.

        (Mᵀ)ᴷ = (Mᴷ)ᵀ, so the transposed letter is the power of the transposed base.
        """
        exponent, symbols = sp.expand(m.exp), list(m.exp.free_symbols)
        k = symbols[0] if len(symbols) == 1 else None
        a, c = (exponent.coeff(k), exponent.subs(k, 0)) if k is not None else (None, None)
        if (
            k is None
            or a is None
            or c is None
            or not k.is_integer
            or not (a.is_Integer and c.is_Integer and a > 0 and c >= 0 and exponent == a * k + c)
        ):
            raise Unsupported(f"the power {sp.sstr(m)} is not M^(a·K + c), K an integer symbol, integers a ≥ 1, c ≥ 0")
        base, base_t = self.matrix(m.base, t), self.matrix(m.base, not t)
        self._word_of(base)  # before naming, so that every power of this base gets one name
        name, name_t = f"({self.key(base)})^{k}", f"({self.key(base_t)})^{k}"
        letter = self.letter(name, name_t, MatPow(m.base.T if t else m.base, k))
        self._root(letter, base)
        power: Poly = {(letter,): sp.Integer(1)}
        factors = [power] * int(a) + [base] * int(c)
        return reduce(_mul, factors, _unit())

    def _root(self, letter: str, poly: Poly) -> None:
        """Record x as the root of ``letter`` when ``poly`` (the matrix it is a function of) is a polynomial in x
        alone: a letter, or a word w of several letters (XᵀX in (I − ηXᵀX)ᴷ), which every normal form then
        writes as one letter standing for the matrix w (:meth:`normal`)."""
        used = {x for w in poly for x in w}
        word = self._word_of(poly)
        if len(used) != 1 and word is None:
            return
        (x,) = used if word is None else (word,)
        # and then the transposed letter is a function of the transposed x
        for y, z in ((letter, x), (self.transpose_of[letter], self.transpose_of[x])):
            self.roots[y] = self.roots.setdefault(z, z)

    def _word_of(self, poly: Poly) -> str | None:
        """The letter standing for w when ``poly`` is a polynomial in one word w of several letters, else ``None``."""
        w = _single_word(poly)
        if w is None:
            return None
        if w not in self.words:
            wt = tuple(self.transpose_of[x] for x in reversed(w))
            name, name_t = f"[{'·'.join(w)}]", f"[{'·'.join(wt)}]"
            rows, cols = self.shape(w[0])[0], self.shape(w[-1])[1]
            self.letter(name, name_t, MatrixSymbol(name, rows, cols))
            self.words[w], self.words[wt] = name, name_t
        return self.words[w]

    def commute(self, x: str, y: str) -> bool:
        """Whether letters x and y commute: equal, or functions of the same letter."""
        return x == y or (x in self.roots and self.roots.get(x) == self.roots.get(y))

    def normal(self, w: Word) -> Word:
        """The lexicographically least word equal to ``w`` up to swapping adjacent commuting letters, after each
        occurrence of a word that stands for one letter (:meth:`_root`) is written as that letter."""
        if not self.roots and not self.words:
            return w
        for word, letter in self.words.items():
            w = _replaced(w, word, letter)
        rest, out = list(w), []
        while rest:
            movable = [i for i, x in enumerate(rest) if all(self.commute(y, x) for y in rest[:i])]
            out.append(rest.pop(min(movable, key=lambda i: rest[i])))
        return tuple(out)

    def normalised(self, poly: Poly) -> Poly:
        """``poly`` with every 1 × 1 part of a word taken out as a scalar and every word in normal form
        (coefficients of equal words added)."""
        terms = ((w, c * k) for v, c in poly.items() for w, k in [self.scalars_out(v)])
        return reduce(_add, ({self.normal(w): c} for w, c in terms), {})

    def shape(self, x: str) -> tuple[Any, Any]:
        """The shape of letter ``x`` (of a transposed letter met only through its transpose, reversed)."""
        if x in self.expr_of:
            return self.expr_of[x].shape
        return self.expr_of[self.transpose_of[x]].shape[::-1]

    def scalars_out(self, w: Word) -> tuple[Word, sp.Expr]:
        """``w`` without its 1 × 1 sub-products s (a row letter … a column letter), and the product of their
        traces: p·s·q = tr(s)·(p·q), a 1 × 1 matrix being the scalar it holds. The whole word stays."""
        factor: sp.Expr = sp.Integer(1)
        rows, cols = (lambda x: self.shape(x)[0]), (lambda x: self.shape(x)[1])
        found = True
        while found:
            spans = [(i, j) for i in range(len(w)) if rows(w[i]) == 1 for j in range(i, len(w)) if cols(w[j]) == 1]
            spans = [(i, j) for i, j in spans if (i, j) != (0, len(w) - 1)]
            found = bool(spans)
            if found:
                i, j = spans[0]
                factor *= sp.Symbol(f"tr({self._cyclic(w[i : j + 1])})")
                w = w[:i] + w[j + 1 :]
        return w, factor

    def inverse(self, m: Any, t: bool) -> Poly:
        """(m⁻¹, or its transpose) as an opaque letter named by the canonical form of m (of mᵀ)."""
        self.has_rational = True
        poly = self.matrix(m, t)
        if m.shape == (1, 1):  # a 1 × 1 matrix is the scalar it holds: its inverse is the reciprocal
            return {(): 1 / _Canon.trace(self, poly, 1)}
        self._word_of(poly)
        inner, inner_t = self.key(poly), self.key(self.matrix(m, not t))
        size = f"[{sp.sstr(m.shape[0])}]"  # the type: (c·I_n)⁻¹ and (c·I_d)⁻¹ are different letters
        letter = self.letter(f"({inner}){size}⁻¹", f"({inner_t}){size}⁻¹", Inverse(m.T if t else m))
        self.inverted[letter] = poly
        self._root(letter, poly)
        return {(letter,): sp.Integer(1)}

    def scalar(self, e: Any) -> sp.Expr:
        """The scalar ``e`` with every trace and determinant replaced by a canonical atom."""
        e = sp.sympify(e)
        if isinstance(e, Trace):
            return self.trace(self.matrix(e.arg), e.arg.shape[0])
        if isinstance(e, Determinant):
            self.has_rational = True
            keys = sorted((self.key(self.matrix(e.arg)), self.key(self.matrix(e.arg, True))))
            return sp.Symbol(f"det({keys[0]})[{sp.sstr(e.arg.shape[0])}]")
        if isinstance(e, (MatrixExpr, sp.matrices.expressions.matexpr.MatrixElement)):
            raise Unsupported(f"{type(e).__name__} used as a scalar")
        if not e.args:
            return e
        return e.func(*(self.scalar(a) for a in e.args))

    def trace(self, poly: Poly, size: Any) -> sp.Expr:
        """Σ c · tr(w), each tr(w) the representative of w's class under rotation and transposition."""
        return sp.Add(*(c * (size if not w else sp.Symbol(f"tr({self._cyclic(w)})")) for w, c in poly.items()))

    def _cyclic(self, w: Word) -> str:
        transposed = tuple(self.transpose_of[x] for x in reversed(w))
        rotations = [self.normal(v[i:] + v[:i]) for v in (w, transposed) for i in range(len(v))]
        return "·".join(min(rotations))

    def key(self, poly: Poly) -> str:
        """A canonical text of a polynomial (expanded coefficients, words in order)."""
        terms = sorted((w, sp.expand(c)) for w, c in self.normalised(poly).items())
        return " + ".join(f"{sp.sstr(c)}*{'·'.join(w) or 'I'}" for w, c in terms if c != 0) or "0"


def _single_word(poly: Poly) -> Word | None:
    """w when every non-empty word of ``poly`` is a power of one word w of several letters (I − ηXᵀX: w = XᵀX)."""
    words = [w for w in poly if w]
    if not words:
        return None
    w = min(words, key=len)
    if len(w) < 2 or any(len(v) % len(w) or v != w * (len(v) // len(w)) for v in words):
        return None
    return w


def _replaced(w: Word, word: Word, letter: str) -> Word:
    """``w`` with each occurrence of ``word``, left to right, written as ``letter`` (the matrix it stands for)."""
    out: list[str] = []
    i = 0
    while i < len(w):
        if w[i : i + len(word)] == word:
            out.append(letter)
            i += len(word)
        else:
            out.append(w[i])
            i += 1
    return tuple(out)


def _unit() -> Poly:
    """The polynomial 1: the empty word, the identity of its type."""
    return {(): sp.Integer(1)}


def _add(a: Poly, b: Poly) -> Poly:
    out = dict(a)
    for w, c in b.items():
        out[w] = out.get(w, sp.Integer(0)) + c
    return out


def _mul(a: Poly, b: Poly) -> Poly:
    out: Poly = {}
    for wa, ca in a.items():
        for wb, cb in b.items():
            out[wa + wb] = out.get(wa + wb, sp.Integer(0)) + ca * cb
    return out


def _zero_scalar(c: sp.Expr) -> bool:
    return sp.cancel(sp.together(sp.expand(c))) == 0


def expanded(residual: MatrixExpr) -> MatrixExpr:
    """A matrix expression multiplied out (noncommutatively), like terms collected, for display.

    >>> n = sp.Symbol("n", integer=True, positive=True)
    >>> A, B = MatrixSymbol("A", n, n), MatrixSymbol("B", n, n)
    >>> expanded((A + B) ** 2 - A**2 - B**2 - 2 * A * B)
    -A*B + B*A
    """
    canon = _Canon({})
    poly = canon.matrix(residual)
    terms = []
    for word, c in sorted(poly.items()):
        c = sp.factor_terms(sp.cancel(sp.together(sp.expand(c))))
        if c == 0:
            continue
        product = MatMul(*(canon.expr_of[x] for x in word)).doit() if word else Identity(residual.shape[0])
        terms.append(c * product)
    return MatAdd(*terms).doit() if terms else ZeroMatrix(*residual.shape)


def canonical_zero(residual: Any) -> tuple[bool, bool]:
    """``(zero, rational)``: whether the canonical form of ``residual`` is 0, and whether it met an inverse or det.

    Raises :class:`Unsupported` outside the algebra.

    >>> n = sp.Symbol("n", integer=True, positive=True)
    >>> A, B, C = (MatrixSymbol(s, n, n) for s in "ABC")
    >>> canonical_zero(Trace(A * B * C) - Trace(C.T * B.T * A.T))
    (True, False)
    >>> canonical_zero(Trace(A * B * C) - Trace(B * A * C))
    (False, False)
    """
    canon = _Canon({})
    if isinstance(residual, MatrixExpr):
        zero = all(_zero_scalar(c) for c in canon.normalised(canon.matrix(residual)).values())
    else:
        zero = _zero_scalar(canon.scalar(residual))
    return zero, canon.has_rational


# ---------------------------------------------------------------------------------------------
# Between the stages: traces and determinants reduced by the relations of inverses and determinants

REWRITES = 2000
"""At most this many rewritings of words by M⁻¹M = I per residual (then the rest stays as atoms)."""

THEOREMS = {
    "inverse": "tr(AB) = tr(BA) with M⁻¹M = MM⁻¹ = I (M = a·u + r, u its longest word: M⁻¹u = (I − M⁻¹r)/a)",
    "product": "det(AB) = det A · det B for square A, B (Binet–Cauchy)",
    "scale": "det(cA) = cⁿ det A for A n × n",
    "det inverse": "det(M⁻¹) = 1 / det M",
    "sylvester": "Sylvester's determinant identity det(I_n + AB) = det(I_k + BA) for A n × k, B k × n",
    "lemma": "the matrix determinant lemma det(M + UV) = det M · det(I + VM⁻¹U) (M⁻¹ occurs in the residual, "
    "so M is invertible wherever it is defined)",
    "1x1": "a 1 × 1 determinant is its entry",
}
"""The theorems :class:`_Reducing` may use, each an identity wherever the residual is defined, cited in the evidence."""


@dataclass
class _Reducing(_Canon):
    """Canonical forms that also use the relations of inverses and determinants (:data:`THEOREMS`).

    A word with M⁻¹ next to the longest word u of M = a·u + r is rewritten (M⁻¹u = (I − M⁻¹r)/a, uM⁻¹
    likewise; in a trace, at any rotation), which shortens it, so the rewriting ends; a determinant
    is split by multiplicativity and scalars, and det(a·I + b·w), w a word, is named by the class of w
    under rotation and transposition (Sylvester), det(M + b·w) with M⁻¹ in the residual is
    det M · det(I + b·M⁻¹w) (the lemma), and a 1 × 1 determinant is 1 + b·tr(w). Every step is an
    identity wherever the residual is defined (where a ≠ 0 when a is a symbol: a dense set, so the
    rational function is zero wherever it is defined), so a reduced form of 0 proves it for every size.
    """

    used: set[str] = field(default_factory=set)
    rewrites: int = 0

    def scalar(self, e: Any) -> sp.Expr:
        """As :meth:`_Canon.scalar`, determinants reduced by :meth:`determinant`."""
        e = sp.sympify(e)
        if isinstance(e, Determinant):
            self.has_rational = True
            return self.determinant(e.arg)
        return super().scalar(e)

    def register_inverses(self, residual: Any) -> None:
        """Every matrix inverted in ``residual`` known before any determinant is reduced (for the lemma)."""
        for m in sp.sympify(residual).atoms(Inverse, MatPow):
            if isinstance(m, Inverse) or (m.exp.is_Integer and m.exp < 0):
                self.inverse(m.args[0], False)

    def _rules(self) -> list[tuple[str, Word, sp.Expr, Poly]]:
        """(M⁻¹, u, a, r) for each inverse letter whose M = a·u + r has one longest word u, a ≠ 0."""
        rules = []
        for g, m in self.inverted.items():
            longest = max((len(w) for w in m), default=0)
            words = [w for w in m if len(w) == longest]
            if longest and len(words) == 1 and _divisor(m[words[0]]):
                rules.append((g, words[0], m[words[0]], {w: c for w, c in m.items() if w != words[0]}))
        return rules

    def _rewrite(self, w: Word) -> tuple[Poly, str] | None:
        """``w`` with its first M⁻¹u (or uM⁻¹) rewritten, and the inverse letter; None if none occurs."""
        if self.rewrites >= REWRITES:
            return None
        for i in range(len(w)):
            for g, u, a, r in self._rules():
                k = len(u)
                if w[i] == g and w[i + 1 : i + 1 + k] == u:
                    before, after = w[:i], w[i + 1 + k :]
                    terms = [(before + after, 1 / a)] + [(before + (g, *x) + after, -c / a) for x, c in r.items()]
                elif w[i : i + k] == u and w[i + k : i + k + 1] == (g,):
                    before, after = w[:i], w[i + k + 1 :]
                    terms = [(before + after, 1 / a)] + [(before + (*x, g) + after, -c / a) for x, c in r.items()]
                else:
                    continue
                self.rewrites += 1
                self.used.add("inverse")
                return reduce(_add, ({x: c} for x, c in terms), {}), g
        return None

    def reduced(self, poly: Poly) -> Poly:
        """A matrix polynomial with every word rewritten until no rule applies."""
        out: Poly = {}
        work = list(poly.items())
        while work:
            w, c = work.pop()
            found = self._rewrite(w)
            if found is None:
                out = _add(out, {w: c})
            else:
                work += [(x, c * k) for x, k in found[0].items()]
        return out

    def trace(self, poly: Poly, size: Any) -> sp.Expr:
        """Σ c · tr(w) with every word rewritten at any rotation until no rule applies (:meth:`_Canon.trace`)."""
        total: sp.Expr = sp.Integer(0)
        work = [(w, c, size) for w, c in poly.items()]
        while work:
            w, c, n = work.pop()
            found = next((f for i in range(len(w)) if (f := self._rewrite(w[i:] + w[:i])) is not None), None)
            if found is None:
                total += super().trace({w: c}, n)
            else:
                rows = self.shape(found[1])[0]  # the identity left where a whole word M⁻¹u was
                work += [(x, c * k, rows) for x, k in found[0].items()]
        return total

    def determinant(self, m: Any) -> sp.Expr:
        """det m as a product of scalars, canonical determinant atoms and traces (:data:`THEOREMS`)."""
        n = m.shape[0]
        if isinstance(m, Transpose):
            return self.determinant(m.arg)
        if isinstance(m, Inverse) or (isinstance(m, MatPow) and m.exp.is_Integer):
            self.used.add("det inverse")
            base, k = (m.arg, -1) if isinstance(m, Inverse) else (m.base, int(m.exp))
            return self.determinant(base) ** k
        if isinstance(m, MatMul):
            scalars = sp.Mul(*(a for a in m.args if not isinstance(a, MatrixExpr)))
            factors = [a for a in m.args if isinstance(a, MatrixExpr)]
            if scalars != 1:
                self.used.add("scale")
                return self.scalar(scalars) ** n * self.determinant(MatMul(*factors).doit())
            if all(f.shape[0] == f.shape[1] == n for f in factors):
                self.used.add("product")
                return sp.Mul(*(self.determinant(f) for f in factors))
        return self._det_poly(self.matrix(m), n)

    def _det_poly(self, poly: Poly, n: Any) -> sp.Expr:
        poly = {w: c for w, c in poly.items() if not _zero_scalar(c)}
        if n == 1:
            self.used.add("1x1")
            return self.trace(poly, 1)
        if set(poly) <= {()}:
            return poly.get((), sp.Integer(0)) ** n
        for w in sorted(x for x in poly if x):
            rest = {x: c for x, c in poly.items() if x != w}
            if set(rest) == {()} and _divisor(rest[()]):  # a·I + b·w = a (I + (b/a) w)
                if rest[()] != 1:
                    self.used.add("scale")  # det(a·M) = aⁿ det M
                return rest[()] ** n * self._sylvester(w, poly[w] / rest[()])
            g = next((g for g, m in self.inverted.items() if self.key(m) == self.key(rest)), None)
            if g is not None:
                self.used.add("lemma")
                return self._atom(rest, n) * self._sylvester((g, *w), poly[w])
        return self._atom(poly, n)

    def _sylvester(self, w: Word, c: sp.Expr) -> sp.Expr:
        """det(I + c·w), named by the class of w under rotation and transposition; 1 + c·tr(w) at a 1 × 1 rotation."""
        self.used.add("sylvester")
        for i in range(len(w)):
            if self.shape(w[i])[0] == 1:
                self.used.add("1x1")
                return 1 + self.trace({w[i:] + w[:i]: c}, 1)
        return sp.Symbol(f"det(I + {sp.sstr(sp.expand(c))}·{self._cyclic(w)})")

    def _atom(self, poly: Poly, n: Any) -> sp.Symbol:
        """det of a polynomial no theorem splits: an atom named by its canonical form (det Mᵀ = det M)."""
        transposed = {tuple(self.transpose_of[x] for x in reversed(w)): c for w, c in poly.items()}
        return sp.Symbol(f"det({min(self.key(poly), self.key(transposed))})[{sp.sstr(n)}]")


def _divisor(a: sp.Expr) -> bool:
    """Whether dividing by ``a`` keeps the argument valid: a non-zero number, or non-zero as a rational function
    of real scalars only (then a ≠ 0 on a dense set) — never of sizes or integers (n − d vanishes at n = d)."""
    if _zero_scalar(a):
        return False
    return bool(sp.sympify(a).is_number) or not any(s.is_integer for s in sp.sympify(a).free_symbols)


def reduced_zero(residual: Any) -> tuple[bool, list[str]]:
    """Whether :class:`_Reducing` reduces ``residual`` to 0 (an identity wherever it is defined, every size),
    and the theorems it used; :class:`Unsupported` outside the algebra."""
    canon = _Reducing({})
    canon.register_inverses(residual)
    if isinstance(residual, MatrixExpr):
        zero = all(_zero_scalar(c) for c in canon.normalised(canon.reduced(canon.matrix(residual))).values())
    else:
        zero = _zero_scalar(canon.scalar(residual))
    return zero, [THEOREMS[k] for k in THEOREMS if k in canon.used]


CLEARED = (
    "clearing denominators (multiplying by the matrices it inverts, invertible wherever it is defined, and "
    "dropping common outer factors) leaves a canonical form of 0: an identity for every size"
)

CLEARING_DEPTH = 4
"""At most this many multiplications by an inverted matrix when clearing denominators."""


def cleared_zero(residual: MatrixExpr) -> bool:
    """Whether clearing denominators proves ``residual`` = 0 wherever it is defined, at every size.

    Each step keeps "residual = 0" implied by "new residual = 0" wherever the residual is defined:
    a factor common to the left (right) of every term is dropped (r = F·B, and B = 0 gives r = 0),
    and r is multiplied on the left (right) by a matrix M whose inverse starts (ends) a term —
    M is invertible wherever r is defined, so M·r = 0 gives r = 0 — with M·M⁻¹ = I cancelled where
    they meet. A canonical form of 0 after such steps proves the residual for every size of every
    symbol, rectangular ones included (push-through, Woodbury, Sherman–Morrison), with no theorem on
    sizes. It proves nothing false; it may fail to prove a true identity (then the answer is undecided).
    """
    canon = _Canon({})
    try:
        poly = canon.matrix(residual)
    except Unsupported:
        return False
    return bool(canon.inverted) and _clears(canon, poly, CLEARING_DEPTH)


def _clears(canon: _Canon, poly: Poly, depth: int) -> bool:
    poly = _stripped(_cancelled(canon, poly))
    if not poly:
        return True
    if depth == 0:
        return False
    lead = {w[0] for w in poly if w and w[0] in canon.inverted}
    tail = {w[-1] for w in poly if w and w[-1] in canon.inverted}
    return any(_clears(canon, _times(canon, poly, x, left=True), depth - 1) for x in sorted(lead)) or any(
        _clears(canon, _times(canon, poly, x, left=False), depth - 1) for x in sorted(tail)
    )


def _times(canon: _Canon, poly: Poly, inverse: str, left: bool) -> Poly:
    """M·poly (``left``) or poly·M, M the matrix ``inverse`` inverts; M⁻¹ at that end cancels."""
    m = canon.inverted[inverse]
    out: Poly = {}
    for w, c in poly.items():
        if (w[:1] if left else w[-1:]) == (inverse,):
            part = {w[1:] if left else w[:-1]: c}
        else:
            part = _mul(m, {w: c}) if left else _mul({w: c}, m)
        out = _add(out, part)
    return out


def _cancelled(canon: _Canon, poly: Poly) -> Poly:
    """Zero coefficients dropped and every adjacent pair x·x⁻¹ or x⁻¹·x of a single letter x cancelled."""
    single = {inv: next(iter(m))[0] for inv, m in canon.inverted.items() if len(m) == 1 and _is_letter(m)}
    out: Poly = {}
    for w, c in poly.items():
        word = list(w)
        i = 0
        while i < len(word) - 1:
            a, b = word[i], word[i + 1]
            if single.get(b) == a or single.get(a) == b:
                del word[i : i + 2]
                i = max(i - 1, 0)
            else:
                i += 1
        out = _add(out, canon.normalised({tuple(word): c}))
    return {w: c for w, c in out.items() if not _zero_scalar(c)}


def _is_letter(m: Poly) -> bool:
    ((word, c),) = m.items()
    return len(word) == 1 and c == 1


def _stripped(poly: Poly) -> Poly:
    """The factors common to the left, then to the right, of every term dropped."""
    while poly and all(w for w in poly) and len({w[0] for w in poly}) == 1:
        poly = {w[1:]: c for w, c in poly.items()}
    while poly and all(w for w in poly) and len({w[-1] for w in poly}) == 1:
        poly = {w[:-1]: c for w, c in poly.items()}
    return poly


# ---------------------------------------------------------------------------------------------
# Stage 2: exact evaluation over GF(p)


class Singular(Exception):
    """A random draw made a matrix to invert singular (the draw is discarded, never counted)."""


def _inv_mod(a: int) -> int:
    if a % PRIME == 0:
        raise Singular("division by zero")
    return pow(int(a), PRIME - 2, PRIME)


def _matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a · b mod p in int64 without overflow: b split in 16-bit halves (entries < 2³¹, sizes < 256)."""
    if a.shape[1] != b.shape[0]:
        raise Unsupported(f"a product of shapes {a.shape} and {b.shape}: not well formed")
    high, low = b >> 16, b & 0xFFFF
    return ((a @ high % PRIME) * 65536 + a @ low) % PRIME


def _eliminate(m: np.ndarray, extra: np.ndarray) -> tuple[np.ndarray, int]:
    """Gauss–Jordan on [m | extra] mod p: (m⁻¹ · extra, det m); :class:`Singular` if det m = 0."""
    n = m.shape[0]
    a = np.concatenate([m % PRIME, extra % PRIME], axis=1).astype(np.int64)
    det = 1
    for col in range(n):
        rows = np.nonzero(a[col:, col])[0]
        if rows.size == 0:
            raise Singular("singular matrix")
        pivot = col + int(rows[0])
        if pivot != col:
            a[[col, pivot]], det = a[[pivot, col]], -det
        det = det * int(a[col, col]) % PRIME
        a[col] = a[col] * _inv_mod(int(a[col, col])) % PRIME
        factors = a[:, col].copy()
        factors[col] = 0
        a = (a - (factors[:, None] * a[col][None, :]) % PRIME) % PRIME
    return a[:, n:], det % PRIME


def _matrix_inverse(m: np.ndarray) -> np.ndarray:
    """The inverse over GF(p); :class:`Singular` if there is none."""
    return _eliminate(m, np.eye(m.shape[0], dtype=np.int64))[0]


def _det(m: np.ndarray) -> int:
    try:
        return _eliminate(m, np.zeros((m.shape[0], 0), dtype=np.int64))[1]
    except Singular:
        return 0


@dataclass
class _Point:
    """A random point: every letter (and, with ``independent``, every transposed letter) and scalar drawn."""

    rng: random.Random
    dim: Callable[[Any], int]
    independent: bool
    sizes: Mapping[sp.Symbol, int]  # the value of a size symbol used as a scalar (absent: drawn)
    values: dict[str, Any]

    def letter(self, m: MatrixSymbol, t: bool) -> np.ndarray:
        rows, cols = self.dim(m.rows), self.dim(m.cols)
        if t and not self.independent:
            return self.letter(m, False).T
        name = str(m.name) + ("'" if t else "")
        shape = (cols, rows) if t else (rows, cols)
        if name not in self.values:
            self.values[name] = np.array(
                [self.rng.randrange(PRIME) for _ in range(shape[0] * shape[1])], dtype=np.int64
            ).reshape(shape)
        return self.values[name]

    def symbol(self, s: sp.Symbol) -> int:
        if s in self.sizes:
            return self.sizes[s] % PRIME
        return self.values.setdefault(str(s), self.rng.randrange(PRIME))

    def matrix(self, m: Any, t: bool = False) -> np.ndarray:
        """The value of ``m`` (of ``mᵀ`` when ``t``) mod p."""
        if isinstance(m, MatrixSymbol):
            return self.letter(m, t)
        if isinstance(m, Identity):
            return np.eye(self.dim(m.rows), dtype=np.int64)
        if isinstance(m, ZeroMatrix):
            shape = (self.dim(m.rows), self.dim(m.cols))
            return np.zeros(shape[::-1] if t else shape, dtype=np.int64)
        if isinstance(m, OneMatrix):  # independent letters: a letter of its own; else all ones
            rows, cols = (m.cols, m.rows) if t else (m.rows, m.cols)
            if self.independent:
                return self.letter(MatrixSymbol(f"𝟙[{sp.sstr(rows)}×{sp.sstr(cols)}]", rows, cols), False)
            return np.ones((self.dim(rows), self.dim(cols)), dtype=np.int64)
        if isinstance(m, Transpose):
            return self.matrix(m.arg, not t)
        if isinstance(m, MatAdd):
            terms = [self.matrix(a, t) for a in m.args]
            if len({x.shape for x in terms}) > 1:  # NumPy would broadcast a 1 × 1 term: no sum of matrices
                raise Unsupported(f"terms of shapes {sorted({x.shape for x in terms})} added: not well formed")
            return reduce(lambda x, y: (x + y) % PRIME, terms)
        if isinstance(m, MatMul):
            c = self.scalar(sp.Mul(*(a for a in m.args if not isinstance(a, MatrixExpr))))
            factors = [self.matrix(a, t) for a in m.args if isinstance(a, MatrixExpr)]
            return reduce(_matmul, reversed(factors) if t else factors) * c % PRIME
        if isinstance(m, MatPow) and m.exp.is_Integer:
            base = self.matrix(m.base, t)
            base = _matrix_inverse(base) if m.exp < 0 else base
            return reduce(_matmul, [base] * abs(int(m.exp)))
        if isinstance(m, Inverse):
            return _matrix_inverse(self.matrix(m.arg, t))
        raise Unsupported(f"{type(m).__name__} is outside +, ×, ᵀ, inverse")

    def scalar(self, e: Any) -> int:
        """The value of a scalar expression mod p."""
        e = sp.sympify(e)
        if isinstance(e, Trace):
            return int(np.sum(np.diag(self.matrix(e.arg)) % PRIME) % PRIME)
        if isinstance(e, Determinant):
            return _det(self.matrix(e.arg))
        if isinstance(e, sp.Symbol):
            return self.symbol(e)
        if isinstance(e, sp.Rational):
            return int(e.p) * _inv_mod(int(e.q)) % PRIME
        if isinstance(e, sp.Add):
            return sum(self.scalar(a) for a in e.args) % PRIME
        if isinstance(e, sp.Mul):
            return reduce(lambda x, y: x * y % PRIME, (self.scalar(a) for a in e.args), 1)
        if isinstance(e, sp.Pow) and e.exp.is_Integer:
            base = self.scalar(e.base)
            return pow(_inv_mod(base) if e.exp < 0 else base, abs(int(e.exp)), PRIME)
        raise Unsupported(f"{e} is not a rational function of traces, determinants and symbols")

    def value(self, residual: Any) -> np.ndarray:
        if isinstance(residual, MatrixExpr):
            return np.asarray(self.matrix(residual)) % PRIME
        return np.array([self.scalar(residual)], dtype=np.int64)


def _degree(e: Any, n: int) -> tuple[int, int]:
    """Degree bounds (numerator, common denominator) of the entries of ``e`` at size ``n`` as rational functions."""
    if isinstance(e, (MatrixSymbol, sp.Symbol, OneMatrix)):
        return 1, 0
    if isinstance(e, (Identity, ZeroMatrix, sp.Number)) or not e.args:
        return 0, 0
    if isinstance(e, Transpose):
        return _degree(e.arg, n)
    if isinstance(e, Inverse) or (isinstance(e, MatPow) and e.exp.is_Integer and e.exp < 0):
        p, q = _degree(e.args[0], n)
        k = abs(int(e.exp)) if isinstance(e, MatPow) else 1
        return k * ((n - 1) * p + q), k * n * p
    if isinstance(e, sp.Pow) and e.exp.is_Integer:
        p, q = _degree(e.base, n)
        k = abs(int(e.exp))
        return (k * q, k * p) if e.exp < 0 else (k * p, k * q)
    if isinstance(e, MatPow):
        p, q = _degree(e.base, n)
        return int(e.exp) * p, int(e.exp) * q
    parts = [_degree(a, n) for a in e.args]
    if isinstance(e, (sp.Add, MatAdd)):
        q = sum(q for _, q in parts)
        return max((p + q - qi for p, qi in parts), default=0), q
    return sum(p for p, _ in parts), sum(q for _, q in parts)  # products, traces, determinants (degree ≤ n·…)


def formula_size(e: Any) -> int:
    """The number of nodes of the expression tree: an upper bound on its formula size."""
    if isinstance(e, (MatrixSymbol, Identity, ZeroMatrix, OneMatrix, sp.Symbol, sp.Number)) or not e.args:
        return 1
    return 1 + sum(formula_size(a) for a in e.args)


def _size_symbols(residual: Any) -> set[sp.Symbol]:
    dims = {d for m in residual.atoms(MatrixSymbol, Identity, ZeroMatrix, OneMatrix) for d in m.shape}
    return {d for d in dims if isinstance(d, sp.Symbol)}


def _evaluations(residual: Any, dim: Callable[[Any], int], independent: bool, sizes: Mapping, rng: random.Random):
    """Values of ``residual`` at random points (singular draws discarded); yields (value, singular draws)."""
    skipped = 0
    while True:
        point = _Point(rng, dim, independent, sizes, {})
        try:
            yield point.value(residual), skipped
            skipped = 0
        except Singular:
            skipped += 1
            if skipped > 50:
                raise Unsupported("every random point made a matrix to invert singular") from None


def _nonzero(value: np.ndarray) -> bool:
    return any(int(v) % PRIME for v in np.ravel(value))


def _refute(residual: Any, n: int, rng: random.Random) -> Decision | None:
    """Evaluate with the true transposes, the size symbols at m, m + 1, … for m = 1, …, n: the first
    non-zero value refutes there (the smallest sizes first)."""
    for m in range(1, n + 1):
        sizes = {s: m + i for i, s in enumerate(sorted(_size_symbols(residual), key=str))}
        dim = lambda d, sizes=sizes: sizes[d] if isinstance(d, sp.Symbol) else int(d)  # noqa: E731
        try:
            values = [value for (value, _), _ in zip(_evaluations(residual, dim, False, sizes, rng), range(TRIALS))]
        except Unsupported:  # every draw singular at these sizes: try larger ones
            continue
        if any(_nonzero(value) for value in values):
            at = ", ".join(f"{k} = {v}" for k, v in sizes.items()) or "the given sizes"
            return Decision(False, f"lhs − rhs ≠ 0 exactly at a random point with {at} (over GF(2³¹−1))", dict(sizes))
    return None


def decide(residual: Any, seed: int = 0) -> Decision:
    """Decide ``residual`` = 0 for every size (see the module docstring for the arguments and their sources).

    >>> n, d = sp.symbols("n d", integer=True, positive=True)
    >>> X, lam = MatrixSymbol("X", n, d), sp.Symbol("lam", positive=True)
    >>> push = (X.T * X + lam * Identity(d)).I * X.T - X.T * (X * X.T + lam * Identity(n)).I
    >>> decide(push).how.startswith("clearing denominators")  # rectangular X: cleared, no randomness
    True
    >>> A, B = MatrixSymbol("A", n, n), MatrixSymbol("B", n, n)
    >>> decide(A * (Identity(n) + B * A).I - (Identity(n) + A * B).I * A).holds  # push-through, square
    True
    >>> decide((A + B).I - A.I - B.I).holds
    False
    """
    rng = random.Random(seed)
    try:
        zero, rational = canonical_zero(residual)
    except Unsupported as exc:
        return _undecided(residual, rng, f"no decision procedure applies ({exc})")
    if zero:
        how = "its canonical form is 0 (products expanded, transposes at the letters, traces up to rotation and "
        how += "transposition" + (", Mᴷ⁺¹ = Mᴷ·M with Mᴷ commuting with M" if _symbolic_powers(residual) else "")
        how += _ONE_MATRIX if _powers_of_products(residual) else ""
        return Decision(True, how + "): an identity for every size")
    if _symbolic_powers(residual):
        if rational and isinstance(residual, MatrixExpr) and cleared_zero(residual):
            products = _ONE_MATRIX if _powers_of_products(residual) else ""
            return Decision(True, f"{CLEARED} (with Mᴷ⁺¹ = Mᴷ·M, Mᴷ commuting with the functions of M{products})")
        why = "its canonical form is not 0 (powers Mᴷ of a symbolic exponent K are decided by the canonical form "
        return Decision(
            None, why + "and by clearing denominators only: Mᴷ⁺¹ = Mᴷ·M, Mᴷ commuting with the functions of M)"
        )
    if not rational:  # a trace polynomial of degree d that is not 0 formally is no identity of M_n for n > d
        n = max(1, _degree(residual, 1)[0]) + 1  # (Procesi 1976, Razmyslov 1974: the trace identities of M_n)
        refuted = _safe_refute(residual, n, rng)
        why = "a trace polynomial whose canonical form is not 0 is no identity of the free algebra"
        return refuted or Decision(None, f"{why}, but no non-zero value was met at size {n}")
    if residual.atoms(Trace, Determinant):
        return _traces_and_determinants(residual, rng, seed)
    if cleared_zero(residual):
        return Decision(True, CLEARED)
    if not _one_square_size(residual):
        why = "no sound procedure for inverses of rectangular or differently sized matrices (the identity test "
        why += "covers square matrices of one size: X(XᵀX)⁻¹Xᵀ = I holds for square X, not for n × d with n > d)"
        return _undecided(residual, rng, why)
    return _rational_test(residual, rng, seed)


def _traces_and_determinants(residual: Any, rng: random.Random, seed: int) -> Decision:
    """Traces and determinants with inverses: the trace of a matrix identity, or proved if :func:`reduced_zero`
    reduces them to 0; else refuted at small sizes or undecided, saying what was tried."""
    if isinstance(residual, Trace) and (inner := decide(residual.arg, seed)).holds is True:
        return Decision(True, f"the trace of a matrix identity: {inner.how}", failure=inner.failure)
    try:
        zero, theorems = reduced_zero(residual)
    except Unsupported as exc:
        zero, theorems = False, [f"not reducible ({exc})"]
    if zero:
        return Decision(True, "reduced to 0 for every size by " + "; ".join(theorems))
    if isinstance(residual, MatrixExpr) and cleared_zero(residual):
        return Decision(True, CLEARED)
    tried = "; ".join(theorems) or "none applied"
    why = f"traces and determinants of inverses not reduced to 0 (theorems tried: {tried}; nothing else applies)"
    return _undecided(residual, rng, why)


_ONE_MATRIX = ", a product such as XᵀX that M is a polynomial in taken as one matrix"


def _powers_of_products(residual: Any) -> bool:
    """Whether a power of ``residual`` with a symbolic exponent has a base that is a polynomial in one product of
    several matrices ((I − ηXᵀX)ᴷ): the canonical form then takes that product as one letter (:meth:`_Canon._root`)."""
    canon = _Canon({})
    bases = [p.base for p in sp.sympify(residual).atoms(MatPow) if not p.exp.is_Integer]
    return any(_single_word(canon.matrix(base)) is not None for base in bases)


def _symbolic_powers(residual: Any) -> bool:
    """Whether ``residual`` has a matrix power whose exponent is not an integer (a symbol K)."""
    return any(not p.exp.is_Integer for p in sp.sympify(residual).atoms(MatPow))


def _one_square_size(residual: Any) -> bool:
    """Every matrix in ``residual`` is n × n for one size n: the case the free skew field decides."""
    shapes = {m.shape for m in residual.atoms(MatrixSymbol, Identity, ZeroMatrix, OneMatrix)}
    shapes.add(residual.shape)
    return len(shapes) == 1 and len(set(next(iter(shapes)))) == 1


def _safe_refute(residual: Any, n: int, rng: random.Random) -> Decision | None:
    try:
        return _refute(residual, n, rng)
    except Unsupported:
        return None


def _undecided(residual: Any, rng: random.Random, why: str) -> Decision:
    n = max(2, min(formula_size(residual), 6))
    return _safe_refute(residual, n, rng) or Decision(None, why)


def _rational_test(residual: Any, rng: random.Random, seed: int) -> Decision:
    """Stage 2: exact evaluation at N = 2s with independent transposed letters (module docstring)."""
    s = formula_size(residual)
    n = 2 * s
    num, den = _degree(residual, n)
    per_trial = max(num, 1) / (PRIME - den)
    if n > MAX_SIZE or per_trial >= 0.5:
        return _undecided(residual, rng, f"the expression is too large for the identity test (formula size {s})")
    trials = math.ceil(TARGET_BITS / -math.log2(per_trial))
    try:  # size symbols used as scalars are drawn as field elements of their own (no sizes given)
        runs = list(zip(_evaluations(residual, lambda _: n, True, {}, rng), range(trials)))
    except Unsupported as exc:
        return _undecided(residual, rng, str(exc))
    if any(_nonzero(value) for (value, _), _ in runs):
        return _safe_refute(residual, n, rng) or Decision(
            None, f"not an identity of the free skew field (non-zero at N = {n} with independent transposes)"
        )
    failure = per_trial**trials
    skipped = sum(k for (_, k), _ in runs)
    how = (
        f"exact rational identity testing: lhs − rhs = 0 at {trials} random points of M_N(GF(2³¹−1)), N = {n} = 2s "
        f"(formula size s = {s}; Hrubeš & Wigderson 2015, Thm. 2.5; Derksen & Makam 2017, Thm. 1.8), "
        f"seed {seed}, {skipped} singular draw(s) discarded; failure probability ≤ 2^{math.log2(failure):.0f} "
        f"(Schwartz–Zippel, entries of degree ≤ {num})"
    )
    return Decision(True, how, failure=failure)
