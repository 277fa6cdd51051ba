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
``UNPROVEN`` (SymPy could not decide, nothing else passed) is never a pass.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

import numpy as np
from hypothesis import HealthCheck, Phase, Verbosity, find, settings
from hypothesis.errors import NoSuchExample
from hypothesis.strategies import SearchStrategy

from icl_verify.engine import display
from icl_verify.engine.symbolic import describe_sizes, find_witness, is_zero, max_abs
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


@dataclass(frozen=True)
class Evidence:
    """What one check found: status is proved / verified / refuted / undecided / error."""

    kind: str
    status: str
    detail: str
    seconds: float
    counterexample: dict[str, Any] | None = None


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
    def as_expected(self) -> bool:
        return self.verdict == self.claim.expected

    @property
    def counterexample(self) -> dict[str, Any] | None:
        """The counterexample behind a REFUTED verdict (the numeric, shrunk one first)."""
        for kind in ("numeric", "explicit", "measured"):
            for e in self.evidence:
                if e.kind == kind and e.counterexample is not None:
                    return e.counterexample
        return None

    @property
    def summary(self) -> str:
        """One line: the verdict in words, e.g. 'refuted, as expected'."""
        word = self.verdict.value.lower()
        if self.as_expected:
            return f"{word}, as expected" if not self.claim.holds else word
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
            "evidence": [
                {"kind": e.kind, "status": e.status, "detail": e.detail, "seconds": round(e.seconds, 4)}
                for e in self.evidence
            ],
            "counterexample": self.counterexample,
        }


# ---------------------------------------------------------------------------------------------
# The three checks


def _residuals(value: Any) -> list[Any]:
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _run_symbolic(fn: Callable[[], Any]) -> Evidence:
    t0 = time.perf_counter()
    answers = [is_zero(r) for r in _residuals(fn())]
    seconds = time.perf_counter() - t0
    if all(a is True for a in answers):
        return Evidence("symbolic", "proved", "lhs − rhs reduces to 0 for symbolic dimensions", seconds)
    undecided = sum(a is not True for a in answers)
    return Evidence(
        "symbolic", "undecided", f"{undecided} of {len(answers)} residual(s) not reduced to 0 by SymPy", seconds
    )


def _run_explicit(ex: Explicit) -> Evidence:
    t0 = time.perf_counter()
    for size in ex.sizes:
        for residual in _residuals(ex.residual(**size)):
            answer = is_zero(residual)
            if answer is True:
                continue
            witness = find_witness(residual)
            seconds = time.perf_counter() - t0
            if witness is None:
                return Evidence("explicit", "undecided", f"residual at {dict(size)} not reduced to 0", seconds)
            values, value = witness
            cex = {
                "kind": "explicit",
                "sizes": dict(size),
                "values": {k: str(v) for k, v in values.items()},
                "residual": str(value),
                "max_abs_residual": max_abs(value),
            }
            return Evidence("explicit", "refuted", f"exact non-zero residual at {dict(size)}", seconds, cex)
    detail = f"lhs − rhs expands to 0 at {describe_sizes(ex.sizes)} ({len(ex.sizes)} size(s))"
    return Evidence("explicit", "verified", detail, time.perf_counter() - t0)


def compare_with_tolerance(result: tuple, rtol: float, atol: float) -> tuple[bool, float, float]:
    """Return ``(ok, max |lhs − rhs|, tolerance)`` with tolerance ``atol + rtol · scale``.

    ``scale`` is the largest magnitude among lhs, rhs and an optional third element.
    Non-finite values never compare equal.
    """
    if len(result) not in (2, 3):
        raise ValueError("compare must return (lhs, rhs) or (lhs, rhs, scale)")
    lhs = np.asarray(result[0], dtype=np.float64)
    rhs = np.asarray(result[1], dtype=np.float64)
    if lhs.shape != rhs.shape:
        raise ValueError(f"lhs and rhs have different shapes {lhs.shape} and {rhs.shape}")
    extra = float(result[2]) if len(result) == 3 else 0.0
    if not (np.all(np.isfinite(lhs)) and np.all(np.isfinite(rhs)) and np.isfinite(extra)):
        return False, float("inf"), float("nan")
    err = float(np.max(np.abs(lhs - rhs), initial=0.0))
    scale = max(float(np.max(np.abs(lhs), initial=0.0)), float(np.max(np.abs(rhs), initial=0.0)), abs(extra))
    tol = atol + rtol * scale
    return err <= tol, err, tol


def _dims_of(case: Mapping[str, Any]) -> dict[str, int]:
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


