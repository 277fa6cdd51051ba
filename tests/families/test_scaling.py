"""The scaling family (icl_verify.families.scaling), its experiment drivers (icl_verify.experiments.scaling) and
its command (icl_verify.cli.scaling): presets, the K* prediction, the claims and the CLI."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest
from click.testing import CliRunner

from icl_verify import Verdict, check
from icl_verify.cli.main import main
from icl_verify.experiments import scaling as sweeps
from icl_verify.families.scaling import memorization, threshold
from icl_verify.numerics.kinetics import ode as kinetics
from icl_verify.numerics.scaling.memorization import MemorizationSettings

TINY = sweeps.Preset(
    "quick",
    MemorizationSettings(d=8, hidden=16, lr=0.5, batch=16, max_steps=20_000, min_log_gap=5),
    (16, 32, 64),
    runs_per_k=2,
    runs_per_job=1,
    n_boot=200,
    ns=(4, 8),
    threshold_span=(2.0, 16.0),
    threshold_points=5,
    threshold_time=3.0,
    threshold_boot=50,
)


def fake_runs(nu: float, nu_t: float | None = None, runs: int = 3, scatter: float = 0.0) -> list[dict]:
    """Run summaries with I_K(∞) = 3 K^ν (× e^{scatter·ε}) and t_IWL = 2 K^{ν_t}."""
    rng = np.random.default_rng(0)
    out = []
    for k in (128, 256, 512, 1024, 2048):
        for _ in range(runs):
            noise = np.exp(scatter * rng.standard_normal())
            t = 2 * k ** (nu if nu_t is None else nu_t) * noise
            out.append({"k": k, "i_inf": 3 * k**nu * noise, "t_iwl": t, "converged": True})
    return out


def test_preset_configs_record_distinct_seeds_largest_k_first():
    configs = sweeps.PRESETS["quick"].configs(seed=0)
    seeds = [s for c in configs for s in c["seeds"]]
    assert len(seeds) == len(set(seeds)) == 6 * 4
    assert [c["ks"][0] for c in configs] == sorted((c["ks"][0] for c in configs), reverse=True)
    assert all(len(c["seeds"]) == 2 and c["settings"]["hidden"] == 128 for c in configs)
    assert sweeps.PRESETS["quick"].configs(seed=1) != configs


def test_paper_preset_has_the_authors_settings():
    p = sweeps.PRESETS["paper"]
    assert (p.settings.d, p.settings.hidden, p.settings.lr, p.settings.batch) == (63, 512, 0.01, 128)
    assert len(p.ks) == 10 and p.ks[0] == 498 and p.ks[-1] == 99_998
    assert all(k % 2 == 0 for k in p.ks)


def test_k_star_prediction_solves_i_k_equals_n_tau_star():
    runs = fake_runs(0.7)
    fit, _ = sweeps.fit_exponent(runs)
    pred = sweeps.predict_k_star(fit, runs, replace(TINY, beta0=1.0))
    tau = np.sqrt(np.pi / 2) * np.exp(-1.0)  # τ* at w₀ = 0 (Nguyen & Reddy 2025, §3.4)
    assert pred["tau_star"] == pytest.approx(tau)
    expected = (np.array(TINY.ns) * tau / 3.0) ** (1 / 0.7)
    np.testing.assert_allclose(pred["k_star"], expected, rtol=1e-9)
    assert pred["slope"] == pytest.approx(1 / 0.7)
    assert pred["slope_low"] <= 1 / 0.7 <= pred["slope_high"]
    assert kinetics.tau_star(0.0, 1.0)[0] == pytest.approx(tau)


def test_paired_difference_of_the_two_memorization_times():
    same = sweeps.paired_exponent_difference(fake_runs(0.7, scatter=0.1))
    assert same["difference"] == pytest.approx(0, abs=1e-12) and same["low"] == pytest.approx(0, abs=1e-12)
    shifted = sweeps.paired_exponent_difference(fake_runs(0.7, nu_t=0.9, scatter=0.1))
    assert shifted["difference"] == pytest.approx(0.2, abs=1e-12)


@pytest.mark.parametrize("nu, verdict", [(0.7, Verdict.VERIFIED), (0.95, Verdict.REFUTED)])
def test_exponent_claim_verdict_follows_the_interval(monkeypatch, nu, verdict):
    monkeypatch.setattr(memorization, "claim_runs", lambda seed: tuple(fake_runs(nu, scatter=0.02)))
    result = check(memorization.MEMORIZATION_EXPONENT)
    assert result.verdict is verdict, [e.detail for e in result.evidence]


def test_exponent_claim_is_undecided_when_the_interval_straddles_the_band(monkeypatch):
    monkeypatch.setattr(memorization, "claim_runs", lambda seed: tuple(fake_runs(0.8, runs=2, scatter=0.3)))
    assert check(memorization.MEMORIZATION_EXPONENT).verdict is Verdict.UNPROVEN


def test_unconverged_runs_are_left_out_and_counted():
    runs = fake_runs(0.7) + [{"k": 4096, "i_inf": 1.0, "t_iwl": None, "converged": False}]
    k, _, dropped = sweeps.usable(runs, "i_inf")
    assert dropped == 1 and 4096 not in k


def test_cli_scaling_json_runs_resumes_and_draws(monkeypatch, tmp_path):
    monkeypatch.setitem(sweeps.PRESETS, "quick", TINY)
    out = tmp_path / "r.jsonl"
    args = ["scaling", "--preset", "quick", "--out", str(out), "--workers", "2"]
    first = CliRunner().invoke(main, args + ["--json", "--figures", str(tmp_path / "fig")])
    assert first.exit_code == 0, first.output
    report = json.loads(first.output)
    assert report["runs"] == 6 and report["unconverged"] == 0
    assert report["k_star_measurement"]["runs"] == 10 and len(report["claims"]) == 2
    assert report["nu"]["low"] <= report["nu"]["exponent"] <= report["nu"]["high"]
    assert all((tmp_path / "fig" / name).exists() for name in ("scaling-quick-ik.png", "scaling-quick-c1.png"))
    lines = out.read_text().splitlines()
    assert len(lines) == 6 + 10  # memorization jobs and reduced-model runs, one record each
    again = CliRunner().invoke(main, args)  # resumes: nothing recomputed, same numbers, as text
    assert again.exit_code == 0 and out.read_text().splitlines() == lines
    assert f"= {report['nu']['exponent']:.3f} [" in again.output and "K* measurement" in again.output


def test_cli_scaling_bad_options():
    bad = CliRunner().invoke(main, ["scaling", "--executor", "dask"])
    assert bad.exit_code == 2 and "--scheduler" in bad.output
    bad = CliRunner().invoke(main, ["scaling", "--scheduler", "tcp://x:1"])
    assert bad.exit_code == 2 and "only used with" in bad.output


def test_report_claims_give_verdicts_from_a_report():
    report = {
        "preset": "quick", "seed": 0, "unconverged": 0,
        "nu": {"exponent": 0.7, "low": 0.68, "high": 0.72},
        "k_star_measurement": {"slope": 1.9, "low": 1.8, "high": 2.0, "n": [16, 32], "k_star": [50, 140]},
        "k_star_slope_minus_inverse_nu": {"difference": 0.47, "low": 0.35, "high": 0.6},
    }  # fmt: skip
    nu_claim, slope_claim = sweeps.report_claims(report)
    assert check(nu_claim).verdict is Verdict.VERIFIED
    assert check(slope_claim).verdict is Verdict.REFUTED


@pytest.mark.slow
def test_quick_preset_measures_nu_within_plus_minus_0_15(tmp_path):
    result = CliRunner().invoke(main, ["scaling", "--preset", "quick", "--json", "--out", str(tmp_path / "q.jsonl")])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert (
        report["nu"]["high"] - report["nu"]["exponent"] < 0.15 and report["nu"]["exponent"] - report["nu"]["low"] < 0.15
    )


@pytest.mark.slow
def test_builtin_scaling_claims_reach_a_verdict_backed_by_an_interval():
    for claim in (memorization.MEMORIZATION_EXPONENT, memorization.MEMORIZATION_TIME_DEFINITIONS):
        result = check(claim)
        assert result.as_expected, result.verdict  # the expected verdict: never UNPROVEN, never a failed control
        assert "95 % bootstrap" in result.evidence[0].detail


# ---------------------------------------------------------------------------------------------
# K* from the ODE driven by measured constants (threshold.critical_context, k-star-slope-is-inverse-nu-claim)


def _memorising_run(k: int, scale: float, c2: float, seed: int = 0) -> dict:
    """A run whose c₁ decays as ½ e^{−t/scale} (c₂ constant), logged on 400 times up to 12 scale; I_K(∞) by trapezoid."""
    t = np.linspace(0.0, 12.0 * scale, 400)
    c1 = 0.5 * np.exp(-t / scale)
    i_inf = float(np.trapezoid(c1, t))
    return {
        "k": k,
        "seed": seed,
        "converged": True,
        "i_inf": i_inf,
        "curves": {"t": t, "c1": c1, "c2": np.full_like(t, c2)},
    }


def _blowup_clock(c2: float) -> float:
    """τ*(w₀ = β₀ = 0; c₂): the blow-up time of dw/dτ = e^β − c₂ w, dβ/dτ = w e^β (n = c₁ = 1 make t = τ)."""
    return float(kinetics.integrate(0.0, 0.0, n=1.0, c1=1.0, c2=c2, t_max=1e6).t_icl[0])


@pytest.mark.parametrize("c2", [0.0, 0.5])
def test_critical_context_is_the_integral_over_the_blowup_clock(c2):
    """With c₂ constant the clock τ = ∫c₁dt/N reduces the ODE to the autonomous one, so ICL iff
    I_K(∞)/N > τ*(c₂): N_c = I_K(∞)/τ*(c₂) (c₂ = 0: √(π/2), claim kinetics-icl-iff-integral-exceeds)."""
    run = _memorising_run(256, 40.0, c2)
    expected = run["i_inf"] / (np.sqrt(np.pi / 2) if c2 == 0 else _blowup_clock(c2))
    got = threshold.critical_context(run)
    assert abs(np.log(got / expected)) <= threshold.CRITICAL_RESOLUTION + 1e-3


def test_critical_context_outside_the_searched_span_is_an_error():
    run = _memorising_run(256, 40.0, 0.0)
    run["i_inf"] *= 10  # the span is then 2.5–12.5 × the true N_c: nothing blows up on it
    with pytest.raises(ValueError, match="no single blow-up threshold"):
        threshold.critical_context(run)


def _slope_estimate(monkeypatch, runs: list[dict]):
    monkeypatch.setattr(threshold, "claim_runs", lambda seed: tuple(runs))
    threshold._critical_contexts.cache_clear()
    try:
        return threshold._measure_slope_from_ode(0)
    finally:
        threshold._critical_contexts.cache_clear()


def test_k_star_slope_is_inverse_nu_when_c2_acts_alike_at_every_k(monkeypatch):
    """I_K(∞) ∝ K^0.7 with scatter, c₂ = ½ at every K: K* ∝ N^{1/ν}, the estimate's interval holds 0."""
    rng = np.random.default_rng(5)
    scales = {(k, i): 2.0 * k**0.7 * np.exp(0.05 * rng.standard_normal()) for k in (128, 512, 2048) for i in range(3)}
    runs = [_memorising_run(k, scale, 0.5, i) for (k, i), scale in scales.items()]
    est = _slope_estimate(monkeypatch, runs)
    assert est.low <= 0.0 <= est.high and est.high - est.low < 0.1


def test_k_star_slope_departs_from_inverse_nu_when_c2_grows_with_k(monkeypatch):
    """c₂ from 0 (K = 128) to 1 (K = 2048) delays the blow-up more at large K: N_c grows more slowly
    than I_K(∞), K*(N) more steeply than N^{1/ν}: the difference 1/ν_c − 1/ν is positive, its interval excludes 0."""
    ks, c2s = (128, 512, 2048), (0.0, 0.5, 1.0)
    runs = [_memorising_run(k, 2.0 * k**0.7, c2, i) for k, c2 in zip(ks, c2s) for i in range(2)]
    # N_c = I_K(∞)/τ*(c₂(K)), so ν_c = 0.7 − d ln τ*/d ln K (least squares over the three K)
    taus = [np.sqrt(np.pi / 2)] + [_blowup_clock(c2) for c2 in c2s[1:]]
    nu_c = 0.7 - np.polyfit(np.log(ks), np.log(taus), 1)[0]
    est = _slope_estimate(monkeypatch, runs)
    assert est.value == pytest.approx(1 / nu_c - 1 / 0.7, abs=0.01)
    assert est.low > 0.0
