"""Claims: the converged one-layer LSA under distribution shift (Zhang, Frei & Bartlett 2024, §4–5).

Numerics: ``numerics.literature.shift``. Gradient flow on one-layer linear self-attention, trained on
prompts of N examples x ~ N(0, Λ) with tasks w ~ N(0, I), converges to ŷ = x_qᵀΓ⁻¹(1/M)Σᵢyᵢxᵢ with
Γ = (1 + 1/N)Λ + (tr Λ/N) I (their Thm 4.1; the optimal-LSA family's ``zfb-preconditioner-gamma``).
The model is fixed after training; on test prompts of M examples with covariates x ~ N(0, Λ') and
tasks with second moment Σ_w = E[wwᵀ], its risk has the closed form derived in the numerics module
from Isserlis' theorem, R = tr(Λ'(A E[hhᵀ] Aᵀ − AΛ'Σ_w − Σ_wΛ'Aᵀ + Σ_w)) with A = Γ⁻¹ and
E[hhᵀ] = (1 + 1/M)Λ'Σ_wΛ' + tr(Σ_wΛ')Λ'/M.

ZFB find that the trained model tolerates task shifts but not covariate shifts. In the closed form
the first is visible as the risk depending on the task distribution only through Σ_w
(``zfb-risk-depends-on-tasks-only-through-second-moment``: tasks uniform on a sphere give the
Gaussian risk), the second as the dependence on Λ' through a preconditioner fitted to Λ
(``zfb-risk-under-covariate-shift``). A learning algorithm such as OLS would not care how the
covariates are scaled; the trained LSA does: scaling Λ' = 4Λ multiplies the normalised risk
R/tr Λ' by about 25 (``zfb-covariate-scaling-is-harmless``, refuted by the same simulation that
verifies the closed form). Every simulation draws 200 000 prompts and averages each prompt's squared
error over the query exactly (rᵀΛ'r for the error vector r; ``simulated_errors(query="averaged")``):
with a drawn query the error carries a χ²₁ factor whose tail made the t-interval too narrow (at seed 0,
1.46 [1.44, 1.48] against the closed form 1.4319; standard error ≈ 1.2 % of the risk at 200 000 prompts).
Averaged, the standard error is ≈ 0.4 % and the interval covers at its level (tests/families/
test_interval_coverage.py).

Bands. ``zfb-risk-under-covariate-shift`` verifies a formula, so its band must exclude the formulas one could
mistake for it: the closest plausible mis-derivations at Λ' = diag(2, 1, 0.5), M = 20 are tr Λ'/(M + 1) for
tr Λ'/M (−1.85 %), M + 1 for M throughout (−2.69 %), M − 1 for M (+2.97 %); dropping the 1/M of (1 + 1/M)
(−17.7 %), the trace term (−38.8 %), or fitting Γ at N − 1 (−9.1 %) or at M instead of N (+73.9 %) are farther.
The smallest difference that matters is thus 1.85 %. Its tolerance is 1.2 % of the closed form
(:data:`FORMULA_RESOLUTION`), and it draws 4 × 200 000 prompts (:data:`FORMULA_CHUNKS`): a standard error of
≈ 0.2 %, a 95 % half-width of ≈ 0.39 %, so the true formula fails to VERIFY only when its estimate is ≥ 4
standard errors off (≈ 6·10⁻⁵ per seed), and the nearest variant would VERIFY only with an estimate ≥ 5.2
standard errors off: the band sits where both errors are negligible at 32 seeds
(tests/families/test_distribution_shift.py shows every variant REFUTED or undecided at seeds 0–7). The former
band, 5 % at 200 000 prompts, would have VERIFIED the first three variants. The scaling claim keeps 5 % at 200 000 prompts:
its alternative is the 25-fold change it refutes. The task-shift claim keeps 5 % too, without a justification
from an alternative yet: the risk it would be confused with, one depending on the tasks' fourth moments
(E‖w‖⁴ = 15 for the Gaussian, 9 on the sphere of radius √3), has not been derived, so the smallest difference
that matters is not known.
"""

from __future__ import annotations

import numpy as np

