"""The claim engine: a claim is a named statement with a source and up to three checks.

* ``symbolic`` — dimension-free: returns SymPy residual(s) (lhs − rhs) built from matrix
  symbols of symbolic size. All reduce to zero ⇒ ``PROVED`` for every dimension.
* ``explicit`` — fully symbolic entries at concrete small sizes, expanded to zero; a
  non-zero residual with an exact rational witness ⇒ ``REFUTED``.
* ``measured`` — a simulation or fit returning an estimate with a confidence interval,
  compared with a predicted value ± tolerance (verified / refuted / undecided).
* ``numeric`` — a property over random dimensions and values drawn by Hypothesis, compared
  with a scale-aware tolerance ``|lhs − rhs| ≤ atol + rtol · scale``; a failing case is
  shrunk to a minimal counterexample ⇒ ``REFUTED``.

Verdicts never overstate the evidence: ``PROVED`` needs the dimension-free check;
``VERIFIED`` means the explicit and/or numeric checks passed on what they covered;
``UNPROVEN`` (SymPy could not decide, nothing else passed) is never a pass; an ``ERROR`` in any
check (a crash, or NaN/inf in a numeric comparison) makes the claim ``ERROR`` whatever the others say.

A refutation must discriminate: for a claim expected to be false, the corrected form (the checks'
``control``) is run at the counterexample with the same comparison and tolerance and reported as
evidence of kind ``control`` — ``passed``, ``failed`` (the refutation is hollow: not as expected),
``waived`` (``Claim.no_control`` says why there is no corrected form) or ``missing``.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from functools import partial
from typing import Any

import numpy as np
import sympy as sp
from hypothesis import HealthCheck, Phase, Verbosity, find, settings
from hypothesis.errors import NoSuchExample
from hypothesis.strategies import SearchStrategy

from icl_verify.core import display
from icl_verify.maths.strategies import source_independent_draws
from icl_verify.maths.symbolic import definite_value, describe_sizes, find_witness, is_zero, max_abs, simplified
from icl_verify.numerics.shared.checks import seed_value

USER_FAMILY = "user"
"""The family of a claim that no built-in family module declares."""


class Verdict(StrEnum):
    """The outcome of checking a claim, strongest evidence first."""

    PROVED = "PROVED"  # dimension-free symbolic identity
    VERIFIED = "VERIFIED"  # explicit symbolic and/or numeric checks passed on what they covered
    REFUTED = "REFUTED"  # a counterexample was found
    UNPROVEN = "UNPROVEN"  # SymPy could not decide and nothing else passed — never a pass
    ERROR = "ERROR"  # a check raised an exception — never a pass


@dataclass(frozen=True)
class Explicit:
    """Symbolic check at concrete sizes: ``residual(**size)`` returns residual(s) with symbolic entries."""

    residual: Callable[..., Any]
    sizes: Sequence[Mapping[str, int]]
    control: Callable[..., Any] | None = None  # expected-false claims: the corrected form's residual(**size)


@dataclass(frozen=True)
class Numeric:
    """Numeric property: ``compare(case)`` returns ``(lhs, rhs)`` or ``(lhs, rhs, scale)`` for a drawn case.

    ``cases`` draws a ``dict``; its ``int`` entries are reported as the dimensions covered.
    ``scale`` (optional) is the magnitude of the terms that cancel, for the tolerance.
    """

    cases: SearchStrategy[Mapping[str, Any]]
    compare: Callable[[Mapping[str, Any]], tuple]
    rtol: float = 1e-9
    atol: float = 1e-12
    control: Callable[[Mapping[str, Any]], tuple] | None = None  # expected-false claims: the corrected compare


@dataclass(frozen=True)
class Estimate:
    """A measured quantity with a confidence interval, and the value a claim predicts for it.

    The claim reads "quantity = predicted ± tolerance". ``low``/``high`` bound the measured
    value's confidence interval (e.g. a bootstrap 95 % interval).
    """

    value: float
    low: float
    high: float
    predicted: float
    tolerance: float = 0.0
    detail: str = ""
    control: float | None = None  # expected-false claims: the corrected form's prediction of the same quantity

    def __post_init__(self) -> None:
        for name in ("value", "low", "high", "predicted", "tolerance"):
            if not np.isfinite(getattr(self, name)):
                raise ValueError(f"{name} must be finite, got {getattr(self, name)!r}")
        if not self.low <= self.value <= self.high:
            raise ValueError(f"need low <= value <= high, got {self.low}, {self.value}, {self.high}")
        if self.tolerance < 0:
            raise ValueError(f"tolerance must be non-negative, got {self.tolerance}")

    def __str__(self) -> str:
        """The estimate and its interval to the precision the interval supports (:func:`format_interval`)."""
        return format_interval(self.value, self.low, self.high)


def format_interval(value: float, low: float, high: float) -> str:
    """``value [low, high]`` rounded to the leading digit of the interval's half-width.

    Digits below the uncertainty are noise — they differ between CPUs, BLAS builds and library
    releases — so they are not printed. A zero-width interval (a deterministic result) keeps
    3 significant digits.

    >>> format_interval(0.6832, 0.6601, 0.7052)
    '0.68 [0.66, 0.71]'
    >>> format_interval(1.0249, 0.9813, 1.068)
    '1.02 [0.98, 1.07]'
    >>> format_interval(123.4, 101.0, 150.2)
    '120 [100, 150]'
    >>> format_interval(8.437e-13, 0.0, 3.001e-12)
    '8e-13 [0, 3e-12]'
    >>> format_interval(0.04079, 0.04079, 0.04079)
    '0.0408 [0.0408, 0.0408]'
    """
    half = (high - low) / 2
    if not half > 0:
        return f"{value:.3g} [{low:.3g}, {high:.3g}]"
    exponent = math.floor(math.log10(half))
    if -4 <= exponent < 6 and max(abs(value), abs(low), abs(high)) < 1e6:
        decimals = max(0, -exponent)
        quantum = 10.0**exponent
        return " ".join(
            [
                _fixed(value, quantum, decimals),
                f"[{_fixed(low, quantum, decimals)},",
                f"{_fixed(high, quantum, decimals)}]",
            ]
        )
    return f"{_scientific(value, exponent)} [{_scientific(low, exponent)}, {_scientific(high, exponent)}]"


def _fixed(x: float, quantum: float, decimals: int) -> str:
    """``x`` rounded to a multiple of ``quantum``, with ``decimals`` decimals and no "-0"."""
    text = f"{round(x / quantum) * quantum:.{decimals}f}"
    return text.lstrip("-") if float(text) == 0 else text


def _scientific(x: float, exponent: int) -> str:
    """``x`` in e-notation with its last digit at 10**exponent."""
    if x == 0:
        return "0"
    return f"{x:.{max(0, math.floor(math.log10(abs(x))) - exponent)}e}"


@dataclass(frozen=True)
class Measured:
    """Statistical check: ``measure(seed)`` runs a simulation/fit and returns an :class:`Estimate`.

    Verified when the whole interval lies inside the band predicted ± tolerance; refuted when
    the interval and the band are disjoint; otherwise undecided (the interval is too wide to tell).
    """

    measure: Callable[[int], Estimate]


@dataclass(frozen=True)
class Claim:
    """A named statement with its source, LaTeX statement and checks.

    ``holds=False`` declares a claim expected to be false (a paper's misprint, a tempting
    variant): its expected verdict is ``REFUTED`` and the report says "refuted, as expected".
    """

    name: str
    source: str
    statement: str
    symbolic: Callable[[], Any] | None = None
    explicit: Explicit | None = None
    numeric: Numeric | None = None
    measured: Measured | None = None
    holds: bool = True
    family: str = USER_FAMILY  # the registry labels built-in claims with their family
    note: str = ""
    correction: str = ""  # for a claim expected to be false: the name of the claim stating the corrected form
    symbolic_control: Callable[[], Any] | None = None  # expected-false claims: the corrected form's residual(s)
    no_control: str = ""  # expected-false claims without a corrected form: why none exists
    assumptions: tuple[str, ...] = ()  # e.g. ("isotropic inputs", "W0 = 0"), for the claims ledger
    builds_on: tuple[str, ...] = ()  # names of the claims this one relies on, for the claims ledger

    def __post_init__(self) -> None:
        if not self.name or not isinstance(self.name, str):
            raise ValueError("name must be a non-empty string")
        if all(getattr(self, k) is None for k in ("symbolic", "explicit", "numeric", "measured")):
            raise ValueError(f"claim {self.name!r} needs at least one of symbolic, explicit, numeric, measured")
        for key in ("assumptions", "builds_on"):
            value = getattr(self, key)
            if not isinstance(value, tuple) or not all(isinstance(v, str) and v for v in value):
                raise ValueError(f"claim {self.name!r}: {key} must be a tuple of non-empty strings, got {value!r}")

    @property
    def expected(self) -> Verdict:
        """PROVED for a true claim with a dimension-free check, VERIFIED for another true one, else REFUTED."""
        if not self.holds:
            return Verdict.REFUTED
        return Verdict.PROVED if self.symbolic is not None else Verdict.VERIFIED

    def check(self, seed: int = 0, max_examples: int = 100) -> Result:
        """Run every check this claim has and combine them into a :class:`Result`."""
        return check(self, seed=seed, max_examples=max_examples)

    def _repr_markdown_(self) -> str | None:
        return display.markdown(self)


MAX_RESIDUAL_CHARS = 400
"""Longer residuals are cut to this many characters in reports (``Residual.truncated``)."""


@dataclass(frozen=True)
class Residual:
    """The simplified lhs − rhs of a statement, to explain a refutation (docs/json-report.md).

    ``sizes`` is ``None`` for a dimension-free residual, else the concrete sizes it was built at.
    ``text`` is SymPy's (deterministic) printing, cut to :data:`MAX_RESIDUAL_CHARS` when
    ``truncated``; ``latex`` is empty when truncated (a cut formula does not typeset).
    """

    text: str
    latex: str
    sizes: dict[str, int] | None
    truncated: bool

    @classmethod
    def of(cls, residual: Any, sizes: Mapping[str, int] | None) -> Residual:
        """The residual simplified for display (:func:`~icl_verify.maths.symbolic.simplified`)."""
        expr = simplified(residual)
        text = str(expr)
        truncated = len(text) > MAX_RESIDUAL_CHARS
        latex = "" if truncated else sp.latex(expr)
        return cls(text[:MAX_RESIDUAL_CHARS] if truncated else text, latex, _none_or_dict(sizes), truncated)

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, "latex": self.latex, "sizes": self.sizes, "truncated": self.truncated}


def _none_or_dict(sizes: Mapping[str, int] | None) -> dict[str, int] | None:
    return None if sizes is None else {k: int(v) for k, v in sizes.items()}


@dataclass(frozen=True)
class Evidence:
    """What one check found.

    A check's status is proved / verified / refuted / undecided / error; a ``control`` row's
    status is passed / failed / waived / missing / error. ``residual`` is the simplified
    lhs − rhs of a symbolic or explicit check that did not reduce to zero.
    """

    kind: str
    status: str
    detail: str
    seconds: float
    counterexample: dict[str, Any] | None = None
    residual: Residual | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "status": self.status,
            "detail": self.detail,
            "seconds": round(self.seconds, 4),
            "counterexample": self.counterexample,
            "residual": None if self.residual is None else self.residual.to_dict(),
        }


@dataclass(frozen=True)
class Result:
    """The verdict on a claim with the evidence behind it."""

    claim: Claim
    verdict: Verdict
    evidence: tuple[Evidence, ...]
    seed: int
    max_examples: int
    seconds: float = field(default=0.0, compare=False)

    @property
    def control_failed(self) -> bool:
        """A control (the corrected form at the counterexample) failed: the refutation is hollow."""
        return any(e.kind == "control" and e.status == "failed" for e in self.evidence)

    @property
    def as_expected(self) -> bool:
        """The expected verdict, reached by a refutation that discriminates (no failed control)."""
        return self.verdict == self.claim.expected and not self.control_failed

    @property
    def counterexample(self) -> dict[str, Any] | None:
        """The counterexample behind a REFUTED verdict (the numeric, shrunk one first)."""
        for kind in ("numeric", "explicit", "symbolic", "measured"):
            for e in self.evidence:
                if e.kind == kind and e.counterexample is not None:
                    return e.counterexample
        return None

    @property
    def residual(self) -> Residual | None:
        """For a REFUTED verdict: the simplified lhs − rhs, dimension-free (symbolic) first."""
        if self.verdict is not Verdict.REFUTED:
            return None
        return next((e.residual for e in self.evidence if e.residual is not None), None)

    @property
    def summary(self) -> str:
        """One line: the verdict in words, e.g. 'refuted, as expected' or 'refuted, but the control failed'."""
        word = self.verdict.value.lower()
        if self.verdict == self.claim.expected and self.control_failed:
            return f"{word}, but the control failed"
        if self.as_expected and self.claim.holds:
            return word
        if self.as_expected:
            missing = any(e.kind == "control" and e.status == "missing" for e in self.evidence)
            return f"{word}, as expected" + (" (no control)" if missing else "")
        return f"{word}, expected {self.claim.expected.value.lower()}"

    def _repr_markdown_(self) -> str | None:
        return display.markdown(self)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready record (see docs/json-report.md)."""
        c = self.claim
        return {
            "name": c.name,
            "family": c.family,
            "source": c.source,
            "statement": c.statement,
            "holds": c.holds,
            "assumptions": list(c.assumptions),
            "builds_on": list(c.builds_on),
            "verdict": self.verdict.value,
            "expected": c.expected.value,
            "as_expected": self.as_expected,
            "seed": self.seed,
            "max_examples": self.max_examples,
            "seconds": round(self.seconds, 4),
            "evidence": [e.to_dict() for e in self.evidence],
            "counterexample": self.counterexample,
            "residual": None if self.residual is None else self.residual.to_dict(),
        }


