"""Claims checked by meta-training one LSA layer (small default budgets; ``icl-verify train`` runs the long ones)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np

from icl_verify.core.caches import cached
from icl_verify.core.checks.measured import Measured, Rule, over_runs
from icl_verify.core.claims import Claim, Corrected
from icl_verify.experiments.lsa import N, paired_loss
from icl_verify.families.optimal_lsa.moments import stated_eta, stated_loss
from icl_verify.families.optimal_lsa.monte_carlo import ANISO, CODE, MC_QUERIES, NOISY, value_at
from icl_verify.numerics.lsa.alignment import (
    effective_preconditioner,
    gd_model,
    gd_reference,
    interpolate,
    line_search_rate,
    lsa_model,
    model_cos,
    product_alignment,
    task_losses,
)
from icl_verify.numerics.lsa.regression import RegressionTasks
from icl_verify.numerics.lsa.training import TrainConfig, TrainResult, train

ESCAPE = {"escape_step": 150, "escape_ratio": 0.7, "restarts": 3}
"""Plateau test of :func:`numerics.lsa.training.train` for the 600-step runs. Over training seeds 0–31 the
loss ratio (steps 125–150 over steps 0–25) was ≤ 0.59 for the 24 runs that converged and ≥ 0.80 for
the 8 still on the zero predictor's plateau (6 of which ended 11–96 % above ½·MSE*); 0.7 splits the two."""
SINGLE = replace(CODE, steps=600, batch=512, lr=3e-3, schedule="cosine", **ESCAPE)
"""Default-check training budget: 600 Adam steps, batch 512, lr 3e-3 cosine-decayed, init N(0, 0.01²),
at most 3 restarts by the plateau test."""
SINGLE_ANISO = replace(ANISO, steps=1500, batch=1024, lr=1e-2, schedule="cosine")
"""Anisotropic training budget: 1500 steps, batch 1024, lr 1e-2 cosine (the λ = 0.25 direction learns slowest)."""
SINGLE_NOISY = replace(NOISY, steps=600, batch=512, lr=3e-3, schedule="cosine", **(ESCAPE | {"restarts": 6}))
"""Noisy training budget: about 3 runs in 4 start on the rank-one saddle here (6 of 8 looked at), so up to
6 restarts per run: all of a claim's 3 runs stay on it with probability ≈ (0.75⁷)³ ≈ 2·10⁻³."""
TEST_TASKS = 1 << 15
TRAIN_SEEDS = 3
LEVEL = 0.99
"""The level of ``mean_interval`` and ``paired_loss`` (z = 2.576) in the certificate's runs."""
LOOKS = (4, 8)
"""Independent training runs per claim (:func:`~icl_verify.core.checks.measured.run_seeds`): 4, then 8 when the
interval of 4 does not decide, α spent over the two looks (:class:`~icl_verify.core.checks.measured.Measured`). The
interval is the t-interval over the runs' values, so it covers the spread between training runs, which one run's
test tasks do not (across check seeds 0–31 the ends of one run's interval moved up to 79 × its half-width)."""
MEDIAN_LOOKS = (9, 18)
"""Independent training runs of the claims whose training outcome is a mixture — two weight-tied layers (about 1 run
in 14 stalls on a second plateau at 1.6 × GD++'s loss) and the anisotropic preconditioner (an occasional run ends far
from Γ⁻¹) — where the held-out seeds 1000–1026 showed the t-interval over 4–8 runs narrower than what varies between
seeds (docs/performance-history.md). Their estimand is the typical run: the median over runs, with the order-statistic
interval (:func:`~icl_verify.core.checks.measured.median_estimate`). At the spent levels 99.44 % and 95.22 % the
looks take [x₍₁₎, x₍₉₎] of 9 runs (99.61 %) and [x₍₅₎, x₍₁₄₎] of 18 (96.91 %); their misses add to 3.5 % ≤ 5 %, so
every look's interval holds at once with probability ≥ 96.5 % whatever the law of the runs (union bound). A stalled
run among the first 9 is their maximum; the second look's interval reaches a stalled run only if 5 of 18 stall. Chosen before seeds 3000–3031,
on which it was confirmed."""


@cached(maxsize=256)
def trained(config: TrainConfig, seed: int) -> TrainResult:
    """A meta-trained LSA (cached: several claims read the same run, and their details its restarts — the
    preconditioner claims' 9–18 runs of 3–6 restarts each stay cached)."""
    return train(config, seed)


def _test_tasks(config: TrainConfig, seed: int) -> RegressionTasks:
    return config.sample(np.random.default_rng([seed, 10]), TEST_TASKS, n_queries=MC_QUERIES, seed=seed)


def settings(config: TrainConfig, seeds: list[int], tasks: int = TEST_TASKS) -> str:
    """The training budget of the runs ``seeds`` and the restarts any of them needed."""
    restarts = [f"run seed {s}: {note}" for s in seeds if (note := trained(config, s).restart_note())]
    return (
        f"{config.steps} Adam steps, batch {config.batch}, lr {config.lr:g} {config.schedule} per run,"
        f" {tasks} test tasks × {MC_QUERIES} queries per run" + (f"; {'; '.join(restarts)}" if restarts else "")
    )


