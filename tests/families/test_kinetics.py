"""The kinetics simulations reach their expected verdicts at a second seed; the derivations match the printed formulas."""

from __future__ import annotations

import math
from types import SimpleNamespace

import pytest
import sympy as sp
from scipy import stats

from icl_verify import check
from icl_verify.families import kinetics as kc
from icl_verify.running import registry

# Every kinetics claim's verdict at seed 0 and the default budget is asserted by tests/test_families.py (the
# simulated ones under -m slow); here the reduced-model training runs are checked at a second seed.
SIMULATED = [
    kc.FOLLOWS_ODE,
    kc.FOLLOWS_ODE_AUTHORS,
    kc.T_ICL_LINEAR_IN_N,
    kc.T_ICL_EXPONENTIAL_IN_BETA0,
    kc.TRANSIENCE,
    kc.PERSISTENCE,
    kc.EQUALISED_SLOWER_SIM,
]


@pytest.mark.slow
@pytest.mark.parametrize("claim", SIMULATED, ids=lambda c: c.name)
def test_simulation_claim_is_verified_with_another_seed(claim):
    result = check(claim, seed=1)
    assert result.verdict is claim.expected, [e.detail for e in result.evidence]


def test_kinetics_family_is_registered():
    assert "icl_verify.families.kinetics" in {m.__name__ for m in registry.family_modules()}


def test_derived_tau_star_at_w0_zero_is_sqrt_pi_over_2_times_e_minus_beta0():
    value = kc.tau_star_derived().subs({kc.W0: 0, kc.BETA0: 0})
    assert float(value) == pytest.approx(math.sqrt(math.pi / 2))


def test_derived_flow_is_the_printed_ode_at_a_point():
    dw, db = kc.flow(kc.derived_loss())
    point = {kc.C1: 0.5, kc.C2: 0.25, kc.N: 10, kc.W: 0.3, kc.BETA: -0.4}
    assert float(dw.subs(point)) == pytest.approx(0.05 * (math.exp(-0.4) - 0.075))
    assert float(db.subs(point)) == pytest.approx(0.05 * 0.3 * math.exp(-0.4))


def test_k_star_exponent_in_n_is_one_over_nu():
    ks = kc.k_star().subs({kc.A: 1, kc.NU: sp.Rational(7, 10), kc.BETA0: 0})
    ratio = float(ks.subs(kc.N, 200) / ks.subs(kc.N, 100))
    assert math.log(ratio, 2) == pytest.approx(1 / 0.7)


def test_printed_k_star_exponent_is_refuted_in_the_slaved_regime():
    result = check(kc.K_STAR_PRINTED_IN_SLAVED_REGIME)
    assert result.verdict.value == "REFUTED" and result.as_expected


def test_small_kappa_coefficient_matches_an_independent_quadrature():
    # C = ∫₀^∞ e^{−x} Γ(3/2) P(3/2, x) x^{−3/2} dx / (2√(π/2)), by SciPy instead of SymPy + mpmath.
    from scipy import integrate, special

    value, _ = integrate.quad(
        lambda x: math.exp(-x) * special.gammainc(1.5, x) * special.gamma(1.5) * x**-1.5, 0, math.inf
    )
    assert kc.small_kappa_coefficient() == pytest.approx(value / (2 * math.sqrt(math.pi / 2)), rel=1e-8)


def _stub_runs(monkeypatch, peaks: dict[int, float]) -> list[int]:
    """Replace the reduced-model training by runs whose ICL accuracy rises to ``peaks[seed]``, then falls to ½."""
    trained: list[int] = []

    def train(config, seed):
        trained.append(seed)
        return SimpleNamespace(
            icl_acc=[0.5, peaks[seed], 0.5],
            t=[0.0, 1.0, 2.0],
            iwl_acc=[0.5, 1.0, 1.0],
            w=[0.0, 1.0, 0.0],
            beta=[0.0] * 3,
        )

    monkeypatch.setattr(kc.icl_models, "train_reduced", train)
    return trained


def test_transience_measures_the_first_run_in_which_icl_emerged(monkeypatch):
    first, second, *later = kc._attempt_seeds(25)
    trained = _stub_runs(monkeypatch, {first: 0.6, second: 0.9} | dict.fromkeys(later, 0.99))
    acc, detail = kc._icl_history(25, kc.TRANSIENT)
    assert first == 25 and trained == [first, second]  # the check seed is tried first; the later runs are not needed
    assert acc[-1] == 0.5
    assert f"seed {second}: peak ICL 0.900" in detail and f"never emerged in seed {first}" in detail


def test_transience_interval_is_over_independent_training_runs(monkeypatch):
    """The interval covers the spread between training runs: Student's t over one final accuracy per run, the run
    seeds s, s + 10⁶, … (a run's own test set is not the interval), computed here from the t law directly."""
    finals = {7 + 10**6 * r: a for r, a in enumerate([0.49, 0.52, 0.66, 0.50])}
    monkeypatch.setattr(kc, "_faded", lambda s: (finals[s], f"run {s}"))
    estimate = kc.TRANSIENCE.checks[0].measure(7, runs=4, level=0.95)
    values = list(finals.values())
    half = stats.t.ppf(0.975, 3) * stats.tstd(values) / 2
    assert estimate.value == pytest.approx(sum(values) / 4)
    assert (estimate.low, estimate.high) == pytest.approx((estimate.value - half, estimate.value + half))
    assert "run 1000007" in estimate.detail and estimate.level == 0.95


def test_transience_is_an_error_when_icl_never_emerges(monkeypatch):
    seeds = kc._attempt_seeds(3)
    _stub_runs(monkeypatch, dict.fromkeys(seeds, 0.6))
    with pytest.raises(ValueError, match=f"ICL never emerged .* in {kc.ATTEMPTS} runs"):
        kc.measure_persistence(3)
    assert len(set(seeds)) == kc.ATTEMPTS
