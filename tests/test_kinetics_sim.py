"""Reduced-model simulations against the ODE, at sizes small enough for the default test run."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from numerics import icl_models as m
from theory import kinetics as kc


def test_two_seeds_of_the_follow_claim_cross_within_ten_percent_of_the_ode():
    est = kc.measure_follows_ode(0, runs=2)
    assert abs(est.value - 1) < 0.1, est.detail


def test_no_icl_when_the_mlp_memorises_first_in_simulation_and_in_the_ode():
    # K = 128: memorised long before the attention path blows up; the driven ODE agrees (no crossing).
    run = m.train_reduced(replace(kc.FOLLOW, k=128, steps=600), 3)
    level = float(np.log(kc.LEVEL * run.config.n))
    assert max(run.beta) < level and run.iwl_acc[-1] > 0.95
    assert np.isnan(m.ode_for_run(run, beta_cap=level).t_icl[0])


def test_driven_ode_tracks_w_and_beta_before_the_comparison_level():
    run = m.train_reduced(kc.FOLLOW, 0)
    t = np.asarray(run.t)
    level = float(np.log(kc.LEVEL * run.config.n))
    sol = m.ode_for_run(run, t_eval=t)
    keep = np.isfinite(sol.beta[0]) & (sol.beta[0] < level)
    assert keep.sum() > 20
    np.testing.assert_allclose(np.asarray(run.beta)[keep], sol.beta[0, keep], atol=0.15)
    np.testing.assert_allclose(np.asarray(run.w)[keep], sol.w[0, keep], atol=0.15)


def test_early_stop_records_the_crossing():
    cfg = replace(kc.SCALING, n=16, steps=400, stop_icl=0.95)
    run = m.train_reduced(cfg, 0)
    assert run.icl_acc[-1] > 0.95 and run.t_icl() == run.t[-1] < cfg.lr * cfg.steps


@pytest.mark.slow
def test_transience_run_fades_and_control_persists():
    fade = kc.measure_fade(0)
    keep = kc.measure_fade(0, replace(kc.TRANSIENT, decay=0.0))
    assert fade.value > 0.4 and abs(keep.value) < 0.05
