"""The dimension-free check: residuals built from matrix symbols of symbolic size.

A residual SymPy does not reduce to 0 goes to the decision procedure of
:mod:`icl_verify.maths.identities` (canonical forms of trace polynomials; rational identity testing
over GF(p) at a size justified by Hrubeš–Wigderson and Derksen–Makam), whose evidence says what
was proved, how, and with which failure probability.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, ClassVar

import sympy as sp
from sympy.matrices.expressions import MatrixExpr, MatrixSymbol

from icl_verify.core.checks.base import Check, Found, parts, short
from icl_verify.core.evidence import ControlStatus, Evidence, Kind, Status, counterexample, explain
from icl_verify.maths.identities import Decision, decide
from icl_verify.maths.symbolic import as_explicit, definite_value, is_zero, max_abs

REDUCED = "lhs − rhs reduces to 0 for symbolic dimensions"


def _has_matrices(residual: Any) -> bool:
    return isinstance(residual, MatrixExpr) or (isinstance(residual, sp.Basic) and bool(residual.atoms(MatrixSymbol)))


def decision(residual: Any, seed: int) -> Decision:
    """SymPy's own reduction first, then a definite non-zero value, then the decision procedure for matrices.

    Decisions are remembered for the process (a claim's own): a statement with an spd matrix decides its
    residual once to choose its form, and its symbolic check asks again.
    """
    try:
        hash(residual)
    except TypeError:  # a mutable explicit matrix
        return _decision(residual, seed)
    return _remembered(residual, seed)


@lru_cache(maxsize=128)
def _remembered(residual: Any, seed: int) -> Decision:
    return _decision(residual, seed)


def _decision(residual: Any, seed: int) -> Decision:
    answer = is_zero(residual)
    if answer is True:
        return Decision(True, REDUCED)
    value = definite_value(residual) if answer is False else None
    if value is not None:
        return Decision(False, f"lhs − rhs = {short(value)} ≠ 0 whatever the symbols' values")
    if _has_matrices(residual) and _concrete(residual):
        return _expanded(residual)
    if _has_matrices(residual):
        return decide(residual, seed)
    return Decision(None, "not reduced to 0 by SymPy")


EXPANDED = "every matrix has a fixed size: lhs − rhs expands to 0 entry by entry (an identity in every entry)"


def _concrete(residual: Any) -> bool:
    """Every matrix symbol in ``residual`` has integer dimensions: there is no size to quantify over."""
    symbols = residual.atoms(MatrixSymbol) | ({residual} if isinstance(residual, MatrixExpr) else set())
    return all(sp.sympify(d).is_Integer for m in symbols for d in m.shape)  # −I_d has no symbol but a size


def _expanded(residual: Any) -> Decision:
    """At fixed sizes the explicit expansion decides: 0 proves the identity, a definite non-zero value refutes."""
    (explicit,) = as_explicit([residual])
    answer = is_zero(explicit)
    if answer is True:
        return Decision(True, EXPANDED)
    return Decision(None, "at its fixed sizes lhs − rhs does not expand to 0 (the explicit check decides)")


def _proof(decisions: list[Decision]) -> str:
    hows = list(dict.fromkeys(d.how for d in decisions))
    failure = sum(d.failure for d in decisions)  # union bound over the residuals
    text = "; ".join(hows) if len(hows) > 1 or hows[0] != REDUCED else REDUCED
    if len(decisions) > 1 and failure:
        text += f" (total failure probability ≤ {failure:.1e})"
    return text


@dataclass(frozen=True)
class Symbolic(Check):
    """``residuals()`` returns lhs − rhs (one or a list) for symbolic dimensions.

    All zero for every size (SymPy's reduction or :func:`icl_verify.maths.identities.decide`)
    ⇒ ``proved``; a residual with a definite non-zero value, or non-zero at an exact evaluation,
    refutes. The corrected form is another ``residuals`` function, run whenever the claim is
    refuted (a dimension-free control needs no counterexample).
    """

    residuals: Callable[[], Any]

    kind: ClassVar[str] = Kind.SYMBOLIC
    proves: ClassVar[bool] = True
    rank: ClassVar[int] = 2

    def run(self, seed: int, max_examples: int) -> Found:
        t0 = time.perf_counter()
        residuals = parts(self.residuals())
        if not residuals:  # an empty list of residuals proves nothing
            return Found(Evidence(self.kind, Status.UNDECIDED, "no residual to decide: no evidence", 0.0))
        decisions = [decision(r, seed) for r in residuals]
        seconds = lambda: time.perf_counter() - t0  # noqa: E731
        if all(d.holds is True for d in decisions):
            return Found(Evidence(self.kind, Status.PROVED, _proof(decisions), seconds()))
        refuting = next((i for i, d in enumerate(decisions) if d.holds is False), None)
        if refuting is not None:
            d, residual = decisions[refuting], residuals[refuting]
            value = definite_value(residual) if d.sizes is None else None
            cex = None
            if value is not None:
                cex = counterexample(self.kind, {}, {}, max_abs(value), 0.0, None, exact_residual=str(value))
            # every part, as the sides return them (dimension-free; the sizes are in the detail)
            shown = [value if i == refuting and value is not None else r for i, r in enumerate(residuals)]
            evidence = Evidence(self.kind, Status.REFUTED, d.how, seconds(), cex, explain(shown, None))
            return Found(evidence)
        open_ = [i for i, d in enumerate(decisions) if d.holds is None]
        why = "; ".join(dict.fromkeys(decisions[i].how for i in open_))
        detail = f"{len(open_)} of {len(decisions)} residual(s) undecided: {why}"
        return Found(Evidence(self.kind, Status.UNDECIDED, detail, seconds(), residual=explain(residuals, None)))

    def control_at(self, at: Any, corrected: Callable[[], Any]) -> Evidence:
        """The corrected form's dimension-free residual(s) must be zero for every size; undecided is no failure."""
        t0 = time.perf_counter()
        decisions = [decision(r, 0) for r in parts(corrected())]
        seconds = time.perf_counter() - t0
        if all(d.holds is True for d in decisions):
            detail = f"symbolic: the corrected form is proved for every size ({_proof(decisions)})"
            return Evidence(Kind.CONTROL, ControlStatus.PASSED, detail, seconds)
        if any(d.holds is False for d in decisions):
            detail = "symbolic: the corrected form is refuted too: " + next(
                d.how for d in decisions if d.holds is False
            )
            return Evidence(Kind.CONTROL, ControlStatus.FAILED, detail, seconds)
        open_ = sum(d.holds is None for d in decisions)
        detail = f"symbolic: {open_} of {len(decisions)} residual(s) of the corrected form undecided (not a failure)"
        return Evidence(Kind.CONTROL, ControlStatus.UNDECIDED, detail, seconds)