# ---------------------------------------------------------------------------------------------
# The checks. Each runner returns its evidence and, when it refuted and the check has a control,
# a thunk running that control at the counterexample.

Control = Callable[[], Evidence] | None


class NonFiniteComparison(ValueError):
    """A comparison met NaN or inf: the check is broken there, which is no counterexample."""


def counterexample(
    kind: str,
    sizes: Mapping[str, int],
    values: Mapping[str, Any],
    residual: float,
    tolerance: float,
    seed: int | None,
    **extra: Any,
) -> dict[str, Any]:
    """A counterexample in the one vocabulary of every check (docs/json-report.md).

    ``sizes`` are the integer dimensions, ``values`` the other drawn or witness values, ``residual``
    the largest |lhs − rhs| (for a measurement |estimate − predicted|), ``tolerance`` what it
    exceeds (0 for an exact check) and ``seed`` the seed of the random search (``None`` if exact).
    """
    cex = {
        "kind": kind,
        "sizes": {k: int(v) for k, v in sizes.items()},
        "values": _jsonable(dict(values)),
        "residual": float(residual),
        "tolerance": float(tolerance),
        "seed": seed,
    }
    return cex | extra


def _residuals(value: Any) -> list[Any]:
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _run_symbolic(claim: Claim) -> tuple[Evidence, Control]:
    """Dimension-free check; a residual SymPy evaluates to a definite non-zero number refutes."""
    t0 = time.perf_counter()
    residuals = _residuals(claim.symbolic())
    answers = [is_zero(r) for r in residuals]
    if all(a is True for a in answers):
        return Evidence(
            "symbolic", "proved", "lhs − rhs reduces to 0 for symbolic dimensions", time.perf_counter() - t0
        ), None
    values = [definite_value(r) if a is False else None for r, a in zip(residuals, answers)]
    refuting = next((i for i, v in enumerate(values) if v is not None), None)
    if refuting is not None:
        value = values[refuting]
        cex = counterexample("symbolic", {}, {}, max_abs(value), 0.0, None, exact_residual=str(value))
        detail = f"lhs − rhs = {_short(value)} ≠ 0 whatever the symbols' values"
        explanation = _explain(value, None)
        return Evidence("symbolic", "refuted", detail, time.perf_counter() - t0, cex, explanation), None
    explanation = _explain(residuals[answers.index(None) if None in answers else answers.index(False)], None)
    undecided = sum(a is not True for a in answers)
    detail = f"{undecided} of {len(answers)} residual(s) not reduced to 0 by SymPy"
    return Evidence("symbolic", "undecided", detail, time.perf_counter() - t0, residual=explanation), None


