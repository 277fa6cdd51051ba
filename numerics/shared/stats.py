"""Statistics shared by the groups: Student-t confidence intervals of a mean and of a least-squares
slope, and the first time a logged series crosses a threshold.

Both intervals are ``estimate ± t_{dof, (1 + level)/2} · standard error`` (:func:`student_interval`):
the mean of n values has dof = n − 1 and standard error s/√n (:func:`t_interval`); the slope of a
straight-line least-squares fit to n points has dof = n − 2 and the usual standard error of the
slope (:func:`fit_line`, via :func:`scipy.stats.linregress`). :func:`first_crossing` interpolates
linearly between logged times (a memorization time, a blow-up level of the attention).

For positive values spread over orders of magnitude, whose plain mean a t-interval cannot bound,
:func:`lognormal_mean_interval` gives the log-normal mean with its generalized confidence interval.

:func:`spending_levels` makes such intervals valid under repeated looks (a group-sequential design):
the error α is spent over the looks by the Lan–DeMets O'Brien–Fleming-type spending function
α(t) = 2 − 2Φ(z_{1−α/2}/√t) (Lan & DeMets 1983, Biometrika 70(3), eq. 2.2; O'Brien & Fleming 1979),
t the fraction of the runs seen. The boundaries are the exact ones (:func:`spending_boundaries`): under the
canonical joint law of the looks' standardised estimates — jointly normal, corr(Z_j, Z_k) = √(t_j/t_k)
(Jennison & Turnbull 2000, §3.1 and §7.2) — look k's boundary c_k solves P(|Z_1| < c_1, …, |Z_k| < c_k) =
1 − α(t_k), and look k's interval is taken at level 2Φ(c_k) − 1: the intervals are repeated confidence
intervals (Jennison & Turnbull 2000, §9.1), which hold at every look at once with probability 1 − α. For a
t-interval of few runs the joint law is only approximately the canonical one; the coverage tests
(tests/numerics/shared/test_stats.py) measure it at the run counts the claims use. The union bound
Σ_k (α(t_k) − α(t_{k−1})) = α, which this replaced, was valid for any dependence but conservative.

:func:`holm` and :func:`benjamini_hochberg` read a family of p-values together: which hypotheses are
rejected with the family-wise error rate held at α (Holm 1979, Scand. J. Statist. 6(2)) or the false-discovery
rate at α (Benjamini & Hochberg 1995, JRSS B 57(1), valid for independent or positively dependent tests).
"""

from __future__ import annotations

import functools
from types import ModuleType
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike
from scipy import integrate, optimize, special

from icl_verify.errors import InvalidArgument
from icl_verify.numerics.shared.checks import (
    MAX_STEPS,
    confidence_level,
    finite_array,
    finite_result,
    finite_scalar,
    positive_int,
    same_size,
    seed_value,
    time_series,
)
from icl_verify.numerics.shared.fuzz import Fuzz, logged_series


def scipy_stats() -> ModuleType:
    """:mod:`scipy.stats`, imported on first use: it takes ≈ 0.4–1 s to import, which every process that loads
    the built-in claims (a command, a worker, a sweep's worker) would pay at start-up although only the
    checks that compute an interval or a law need it."""
    from scipy import stats

    return stats


class Interval(NamedTuple):
    """A point estimate and the two ends of its confidence interval."""

    estimate: float
    low: float
    high: float


class Line(NamedTuple):
    """A least-squares line y ≈ intercept + slope · x, the slope with its t-interval."""

    slope: Interval
    intercept: float


def student_interval(estimate: float, se: float, dof: int, level: float = 0.95) -> Interval:
    """``estimate ± t · se`` with t the (1 + level)/2 quantile of Student's t with ``dof`` degrees of freedom.

    A zero standard error gives the degenerate interval [estimate, estimate].

    >>> student_interval(1.0, 0.5, 4)  # t_{4, 0.975} = 2.776 (tables)
    Interval(estimate=1.0, low=-0.388..., high=2.388...)
    """
    se = finite_scalar("se", se, nonnegative=True)
    half = float(scipy_stats().t.ppf((1 + confidence_level("level", level)) / 2, positive_int("dof", dof))) * se
    estimate = finite_scalar("estimate", estimate)
    return Interval(estimate, estimate - half, estimate + half)


