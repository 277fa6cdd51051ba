"""Scaling-law fits with honest intervals: power laws y ≈ a·x^ν and the sigmoid behind K*.

Built for Nguyen & Reddy's memorization law I_K(∞) ~ K^ν (ICLR 2025, §3.6)
but generic: ``x`` is any positive control variable, ``y`` a positive measured quantity, one
value per *run* (a training run with its own seed).

* :func:`loglog_fit` — least squares on log y = log a + ν log x (optionally weighted);
  :func:`nonlinear_fit` — least squares on y − a·x^ν in linear space (started from the log-log fit).
* :func:`bootstrap_exponents` — resamples whole runs: within each x value (stratified; the
  default), or whole groups of runs (``groups``, e.g. one seed's sweep over K). For the
  stratified bootstrap the resampled log-deviations are rescaled by √(n_s/(n_s − 1)) in a stratum
  of n_s runs, which makes the bootstrap variance of a stratum mean unbiased (the "rescaled
  bootstrap"); without it a 95 % percentile interval from 2–4 seeds per K covers far less than
  95 %. The percentile interval is then widened about the estimate by t_{dof}/z
  (:func:`small_sample_factor`; dof = the effective degrees of freedom of the stratified variance,
  :func:`stratified_dof`, or groups − 1), the Student correction
  for a spread estimated from few runs. The stated coverage (≈ the nominal level for log-normal
  scatter about an exact power law, ≥ 2 runs per x) is checked by the tests on synthetic data with a
  known exponent.
* :func:`residual_diagnostics` — R², rms and max log-residual, per-x mean residuals, and the
  curvature of log y in log x (a quadratic term with its two-sided p-value): a power law has none.
* :func:`holdout_error` — fit without the largest x values, predict them, report the log error.
* :func:`fit_sigmoid` — accuracy vs log₁₀ K, as the authors locate K*;
  :func:`fit_threshold` — K*(N) at several N and the slope of log K* vs log N, bootstrapped, from
  final accuracies such as the reduced-model runs of ``numerics.kinetics.models.threshold_job``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal

import numpy as np
from scipy import optimize
from scipy.special import expit

from icl_verify.errors import IclVerifyError, InvalidArgument
from icl_verify.numerics.shared.checks import (
    confidence_level,
    finite_array,
    finite_result,
    nonnegative_int,
    positive_int,
)
from icl_verify.numerics.shared.fuzz import Fuzz
from icl_verify.numerics.shared.stats import scipy_stats

Method = Literal["loglog", "nonlinear"]


@dataclass(frozen=True)
class PowerLaw:
    """y = prefactor · x^exponent."""

    prefactor: float
    exponent: float

    def __call__(self, x: object) -> np.ndarray:
        return self.prefactor * np.asarray(x, dtype=np.float64) ** self.exponent


_BEYOND = "x and y give a power law beyond float64 (y spans too many decades)"


def _positive_pairs(x: object, y: object) -> tuple[np.ndarray, np.ndarray]:
    xa, ya = finite_array("x", x, ndim=1), finite_array("y", y, ndim=1)
    if xa.shape != ya.shape:
        raise InvalidArgument(f"x and y must have the same length, got {xa.size} and {ya.size}")
    if np.any(xa <= 0) or np.any(ya <= 0):
        raise InvalidArgument("x and y must be positive for a power-law fit")
    if np.unique(xa).size < 2:
        raise InvalidArgument("x must take at least 2 distinct values")
    return xa, ya


# ---------------------------------------------------------------------------------------------
# Point fits


def _weighted_ols(u: np.ndarray, v: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Slope and intercept of v on u for each row of weights ``w (R, n)``: vectorised weighted OLS."""
    sw = w.sum(axis=-1)
    mu, mv = (w @ u) / sw, (w * v).sum(axis=-1) / sw
    du = u - mu[..., None]
    slope = (w * du * (v - mv[..., None])).sum(axis=-1) / (w * du**2).sum(axis=-1)
    return slope, mv - slope * mu


