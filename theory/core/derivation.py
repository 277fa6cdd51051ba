"""Derivations: ordered chains of equalities, each step checked by SymPy.

A :class:`Derivation` starts from an expression and rewrites it step by step; every step
states the new expression, a one-line justification and the paper's equation label. Checking
a derivation decides, for each step, whether the previous expression minus the new one is
zero: ``proved`` (SymPy reduced it to 0), ``refuted`` (an exact non-zero witness) or
``unproven`` (SymPy could not decide — never a pass), or ``error`` (the check itself crashed).
The derivation is PROVED only when every step is; a step that errs makes it ERROR, whatever the
other steps say. ``holds=False`` declares a derivation expected to fail (a printed derivation with
a wrong step): its expected verdict is REFUTED.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import sympy as sp
from sympy.matrices.expressions import MatrixExpr

from icl_verify.core import display, verdicts
from icl_verify.core.claims import USER_FAMILY
from icl_verify.core.evidence import StepStatus
from icl_verify.core.verdicts import Verdict
from icl_verify.errors import InvalidArgument
from icl_verify.maths.symbolic import find_witness, is_zero


@dataclass(frozen=True)
class Step:
    """One rewriting step: the expression it arrives at, why, and the paper's label."""

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
    difference = before - after if isinstance(before, MatrixExpr) else sp.sympify(before) - sp.sympify(after)
    answer = is_zero(difference)
    if answer is True:
        return StepMark(StepStatus.PROVED)
    if not isinstance(difference, MatrixExpr):
        witness = find_witness(difference)
        if witness is not None:
            values, value, _ = witness
            return StepMark(StepStatus.REFUTED, {**{k: str(v) for k, v in values.items()}, "difference": str(value)})
    return StepMark(StepStatus.UNPROVEN)
