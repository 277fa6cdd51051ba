"""Derivations: ordered chains of equalities, each step checked by SymPy.

A :class:`Derivation` starts from an expression and rewrites it step by step; every step
states the new expression, a one-line justification and the paper's equation label. Checking
a derivation decides, for each step, whether the previous expression minus the new one is
zero: ``proved`` (SymPy reduced it to 0), ``refuted`` (an exact non-zero witness) or
``unproven`` (nothing decided it — never a pass; its mark says why and at which sizes the difference is
exactly 0), or ``error`` (the check itself crashed).
The derivation is PROVED only when every step is; a step that errs makes it ERROR, whatever the
other steps say. ``holds=False`` declares a derivation expected to fail (a printed derivation with
a wrong step): its expected verdict is REFUTED.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import sympy as sp
from sympy.matrices.expressions import Identity, MatAdd, MatMul, MatrixExpr, MatrixSymbol, ZeroMatrix

from icl_verify.core import display, verdicts
from icl_verify.core.checks.symbolic import REDUCED, decision
from icl_verify.core.claims import USER_FAMILY
from icl_verify.core.evidence import StepStatus
from icl_verify.core.verdicts import Verdict
from icl_verify.errors import InvalidArgument
from icl_verify.maths.symbolic import as_explicit, find_witness, is_zero


@dataclass(frozen=True)
class Step:
    """One rewriting step: the expression it arrives at, why, and the paper's label.

    The expression is stored and rendered as given. SymPy's operators simplify as they build
    (``B * B.I`` becomes ``I``), so to show a step exactly as written build it unevaluated, e.g.
    ``sp.MatMul(A, B, B.I, evaluate=False)``: the checks do not rely on SymPy's simplifications.
    """

    expr: Any
    why: str
    label: str = ""


@dataclass(frozen=True)
class Derivation:
    """A chain ``start = steps[0].expr = steps[1].expr = …``, each equality checked by SymPy."""

    name: str
    title: str
    source: str
    start: Any
    steps: Sequence[Step]
    family: str = USER_FAMILY
    intro: str = ""
    holds: bool = True

    def __post_init__(self) -> None:
        if not self.name or not isinstance(self.name, str):
            raise InvalidArgument("derivation name must be a non-empty string")
        if not self.steps:
            raise InvalidArgument(f"derivation {self.name!r} needs at least one step")
        shape = _conforming(self.start, f"derivation {self.name!r}: the start")
        for k, step in enumerate(self.steps, 1):
            where = f"derivation {self.name!r}: step {k} ({step.why!r})"
            step_shape = _conforming(step.expr, where)
            if step_shape != shape:
                raise InvalidArgument(f"{where} has shape {_text(step_shape)}, the expression before it {_text(shape)}")

    @property
    def expected(self) -> Verdict:
        """PROVED for a derivation expected to hold, REFUTED for one declared ``holds=False``."""
        return verdicts.expected(self.holds, proves=True)

    def check(self) -> DerivationResult:
        """Check every step against the expression before it."""
        marks, previous = [], self.start
        for step in self.steps:
            marks.append(_check_step(previous, step.expr))
            previous = step.expr
        return DerivationResult(self, tuple(marks))

    def _repr_markdown_(self) -> str | None:
        return display.markdown(self)


@dataclass(frozen=True)
class StepMark:
    """The outcome of one step: ``proved``, ``refuted`` (with a witness), ``unproven`` or ``error`` (its message)."""

    status: str  # a StepStatus value
    witness: dict[str, str] | None = None


@dataclass(frozen=True)
class DerivationResult:
    """A checked derivation: one :class:`StepMark` per step, in order."""

    derivation: Derivation
    marks: tuple[StepMark, ...]

    @property
    def verdict(self) -> Verdict:
        """ERROR if any step's check crashed, else REFUTED if any step is, PROVED if all are, else UNPROVEN."""
        return verdicts.combine((m.status for m in self.marks), conjunction=True)

    @property
    def as_expected(self) -> bool:
        return verdicts.as_expected(self.verdict, self.derivation.expected)

    @property
    def refutation(self) -> str:
        """The first refuted step in words, e.g. "refuted at step 3, n = 2: X[0, 0] = 1, …; difference = …" ('' if none)."""
        k, mark = next(((k, m) for k, m in enumerate(self.marks, 1) if m.status == StepStatus.REFUTED), (0, None))
        if mark is None:
            return ""
        witness = dict(mark.witness or {})
        difference = witness.pop("difference", "")
        sizes = witness.pop("sizes", "")
        where = f"refuted at step {k}" + (f", {sizes}" if sizes else "")
        values = ", ".join(f"{name} = {value}" for name, value in witness.items())
        return f"{where}: {values + '; ' if values else ''}difference = {difference}"

    @property
    def summary(self) -> str:
        """One line: the verdict in words, e.g. 'refuted, as expected' (the wording of claims)."""
        return verdicts.summary(self.verdict, self.derivation.expected, self.derivation.holds)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready record (see docs/json-report.md): identity, verdict and every step with its mark."""
        d = self.derivation
        return {
            "name": d.name,
            "family": d.family,
            "title": d.title,
            "source": d.source,
            "holds": d.holds,
            "verdict": self.verdict.value,
            "expected": d.expected.value,
            "as_expected": self.as_expected,
            "start": sp.latex(d.start),
            "steps": [
                {
                    "expr": sp.latex(step.expr),
                    "why": step.why,
                    "label": step.label,
                    "status": mark.status,
                    "witness": mark.witness,
                }
                for step, mark in zip(d.steps, self.marks)
            ],
        }

    def _repr_markdown_(self) -> str | None:
        return display.markdown(self)


def _check_step(before: Any, after: Any) -> StepMark:
    """Decide ``before = after`` (a crash is an ``error`` mark with its message, never a pass)."""
    try:
        return _decide_step(before, after)
    except Exception as exc:  # a crashing check is evidence of nothing: report it
        return StepMark(StepStatus.ERROR, {"error": f"{type(exc).__name__}: {exc}"})


def _decide_step(before: Any, after: Any) -> StepMark:
    """Dimension-free first (:func:`~icl_verify.core.checks.symbolic.decision`); else at concrete sizes."""
    difference = before - after if isinstance(before, MatrixExpr) else sp.sympify(before) - sp.sympify(after)
    answer = decision(difference, seed=0)
    if answer.holds is True:
        return StepMark(StepStatus.PROVED, None if answer.how == REDUCED else {"proof": answer.how})
    zero_at = []
    for size in _small_sizes(difference):
        concrete = as_explicit(difference.xreplace(size) if size else difference)[0]
        if is_zero(concrete) is True:
            zero_at.append(", ".join(f"{k} = {v}" for k, v in size.items()) or "the given sizes")
            continue
        witness = find_witness(concrete)
        if witness is not None:
            values, value, _ = witness
            sizes = {"sizes": ", ".join(f"{k} = {v}" for k, v in size.items())} if size else {}
            return StepMark(
                StepStatus.REFUTED, {**sizes, **{k: str(v) for k, v in values.items()}, "difference": str(value)}
            )
    if answer.holds is False:  # an exact non-zero value at sizes beyond the small ones
        return StepMark(StepStatus.REFUTED, {"difference": answer.how})
    covered = f"exactly 0 at {'; '.join(zero_at)}" if zero_at else "no exact witness of a difference at small sizes"
    return StepMark(StepStatus.UNPROVEN, {"reason": f"not proved for every size: {answer.how}; {covered}"})


SMALL_SIZES = (1, 2, 3)
"""The concrete sizes at which a step undecided for every size looks for an exact witness."""


def _small_sizes(difference: Any) -> list[dict[sp.Symbol, int]]:
    """Every assignment of the size symbols to :data:`SMALL_SIZES`, smallest first ([{}] without any)."""
    if not isinstance(difference, sp.Basic):
        return [{}]
    dims = {d for m in difference.atoms(MatrixSymbol, Identity, ZeroMatrix) for d in m.shape}
    symbols = sorted((d for d in dims if isinstance(d, sp.Symbol)), key=str)
    combos = sorted(itertools.product(SMALL_SIZES, repeat=len(symbols)), key=lambda c: (max(c, default=0), c))
    return [dict(zip(symbols, c)) for c in combos]


def _text(shape: tuple[Any, ...] | None) -> str:
    return "scalar" if shape is None else f"{sp.sstr(shape[0])} × {sp.sstr(shape[1])}"


def _conforming(expr: Any, where: str) -> tuple[Any, ...] | None:
    """The shape of ``expr`` (``None`` for a scalar), after checking every product and sum conforms."""
    if not isinstance(expr, sp.Basic):
        return None
    for node in sp.preorder_traversal(expr):
        if isinstance(node, MatMul):
            factors = [a for a in node.args if isinstance(a, MatrixExpr)]
            for left, right in itertools.pairwise(factors):
                if sp.simplify(left.shape[1] - right.shape[0]) != 0:
                    raise InvalidArgument(
                        f"{where}: {left} ({_text(left.shape)}) times {right} ({_text(right.shape)}) does not conform"
                    )
        if isinstance(node, MatAdd):
            shapes = {a.shape for a in node.args}
            if len(shapes) > 1:
                raise InvalidArgument(f"{where}: a sum of shapes {', '.join(sorted(map(_text, shapes)))}")
    return expr.shape if isinstance(expr, MatrixExpr) else None
