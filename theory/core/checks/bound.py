"""The checks of an inequality ``lhs ≤ rhs`` (or ≥, <, >): a steered numeric search and a decision procedure.

:class:`NumericBound` draws cases with Hypothesis and steers the search toward the worst case
(``hypothesis.target`` on the violation), then shrinks a violation to the smallest sizes and
simplest values. The violation is signed — lhs − rhs for ≤ and <, rhs − lhs for ≥ and > — and a
case is a candidate only when it exceeds the automatic tolerance of :mod:`icl_verify.maths.tolerance`,
so an inequality that is tight (equality at some point) passes. A candidate refutes once confirmed at
the drawn values as the exact rationals they are (:mod:`icl_verify.maths.exact`), or — sides that do
not evaluate exactly — by a wide floating-point margin; draws outside the domain are rejected.
Numerically a strict inequality cannot be told from its non-strict form within rounding; the proof
decides strictness.

:class:`ProofBound` hands a scalar inequality to :func:`icl_verify.maths.decide.decide`: PROVED for
every real point allowed by the assumptions, an exact counterexample, or — a timeout, an expression
outside the decidable fragment, no solver — undecided (UNPROVEN, never a pass).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
import sympy as sp
from hypothesis import HealthCheck, Phase, Verbosity, find, reject, settings, target
from hypothesis.errors import NoSuchExample, Unsatisfiable
from hypothesis.strategies import SearchStrategy

from icl_verify.core.checks.base import Check, Found, short
from icl_verify.core.checks.numeric import _coverage
from icl_verify.core.evidence import ControlStatus, Evidence, Kind, Status, counterexample
from icl_verify.maths.decide import Decision, decide
from icl_verify.maths.exact import sign
from icl_verify.maths.strategies import source_independent_draws

SYMBOL = {"<=": "≤", ">=": "≥", "<": "<", ">": ">"}


class Undefined(ValueError):
    """A side is not finite at a case (NaN or inf): the case is outside the statement's domain."""


UNDEFINED = (Undefined, ZeroDivisionError, FloatingPointError, OverflowError, np.linalg.LinAlgError)
"""What a side raises where it is undefined: such a draw is rejected (like ``hypothesis.assume``), not a failure."""

FLOAT_ONLY_MARGIN = 2.0**20
"""A violation of sides that cannot be evaluated exactly refutes only beyond this multiple of the rounding tolerance…"""

FLOAT_ONLY_RELATIVE = 1e-6
"""… and beyond this fraction of the sides' magnitude: 10¹⁰ unit roundoffs, whatever ``rtol`` was asked for."""

MODERATE = 2.0**250
"""A floating-point-only refutation needs every drawn number, the sides' magnitude and the violation within
[1/MODERATE, MODERATE] (or 0): products of up to four of them then neither under- nor overflow, which
would void the margin (NumPy's Frobenius norm of diag(10⁻¹⁷⁰, 10⁻¹⁷⁰) is 0, its spectral norm is not)."""

MOSTLY_UNDEFINED = 0.9
"""The share of rejected draws from which the search reports an error: the domain needs declaring."""


def bound_violation(result: tuple, relation: str, rtol: float, atol: float) -> tuple[bool, float, float, float, float]:
    """``(ok, violation, lhs − rhs at the worst entry, tolerance, scale)`` for ``(lhs, rhs[, scale])`` compared by ``relation``.

    The violation is max(lhs − rhs) for ≤ and <, max(rhs − lhs) for ≥ and >; the tolerance is
    ``atol + rtol · scale``, scale the largest magnitude of lhs, rhs and the optional third element.
    A side that is not finite raises :class:`Undefined`.
    """
    lhs, rhs = (np.asarray(p, dtype=np.float64).ravel() for p in result[:2])
    extra = abs(float(result[2])) if len(result) == 3 else 0.0
    if lhs.shape != rhs.shape:
        raise ValueError(f"lhs and rhs have different shapes {lhs.shape} and {rhs.shape}")
    if not (np.all(np.isfinite(lhs)) and np.all(np.isfinite(rhs)) and np.isfinite(extra)):
        raise Undefined("lhs or rhs is not finite (NaN or inf)")
    gaps = lhs - rhs if relation in ("<=", "<") else rhs - lhs
    worst = int(np.argmax(gaps)) if gaps.size else 0
    violation = float(gaps[worst]) if gaps.size else 0.0
    scale = max(float(np.max(np.abs(lhs), initial=0.0)), float(np.max(np.abs(rhs), initial=0.0)), extra)
    tol = atol + rtol * scale
    difference = float(lhs[worst] - rhs[worst]) if gaps.size else 0.0
    return violation <= tol, violation, difference, tol, scale


