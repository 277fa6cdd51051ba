"""The measured check: a simulation or fit with a confidence interval against a predicted value ± tolerance.

One vocabulary for every measured claim (:class:`Rule`, :func:`reading`): the *estimand* (the quantity the
interval is for), the interval's *level* L, and the *test* the verdict is:

- ``equivalence`` — "θ = predicted ± tolerance": VERIFIED when the level-L interval lies inside the band, which
  is the two-one-sided-tests (TOST) equivalence test at α/2 = (1 − L)/2 per side (Schuirmann 1987, J.
  Pharmacokin. Biopharm. 15(6)): when θ sits on a band edge, P(VERIFIED) ≤ (1 − L)/2 — 2.5 % at L = 95 %, not 5 %.
  REFUTED when the interval is disjoint from the band: a one-sided test of "θ inside the band", error ≤ (1 − L)/2.
- ``at most`` / ``at least`` — "θ ≤ bound" / "θ ≥ bound" (``predicted`` is the bound, ``tolerance`` 0): a
  one-sided test with the interval's upper (lower) end as the (1 + L)/2 confidence bound: VERIFIED when that end
  is on the claimed side, REFUTED when the whole interval is on the other; each error ≤ (1 − L)/2.

The evidence's detail states all three, and :func:`measurement` gives them as data for the JSON report.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any, ClassVar

import numpy as np

from icl_verify.core.checks.base import Check, Found
from icl_verify.core.evidence import ControlStatus, Evidence, Kind, Status, counterexample
from icl_verify.errors import InvalidArgument


class Rule(StrEnum):
    """The test a measured verdict is (module docstring): a two-sided equivalence, or a one-sided bound."""

    EQUIVALENCE = "equivalence"
    AT_MOST = "at most"
    AT_LEAST = "at least"


@dataclass(frozen=True)
class Estimate:
    """A measured quantity with a confidence interval, and the value a claim predicts for it.

    The claim reads "quantity = predicted ± tolerance" (``test`` :attr:`Rule.EQUIVALENCE`), or
    "quantity ≤ predicted" / "≥ predicted" (:attr:`Rule.AT_MOST` / :attr:`Rule.AT_LEAST`, tolerance 0).
    ``low``/``high`` bound the measured value's confidence interval at ``level`` (e.g. a bootstrap 95 %
    interval; ``None`` when the interval is not a confidence interval of a stated level, and the detail says what
    it is); ``estimand`` names the quantity the interval is for.
    """

    value: float
    low: float
    high: float
    predicted: float
    tolerance: float = 0.0
    detail: str = ""
    estimand: str = ""
    level: float | None = None
    test: Rule = Rule.EQUIVALENCE

    def __post_init__(self) -> None:
        for name in ("value", "low", "high", "predicted", "tolerance"):
            if not np.isfinite(getattr(self, name)):
                raise InvalidArgument(f"{name} must be finite, got {getattr(self, name)!r}")
        if not self.low <= self.value <= self.high:
            raise InvalidArgument(f"need low <= value <= high, got {self.low}, {self.value}, {self.high}")
        if self.tolerance < 0:
            raise InvalidArgument(f"tolerance must be non-negative, got {self.tolerance}")
        if self.level is not None and not 0 < self.level < 1:
            raise InvalidArgument(f"level must lie in (0, 1), got {self.level!r}")
        if self.test not in tuple(Rule):
            raise InvalidArgument(f"test must be one of {[str(t) for t in Rule]}, got {self.test!r}")
        if self.test != Rule.EQUIVALENCE and self.tolerance != 0:
            raise InvalidArgument(f"tolerance must be 0 for a one-sided test ({self.test}), got {self.tolerance}")

    def __str__(self) -> str:
        """The estimate and its interval to the precision the interval supports (:func:`format_interval`)."""
        return format_interval(self.value, self.low, self.high)


def range_level(n: int) -> float:
    """The chance that [min, max] of n independent draws of a continuous law holds the law's median: 1 − 2^{1−n}
    (:func:`median_level` with k = 1: the median is left out only when all n draws fall on one side of it).

    >>> range_level(3), range_level(8)
    (0.75, 0.9921875)
    """
    return median_level(n, 1)


def median_level(n: int, k: int) -> float:
    """The chance that [x₍ₖ₎, x₍ₙ₊₁₋ₖ₎], the k-th smallest and k-th largest of n independent draws of a continuous
    law, holds the law's median: 1 − 2·P(Bin(n, ½) ≤ k − 1), whatever the law (the sign-test interval; Lehmann 1975,
    Nonparametrics: Statistical Methods Based on Ranks, pp. 182–183). The median is left out only when fewer than k
    draws fall on one of its sides, and each draw falls below it with probability ½.

    >>> range_level(9) == median_level(9, 1), median_level(9, 2), round(median_level(18, 5), 4)
    (True, 0.9609375, 0.9691)
    """
    if n < 1:
        raise InvalidArgument(f"n must be a positive number of draws, got {n!r}")
    if not 1 <= k <= (n + 1) // 2:
        raise InvalidArgument(f"k must be a rank from 1 to {(n + 1) // 2} for {n} draws, got {k!r}")
    below = sum(math.comb(n, i) for i in range(k))
    return 1 - 2 * below / 2**n


def median_rank(n: int, level: float) -> int:
    """The narrowest order-statistic interval for the median of n draws at confidence ≥ ``level``: the largest k with
    :func:`median_level` (n, k) ≥ ``level``.

    >>> median_rank(9, 0.99), median_rank(9, 0.95), median_rank(18, 0.952)
    (1, 2, 5)
    """
    if not 0 < level < 1:
        raise InvalidArgument(f"level must lie in (0, 1), got {level!r}")
    if n < 1 or median_level(n, 1) < level:
        raise InvalidArgument(
            f"n must be at least {math.ceil(1 - math.log2(1 - level))} draws for a median interval at level"
            f" {level:.4g}, got {n!r}"
        )
    k = 1
    while k < (n + 1) // 2 and median_level(n, k + 1) >= level:
        k += 1
    return k


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
    level = range_level(n) if n > 1 else None
    return Estimate(
        point, min(values), max(values), predicted, tolerance, detail, estimand=f"median of the {what}", level=level
    )


RUN_STRIDE = 1_000_000
"""Run r of check seed s trains with seed s + r·RUN_STRIDE (:func:`run_seeds`): run 0 is the check seed's own."""