def across_runs(
    per_run: Callable[[int], float],
    what: str,
    predicted: float | Callable[[], float],
    tolerance: float = 0.0,
    *,
    relative: bool = False,
    test: Rule = Rule.EQUIVALENCE,
    geometric: bool = False,
    median: bool = False,
    context: Callable[[list[int]], str] = lambda seeds: settings(SINGLE, seeds),
) -> Measured:
    """:func:`~icl_verify.core.checks.measured.over_runs` at this family's :data:`LOOKS` (with ``median``, the median run
    at :data:`MEDIAN_LOOKS`), the runs described by their training budget (``context``)."""
    return over_runs(
        per_run,
        what,
        predicted,
        tolerance,
        looks=MEDIAN_LOOKS if median else LOOKS,
        relative=relative,
        test=test,
        geometric=geometric,
        median=median,
        context=context,
    )


def _eta() -> float:
    """η* of the code setting (d = N = 10, x ~ U(−½, ½))."""
    return value_at(stated_eta(), CODE)


def _loss() -> float:
    """½·MSE* of the code setting."""
    return value_at(stated_loss(), CODE)


def trained_loss(seed: int) -> float:
    """One run's ½·MSE on its test tasks, with GD(η*) (known mean ½·MSE*) as the control variate."""
    model = lsa_model(trained(SINGLE, seed).layers)
    return paired_loss(model, gd_model(_eta()), _test_tasks(SINGLE, seed), _loss())[0]


def loss_vs_tuned_gd(seed: int) -> float:
    """One run's loss / loss of GD with η line-searched on 10⁴ tasks (the paper's baseline), on its test tasks."""
    eta = line_search_rate(SINGLE.sample(np.random.default_rng([seed, 11]), 10_000))
    tasks = _test_tasks(SINGLE, seed)
    ref = task_losses(gd_model(eta), tasks)
    return float(np.mean(task_losses(lsa_model(trained(SINGLE, seed).layers), tasks)) / np.mean(ref))


def model_cos_of_run(seed: int) -> float:
    """One run's mean cos(∂ŷ_θ/∂x_q, ∂ŷ_GD/∂x_q) over its test tasks (von Oswald et al. Fig. 2)."""
    model = lsa_model(trained(SINGLE, seed).layers)
    return float(np.mean(model_cos(model, gd_model(_eta()), _test_tasks(SINGLE, seed))))


def products_error(seed: int) -> float:
    """One run's larger relative error of the readout blocks of P W_V and W_Kᵀ W_Q vs θ_GD(η*), best rescaling."""
    ref = gd_reference(SINGLE.nx, SINGLE.ny, _eta(), SINGLE.n_context)
    _, err_v, err_k = product_alignment(trained(SINGLE, seed).layers[0], ref, nx=SINGLE.nx)
    return max(err_v, err_k)


def interpolation_loss(seed: int) -> float:
    """½·MSE of the rescaled average of one run's weights and θ_GD(η*) (von Oswald et al. Fig. 2, 'interpolated')."""
    ref = gd_reference(SINGLE.nx, SINGLE.ny, _eta(), SINGLE.n_context)
    mixed = interpolate(trained(SINGLE, seed).layers[0], ref)
    return paired_loss(lsa_model([mixed]), gd_model(_eta()), _test_tasks(SINGLE, seed), _loss())[0]


def raw_rate(seed: int) -> float:
    """One run's raw rate −(P W_V)_yy (W_Kᵀ W_Q)_xx read as a multiple of I: the mean of its diagonal entries."""
    A = effective_preconditioner(trained(SINGLE, seed).layers[0], SINGLE.nx, SINGLE.n_context) / SINGLE.n_context
    return float(np.mean(np.diag(A)))


TRAINED_LOSS = Claim(
    name="trained-lsa-loss-closed-form",
    source="von Oswald et al. 2023, §3 and Fig. 2 (trained LSA = GD with the best rate)",
    assumptions=(
        "x ~ U(−½, ½)^d, d = N = 10",
        "one LSA layer (linear, unnormalised attention), query excluded from keys and values",
    ),
    builds_on=("prop1-lsa-equals-gd-step", "optimal-one-step-loss-iid-inputs"),
    statement=r"\tfrac12\,\mathrm{MSE}(\text{meta-trained 1-layer LSA}) = \tfrac12\,\mathrm{MSE}^* = \tfrac{245}{1188}\ (\pm 1\,\%)",
    checks=(across_runs(trained_loss, "the ½·MSE on its test tasks", _loss, 0.01, relative=True),),
    note=(
        "d = N = 10, x ~ U(−½, ½); 600 Adam steps (batch 512, lr 3e-3 cosine), restarted (at most 3×, from"
        " [seed, k]) when the loss is still on the zero predictor's plateau at step 150. Interval: Student t over 4 or"
        " 8 independent training runs, each run's ½·MSE on its own test tasks."
    ),
)

