"""The GD certificate of the anisotropic trained-LSA claims (``optimal_lsa.certificate.best_run`` with ``extra`` runs).

One tuned GD step is an LSA layer (von Oswald et al. 2023, Prop. 1), so a trained layer whose loss is
above it at 99 % confidence is certainly not at the global minimum. The fast tests check the
certificate on models known in closed form and the bookkeeping of the added runs on short runs; the
slow ones train the default runs of check seed 18 (all three first runs stuck) and of seed 0.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from icl_verify import Verdict, check
from icl_verify.families.optimal_lsa import certificate, monte_carlo, training
from icl_verify.numerics.lsa.alignment import gd_model, line_search_rate, task_losses
from icl_verify.running import registry

SETTING = training.SINGLE_ANISO
SHORT = replace(SETTING, steps=40, batch=64)
"""40 steps from N(0, 0.01²) weights: still near the zero predictor (½·MSE ≈ ½ tr Λ = 2.625), far above GD."""


def preconditioned(A: np.ndarray):
    """One preconditioned GD step from 0: ŷ = x_qᵀ A (1/N) Σ_i y_i x_i (Zhang–Frei–Bartlett 2024, eq. of Thm. 4.1)."""

    def model(X: np.ndarray, Y: np.ndarray, x_q: np.ndarray) -> np.ndarray:
        h = np.einsum("bny,bnx->byx", Y, X) / X.shape[1]
        return np.einsum("bqx,xz,byz->bqy", x_q, A, h)

    return model


@pytest.fixture(scope="module")
def tasks():
    """Tuning tasks for η̂ and validation tasks, drawn like best_run's (fixed seeds)."""
    eta = line_search_rate(SETTING.sample(np.random.default_rng([7, 11]), 10_000))
    val = SETTING.sample(np.random.default_rng([7, 12]), training.TEST_TASKS // 4, n_queries=monte_carlo.MC_QUERIES)
    return eta, val, task_losses(gd_model(eta), val)


def test_preconditioned_step_with_eta_identity_is_the_gd_model(tasks):
    """The test's model with A = η̂ I and the library's GD step (W = η/N Σ y_i x_iᵀ) give the same predictions."""
    eta, val, gd_losses = tasks
    np.testing.assert_allclose(task_losses(preconditioned(eta * np.eye(SETTING.nx)), val), gd_losses, rtol=1e-10)


def test_certificate_fires_on_the_rank_one_point_and_a_detuned_rate(tasks):
    """A = a e₃e₃ᵀ (the stuck runs' A_θ ≈ diag(0, 0, 0.17)) fits only the λ = 4 direction: at its best a
    it loses to scalar GD; so does GD at η̂/3 (the one-step loss is a parabola in η with its minimum at η̂)."""
    eta, val, gd_losses = tasks
    f = val.x_q[..., 2] * np.einsum("bn,bn->b", val.Y[..., 0], val.X[..., 2])[:, None] / val.X.shape[1]
    a = float(np.sum(f * val.y_q[..., 0]) / np.sum(f * f))  # least-squares a on the validation tasks themselves
    rank_one = np.zeros((SETTING.nx, SETTING.nx))
    rank_one[2, 2] = a
    for model in (preconditioned(rank_one), gd_model(eta / 3)):
        beaten, (m, lo, hi) = certificate.beaten_by_gd(task_losses(model, val), gd_losses)
        assert beaten and 0 < lo <= m <= hi


def test_certificate_does_not_fire_on_gamma_inverse_or_gd_itself(tasks):
    """Γ⁻¹ (closed form, the class optimum) is below scalar GD; GD against itself has excess exactly 0."""
    _, val, gd_losses = tasks
    A = monte_carlo.gamma_inverse(monte_carlo.ANISO_LAMBDA, SETTING.n_context)
    beaten, (_, _, hi) = certificate.beaten_by_gd(task_losses(preconditioned(A), val), gd_losses)
    assert not beaten and hi < 0
    assert certificate.beaten_by_gd(gd_losses, gd_losses) == (False, (0.0, 0.0, 0.0))


def test_added_runs_are_seeded_recorded_and_deterministic():
    """Short runs are all beaten, so every allowed run is added, with the stated seeds, and each round is recorded;
    the first runs are the same as without the certificate; a second computation is identical."""
    seed = 2
    runs = certificate.best_run.__wrapped__(SHORT, seed, certificate.EXTRA_RUNS)
    first = [training.TRAIN_SEEDS * seed + j for j in range(training.TRAIN_SEEDS)]
    assert runs.seeds == first + [
        certificate.EXTRA_SEED_BASE + certificate.EXTRA_RUNS * seed + j for j in range(certificate.EXTRA_RUNS)
    ]
    assert len(runs.excess) == certificate.EXTRA_RUNS + 1 and all(lo > 0 for _, lo, _ in runs.excess)
    assert f"{certificate.EXTRA_RUNS} run(s) added" in runs.note() and f"η̂ = {runs.gd_rate:.4f}" in runs.note()
    plain = certificate.best_run.__wrapped__(SHORT, seed)
    assert plain.seeds == first and plain.note() == "" and plain.losses == runs.losses[: training.TRAIN_SEEDS]
    again = certificate.best_run.__wrapped__(SHORT, seed, certificate.EXTRA_RUNS)
    assert again.losses == runs.losses and all(np.array_equal(a, b) for a, b in zip(again.precond, runs.precond))


def test_the_certificate_is_written_into_the_evidence():
    context = certificate._context(SHORT, "short runs", certificate.EXTRA_RUNS)([2])
    assert "certificate vs one-step GD" in context and "3 run(s) added" in context


@pytest.mark.slow
def test_seed_18_runs_are_stuck_and_an_added_run_is_not():
    """Check seed 18: training seeds 54–56 all end at the rank-one point (validation ½·MSE ≈ 1.26 vs ≈ 1.01);
    the certificate fires, an added run reaches Γ⁻¹ and the claim is VERIFIED."""
    runs = certificate.best_run(SETTING, 18, certificate.EXTRA_RUNS)
    assert runs.excess[0][1] > 0 and len(runs.seeds) > training.TRAIN_SEEDS
    assert runs.excess[-1][1] <= 0 and runs.best >= training.TRAIN_SEEDS
    target = monte_carlo.gamma_inverse(monte_carlo.ANISO_LAMBDA, SETTING.n_context)
    assert all(monte_carlo.relative_distance(A, target) > 0.5 for A in runs.precond[: training.TRAIN_SEEDS])
    claims = {c.name: c for c in registry.builtin_claims()}
    assert check(claims["trained-lsa-preconditioner-gamma"], seed=18).verdict is Verdict.VERIFIED


@pytest.mark.slow
def test_converged_seed_adds_no_run_and_keeps_its_runs():
    """Check seed 0 (all runs converge): no run added; runs and preconditioners bit-identical to the plain best-of-3."""
    runs, plain = certificate.best_run(SETTING, 0, certificate.EXTRA_RUNS), certificate.best_run(SETTING, 0)
    assert runs.seeds == plain.seeds and runs.losses == plain.losses and len(runs.excess) == 1
    assert runs.excess[0][2] < 0 and all(np.array_equal(a, b) for a, b in zip(runs.precond, plain.precond))
