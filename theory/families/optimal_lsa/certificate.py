"""The trained preconditioners: the best of several restarts, certified against one tuned GD step."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from icl_verify.core.caches import cached
from icl_verify.core.checks.measured import Measured, over_runs
from icl_verify.core.claims import Claim, Corrected
from icl_verify.families.optimal_lsa.moments import MAHANKALI_STATED
from icl_verify.families.optimal_lsa.monte_carlo import (
    ANISO,
    ANISO_LAMBDA,
    MC_QUERIES,
    NOISY,
    gamma_distance_to_inverse_covariance,
    gamma_inverse,
    relative_distance,
    value_at,
)
from icl_verify.families.optimal_lsa.training import (
    LOOKS,
    MEDIAN_LOOKS,
    SINGLE_ANISO,
    SINGLE_NOISY,
    TEST_TASKS,
    TRAIN_SEEDS,
    trained,
)
from icl_verify.numerics.lsa.alignment import (
    effective_preconditioner,
    gd_model,
    line_search_rate,
    lsa_model,
    mean_interval,
    task_losses,
)
from icl_verify.numerics.lsa.training import TrainConfig

EXTRA_RUNS = 3
"""Runs added (one at a time) when every run of :func:`best_run` is beaten by tuned one-step GD (see there)."""
EXTRA_SEED_BASE = 1 << 20
"""Training seeds of the added runs: EXTRA_SEED_BASE + EXTRA_RUNS·seed + j, disjoint from the first runs' TRAIN_SEEDS·seed + j
for check seeds below 2²⁰/3."""


@dataclass(frozen=True)
class BestRun:
    """The restarts of one check seed, their validation ½·MSE and preconditioners A_θ, and the GD certificate."""

    seeds: list[int]
    losses: list[float]
    precond: list[np.ndarray]
    gd_rate: float | None = None
    """η̂ of the one-step GD baseline (None when the certificate is not used)."""
    excess: list[tuple[float, float, float]] = field(default_factory=list)
    """mean(ℓ_best − ℓ_GD(η̂)) on the validation tasks with its 99 % interval, after each round of runs."""

    @property
    def best(self) -> int:
        """Index of the run with the lowest validation loss."""
        return int(np.argmin(self.losses))

    def note(self) -> str:
        """The certificate's rounds for the evidence ('' when it is not used)."""
        if self.gd_rate is None:
            return ""
        rounds = "; ".join(
            f"after {TRAIN_SEEDS + k} runs: best − GD {m:+.4f} [{lo:+.4f}, {hi:+.4f}]"
            for k, (m, lo, hi) in enumerate(self.excess)
        )
        added = len(self.seeds) - TRAIN_SEEDS
        return (
            f"certificate vs one-step GD (η̂ = {self.gd_rate:.4f}, a member of the LSA class): {rounds};"
            f" {added} run(s) added (at most {EXTRA_RUNS})"
        )


def beaten_by_gd(model_losses: np.ndarray, gd_losses: np.ndarray) -> tuple[bool, tuple[float, float, float]]:
    """Whether a trained layer is certainly not at the global minimum: one GD step with a tuned rate is
    an LSA layer (von Oswald et al. 2023, Prop. 1), so if the paired excess mean(ℓ_model − ℓ_GD) on
    shared tasks is above 0 at 99 % confidence, a better point of the class exists. Returns (beaten, excess)."""
    excess = mean_interval(model_losses - gd_losses)
    return excess[1] > 0, excess