def _settings(max_examples: int) -> settings:
    return settings(
        settings.get_profile("default"),
        max_examples=max_examples,
        derandomize=False,  # seeded by ``random=`` in :meth:`NumericBound.run`
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        verbosity=Verbosity.quiet,
        phases=[Phase.generate, Phase.target, Phase.shrink],
    )


def _sizes_of(case: Mapping[str, Any]) -> dict[str, int]:
    return {k: int(v) for k, v in case.items() if isinstance(v, (int, np.integer)) and not isinstance(v, bool)}


def _moderate(case: Mapping[str, Any], *numbers: float) -> bool:
    """Every float of the case and every one of ``numbers`` is 0 or of magnitude within :data:`MODERATE`."""
    drawn = [np.asarray(v, dtype=np.float64).ravel() for v in case.values() if isinstance(v, (float, np.ndarray))]
    values = np.abs(np.concatenate([*drawn, np.asarray(numbers, dtype=np.float64)]))
    values = values[values != 0]
    return bool(np.all((values >= 1 / MODERATE) & (values <= MODERATE)))


def _flushed(case: Mapping[str, Any]) -> dict[str, Any]:
    """The case with every float below 1/:data:`MODERATE` in magnitude set to 0 (another point of the domain)."""

    def flush(v: Any) -> Any:
        if isinstance(v, np.ndarray) and v.dtype.kind == "f":
            return np.where(np.abs(v) < 1 / MODERATE, 0.0, v)
        return 0.0 if isinstance(v, float) and abs(v) < 1 / MODERATE else v

    return {k: flush(v) for k, v in case.items()}


@dataclass
class _Search:
    """What a search saw: the cases evaluated, the draws rejected, the candidates that were rounding."""

    seen: list[dict[str, int]] = field(default_factory=list)
    rejected: int = 0
    rounding: int = 0
    unconfirmed: int = 0

    def summary(self) -> str:
        """The coverage and the counts, for the evidence."""
        notes = [_coverage(self.seen)] if any(self.seen) else []
        if self.rejected:
            notes.append(f"{self.rejected} draws outside the domain rejected (a side undefined or an assumption false)")
        if self.rounding:
            notes.append(f"{self.rounding} floating-point violations were rounding (exact residual ≤ 0)")
        if self.unconfirmed:
            notes.append(
                f"{self.unconfirmed} violations beyond the rounding tolerance, too small to refute in floating point "
                "only, could not be confirmed exactly"
            )
        return "".join(f"; {n}" for n in notes)


