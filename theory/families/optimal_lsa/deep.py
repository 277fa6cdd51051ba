"""Deeper LSA against GD and GD++ (von Oswald et al. §4, Fig. 3): two weight-tied layers, three untied ones."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np

from icl_verify.core.caches import cached
from icl_verify.core.checks.measured import Measured, Rule, run_seeds
from icl_verify.core.claims import Claim, Corrected
from icl_verify.core.figure import Figure
from icl_verify.families.optimal_lsa.monte_carlo import MC_QUERIES
from icl_verify.families.optimal_lsa.training import ESCAPE, MEDIAN_LOOKS, TEST_TASKS, across_runs, settings, trained
from icl_verify.numerics.lsa.alignment import (
    gd_model,
    gdpp_model,
    line_search_rate,
    lsa_model,
    model_cos,
    preds_diff,
    task_losses,
    tune_gdpp,
)
from icl_verify.numerics.lsa.deep_training import UntiedResult, train_tied_then_untied
from icl_verify.numerics.lsa.training import TrainConfig

# ---------------------------------------------------------------------------------------------
# Two weight-tied layers vs two GD steps and GD++ (von Oswald et al. §4, Fig. 3), small default run

DEEP = TrainConfig(
    nx=5, n_context=10, n_layers=2, recurrent=True, steps=1500, batch=512, lr=5e-3, schedule="cosine", **ESCAPE
)
"""d = 5, N = 10, x ~ U(−½, ½); 2 weight-tied layers; 1500 Adam steps, batch 512, lr 5e-3 cosine
(lr 1e-2 for 800 steps is unstable: 4 of 6 seeds ended 4–960 % above GD++). The plateau test catches
the run of seed 9 that stays at the rank-one saddle for all 1500 steps (½·MSE ≈ 0.175, loss ratio 0.84
at step 150; a converging run is at ratio ≈ 0.16 by then).
The paper-size run (d = 10, 3 layers) is ``icl-verify train deep``."""


DEEP_TEST_TASKS = 1 << 16
"""Test tasks of the 2-layer comparisons. The per-task losses of 2-step GD and GD++ are heavy-tailed (ill-conditioned
XᵀX), so with 2¹⁴ tasks the 99 % interval of loss(trained)/loss(GD++) was ±0.033 and seed 17 (ratio 0.982) reached
0.9497, just outside the band; 2¹⁶ tasks halve the width (evaluation is a small part of the cost, training the rest)."""


@cached(maxsize=32)
def deep_comparison(seed: int) -> dict[str, np.ndarray]:
    """Per-task losses and preds diffs of the trained 2-layer LSA, 2-step GD (η line-searched) and tuned 2-layer GD++."""
    model = lsa_model(trained(DEEP, seed).layers)
    tune = DEEP.sample(np.random.default_rng([seed, 11]), 10_000)
    eta = line_search_rate(tune, DEEP.n_layers)
    gdpp = gdpp_model(*tune_gdpp(tune, DEEP.n_layers, eta), DEEP.n_layers)
    gd = gd_model(eta, DEEP.n_layers)
    tasks = DEEP.sample(np.random.default_rng([seed, 10]), DEEP_TEST_TASKS, n_queries=MC_QUERIES, seed=seed)
    return {
        "trained": task_losses(model, tasks),
        "gd": task_losses(gd, tasks),
        "gdpp": task_losses(gdpp, tasks),
        "to_gd": preds_diff(model, gd, tasks),
        "to_gdpp": preds_diff(model, gdpp, tasks),
        "cos_gd": model_cos(model, gd, tasks),
        "cos_gdpp_gd": model_cos(gdpp, gd, tasks),
    }


def _ratio_of_means(r: dict[str, np.ndarray], num: str, den: str) -> float:
    """mean(num)/mean(den) of one run's test-task values."""
    return float(np.mean(r[num]) / np.mean(r[den]))


def _ratio_of_medians(r: dict[str, np.ndarray], num: str, den: str) -> float:
    """median(num)/median(den) of one run's test-task losses."""
    return float(np.median(r[num]) / np.median(r[den]))