def run_seeds(seed: int, runs: int) -> list[int]:
    """The training seeds of ``runs`` independent runs at check seed ``seed``: seed, seed + 10⁶, seed + 2·10⁶, …

    >>> run_seeds(3, 3)
    [3, 1000003, 2000003]
    """
    if runs < 1:
        raise InvalidArgument(f"runs must be a positive number of runs, got {runs!r}")
    return [seed + RUN_STRIDE * r for r in range(runs)]


def runs_estimate(
    values: list[float],
    predicted: float,
    tolerance: float = 0.0,
    *,
    what: str,
    level: float,
    context: str = "",
    test: Rule = Rule.EQUIVALENCE,
    geometric: bool = False,
) -> Estimate:
    """The mean of ``what`` over n ≥ 2 independent training runs (one value per run) with its Student-t interval at
    ``level`` — the interval covers the spread between runs, each run's own test sampling included; with
    ``geometric`` (positive ratios), the geometric mean with the exponentiated t-interval of the logarithms."""
    from icl_verify.numerics.shared.stats import t_interval

    if len(values) < 2:
        raise InvalidArgument(f"values must hold at least 2 training runs, got {len(values)}")
    if geometric and min(values) <= 0:
        raise InvalidArgument(f"values must be positive for a geometric mean, got {min(values)!r}")
    data = np.log(values) if geometric else np.asarray(values, dtype=float)
    interval = t_interval(data, level)
    ends = np.exp(interval) if geometric else np.asarray(interval)
    value, low, high = (float(x) for x in ends)
    mean = "geometric mean" if geometric else "mean"
    shown = ", ".join(f"{v:.4g}" for v in values)
    reading = (
        f"Student-t interval of the {mean} over {len(values)} independent training runs (per run: {shown}): it"
        " covers the spread between runs, each run's test sampling included"
    )
    detail = f"{context}; {reading}" if context else reading
    estimand = f"{mean} over independent training runs of {what}"
    return Estimate(value, low, high, predicted, tolerance, detail, estimand=estimand, level=level, test=test)


