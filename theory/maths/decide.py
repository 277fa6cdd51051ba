"""A decision procedure for scalar polynomial and rational inequalities over the reals.

The first-order theory of real closed fields is decidable (Tarski 1951); z3's ``nlsat`` procedure
(Jovanović & de Moura 2012, "Solving non-linear arithmetic", IJCAR) decides its quantifier-free
part, which is exactly "is there a real point where the assumptions hold and the inequality fails?".
:func:`decide` asks that question: *unsat* proves the inequality at every real point allowed by the
assumptions, a model is an exact counterexample (checked again in SymPy's exact arithmetic), and a
timeout or an incomplete answer leaves it open. Divisions are defined only where the divisor is not
zero, so every divisor joins the assumptions; √e becomes a fresh s ≥ 0 with s² = e (and e ≥ 0),
|e| and max/min become case splits — all exact encodings, so a verdict of z3 is a verdict on the
SymPy expression.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import sympy as sp

from icl_verify.maths.exact import sign

RELATIONS = ("<=", ">=", "<", ">")

PROCEDURE = (
    "z3 nonlinear real arithmetic (nlsat, Jovanović & de Moura 2012), a decision procedure for real closed fields"
)


@dataclass(frozen=True)
class Decision:
    """What the procedure found: ``"proved"``, ``"refuted"`` (with exact ``values`` and ``violation``) or ``"open"``."""

    outcome: str
    reason: str
    values: dict[str, sp.Expr] = field(default_factory=dict)
    violation: sp.Expr | None = None


class _Unsupported(Exception):
    """A part of the expression outside polynomial/rational arithmetic with √, |·|, max and min."""


class _Encoder:
    """SymPy → z3, collecting the side conditions of divisions and square roots."""

    def __init__(self, z3: Any) -> None:
        self.z3 = z3
        self.vars: dict[sp.Symbol, Any] = {}
        self.side: list[Any] = []

    def var(self, symbol: sp.Symbol) -> Any:
        """The real variable of ``symbol``, its SymPy sign assumptions (positive, nonzero, …) among the side conditions."""
        if symbol not in self.vars:
            v = self.vars[symbol] = self.z3.Real(symbol.name)
            signs = [
                (symbol.is_positive, v > 0),
                (symbol.is_negative, v < 0),
                (symbol.is_nonnegative, v >= 0),
                (symbol.is_nonpositive, v <= 0),
                (symbol.is_nonzero, v != 0),
            ]
            self.side += [condition for assumed, condition in signs if assumed]
        return self.vars[symbol]

    def __call__(self, e: sp.Expr) -> Any:
        z3 = self.z3
        if isinstance(e, sp.Symbol):
            return self.var(e)
        if e.is_Rational:
            return z3.RealVal(str(e))
        if isinstance(e, sp.Add):
            return z3.Sum([self(a) for a in e.args])
        if isinstance(e, sp.Mul):
            return z3.Product([self(a) for a in e.args])
        if isinstance(e, sp.Pow):
            return self._power(e.base, e.exp)
        if isinstance(e, sp.Abs):
            a = self(e.args[0])
            return z3.If(a >= 0, a, -a)
        if isinstance(e, (sp.Max, sp.Min)):
            args = [self(a) for a in e.args]
            out = args[0]
            for a in args[1:]:
                out = z3.If(a >= out, a, out) if isinstance(e, sp.Max) else z3.If(a <= out, a, out)
            return out
        raise _Unsupported(f"{type(e).__name__} ({e}) is not polynomial or rational")

    def _power(self, base: sp.Expr, exp: sp.Expr) -> Any:
        z3 = self.z3
        if exp.is_Integer:
            b, n = self(base), int(exp)
            if n < 0:
                self.side.append(b != 0)
                return 1 / (b ** (-n) if n < -1 else b)
            return b**n if n > 1 else (b if n == 1 else z3.RealVal(1))
        if exp.is_Rational and exp.q == 2:
            inner = self(base)
            root = z3.FreshReal("sqrt")
            self.side += [root >= 0, root * root == inner]
            return self._power_of(root, int(exp.p))
        raise _Unsupported(f"power {base}**{exp} is not polynomial, rational or a square root")

    def _power_of(self, root: Any, p: int) -> Any:
        if p < 0:
            self.side.append(root != 0)
            return 1 / self._power_of(root, -p)
        out = self.z3.RealVal(1)
        for _ in range(p):
            out = out * root
        return out


def _fails(z3: Any, lhs: Any, rhs: Any, relation: str) -> Any:
    """The negation of ``lhs relation rhs``."""
    return {"<=": lhs > rhs, ">=": lhs < rhs, "<": lhs >= rhs, ">": lhs <= rhs}[relation]


def violation(lhs: sp.Expr, rhs: sp.Expr, relation: str) -> sp.Expr:
    """How far ``lhs relation rhs`` fails: lhs − rhs for ≤ and <, rhs − lhs for ≥ and > (positive: violated)."""
    return lhs - rhs if relation in ("<=", "<") else rhs - lhs


def _value(z3: Any, value: Any, symbol: sp.Symbol) -> sp.Expr | None:
    """A model value exactly: a rational, or a real algebraic number as SymPy's root of z3's polynomial.

    z3 gives an irrational value as the coefficients of a polynomial (constant term first) and the
    1-based index of the root among its real roots in increasing order, SymPy's order too. The root is
    checked against z3's decimal approximation; ``None`` if they disagree or the value is neither.
    """
    if z3.is_rational_value(value):
        return sp.Rational(str(Fraction(value.numerator_as_long(), value.denominator_as_long())))
    if not z3.is_algebraic_value(value):
        return None
    poly = sp.Poly([sp.Rational(str(c)) for c in reversed(value.poly())], symbol)
    root = sp.rootof(poly, value.index() - 1, radicals=True)
    approx = sp.Rational(value.approx(20).as_fraction())
    return root if abs(root.evalf(30) - approx) < sp.Rational(1, 10**15) * max(1, abs(approx)) else None


def decide(
    lhs: sp.Expr, rhs: sp.Expr, relation: str, assumptions: list[sp.Basic], timeout_ms: int = 10_000
) -> Decision:
    """Decide ``lhs relation rhs`` for every real value of the free symbols satisfying ``assumptions``.

    ``assumptions`` are SymPy relationals (``x > 0``, ``y ≠ 0``). A model of the negation is
    re-checked in exact arithmetic before it is reported as a counterexample. Assumptions that no
    real point satisfies leave it open: the inequality would hold vacuously.
    """
    try:
        import z3
    except ImportError:
        return Decision("open", "z3 is not installed (pip install z3-solver): no decision procedure")
    enc = _Encoder(z3)
    lhs, rhs = exact_literals(lhs), exact_literals(rhs)
    try:
        left, right = enc(lhs), enc(rhs)
        given = [_relational(z3, enc, a) for a in assumptions]
    except _Unsupported as exc:
        return Decision("open", f"outside the decidable fragment: {exc}")
    solver = _solver(z3, timeout_ms, *enc.side, *given, _fails(z3, left, right, relation))
    answer = solver.check()
    if answer == z3.unsat and _solver(z3, timeout_ms, *enc.side, *given).check() == z3.unsat:
        return Decision(
            "open", "no real point satisfies the assumptions and the sides' domains: a proof would be vacuous"
        )
    if answer == z3.unsat:
        return Decision("proved", PROCEDURE)
    if answer == z3.unknown:
        return Decision("open", f"z3 gave no answer ({solver.reason_unknown()})")
    return _counterexample(z3, solver.model(), enc, lhs, rhs, relation, assumptions)


def _solver(z3: Any, timeout_ms: int, *constraints: Any) -> Any:
    """A fresh nonlinear real arithmetic solver holding ``constraints``."""
    solver = z3.SolverFor("QF_NRA")
    solver.set("timeout", int(timeout_ms))
    solver.add(*constraints)
    return solver


def exact_literals(expr: Any) -> sp.Expr:
    """``expr`` with its floats as the rationals they are exactly (0.5 → 1/2): a float literal is a binary fraction."""
    expr = sp.sympify(expr)
    return expr.xreplace({f: sp.Rational(f) for f in expr.atoms(sp.Float)})


def _relational(z3: Any, enc: _Encoder, a: sp.Basic) -> Any:
    if a in (sp.true, sp.false):  # settled by SymPy already (x ≥ 0 for a positive symbol)
        return z3.BoolVal(bool(a))
    ops = {sp.StrictGreaterThan: "__gt__", sp.GreaterThan: "__ge__", sp.StrictLessThan: "__lt__"}
    ops |= {sp.LessThan: "__le__", sp.Unequality: "__ne__", sp.Equality: "__eq__"}
    if type(a) not in ops:
        raise _Unsupported(f"assumption {a} is not a relation")
    return getattr(enc(a.lhs), ops[type(a)])(enc(a.rhs))


_SIGNS = {
    sp.StrictGreaterThan: (1,),
    sp.GreaterThan: (0, 1),
    sp.StrictLessThan: (-1,),
    sp.LessThan: (-1, 0),
    sp.Unequality: (-1, 1),
    sp.Equality: (0,),
}
"""The signs of lhs − rhs that satisfy each relation."""


def holds(a: sp.Basic, values: dict[sp.Symbol, sp.Expr]) -> bool:
    """Whether the relation ``a`` holds at ``values``, its sign decided exactly (undecided, or not a relation: False).

    An assumption SymPy already settled (``x >= 0`` for a positive symbol is ``true``) is that value.
    """
    if a in (sp.true, sp.false):
        return bool(a)
    if type(a) not in _SIGNS:
        return False
    return sign(a.lhs.subs(values) - a.rhs.subs(values)) in _SIGNS[type(a)]


def _counterexample(z3: Any, model: Any, enc: _Encoder, lhs, rhs, relation: str, assumptions) -> Decision:
    found = {s: _value(z3, model.eval(v, model_completion=True), s) for s, v in enc.vars.items()}
    values = {s: v for s, v in found.items() if v is not None}
    if len(values) < len(found):
        return Decision("open", "z3's model has a value that is neither rational nor algebraic")
    if any(s.is_integer and not v.is_integer for s, v in values.items()):  # z3 decided the real relaxation
        return Decision("open", "z3's model gives an integer symbol a value that is not an integer")
    gap = violation(lhs, rhs, relation).subs(values)
    strict, gap_sign = relation in ("<", ">"), sign(gap)
    if gap_sign in ((0, 1) if strict else (1,)) and all(holds(a, values) for a in assumptions):
        gap = sp.Integer(0) if gap_sign == 0 else gap
        return Decision("refuted", "exact counterexample from z3's model", {s.name: v for s, v in values.items()}, gap)
    return Decision("open", "z3's model could not be confirmed in exact arithmetic")