def _ratio_measured(
    runs: Callable[[int], dict[str, np.ndarray]],
    ratio: Callable[[dict[str, np.ndarray], str, str], float],
    kind: str,
    context: Callable[[list[int]], str],
    *,
    median: bool = False,
) -> Callable[..., Measured]:
    """Measured claims on ``ratio(runs(run seed), num, den)`` of one training run's test-task values, over independent
    training runs (:func:`~icl_verify.families.optimal_lsa.training.across_runs`: the geometric mean, or with ``median``
    the median run), the runs described by ``context``."""

    def claim_on(
        num: str, den: str, *, predicted: float, tolerance: float = 0.0, test: Rule = Rule.EQUIVALENCE
    ) -> Measured:
        what = f"the ratio of {kind} {num}/{den} on its test tasks"
        return across_runs(
            lambda s: ratio(runs(s), num, den),
            what,
            predicted,
            tolerance,
            test=test,
            geometric=not median,
            median=median,
            context=context,
        )

    return claim_on


def _deep_context(seeds: list[int]) -> str:
    return settings(DEEP, seeds, DEEP_TEST_TASKS)


_deep_ratio = _ratio_measured(deep_comparison, _ratio_of_means, "means", _deep_context, median=True)
"""A measured claim on mean(num)/mean(den) of :func:`deep_comparison`: the median training run with its order-statistic
interval (:data:`~icl_verify.families.optimal_lsa.training.MEDIAN_LOOKS`; about 1 run in 14 stalls on a second
plateau)."""


DEEP_BEATS_GD = Claim(
    name="trained-2-layer-beats-2-step-gd",
    source="von Oswald et al. 2023, §4 and Fig. 3 (trained deeper LSA outperforms plain GD)",
    assumptions=("two weight-tied LSA layers, d = 5, N = 10, x ~ U(−½, ½)",),
    builds_on=("k-layers-equal-k-gd-steps",),
    statement=r"\mathrm{loss}(\text{trained 2-layer tied LSA}) / \mathrm{loss}(\text{2 GD steps}, \hat\eta) \le 0.9",
    checks=(_deep_ratio("trained", "gd", predicted=0.9, test=Rule.AT_MOST),),
    note="d = 5, N = 10, x ~ U(−½, ½); a one-sided test of ratio ≤ 0.9: 'at least 10 % better than tuned 2-step GD'.",
)

DEEP_MATCHES_GDPP = Claim(
    name="trained-2-layer-matches-gdpp",
    source="von Oswald et al. 2023, §4 and Fig. 3 (trained recurrent LSA ≈ GD++)",
    assumptions=("two weight-tied LSA layers, d = 5, N = 10, x ~ U(−½, ½)",),
    builds_on=("gdpp-update",),
    statement=r"\mathrm{loss}(\text{trained 2-layer tied LSA}) / \mathrm{loss}(\text{2-layer GD++}, \hat\eta, \hat\gamma) = 1 \pm 0.05",
    checks=(_deep_ratio("trained", "gdpp", predicted=1.0, tolerance=0.05),),
)

DEEP_CLOSER_TO_GDPP = Claim(
    name="trained-2-layer-closer-to-gdpp",
    source="von Oswald et al. 2023, Fig. 3 (preds diff to GD++ ≪ to GD)",
    assumptions=("two weight-tied LSA layers, d = 5, N = 10, x ~ U(−½, ½)",),
    builds_on=("gdpp-update", "k-layers-equal-k-gd-steps"),
    statement=r"E\|\hat y_\theta - \hat y_{GD{+}{+}}\| / E\|\hat y_\theta - \hat y_{GD}\| \le 0.5",
    checks=(_deep_ratio("to_gdpp", "to_gd", predicted=0.5, test=Rule.AT_MOST),),
)

DEEP_IS_PLAIN_GD = Claim(
    name="trained-2-layer-is-plain-gd",
    source="Tempting extrapolation of the 1-layer result to depth",
    assumptions=("two weight-tied LSA layers, d = 5, N = 10, x ~ U(−½, ½)",),
    statement=r"E\cos(\partial_{x_q}\hat y_\theta, \partial_{x_q}\hat y_{\text{2 GD steps}}) \ge 0.99",
    checks=(
        across_runs(
            lambda s: float(np.mean(deep_comparison(s)["cos_gd"])),
            "the mean cosine of its and 2-step GD's input gradients on its test tasks",
            1.0,
            0.01,
            median=True,
            context=_deep_context,
        ),
    ),
    holds=False,
    corrected=Corrected(measured=lambda seed: _gdpp_cosine(seed)),  # if the trained layers are GD++
    note=(
        "Two trained layers also transform the inputs (GD++'s x ← (I − γXXᵀ)x): not two plain GD steps. "
        "Control: read as GD++, the claim predicts the cosine of tuned GD++ with 2 GD steps on the same tasks."
    ),
)