def _explain(residual: Any, sizes: Mapping[str, int] | None) -> Residual | None:
    """The residual for display, or ``None`` if SymPy cannot simplify it: an aid to reading, never a check."""
    try:
        return Residual.of(residual, sizes)
    except Exception:  # a residual that does not print must not turn the check into an error
        return None


def _short(value: Any) -> str:
    text = str(value)
    return text if len(text) <= 80 else text[:80] + "…"


def _run_explicit(ex: Explicit) -> tuple[Evidence, Control]:
    t0 = time.perf_counter()
    for size in ex.sizes:
        for residual in _residuals(ex.residual(**size)):
            answer = is_zero(residual)
            if answer is True:
                continue
            witness = find_witness(residual)
            seconds = time.perf_counter() - t0
            explanation = _explain(residual, size or None)  # no sizes at all: dimension-free
            if witness is None:
                detail = f"residual at {dict(size)} not reduced to 0"
                return Evidence("explicit", "undecided", detail, seconds, residual=explanation), None
            values, value = witness
            cex = counterexample(
                "explicit",
                size,
                {k: str(v) for k, v in values.items()},
                max_abs(value),
                0.0,
                None,
                exact_residual=str(value),
            )
            evidence = Evidence(
                "explicit", "refuted", f"exact non-zero residual at {dict(size)}", seconds, cex, explanation
            )
            return evidence, None if ex.control is None else partial(_explicit_control, ex, size)
    detail = f"lhs − rhs expands to 0 at {describe_sizes(ex.sizes)} ({len(ex.sizes)} size(s))"
    return Evidence("explicit", "verified", detail, time.perf_counter() - t0), None