TRAINED_VS_TUNED_GD = Claim(
    name="trained-lsa-vs-tuned-gd",
    source="von Oswald et al. 2023, Fig. 2 (GD baseline line-searched over 10⁴ tasks)",
    assumptions=(
        "x ~ U(−½, ½)^d, d = N = 10",
        "one LSA layer (linear, unnormalised attention), query excluded from keys and values",
    ),
    builds_on=("prop1-lsa-equals-gd-step",),
    statement=r"\mathrm{loss}(\text{trained LSA}) / \mathrm{loss}(\text{GD}, \hat\eta_{\text{line search}}) = 1 \pm 0.01",
    checks=(across_runs(loss_vs_tuned_gd, "the loss ratio to line-searched GD on its test tasks", 1.0, 0.01),),
)

TRAINED_MODEL_COS = Claim(
    name="trained-lsa-model-cos",
    source="von Oswald et al. 2023, Fig. 2 (model cos ≈ 1)",
    assumptions=(
        "x ~ U(−½, ½)^d, d = N = 10",
        "one LSA layer (linear, unnormalised attention), query excluded from keys and values",
    ),
    builds_on=("prop1-lsa-equals-gd-step",),
    statement=r"E\,\cos(\partial_{x_q}\hat y_\theta, \partial_{x_q}\hat y_{GD}) \ge 0.99",
    checks=(across_runs(model_cos_of_run, "the mean cosine of the trained and GD(η*) input gradients", 1.0, 0.01),),
)

TRAINED_PRODUCTS = Claim(
    name="trained-lsa-products-theta-gd",
    source="von Oswald et al. 2023, §3 (trained P W_V, W_Kᵀ W_Q ∝ θ_GD's)",
    assumptions=(
        "x ~ U(−½, ½)^d, d = N = 10",
        "one LSA layer (linear, unnormalised attention), query excluded from keys and values",
    ),
    builds_on=("prop1-lsa-equals-gd-step", "lsa-rescaling-invariance"),
    statement=(
        r"\min_s \max\big(\tfrac{\|s\,P W_V - (P W_V)_{GD}\|}{\|(P W_V)_{GD}\|},"
        r" \tfrac{\|W_K^\top W_Q / s - (W_K^\top W_Q)_{GD}\|}{\|(W_K^\top W_Q)_{GD}\|}\big) \le 0.1"
    ),
    checks=(
        across_runs(
            products_error,
            "the larger relative error of the two readout blocks after the best rescaling",
            0.1,
            test=Rule.AT_MOST,
            geometric=True,
        ),
    ),
    note="Readout blocks only (y-row of P W_V, x-columns of W_Kᵀ W_Q): a 1-layer readout sees nothing else.",
)

TRAINED_INTERPOLATION = Claim(
    name="trained-lsa-interpolation",
    source="von Oswald et al. 2023, Fig. 2 ('interpolated' model)",
    assumptions=(
        "x ~ U(−½, ½)^d, d = N = 10",
        "one LSA layer (linear, unnormalised attention), query excluded from keys and values",
    ),
    builds_on=("prop1-lsa-equals-gd-step", "lsa-rescaling-invariance", "optimal-rate-iid-inputs"),
    statement=r"\tfrac12\,\mathrm{MSE}\big(\tfrac12(\text{rescaled } \theta) + \tfrac12\theta_{GD}(\eta^*)\big) = \tfrac12\,\mathrm{MSE}^* \ (\pm 1\,\%)",
    checks=(
        across_runs(
            interpolation_loss,
            "the ½·MSE of the rescaled average of its and θ_GD(η*) weights",
            _loss,
            0.01,
            relative=True,
        ),
    ),
)

TRAINED_RAW_RATE = Claim(
    name="trained-lsa-rate-without-1-over-n",
    source="von Oswald et al. 2023, Proposition 1 with P = ηI read as the rate",
    assumptions=(
        "x ~ U(−½, ½)^d, d = N = 10",
        "one LSA layer (linear, unnormalised attention), query excluded from keys and values",
    ),
    builds_on=("prop1-lsa-equals-gd-step",),
    statement=r"-(P W_V)_{yy} (W_K^\top W_Q)_{xx} \text{ of the trained layer} = \eta^* I",
    checks=(across_runs(raw_rate, "the mean diagonal entry of its raw rate", _eta, 0.05, relative=True),),
    holds=False,
    corrected=Corrected(measured=lambda seed: value_at(stated_eta() / N, CODE)),  # θ_GD's P = (η*/N) I: η*/N
    note=(
        "The trained raw product is η*/N · I: the 1/N of θ_GD's P = (η/N) I is learned too "
        "(the control: the same diagonal against η*/N ± the same tolerance)."
    ),
)
