"""The dimension-free check: residuals built from matrix symbols of symbolic size."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from icl_verify.core.checks.base import Check, Found, parts, short
from icl_verify.core.evidence import ControlStatus, Evidence, Kind, Status, counterexample, explain
from icl_verify.maths.symbolic import definite_value, is_zero, max_abs


@dataclass(frozen=True)
class Symbolic(Check):
    """``residuals()`` returns lhs − rhs (one or a list) for symbolic dimensions.

    All reduce to zero ⇒ ``proved`` for every size; a residual SymPy evaluates to a definite
    non-zero number refutes. The corrected form is another ``residuals`` function, run whenever
    the claim is refuted (a dimension-free control needs no counterexample).
    """

    residuals: Callable[[], Any]

    kind: ClassVar[str] = Kind.SYMBOLIC
    proves: ClassVar[bool] = True
    rank: ClassVar[int] = 2

    def run(self, seed: int, max_examples: int) -> Found:
        t0 = time.perf_counter()
        residuals = parts(self.residuals())
        answers = [is_zero(r) for r in residuals]
        if all(a is True for a in answers):
            detail = "lhs − rhs reduces to 0 for symbolic dimensions"
            return Found(Evidence(self.kind, Status.PROVED, detail, time.perf_counter() - t0))
        values = [definite_value(r) if a is False else None for r, a in zip(residuals, answers)]
        refuting = next((i for i, v in enumerate(values) if v is not None), None)
        if refuting is not None:
            value = values[refuting]
            cex = counterexample(self.kind, {}, {}, max_abs(value), 0.0, None, exact_residual=str(value))
            detail = f"lhs − rhs = {short(value)} ≠ 0 whatever the symbols' values"
            shown = [values[i] if values[i] is not None else r for i, r in enumerate(residuals)]
            evidence = Evidence(self.kind, Status.REFUTED, detail, time.perf_counter() - t0, cex, explain(shown, None))
            return Found(evidence)
        explanation = explain(residuals, None)  # every part, as the sides return them
        undecided = sum(a is not True for a in answers)
        detail = f"{undecided} of {len(answers)} residual(s) not reduced to 0 by SymPy"
        return Found(Evidence(self.kind, Status.UNDECIDED, detail, time.perf_counter() - t0, residual=explanation))

    def control_at(self, at: Any, corrected: Callable[[], Any]) -> Evidence:
        """The corrected form's dimension-free residual(s) must reduce to 0."""
        t0 = time.perf_counter()
        answers = [is_zero(r) for r in parts(corrected())]
        seconds = time.perf_counter() - t0
        if all(a is True for a in answers):
            detail = "symbolic: the corrected form reduces to 0 for symbolic dimensions"
            return Evidence(Kind.CONTROL, ControlStatus.PASSED, detail, seconds)
        open_ = sum(a is not True for a in answers)
        detail = f"symbolic: {open_} of {len(answers)} residual(s) of the corrected form not 0"
        return Evidence(Kind.CONTROL, ControlStatus.FAILED, detail, seconds)