def loglog_fit(x: object, y: object) -> PowerLaw:
    """Least-squares line through (log x, log y): ν = slope, a = e^intercept.

    >>> round(loglog_fit([1, 2, 4], [3, 6, 12]).exponent, 12)
    1.0
    """
    xa, ya = _positive_pairs(x, y)
    slope, intercept = _weighted_ols(np.log(xa), np.log(ya), np.ones_like(xa))
    with np.errstate(over="ignore"):
        return PowerLaw(float(finite_result(np.exp(intercept), _BEYOND)), float(slope))


def nonlinear_fit(x: object, y: object) -> PowerLaw:
    """Least squares on the residuals y − a·x^ν in linear space (parameters log a and ν).

    Started from :func:`loglog_fit`; it weights large y more than the log-log fit does, so the
    two differ when the data are not an exact power law — a diagnostic in itself.
    """
    xa, ya = _positive_pairs(x, y)
    start = loglog_fit(xa, ya)
    lx, scale = np.log(xa), float(np.max(ya))

    def residuals(p: np.ndarray) -> np.ndarray:
        return (np.exp(p[0] + p[1] * lx) - ya) / scale

    sol = optimize.least_squares(residuals, [np.log(start.prefactor), start.exponent], method="lm", xtol=1e-12)
    return PowerLaw(float(np.exp(sol.x[0])), float(sol.x[1]))


def fit(x: object, y: object, method: Method = "loglog") -> PowerLaw:
    """Dispatch to :func:`loglog_fit` or :func:`nonlinear_fit`."""
    if method == "loglog":
        return loglog_fit(x, y)
    if method == "nonlinear":
        return nonlinear_fit(x, y)
    raise InvalidArgument(f"method must be 'loglog' or 'nonlinear', got {method!r}")


# ---------------------------------------------------------------------------------------------
# Bootstrap over runs


def _strata(x: np.ndarray) -> list[np.ndarray]:
    strata = [np.flatnonzero(x == v) for v in np.unique(x)]
    if min(len(s) for s in strata) < 2:
        raise InvalidArgument(
            "a stratified bootstrap needs at least 2 runs at every x; pass groups to resample whole groups"
        )
    return strata


