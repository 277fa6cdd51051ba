"""Derivations: ordered chains of equalities, each step checked by SymPy.

A :class:`Derivation` starts from an expression and rewrites it step by step; every step
states the new expression, a one-line justification and the paper's equation label. Checking
a derivation decides, for each step, whether the previous expression minus the new one is
zero: ``proved`` (SymPy reduced it to 0), ``refuted`` (an exact non-zero witness) or
``unproven`` (SymPy could not decide — never a pass). The derivation is PROVED only when
every step is.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import sympy as sp
from sympy.matrices.expressions import MatrixExpr

from icl_verify.engine import display
from icl_verify.engine.claims import USER_FAMILY, Verdict
from icl_verify.engine.symbolic import find_witness, is_zero


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

    def __post_init__(self) -> None:
        if not self.steps:
            raise ValueError(f"derivation {self.name!r} needs at least one step")

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
    """The outcome of one step: ``proved``, ``refuted`` (with a witness) or ``unproven``."""

    status: str
    witness: dict[str, str] | None = None


@dataclass(frozen=True)
class DerivationResult:
    derivation: Derivation
    marks: tuple[StepMark, ...]

    @property
    def verdict(self) -> Verdict:
        statuses = {m.status for m in self.marks}
        if "refuted" in statuses:
            return Verdict.REFUTED
        return Verdict.PROVED if statuses == {"proved"} else Verdict.UNPROVEN

    def _repr_markdown_(self) -> str | None:
        return display.markdown(self)


def _check_step(before: Any, after: Any) -> StepMark:
    difference = before - after if isinstance(before, MatrixExpr) else sp.sympify(before) - sp.sympify(after)
    answer = is_zero(difference)
    if answer is True:
        return StepMark("proved")
    if not isinstance(difference, MatrixExpr):
        witness = find_witness(difference)
        if witness is not None:
            values, value = witness
            return StepMark("refuted", {**{k: str(v) for k, v in values.items()}, "difference": str(value)})
    return StepMark("unproven")