def _explicit_control(ex: Explicit, size: Mapping[str, int]) -> Evidence:
    """The corrected form's residual(s) at the refuting size must expand to exactly 0."""
    t0 = time.perf_counter()
    answers = [is_zero(r) for r in _residuals(ex.control(**size))]
    seconds = time.perf_counter() - t0
    if all(a is True for a in answers):
        return Evidence("control", "passed", f"explicit: the corrected form expands to 0 at {dict(size)}", seconds)
    open_ = sum(a is not True for a in answers)
    detail = f"explicit: {open_} of {len(answers)} residual(s) of the corrected form not 0 at {dict(size)}"
    return Evidence("control", "failed", detail, seconds)


def compare_with_tolerance(result: tuple, rtol: float, atol: float) -> tuple[bool, float, float]:
    """Return ``(ok, max |lhs − rhs|, tolerance)`` with tolerance ``atol + rtol · scale``.

    ``scale`` is the largest magnitude among lhs, rhs and an optional third element.
    NaN or inf anywhere is no comparison at all: :class:`NonFiniteComparison` names the part.
    """
    if len(result) not in (2, 3):
        raise ValueError("compare must return (lhs, rhs) or (lhs, rhs, scale)")
    lhs = np.asarray(result[0], dtype=np.float64)
    rhs = np.asarray(result[1], dtype=np.float64)
    if lhs.shape != rhs.shape:
        raise ValueError(f"lhs and rhs have different shapes {lhs.shape} and {rhs.shape}")
    extra = float(result[2]) if len(result) == 3 else 0.0
    for name, part in (("lhs", lhs), ("rhs", rhs), ("scale", extra)):
        if not np.all(np.isfinite(part)):
            raise NonFiniteComparison(f"{name} is not finite (NaN or inf)")
    err = float(np.max(np.abs(lhs - rhs), initial=0.0))
    scale = max(float(np.max(np.abs(lhs), initial=0.0)), float(np.max(np.abs(rhs), initial=0.0)), abs(extra))
    tol = atol + rtol * scale
    return err <= tol, err, tol


