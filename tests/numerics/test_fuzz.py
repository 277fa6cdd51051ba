"""Bad input against the public numerics API.

Every public function of ``icl_verify.numerics`` is found by introspection and must be named, beside it in
its module, either in ``FUZZ`` (a :class:`~icl_verify.numerics.shared.fuzz.Fuzz`: valid arguments, which
the fuzzer corrupts one argument at a time) or in ``FUZZ_EXEMPT`` (with the reason it is not fuzzed here),
so a new function cannot be forgotten. Hypothesis picks the argument, the corruption and, for arrays, the
corrupted entry. The property:

* NaN, ±inf, a string and a complex value are always refused: ``ValueError`` (or ``TypeError``) with a
  one-line message naming the argument (complex and NaN are also tried on every numeric argument of every
  function, not only where the draws land, and an iteration count of 10¹² is refused, not run);
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
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import icl_verify.numerics as numerics
from icl_verify.numerics.dual import attention
from icl_verify.numerics.kinetics import ode
from icl_verify.numerics.lsa import alignment, layers, regression
from icl_verify.numerics.raw import compiler, learners, primitives, programs, transformer
from icl_verify.numerics.scaling import fits, memorization
from icl_verify.numerics.shared import stats
from icl_verify.numerics.shared.fuzz import Fuzz

PREFIX = "icl_verify.numerics."


def numerics_modules() -> list[ModuleType]:
    """Every module of ``icl_verify.numerics``, imported."""
    return [importlib.import_module(info.name) for info in pkgutil.walk_packages(numerics.__path__, PREFIX)]


def public_functions(module: ModuleType) -> dict[str, Callable[..., Any]]:
    """Name → function, for every public function defined in ``module``."""
    return {
        name: obj
        for name, obj in vars(module).items()
        if not name.startswith("_") and inspect.isfunction(obj) and obj.__module__ == module.__name__
    }


def declarations() -> tuple[dict[str, Fuzz], dict[str, str]]:
    """``group.module.name`` → its ``FUZZ`` entry, and → its ``FUZZ_EXEMPT`` reason, over every numerics module."""
    fuzz, exempt = {}, {}
    for module in numerics_modules():
        short = module.__name__.removeprefix(PREFIX)
        fuzz |= {f"{short}.{name}": case for name, case in getattr(module, "FUZZ", {}).items()}
        exempt |= {f"{short}.{name}": reason for name, reason in getattr(module, "FUZZ_EXEMPT", {}).items()}
    return fuzz, exempt


def _functions() -> dict[str, Callable[..., Any]]:
    found = {}
    for module in numerics_modules():
        short = module.__name__.removeprefix(PREFIX)
        found |= {f"{short}.{name}": fn for name, fn in public_functions(module).items()}
    return found


def _rng(seed: int = 0) -> np.random.Generator:
    return np.random.default_rng(seed)


def _mul_program() -> primitives.Program:
    return primitives.Program(1, 3, (primitives.Mul(1, 1, 1, (0, 1), (1, 2), (2, 3)),))


def _listed(names: set[str]) -> str:
    return "".join(f"\n  {PREFIX}{name}" for name in sorted(names))


def test_every_public_numerics_function_is_fuzzed_or_exempt_with_a_reason():
    found = set(_functions())
    fuzz, exempt = declarations()
    missing = found - set(fuzz) - set(exempt)
    assert not missing, f"add these to their module's FUZZ (or FUZZ_EXEMPT with a reason):{_listed(missing)}"
    stale = (set(fuzz) | set(exempt)) - found
    assert not stale, f"FUZZ or FUZZ_EXEMPT names what is not a public function of its module:{_listed(stale)}"
    both = set(fuzz) & set(exempt)
    assert not both, f"in both FUZZ and FUZZ_EXEMPT:{_listed(both)}"
    assert all(isinstance(case, Fuzz) for case in fuzz.values())
    assert all(isinstance(reason, str) and reason for reason in exempt.values())


FUNCTIONS = _functions()
CASES, _ = declarations()
ALWAYS_BAD = ("nan", "inf", "-inf", "string", "complex")
MAYBE_BAD = ("zero", "negative", "huge", "-huge", "tiny", "none", "extra-axis", "empty", "scalar")


def _corrupt(value: Any, how: str, index: int) -> Any:
    """``value`` corrupted ``how``; for arrays a single entry (at ``index``) unless the corruption is global."""
    if how == "string":
        return "x"
    if how == "none":
        return None
    if how == "complex":
        return _complex(value, index)
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


def _complex(value: Any, index: int) -> Any:
    """``value`` with one entry (an array's, at ``index``) given an imaginary part: never to be cast to real."""
    if isinstance(value, np.ndarray) and value.dtype.kind in "fiu" and value.size:
        out = value.astype(np.complex128)
        out.flat[index % out.size] += 1j
        return out
    if isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool):
        return complex(value, 1.0)
    return 1j


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