def median_estimate(
    values: list[float],
    predicted: float,
    tolerance: float = 0.0,
    *,
    what: str,
    level: float,
    draws: str = "independent training runs",
    context: str = "",
    test: Rule = Rule.EQUIVALENCE,
) -> Estimate:
    """The median of ``what`` over n independent ``draws`` with its order-statistic interval [x₍ₖ₎, x₍ₙ₊₁₋ₖ₎] at the
    smallest exact level ≥ ``level`` (:func:`median_rank`, :func:`median_level`). It needs no model of the law of the
    draws: where training ends in a rare far mode (a run stalled on a plateau), one such run moves the interval by one
    rank, and the interval still covers the typical run's value, which a t-interval over few runs does not."""
    n = len(values)
    k = median_rank(n, level)
    ordered = sorted(values)
    low, high = ordered[k - 1], ordered[n - k]
    exact = median_level(n, k)
    shown = ", ".join(f"{v:.4g}" for v in values)
    reading = (
        f"order-statistic interval [x₍{k}₎, x₍{n + 1 - k}₎] of the median over {n} {draws} (each: {shown}): it holds"
        f" the median of their law with probability 1 − 2·P(Bin({n}, ½) ≤ {k - 1}) = {exact:.4g} ≥ {level:.4g},"
        " whatever that law"
    )
    detail = f"{context}; {reading}" if context else reading
    estimand = f"median over {draws} of {what}"
    return Estimate(
        float(np.median(values)), low, high, predicted, tolerance, detail, estimand=estimand, level=exact, test=test
    )


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
    levels spend α = 0.05 over the looks (:func:`~icl_verify.numerics.shared.stats.spending_levels`, exact
    boundaries under the looks' canonical joint law): all the looks' intervals hold at once with probability
    95 %, so stopping at the first that decides is as sound as one interval at the cap; each side's error is
    then ≤ 2.5 % (for t-intervals of 3–8 runs, measured 2.6–2.8 %: docs/performance.md). ``measure`` should reuse its earlier runs (cache
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
            est = est if est.level is not None else replace(est, level=level)
            outcome = _outcome(est)
            inside, disjoint = outcome == Status.VERIFIED, outcome == Status.REFUTED
            if inside or disjoint or look == len(self.looks):
                break
        why = "its interval lies inside the band" if inside else "its interval excludes the band" if disjoint else "cap"
        note = (
            f"sequential: {runs} of at most {self.looks[-1]} runs (looks at {list(self.looks)} runs), "
            f"stopped at look {look} because "
            + ("the cap was reached undecided" if why == "cap" else why)
            + f"; {level:.2%} interval (Lan–DeMets O'Brien–Fleming spending of α = 5 % over the looks, exact"
            " boundaries under the looks' joint normal law: every look's interval holds at once with probability 95 %)"
        )
        return _decide(self.kind, est, seed, note, t0)

    def control_at(self, at: tuple[Estimate, int], corrected: float | Callable[[int], float]) -> Evidence:
        """The corrected prediction must pass the same check: the same measurement's interval must lie inside it
        ± the same tolerance (PASSED), not be disjoint from it (FAILED), else the control is UNDECIDED. A sequential
        check looks again for the control, from its first look on with α spent as for the claim: the look at which
        the claim was refuted may be one a single far run (a stalled training run) left too wide for the corrected
        band, while a later look's interval is not."""
        est, seed = at
        prediction = float(corrected(seed) if callable(corrected) else corrected)
        low, high = _band(est, prediction)
        for look in self._control_looks(est, seed):
            measured, where = look
            inside = low <= measured.low and measured.high <= high
            disjoint = measured.high < low or measured.low > high
            if inside or disjoint:
                break
        status = ControlStatus.PASSED if inside else ControlStatus.FAILED if disjoint else ControlStatus.UNDECIDED
        relation = "lies inside" if inside else "excludes" if disjoint else "is not inside"
        detail = (
            f"measured: the same measurement{where} {measured} {relation} the corrected {prediction:.4g}"
            f" ± {est.tolerance:.3g}"
        )
        return Evidence(Kind.CONTROL, status, detail, 0.0)

    def _control_looks(self, est: Estimate, seed: int) -> Iterator[tuple[Estimate, str]]:
        """The claim's estimate, or a sequential claim's looks again, lazily (a later look trains its added runs
        only if it is reached), each with where it was taken."""
        if not self.looks:
            yield est, ""
            return
        for runs, level in zip(self.looks, _levels(self.looks)):
            yield _checked(self.measure(seed, runs=runs, level=level)), f" at {runs} runs ({level:.2%} interval)"


def over_runs(
    per_run: Callable[[int], float],
    what: str,
    predicted: float | Callable[[], float],
    tolerance: float = 0.0,
    *,
    looks: tuple[int, ...],
    relative: bool = False,
    test: Rule = Rule.EQUIVALENCE,
    geometric: bool = False,
    median: bool = False,
    context: Callable[[list[int]], str] = lambda seeds: "",
) -> Measured:
    """A sequential measured check of ``what`` over independent training runs: one value ``per_run(run seed)`` per run
    (:func:`run_seeds`), the interval the t-interval over the runs (:func:`runs_estimate`) at ``looks``, α spent over
    them — or, with ``median``, the median run with its order-statistic interval (:func:`median_estimate`).
    ``predicted`` may be a function (evaluated when the check runs); with ``relative`` the band is
    ± ``tolerance`` · |predicted|; ``context(run seeds)`` opens the detail. ``per_run`` should be cached: a later look
    reuses the earlier runs."""
    if median and geometric:
        raise InvalidArgument("geometric must be False with median: the median of the runs needs no log scale")

    def measure(seed: int, runs: int, level: float) -> Estimate:
        seeds = run_seeds(seed, runs)
        value = float(predicted() if callable(predicted) else predicted)
        band = tolerance * abs(value) if relative else tolerance
        values = [per_run(s) for s in seeds]
        if median:
            return median_estimate(values, value, band, what=what, level=level, context=context(seeds), test=test)
        return runs_estimate(
            values, value, band, what=what, level=level, context=context(seeds), test=test, geometric=geometric
        )

    return Measured(measure, looks=looks)


def _levels(looks: tuple[int, ...]) -> list[float]:
    """The looks' confidence levels (imported here: SciPy loads only when a sequential check runs)."""
    from icl_verify.numerics.shared.stats import spending_levels

    return spending_levels(looks)


def _checked(est: object) -> Estimate:
    if not isinstance(est, Estimate):
        raise TypeError(f"measure must return an Estimate, got {type(est).__name__}")
    return est


def _outcome(est: Estimate) -> Status:
    """VERIFIED, REFUTED or UNDECIDED by the estimate's test (module docstring)."""
    if est.test == Rule.AT_MOST:
        return (
            Status.VERIFIED
            if est.high <= est.predicted
            else Status.REFUTED
            if est.low > est.predicted
            else Status.UNDECIDED
        )
    if est.test == Rule.AT_LEAST:
        return (
            Status.VERIFIED
            if est.low >= est.predicted
            else Status.REFUTED
            if est.high < est.predicted
            else Status.UNDECIDED
        )
    low, high = _band(est, est.predicted)
    if est.high < low or est.low > high:
        return Status.REFUTED
    return Status.VERIFIED if low <= est.low and est.high <= high else Status.UNDECIDED


def reading(est: Estimate) -> str:
    """What the verdict on ``est`` is, in the one vocabulary: estimand, test, level and error rate per side."""
    what = est.estimand or "the measured quantity"
    if est.level is None:
        level = "an interval of no stated confidence level (see the detail): no error rate is claimed"
    else:
        level = f"{est.level:.4g} interval, error ≤ {(1 - est.level) / 2:.3g} per side"
    if est.test == Rule.EQUIVALENCE:
        test = f"equivalence test (two one-sided tests) of |θ − {est.predicted:.4g}| ≤ {est.tolerance:.3g}"
    else:
        test = f"one-sided test of θ {'≤' if est.test == Rule.AT_MOST else '≥'} {est.predicted:.4g}"
    return f"θ = {what}; {test}; {level}"


def measurement(est: Estimate) -> dict[str, Any]:
    """The estimate in the JSON report's vocabulary: estimand, estimate, interval, level, test, α per side,
    predicted value and tolerance (the interval's level ``None`` when it has none)."""
    return {
        "estimand": est.estimand,
        "estimate": est.value,
        "interval": [est.low, est.high],
        "level": est.level,
        "test": str(est.test),
        "alpha_per_side": None if est.level is None else (1 - est.level) / 2,
        "predicted": est.predicted,
        "tolerance": est.tolerance,
    }


def _claimed(est: Estimate) -> str:
    if est.test == Rule.EQUIVALENCE:
        return f"predicted {est.predicted:.4g} ± {est.tolerance:.3g}"
    return f"claimed {'≤' if est.test == Rule.AT_MOST else '≥'} {est.predicted:.4g}"


def _decide(kind: str, est: Estimate, seed: int, note: str, t0: float) -> Found:
    """Verified if the interval lies inside the band (one-sided: on the claimed side), refuted if disjoint from it,
    else undecided; the detail states the estimand, the test and its error rate (:func:`reading`)."""
    text = (
        f"measured {est} vs {_claimed(est)} (seed {seed}); {reading(est)}"
        + (f"; {est.detail}" if est.detail else "")
        + (f"; {note}" if note else "")
    )
    seconds = time.perf_counter() - t0
    outcome, measured = _outcome(est), measurement(est)
    if outcome == Status.REFUTED:
        values = {"estimate": est.value, "interval": [est.low, est.high], "predicted": est.predicted}
        residual = abs(est.value - est.predicted)
        cex = counterexample(kind, {}, values, residual, est.tolerance, seed, detail=est.detail, measurement=measured)
        text = "interval excludes the prediction: " + text
        return Found(Evidence(kind, Status.REFUTED, text, seconds, cex, measurement=measured), (est, seed))
    if outcome == Status.VERIFIED:
        return Found(Evidence(kind, Status.VERIFIED, text, seconds, measurement=measured))
    text = "interval too wide to decide: " + text
    return Found(Evidence(kind, Status.UNDECIDED, text, seconds, measurement=measured))


def _band(est: Estimate, predicted: float) -> tuple[float, float]:
    return predicted - est.tolerance, predicted + est.tolerance