def _gdpp_cosine(seed: int) -> float:
    """The cosine of tuned GD++ with 2 GD steps, the median over the first look's runs (the control's prediction)."""
    return float(np.median([np.mean(deep_comparison(s)["cos_gdpp_gd"]) for s in run_seeds(seed, MEDIAN_LOOKS[0])]))


# ---------------------------------------------------------------------------------------------
# Three untied layers vs three GD steps and GD++ (von Oswald et al. §4, Fig. 3), tied start then untied

DEEP3_TIED = TrainConfig(
    nx=5,
    n_context=10,
    n_layers=3,
    recurrent=True,
    steps=1000,
    batch=256,
    lr=5e-3,
    schedule="cosine",
    clip=1.0,
    **ESCAPE,
)
"""Phase 1 of the untied 3-layer run: d = 5, N = 10, x ~ U(−½, ½) as in :data:`DEEP`; 3 weight-tied layers,
1000 Adam steps, batch 256, lr 5e-3 cosine, global-norm clip 1, the plateau test of the 600-step runs."""
DEEP3 = replace(DEEP3_TIED, recurrent=False, steps=2000, lr=1e-2, escape_step=0, restarts=0)
"""Phase 2: the three layers untied (copies of the tied layer), 2000 more Adam steps at lr 1e-2 cosine, clip 1.
From N(0, 0.01²) weights without the tied phase (3000 steps, batch 256, lr 1e-2 cosine, clip 10) training
seeds 0–3 ended at 0.46, 1.71, 2.71 and 0.51 × the loss of tuned GD++: a layer can stay near zero that long."""


@cached(maxsize=8)
def trained_untied(seed: int) -> UntiedResult:
    """The 3-layer LSA trained weight-tied, then untied (:func:`numerics.lsa.deep_training.train_tied_then_untied`)."""
    return train_tied_then_untied(DEEP3_TIED, DEEP3, seed)


@cached(maxsize=8)
def untied_comparison(seed: int) -> dict[str, np.ndarray]:
    """Per-task losses of the untied 3-layer LSA, 3-step GD (η line-searched) and tuned 3-layer GD++ (η, γ)."""
    model = lsa_model(trained_untied(seed).layers)
    tune = DEEP3.sample(np.random.default_rng([seed, 11]), 10_000)
    eta = line_search_rate(tune, DEEP3.n_layers)
    gdpp = gdpp_model(*tune_gdpp(tune, DEEP3.n_layers, eta), DEEP3.n_layers)
    tasks = DEEP3.sample(np.random.default_rng([seed, 10]), TEST_TASKS, n_queries=MC_QUERIES, seed=seed)
    return {
        "trained": task_losses(model, tasks),
        "tied": task_losses(lsa_model(trained_untied(seed).tied.layers), tasks),
        "gd": task_losses(gd_model(eta, DEEP3.n_layers), tasks),
        "gdpp": task_losses(gdpp, tasks),
    }


def _untied_context(seeds: list[int]) -> str:
    notes = [f"run seed {s}: tied phase {note}" for s in seeds if (note := trained_untied(s).tied.restart_note())]
    return (
        f"{DEEP3_TIED.steps} tied + {DEEP3.steps} untied Adam steps, batch {DEEP3.batch}, lr {DEEP3_TIED.lr:g} then"
        f" {DEEP3.lr:g} cosine per run, {TEST_TASKS} test tasks per run" + (f"; {'; '.join(notes)}" if notes else "")
    )


_untied_ratio = _ratio_measured(untied_comparison, _ratio_of_medians, "median task losses", _untied_context)
"""A measured claim on the ratio of median task losses of :func:`untied_comparison`, t-interval over training runs."""


UNTIED_ASSUMPTIONS = (
    "three untied LSA layers, d = 5, N = 10, x ~ U(−½, ½)",
    "trained weight-tied for 1000 steps, then untied for 2000",
    "compared on the median task (the mean is dominated by rare tasks)",
)
UNTIED_MEDIAN_NOTE = (
    "Median, not mean, task loss: on 2¹⁶ test tasks, at check seeds 3 and 6 one task has ½·MSE 1005 and 50 under the "
    "trained layers (GD++'s worst: 2.2 and 2.7; median 1.7·10⁻⁴ against 1.0·10⁻³), so the 99 % interval of the "
    "mean-loss ratio spans [−5, 11] and the mean comparison is undecided there, while seed 0's is 0.16 "
    "[0.15, 0.17]. Three layers compute a high-degree polynomial of the context, accurate on the bulk of the "
    "spectrum of XᵀX and far off on rare tasks outside it; training clips the gradients of those batches."
)