@dataclass(frozen=True)
class NumericBound(Check):
    """``sides(case)`` returns ``(lhs, rhs[, scale])``; the claim is ``lhs relation rhs`` entry by entry.

    A floating-point violation beyond the tolerance is a candidate (docs: soundness): ``exact(case)``
    (optional) returns the exact violations at the case (SymPy numbers: lhs − rhs for ≤ and <, rhs −
    lhs for ≥ and >, one per entry), or ``None`` when the sides cannot be evaluated exactly. The
    candidate refutes when the sign of one is decided positive by :func:`icl_verify.maths.exact.sign`;
    when every one is ≤ 0 it was rounding and the case passes. Without an exact value, only a
    violation beyond :data:`FLOAT_ONLY_MARGIN` times the tolerance and :data:`FLOAT_ONLY_RELATIVE` of
    the sides' magnitude, at a case of :data:`MODERATE` numbers, refutes, and the evidence says
    "floating point only"; a smaller one leaves the search undecided unless a larger one is found.
    ``domain(case)`` (optional) is False outside the declared domain; such draws, and draws where a
    side is undefined (:data:`UNDEFINED`), are rejected and counted.
    """

    cases: SearchStrategy[Mapping[str, Any]]
    sides: Callable[[Mapping[str, Any]], tuple]
    relation: str
    rtol: float
    atol: float
    exact: Callable[[Mapping[str, Any]], list | None] | None = None
    domain: Callable[[Mapping[str, Any]], bool] | None = None
    drawn: str = ""  # where the scalars were drawn from, for the evidence (as for Numeric)
    examples: tuple[Mapping[str, Any], ...] = ()  # simple cases, smallest sizes first: tried when the search finds
    # nothing, and below the sizes of a violation it finds (see run and _smallest)

    kind: ClassVar[str] = Kind.NUMERIC
    rank: ClassVar[int] = 0

    def _confirm(self, case: Mapping[str, Any], violation: float, tol: float, scale: float) -> tuple[str, Any, Any]:
        """How a candidate stands: ``("exact", residual, case)``, ``("rounding", …)``, ``("float", None, at)``
        or ``("unconfirmed", …)``; a floating-point-only refutation is ``at`` the case with its tiny numbers
        flushed to 0 (:func:`_flushed`), where the violation must still be wide and every number moderate."""
        gaps = self.exact(case) if self.exact is not None else None
        if gaps is not None:
            signs = [sign(g) for g in gaps]
            if 1 in signs:
                return "exact", max((g for g, s in zip(gaps, signs) if s == 1), key=lambda g: float(g)), case
            if all(s in (-1, 0) for s in signs):
                return "rounding", None, case
        at = _flushed(case)
        try:
            ok, violation, _, tol, scale = bound_violation(self.sides(at), self.relation, self.rtol, self.atol)
        except UNDEFINED:
            return "unconfirmed", None, case
        wide = not ok and violation > FLOAT_ONLY_MARGIN * tol and violation > FLOAT_ONLY_RELATIVE * scale
        return ("float", None, at) if wide and _moderate(at, scale, violation) else ("unconfirmed", None, case)

    def _evaluate(self, case: Mapping[str, Any], search: _Search) -> tuple[bool, float, float, float, float]:
        """The float comparison at a drawn case; a draw outside the domain is rejected and counted."""
        try:
            if self.domain is not None and not self.domain(case):
                raise Undefined("outside the declared domain")
            return bound_violation(self.sides(case), self.relation, self.rtol, self.atol)
        except UNDEFINED:
            search.rejected += 1
            reject()
            raise  # pragma: no cover - reject() raises

    def run(self, seed: int, max_examples: int) -> Found:
        t0 = time.perf_counter()
        search = _Search()

        def fails(case: Mapping[str, Any]) -> bool:
            ok, violation, _, tol, scale = self._evaluate(case, search)
            search.seen.append(_sizes_of(case))
            target(violation - tol, label="violation beyond the tolerance")
            if ok:
                return False
            found, _, _ = self._confirm(case, violation, tol, scale)
            search.rounding += found == "rounding"
            search.unconfirmed += found == "unconfirmed"
            return found in ("exact", "float")

        try:
            with source_independent_draws():
                case = find(self.cases, fails, settings=_settings(max_examples), random=random.Random(seed))
        except (NoSuchExample, Unsatisfiable):
            for case in self.examples:
                if self._example_fails(case):
                    break
            else:
                return Found(self._passed(search, seed, time.perf_counter() - t0))
        refuted = self._refuted(self._smallest(case), search, seed, time.perf_counter() - t0)
        return Found(*refuted) if refuted else Found(self._passed(search, seed, time.perf_counter() - t0))

    def _smallest(self, case: Mapping[str, Any]) -> Mapping[str, Any]:
        """The first simple case (smallest sizes first) at sizes below the shrunk case's that violates the bound too,
        else the shrunk case: how far Hypothesis shrinks the sizes depends on its release, the simple cases do not."""
        sizes = _sizes_of(case)
        for example in self.examples:
            below = _sizes_of(example)
            smaller = below.keys() == sizes.keys() and below != sizes and all(below[k] <= sizes[k] for k in sizes)
            if smaller and self._example_fails(example):
                return example
        return case

    def _example_fails(self, case: Mapping[str, Any]) -> bool:
        """Whether an explicit example violates the bound, confirmed as a drawn case is: the search's path depends on
        the Hypothesis release, so simple cases (identities, all-ones matrices at the smallest sizes) are tried too
        when it finds nothing — ‖AB‖_F ≤ ‖A‖₂‖B‖₂ fails at A = B = I₂ whatever the search drew."""
        try:
            if self.domain is not None and not self.domain(case):
                return False
            ok, violation, _, tol, scale = bound_violation(self.sides(case), self.relation, self.rtol, self.atol)
        except UNDEFINED:
            return False
        return not ok and self._confirm(case, violation, tol, scale)[0] in ("exact", "float")

    def _passed(self, search: _Search, seed: int, seconds: float) -> Evidence:
        """No confirmed violation: VERIFIED, UNDECIDED if candidates stayed unconfirmed, ERROR if nearly all draws were rejected."""
        evaluated = len(search.seen)
        if search.rejected and search.rejected >= MOSTLY_UNDEFINED * (evaluated + search.rejected):
            detail = (
                f"{search.rejected} of {evaluated + search.rejected} draws are outside the domain (a side undefined: "
                "NaN, inf, a division by zero, a singular matrix; or an assumption false): declare the domain, "
                "e.g. iv.scalar(low=..., high=..., exclude=(...)) or iv.matrix(n, n, invertible=True)"
                f" (seed {seed})"
            )
            return Evidence(self.kind, Status.ERROR, detail, seconds)
        if not evaluated:  # no case compared: no evidence
            return Evidence(self.kind, Status.UNDECIDED, f"no case was evaluated (seed {seed}): no evidence", seconds)
        detail = f"{evaluated} random cases, steered toward a violation, pass (seed {seed}){search.summary()}"
        detail += f"; {self.drawn}" if self.drawn else ""
        return Evidence(self.kind, Status.UNDECIDED if search.unconfirmed else Status.VERIFIED, detail, seconds)

    def _refuted(
        self, case: Mapping[str, Any], search: _Search, seed: int, seconds: float
    ) -> tuple[Evidence, Mapping[str, Any]] | None:
        """The shrunk counterexample, confirmed exactly or (sides not exact) by a wide floating-point margin;
        ``None`` if it is not confirmed again (sides that are not deterministic)."""
        _, violation, _, tol, scale = bound_violation(self.sides(case), self.relation, self.rtol, self.atol)
        found, residual, case = self._confirm(case, violation, tol, scale)
        if found not in ("exact", "float"):
            return None
        _, violation, difference, tol, _ = bound_violation(self.sides(case), self.relation, self.rtol, self.atol)
        sizes = _sizes_of(case)
        values = {k: v for k, v in case.items() if k not in sizes}
        extra = {"lhs_minus_rhs": difference} | ({} if residual is None else {"exact_residual": str(residual)})
        cex = counterexample(self.kind, sizes, values, violation, tol, seed, **extra)
        against = ">" if self.relation in ("<=", "<") else "<"
        shown = tol if against == ">" else -tol
        how = (
            f"confirmed exactly: violation {short(residual)} > 0 at the drawn values as the rationals they are"
            + ("" if residual.is_Rational else ", its sign by a rigorous interval enclosure (mpmath.iv)")
            if found == "exact"
            else "floating point only: the sides do not evaluate exactly, and the violation exceeds "
            f"{FLOAT_ONLY_MARGIN:.0f}× the rounding tolerance and {FLOAT_ONLY_RELATIVE:g} of the sides' magnitude, "
            "at numbers far from under- and overflow"
        )
        detail = (
            f"shrunk counterexample at {sizes}: lhs − rhs = {difference:.3g} {against} {shown:.3g} "
            f"(claimed lhs {SYMBOL[self.relation]} rhs; seed {seed}); {how}{search.summary()}"
        )
        return Evidence(self.kind, Status.REFUTED, detail, seconds, cex), case

    def control_at(self, at: Mapping[str, Any], corrected: Callable[[Mapping[str, Any]], tuple]) -> Evidence:
        """The corrected sides at the shrunk case, same relation and tolerance, must pass."""
        t0 = time.perf_counter()
        ok, violation, _, tol, _ = bound_violation(corrected(at), self.relation, self.rtol, self.atol)
        mark = "≤" if ok else ">"
        detail = f"numeric: the corrected form at the shrunk counterexample, violation {violation:.3g} {mark} {tol:.3g}"
        return Evidence(
            Kind.CONTROL, ControlStatus.PASSED if ok else ControlStatus.FAILED, detail, time.perf_counter() - t0
        )