def t_interval(values: ArrayLike, level: float = 0.95) -> Interval:
    """Mean of iid values with its Student-t interval: x̄ ± t_{n−1} s/√n (s the sample standard deviation).

    >>> t_interval([1.0, 2.0, 3.0])  # s/√n = 1/√3, t_{2, 0.975} = 4.303 (tables)
    Interval(estimate=2.0, low=-0.484..., high=4.484...)
    """
    x = finite_array("values", values, ndim=1)
    if x.size < 2:
        raise InvalidArgument(f"values must hold at least 2 numbers, got {x.size}")
    with np.errstate(all="ignore"):
        mean, sem = finite_result(
            (float(np.mean(x)), float(scipy_stats().sem(x))), "values overflow float64 (entries too large)"
        )
    return student_interval(mean, sem, x.size - 1, level)


def lognormal_mean_interval(
    values: ArrayLike, level: float = 0.95, seed: int = 0, draws: int = 10_000, *, one_sided: bool = False
) -> Interval:
    """Mean exp(μ + σ²/2) of a log-normal law from positive values, with its generalized confidence interval
    (Krishnamoorthy & Mathew 2003, J. Statist. Plann. Inference 115(1)): with ȳ, s² the mean and variance of
    ln x over n values, T = ȳ − Z s/√(U n/(n − 1)) + (n − 1)s²/(2U), Z ~ N(0, 1), U ~ χ²_{n−1}, over ``draws``
    draws seeded by ``seed``; the interval is exp of T's quantiles (1 ∓ level)/2, or with ``one_sided`` [0, exp of
    its quantile ``level``]; the estimate is exp(ȳ + s²/2) (at a level so low that it falls outside, the interval
    is widened to it).

    For heavy right tails, where a t-interval of the plain mean is far too narrow; near-exact coverage when ln x
    is normal, also at small n and large σ (where Cox's normal approximation ȳ + s²/2 ± t·√(s²/n + s⁴/(2(n − 1)))
    is too narrow). When ln x has a lighter upper tail than the normal, the log-normal mean overstates the mean:
    the upper end stays valid (conservative), the lower end does not.

    >>> lognormal_mean_interval([2.0, 2.0, 2.0])  # no spread: the interval collapses to the value
    Interval(estimate=2.0, low=2.0, high=2.0)
    """
    x = finite_array("values", values, ndim=1)
    if x.size < 2:
        raise InvalidArgument(f"values must hold at least 2 numbers, got {x.size}")
    if np.any(x <= 0):
        raise InvalidArgument("values must all be positive (their logarithms are taken)")
    level, draws = confidence_level("level", level), positive_int("draws", draws, maximum=MAX_STEPS)
    logs = np.log(x)
    n, mean, var = x.size, float(np.mean(logs)), float(np.var(logs, ddof=1))
    rng = np.random.default_rng(seed_value("seed", seed))
    u, z = rng.chisquare(n - 1, draws), rng.standard_normal(draws)
    t = mean - z * np.sqrt(var * (n - 1) / (u * n)) + (n - 1) * var / (2 * u)
    low, high = np.quantile(t, [0.0, level] if one_sided else [(1 - level) / 2, (1 + level) / 2])
    centre = mean + var / 2
    with np.errstate(over="ignore"):
        ends = np.exp([centre, min(low, centre), max(high, centre)])
    estimate, low, high = finite_result(tuple(map(float, ends)), "values spread too widely: the mean overflows float64")
    return Interval(estimate, 0.0 if one_sided else low, high)


