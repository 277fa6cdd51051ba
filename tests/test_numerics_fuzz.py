"""Bad input against the public numerics API.

Every public function of ``icl_verify.numerics`` is found by introspection and must appear either in
:data:`TABLE` (valid arguments, which the fuzzer corrupts one argument at a time) or in :data:`EXEMPT`
(with the reason it is not fuzzed here), so a new function cannot be forgotten. Hypothesis picks the
argument, the corruption and, for arrays, the corrupted entry. The property:

* NaN, ±inf and a string are always refused: ``ValueError`` (or ``TypeError``) with a one-line message
  naming the argument;
* zero, negative, huge (±1e300), tiny, wrong-shape, empty and ``None`` values (and a non-integer for an
  integer argument) are either refused the same way or give a finite result — never a NaN/inf, never
  another exception or a message without the name.

Explicit examples found by hand follow the fuzzer, each with its expected message.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import pkgutil
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import icl_verify.numerics as numerics
from icl_verify.numerics import dual
from icl_verify.numerics.kinetics import ode
from icl_verify.numerics.lsa import alignment, constructions, layers, regression
from icl_verify.numerics.raw import compiler, learners, primitives, programs, transformer
from icl_verify.numerics.scaling import fits, memorization
from icl_verify.numerics.shared import stats


def public_functions() -> dict[str, Callable[..., Any]]:
    """``group.module.name`` → function, for every public function defined in an ``icl_verify.numerics`` module."""
    found = {}
    for info in pkgutil.walk_packages(numerics.__path__, "icl_verify.numerics."):
        module = importlib.import_module(info.name)
        for name, obj in vars(module).items():
            if not name.startswith("_") and inspect.isfunction(obj) and obj.__module__ == module.__name__:
                found[f"{info.name.removeprefix('icl_verify.numerics.')}.{name}"] = obj
    return found


def _rng(seed: int = 0) -> np.random.Generator:
    return np.random.default_rng(seed)


def _lin(n: int = 5, d: int = 2, seed: int = 0) -> dict[str, np.ndarray]:
    r = _rng(seed)
    X = r.standard_normal((n, d))
    return {"X": X, "y": X @ np.arange(1.0, d + 1) + 0.1 * r.standard_normal(n)}


def _batch() -> dict[str, np.ndarray]:
    r = _rng(1)
    return {"W": r.standard_normal((2, 1, 3)), "X": r.standard_normal((2, 4, 3)), "Y": r.standard_normal((2, 4, 1))}


def _attention() -> dict[str, np.ndarray]:
    r = _rng(2)
    return {"values": r.standard_normal((4, 3)), "keys": r.standard_normal((4, 2)), "q": r.standard_normal(2)}


def _dual_w() -> dict[str, np.ndarray]:
    r = _rng(3)
    return {"W_V": r.standard_normal((3, 2)), "W_K": r.standard_normal((3, 2))}


def _tokens() -> dict[str, np.ndarray]:
    r = _rng(4)
    return {"demos": r.standard_normal((3, 2)), "text": r.standard_normal((2, 2)), "q": r.standard_normal(3)}


def _pairs() -> dict[str, np.ndarray]:
    r = _rng(6)
    return {"X": r.standard_normal((3, 2)), "Y": r.standard_normal((3, 1)), "x_q": r.standard_normal(2)}


def _heads() -> dict[str, np.ndarray]:
    r = _rng(7)
    return {
        "context": r.standard_normal((4, 3)),
        "W_V": r.standard_normal((2, 3)),
        "M": r.standard_normal((3, 3)),
        "query": r.standard_normal(3),
    }


def _ft() -> dict[str, np.ndarray]:
    r = _rng(11)
    return {"W_V": r.standard_normal((3, 2)), "W_K": r.standard_normal((2, 2)), "text": r.standard_normal((2, 2))} | {
        "targets": r.standard_normal((4, 3)),
        "queries": r.standard_normal((4, 2)),
    }


def _power(seed: int = 5) -> dict[str, np.ndarray]:
    x = np.repeat([10.0, 20.0, 40.0, 80.0], 3)
    return {"x": x, "y": 2 * x**0.7 * np.exp(0.05 * _rng(seed).standard_normal(x.size))}


def _sigmoid() -> dict[str, np.ndarray]:
    u = np.linspace(0.0, 2.0, 9)
    return {"u": u, "acc": 0.5 + 0.5 / (1 + np.exp(-(u - 1.0) / 0.1))}


def _threshold() -> dict[str, np.ndarray]:
    n = np.repeat([4.0, 8.0], 9)
    k = np.tile(np.geomspace(4, 400, 9), 2)
    centre = np.log10(np.where(n == 4, 20.0, 60.0))
    return {"n": n, "k": k, "acc": 0.5 + 0.5 / (1 + np.exp(-(np.log10(k) - centre) / 0.1))}


def _series() -> dict[str, np.ndarray]:
    t = np.array([0.0, 1.0, 2.0, 4.0])
    return {"times": t, "c1": np.array([0.5, 0.3, 0.1, 0.01])}


def _mul_program() -> primitives.Program:
    return primitives.Program(1, 3, (primitives.Mul(1, 1, 1, (0, 1), (1, 2), (2, 3)),))


@dataclasses.dataclass(frozen=True)
class Case:
    """Valid keyword arguments (built fresh per call) and what the fuzzer may corrupt.

    ``infinite``: arguments where ±inf is meaningful (a quantity that blew up); ``nan_result``: the
    function documents NaN entries in its result (e.g. 'not reached before t_max')."""

    args: Callable[[], dict[str, Any]]
    fixed: frozenset[str] = frozenset()
    infinite: frozenset[str] = frozenset()
    nan_result: bool = False


def _case(args: Callable[[], dict[str, Any]], *, fixed=(), infinite=(), nan_result=False) -> Case:
    return Case(args, frozenset(fixed), frozenset(infinite), nan_result)


def _sol(**kw) -> dict[str, Any]:
    return {"w0": np.array([0.0, 0.5]), "beta0": np.array([0.0, -1.0]), "n": 10.0, "t_max": 3.0} | kw


TABLE: dict[str, Case] = {
    # shared.stats
    "shared.stats.student_interval": _case(lambda: {"estimate": 1.0, "se": 0.2, "dof": 4, "level": 0.9}),
    "shared.stats.t_interval": _case(lambda: {"values": np.array([1.0, 2.0, 4.0]), "level": 0.9}),
    "shared.stats.fit_line": _case(lambda: {"x": np.arange(5.0), "y": 2 * np.arange(5.0) + 1, "level": 0.9}),
    # lsa.regression
    "lsa.regression.linreg_loss": _case(_batch),
    "lsa.regression.linreg_grad": _case(_batch),
    "lsa.regression.gd": _case(lambda: {"W0": _batch()["W"], "X": _batch()["X"], "Y": _batch()["Y"], "eta": 0.1}),
    "lsa.regression.half_mse": _case(lambda: {"pred": np.arange(3.0), "target": np.ones(3)}),
    "lsa.regression.sample_tasks": _case(
        lambda: {"rng": _rng(), "batch": 2, "n_context": 3, "nx": 2, "x_range": 1.0, "noise_std": 0.1}, fixed={"rng"}
    ),
    # lsa.layers
    "lsa.layers.theta_gd": _case(lambda: {"nx": 2, "ny": 1, "eta": 0.1, "n_context": 4}),
    "lsa.layers.theta_gdpp": _case(lambda: {"nx": 2, "ny": 1, "eta": 0.1, "gamma": 0.2, "n_context": 4}),
    "lsa.layers.make_tokens": _case(
        lambda: {"X": _batch()["X"], "Y": _batch()["Y"], "x_q": _rng().standard_normal((2, 1, 3))}
    ),
    "lsa.layers.residual_mlp": _case(
        lambda: {"x": np.ones((2, 3)), "W1": np.ones((4, 3)), "b1": np.zeros(4), "W2": np.ones((3, 4))}
    ),
    # lsa.alignment
    "lsa.alignment.mean_interval": _case(lambda: {"samples": np.array([1.0, 2.0, 2.5]), "z": 2.0}),
    "lsa.alignment.gd_model": _case(lambda: {"eta": 0.1, "steps": 2}),
    "lsa.alignment.gdpp_model": _case(lambda: {"eta": 0.1, "gamma": 0.1, "steps": 2}),
    "lsa.alignment.gd_reference": _case(lambda: {"nx": 2, "ny": 1, "eta": 0.1, "n_context": 4}),
    "lsa.alignment.fit_preconditioner": _case(
        lambda: {"moments": alignment.preconditioner_moments(regression.sample_tasks(_rng(), 64, 8, 2, n_queries=4))}
    ),
    # lsa.constructions
    "lsa.constructions.interleaved_tokens": _case(_pairs),
    "lsa.constructions.copy_partner": _case(lambda: {"n_tokens": 7}),
    "lsa.constructions.copy_weights": _case(lambda: {"nx": 2, "ny": 1, "n_tokens": 7}),
    "lsa.constructions.copy_layer": _case(
        lambda: {"tokens": constructions.interleaved_tokens(**_pairs()), "nx": 2, "ny": 1, "scale": 10.0}
    ),
    "lsa.constructions.lsa_output": _case(_heads),
    "lsa.constructions.centred_lsa": _case(_heads),
    "lsa.constructions.two_head_difference": _case(lambda: _heads() | {"eps": 0.01}),
    # dual
    "dual.linear_attention": _case(_attention),
    "dual.softmax_attention": _case(_attention),
    "dual.icl_attention": _case(lambda: _dual_w() | _tokens() | {"use_softmax": True}, fixed={"use_softmax"}),
    "dual.zero_shot_weight": _case(lambda: _dual_w() | {"text": _tokens()["text"]}),
    "dual.delta_w_icl": _case(lambda: _dual_w() | {"demos": _tokens()["demos"]}),
    "dual.demo_mass": _case(lambda: {"W_K": _dual_w()["W_K"]} | _tokens()),
    "dual.dual_form_prediction": _case(
        lambda: {"W0": np.ones((2, 3)), "errors": np.ones((4, 2)), "train_inputs": np.ones((4, 3)), "x": np.ones(3)}
    ),
    "dual.momentum_explicit": _case(lambda: {"values": np.ones((4, 2)), "eta": 0.9}),
    "dual.momentum_ema": _case(lambda: {"values": np.ones((4, 2)), "eta": 0.9}),
    # dual_metrics, dual_finetune, dual_critiques
    "dual_metrics.rec2ftp": _case(
        lambda: {
            "zsl_correct": np.array([0.0, 0, 1, 1]),
            "ft_correct": np.array([1.0, 1, 1, 0]),
            "icl_correct": np.ones(4),
        }
    ),
    "dual_metrics.sim_aou": _case(lambda: dict(zip(("h_zsl", "h_icl", "h_ft"), _rng(6).standard_normal((3, 4))))),
    "dual_metrics.sim_am": _case(lambda: dict(zip(("m_icl", "m_ft"), _rng(7).uniform(0.1, 1.0, (2, 4))))),
    "dual_metrics.sim_am_delta": _case(lambda: dict(zip(("m_zsl", "m_icl", "m_ft"), _rng(8).uniform(0.1, 1, (3, 4))))),
    "dual_metrics.kendall_tau_a": _case(lambda: {"x": np.array([1.0, 2, 3, 4]), "y": np.array([2.0, 1, 4, 3])}),
    "dual_finetune.linear_loss_gradients": _case(lambda: _ft()),
    "dual_finetune.finetune_step": _case(lambda: _ft() | {"lr": 0.1, "train_keys": True}, fixed={"train_keys"}),
    "dual_finetune.delta_w_ft": _case(lambda: _ft() | {"lr": 0.1, "train_keys": True}, fixed={"train_keys"}),
    "dual_critiques.noise_sim_aou": _case(lambda: {"d": 3, "samples": 5, "seed": 0}),
    "dual_critiques.noisy_copies_sim_aou": _case(lambda: {"d": 3, "sigma": 1.0, "samples": 5, "seed": 0}),
    "dual_critiques.causal_softmax_stack": _case(
        lambda: {
            "tokens": _rng(9).standard_normal((3, 2)),
            "W": _rng(10).standard_normal((2, 2)),
            "layers": 2,
            "causal": True,
        },
        fixed={"causal"},
    ),
    "dual_critiques.full_batch_gd": _case(
        lambda: {"X": _lin()["X"], "Y": _lin()["y"][:, None], "W0": np.zeros((1, 2)), "lr": 0.05, "steps": 3}
    ),
    "dual_critiques.gd_attention": _case(lambda: {"d": 3, "n": 5}),
    "dual_critiques.model_sim_aou": _case(
        lambda: (
            dict(zip(("W_V", "W_K"), _rng(13).standard_normal((2, 3, 3))))
            | {"demos": _rng(14).standard_normal((4, 3)), "text": _rng(15).standard_normal((2, 3))}
            | {"q": _rng(16).standard_normal(3), "lr": 0.1}
        )
    ),
    "dual_critiques.untrained_vs_trained": _case(
        lambda: {"d": 2, "n": 3, "n_text": 2, "samples": 3, "seed": 0, "lr": 0.1}
    ),
    # literature (Fu, Garg, Raventós, Zhang–Frei–Bartlett)
    "literature.newton.newton_iterates": _case(lambda: {"S": np.diag([1.0, 2.0]), "alpha": 0.1, "steps": 3}),
    "literature.newton.newton_residual": _case(lambda: {"S": np.diag([1.0, 2.0]), "alpha": 0.1, "k": 3}),
    "literature.newton.boundary_rate": _case(lambda: {"S": np.diag([1.0, 2.0])}),
    "literature.baselines.least_squares_errors": _case(
        lambda: {"k": 3, "d": 2, "noise_std": 0.5, "tasks": 4, "seed": 0}
    ),
    "literature.dmmse.dmmse_weights": _case(
        lambda: _lin() | {"tasks": _rng(12).standard_normal((6, 2)), "sigma2": 0.5}
    ),
    "literature.dmmse.dmmse_ridge_gaps": _case(
        lambda: _lin() | {"sigma2": 0.5, "Ms": np.array([2.0, 4.0]), "pools": 2, "seed": 0}
    ),
    "literature.shift.zfb_preconditioner": _case(lambda: {"Lambda": np.diag([1.0, 2.0]), "n": 5}),
    "literature.shift.shifted_risk": _case(
        lambda: {"A": np.eye(2), "Lambda_test": np.diag([1.0, 2.0]), "Sigma_w": np.eye(2), "m": 5}
    ),
    "literature.shift.simulated_errors": _case(
        lambda: {
            "A": np.eye(2),
            "Lambda_test": np.diag([1.0, 2.0]),
            "Sigma_w": np.eye(2),
            "m": 5,
            "prompts": 4,
            "seed": 0,
        }
    ),
    # raw.learners
    "raw.probe.best_gd_rate": _case(lambda: {"n": 8, "d": 4, "noise_std": 0.5}),
    "raw.probe.paired_log_ratios": _case(lambda: {"a": np.array([1.0, 2.0, 3.0]), "b": np.array([1.0, 1.5, 1.0])}),
    "raw.probe.ratio_of_means": _case(lambda: {"a": np.array([1.0, 2.0, 3.0]), "b": np.array([1.0, 1.5, 1.0])}),
    "raw.learners.ols_weights": _case(_lin),
    "raw.learners.ridge_weights": _case(lambda: _lin() | {"lam": 0.5}),
    "raw.learners.gd_step_weights": _case(lambda: _lin() | {"alpha": 0.01, "lam": 0.1, "w0": np.zeros(2)}),
    "raw.learners.sgd_weights": _case(lambda: _lin() | {"alpha": 0.01, "lam": 0.1, "w0": np.zeros(2)}),
    "raw.learners.bayes_weights": _case(lambda: _lin() | {"sigma2": 0.25, "tau2": 1.0}),
    "raw.learners.knn": _case(lambda: _lin() | {"X_query": np.ones((2, 2)), "k": 2}),
    "raw.learners.learners": _case(lambda: {"lam": 0.1, "alpha": 0.01, "sigma2": 0.25, "tau2": 1.0, "k": 3}),
    "raw.learners.spd": _case(
        lambda: (
            {"a1": learners.linear(learners.ols_weights), "a2": learners.knn, "n": 4, "d": 2, "seed": 0}
            | {"n_tasks": 3, "n_queries": 2, "noise_std": 0.1}
        ),
        fixed={"a1", "a2"},
    ),
    "raw.learners.ilwd": _case(
        lambda: (
            {"a1": learners.linear(learners.ols_weights), "a2": learners.linear(learners.ridge_weights, lam=0.5)}
            | {"n": 4, "d": 2, "seed": 0, "n_tasks": 3, "n_probes": 4, "noise_std": 0.1}
        ),
        fixed={"a1", "a2"},
    ),
    # raw.programs
    "raw.programs.encode_examples": _case(
        lambda: {"X": np.ones((2, 2)), "y": np.ones(2), "x_query": np.ones(2), "D": 6}
    ),
    "raw.programs.theorem1": _case(lambda: {"d": 2, "w": np.array([0.5, -0.5]), "alpha": 0.1, "lam": 0.2}),
    "raw.programs.theorem2": _case(lambda: {"d": 2, "lam": 0.5}),
    "raw.programs.sgd_chain": _case(lambda: {"n": 2, "d": 2, "w0": np.zeros(2), "alpha": 0.1, "lam": 0.2}),
    "raw.programs.ridge_chain": _case(lambda: {"n": 2, "d": 2, "lam": 0.5}),
    # raw.transformer and raw.compiler
    "raw.transformer.gelu": _case(lambda: {"x": np.linspace(-2, 2, 5)}),
    "raw.transformer.layer_norm": _case(lambda: {"z": np.arange(6.0).reshape(2, 3), "eps": 1e-6}),
    "raw.transformer.causal_softmax": _case(lambda: {"scores": np.arange(9.0).reshape(3, 3)}),
    "raw.compiler.compile_program": _case(lambda: {"program": _mul_program(), "rtol": 1e-4}, fixed={"program"}),
    # kinetics.ode
    "kinetics.ode.constant": _case(lambda: {"value": 0.5}),
    "kinetics.ode.table": _case(lambda: {"times": _series()["times"], "values": _series()["c1"]}),
    "kinetics.ode.integrate": _case(_sol, nan_result=True),
    "kinetics.ode.blowup_times": _case(_sol, nan_result=True),
    "kinetics.ode.exact_attention_loss": _case(lambda: {"u": 1.0, "w": 0.5, "beta": 1.0, "n": 4}),
    "kinetics.ode.tau_star": _case(lambda: {"w0": np.array([0.0, 1.0]), "beta0": np.array([0.0, -2.0])}),
    "kinetics.ode.tau_star_slaved": _case(lambda: {"c2": np.array([0.5]), "beta0": np.array([-3.0])}),
    "kinetics.ode.t_icl_infinite_k": _case(lambda: {"n": np.array([10.0, 20.0]), "beta0": np.array([0.0])}),
    "kinetics.ode.clock": _case(lambda: _series() | {"n": 10.0}),
    # scaling.memorization
    "scaling.memorization.memorization_integral": _case(_series),
    "scaling.memorization.first_crossing": _case(
        lambda: {"times": _series()["times"], "values": np.array([0.1, 0.4, 0.8, 1.0]), "threshold": 0.5},
        infinite={"values"},
    ),
    "scaling.memorization.converged": _case(lambda: _series() | {"c1_tol": 0.05, "rtol": 0.1}),
    "scaling.memorization.sweep_job": _case(lambda: {"config": {"ks": [4], "seeds": [0], "settings": {"bad": 1}}}),
    # scaling.fits
    "scaling.fits.loglog_fit": _case(_power),
    "scaling.fits.nonlinear_fit": _case(_power),
    "scaling.fits.fit": _case(_power),
    "scaling.fits.bootstrap_exponents": _case(lambda: _power() | {"n_boot": 20, "rng": _rng()}, fixed={"rng"}),
    "scaling.fits.residual_diagnostics": _case(lambda: _power() | {"law": fits.PowerLaw(2.0, 0.7)}, fixed={"law"}),
    "scaling.fits.holdout_error": _case(lambda: _power() | {"n_holdout": 1}),
    "scaling.fits.small_sample_factor": _case(lambda: {"level": 0.95, "dof": 3}),
    "scaling.fits.fit_power_law": _case(lambda: _power() | {"n_boot": 20, "rng": _rng(), "level": 0.9}, fixed={"rng"}),
    "scaling.fits.fit_sigmoid": _case(_sigmoid),
    "scaling.fits.fit_threshold": _case(lambda: _threshold() | {"rng": _rng(), "n_boot": 5}, fixed={"rng"}),
    # scaling.bimodality
    "scaling.bimodality.initial_betas": _case(lambda: {"seed": 0, "count": 4, "half_width": 1.0}),
    "scaling.bimodality.accuracy_resolution": _case(lambda: {"eval_batch": 256}),
    "scaling.bimodality.dip_test": _case(
        lambda: {"values": np.array([0.5, 0.55, 0.6, 1.0, 1.0]), "resolution": 0.03, "seed": 0}
    ),
}

EXEMPT: dict[str, str] = {
    # validators themselves: unit-tested in tests/test_checks.py
    **{
        f"shared.checks.{n}": "a validator (tests/test_checks.py)"
        for n in [
            "positive_int",
            "confidence_level",
            "nonnegative_int",
            "seed_value",
            "finite_scalar",
            "finite_array",
            "same_size",
            "time_series",
            "well_conditioned",
            "finite_result",
        ]
    },
    **{f"raw.primitives.{n}": "a validator of the RAW primitives" for n in ("hidden_state", "unit_range", "weights")},
    "raw.primitives.is_exact": "a predicate: every value is a valid input",
    "scaling.memorization.even_k": "a validator of K",
    # resumable sweeps and BLAS threads: tested with real signals in tests/test_sweep*.py
    **{
        f"shared.sweep.{n}": "resumable sweeps (tests/test_sweep.py)"
        for n in [
            "function_name",
            "config_hash",
            "load_results",
            "open_results",
            "record_checksum",
            "local_executor",
            "dask_executor",
            "run_job",
            "run_sweep",
        ]
    },
    "shared.threads.blas_threads": "BLAS thread pinning (tests/test_threads.py)",
    **{
        f"lsa.layers.{n}": "an array kernel of lsa_update and the trainer, on arrays they checked (tests/test_lsa.py)"
        for n in ("stack_times", "times_stack", "attention_maps")
    },
    # inner-loop kernels on arrays the trainers build and validate at their entry (MemorizationSettings,
    # ReducedConfig, TransformerConfig, TrainConfig); a check per call would cost the trainers' time
    **{
        f"shared.mlp.{n}": "MLP kernel inside the trainers"
        for n in [
            "init_mlp",
            "init_stacked",
            "mlp_forward",
            "mlp_backward",
            "mlp_input_gradient",
            "bce",
            "bce_gradient",
        ]
    },
    **{
        f"kinetics.models.{n}": "reduced-model kernel or trainer on a validated ReducedConfig"
        for n in ["attention_logit", "reduced_forward", "reduced_loss_grads", "accuracy", "mlp_constants", "sgd_step"]
    },
    "kinetics.models.train_reduced": "trainer: its ReducedConfig validates every field (tests/test_icl_models.py)",
    "kinetics.models.ode_for_run": "takes a finished ReducedRun",
    **{
        f"kinetics.transformer.{n}": "transformer kernel on a validated TransformerConfig"
        for n in ["init_transformer", "tokens", "forward", "loss_grads", "sgd_step", "accuracy"]
    },
    "kinetics.transformer.train_transformer": "trainer: TransformerConfig validates every field",
    **{
        f"kinetics.task.{n}": "task sampler on a validated ItemLabelTask (tests/test_icl_task.py)"
        for n in [
            "make_task",
            "sample_training",
            "sample_icl_eval",
            "sample_iwl_eval",
            "sample_training_scores",
            "sample_icl_eval_scores",
            "sample_iwl_eval_scores",
        ]
    },
    "kinetics.task.gram": "Gram matrix of a task's validated items, formed by make_task (tests/test_icl_task.py)",
    **{
        f"lsa.deep_training.{n}": "tie-then-untie training on validated TrainConfigs; mismatched or wrongly tied "
        "configs and results are refused (tests/test_lsa_deep.py)"
        for n in ["untie", "continue_training", "train_tied_then_untied"]
    },
    **{
        f"lsa.training.{n}": "LSA meta-training kernel on a validated TrainConfig (tests/test_lsa_training.py)"
        for n in [
            "init_layers",
            "as_params",
            "loss_and_grads",
            "clip_by_global_norm",
            "learning_rate",
            "batch_tokens",
            "run_steps",
            "train",
        ]
    },
    "scaling.memorization.sample_items": "sampler inside the memorization trainer",
    "scaling.memorization.constants": "c₁, c₂, c₃ of logits inside the memorization trainer",
    "scaling.memorization.memorize": "trainer: MemorizationSettings and seeds are validated (tests/test_memorization.py)",
    "scaling.fits.threshold_job": "one reduced-model training run (its ReducedConfig validates)",
    "scaling.fits.require_transition": "checks a Sigmoid fitted by fit_sigmoid (tested with it below)",
    # functions of package objects (models, layers, programs, compiled networks): corrupting them means
    # building a bad object, which the objects' constructors refuse (LSAParams, Raw, Layer, Program, Scales)
    **{
        f"lsa.layers.{n}": "takes LSAParams (validated by its constructor)"
        for n in ["lsa_update", "lsa_layer", "lsa_stack", "lsa_recurrent", "readout"]
    },
    **{
        f"lsa.alignment.{n}": "takes models or RegressionTasks built by the package"
        for n in [
            "lsa_model",
            "predict",
            "task_losses",
            "query_gradient",
            "preds_diff",
            "model_cos",
            "model_diff",
            "one_step_rate",
            "line_search_rate",
            "tune_gdpp",
            "readout_blocks",
            "product_alignment",
            "interpolate",
            "effective_preconditioner",
            "preconditioner_moments",
        ]
    },
    **{
        f"raw.primitives.{n}": "a RAW primitive on a validated hidden state (tests/test_raw.py)"
        for n in ["raw", "apply_parallel", "mov", "aff", "mul", "dot", "div"]
    },
    **{
        f"raw.compiler.{n}": "compiler internals on validated Program/Geometry/Scales objects"
        for n in ["encode", "decode", "pack", "check_parallel", "build_layer", "compile_items", "compile_raws"]
    },
    "raw.compiler.product_error": "error bound on a compiled hidden state (tests/test_raw_compiler.py)",
    "raw.compiler.division_error": "error bound on a compiled hidden state (tests/test_raw_compiler.py)",
    "raw.transformer.attention": "takes a Layer (validated by its constructor)",
    "raw.transformer.layer_forward": "takes a Layer (validated by its constructor)",
    "raw.transformer.forward": "takes Layers (validated by their constructor)",
    "raw.programs.compiled_learner": "builds a compiled chain; its numbers are those of sgd_chain/ridge_chain",
    **{
        f"raw.probe.{n}": "transformer kernel or trainer on a validated ProbeConfig (tests/test_raw_probe.py)"
        for n in [
            "init_params",
            "tokens",
            "forward",
            "loss_and_grads",
            "sample_tasks",
            "train",
            "train_best",
            "as_learner",
        ]
    },
    "dual_critiques.regression_prompt": "draws from the caller's Generator; untrained_vs_trained validates its sizes",
    "raw.probe.probe": "takes a Trained model (its ProbeConfig validated) and weight functions",
    "raw.learners.linear": "wraps a weight function; fuzzed through the learners it returns",
    "raw.learners.implied_weights": "takes a learner callable and sampled tasks",
    "scaling.bimodality.final_icl_accuracies": "trains reduced models on a validated ReducedConfig "
    "(its arguments' checks: tests/test_bimodality.py)",
    "scaling.torch_backend.torch_device": "needs the optional torch extra (tests/test_torch_backend.py)",
    "scaling.torch_backend.torch_threads": "needs the optional torch extra (tests/test_torch_backend.py)",
}


def test_every_public_numerics_function_is_fuzzed_or_exempt_with_a_reason():
    found = set(public_functions())
    assert not found - set(TABLE) - set(EXEMPT), "add these to TABLE (or EXEMPT with a reason)"
    assert not (set(TABLE) | set(EXEMPT)) - found, "stale entries"
    assert not set(TABLE) & set(EXEMPT)


FUNCTIONS = public_functions()
ALWAYS_BAD = ("nan", "inf", "-inf", "string")
MAYBE_BAD = ("zero", "negative", "huge", "-huge", "tiny", "none", "extra-axis", "empty", "scalar")


def _corrupt(value: Any, how: str, index: int) -> Any:
    """``value`` corrupted ``how``; for arrays a single entry (at ``index``) unless the corruption is global."""
    if how == "string":
        return "x"
    if how == "none":
        return None
    special = {"nan": np.nan, "inf": np.inf, "-inf": -np.inf, "huge": 1e300, "-huge": -1e300, "tiny": 1e-300}
    if isinstance(value, np.ndarray) and value.dtype.kind == "f":
        if how == "extra-axis":
            return value[..., None]
        if how == "empty":
            return value[:0]
        if how == "scalar":
            return 1.0
        out = value.copy()
        if how == "zero":
            return np.zeros_like(value)
        if how == "negative":
            return -value
        if out.size:
            out.flat[index % out.size] = special[how]
        return out
    if how in ("extra-axis", "scalar"):
        return [value, value] if how == "extra-axis" else value
    if how == "empty":
        return []
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        return special.get(how, 0)
    if how == "zero":
        return type(value)(0)
    if how == "negative":
        return -value if value else type(value)(-1)
    if isinstance(value, (int, np.integer)):  # sizes and counts: a non-integer (a huge size is a run, not an error)
        return 1.5
    return special[how]


def _finite(result: Any) -> bool:
    """No NaN/inf anywhere in a result (arrays, numbers, tuples, dataclasses, dicts)."""
    if isinstance(result, np.ndarray):
        return result.dtype.kind not in "fc" or bool(np.all(np.isfinite(result)))
    if isinstance(result, (float, np.floating)):
        return bool(np.isfinite(result))
    if isinstance(result, (tuple, list)):
        return all(_finite(r) for r in result)
    if isinstance(result, dict):
        return all(_finite(r) for r in result.values())
    if dataclasses.is_dataclass(result) and not isinstance(result, type):
        return all(_finite(getattr(result, f.name)) for f in dataclasses.fields(result))
    return True


def _assert_clear_refusal(exc: BaseException, name: str, argument: str) -> None:
    message = str(exc)
    assert isinstance(exc, (ValueError, TypeError)), f"{name}({argument}=…): {type(exc).__name__}: {message}"
    assert "\n" not in message, f"{name}: multi-line message {message!r}"
    assert argument in message, f"{name}: the message {message!r} does not name {argument!r}"


@pytest.mark.parametrize("name", sorted(TABLE))
@settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_bad_input_is_refused_naming_the_argument_or_gives_a_finite_result(name, data):
    case = TABLE[name]
    args = case.args()
    argument = data.draw(st.sampled_from(sorted(set(args) - case.fixed)), label="argument")
    how = data.draw(st.sampled_from(ALWAYS_BAD + MAYBE_BAD), label="corruption")
    index = data.draw(st.integers(0, 10_000), label="index")
    args[argument] = _corrupt(args[argument], how, index)
    must_refuse = how in ALWAYS_BAD and not (how in ("inf", "-inf") and argument in case.infinite)
    try:
        with np.errstate(all="ignore"):  # the property is the result or the message, not NumPy warnings
            result = FUNCTIONS[name](**args)
    except Exception as exc:
        _assert_clear_refusal(exc, name, argument)
        return
    assert not must_refuse, f"{name}({argument}={how}) returned {result!r} instead of refusing"
    assert case.nan_result or _finite(result), f"{name}({argument}={how}) returned a non-finite {result!r}"


@pytest.mark.parametrize("name", sorted(TABLE))
def test_the_valid_arguments_of_the_table_are_valid(name):
    case = TABLE[name]
    result = FUNCTIONS[name](**case.args()) if name != "scaling.memorization.sweep_job" else None
    assert case.nan_result or _finite(result)


# ---------------------------------------------------------------------------------------------
# Examples found by hand, each with the message it must give


def _one_line_value_error(call: Callable[[], Any], match: str) -> None:
    with pytest.raises(ValueError, match=match) as exc:
        call()
    assert "\n" not in str(exc.value)


def test_clock_refuses_mismatched_lengths_and_decreasing_times():
    _one_line_value_error(lambda: ode.clock([0, 1, 2], [1, 1], 1.0), "c1 must have the length of times = 3, got 2")
    _one_line_value_error(lambda: ode.clock([0, 2, 1], [1, 1, 1], 1.0), "times must be non-decreasing")


def test_empty_regression_data_is_refused():
    W, X, Y = np.zeros((1, 1, 2)), np.zeros((1, 0, 2)), np.zeros((1, 0, 1))
    _one_line_value_error(lambda: regression.linreg_loss(W, X, Y), r"X must not be empty, got shape \(1, 0, 2\)")
    _one_line_value_error(lambda: regression.linreg_grad(W, X, Y), "X must not be empty")
    _one_line_value_error(lambda: regression.half_mse([], []), "pred must not be empty")


def test_tau_star_overflow_is_reported():
    _one_line_value_error(lambda: ode.tau_star(0, -1000), "w0 and beta0 give a blow-up time τ\\* beyond float64")
    assert ode.tau_star(0, -700)[0] == pytest.approx(np.exp(700) * np.sqrt(np.pi / 2))  # erfcx(0) = 1


def test_diverging_sgd_is_reported_naming_alpha():
    X = np.full((200, 3), 10.0)
    _one_line_value_error(lambda: learners.sgd_weights(X, np.ones(200), alpha=1.0), "sgd_weights diverged.*alpha")
    _one_line_value_error(
        lambda: learners.gd_step_weights(X * 1e200, np.ones(200), alpha=1.0, w0=np.ones(3)), "gd_step_weights.*alpha"
    )


def test_one_step_rate_on_degenerate_tasks():
    zero = np.zeros
    tasks = regression.RegressionTasks(
        zero((2, 3, 2)), zero((2, 3, 1)), zero((2, 1, 2)), zero((2, 1, 1)), zero((2, 1, 2))
    )
    _one_line_value_error(lambda: alignment.one_step_rate(tasks), "tasks are degenerate")


def test_small_sample_factor_refuses_a_level_outside_0_1():
    _one_line_value_error(lambda: fits.small_sample_factor(1.5, 5), r"level must lie in \(0, 1\), got 1.5")
    _one_line_value_error(lambda: fits.small_sample_factor(0.95, -1), "dof must be a non-negative integer")


def test_softmax_attention_is_stable_and_refuses_only_logits_beyond_float64():
    keys, values = np.array([[1.0], [-1.0]]), np.array([[3.0], [5.0]])
    # logits ±1e300: finite, so the max-subtracted (log-sum-exp) form gives the one-hot weights exactly
    assert dual.softmax_attention(values, keys, np.array([1e300]))[0] == 3.0
    _one_line_value_error(
        lambda: dual.softmax_attention(values, np.array([[1e200], [0.0]]), np.array([1e200])), "keys and q give"
    )


def test_ridge_with_a_vanishing_lambda_on_rank_deficient_data_names_lam():
    X = np.ones((3, 2))  # rank 1: XᵀX + 1e-300 I is singular in float64
    _one_line_value_error(
        lambda: learners.ridge_weights(X, np.ones(3), lam=1e-300), "X and lam make XᵀX \\+ λI singular"
    )
    assert learners.ridge_weights(X, np.ones(3), lam=1.0) == pytest.approx(
        np.linalg.solve(X.T @ X + np.eye(2), X.T @ np.ones(3))
    )


def test_fit_preconditioner_refuses_singular_moments():
    _one_line_value_error(lambda: alignment.fit_preconditioner((np.zeros((4, 4)), np.zeros(4))), "moments make FᵀF")
    _one_line_value_error(lambda: alignment.fit_preconditioner((np.eye(3), np.zeros(3))), "square length")


def test_integrate_refuses_mismatched_initial_conditions():
    _one_line_value_error(
        lambda: ode.integrate([0, 1], [0, 1, 2], n=10, t_max=1), "w0, beta0 and n must have the same length"
    )


def test_memorization_helpers_refuse_mismatched_series():
    t = np.arange(3.0)
    _one_line_value_error(lambda: memorization.memorization_integral(t, np.ones(2)), "c1 must have the length")
    _one_line_value_error(lambda: memorization.first_crossing(t, np.arange(2.0), 0.5), "values must have the length")
    _one_line_value_error(lambda: memorization.first_crossing(t[::-1], np.arange(3.0), 0.5), "times must be")


def test_first_crossing_interpolates_and_accepts_a_blown_up_value():
    t = np.array([0.0, 1.0, 3.0])
    assert memorization.first_crossing(t, np.array([0.0, 0.2, 1.0]), 0.6) == pytest.approx(2.0)
    assert memorization.first_crossing(t, np.array([0.0, 0.2, np.inf]), 0.6) == pytest.approx(1.0)
    assert memorization.first_crossing(t, np.array([-np.inf, 0.2, 1.0]), 0.1) == pytest.approx(1.0)
    assert memorization.first_crossing(t, np.array([0.0, 0.2, 0.3]), 0.6) is None


def test_seeds_and_sweep_configs_are_checked():
    ols = learners.linear(learners.ols_weights)
    _one_line_value_error(lambda: learners.spd(ols, ols, n=3, d=2, seed=-1), "seed must be a non-negative integer")
    _one_line_value_error(lambda: memorization.sweep_job({}), r"config is missing the keys \['ks', 'seeds'\]")


def test_no_assert_checks_input_in_the_numerics():
    import pathlib

    root = pathlib.Path(numerics.__file__).parent
    offenders = [str(p) for p in root.rglob("*.py") if "assert " in p.read_text(encoding="utf-8")]
    assert not offenders


def test_flat_accuracy_has_no_transition():
    u = np.linspace(1.0, 2.0, 6)
    for acc in (np.full(6, 0.5), np.full(6, 1.0), 0.5 + 0.01 * np.sin(7 * u)):
        with pytest.raises(fits.NoTransitionError, match="acc shows no transition"):
            fits.fit_sigmoid(u, acc)
    n, k = np.repeat([4.0, 8.0], 6), np.tile(10**u, 2)
    acc = np.r_[_sigmoid_acc(u, 1.5), np.full(6, 0.5)]
    with pytest.raises(fits.NoTransitionError, match=r"^at n = 8: acc shows no transition"):
        fits.fit_threshold(n, k, acc, rng=_rng(), n_boot=5)


def _sigmoid_acc(u: np.ndarray, centre: float) -> np.ndarray:
    return 0.5 + 0.5 / (1 + np.exp(-(u - centre) / 0.05))


def test_a_real_transition_is_still_located():
    u = np.linspace(1.0, 2.0, 11)
    sig = fits.fit_sigmoid(u, _sigmoid_acc(u, 1.37))
    assert sig.center == pytest.approx(1.37, abs=1e-3) and np.isfinite(sig.center_se)
    # the centre must lie inside the data even when the accuracy crosses the midpoint
    with pytest.raises(fits.NoTransitionError, match="outside"):
        fits.require_transition(fits.Sigmoid(2.5, 0.1, 0.5, 1.0, 0.0), u, _sigmoid_acc(u, 1.37))


def test_compiled_networks_and_layers_reject_bad_programs():
    _one_line_value_error(lambda: compiler.compile_program("not a program"), "program must be")
    with pytest.raises(ValueError, match="H must have shape"):
        compiler.compile_program(_mul_program()).run(np.ones((2, 3)))
    assert transformer.gelu(np.array([0.0]))[0] == 0.0 and programs.theorem2(1, 0.5)[0].T == 3
    assert layers.theta_gd(1, 1, 0.1, 2).P.shape[0] == 1 and stats.t_interval([1.0, 3.0]).estimate == 2.0
