"""The slope of the threshold K*(N) against 1/ν: critical context lengths on the ODE driven by each run's measured constants."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from icl_verify.core.caches import cached
from icl_verify.core.checks.measured import Estimate
from icl_verify.core.figure import Figure
from icl_verify.experiments.scaling import (
    ODE_NOTE,
    describe,
    paired_difference,
    slope_claim,
)
from icl_verify.families.scaling.memorization import LOOKS, PRESET, SEQUENTIAL_NOTE, claim_runs, stopping_look
from icl_verify.numerics.kinetics import ode as kinetics
from icl_verify.numerics.scaling import fits as scaling

CRITICAL_SPAN = (0.25, 1.25)
"""N_c is searched in N ∈ I_K(∞)/τ* × this span (c₂ > 0 only delays the blow-up, so N_c ≤ I_K(∞)/τ*)."""
CRITICAL_POINTS = 16
"""N values per refinement pass: two passes resolve ln N_c to ± :data:`CRITICAL_RESOLUTION`."""
CRITICAL_RESOLUTION = float(
    np.log(CRITICAL_SPAN[1] / CRITICAL_SPAN[0]) / (CRITICAL_POINTS - 1) / (CRITICAL_POINTS + 1) / 2
)
"""Half the final bracket of :func:`critical_context` in ln N (≈ 0.0032)."""


def _resolution_bound(k: np.ndarray, nu_c: float) -> float:
    """Largest change of 1/ν_c when every ln N_c moves by at most ± CRITICAL_RESOLUTION (the OLS slope
    of ln N_c on ln K moves by at most h Σ|x − x̄| / Σ(x − x̄)², and d(1/ν) = −dν/ν²)."""
    x = np.log(k) - np.log(k).mean()
    return float(CRITICAL_RESOLUTION * np.abs(x).sum() / (x**2).sum() / nu_c**2)


def _first_miss(blowup: Callable[[np.ndarray], np.ndarray], ns: np.ndarray, where: str) -> int:
    """Index of the first N on the increasing grid ``ns`` whose ODE does not blow up (all below it do)."""
    hit = np.isfinite(blowup(ns))
    last = int(hit.sum())
    if last in (0, hit.size) or not hit[:last].all():
        raise ValueError(f"{where}: no single blow-up threshold on N ∈ [{ns[0]:.4g}, {ns[-1]:.4g}]")
    return last


def critical_context(run: dict[str, Any], *, w0: float = 0.0, beta0: float = 0.0) -> float:
    """N_c of one memorization run: the largest N whose (w, β) ODE, driven by the run's measured
    c₁(t), c₂(t) up to its last logged time, blows up (paper eq. 4; ICL is acquired iff it does).

    With c₂ = 0 the ODE blows up iff I_K(T)/N > τ*(w₀, β₀) (claim ``kinetics-icl-iff-integral-exceeds``),
    i.e. N_c = I_K(∞)/τ*. Two passes of :data:`CRITICAL_POINTS` log-spaced N (the second inside the
    bracket found by the first); returns the geometric midpoint of the final bracket. ValueError if
    the outcome is not "blows up below N_c, not above".
    """
    curves = run["curves"]
    t, c1, c2 = (np.asarray(curves[key], dtype=float) for key in ("t", "c1", "c2"))
    schedules = {"c1": kinetics.table(t, c1, name="c1"), "c2": kinetics.table(t, c2, name="c2")}

    def blowup(ns: np.ndarray) -> np.ndarray:
        return kinetics.blowup_times(w0, beta0, n=ns, **schedules, t_max=float(t[-1]), rtol=1e-6, atol=1e-9)

    where = f"run K = {run['k']}, seed {run['seed']}"
    scale = run["i_inf"] / float(kinetics.tau_star(w0, beta0)[0])
    ns = np.geomspace(CRITICAL_SPAN[0] * scale, CRITICAL_SPAN[1] * scale, CRITICAL_POINTS)
    last = _first_miss(blowup, ns, where)
    fine = np.geomspace(ns[last - 1], ns[last], CRITICAL_POINTS + 2)
    last = _first_miss(blowup, fine, where)
    return float(np.sqrt(fine[last - 1] * fine[last]))


@cached(maxsize=4)
def _solved(seed: int) -> dict[tuple[int, int], float]:
    """N_c of the runs solved so far at a check seed, by (K, run seed) (filled by :func:`_critical_contexts`)."""
    return {}


def _critical_contexts(seed: int, runs: int = PRESET.runs_per_k) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """K, I_K(∞) and N_c of the converged runs among the first ``runs`` per K of the ``claim`` preset at a
    check seed (N_c is solved once per run: a later look solves only the runs it adds)."""
    used = [r for r in claim_runs(seed, runs) if r["converged"] and r["i_inf"] is not None and r["i_inf"] > 0]
    solved = _solved(seed)
    for r in used:
        if (r["k"], r["seed"]) not in solved:
            solved[r["k"], r["seed"]] = critical_context(r)
    k = np.array([r["k"] for r in used], float)
    return k, np.array([r["i_inf"] for r in used]), np.array([solved[r["k"], r["seed"]] for r in used])


def _measure_slope_from_ode(seed: int, runs: int = PRESET.runs_per_k, level: float = 0.95) -> Estimate:
    """d log K*/d log N − 1/ν: K* from the runs' critical context lengths N_c (K* is the inverse
    function of N_c(K), so its log-slope is 1/ν_c for N_c ~ K^{ν_c}), ν from their I_K(∞); paired bootstrap
    at ``level`` over the first ``runs`` runs per K."""
    k, i_inf, n_c = _critical_contexts(seed, runs)
    d = paired_difference(k, i_inf, n_c, transform=np.reciprocal, seed=seed, level=level)
    nu, nu_c = scaling.loglog_fit(k, i_inf).exponent, scaling.loglog_fit(k, n_c).exponent
    ratio = n_c * float(kinetics.tau_star(0.0, 0.0)[0]) / i_inf
    grid = _resolution_bound(k, nu_c)  # the bisection's resolution, added to both ends of the interval
    detail = (
        describe(PRESET, len(claim_runs(seed, runs)) - k.size, runs=runs, level=level)
        + f"; K* slope 1/ν_c = {1 / nu_c:.3f} vs 1/ν = {1 / nu:.3f}; N_c τ*/I_K(∞) from {ratio.min():.3f} to "
        f"{ratio.max():.3f} (ln N_c to ± {CRITICAL_RESOLUTION:.4f}, ± {grid:.4f} in slope, added to the interval); ODE from (w₀, β₀) = (0, 0) driven by each run's c₁(t), c₂(t); "
        "paired bootstrap over runs"
    )
    estimand = "d log K*/d log N − 1/ν on the claim preset's K window, K* from the ODE driven by the runs' c₁, c₂"
    return Estimate(
        d["difference"], d["low"] - grid, d["high"] + grid, 0.0, CONSISTENCY_TOLERANCE, detail, estimand=estimand
    )


CONSISTENCY_TOLERANCE = 0.05
"""Band of the ODE-driven K* claim, an internal-consistency check (not the paper's Fig. 6a): without c₂ its slope
is 1/ν by construction, so what it can detect is a K-dependence of c₂'s delay, a drift of N_c τ*/I_K(∞) over the
claim preset's K window (K = 128–2048, ln 16 = 2.77). A drift by a factor 1 + δ moves ν_c by ln(1 + δ)/2.77 and
1/ν_c by that over ν² ≈ 0.49: ± 0.05 in slope is a drift of ≈ 7 %, the smallest that matters here (below it the
trained-model K* claim, whose band is ± 0.2 — a 29 % drift — could not tell). The former ± 0.2 was that trained
claim's band, 40× the drift observed (seeds 0–31: differences −0.014 to −0.011, half-widths ≤ 0.0063)."""

K_STAR_SLOPE = slope_claim(
    _measure_slope_from_ode,
    "claim",
    measured_on="the ODE driven by each run's measured MLP constants",
    note=ODE_NOTE
    + " On the runs of memorization-exponent (the same run seeds; each claim stops at its own look). "
    + SEQUENTIAL_NOTE,
    looks=LOOKS,
    tolerance=CONSISTENCY_TOLERANCE,
    source="Internal-consistency check of Nguyen & Reddy 2025, §3.6 (K* ~ N^{1/ν}: N_c = I_K(∞)/τ*), on the ODE "
    "driven by the memorization runs' own c₁(t), c₂(t); not the paper's Fig. 6a (that is icl-verify scaling's claim)",
)


def _k_star_data(seed: int = 0) -> dict:
    """Each converged run the claim used at ``seed`` (those of the look at which it stopped; cached: nothing
    is trained or solved for the figure) as a point (N_c, K) on the threshold, and the two slopes."""
    k, i_inf, n_c = _critical_contexts(seed, stopping_look(K_STAR_SLOPE.checks[0], seed)[0])
    nu, nu_c = scaling.loglog_fit(k, i_inf).exponent, scaling.loglog_fit(k, n_c).exponent
    return {"K": k, "N_c": n_c, "slopes": np.array([1 / nu_c, 1 / nu])}


def _draw_k_star(ax, data) -> None:
    slope_c, slope_nu = data["slopes"]
    ln_n, ln_k = np.log(data["N_c"]), np.log(data["K"])
    ns = np.geomspace(data["N_c"].min(), data["N_c"].max(), 50)
    ax.loglog(data["N_c"], data["K"], "o", alpha=0.7, label="runs: K at the critical N_c (ODE, measured c₁, c₂)")
    for slope, style, what in ((slope_c, "-", "fit"), (slope_nu, "--", "1/ν̂ from I_K(∞)")):
        centre = ln_k.mean() - slope * ln_n.mean()
        ax.loglog(ns, np.exp(centre) * ns**slope, style, color="0.3", label=f"{what}: slope {slope:.3f}")
    ax.minorticks_off()
    ax.set_xlabel("context length N")
    ax.set_ylabel("threshold K*")
    ax.legend()


K_STAR_VS_N = Figure(
    name="k-star-vs-n",
    caption="The ICL threshold K* against the context length N (claim k-star-slope-is-inverse-nu-claim, "
    "seed 0): each memorization run the claim used (those of the look at which it stopped) gives the critical N_c at which the (w, β) ODE "
    "driven by its measured c₁(t), c₂(t) stops blowing up, i.e. a point (N_c, K) on K*(N); the fitted "
    "log–log slope against 1/ν̂ from the same runs' I_K(∞) (lines through the points' centre).",
    data=_k_star_data,
    draw=_draw_k_star,
)