def _sizes_of(case: Mapping[str, Any]) -> dict[str, int]:
    return {k: int(v) for k, v in case.items() if isinstance(v, (int, np.integer)) and not isinstance(v, bool)}


def _jsonable(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, (int, float, str, bool)) or value is None:
        return value
    return str(value)


def _coverage(seen: Iterable[Mapping[str, int]]) -> str:
    seen = list(seen)
    keys = sorted({k for s in seen for k in s})
    return ", ".join(f"{k}∈[{min(s[k] for s in seen)},{max(s[k] for s in seen)}]" for k in keys)


class _BrokenCase(Exception):
    """Carries a case whose comparison was not finite out of Hypothesis' search."""

    def __init__(self, case: Mapping[str, Any], error: NonFiniteComparison) -> None:
        super().__init__(str(error))
        self.case, self.error = case, error


def _run_numeric(num: Numeric, seed: int, max_examples: int) -> tuple[Evidence, Control]:
    t0 = time.perf_counter()
    seen: list[dict[str, int]] = []

    def fails(case: Mapping[str, Any]) -> bool:
        seen.append(_sizes_of(case))
        try:
            ok, _, _ = compare_with_tolerance(num.compare(case), num.rtol, num.atol)
        except NonFiniteComparison as exc:
            raise _BrokenCase(case, exc) from exc
        return not ok

    config = settings(
        settings.get_profile("default"),  # Hypothesis' own defaults: a profile the user loaded changes no verdict
        max_examples=max_examples,
        derandomize=False,  # the search is seeded by ``seed`` (``random=`` below)
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        verbosity=Verbosity.quiet,
        phases=[Phase.generate, Phase.shrink],
    )
    try:
        with source_independent_draws():
            case = find(num.cases, fails, settings=config, random=random.Random(seed))
    except NoSuchExample:
        detail = f"{len(seen)} random cases pass (seed {seed})"
        if any(seen):
            detail += f"; {_coverage(seen)}"
        return Evidence("numeric", "verified", detail, time.perf_counter() - t0), None
    except _BrokenCase as broken:
        detail = f"{broken.error} in case {len(seen)} at sizes {_sizes_of(broken.case)} (seed {seed})"
        return Evidence("numeric", "error", detail, time.perf_counter() - t0), None
    _, err, tol = compare_with_tolerance(num.compare(case), num.rtol, num.atol)
    sizes = _sizes_of(case)
    values = {k: v for k, v in case.items() if k not in sizes}
    cex = counterexample("numeric", sizes, values, err, tol, seed)
    detail = f"shrunk counterexample at {sizes}: |lhs − rhs| = {err:.3g} > {tol:.3g} (seed {seed})"
    evidence = Evidence("numeric", "refuted", detail, time.perf_counter() - t0, cex)
    return evidence, None if num.control is None else partial(_numeric_control, num, case)


