"""The measured check: a simulation or fit with a confidence interval against a predicted value ± tolerance."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from icl_verify.core.checks.base import Check, Found
from icl_verify.core.evidence import ControlStatus, Evidence, Kind, Status, counterexample
from icl_verify.errors import InvalidArgument


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

    def __post_init__(self) -> None:
        for name in ("value", "low", "high", "predicted", "tolerance"):
            if not np.isfinite(getattr(self, name)):
                raise InvalidArgument(f"{name} must be finite, got {getattr(self, name)!r}")
        if not self.low <= self.value <= self.high:
            raise InvalidArgument(f"need low <= value <= high, got {self.low}, {self.value}, {self.high}")
        if self.tolerance < 0:
            raise InvalidArgument(f"tolerance must be non-negative, got {self.tolerance}")

    def __str__(self) -> str:
        """The estimate and its interval to the precision the interval supports (:func:`format_interval`)."""
        return format_interval(self.value, self.low, self.high)


def range_level(n: int) -> float:
    """The chance that [min, max] of n independent draws of a continuous law holds the law's median: 1 − 2^{1−n}.

    The median is left out only when all n draws fall on one side of it, each side with probability 2^{−n}
    (an order-statistic interval: it needs no model of the law).

    >>> range_level(3), range_level(8)
    (0.75, 0.9921875)
    """
    if n < 1:
        raise InvalidArgument(f"n must be a positive number of draws, got {n!r}")
    return 1 - 2.0 ** (1 - n)


def range_estimate(
    values: list[float], predicted: float, tolerance: float, what: str, context: str = "", value: float | None = None
) -> Estimate:
    """An estimate whose interval is [min, max] of n independent replicate ``values`` of ``what``, its level
    (:func:`range_level`) stated in the detail after ``context``; the point is their mean unless ``value`` is given.
    One value gives a degenerate interval, and the detail says so."""
    n = len(values)
    if n == 1:
        reading = f"one {what}: a degenerate interval (no replicate spread is covered)"
    else:
        reading = (
            f"interval [min, max] of the {n} {what}, which holds the median of their law with probability"
            f" 1 − 2^{1 - n} = {range_level(n):.3g}, whatever the law"
        )
    point = float(np.mean(values)) if value is None else value
    detail = f"{context}; {reading}" if context else reading
    return Estimate(point, min(values), max(values), predicted, tolerance, detail)


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
class Measured(Check):
    """Statistical check: ``measure(seed)`` runs a simulation/fit and returns an :class:`Estimate`.

    Verified when the whole interval lies inside the band predicted ± tolerance; refuted when
    the interval and the band are disjoint; otherwise undecided (the interval is too wide to tell).
    The corrected form is the corrected prediction of the same quantity (a number, or a function of
    the seed): the same interval must lie inside it ± the same tolerance.

    Sequential sampling: with ``looks`` (increasing run counts, the last the cap), ``measure`` is
    called as ``measure(seed, runs=n, level=p)`` — its estimate from the first n runs of the seed,
    with an interval at confidence level p — for n = looks[0], looks[1], … and stops at the first
    look whose interval decides (inside the band, or disjoint from it), else at the cap. The
    levels spend α = 0.05 over the looks (:func:`~icl_verify.numerics.shared.stats.spending_levels`):
    all the looks' intervals hold at once with probability ≥ 95 %, so stopping at the first that
    decides is as sound as one interval at the cap. ``measure`` should reuse its earlier runs (cache
    them per run seed) so a later look only adds runs.
    """

    measure: Callable[..., Estimate]
    looks: tuple[int, ...] = ()

    kind: ClassVar[str] = Kind.MEASURED
    rank: ClassVar[int] = 3

    def __post_init__(self) -> None:
        if self.looks:
            _levels(self.looks)  # raises InvalidArgument unless increasing positive run counts

    def run(self, seed: int, max_examples: int) -> Found:
        t0 = time.perf_counter()
        if not self.looks:
            return _decide(self.kind, _checked(self.measure(seed)), seed, "", t0)
        levels = _levels(self.looks)
        for look, (runs, level) in enumerate(zip(self.looks, levels), 1):
            est = _checked(self.measure(seed, runs=runs, level=level))
            low, high = _band(est, est.predicted)
            inside, disjoint = low <= est.low and est.high <= high, est.high < low or est.low > high
            if inside or disjoint or look == len(self.looks):
                break
        why = "its interval lies inside the band" if inside else "its interval excludes the band" if disjoint else "cap"
        note = (
            f"sequential: {runs} of at most {self.looks[-1]} runs (looks at {list(self.looks)} runs), "
            f"stopped at look {look} because "
            + ("the cap was reached undecided" if why == "cap" else why)
            + f"; {level:.2%} interval (O'Brien–Fleming α-spending: α = 5 % over all looks)"
        )
        return _decide(self.kind, est, seed, note, t0)

    def control_at(self, at: tuple[Estimate, int], corrected: float | Callable[[int], float]) -> Evidence:
        """The same estimate's interval must lie inside the corrected prediction ± the same tolerance."""
        est, seed = at
        prediction = float(corrected(seed) if callable(corrected) else corrected)
        low, high = _band(est, prediction)
        ok = low <= est.low and est.high <= high
        detail = (
            f"measured: the same estimate {est} {'lies inside' if ok else 'is not inside'} "
            f"the corrected {prediction:.4g} ± {est.tolerance:.3g}"
        )
        return Evidence(Kind.CONTROL, ControlStatus.PASSED if ok else ControlStatus.FAILED, detail, 0.0)


def _levels(looks: tuple[int, ...]) -> list[float]:
    """The looks' confidence levels (imported here: SciPy loads only when a sequential check runs)."""
    from icl_verify.numerics.shared.stats import spending_levels

    return spending_levels(looks)


def _checked(est: object) -> Estimate:
    if not isinstance(est, Estimate):
        raise TypeError(f"measure must return an Estimate, got {type(est).__name__}")
    return est


def _decide(kind: str, est: Estimate, seed: int, note: str, t0: float) -> Found:
    """Verified if the interval lies inside the band, refuted if disjoint from it, else undecided."""
    low, high = _band(est, est.predicted)
    text = (
        f"measured {est} vs predicted {est.predicted:.4g} ± {est.tolerance:.3g} (seed {seed})"
        + (f"; {est.detail}" if est.detail else "")
        + (f"; {note}" if note else "")
    )
    seconds = time.perf_counter() - t0
    if est.high < low or est.low > high:
        values = {"estimate": est.value, "interval": [est.low, est.high], "predicted": est.predicted}
        residual = abs(est.value - est.predicted)
        cex = counterexample(kind, {}, values, residual, est.tolerance, seed, detail=est.detail)
        return Found(
            Evidence(kind, Status.REFUTED, "interval excludes the prediction: " + text, seconds, cex), (est, seed)
        )
    if low <= est.low and est.high <= high:
        return Found(Evidence(kind, Status.VERIFIED, text, seconds))
    return Found(Evidence(kind, Status.UNDECIDED, "interval too wide to decide: " + text, seconds))


def _band(est: Estimate, predicted: float) -> tuple[float, float]:
    return predicted - est.tolerance, predicted + est.tolerance