from icl_verify.core.caches import cached
from icl_verify.core.checks.measured import Estimate, Measured
from icl_verify.core.claims import Claim, Corrected
from icl_verify.core.figure import Figure
from icl_verify.numerics.literature.shift import shifted_risk, simulated_errors, zfb_preconditioner
from icl_verify.numerics.shared.stats import t_interval

FAMILY = "distribution-shift"
PAPER = "Zhang, Frei & Bartlett 2024"

TRAIN_LAMBDA = np.diag([1.0, 0.5, 2.0])
TRAIN_N = 10
PROMPTS = 200_000
RESOLUTION = 0.05
FORMULA_RESOLUTION = 0.012
"""Tolerance of ``zfb-risk-under-covariate-shift``, as a fraction of the closed form (module docstring: it
excludes the nearest mis-derivation, 1.85 % away)."""
FORMULA_CHUNKS = 4
"""Independent chunks of :data:`PROMPTS` prompts that ``zfb-risk-under-covariate-shift`` averages (≈ 0.2 GB each)."""
A_TRAINED = np.linalg.inv(zfb_preconditioner(TRAIN_LAMBDA, TRAIN_N))
ASSUMPTIONS = ("one-layer LSA at the gradient-flow limit Γ of ZFB Thm 4.1", "noiseless labels")


COVARIATE_SHIFT = (2.0, 1.0, 0.5)


@cached()
def _simulated(lam: tuple[float, ...], m: int, tasks: str, seed: int, chunks: int = 1) -> tuple[float, float, float]:
    """Mean squared query error of the trained model on ``chunks`` × :data:`PROMPTS` prompts with Λ' = diag(lam),
    Σ_w = I, 95 % t-interval; chunk i of seed s draws with the seed chunks·s + i (no two seeds share a chunk)."""
    errors = np.concatenate(
        [
            simulated_errors(
                A_TRAINED, np.diag(lam), np.eye(3), m, PROMPTS, chunks * seed + i, tasks=tasks, query="averaged"
            )
            for i in range(chunks)
        ]
    )
    return tuple(t_interval(errors))


def _risk(lam: tuple[float, ...], m: int) -> float:
    return shifted_risk(A_TRAINED, np.diag(lam), np.eye(3), m)


def _estimate(
    lam: tuple[float, ...],
    m: int,
    tasks: str,
    seed: int,
    predicted: float,
    resolution: float = RESOLUTION,
    chunks: int = 1,
) -> Estimate:
    """The simulated risk against ``predicted`` ± ``resolution`` × the closed form (an equivalence test, 95 % t)."""
    prompts = chunks * PROMPTS
    detail = f"Λ' = diag{lam}, M = {m}, tasks {tasks}, {prompts} prompts (error averaged over the query), seed {seed}"
    return Estimate(
        *_simulated(lam, m, tasks, seed, chunks),
        predicted,
        resolution * _risk(lam, m),
        detail,
        estimand="the trained model's mean squared query error (risk) on the test prompts' law",
        level=0.95,
    )


def measure_covariate_shift(seed: int, predicted: float | None = None) -> Estimate:
    """The risk at Λ' = diag(2, 1, 0.5), M = 20 against ``predicted`` (the closed form unless given: the variant
    tests pass a mis-derived formula's value) ± 1.2 % of the closed form."""
    value = _risk(COVARIATE_SHIFT, 20) if predicted is None else predicted
    return _estimate(COVARIATE_SHIFT, 20, "gaussian", seed, value, FORMULA_RESOLUTION, FORMULA_CHUNKS)


RISK_UNDER_COVARIATE_SHIFT = Claim(
    name="zfb-risk-under-covariate-shift",
    source=f"{PAPER}, §5 (covariate shift); the risk derived from Isserlis' theorem",
    statement=r"R(\Lambda') = \operatorname{tr}\!\big(\Lambda'(A\,\mathbb E[hh^\top]A^\top - A\Lambda' - \Lambda' A^\top + I)\big),"
    r"\ A = \Gamma^{-1},\ \mathbb E[hh^\top] = (1 + \tfrac1M)\Lambda'^2 + \tfrac{\operatorname{tr}\Lambda'}{M}\Lambda'",
    checks=(Measured(measure_covariate_shift),),
    assumptions=(*ASSUMPTIONS, "trained at Λ = diag(1, 0.5, 2), N = 10; tested at Λ' = diag(2, 1, 0.5), M = 20"),
    builds_on=("zfb-preconditioner-gamma",),
)