def _numeric_control(num: Numeric, case: Mapping[str, Any]) -> Evidence:
    """The corrected compare on the shrunk case, same rtol and atol, must pass."""
    t0 = time.perf_counter()
    ok, err, tol = compare_with_tolerance(num.control(case), num.rtol, num.atol)
    relation = "≤" if ok else ">"
    detail = f"numeric: the corrected form at the shrunk counterexample, |lhs − rhs| = {err:.3g} {relation} {tol:.3g}"
    return Evidence("control", "passed" if ok else "failed", detail, time.perf_counter() - t0)


def _band(est: Estimate, predicted: float) -> tuple[float, float]:
    return predicted - est.tolerance, predicted + est.tolerance


def _run_measured(m: Measured, seed: int) -> tuple[Evidence, Control]:
    t0 = time.perf_counter()
    est = m.measure(seed)
    if not isinstance(est, Estimate):
        raise TypeError(f"measure must return an Estimate, got {type(est).__name__}")
    low, high = _band(est, est.predicted)
    text = f"measured {est} vs predicted {est.predicted:.4g} ± {est.tolerance:.3g} (seed {seed})" + (
        f"; {est.detail}" if est.detail else ""
    )
    seconds = time.perf_counter() - t0
    if est.high < low or est.low > high:
        values = {"estimate": est.value, "interval": [est.low, est.high], "predicted": est.predicted}
        residual = abs(est.value - est.predicted)
        cex = counterexample("measured", {}, values, residual, est.tolerance, seed, detail=est.detail)
        evidence = Evidence("measured", "refuted", "interval excludes the prediction: " + text, seconds, cex)
        return evidence, None if est.control is None else partial(_measured_control, est)
    if low <= est.low and est.high <= high:
        return Evidence("measured", "verified", text, seconds), None
    return Evidence("measured", "undecided", "interval too wide to decide: " + text, seconds), None


