"""Power-law and sigmoid fits (numerics.scaling.fits): exact recovery, interval coverage on synthetic data
with a known exponent, diagnostics that detect a bend, held-out extrapolation, input validation."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from icl_verify.numerics.scaling import fits as scaling

KS = np.geomspace(100, 10_000, 8)


def synthetic(rng: np.random.Generator, nu: float, runs: int, sigma: float = 0.2, ks=KS) -> tuple:
    """y = 2 K^ν e^{σ ε} with ε ~ N(0, 1): log-normal scatter about an exact power law."""
    x = np.repeat(ks, runs)
    return x, 2.0 * x**nu * np.exp(sigma * rng.standard_normal(x.size))


@settings(max_examples=40, deadline=None)
@given(a=st.floats(0.01, 100), nu=st.floats(-2, 2), n=st.integers(2, 9))
def test_exact_power_law_is_recovered_by_both_fits(a, nu, n):
    x = np.geomspace(1, 1000, n)
    for method in ("loglog", "nonlinear"):
        law = scaling.fit(x, a * x**nu, method)
        assert law.exponent == pytest.approx(nu, abs=1e-7)
        assert law.prefactor == pytest.approx(a, rel=1e-6)


def test_loglog_fit_equals_scipy_linregress_on_logs():
    rng = np.random.default_rng(3)
    x, y = synthetic(rng, 0.7, 3)
    ref = stats.linregress(np.log(x), np.log(y))
    law = scaling.loglog_fit(x, y)
    assert law.exponent == pytest.approx(ref.slope, rel=1e-12)
    assert np.log(law.prefactor) == pytest.approx(ref.intercept, rel=1e-12)


def _coverage(rng, runs: int, reps: int, groups: bool = False) -> float:
    hits = 0
    for _ in range(reps):
        x, y = synthetic(rng, 0.7, runs)
        g = np.tile(np.arange(runs), KS.size) if groups else None
        f = scaling.fit_power_law(x, y, groups=g, rng=rng, n_boot=500, n_holdout=0)
        hits += f.low <= 0.7 <= f.high
    return hits / reps


def test_stratified_bootstrap_interval_has_its_stated_coverage():
    # 95 % nominal; 250 synthetic data sets with known ν = 0.7: the binomial sd of the
    # coverage estimate is 1.4 %, so [0.90, 0.99] is a ≈ 3-sd band about 0.95.
    cover = _coverage(np.random.default_rng(11), runs=5, reps=250)
    assert 0.90 <= cover <= 0.99


def test_coverage_stays_near_nominal_with_two_runs_per_k():
    # Without the rescaling and the t correction, two runs per K give ≈ 0.75 coverage.
    cover = _coverage(np.random.default_rng(12), runs=2, reps=250)
    assert 0.88 <= cover <= 0.99


def test_group_bootstrap_covers_with_whole_seed_sweeps():
    cover = _coverage(np.random.default_rng(13), runs=8, reps=150, groups=True)
    assert 0.88 <= cover <= 0.99


def test_interval_narrows_with_more_runs():
    rng = np.random.default_rng(5)
    few = scaling.fit_power_law(*synthetic(rng, 0.7, 2), rng=rng)
    many = scaling.fit_power_law(*synthetic(rng, 0.7, 20), rng=rng)
    assert many.high - many.low < 0.5 * (few.high - few.low)


def test_nonlinear_bootstrap_is_centred_on_the_truth():
    rng = np.random.default_rng(6)
    x, y = synthetic(rng, 0.7, 4, sigma=0.05)
    f = scaling.fit_power_law(x, y, method="nonlinear", n_boot=100, rng=rng)
    assert f.low <= 0.7 <= f.high
    assert f.high - f.low < 0.1


def test_curvature_is_flagged_for_a_bent_law_and_not_for_a_power_law():
    x = np.repeat(KS, 3)
    lx = np.log(x)
    rng = np.random.default_rng(7)
    noise = 0.02 * rng.standard_normal(x.size)
    straight = scaling.residual_diagnostics(
        x, np.exp(0.7 * lx + noise), scaling.loglog_fit(x, np.exp(0.7 * lx + noise))
    )
    bent_y = np.exp(0.7 * lx + 0.05 * (lx - lx.mean()) ** 2 + noise)
    bent = scaling.residual_diagnostics(x, bent_y, scaling.loglog_fit(x, bent_y))
    assert bent.curvature == pytest.approx(0.05, abs=0.01) and bent.curvature_p < 1e-6
    assert straight.curvature_p > 1e-3 and straight.r2 > 0.999


def test_holdout_error_is_zero_on_an_exact_law_and_grows_with_a_bend():
    x = np.repeat(KS, 2)
    assert scaling.holdout_error(x, 3 * x**0.7).log_error == pytest.approx(0, abs=1e-10)
    lx = np.log(x)
    bent = scaling.holdout_error(x, np.exp(0.7 * lx + 0.05 * (lx - lx.min()) ** 2), n_holdout=2)
    assert bent.heldout_x == pytest.approx(KS[-2:].tolist())
    assert bent.log_error > 0.1


def test_sigmoid_fit_recovers_the_threshold():
    u = np.repeat(np.linspace(2.5, 5, 11), 3)
    rng = np.random.default_rng(8)
    acc = 0.5 + 0.5 / (1 + np.exp(-(u - 3.9) / 0.15)) + 0.01 * rng.standard_normal(u.size)
    sig = scaling.fit_sigmoid(u, acc)
    assert sig.center == pytest.approx(3.9, abs=3 * sig.center_se + 1e-3)
    assert sig.center_se < 0.05
    free = scaling.fit_sigmoid(u, acc, lo=None, hi=None)
    assert free.lo == pytest.approx(0.5, abs=0.03) and free.hi == pytest.approx(1.0, abs=0.03)


@pytest.mark.parametrize(
    "x, y, match",
    [
        ([1, 2, 3], [1, 2], "same length"),
        ([1, 2, -3], [1, 2, 3], "positive"),
        ([1, 2, np.nan], [1, 2, 3], "finite"),
        ([2, 2, 2], [1, 2, 3], "distinct"),
    ],
)
def test_bad_input_names_the_problem(x, y, match):
    with pytest.raises(ValueError, match=match):
        scaling.loglog_fit(x, y)


def test_stratified_bootstrap_needs_two_runs_per_x():
    with pytest.raises(ValueError, match="at least 2 runs"):
        scaling.fit_power_law(KS, KS**0.7, rng=np.random.default_rng(0))


def test_fit_records_its_settings():
    rng = np.random.default_rng(9)
    f = scaling.fit_power_law(*synthetic(rng, 0.7, 3), rng=rng, n_boot=500, seed=9)
    d = f.to_dict()
    assert d["seed"] == 9 and d["n_runs"] == 24 and d["level"] == 0.95
    assert d["low"] <= d["exponent"] <= d["high"]


# ---------------------------------------------------------------------------------------------
# Presets, K* prediction, claims and the CLI (icl_verify.experiments.scaling, icl_verify.families.scaling, icl_verify.cli.scaling)

import json  # noqa: E402
from dataclasses import replace  # noqa: E402

from click.testing import CliRunner  # noqa: E402

from icl_verify import Verdict, check  # noqa: E402
from icl_verify.cli.main import main  # noqa: E402
from icl_verify.experiments import scaling as sweeps  # noqa: E402
from icl_verify.families.scaling import memorization, threshold  # noqa: E402
from icl_verify.numerics.kinetics import ode as kinetics  # noqa: E402
from icl_verify.numerics.scaling.memorization import MemorizationSettings  # noqa: E402

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


def _threshold_data(rng, slope: float = 1.5, runs: int = 2):
    """Final accuracies from a known K*(N) = 2 N^slope: ½ + ½ σ((log₁₀K − log₁₀K*)/0.08) + noise."""
    rows = []
    for n in (16, 32, 64):
        for k in np.geomspace(2 * n, 2 * 64 * n, 13):
            for _ in range(runs):
                centre = np.log10(2 * n**slope)
                acc = 0.5 + 0.5 / (1 + np.exp(-(np.log10(k) - centre) / 0.08)) + 0.02 * rng.standard_normal()
                rows.append((n, k, acc))
    return np.array(rows).T


def test_threshold_fit_recovers_a_known_slope_and_k_star():
    rng = np.random.default_rng(21)
    n, k, acc = _threshold_data(rng)
    fit = scaling.fit_threshold(n, k, acc, rng=rng, n_boot=100)
    assert fit.slope == pytest.approx(1.5, abs=0.05)
    assert fit.low <= 1.5 <= fit.high and fit.high - fit.low < 0.2
    np.testing.assert_allclose(fit.k_star, 2 * np.array([16, 32, 64]) ** 1.5, rtol=0.05)
    assert all(lo <= k <= hi for lo, k, hi in zip(fit.k_star_low, fit.k_star, fit.k_star_high))


def test_threshold_fit_needs_two_context_lengths():
    with pytest.raises(ValueError, match="2 distinct"):
        scaling.fit_threshold([16] * 4, [32, 64, 128, 256], [0.5, 0.5, 1, 1], rng=np.random.default_rng(0))


def test_threshold_job_runs_the_reduced_model():
    config = TINY.threshold_configs(seed=0)[0]
    out = scaling.threshold_job(config)
    assert out["n"] == 8 and out["k"] == config["reduced"]["k"] and out["seed"] == config["seed"]
    assert 0 <= out["icl_acc"] <= 1 and 0 <= out["iwl_acc"] <= 1
    assert out["t_final"] == pytest.approx(config["reduced"]["steps"] * config["reduced"]["lr"])


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