def fit_line(x: ArrayLike, y: ArrayLike, level: float = 0.95) -> Line:
    """Least-squares line through the points (x_i, y_i) (:func:`scipy.stats.linregress`), with the
    Student-t interval of the slope on n − 2 degrees of freedom.

    For deterministic y the interval measures how far the points are from a straight line; on an
    exact line it collapses to the slope.

    >>> fit_line([0, 1, 2], [1, 3, 5])
    Line(slope=Interval(estimate=2.0, low=2.0, high=2.0), intercept=1.0)
    >>> fit_line([0, 1, 2], [4, 4, 4])
    Line(slope=Interval(estimate=0.0, low=0.0, high=0.0), intercept=4.0)
    """
    xa, ya = finite_array("x", x, ndim=1), finite_array("y", y, ndim=1)
    same_size("y", ya.size, xa.size, "the length of x")
    if xa.size < 3:
        raise InvalidArgument(f"x must hold at least 3 points for a slope interval, got {xa.size}")
    if np.unique(xa).size < 2:
        raise InvalidArgument("x must take at least 2 distinct values")
    if np.ptp(ya) == 0:  # a horizontal line: linregress's correlation, and so its stderr, is 0/0
        return Line(Interval(0.0, 0.0, 0.0), float(ya[0]))
    with np.errstate(all="ignore"):
        fit = scipy_stats().linregress(xa, ya)
    finite_result((fit.slope, fit.stderr, fit.intercept), "x and y overflow float64 in the fit (entries too large)")
    return Line(student_interval(fit.slope, fit.stderr, xa.size - 2, level), float(fit.intercept))


def first_crossing(times: ArrayLike, values: ArrayLike, threshold: float) -> float | None:
    """First time ``values`` reaches ``threshold``, linearly interpolated between logged times; None if never.

    ``values`` may hold ±inf (a quantity that blew up), never NaN."""
    times, values = time_series("times", times, "values", values, infinite=True)
    threshold = finite_scalar("threshold", threshold)
    hit = np.flatnonzero(values >= threshold)
    if hit.size == 0:
        return None
    j = int(hit[0])
    if j == 0:
        return float(times[0])
    v0, v1, t0, t1 = values[j - 1], values[j], times[j - 1], times[j]
    if np.isneginf(v0):  # the interpolation's limit as v0 → −∞ (as v1 → +∞ the formula gives t0)
        return float(t1)
    return float(t0 + (threshold - v0) / (v1 - v0) * (t1 - t0))


def obrien_fleming_spent(fraction: float, alpha: float = 0.05) -> float:
    """α spent by information fraction t ∈ (0, 1]: 2 − 2Φ(z_{1−α/2}/√t) (Lan & DeMets 1983, eq. 2.2).

    α(1) = α, and α(t) is tiny early (at t = ½ and α = 0.05: 2 − 2Φ(2.772) = 0.0056).

    >>> round(obrien_fleming_spent(1.0), 12), round(obrien_fleming_spent(0.5), 4)
    (0.05, 0.0056)
    """
    t = finite_scalar("fraction", fraction)
    if not 0 < t <= 1:
        raise InvalidArgument(f"fraction must lie in (0, 1], got {fraction!r}")
    z = -float(special.ndtri(confidence_level("alpha", alpha) / 2))  # z_{1−α/2}; ndtr/ndtri: Φ and Φ⁻¹
    return float(2 * special.ndtr(-z / np.sqrt(t)))


def _look_fractions(looks: ArrayLike) -> np.ndarray:
    """The information fractions t_k = looks[k]/looks[−1] of increasing positive run counts ``looks``."""
    n = finite_array("looks", looks, ndim=1)
    if n.size == 0 or np.any(n < 1) or np.any(n != np.round(n)) or np.any(np.diff(n) <= 0):
        raise InvalidArgument(f"looks must be increasing positive run counts, got {n.tolist()}")
    return n / n[-1]


MIN_ALPHA = 1e-12
"""The smallest α :func:`spending_boundaries` takes (boundaries of z ≈ 7 and beyond are not error rates one runs at)."""

GRID = 1001
"""Points of the Simpson grid over each look's continuation region in :func:`spending_boundaries`."""