def _stratified_resample(
    x: np.ndarray, ly: np.ndarray, n_boot: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Resampled log y ``(n_boot, n)`` with rescaled deviations, and the matching x (unchanged order)."""
    out = np.empty((n_boot, ly.size))
    for idx in _strata(x):
        n_s = idx.size
        draw = ly[idx][rng.integers(0, n_s, (n_boot, n_s))]
        mean = ly[idx].mean()
        out[:, idx] = mean + np.sqrt(n_s / (n_s - 1)) * (draw - mean)
    return np.broadcast_to(x, out.shape), out


def _group_weights(groups: np.ndarray, n_boot: int, rng: np.random.Generator) -> np.ndarray:
    """Run weights ``(n_boot, n)``: how often each run's group was drawn when resampling groups."""
    labels, inverse = np.unique(groups, return_inverse=True)
    if labels.size < 2:
        raise InvalidArgument("groups must contain at least 2 distinct groups")
    counts = rng.multinomial(labels.size, np.full(labels.size, 1.0 / labels.size), size=n_boot)
    return counts[:, inverse].astype(np.float64)


def bootstrap_exponents(
    x: object,
    y: object,
    *,
    groups: object | None = None,
    method: Method = "loglog",
    n_boot: int = 2000,
    rng: np.random.Generator,
) -> tuple[np.ndarray, np.ndarray]:
    """Bootstrap replicates of (exponent, prefactor), resampling whole runs.

    ``groups=None``: runs are resampled within each x value (rescaled, see module docstring);
    otherwise whole groups are resampled (cluster bootstrap). Replicates where resampling left a
    single distinct x (possible with few groups) are dropped.
    """
    xa, ya = _positive_pairs(x, y)
    n_boot = positive_int("n_boot", n_boot)
    if not isinstance(rng, np.random.Generator):
        raise InvalidArgument(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    lx = np.log(xa)
    if groups is None:
        _, ly = _stratified_resample(xa, np.log(ya), n_boot, rng)
        w = np.ones_like(ly)
    else:
        g = np.asarray(groups)
        if g.shape != xa.shape:
            raise InvalidArgument(f"groups must have one entry per run ({xa.size}), got shape {g.shape}")
        w = _group_weights(g, n_boot, rng)
        ly = np.broadcast_to(np.log(ya), w.shape)
    ok = np.array([np.unique(lx[row > 0]).size >= 2 for row in w])
    w, ly = w[ok], ly[ok]
    if method == "loglog":
        slope, intercept = _weighted_ols(lx, ly, w)
        with np.errstate(over="ignore"):
            return slope, finite_result(np.exp(intercept), _BEYOND)
    fits = [fit(np.repeat(xa, row.astype(int)), np.repeat(np.exp(v), row.astype(int)), method) for row, v in zip(w, ly)]
    return np.array([f.exponent for f in fits]), np.array([f.prefactor for f in fits])


# ---------------------------------------------------------------------------------------------
# Diagnostics


@dataclass(frozen=True)
class Diagnostics:
    """Residuals of log y about a fitted power law, and a test for curvature in log–log."""

    r2: float
    rms_log: float
    max_abs_log: float
    mean_residual_by_x: dict[float, float]
    curvature: float
    curvature_p: float


def residual_diagnostics(x: object, y: object, law: PowerLaw) -> Diagnostics:
    """R², rms/max |log residual|, mean residual per x, and the quadratic coefficient of log y in log x.

    ``curvature`` is γ in log y = c₀ + c₁ u + γ u² (u = log x centred) and ``curvature_p`` its
    two-sided t-test p-value; a small p flags a bend that a single exponent cannot describe.
    """
    xa, ya = _positive_pairs(x, y)
    lx, ly = np.log(xa), np.log(ya)
    r = ly - np.log(law(xa))
    ss_tot = float(np.sum((ly - ly.mean()) ** 2))
    by_x = {float(v): float(r[xa == v].mean()) for v in np.unique(xa)}
    gamma, p = _curvature(lx, ly)
    r2 = 1.0 - float(np.sum(r**2)) / ss_tot if ss_tot > 0 else 1.0
    return Diagnostics(r2, float(np.sqrt(np.mean(r**2))), float(np.max(np.abs(r))), by_x, gamma, p)


def _curvature(lx: np.ndarray, ly: np.ndarray) -> tuple[float, float]:
    if np.unique(lx).size < 3 or lx.size < 4:
        return float("nan"), float("nan")
    u = lx - lx.mean()
    design = np.column_stack([np.ones_like(u), u, u**2])
    coef, *_ = np.linalg.lstsq(design, ly, rcond=None)
    dof = lx.size - 3
    sigma2 = float(np.sum((ly - design @ coef) ** 2)) / dof
    se = np.sqrt(sigma2 * np.linalg.inv(design.T @ design)[2, 2])
    if se == 0:
        return float(coef[2]), 0.0 if coef[2] != 0 else 1.0
    return float(coef[2]), float(2 * scipy_stats().t.sf(abs(coef[2] / se), dof))


@dataclass(frozen=True)
class Holdout:
    """Extrapolation to held-out x values from a fit on the others."""

    heldout_x: list[float]
    predicted: list[float]
    observed: list[float]
    log_error: float


def holdout_error(x: object, y: object, *, n_holdout: int = 1, method: Method = "loglog") -> Holdout:
    """Fit on all but the ``n_holdout`` largest distinct x, predict there (geometric mean of the runs).

    ``log_error`` = max |log predicted − mean log observed| over the held-out x.
    """
    xa, ya = _positive_pairs(x, y)
    levels = np.unique(xa)
    n_holdout = positive_int("n_holdout", n_holdout)
    if levels.size - n_holdout < 2:
        raise InvalidArgument(f"n_holdout must leave at least 2 distinct x to fit, got {n_holdout} of {levels.size}")
    held = levels[-n_holdout:]
    train = ~np.isin(xa, held)
    law = fit(xa[train], ya[train], method)
    observed = np.array([np.exp(np.mean(np.log(ya[xa == v]))) for v in held])
    with np.errstate(over="ignore"):
        predicted = finite_result(law(held), _BEYOND)
    err = float(np.max(np.abs(np.log(predicted) - np.log(observed))))
    return Holdout(held.tolist(), predicted.tolist(), observed.tolist(), err)


# ---------------------------------------------------------------------------------------------
# The whole fit


def small_sample_factor(level: float, dof: int) -> float:
    """t_{dof}/z at ``level``: widens a percentile interval whose spread was estimated on ``dof`` degrees of freedom.

    The bootstrap spread estimates the standard error; with few runs that estimate is itself
    noisy, and (for Gaussian log-residuals) the exact interval uses Student's t, not the normal.
    ``dof`` = 0 (one run per x) is treated as 1, the widest finite correction.
    """
    level, dof = confidence_level("level", level), max(nonnegative_int("dof", dof), 1)
    stats = scipy_stats()
    if level < 1e-8:  # both quantiles → 0: the ratio tends to φ(0)/f_t(0) (l'Hôpital)
        return float(stats.norm.pdf(0.0) / stats.t.pdf(0.0, dof))
    q = (1 + level) / 2
    return float(stats.t.ppf(q, dof) / stats.norm.ppf(q))


def _residual_dof(x: np.ndarray, y: np.ndarray, groups: object | None) -> int:
    """Degrees of freedom behind the bootstrap spread of the exponent: groups − 1 (clusters), else
    :func:`stratified_dof` with the per-stratum variances of log y."""
    if groups is not None:
        return int(np.unique(np.asarray(groups)).size - 1)
    return stratified_dof(x, y)


def stratified_dof(x: object, y: object | None = None) -> int:
    """Welch–Satterthwaite effective degrees of freedom (rounded down) of the stratified bootstrap's
    variance of a log-log slope over the runs at ``x`` (one entry per run).

    The stratified bootstrap's variance of the log-log slope is Σ_k a_k s_k² / S_xx² with a_k = n_k (ln x_k − m)²
    (m the mean of ln x over runs, s_k² the variance of the n_k runs' log y at x_k, on n_k − 1 degrees of
    freedom). With one scatter σ² at every x its degrees of freedom are (Σ a_k)² / Σ a_k²/(n_k − 1)
    (Satterthwaite 1946): the strata at the ends of the x range carry the slope, so it is fewer than
    runs − distinct x (≈ 8.8, not 15, for 4 runs at each of 5 doublings; 14.7, not 25, for 6). Counting
    runs − distinct x made the intervals too narrow: at 98.4 % with 4 runs at each of 5 doublings and
    log-normal scatter they missed the true exponent in 3.1 % of 1500 synthetic sweeps instead of 1.6 %,
    with these degrees of freedom in 2.1 % (tests/numerics/scaling/test_fits.py checks the coverage). A difference of two slopes on the same runs (a paired
    bootstrap) has the same weights and so the same degrees of freedom.

    With ``y`` (the runs' values, positive) the scatter is not assumed equal: the weights are a_k s_k² with each
    stratum's own variance s_k² of log y (Welch–Satterthwaite proper). When the scatter changes with x — it
    shrinks from 0.25 to 0.04 over the memorization claims' K range in the referee's re-simulation — the strata
    that carry the variance are few and the degrees of freedom drop towards theirs (n_k − 1), where the
    equal-scatter count kept 8 and the interval missed more often than its level.
    """
    x = finite_array("x", x, ndim=1)
    if x.size == 0 or np.any(x <= 0):
        raise InvalidArgument("x must be non-empty and positive (its logarithm is fitted)")
    xs, index, n = np.unique(x, return_inverse=True, return_counts=True)
    a = n * (np.log(xs) - np.log(x).mean()) ** 2
    if y is not None:
        ly = np.log(_positive_pairs(x, y)[1])
        a = a * np.array([np.var(ly[index == k], ddof=1) if n[k] > 1 else 0.0 for k in range(xs.size)])
    a, n = a[n > 1], n[n > 1]
    if a.sum() == 0:  # no stratum with two runs, or none away from the centre: no spread estimated
        return 0
    return int(np.floor(a.sum() ** 2 / np.sum(a**2 / (n - 1)) + 1e-9))  # + 1e-9: an integer ratio stays itself


@dataclass(frozen=True)
class PowerLawFit:
    """A power-law fit with a bootstrap interval for the exponent and its diagnostics."""

    method: str
    exponent: float
    prefactor: float
    low: float
    high: float
    level: float
    n_boot: int
    n_runs: int
    resampling: str
    diagnostics: Diagnostics
    holdout: Holdout | None
    seed: int | None

    @property
    def law(self) -> PowerLaw:
        return PowerLaw(self.prefactor, self.exponent)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["diagnostics"]["mean_residual_by_x"] = {str(k): v for k, v in self.diagnostics.mean_residual_by_x.items()}
        return d


def fit_power_law(
    x: object,
    y: object,
    *,
    groups: object | None = None,
    method: Method = "loglog",
    n_boot: int = 2000,
    level: float = 0.95,
    rng: np.random.Generator,
    seed: int | None = None,
    n_holdout: int = 1,
) -> PowerLawFit:
    """Fit y ≈ a·x^ν, with a percentile bootstrap interval (resampling runs) at ``level``.

    ``seed`` is only recorded (the randomness is ``rng``). ``n_holdout=0`` skips the held-out check.
    """
    level = confidence_level("level", level)
    xa, ya = _positive_pairs(x, y)
    law = fit(xa, ya, method)
    nus, _ = bootstrap_exponents(xa, ya, groups=groups, method=method, n_boot=n_boot, rng=rng)
    q_low, q_high = np.quantile(nus, [(1 - level) / 2, (1 + level) / 2])
    widen = small_sample_factor(level, _residual_dof(xa, ya, groups))
    low = min(law.exponent - widen * (law.exponent - float(q_low)), law.exponent)
    high = max(law.exponent + widen * (float(q_high) - law.exponent), law.exponent)
    hold = None if n_holdout == 0 else holdout_error(xa, ya, n_holdout=n_holdout, method=method)
    resampling = "runs within each x (rescaled)" if groups is None else "whole groups of runs"
    return PowerLawFit(
        method, law.exponent, law.prefactor, low, high, level, nus.size, xa.size, resampling,
        residual_diagnostics(xa, ya, law), hold, seed,
    )  # fmt: skip


# ---------------------------------------------------------------------------------------------
# Sigmoid (the K* threshold)


@dataclass(frozen=True)
class Sigmoid:
    """acc(u) = lo + (hi − lo) σ((u − center)/width); ``center_se`` from the fit's covariance."""

    center: float
    width: float
    lo: float
    hi: float
    center_se: float

    def __call__(self, u: object) -> np.ndarray:
        u = np.asarray(u, dtype=np.float64)
        return self.lo + (self.hi - self.lo) * expit((u - self.center) / self.width)


def fit_sigmoid(u: object, acc: object, *, lo: float | None = 0.5, hi: float | None = 1.0) -> Sigmoid:
    """Least-squares sigmoid of accuracy vs u (the authors use u = log₁₀ K; K* = 10^center).

    ``lo``/``hi`` fix the floor (chance, ½) and ceiling; ``None`` fits them too. The centre is
    searched within one unit of the data's range and the width in [0.005, range], first on a grid
    (a free floor/ceiling solved linearly at each grid point), then polished by bounded least
    squares: a transition sharper than the K grid gives a narrow sigmoid between the two points
    that bracket it, never a failed fit. ``center_se`` is the usual √(σ² (JᵀJ)⁻¹) at the optimum.

    Raises :class:`NoTransitionError` when the data show no transition (:func:`require_transition`):
    a flat accuracy has no centre, and any number returned for it would be an artefact of the bounds.
    """
    ua, aa = finite_array("u", u, ndim=1), finite_array("acc", acc, ndim=1)
    if ua.shape != aa.shape or np.unique(ua).size < 3:
        raise InvalidArgument("u and acc must have the same length and u at least 3 distinct values")
    sig = require_transition(_fit_sigmoid(ua, aa, lo, hi), ua, aa)
    finite_result((sig.center, sig.width, sig.center_se), "u and acc give a non-finite sigmoid fit (u beyond float64)")
    return sig


class NoTransitionError(IclVerifyError, ValueError):
    """The accuracy has no sigmoid transition inside the data (see :func:`require_transition`)."""


def require_transition(sig: Sigmoid, u: np.ndarray, acc: np.ndarray) -> Sigmoid:
    """``sig`` if the data bracket a transition, else :class:`NoTransitionError`.

    A transition needs accuracies on both sides of the sigmoid's midpoint (lo + hi)/2 and the fitted
    centre inside [min u, max u]; otherwise the centre only reflects the search bounds (one unit
    beyond the data) and its ``center_se`` from the Jacobian is meaningless (often exactly 0).
    """
    mid = (sig.lo + sig.hi) / 2
    if not (acc.min() < mid < acc.max()):
        raise NoTransitionError(
            f"acc shows no transition: it never crosses the midpoint {mid:.3g} of the sigmoid "
            f"(acc in [{acc.min():.3g}, {acc.max():.3g}])"
        )
    if not u.min() <= sig.center <= u.max():
        raise NoTransitionError(
            f"acc shows no transition inside the data: the fitted centre {sig.center:.3g} lies outside "
            f"u in [{u.min():.3g}, {u.max():.3g}]"
        )
    return sig


def _fit_sigmoid(ua: np.ndarray, aa: np.ndarray, lo: float | None, hi: float | None) -> Sigmoid:
    """The least-squares sigmoid of :func:`fit_sigmoid` on validated data, without the transition check."""
    span = float(np.ptp(ua))
    bounds = ([float(ua.min()) - 1, np.log(0.005)], [float(ua.max()) + 1, np.log(span)])
    start = _sigmoid_grid(ua, aa, lo, hi, bounds)

    def residuals(p: np.ndarray) -> np.ndarray:
        s = expit((ua - p[0]) / np.exp(p[1]))
        low, high = _floor_ceiling(s[:, None], aa, lo, hi)
        return low[0] + (high[0] - low[0]) * s - aa

    sol = optimize.least_squares(residuals, start, bounds=bounds, method="trf", max_nfev=100)
    s = expit((ua - sol.x[0]) / np.exp(sol.x[1]))
    low, high = _floor_ceiling(s[:, None], aa, lo, hi)
    dof = ua.size - 2 - (lo is None) - (hi is None)
    jtj = sol.jac.T @ sol.jac
    sigma2 = float(np.sum(sol.fun**2)) / max(dof, 1)
    se = float(np.sqrt(sigma2 * np.linalg.pinv(jtj)[0, 0])) if np.all(np.isfinite(jtj)) else float("inf")
    return Sigmoid(float(sol.x[0]), float(np.exp(sol.x[1])), float(low[0]), float(high[0]), se)


def _floor_ceiling(s: np.ndarray, acc: np.ndarray, lo: float | None, hi: float | None) -> tuple[np.ndarray, np.ndarray]:
    """Floor and ceiling for sigmoid values ``s (n, G)``: fixed, or least squares (linear in them), per column."""
    g = s.shape[1]
    if lo is not None and hi is not None:
        return np.full(g, lo), np.full(g, hi)
    if lo is not None:  # acc − lo = (hi − lo) s
        amp = ((acc[:, None] - lo) * s).sum(0) / np.maximum((s * s).sum(0), 1e-300)
        return np.full(g, lo), np.clip(lo + amp, 0, 1)
    if hi is not None:  # acc − hi = (lo − hi)(1 − s)
        r = 1 - s
        amp = ((acc[:, None] - hi) * r).sum(0) / np.maximum((r * r).sum(0), 1e-300)
        return np.clip(hi + amp, 0, 1), np.full(g, hi)
    a, b = 1 - s, s  # acc = lo·(1 − s) + hi·s: 2×2 normal equations per column
    aa, ab, bb = (a * a).sum(0), (a * b).sum(0), (b * b).sum(0)
    ya, yb = (acc[:, None] * a).sum(0), (acc[:, None] * b).sum(0)
    det = np.where(np.abs(aa * bb - ab**2) > 1e-12, aa * bb - ab**2, np.inf)
    return np.clip((bb * ya - ab * yb) / det, 0, 1), np.clip((aa * yb - ab * ya) / det, 0, 1)


def _sigmoid_grid(u: np.ndarray, acc: np.ndarray, lo: float | None, hi: float | None, bounds: tuple) -> np.ndarray:
    """The (centre, log width) of least squared error on a 120 × 24 grid inside ``bounds``."""
    centers = np.linspace(bounds[0][0], bounds[1][0], 120)
    log_widths = np.linspace(bounds[0][1], bounds[1][1], 24)
    c, w = (m.ravel() for m in np.meshgrid(centers, log_widths))
    s = expit((u[:, None] - c[None, :]) / np.exp(w)[None, :])
    low, high = _floor_ceiling(s, acc, lo, hi)
    sse = ((low + (high - low) * s - acc[:, None]) ** 2).sum(0)
    best = int(np.argmin(sse))
    return np.array([c[best], w[best]])


# ---------------------------------------------------------------------------------------------
# The threshold K*(N) and its slope in log–log


@dataclass(frozen=True)
class ThresholdFit:
    """K*(N) from a sigmoid per N, and the slope of log K* vs log N, with bootstrap intervals."""

    n: list[int]
    k_star: list[float]
    k_star_low: list[float]
    k_star_high: list[float]
    width: list[float]
    slope: float
    low: float
    high: float
    level: float
    n_boot: int
    slopes: np.ndarray

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d.pop("slopes")
        return d


def _point_fits(n: np.ndarray, u: np.ndarray, acc: np.ndarray, levels: np.ndarray) -> list[Sigmoid]:
    """The sigmoid at each N, each required to show a transition (naming the N that does not)."""
    out = []
    for v in levels:
        try:
            out.append(fit_sigmoid(u[n == v], acc[n == v]))
        except NoTransitionError as exc:
            raise NoTransitionError(f"at n = {v:g}: {exc} (u = log10 k)") from None
    return out


def _centers(n: np.ndarray, u: np.ndarray, acc: np.ndarray, levels: np.ndarray) -> np.ndarray:
    """Bootstrap replicates' centres (no transition check: a replicate may drop the points that bracket it)."""
    return np.array([_fit_sigmoid(u[n == v], acc[n == v], 0.5, 1.0).center for v in levels])


def fit_threshold(
    n: object, k: object, acc: object, *, rng: np.random.Generator, n_boot: int = 300, level: float = 0.95
) -> ThresholdFit:
    """K*(N) = 10^centre of the sigmoid of accuracy vs log₁₀ K at each N, and d log K*/d log N.

    The interval resamples whole runs (K, accuracy) within each N (pairs bootstrap) and refits
    every sigmoid; the slope of each replicate is the least-squares slope of ln K* on ln N.
    Raises :class:`NoTransitionError` naming the N whose accuracy shows no transition (:func:`fit_sigmoid`).
    """
    na, ka, aa = (finite_array(name, v, ndim=1) for name, v in (("n", n), ("k", k), ("acc", acc)))
    if not na.shape == ka.shape == aa.shape:
        raise InvalidArgument("n, k and acc must have the same length")
    levels = np.unique(na)
    if levels.size < 2:
        raise InvalidArgument("n must take at least 2 distinct values for a slope")
    if np.any(ka <= 0) or np.any(na <= 0):
        raise InvalidArgument("n and k must be positive (their logarithms are fitted)")
    u = np.log10(ka)
    point = _point_fits(na, u, aa, levels)
    centers = np.array([s.center for s in point])
    reps = []
    groups = [np.flatnonzero(na == v) for v in levels]
    for _ in range(positive_int("n_boot", n_boot)):
        idx = np.concatenate([g[rng.integers(0, g.size, g.size)] for g in groups])
        if all(np.unique(u[idx][na[idx] == v]).size >= 3 for v in levels):
            reps.append(_centers(na[idx], u[idx], aa[idx], levels))
    if not reps:
        raise InvalidArgument("no bootstrap replicate kept 3 distinct K at every N: use more K values per N")
    boot = np.array(reps)
    ln_n, ln_k = np.log(levels), centers * np.log(10)
    slope = float(_weighted_ols(ln_n, ln_k, np.ones_like(ln_k))[0])
    slopes, _ = _weighted_ols(ln_n, boot * np.log(10), np.ones_like(boot))
    q = [(1 - level) / 2, (1 + level) / 2]
    k_low, k_high = 10 ** np.quantile(boot, q, axis=0)
    s_low, s_high = np.quantile(slopes, q)
    widths = [s.width for s in point]
    return ThresholdFit(
        levels.astype(int).tolist(), (10**centers).tolist(), np.minimum(k_low, 10**centers).tolist(),
        np.maximum(k_high, 10**centers).tolist(), widths, slope, min(float(s_low), slope), max(float(s_high), slope),
        level, len(reps), slopes,
    )  # fmt: skip


# ---------------------------------------------------------------------------------------------
# Examples for the bad-input fuzzer (numerics.shared.fuzz)


def _example_power(seed: int = 5) -> dict[str, np.ndarray]:
    x = np.repeat([10.0, 20.0, 40.0, 80.0], 3)
    return {"x": x, "y": 2 * x**0.7 * np.exp(0.05 * np.random.default_rng(seed).standard_normal(x.size))}


def _example_sigmoid() -> dict[str, np.ndarray]:
    u = np.linspace(0.0, 2.0, 9)
    return {"u": u, "acc": 0.5 + 0.5 / (1 + np.exp(-(u - 1.0) / 0.1))}


def _example_threshold() -> dict[str, np.ndarray]:
    n = np.repeat([4.0, 8.0], 9)
    k = np.tile(np.geomspace(4, 400, 9), 2)
    centre = np.log10(np.where(n == 4, 20.0, 60.0))
    return {"n": n, "k": k, "acc": 0.5 + 0.5 / (1 + np.exp(-(np.log10(k) - centre) / 0.1))}


FUZZ = {
    "loglog_fit": Fuzz(_example_power),
    "nonlinear_fit": Fuzz(_example_power),
    "fit": Fuzz(_example_power),
    "bootstrap_exponents": Fuzz(
        lambda: _example_power() | {"n_boot": 20, "rng": np.random.default_rng(0)}, fixed=("rng",)
    ),
    "residual_diagnostics": Fuzz(lambda: _example_power() | {"law": PowerLaw(2.0, 0.7)}, fixed=("law",)),
    "holdout_error": Fuzz(lambda: _example_power() | {"n_holdout": 1}),
    "small_sample_factor": Fuzz(lambda: {"level": 0.95, "dof": 3}),
    "stratified_dof": Fuzz(lambda: {"x": np.repeat([10.0, 20.0, 40.0], 3), "y": np.arange(1.0, 10.0)}),
    "fit_power_law": Fuzz(
        lambda: _example_power() | {"n_boot": 20, "rng": np.random.default_rng(0), "level": 0.9}, fixed=("rng",)
    ),
    "fit_sigmoid": Fuzz(_example_sigmoid),
    "fit_threshold": Fuzz(
        lambda: _example_threshold() | {"rng": np.random.default_rng(0), "n_boot": 5}, fixed=("rng",)
    ),
}
FUZZ_EXEMPT = {"require_transition": "checks a Sigmoid fitted by fit_sigmoid (tested with it)"}