@dataclass(frozen=True)
class ProofBound(Check):
    """``sides()`` returns ``(lhs, rhs, assumptions)`` as SymPy scalars and relations; decided by :func:`decide`.

    ``timeout_ms`` bounds the solver; a timeout is undecided. ``decimal`` (optional) returns the
    same with every float literal read as the decimal it shows: when the sides have float literals
    and that form is proved, the refutation is caused by binary floats, and the evidence says so.
    """

    sides: Callable[[], tuple]
    relation: str
    timeout_ms: int = 10_000
    decimal: Callable[[], tuple] | None = None

    kind: ClassVar[str] = Kind.SYMBOLIC
    proves: ClassVar[bool] = True
    rank: ClassVar[int] = 2

    def _decide(self, sides: Callable[[], tuple]) -> Decision:
        """The decision on the sides over SymPy symbols; a side that works on NumPy numbers only is left open."""
        try:
            lhs, rhs, assumptions = sides()
        except TypeError as exc:  # a NumPy ufunc on a SymPy symbol: np.exp(x)
            reason = (
                f"the sides do not evaluate on SymPy symbols ({exc}); write them with icl_verify.blocks' "
                "functions (exp, sqrt, …), which work on both, for the decision procedure and exact arithmetic"
            )
            return Decision("open", reason)
        return decide(lhs, rhs, self.relation, list(assumptions), self.timeout_ms)

    def run(self, seed: int, max_examples: int) -> Found:
        t0 = time.perf_counter()
        found = self._decide(self.sides)
        seconds = time.perf_counter() - t0
        if found.outcome == "proved":
            detail = f"lhs {SYMBOL[self.relation]} rhs for every real value allowed by the assumptions; certificate: the negation is unsatisfiable ({found.reason})"
            return Found(Evidence(self.kind, Status.PROVED, detail, seconds))
        if found.outcome == "refuted":
            values = {k: str(v) for k, v in found.values.items()}
            violation = sp.sympify(found.violation)
            cex = counterexample(self.kind, {}, values, float(violation), 0.0, None, exact_residual=str(violation))
            detail = f"exact counterexample {short(values)}: violation {violation} (z3 model, checked exactly)"
            if violation == 0:
                detail += f"; lhs = rhs there, so the strict lhs {SYMBOL[self.relation]} rhs fails"
            detail += self._float_literals()
            return Found(Evidence(self.kind, Status.REFUTED, detail, seconds, cex))
        return Found(Evidence(self.kind, Status.UNDECIDED, f"not decided: {found.reason}", seconds))

    def _float_literals(self) -> str:
        """A note when the refutation is caused by binary float literals (0.1 + 0.2 > 0.3), else ''."""
        lhs, rhs, _ = self.sides()
        shown = sorted({repr(float(f)) for side in (lhs, rhs) for f in sp.sympify(side).atoms(sp.Float)})
        if not shown or self.decimal is None:
            return ""
        try:
            decided = self._decide(self.decimal).outcome
        except Exception:  # the sides do not build unevaluated: no diagnosis, the refutation stands as it is
            return ""
        if decided != "proved":
            return ""
        return (
            f"; caused by binary floats: the sides hold the floats {', '.join(shown)}, binary fractions rather than "
            "the decimals they show, and with each literal read as its decimal the statement is proved — write "
            "exact literals, e.g. sp.Rational(1, 10) or fractions.Fraction(1, 10) for 0.1"
        )

    def control_at(self, at: Any, corrected: Callable[[], tuple]) -> Evidence:
        """The corrected inequality must be proved."""
        t0 = time.perf_counter()
        found = self._decide(corrected)
        ok = found.outcome == "proved"
        detail = f"symbolic: the corrected form is {'proved' if ok else 'not proved: ' + found.reason}"
        return Evidence(
            Kind.CONTROL, ControlStatus.PASSED if ok else ControlStatus.FAILED, detail, time.perf_counter() - t0
        )