def spending_boundaries(looks: ArrayLike, alpha: float = 0.05) -> list[float]:
    """Two-sided boundaries c_k of the looks at ``looks`` runs (the last the cap) that spend α by
    :func:`obrien_fleming_spent` under the canonical joint law: P(|Z_j| < c_j for j ≤ k) = 1 − α(t_k) exactly.

    c_1 = z_{1−α(t_1)/2}; each later c_k is the root of that equation given c_1 … c_{k−1}. The probability is
    computed by the recursive numerical integration of Armitage, McPherson & Rowe (1969, JRSS A 132(2)) in the
    form of Jennison & Turnbull (2000, §19.2): Z_k√t_k = B(t_k) is a Brownian motion at the looks, so the
    sub-density of B(t_k) on the paths that stayed inside every earlier boundary is the previous one convolved
    with the N(0, t_k − t_{k−1}) increment, integrated by Simpson's rule on :data:`GRID` points. Two looks at half
    and all the runs: 2.772, then 1.979 (the union bound's second boundary was z_{1−(0.05 − 0.0056)/2} = 2.010).

    >>> [round(c, 3) for c in spending_boundaries([4, 8])]
    [2.772, 1.979]
    """
    t = _look_fractions(looks)
    alpha = confidence_level("alpha", alpha)
    if alpha < MIN_ALPHA:
        raise InvalidArgument(f"alpha must be at least {MIN_ALPHA:g} for spending boundaries, got {alpha!r}")
    return list(_boundaries(tuple(float(x) for x in t), alpha))


@functools.lru_cache(maxsize=64)
def _boundaries(fractions: tuple[float, ...], alpha: float) -> tuple[float, ...]:
    """:func:`spending_boundaries` at validated information fractions (cached: a sequential check asks at every run)."""
    t = np.asarray(fractions)
    spent = [obrien_fleming_spent(float(x), alpha) for x in t]
    bounds = [float(-special.ndtri(alpha / 2) / np.sqrt(t[0]))]  # α(t_1)/2 = Φ(−z_{1−α/2}/√t_1), without underflow
    edge = bounds[0] * np.sqrt(t[0])
    grid = np.linspace(-edge, edge, GRID)
    density = np.exp(-(grid**2) / (2 * t[0])) / np.sqrt(2 * np.pi * t[0])  # B(t_1) inside the first boundary
    for k in range(1, t.size):
        sd = np.sqrt(t[k] - t[k - 1])

        args = (np.sqrt(t[k]), sd, grid, density, 1 - spent[k])
        bounds.append(float(optimize.brentq(_stay_gap, 0.1, 40.0, args=args, xtol=1e-12)))
        edge = bounds[-1] * np.sqrt(t[k])
        new = np.linspace(-edge, edge, GRID)
        kernel = np.exp(-((new[:, None] - grid[None, :]) ** 2) / (2 * sd**2)) / (sd * np.sqrt(2 * np.pi))
        grid, density = new, integrate.simpson(kernel * density[None, :], x=grid, axis=1)
    return tuple(bounds)


def _stay_gap(c: float, root_t: float, sd: float, grid: np.ndarray, density: np.ndarray, target: float) -> float:
    """P(inside every boundary so far and |B(t)| < c√t) − target, from the sub-density of the previous look on its
    grid and the N(0, sd²) increment to this one."""
    reach = c * root_t
    inside = special.ndtr((reach - grid) / sd) - special.ndtr((-reach - grid) / sd)
    return float(integrate.simpson(density * inside, x=grid)) - target


def spending_levels(looks: ArrayLike, alpha: float = 0.05) -> list[float]:
    """Confidence level 2Φ(c_k) − 1 of each look's interval, c_k the exact boundaries of
    :func:`spending_boundaries`: the looks' intervals hold all at once with probability 1 − α (canonical joint
    law). A single look keeps the fixed-sample level 1 − α.

    >>> [round(x, 4) for x in spending_levels([4, 8])]
    [0.9944, 0.9522]
    >>> [round(x, 12) for x in spending_levels([6])]  # α(1) = α up to rounding in Φ and Φ⁻¹
    [0.95]
    """
    return [float(1 - 2 * special.ndtr(-c)) for c in spending_boundaries(looks, alpha)]