@cached(maxsize=24)
def best_run(config: TrainConfig, seed: int, extra: int = 0) -> BestRun:
    """TRAIN_SEEDS restarts, the best by validation loss; with ``extra`` > 0, runs are added while the best is
    beaten by one tuned GD step (:func:`beaten_by_gd`).

    Restarts are needed: from a random full-matrix init some runs settle near a rank-one point that
    routes the label through the keys ((P W_V)_{y,x} and (W_Kᵀ W_Q)_{y,x}) and fits one input
    direction only (anisotropic setting: validation ½·MSE ≈ 1.25 vs ≈ 1.01). That point has no
    direction of negative curvature (the Hessian of the training loss there, by central differences, has its smallest
    eigenvalue ≈ 0: a numerically local minimum of the one-head parametrisation), so training does not leave it and
    perturbing it does not help; but a tuned GD step (≈ 1.10) beats it, which certifies from training
    information alone that a run is stuck. Validation tasks and the GD rate's tuning tasks are fresh
    and independent of the target the claim compares with; the certificate never reads that target.
    """
    seeds = [seed * TRAIN_SEEDS + j for j in range(TRAIN_SEEDS)]
    val = config.sample(np.random.default_rng([seed, 12]), TEST_TASKS // 4, n_queries=MC_QUERIES)
    runs = [trained(config, s).layers for s in seeds]
    per_task = [task_losses(lsa_model(layers), val) for layers in runs]
    if not extra:
        return BestRun(seeds, _means(per_task), _preconditioners(runs, config))
    eta = line_search_rate(config.sample(np.random.default_rng([seed, 11]), 10_000))
    gd_losses = task_losses(gd_model(eta), val)
    excess = []
    for j in range(extra + 1):
        beaten, gap = beaten_by_gd(per_task[int(np.argmin(_means(per_task)))], gd_losses)
        excess.append(gap)
        if not beaten or j == extra:
            break
        seeds.append(EXTRA_SEED_BASE + extra * seed + j)
        runs.append(trained(config, seeds[-1]).layers)
        per_task.append(task_losses(lsa_model(runs[-1]), val))
    return BestRun(seeds, _means(per_task), _preconditioners(runs, config), eta, excess)


def _means(per_task: list[np.ndarray]) -> list[float]:
    """Validation ½·MSE of each run from its per-task losses."""
    return [float(np.mean(t)) for t in per_task]


def _preconditioners(runs: list[list], config: TrainConfig) -> list[np.ndarray]:
    """A_θ of each run's (single) layer."""
    return [effective_preconditioner(layers[0], config.nx, config.n_context) for layers in runs]


def best_distance(config: TrainConfig, seed: int, target: np.ndarray, extra: int = 0) -> float:
    """‖A_θ − target‖/‖target‖ of the lowest-validation-loss restart of one run of :func:`best_run` (its restarts
    and certificate included)."""
    runs = best_run(config, seed, extra)
    return relative_distance(runs.precond[runs.best], target)


def _context(config: TrainConfig, setting: str, extra: int) -> Callable[[list[int]], str]:
    """The detail's account of the runs: the setting, the budget, each run's restarts and certificate."""

    def context(seeds: list[int]) -> str:
        notes = []
        for s in seeds:
            runs = best_run(config, s, extra)
            restarts = [f"{t}: {n}" for t in runs.seeds if (n := trained(config, t).restart_note())]
            losses = np.round(runs.losses, 4).tolist()
            notes.append(f"run seed {s}: best of {runs.seeds} by validation ½·MSE {losses}")
            notes += [*restarts, runs.note()]
        return f"{setting}; {config.steps} Adam steps, batch {config.batch}, lr {config.lr:g} {config.schedule}; " + (
            "; ".join(n for n in notes if n)
        )

    return context


WHAT = "the relative distance of its best restart's preconditioner to the target"
"""Each independent run is the whole procedure of :func:`best_run`: restarts, the best by validation loss."""


def _aniso_precond(target: Callable[[], np.ndarray]) -> Measured:
    return over_runs(
        lambda s: best_distance(SINGLE_ANISO, s, target(), EXTRA_RUNS),
        WHAT,
        0.0,
        0.05,
        looks=MEDIAN_LOOKS,
        median=True,
        context=_context(SINGLE_ANISO, "Λ = diag(0.25, 1, 4), N = 5", EXTRA_RUNS),
    )


def _noisy_target() -> np.ndarray:
    return value_at(MAHANKALI_STATED, NOISY) * np.eye(NOISY.nx)


TRAINED_GAMMA = Claim(
    name="trained-lsa-preconditioner-gamma",
    source="Zhang, Frei, Bartlett 2024, Thm. 4.1 (trained LSA converges to Γ⁻¹-preconditioned GD)",
    assumptions=(
        "x ~ N(0, Λ), Λ = diag(0.25, 1, 4), N = 5",
        "one LSA layer (linear, unnormalised attention), query excluded from keys and values",
    ),
    builds_on=("zfb-preconditioner-gamma",),
    statement=r"\|A_\theta - \Gamma^{-1}\|_F / \|\Gamma^{-1}\|_F \le 0.05,\ \hat y = x_q^\top A_\theta \tfrac1N \textstyle\sum_i y_i x_i",
    checks=(_aniso_precond(lambda: gamma_inverse(ANISO_LAMBDA, ANISO.n_context)),),
    note=(
        "Best of 3 restarts by validation loss, 1500 Adam steps each (batch 1024, lr 1e-2 cosine); while the best is"
        " beaten by one tuned GD step (a member of the LSA class, so the run is certainly not at the minimum), up to"
        " 3 more runs are added. The estimate is the median over 9 (or 18) independent runs of that whole procedure, with its"
        " order-statistic interval: an occasional run ends far from Γ⁻¹, and the typical run is what the theorem describes."
    ),
)

TRAINED_NOISY_RATE = Claim(
    name="trained-lsa-noisy-rate",
    source="Mahankali, Hashimoto, Ma 2024 (trained one-layer LSA = one GD step with c*)",
    assumptions=(
        "x, w ~ N(0, I_5), N = 8, label noise σ = 0.75",
        "one LSA layer (linear, unnormalised attention), query excluded from keys and values",
    ),
    builds_on=("mahankali-noisy-rate",),
    statement=r"\|A_\theta - c^* I\|_F / \|c^* I\|_F \le 0.05,\ c^* = \frac{n}{n + d + 1 + \sigma^2}",
    checks=(
        over_runs(
            lambda s: best_distance(SINGLE_NOISY, s, _noisy_target()),
            WHAT,
            0.0,
            0.05,
            looks=LOOKS,
            geometric=True,
            context=_context(SINGLE_NOISY, "x, w ~ N(0, I_5), N = 8, σ = 0.75", 0),
        ),
    ),
    note=(
        "x, w ~ N(0, I_5), N = 8, σ = 0.75; best of 3 runs by validation loss, 600 Adam steps each, a run"
        " restarted (at most 6×) when its loss is still on a plateau at step 150; the interval is the t-interval over 4"
        " (or 8) independent runs of that whole procedure."
    ),
)

TRAINED_INVERSE_COVARIANCE = Claim(
    name="trained-lsa-preconditioner-inverse-covariance",
    source="Tempting reading of Zhang–Frei–Bartlett 2024 (N → ∞ limit)",
    assumptions=(
        "x ~ N(0, Λ), Λ = diag(0.25, 1, 4), N = 5",
        "one LSA layer (linear, unnormalised attention), query excluded from keys and values",
    ),
    statement=r"\|A_\theta - \Lambda^{-1}\|_F / \|\Lambda^{-1}\|_F \le 0.05",
    checks=(_aniso_precond(lambda: np.diag(1 / np.array(ANISO_LAMBDA))),),
    holds=False,
    corrected=Corrected(
        "trained-lsa-preconditioner-gamma", measured=lambda seed: gamma_distance_to_inverse_covariance()
    ),
)