TRAIN_DIAG = tuple(float(v) for v in np.diag(TRAIN_LAMBDA))

TASK_SHIFT = Claim(
    name="zfb-risk-depends-on-tasks-only-through-second-moment",
    source=f"{PAPER}, §5 (task shift)",
    statement=r"w \sim \mathrm{Unif}(\sqrt d\,S^{d-1}):\ R = R_{w \sim N(0, I)}\quad(\text{same } \mathbb E[ww^\top] = I)",
    checks=(Measured(lambda seed: _estimate(TRAIN_DIAG, TRAIN_N, "sphere", seed, _risk(TRAIN_DIAG, TRAIN_N))),),
    assumptions=(*ASSUMPTIONS, "tasks uniform on the sphere of radius √d at test time"),
    builds_on=("zfb-risk-under-covariate-shift",),
)

SCALED = tuple(4 * v for v in TRAIN_DIAG)


def _normalised(seed: int) -> Estimate:
    """R/tr Λ' at Λ' = 4Λ against the in-distribution R/tr Λ (the claim; the corrected form is the closed form at 4Λ)."""
    scale = sum(SCALED)
    value, low, high = (x / scale for x in _simulated(SCALED, TRAIN_N, "gaussian", seed))
    return Estimate(
        value,
        low,
        high,
        _risk(TRAIN_DIAG, TRAIN_N) / sum(TRAIN_DIAG),
        RESOLUTION * _risk(SCALED, TRAIN_N) / scale,
        f"Λ' = 4Λ, M = N = {TRAIN_N}, {PROMPTS} prompts (error averaged over the query), seed {seed}",
        estimand="the trained model's risk per unit covariate scale, R/tr Λ', at Λ' = 4Λ",
        level=0.95,
    )


COVARIATE_SCALING = Claim(
    name="zfb-covariate-scaling-is-harmless",
    source=f"{PAPER}, §5 (covariate shift is not tolerated), against the reading of the trained model as a learning algorithm",
    statement=r"\frac{R(4\Lambda)}{\operatorname{tr}(4\Lambda)} = \frac{R(\Lambda)}{\operatorname{tr}\Lambda}",
    checks=(Measured(_normalised),),
    holds=False,
    corrected=Corrected("zfb-risk-under-covariate-shift", measured=_risk(SCALED, TRAIN_N) / sum(SCALED)),
    assumptions=ASSUMPTIONS,
    builds_on=("zfb-risk-under-covariate-shift",),
    note="The preconditioner Γ⁻¹ is fitted to Λ: the estimate Γ⁻¹(1/M)Xᵀy grows with the covariate scale, "
    "so at 4Λ it overshoots w about 3-fold.",
)


# ---------------------------------------------------------------------------------------------
# Figure: risk over a covariate scale


def _scale_data(seed: int = 0) -> dict:
    scales = np.geomspace(0.25, 4.0, 9)
    closed = np.array([shifted_risk(A_TRAINED, c * TRAIN_LAMBDA, np.eye(3), TRAIN_N) / (c * 3.5) for c in scales])
    simulated = np.array(
        [
            simulated_errors(A_TRAINED, c * TRAIN_LAMBDA, np.eye(3), TRAIN_N, 20_000, seed).mean() / (c * 3.5)
            for c in scales
        ]
    )
    return {"scale": scales, "closed": closed, "simulated": simulated}


def _draw_scale(ax, data) -> None:
    ax.loglog(data["scale"], data["closed"], "-", label="closed form")
    ax.loglog(data["scale"], data["simulated"], "o", label="simulation (20 000 prompts)")
    ax.axvline(1.0, color="grey", lw=0.5)
    ax.set_xlabel("covariate scale c (test Λ' = cΛ)")
    ax.set_ylabel("normalised risk R / tr Λ'")
    ax.legend()


FIGURES = (
    Figure(
        name="covariate-scale",
        caption="The converged one-layer LSA (trained at Λ = diag(1, 0.5, 2), N = 10) tested on prompts with "
        "covariates scaled by c (M = 10, seed 0): the normalised risk is smallest near the training scale "
        "c = 1 and grows on both sides, closed form against simulation.",
        data=_scale_data,
        draw=_draw_scale,
    ),
)