def _p_values(p_values: ArrayLike) -> np.ndarray:
    """``p_values`` as a non-empty 1-d array of numbers in [0, 1]."""
    p = finite_array("p_values", p_values, ndim=1)
    if p.size == 0 or np.any((p < 0) | (p > 1)):
        raise InvalidArgument(f"p_values must be a non-empty list of numbers in [0, 1], got {p.tolist()}")
    return p


def holm(p_values: ArrayLike, alpha: float = 0.05) -> list[bool]:
    """Which hypotheses Holm's step-down procedure rejects with the family-wise error rate at most ``alpha``
    (any dependence): sorted p_(1) ≤ … ≤ p_(m), reject while p_(i) ≤ α/(m − i + 1), stop at the first that is not.

    >>> holm([0.01, 0.04, 0.03, 0.005])  # 0.005 ≤ 0.05/4, 0.01 ≤ 0.05/3, then 0.03 > 0.05/2
    [True, False, False, True]
    """
    p, alpha = _p_values(p_values), confidence_level("alpha", alpha)
    order = np.argsort(p, kind="stable")
    passes = p[order] <= alpha / (p.size - np.arange(p.size))
    stop = p.size if passes.all() else int(np.argmin(passes))
    reject = np.zeros(p.size, dtype=bool)
    reject[order[:stop]] = True
    return reject.tolist()


def benjamini_hochberg(p_values: ArrayLike, alpha: float = 0.05) -> list[bool]:
    """Which hypotheses the Benjamini–Hochberg step-up procedure rejects with the false-discovery rate at most
    ``alpha`` (independent or positively dependent tests): the largest i with p_(i) ≤ iα/m, and every smaller p.

    >>> benjamini_hochberg([0.01, 0.04, 0.03, 0.005])  # 0.04 ≤ 4·0.05/4: all four
    [True, True, True, True]
    """
    p, alpha = _p_values(p_values), confidence_level("alpha", alpha)
    order = np.argsort(p, kind="stable")
    below = np.flatnonzero(p[order] <= alpha * np.arange(1, p.size + 1) / p.size)
    reject = np.zeros(p.size, dtype=bool)
    if below.size:
        reject[order[: below[-1] + 1]] = True
    return reject.tolist()


# ---------------------------------------------------------------------------------------------
# Examples for the bad-input fuzzer (numerics.shared.fuzz)

FUZZ_EXEMPT = {"scipy_stats": "takes no argument: the lazy import of scipy.stats"}

FUZZ = {
    "student_interval": Fuzz(lambda: {"estimate": 1.0, "se": 0.2, "dof": 4, "level": 0.9}),
    "t_interval": Fuzz(lambda: {"values": np.array([1.0, 2.0, 4.0]), "level": 0.9}),
    "lognormal_mean_interval": Fuzz(
        lambda: {"values": np.array([1.0, 3.0, 0.5, 8.0]), "level": 0.9, "seed": 0, "draws": 100, "one_sided": False},
        fixed=("one_sided",),
    ),
    "fit_line": Fuzz(lambda: {"x": np.arange(5.0), "y": 2 * np.arange(5.0) + 1, "level": 0.9}),
    "obrien_fleming_spent": Fuzz(lambda: {"fraction": 0.5, "alpha": 0.05}),
    "spending_levels": Fuzz(lambda: {"looks": np.array([2.0, 4.0]), "alpha": 0.05}),
    "spending_boundaries": Fuzz(lambda: {"looks": np.array([2.0, 4.0]), "alpha": 0.05}),
    "holm": Fuzz(lambda: {"p_values": np.array([0.01, 0.2]), "alpha": 0.05}),
    "benjamini_hochberg": Fuzz(lambda: {"p_values": np.array([0.01, 0.2]), "alpha": 0.05}),
    "first_crossing": Fuzz(
        lambda: {"times": logged_series()["times"], "values": np.array([0.1, 0.4, 0.8, 1.0]), "threshold": 0.5},
        infinite=("values",),
    ),
}