def _run_numeric(num: Numeric, seed: int, max_examples: int) -> Evidence:
    t0 = time.perf_counter()
    seen: list[dict[str, int]] = []

    def fails(case: Mapping[str, Any]) -> bool:
        seen.append(_dims_of(case))
        ok, _, _ = compare_with_tolerance(num.compare(case), num.rtol, num.atol)
        return not ok

    config = settings(
        max_examples=max_examples,
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        verbosity=Verbosity.quiet,
        phases=[Phase.generate, Phase.shrink],
    )
    try:
        case = find(num.cases, fails, settings=config, random=random.Random(seed))
    except NoSuchExample:
        detail = f"{len(seen)} random cases pass (seed {seed})"
        if any(seen):
            detail += f"; {_coverage(seen)}"
        return Evidence("numeric", "verified", detail, time.perf_counter() - t0)
    _, err, tol = compare_with_tolerance(num.compare(case), num.rtol, num.atol)
    cex = {
        "kind": "numeric",
        "dims": _dims_of(case),
        "case": _jsonable(dict(case)),
        "max_abs_residual": err,
        "tolerance": tol,
        "seed": seed,
    }
    detail = f"shrunk counterexample at {_dims_of(case)}: |lhs − rhs| = {err:.3g} > {tol:.3g} (seed {seed})"
    return Evidence("numeric", "refuted", detail, time.perf_counter() - t0, cex)


def _run_measured(m: Measured, seed: int) -> Evidence:
    t0 = time.perf_counter()
    est = m.measure(seed)
    if not isinstance(est, Estimate):
        raise TypeError(f"measure must return an Estimate, got {type(est).__name__}")
    band = (est.predicted - est.tolerance, est.predicted + est.tolerance)
    text = f"measured {est} vs predicted {est.predicted:.4g} ± {est.tolerance:.3g} (seed {seed})" + (
        f"; {est.detail}" if est.detail else ""
    )
    seconds = time.perf_counter() - t0
    if est.high < band[0] or est.low > band[1]:
        cex = {
            "kind": "measured",
            "estimate": est.value,
            "interval": [est.low, est.high],
            "predicted": est.predicted,
            "tolerance": est.tolerance,
            "seed": seed,
            "detail": est.detail,
        }
        return Evidence("measured", "refuted", "interval excludes the prediction: " + text, seconds, cex)
    if band[0] <= est.low and est.high <= band[1]:
        return Evidence("measured", "verified", text, seconds)
    return Evidence("measured", "undecided", "interval too wide to decide: " + text, seconds)


def _guarded(kind: str, run: Callable[[], Evidence]) -> Evidence:
    t0 = time.perf_counter()
    try:
        return run()
    except Exception as exc:  # a crashing check is evidence of nothing: report it, never pass it
        return Evidence(kind, "error", f"{type(exc).__name__}: {exc}", time.perf_counter() - t0)


def combine(evidence: Sequence[Evidence]) -> Verdict:
    """The verdict the evidence supports: any refutation wins; PROVED needs the symbolic proof."""
    statuses = {(e.kind, e.status) for e in evidence}
    if any(s == "refuted" for _, s in statuses):
        return Verdict.REFUTED
    if any(s == "error" for _, s in statuses):
        return Verdict.ERROR
    if ("symbolic", "proved") in statuses:
        return Verdict.PROVED
    if any(s == "verified" for _, s in statuses):
        return Verdict.VERIFIED
    return Verdict.UNPROVEN


def check(claim: Claim, seed: int = 0, max_examples: int = 100) -> Result:
    """Check ``claim``: run its symbolic, explicit and numeric checks and combine the evidence.

    ``seed`` seeds Hypothesis' search (recorded in the result); ``max_examples`` bounds it.
    """
    seed = seed_value("seed", seed)
    if isinstance(max_examples, bool) or not isinstance(max_examples, int) or max_examples < 1:
        raise ValueError(f"max_examples must be a positive integer, got {max_examples!r}")
    t0 = time.perf_counter()
    evidence: list[Evidence] = []
    if claim.symbolic is not None:
        evidence.append(_guarded("symbolic", lambda: _run_symbolic(claim.symbolic)))
    if claim.explicit is not None:
        evidence.append(_guarded("explicit", lambda: _run_explicit(claim.explicit)))
    if claim.numeric is not None:
        evidence.append(_guarded("numeric", lambda: _run_numeric(claim.numeric, seed, max_examples)))
    if claim.measured is not None:
        evidence.append(_guarded("measured", lambda: _run_measured(claim.measured, seed)))
    return Result(claim, combine(evidence), tuple(evidence), seed, max_examples, time.perf_counter() - t0)