def _measured_control(est: Estimate) -> Evidence:
    """The same estimate's interval must lie inside the corrected prediction ± the same tolerance."""
    low, high = _band(est, est.control)
    ok = low <= est.low and est.high <= high
    detail = (
        f"measured: the same estimate {est} {'lies inside' if ok else 'is not inside'} "
        f"the corrected {est.control:.4g} ± {est.tolerance:.3g}"
    )
    return Evidence("control", "passed" if ok else "failed", detail, 0.0)


def _symbolic_control(claim: Claim) -> Evidence:
    """The corrected form's dimension-free residual(s) must reduce to 0."""
    t0 = time.perf_counter()
    answers = [is_zero(r) for r in _residuals(claim.symbolic_control())]
    seconds = time.perf_counter() - t0
    if all(a is True for a in answers):
        return Evidence(
            "control", "passed", "symbolic: the corrected form reduces to 0 for symbolic dimensions", seconds
        )
    open_ = sum(a is not True for a in answers)
    return Evidence(
        "control", "failed", f"symbolic: {open_} of {len(answers)} residual(s) of the corrected form not 0", seconds
    )


def _guarded(kind: str, run: Callable[[], Any], *, pair: bool = True) -> Any:
    """Run a check; a crash becomes ``error`` evidence (with no control), never a pass."""
    t0 = time.perf_counter()
    try:
        return run()
    except Exception as exc:  # a crashing check is evidence of nothing: report it, never pass it
        evidence = Evidence(kind, "error", f"{type(exc).__name__}: {exc}", time.perf_counter() - t0)
        return (evidence, None) if pair else evidence


def _controls(claim: Claim, runs: Sequence[tuple[Evidence, Control]]) -> list[Evidence]:
    """Control rows for an expected-false claim: each refuting check's control, then the symbolic one."""
    thunks = [control for _, control in runs if control is not None]
    refuted = any(e.status == "refuted" for e, _ in runs)
    if claim.symbolic_control is not None and refuted:
        thunks.append(lambda: _symbolic_control(claim))
    rows = [_guarded("control", thunk, pair=False) for thunk in thunks]
    if rows:
        return rows
    if claim.no_control:
        return [Evidence("control", "waived", f"no corrected form: {claim.no_control}", 0.0)]
    detail = "no control ran: give the refuting check the corrected form (control=), or no_control= a reason"
    return [Evidence("control", "missing", detail, 0.0)]


def combine(evidence: Sequence[Evidence]) -> Verdict:
    """The verdict the evidence supports: any error wins, then any refutation; PROVED needs the symbolic proof."""
    statuses = {(e.kind, e.status) for e in evidence}
    if any(s == "error" for _, s in statuses):
        return Verdict.ERROR
    if any(s == "refuted" for _, s in statuses):
        return Verdict.REFUTED
    if ("symbolic", "proved") in statuses:
        return Verdict.PROVED
    if any(s == "verified" for _, s in statuses):
        return Verdict.VERIFIED
    return Verdict.UNPROVEN


def check(claim: Claim, seed: int = 0, max_examples: int = 100) -> Result:
    """Check ``claim``: run its checks, the controls of an expected-false claim, and combine the evidence.

    ``seed`` seeds Hypothesis' search (recorded in the result); ``max_examples`` bounds it.
    """
    seed = seed_value("seed", seed)
    if isinstance(max_examples, bool) or not isinstance(max_examples, int) or max_examples < 1:
        raise ValueError(f"max_examples must be a positive integer, got {max_examples!r}")
    t0 = time.perf_counter()
    runs: list[tuple[Evidence, Control]] = []
    if claim.symbolic is not None:
        runs.append(_guarded("symbolic", lambda: _run_symbolic(claim)))
    if claim.explicit is not None:
        runs.append(_guarded("explicit", lambda: _run_explicit(claim.explicit)))
    if claim.numeric is not None:
        runs.append(_guarded("numeric", lambda: _run_numeric(claim.numeric, seed, max_examples)))
    if claim.measured is not None:
        runs.append(_guarded("measured", lambda: _run_measured(claim.measured, seed)))
    evidence = [e for e, _ in runs] + ([] if claim.holds else _controls(claim, runs))
    return Result(claim, combine(evidence), tuple(evidence), seed, max_examples, time.perf_counter() - t0)