UNTIED_BEATS_GD = Claim(
    name="trained-3-layer-untied-beats-3-step-gd",
    source="von Oswald et al. 2023, §4 and Fig. 3 (trained deeper LSA outperforms plain GD)",
    assumptions=UNTIED_ASSUMPTIONS,
    builds_on=("k-layers-equal-k-gd-steps",),
    statement=r"\mathrm{med}\,\ell(\text{trained 3-layer untied LSA}) / \mathrm{med}\,\ell(\text{3 GD steps}, \hat\eta) \le 0.9",
    checks=(_untied_ratio("trained", "gd", predicted=0.9, test=Rule.AT_MOST),),
    note="The one-sided test of ratio ≤ 0.9 encodes 'at least 10 % better than tuned 3-step GD', as for two tied layers. "
    + UNTIED_MEDIAN_NOTE,
)

UNTIED_REACHES_GDPP = Claim(
    name="trained-3-layer-untied-reaches-gdpp",
    source="von Oswald et al. 2023, §4 and Fig. 3 (trained deeper LSA approaches GD++)",
    assumptions=UNTIED_ASSUMPTIONS,
    builds_on=("gdpp-update",),
    statement=r"\mathrm{med}\,\ell(\text{trained 3-layer untied LSA}) / \mathrm{med}\,\ell(\text{3-layer GD++}, \hat\eta, \hat\gamma) \le 1",
    checks=(_untied_ratio("trained", "gdpp", predicted=1.0, test=Rule.AT_MOST),),
    note=(
        "Three untied layers set to θ_GD++(η, γ) (paper eq. 23) are 3-layer GD++, so untied LSA can do at least as "
        "well as GD++: the one-sided bound 1 is that bound, not a fit. Measured, the trained layers go well below it on the "
        "typical task (noiseless tasks with N > d have zero Bayes risk, which GD++ does not reach in three steps); "
        "'matches GD++' (ratio ≈ 1), true of two tied layers, is not what untied layers do here. Without the tied "
        "phase the same budget ended at 0.46–2.7 × GD++'s mean loss over training seeds 0–3. " + UNTIED_MEDIAN_NOTE
    ),
)


def _untied_curve_data(seed: int = 0) -> dict:
    """Training loss of the tied-then-untied 3-layer run (50-step running mean) and the mean test ½·MSE levels."""
    losses, window = trained_untied(seed).all_losses, 50
    r = untied_comparison(seed)
    return {
        "step": np.arange(window, losses.size + 1),
        "loss": np.convolve(losses, np.ones(window) / window, mode="valid"),
        "untie": np.array([DEEP3_TIED.steps]),
        "levels": np.array([np.mean(r[k]) for k in ("gd", "gdpp", "trained")]),
    }


def _draw_untied_curve(ax, data) -> None:
    ax.semilogy(data["step"], data["loss"], color="tab:blue", label="training ½·MSE (50-step mean)")
    ax.axvline(data["untie"][0], color="0.5", ls=":", label="layers untied")
    for level, style, label in zip(
        data["levels"], ("--", "-.", "-"), ("3-step GD (η̂), test", "3-layer GD++ (η̂, γ̂), test", "trained untied, test")
    ):
        ax.axhline(level, color="tab:red" if "GD" in label else "tab:blue", ls=style, lw=1, label=label)
    ax.set_xlabel("Adam step (weight-tied, then untied)")
    ax.set_ylabel("½·MSE on the query")
    ax.legend(loc="lower left")


UNTIED_CURVE = Figure(
    name="untied-3-layer-training",
    caption="Three LSA layers on d = 5, N = 10, x ~ U(−½, ½) (seed 0): 1000 Adam steps weight-tied, then the "
    "layers untied for 2000 more. The tied phase stays above 3-layer GD++; once untied, the layers go below it "
    "(horizontal lines: mean test ½·MSE of tuned 3-step GD, tuned GD++ and the trained layers). The spikes are "
    "batches holding one of the rare tasks on which the untied layers err badly; the claims therefore compare "
    "median task losses.",
    data=_untied_curve_data,
    draw=_draw_untied_curve,
)