@pytest.mark.parametrize("name", sorted(CASES))
@settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_bad_input_is_refused_naming_the_argument_or_gives_a_finite_result(name, data):
    case = CASES[name]
    args = case.args()
    argument = data.draw(st.sampled_from(sorted(set(args) - set(case.fixed))), label="argument")
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


def _numbers(value: Any) -> bool:
    """An argument that holds numbers: a real array or a real scalar (not a flag)."""
    if isinstance(value, np.ndarray):
        return value.dtype.kind in "fiu"
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)


@pytest.mark.parametrize("name", sorted(CASES))
def test_complex_and_nan_are_refused_for_every_numeric_argument(name):
    """Not left to the random draws above: each numeric argument, each entry kind, one call apiece."""
    case = CASES[name]
    for argument, value in case.args().items():
        if argument in case.fixed or not _numbers(value):
            continue
        corruptions = ["complex"] + (["nan"] if isinstance(value, float) or np.asarray(value).dtype.kind == "f" else [])
        for how in corruptions:
            args = case.args()
            args[argument] = _corrupt(value, how, 0)
            with pytest.raises((ValueError, TypeError)) as exc, np.errstate(all="ignore"):
                FUNCTIONS[name](**args)
            _assert_clear_refusal(exc.value, name, argument)


def _iteration_counts(name: str) -> list[str]:
    """The arguments of ``name`` that count iterations: ``steps`` and ``layers``, and Newton's ``k``."""
    counts = {"steps", "layers"} | ({"k"} if name == "literature.newton.newton_residual" else set())
    return sorted(a for a, v in CASES[name].args().items() if a in counts and isinstance(v, int))


@pytest.mark.parametrize("name", sorted(n for n in CASES if _iteration_counts(n)))
def test_a_huge_iteration_count_is_refused_not_run(name):
    """10¹² iterations are refused naming the count (``numerics.shared.checks.MAX_STEPS``), never run."""
    for argument in _iteration_counts(name):
        args = CASES[name].args()
        args[argument] = 10**12
        with pytest.raises(ValueError) as exc:
            FUNCTIONS[name](**args)
        _assert_clear_refusal(exc.value, name, argument)


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_declared_valid_arguments_are_valid(name):
    case = CASES[name]
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
    assert attention.softmax_attention(values, keys, np.array([1e300]))[0] == 3.0
    _one_line_value_error(
        lambda: attention.softmax_attention(values, np.array([[1e200], [0.0]]), np.array([1e200])), "keys and q give"
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
    _one_line_value_error(lambda: stats.first_crossing(t, np.arange(2.0), 0.5), "values must have the length")
    _one_line_value_error(lambda: stats.first_crossing(t[::-1], np.arange(3.0), 0.5), "times must be")


def test_first_crossing_interpolates_and_accepts_a_blown_up_value():
    t = np.array([0.0, 1.0, 3.0])
    assert stats.first_crossing(t, np.array([0.0, 0.2, 1.0]), 0.6) == pytest.approx(2.0)
    assert stats.first_crossing(t, np.array([0.0, 0.2, np.inf]), 0.6) == pytest.approx(1.0)
    assert stats.first_crossing(t, np.array([-np.inf, 0.2, 1.0]), 0.1) == pytest.approx(1.0)
    assert stats.first_crossing(t, np.array([0.0, 0.2, 0.3]), 0.6) is None


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
