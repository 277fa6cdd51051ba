"""The memorization exponent ν of I_K(∞) ~ K^ν, measured on the ``claim`` preset's runs."""

from __future__ import annotations

from typing import Any

import numpy as np

from icl_verify.core.caches import cached
from icl_verify.core.checks.measured import Estimate, Measured
from icl_verify.core.claims import Claim
from icl_verify.core.figure import Figure
from icl_verify.experiments.scaling import (
    NU_PAPER,
    NU_TOLERANCE,
    PAPER,
    PRESETS,
    describe,
    exponent_claim,
    fit_exponent,
    paired_exponent_difference,
    run_memorization,
    usable,
)


@cached(maxsize=4)
def claim_runs(seed: int) -> tuple[dict[str, Any], ...]:
    """The ``claim`` preset's runs for a check seed (two local worker processes, one BLAS thread each)."""
    return tuple(run_memorization(PRESETS["claim"], seed=seed))


def _measure_nu(seed: int) -> Estimate:
    fit, dropped = fit_exponent(claim_runs(seed), "i_inf", seed=seed)
    detail = describe(PRESETS["claim"], dropped) + f"; curvature p = {fit.diagnostics.curvature_p:.2g}"
    return Estimate(fit.exponent, fit.low, fit.high, NU_PAPER, NU_TOLERANCE, detail)


MEMORIZATION_EXPONENT = exponent_claim(_measure_nu, "claim")


def _measure_definitions(seed: int) -> Estimate:
    d = paired_exponent_difference(claim_runs(seed), seed=seed)
    detail = describe(PRESETS["claim"], 0) + "; paired bootstrap of ν(t_IWL) − ν(I_K(∞))"
    return Estimate(d["difference"], d["low"], d["high"], 0.0, NU_TOLERANCE, detail)


MEMORIZATION_TIME_DEFINITIONS = Claim(
    name="memorization-time-definitions-agree",
    source=f"{PAPER}, §3.6 (I_K(∞)) vs the thresholded time t_IWL (first IWL accuracy ≥ 0.95)",
    builds_on=("memorization-exponent",),
    statement=r"t_{IWL}(K) \sim K^{\nu'},\quad \nu' - \nu = 0 \pm 0.1",
    checks=(Measured(_measure_definitions),),
    note="Both 'memorization times' scale alike, so the K* argument does not hinge on the definition.",
)


def _memorization_data(seed: int = 0) -> dict:
    """The converged runs of the ``claim`` preset (cached: the same runs the claims use) and the fit."""
    runs = claim_runs(seed)
    k, i_inf, _ = usable(runs, "i_inf")
    fit, _ = fit_exponent(runs, seed=seed)
    return {"K": k, "I_inf": i_inf, "fit": np.array([fit.prefactor, fit.exponent, fit.low, fit.high])}


def _draw_memorization(ax, data) -> None:
    a, nu, low, high = data["fit"]
    ks = np.geomspace(data["K"].min(), data["K"].max(), 50)
    ax.loglog(data["K"], data["I_inf"], "o", alpha=0.7, label="runs (I_K(∞) = ∫c₁ dt)")
    ax.loglog(ks, a * ks**nu, "-", color="0.3", label=f"fit: ν = {nu:.3f} [{low:.3f}, {high:.3f}]")
    ax.minorticks_off()
    ax.set_xlabel("number of item–label pairs K")
    ax.set_ylabel("memorization time I_K(∞)")
    ax.legend()


MEMORIZATION_TIME = Figure(
    name="memorization-time",
    caption="Memorization time of the MLP against the number of pairs K (the built-in claim's preset, "
    "seed 0), with the log–log least-squares power law and its run-resampling bootstrap 95 % interval.",
    data=_memorization_data,
    draw=_draw_memorization,
)
