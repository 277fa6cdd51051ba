"""Bimodality of the final ICL accuracy near the threshold K* (Nguyen & Reddy 2025, §3.5–3.6).

A run acquires ICL iff its clock τ(∞) = I_K(∞)/N passes the blow-up time τ*(w₀, β₀) ∝ e^{−β₀}
(§3.5; claim ``kinetics-icl-iff-integral-exceeds``). Far from K* every run lands on the same side;
near K* the side depends on the run — on its initial attention β₀ (the acquisition time is
exponential in it) and on how fast its MLP memorises — and nothing in between is stable: the
attention path either blows up (ICL accuracy → 1) or stops when c₁ → 0 (accuracy near ½). So the
final ICL accuracy over runs has two modes near K* and one far from it.

:func:`final_icl_accuracies` trains reduced models (``numerics.kinetics.models``), one per seed and
β₀ (:func:`initial_betas`); :func:`dip_test` is Hartigan & Hartigan's dip test of unimodality
(Ann. Statist. 13, 1985; the ``diptest`` package, p-value from its table of the dip's null
distribution). Accuracies are counts over a finite evaluation set, so they tie; the dip test is
scale-free and reads a few tied levels a grid step apart as modes. :func:`dip_test` therefore first
adds seeded Gaussian noise of the accuracy's resolution (:func:`accuracy_resolution`), which removes
structure finer than the measurement can resolve and keeps the modes the theory is about.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import diptest
import numpy as np

from icl_verify.errors import InvalidArgument
from icl_verify.numerics.kinetics import models as icl_models
from icl_verify.numerics.shared.checks import finite_array, finite_scalar, positive_int, same_size, seed_value
from icl_verify.numerics.shared.fuzz import Fuzz

MIN_VALUES = 4
"""The dip of three or fewer points is 0 whatever they are: the test needs at least four."""


@dataclass(frozen=True)
class DipTest:
    """Hartigan's dip statistic of a sample, its p-value under unimodality, the sample size and the noise added."""

    dip: float
    p_value: float
    n: int
    resolution: float
    seed: int


def initial_betas(seed: int, count: int, half_width: float) -> np.ndarray:
    """β₀ of ``count`` runs, independent and uniform on [−half_width, half_width] (a stream of its own:
    ``numpy.random.default_rng([seed, count])``, independent of the runs' training streams)."""
    seed = seed_value("seed", seed)
    count = positive_int("count", count)
    half_width = finite_scalar("half_width", half_width, nonnegative=True)
    return np.random.default_rng([seed, count]).uniform(-half_width, half_width, count)


def final_icl_accuracies(config: icl_models.ReducedConfig, seeds: Sequence[int], betas: Sequence[float]) -> np.ndarray:
    """Final ICL accuracy (the last record, novel items with the query in the context) of one
    reduced-model run per (seed, β₀); ``config`` gives everything else (its own β₀ is replaced). The runs are
    trained as one stack (:func:`~icl_verify.numerics.kinetics.models.train_reduced_together`: each the run
    :func:`~icl_verify.numerics.kinetics.models.train_reduced` gives)."""
    betas = finite_array("betas", betas, ndim=1, nonempty=True)
    same_size("seeds", len(seeds), betas.size, "length len(betas)")
    runs = icl_models.train_reduced_together([replace(config, beta0=float(b)) for b in betas], list(seeds))
    return np.array([run.icl_acc[-1] for run in runs])


def accuracy_resolution(eval_batch: int) -> float:
    """1/(2√m): the largest binomial standard error √(a(1 − a)/m) of an accuracy a measured on m sequences."""
    return 0.5 / float(np.sqrt(positive_int("eval_batch", eval_batch)))


def dip_test(values: Sequence[float], *, resolution: float, seed: int) -> DipTest:
    """Dip test of unimodality of ``values`` + N(0, resolution²) noise (seeded ``seed``; see module docstring).

    A small p-value rejects unimodality: the sample is at least bimodal.
    """
    x = finite_array("values", values, ndim=1)
    if x.size < MIN_VALUES:
        raise InvalidArgument(f"values must have at least {MIN_VALUES} entries for a dip test, got {x.size}")
    resolution = finite_scalar("resolution", resolution, nonnegative=True)
    seed = seed_value("seed", seed)
    smoothed = x + np.random.default_rng(seed).normal(0.0, resolution, x.size)
    dip, p = diptest.diptest(smoothed)
    return DipTest(float(dip), float(p), int(x.size), resolution, seed)


# ---------------------------------------------------------------------------------------------
# Examples for the bad-input fuzzer (numerics.shared.fuzz)

FUZZ = {
    "initial_betas": Fuzz(lambda: {"seed": 0, "count": 4, "half_width": 1.0}),
    "accuracy_resolution": Fuzz(lambda: {"eval_batch": 256}),
    "dip_test": Fuzz(lambda: {"values": np.array([0.5, 0.55, 0.6, 1.0, 1.0]), "resolution": 0.03, "seed": 0}),
}
FUZZ_EXEMPT = {
    "final_icl_accuracies": "trains reduced models on a validated ReducedConfig (its own arguments' checks are tested)",
}
