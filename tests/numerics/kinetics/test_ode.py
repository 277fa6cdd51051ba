"""The (w, β) ODE integrator (numerics.kinetics.ode) against closed forms and its symmetries.

Expected values come from the mathematics: τ* = e^{−β₀+w₀²/2}√(π/2) erfc(w₀/√2) (c₂ = 0; erfc from
``math``, independent of the module's erfcx form), the clock τ = ∫c₁dt/N, and exact solutions.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from icl_verify.numerics.kinetics import ode as kin


def tau_star_math(w0: float, beta0: float) -> float:
    return math.exp(-beta0 + w0**2 / 2) * math.sqrt(math.pi / 2) * math.erfc(w0 / math.sqrt(2))


@pytest.mark.parametrize("w0, beta0", [(0.0, 0.0), (0.7, -1.0), (-1.2, 0.5), (2.0, 2.0), (0.0, -3.0)])
def test_blowup_time_matches_closed_form(w0, beta0):
    sol = kin.integrate(w0, beta0, n=1.0, c1=1.0, c2=0.0, t_max=1e9)
    assert sol.t_icl[0] == pytest.approx(tau_star_math(w0, beta0), rel=1e-8)


def test_closed_form_helper_matches_math_erfc():
    for w0, b0 in [(0.0, 0.0), (1.5, -0.3), (-2.0, 1.0)]:
        assert kin.tau_star(w0, b0)[0] == pytest.approx(tau_star_math(w0, b0), rel=1e-12)
    assert kin.tau_star(0.0, 0.0)[0] == pytest.approx(math.sqrt(math.pi / 2))
    assert np.isfinite(kin.tau_star(40.0, 0.0)[0])  # erfcx form: no overflow


def test_batch_equals_one_by_one():
    w0 = np.array([0.0, 0.5, -0.5, 1.0])
    b0 = np.array([0.0, -1.0, 1.0, -2.0])
    batch = kin.integrate(w0, b0, n=10, c1=0.5, c2=0.3, t_max=1e6).t_icl
    single = [kin.integrate(w, b, n=10, c1=0.5, c2=0.3, t_max=1e6).t_icl[0] for w, b in zip(w0, b0)]
    np.testing.assert_allclose(batch, single, rtol=1e-7)


def test_k_infinity_law():
    for n, b0 in [(1, 0.0), (100, 1.0), (250, -0.5)]:
        sol = kin.integrate(0.0, b0, n=n, c1=0.5, c2=0.0, t_max=1e9)
        assert sol.t_icl[0] == pytest.approx(math.sqrt(2 * math.pi) * n * math.exp(-b0), rel=1e-8)


# --- scale invariance in the clock τ = ∫ c₁ dt / N -----------------------------------------------


@settings(max_examples=15, deadline=None)
@given(
    a=st.floats(0.1, 10.0),
    n=st.floats(10.0, 300.0),
    w0=st.floats(-1.0, 1.5),
    beta0=st.floats(-1.5, 2.0),
    c2=st.floats(0.0, 1.0),
)
def test_scaling_c1_and_n_together_leaves_t_icl_unchanged(a, n, w0, beta0, c2):
    base = kin.integrate(w0, beta0, n=n, c1=0.4, c2=c2, t_max=1e9).t_icl[0]
    scaled = kin.integrate(w0, beta0, n=a * n, c1=0.4 * a, c2=c2, t_max=1e9).t_icl[0]
    assert scaled == pytest.approx(base, rel=1e-7)


@settings(max_examples=15, deadline=None)
@given(a=st.floats(0.1, 10.0), w0=st.floats(-1.0, 1.5), beta0=st.floats(-1.5, 2.0), c2=st.floats(0.0, 1.0))
def test_scaling_c1_divides_t_icl(a, w0, beta0, c2):
    base = kin.integrate(w0, beta0, n=20, c1=0.5, c2=c2, t_max=1e9).t_icl[0]
    faster = kin.integrate(w0, beta0, n=20, c1=0.5 * a, c2=c2, t_max=1e9).t_icl[0]
    assert faster == pytest.approx(base / a, rel=1e-7)


@settings(max_examples=10, deadline=None)
@given(w0=st.floats(-1.0, 1.5), beta0=st.floats(-1.0, 2.0), n=st.integers(1, 200))
def test_time_varying_c1_acts_through_the_clock_only(w0, beta0, n):
    # c₁(t) = 0.25 (1 + t/T): I(t) = 0.25 (t + t²/(2T)); blow-up at I(t) = N τ* (c₂ = 0).
    T = 7.0
    sol = kin.integrate(w0, beta0, n=n, c1=lambda t: 0.25 * (1 + t / T), c2=0.0, t_max=1e9)
    need = n * tau_star_math(w0, beta0) / 0.25
    expected = T * (-1 + math.sqrt(1 + 2 * need / T))
    assert sol.t_icl[0] == pytest.approx(expected, rel=1e-7)


def test_table_schedule_equals_the_same_piecewise_linear_callable():
    times, values = np.array([0.0, 10.0, 30.0]), np.array([0.5, 0.2, 0.05])
    tab = kin.integrate(0.2, 0.0, n=5, c1=kin.table(times, values), c2=0.4, t_max=1e5).t_icl[0]
    fn = kin.integrate(0.2, 0.0, n=5, c1=lambda t: np.interp(t, times, values), c2=0.4, t_max=1e5).t_icl[0]
    assert tab == pytest.approx(fn, rel=1e-9)


# --- monotonicity in β₀ --------------------------------------------------------------------------


@settings(max_examples=15, deadline=None)
@given(
    w0=st.floats(-0.5, 1.5),
    beta0=st.floats(-2.0, 2.0),
    gap=st.floats(0.05, 1.5),
    c2=st.floats(0.0, 1.0),
)
def test_t_icl_decreases_with_beta0(w0, beta0, gap, c2):
    sol = kin.integrate(w0, [beta0, beta0 + gap], n=50, c1=0.5, c2=c2, t_max=1e12)
    assert sol.t_icl[0] > sol.t_icl[1]


# --- trajectories, decay, equalised contexts -------------------------------------------------


def test_trajectory_conserves_beta_minus_half_w_squared_and_ends_at_blowup():
    grid = np.linspace(0.0, 3.0, 61)
    sol = kin.integrate(0.3, -0.2, n=1.0, c1=1.0, c2=0.0, t_max=100.0, t_eval=grid)
    tau = tau_star_math(0.3, -0.2)
    before = grid < tau
    q = sol.beta[0, before] - sol.w[0, before] ** 2 / 2
    np.testing.assert_allclose(q, -0.2 - 0.045, atol=1e-8)
    assert np.all(np.isnan(sol.beta[0, grid > tau]))


def test_trajectory_starts_with_the_printed_slope():
    # dw/dt(0) = (c₁/N) e^{β₀} when w₀ = 0 (eq. 4), by a forward difference over 1e-4.
    grid = np.array([0.0, 1e-4])
    sol = kin.integrate(0.0, 0.5, n=4.0, c1=2.0, c2=0.0, t_max=10.0, t_eval=grid)
    assert (sol.w[0, 1] - sol.w[0, 0]) / 1e-4 == pytest.approx(2.0 / 4.0 * math.exp(0.5), rel=1e-3)


def test_decay_without_drive_is_exponential():
    # c₁ = 0: dw/dt = −λ_w w, dβ/dt = −λ_β β exactly.
    grid = np.linspace(0.0, 5.0, 11)
    sol = kin.integrate(1.5, 2.0, n=10, c1=0.0, c2=0.5, t_max=5.0, decay_w=0.3, decay_beta=0.7, t_eval=grid)
    np.testing.assert_allclose(sol.w[0], 1.5 * np.exp(-0.3 * grid), rtol=1e-7)
    np.testing.assert_allclose(sol.beta[0], 2.0 * np.exp(-0.7 * grid), rtol=1e-7)
    assert np.isnan(sol.t_icl[0])


def test_memorisation_first_prevents_icl_and_decay_then_erases_the_attention_path():
    # I(∞) = cT = 0.5·10 = 5 < N τ* = 20·√(π/2): no blow-up; with decay, w and β shrink to 0.
    grid = np.linspace(0.0, 400.0, 5)
    sol = kin.integrate(
        0.5,
        0.5,
        n=20,
        c1=lambda t: 0.5 * np.exp(-t / 10),
        c2=0.5,
        t_max=400.0,
        decay_w=0.05,
        decay_beta=0.05,
        t_eval=grid,
    )
    assert np.isnan(sol.t_icl[0])
    assert abs(sol.w[0, -1]) < 1e-3 and abs(sol.beta[0, -1]) < 1e-3


def test_equalised_contexts_have_a_fixed_point_at_the_origin_and_blow_up_later():
    assert np.isnan(kin.integrate(0.0, 0.0, n=1.0, c1=1.0, c2=0.0, t_max=1e4, equalised=True).t_icl[0])
    tau_r = kin.integrate(0.0, 1.0, n=1.0, c1=1.0, c2=0.0, t_max=1e6).t_icl[0]
    tau_e = kin.integrate(0.0, 1.0, n=1.0, c1=1.0, c2=0.0, t_max=1e6, equalised=True).t_icl[0]
    assert tau_e > tau_r


def test_clock_is_the_trapezoidal_integral():
    t = np.linspace(0.0, 4.0, 9)
    np.testing.assert_allclose(kin.clock(t, 0.5 + 0.25 * t, 2.0), (0.5 * t + 0.125 * t**2) / 2.0)


@pytest.mark.parametrize(
    "times, c1, name",
    [([0.0, 1.0, 2.0], [0.5, 0.5], "c1"), ([0.0, 2.0, 1.0], [0.5, 0.5, 0.5], "times"), ([], [], "times"),
     ([0.0, 1.0], [0.5, -0.5], "c1")],
)  # fmt: skip
def test_clock_rejects_mismatched_lengths_and_decreasing_times(times, c1, name):
    with pytest.raises(ValueError, match=name):
        kin.clock(times, c1, 1.0)


def test_dormand_prince_tableau_is_the_published_one():
    """Hairer, Nørsett & Wanner, Table II.5.2: stage 5 of A, the 5th-order weights b and the error weights b − b̂."""
    b = np.array([35 / 384, 0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84, 0])
    b_hat = np.array([5179 / 57600, 0, 7571 / 16695, 393 / 640, -92097 / 339200, 187 / 2100, 1 / 40])
    np.testing.assert_allclose(
        kin._DP_A[5], [9017 / 3168, -355 / 33, 46732 / 5247, 49 / 176, -5103 / 18656], rtol=1e-15
    )
    np.testing.assert_allclose(kin._DP_A[6], b[:6], rtol=1e-15)
    np.testing.assert_allclose(kin._DP_B, b, rtol=1e-15)
    np.testing.assert_allclose(kin._DP_E, b - b_hat, rtol=1e-12, atol=1e-17)


def test_slaved_closed_form():
    assert kin.tau_star_slaved(0.5, -2.0)[0] == pytest.approx(0.25 * math.exp(4.0))


# --- bad input -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs, name",
    [
        ({"n": 0.5}, "n"),
        ({"c1": -0.1}, "c1"),
        ({"c2": -0.1}, "c2"),
        ({"c1": float("nan")}, "c1"),
        ({"t_max": 0.0}, "t_max"),
        ({"decay_w": -1.0}, "decay_w"),
    ],
)
def test_bad_parameters_name_the_argument(kwargs, name):
    args = {"n": 10, "c1": 0.5, "c2": 0.5, "t_max": 100.0} | kwargs
    with pytest.raises(ValueError, match=name):
        kin.integrate(0.0, 0.0, **args)


def test_bad_initial_conditions_and_tables():
    with pytest.raises(ValueError, match="w0"):
        kin.integrate(float("nan"), 0.0, n=10, t_max=1.0)
    with pytest.raises(ValueError, match="beta0"):
        kin.integrate(0.0, 50.0, n=10, t_max=1.0)
    with pytest.raises(ValueError, match="c1 values"):
        kin.table([0.0, 1.0], [0.5, -0.1], name="c1")
    with pytest.raises(ValueError, match="increasing"):
        kin.table([0.0, 0.0], [0.5, 0.1], name="c1")
    with pytest.raises(ValueError, match="c1"):
        kin.integrate(0.0, 0.0, n=10, c1=lambda t: 0.5 - t, t_max=10.0)


# --- the per-IC-step batch integrator ------------------------------------------------------------


def test_blowup_times_match_the_closed_form():
    w0, b0 = np.array([0.0, 0.7, -1.2, 2.0]), np.array([0.0, -1.0, 0.5, 2.0])
    got = kin.blowup_times(w0, b0, n=1.0, c1=1.0, c2=0.0, t_max=1e9)
    np.testing.assert_allclose(got, [tau_star_math(w, b) for w, b in zip(w0, b0)], rtol=1e-8)


@settings(max_examples=10, deadline=None)
@given(
    w0=st.floats(-1.0, 1.5),
    beta0=st.floats(-1.5, 2.0),
    c2=st.floats(0.0, 1.0),
    decay=st.floats(0.0, 0.01),
    t_mem=st.floats(20.0, 2000.0),
    equalised=st.booleans(),
)
def test_blowup_times_agree_with_solve_ivp(w0, beta0, c2, decay, t_mem, equalised):
    kwargs = dict(
        n=30,
        c1=lambda t: 0.5 * np.exp(-t / t_mem),
        c2=0.0 if equalised else c2,
        t_max=5000.0,
        decay_w=decay,
        decay_beta=decay,
        equalised=equalised,
    )
    ref = kin.integrate([w0, 0.0], [beta0, 0.5], **kwargs).t_icl
    got = kin.blowup_times([w0, 0.0], [beta0, 0.5], **kwargs)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(ref))
    np.testing.assert_allclose(got[~np.isnan(ref)], ref[~np.isnan(ref)], rtol=1e-6)


def test_blowup_times_validate_like_integrate():
    with pytest.raises(ValueError, match="c1"):
        kin.blowup_times(0.0, 0.0, n=10, c1=-0.5, t_max=10.0)
    with pytest.raises(ValueError, match="n"):
        kin.blowup_times(0.0, 0.0, n=0.0, t_max=10.0)


# --- the exact attention loss behind the simplified loss -----------------------------------------


def test_exact_attention_loss_equals_brute_force_enumeration():
    # All 2^(N−1) label patterns of the other context items, each with probability 2^−(N−1).
    import itertools

    u, w, beta, n = 0.4, 1.3, 0.7, 6
    total = 0.0
    for labels in itertools.product((-1.0, 1.0), repeat=n - 1):
        delta = w * (math.exp(beta) + sum(labels)) / (math.exp(beta) + n - 1)
        total += math.log1p(math.exp(-u - delta)) / 2 ** (n - 1)
    assert kin.exact_attention_loss(u, w, beta, n) == pytest.approx(total - math.log1p(math.exp(-u)), rel=1e-12)


def test_exact_attention_loss_vanishes_without_attention_and_rejects_bad_n():
    assert kin.exact_attention_loss(0.2, 0.0, 1.0, 10) == pytest.approx(0.0, abs=1e-15)
    with pytest.raises(ValueError, match="n"):
        kin.exact_attention_loss(0.2, 1.0, 1.0, 0)


def test_context_length_per_initial_condition_equals_one_by_one():
    """n as an array gives each initial condition its own N, in both integrators (the K* search uses it)."""
    ns = np.array([5.0, 20.0, 80.0])
    # a batch shares its adaptive steps, so it agrees with single runs to the integrators' tolerances
    # (rtol 1e-10 for integrate, 1e-9 per step for blowup_times, accumulated over the steps), not bitwise
    single = [kin.integrate(0.3, -0.5, n=n, c1=0.5, c2=0.3, t_max=1e6).t_icl[0] for n in ns]
    np.testing.assert_allclose(kin.integrate(0.3, -0.5, n=ns, c1=0.5, c2=0.3, t_max=1e6).t_icl, single, rtol=1e-7)
    np.testing.assert_allclose(kin.blowup_times(0.3, -0.5, n=ns, c1=0.5, c2=0.3, t_max=1e6), single, rtol=1e-6)
    # K → ∞, c₂ = 0: t_ICL = N τ*/c₁ exactly (paper §3.5), so the three times are in the ratio of the N
    np.testing.assert_allclose(
        kin.blowup_times(0.0, 0.0, n=ns, c1=0.5, c2=0.0, t_max=1e6), ns * np.sqrt(np.pi / 2) / 0.5, rtol=1e-6
    )


def test_context_length_array_of_the_wrong_length_is_refused():
    with pytest.raises(ValueError, match="w0, beta0 and n must have the same length"):
        kin.integrate([0.0, 0.1], 0.0, n=[10.0, 20.0, 30.0], t_max=10.0)
    with pytest.raises(ValueError, match="n must be at least 1"):
        kin.blowup_times(0.0, 0.0, n=[10.0, 0.5], t_max=10.0)


def test_tau_star_table_matches_the_closed_form_and_the_strongly_negative_regime():
    """c₂ = 0: √(π/2)e^{−β₀} (paper §3.5); c₂ = 1 at β₀ = −3 (κ = e³ ≫ 1): (c₂/2)e^{−2β₀} within 3 %."""
    table = kin.tau_star_table((-3.0, 0.0, 2.0), (0.0, 1.0))
    np.testing.assert_allclose(table[:, 0], np.sqrt(np.pi / 2) * np.exp([3.0, 0.0, -2.0]), rtol=1e-6)
    assert abs(table[0, 1] / (0.5 * np.exp(6.0)) - 1) < 0.03
    assert np.all(table[:, 1] > table[:, 0])  # c₂ > 0 only delays the blow-up
