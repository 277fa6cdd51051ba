"""The exact check at concrete sizes: symbolic entries, expanded to zero or refuted by an exact witness."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import sympy as sp

from icl_verify.core.checks.base import Check, Found, defined_sizes_hint, parts
from icl_verify.core.evidence import ControlStatus, Evidence, Kind, Status, counterexample, explain
from icl_verify.maths.symbolic import describe_sizes, find_witness, is_zero, max_abs


@dataclass(frozen=True)
class Explicit(Check):
    """``residual(**size)`` returns lhs − rhs (one or a list) with symbolic entries, at each of ``sizes``.

    Everything expands to 0 ⇒ ``verified`` at those sizes; a non-zero residual with an exact
    rational witness ⇒ ``refuted``. Inverses, traces and determinants are expanded entrywise
    (:func:`~icl_verify.maths.symbolic.as_explicit`); witness draws where a matrix to invert is
    singular are skipped and reported, never counted. The corrected form is another ``residual(**size)`` function,
    which must expand to exactly 0 at the refuting size.
    """

    residual: Callable[..., Any]
    sizes: Sequence[Mapping[str, int]]

    kind: ClassVar[str] = Kind.EXPLICIT
    rank: ClassVar[int] = 1

    def run(self, seed: int, max_examples: int) -> Found:
        t0 = time.perf_counter()
        if not self.sizes:  # nothing checked is no evidence
            return Found(Evidence(self.kind, Status.UNDECIDED, "no sizes to check: no evidence", 0.0))
        for size in self.sizes:
            residuals = [r if isinstance(r, sp.MatrixBase) else sp.sympify(r) for r in parts(self.residual(**size))]
            if not residuals or all(getattr(r, "shape", (1,)) == (0, 0) for r in residuals):
                detail = f"the residual at {dict(size)} has no entries: no evidence"
                return Found(Evidence(self.kind, Status.UNDECIDED, detail, time.perf_counter() - t0))
            if any(sp.sympify(r).has(sp.zoo, sp.nan) for r in residuals):
                return Found(Evidence(self.kind, Status.ERROR, _undefined(size), time.perf_counter() - t0))
            for residual in residuals:
                if is_zero(residual) is True:
                    continue
                return self._open(residual, residuals, size, t0)
        detail = f"lhs − rhs expands to 0 at {describe_sizes(self.sizes)} ({len(self.sizes)} size(s))"
        return Found(Evidence(self.kind, Status.VERIFIED, detail, time.perf_counter() - t0))

    def _open(self, residual: Any, residuals: list[Any], size: Mapping[str, int], t0: float) -> Found:
        """A residual not reduced to 0: refuted at ``size`` by an exact witness, else undecided.

        The explanation shows every part of ``residuals`` (each output the sides return), not only this one.
        """
        witness = find_witness(residual)
        seconds = time.perf_counter() - t0
        explanation = explain(residuals, size or None)  # no sizes at all: dimension-free
        if witness is None:
            detail = f"residual at {dict(size)} not reduced to 0"
            return Found(Evidence(self.kind, Status.UNDECIDED, detail, seconds, residual=explanation))
        values, value, singular = witness
        witness_values = {k: str(v) for k, v in values.items()}
        cex = counterexample(self.kind, size, witness_values, max_abs(value), 0.0, None, exact_residual=str(value))
        detail = f"exact non-zero residual at {dict(size)}"
        if singular:
            detail += f" ({singular} singular draw(s) skipped, not counted)"
        return Found(Evidence(self.kind, Status.REFUTED, detail, seconds, cex, explanation), size)

    def control_at(self, at: Mapping[str, int], corrected: Callable[..., Any]) -> Evidence:
        """The corrected form's residual(s) at the refuting size must expand to exactly 0."""
        t0 = time.perf_counter()
        answers = [is_zero(r) for r in parts(corrected(**at))]
        seconds = time.perf_counter() - t0
        if all(a is True for a in answers):
            detail = f"explicit: the corrected form expands to 0 at {dict(at)}"
            return Evidence(Kind.CONTROL, ControlStatus.PASSED, detail, seconds)
        open_ = sum(a is not True for a in answers)
        detail = f"explicit: {open_} of {len(answers)} residual(s) of the corrected form not 0 at {dict(at)}"
        return Evidence(Kind.CONTROL, ControlStatus.FAILED, detail, seconds)


def _undefined(size: Mapping[str, int]) -> str:
    """The error of sides undefined at every point of ``size``: their symbolic entries divide by an expression
    that is identically 0 there (SymPy's zoo or nan), as X(XᵀX)⁻¹Xᵀ for X n × d with n < d. Decided exactly at
    the size, unlike the numeric search, whose draws at a size depend on Hypothesis's release."""
    hint = f"; {defined_sizes_hint(size, explicit=True)}" if size else ""
    return (
        f"the sides are undefined at every point of size {dict(size)}: their entries divide by an expression that is "
        f"identically 0 there{hint}, or fix the side"
    )
