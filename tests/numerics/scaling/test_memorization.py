"""The MLP memorization trainer (numerics.scaling.memorization): backward pass against finite differences,
the logged constants against closed forms, the integral and the stopping rule, stacking, validation."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.integrate import cumulative_trapezoid
from scipy.special import expit

from icl_verify.numerics.scaling import memorization as mem
from icl_verify.numerics.shared import mlp
from icl_verify.numerics.shared.threads import blas_threads

TINY = mem.MemorizationSettings(d=16, hidden=32, lr=0.5, batch=32, max_steps=50_000, min_log_gap=5)


def _params64(m: int = 2, d: int = 3, h: int = 4) -> mlp.MLP:
    return mlp.init_stacked([np.random.default_rng(i) for i in range(m)], d, h, np.float64)


def _batch(m: int = 2, b: int = 5, d: int = 3, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return rng.standard_normal((m, b, d)), np.where(rng.random((m, b)) < 0.5, -1.0, 1.0)


def test_backward_pass_matches_central_finite_differences():
    params = _params64()
    x, y = _batch()
    grads = mem.StackedSGD(params, batch=5, lr=0.1).gradients(x, y)
    eps = 1e-6
    for w, g in zip(params.arrays(), grads.arrays()):
        numeric = np.empty_like(w)
        for i in np.ndindex(w.shape):
            old = w[i]
            w[i] = old + eps
            up = mlp.bce(mlp.mlp_forward(params, x)[0], y).sum()  # networks are independent: sum of their losses
            w[i] = old - eps
            down = mlp.bce(mlp.mlp_forward(params, x)[0], y).sum()
            w[i] = old
            numeric[i] = (up - down) / (2 * eps)
        np.testing.assert_allclose(g, numeric, rtol=1e-6, atol=1e-9)


def test_step_is_minus_lr_times_gradient():
    params = _params64()
    x, y = _batch(seed=1)
    before = [a.copy() for a in params.arrays()]
    trainer = mem.StackedSGD(params, batch=5, lr=0.3)
    grads = [g.copy() for g in mem.StackedSGD(mlp.MLP(*[a.copy() for a in before]), 5, 0.3).gradients(x, y).arrays()]
    trainer.step(x, y)
    for b, g, a in zip(before, grads, trainer.params.arrays()):
        np.testing.assert_allclose(a, b - 0.3 * g, rtol=1e-12, atol=1e-14)


def test_float32_gradients_agree_with_float64():
    p64 = _params64(d=8, h=16)
    p32 = mlp.MLP(*(a.astype(np.float32) for a in p64.arrays()))
    x, y = _batch(d=8, b=16, seed=2)
    g64 = mem.StackedSGD(p64, 16, 0.1).gradients(x, y)
    g32 = mem.StackedSGD(p32, 16, 0.1).gradients(x.astype(np.float32), y.astype(np.float32))
    for a, b in zip(g32.arrays(), g64.arrays()):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-6)


def test_integral_of_exponential_decay():
    t = np.linspace(0, 20, 4001)
    integral = mem.memorization_integral(t, np.exp(-t))
    assert integral[-1] == pytest.approx(1 - np.exp(-20), rel=1e-5)


def test_integral_is_the_trapezoid_rule_on_an_uneven_grid():
    # the trapezoid rule's cumulative sums against SciPy's independent implementation (the same operations today,
    # so equal to the last bit here; to rounding, rtol 1e-14 over 39 panels, whatever SciPy's release)
    t = np.sort(np.random.default_rng(3).uniform(0, 50, 40))
    c1 = 0.5 / (1 + t) ** 1.3
    want = cumulative_trapezoid(c1, t, initial=0.0)
    np.testing.assert_allclose(mem.memorization_integral(t, c1), want, rtol=1e-14, atol=0)


def test_stopping_rule_waits_for_the_last_doubling_to_add_little():
    # c₁ = 1/(1+t): I(T) − I(T/2) = log((1+T)/(1+T/2)) ≈ log 2 and I(T) = log(1+T), so the
    # relative increment drops below 5 % only once log(1+T) > log 2 / 0.05 ≈ 13.9.
    t = np.geomspace(1e-3, 1e8, 3000)
    c1 = 1 / (1 + t)
    assert not mem.converged(t[t < 1e4], c1[t < 1e4], c1_tol=0.02, rtol=0.05)
    assert mem.converged(t, c1, c1_tol=0.02, rtol=0.05)
    assert not mem.converged(t, c1 + 0.05, c1_tol=0.02, rtol=0.05)


def test_a_run_memorizes_and_logs_everything():
    (run,) = mem.memorize([64], [0], TINY)
    assert run.converged and run.c1[-1] <= TINY.c1_tol and run.iwl_acc[-1] >= TINY.iwl_threshold
    assert 0.4 < run.c1[0] < 0.6 and 0.4 < run.c2[0] < 0.6  # c₁ = c₂ = ½ at logits ≈ 0 (paper §3.4)
    assert run.c2[-1] > 0.9  # c₂ → 1 as the MLP memorises
    assert run.t_iwl is not None and 0 < run.t_iwl < run.times[-1]
    assert run.i_inf == pytest.approx(np.trapezoid(run.c1, run.times))
    assert run.quadrature_error < 0.05 * run.i_inf
    s = run.summary()
    assert s["k"] == 64 and s["seed"] == 0 and s["settings"]["hidden"] == 32 and s["converged"]


def test_more_items_take_longer_to_memorize():
    runs = mem.memorize([32, 256], [0, 0], TINY)
    assert runs[1].i_inf > 2 * runs[0].i_inf and runs[1].t_iwl > 2 * runs[0].t_iwl


def test_a_network_trains_alone_as_in_a_stack_up_to_float32_rounding():
    """Stacking couples no networks: the run of (K, seed) in a stack is its run alone. A stack multiplies
    other array shapes (another call, other memory offsets), so the two need not round alike: c₁ agrees
    within one float32 rounding (ε₃₂ relative) per SGD step, while another seed's run is far outside it."""
    stacked = mem.memorize([64, 128, 32], [3, 4, 5], TINY)
    (alone,) = mem.memorize([128], [4], TINY)
    (other,) = mem.memorize([128], [6], TINY)
    rtol = alone.steps[-1] * float(np.finfo(np.float32).eps)
    assert stacked[1].steps == alone.steps
    assert stacked[1].c1 == pytest.approx(alone.c1, rel=rtol)
    assert other.c1[: len(alone.c1)] != pytest.approx(alone.c1[: len(other.c1)], rel=10 * rtol)


def test_unconverged_run_is_flagged():
    (run,) = mem.memorize([256], [0], mem.MemorizationSettings(d=16, hidden=32, lr=0.5, batch=32, max_steps=50))
    assert not run.converged and run.steps[-1] == 50


@pytest.mark.parametrize(
    "ks, seeds, match",
    [([63], [0], "ks"), ([0], [0], "ks"), ([64], [-1], "seeds"), ([64], [0, 1], "equal length"), ([], [], "ks")],
)
def test_bad_runs_raise(ks, seeds, match):
    with pytest.raises(ValueError, match=match):
        mem.memorize(ks, seeds, TINY)


@pytest.mark.parametrize(
    "kwargs, name",
    [({"d": 0}, "d"), ({"hidden": 0}, "hidden"), ({"lr": 0.0}, "lr"), ({"lr": float("nan")}, "lr"),
     ({"batch": 0}, "batch"), ({"log_ratio": 1.0}, "log_ratio"), ({"dtype": "float16"}, "dtype")],
)  # fmt: skip
def test_bad_settings_name_the_argument(kwargs, name):
    with pytest.raises(ValueError, match=name):
        mem.MemorizationSettings(**kwargs)


def test_a_diverging_run_is_stopped_and_recorded_as_json():
    import json

    settings = mem.MemorizationSettings(d=8, hidden=16, lr=1e6, batch=16, max_steps=100_000, min_log_gap=5)
    (run,) = mem.memorize([32], [0], settings)
    assert run.diverged and not run.converged and run.steps[-1] < 1000
    summary = run.summary()
    json.dumps(summary, allow_nan=False)  # NaN recorded as null, so the sweep file stays valid JSON
    assert summary["i_inf"] is None and summary["diverged"]


def _reference_gradients(p: mlp.MLP, x: np.ndarray, y: np.ndarray) -> list[np.ndarray]:
    """∇θ of the mean softplus(−ℓφ) of one network, in float64, written out layer by layer with einsum."""
    W1, b1, W2, b2, w3, b3 = (np.asarray(a, np.float64) for a in p.arrays())
    x, y = np.asarray(x, np.float64), np.asarray(y, np.float64)
    a1 = np.einsum("bd,dh->bh", x, W1) + b1
    a2 = np.einsum("bh,hk->bk", np.maximum(a1, 0), W2) + b2
    phi = np.einsum("bk,k->b", np.maximum(a2, 0), w3) + b3
    dphi = -y / (1 + np.exp(y * phi)) / len(y)  # d softplus(−ℓφ)/dφ = −ℓ σ(−ℓφ), over the batch mean
    da2 = np.einsum("b,k->bk", dphi, w3) * (a2 > 0)
    da1 = np.einsum("bk,hk->bh", da2, W2) * (a1 > 0)
    return [np.einsum("bd,bh->dh", x, da1), da1.sum(0), np.einsum("bh,bk->hk", np.maximum(a1, 0), da2), da2.sum(0),
            np.einsum("bk,b->k", np.maximum(a2, 0), dphi), dphi.sum()]  # fmt: skip


def test_reference_gradients_are_the_trainers_float64_gradients():
    params = _params64(m=1, d=6, h=8)
    x, y = _batch(m=1, b=7, d=6, seed=3)
    grads = mem.StackedSGD(params, 7, 0.1).gradients(x, y)  # checked against finite differences above
    for got, want in zip(grads.arrays(), _reference_gradients(mlp.MLP(*(a[0] for a in params.arrays())), x[0], y[0])):
        np.testing.assert_allclose(got[0], want, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("m", [1, 2])
def test_float32_step_at_the_papers_sizes_is_minus_lr_times_the_float64_gradient(m):
    """The fused float32 step (BLAS updates in place, bias in the GEMM) against the independent float64 gradient."""
    d, h, b, lr = 63, 512, 128, 0.5
    params = mlp.init_stacked([np.random.default_rng(10 + i) for i in range(m)], d, h)
    rng = np.random.default_rng(4)
    x = (rng.standard_normal((m, b, d)) / np.sqrt(d)).astype(np.float32)
    y = np.where(rng.random((m, b)) < 0.5, -1.0, 1.0).astype(np.float32)
    trainer = mem.StackedSGD(params, b, lr)
    before = [a.copy() for a in trainer.params.arrays()]
    storage = [a.__array_interface__["data"][0] for a in trainer.params.arrays()]
    trainer.step(x, y)
    assert storage == [a.__array_interface__["data"][0] for a in trainer.params.arrays()]  # updated in place
    for i in range(m):
        want = _reference_gradients(mlp.MLP(*(a[i] for a in before)), x[i], y[i])
        for new, old, g in zip(trainer.params.arrays(), before, want):
            assert new.dtype == np.float32
            # float32: |θ| ≲ 0.2 rounds at ~1e-8; the GEMM sums 128 products with relative error ~ 128 · 6e-8
            np.testing.assert_allclose(new[i] - old[i], -lr * g, rtol=2e-4, atol=2e-7)


U = 2.0**-24 + 2.0**-53
"""float32's unit roundoff, plus float64's: the bounds below cover the float64 reference's own rounding too."""


def _gamma(n: int) -> float:
    """γ_n = nu/(1 − nu): a sum of n rounded products (or terms), in any order, is within γ_n Σ|a_i b_i| of the
    exact sum (Higham, *Accuracy and Stability of Numerical Algorithms*, 2002, §3.1 and Lemma 3.1)."""
    return n * U / (1 - n * U)


def _t(a: np.ndarray) -> np.ndarray:
    return np.swapaxes(a, -1, -2)


def _step_with_error_bound(
    theta: list[np.ndarray], xa: np.ndarray, y: np.ndarray, lr: float, masks: tuple[np.ndarray, np.ndarray]
) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """One step of :meth:`StackedSGD.step_loaded` in float64 from the float32 weights θ = ([W1; b1], W2, b2, w3, b3),
    and a bound on how far the float32 step from the same weights lands from it, entry by entry.

    Every product and sum of B, D + 1 or H terms (a bias add or the β = 1 update counting as one more term) is
    within γ_n Σ|terms| of its exact value, evaluated at the computed inputs (|ã| ≤ |a| + e_a), plus the errors
    its inputs carry from the earlier operations of the step (ReLU is 1-Lipschitz). ``masks`` are the float32
    step's ReLU masks [h̃1 > 0], [h̃2 > 0]: where one differs from the float64 mask, the masked δ's error is
    bounded by its size. g = −lr ℓ σ(−ℓφ)/B has |∂g/∂φ| ≤ lr/4B, and its float32 evaluation (expit within
    4 ulp, then three more roundings) adds at most 8u|g|."""
    L1, W2, b2, w3, b3 = theta
    batch, n_in = xa.shape[1:]
    hidden = W2.shape[-1]
    ax, aL1, aW2, ab2, aw3, ab3 = abs(xa), abs(L1), abs(W2), abs(b2), abs(w3), abs(b3)
    a1 = xa @ L1
    e1 = _gamma(n_in) * (ax @ aL1)  # pre-activation of layer 1, and of h1 = relu(a1)
    h1 = np.maximum(a1, 0)
    ah1 = abs(h1) + e1
    a2 = h1 @ W2 + b2[:, None]
    e2 = _gamma(hidden + 1) * (ah1 @ aW2 + ab2[:, None]) + e1 @ aW2
    h2 = np.maximum(a2, 0)
    ah2 = abs(h2) + e2
    z = np.einsum("mbh,mh->mb", h2, w3) + b3[:, None]
    ez = _gamma(hidden + 1) * (np.einsum("mbh,mh->mb", ah2, aw3) + ab3[:, None]) + np.einsum("mbh,mh->mb", e2, aw3)
    g = -lr * y * expit(-y * z) / batch
    eg = lr / (4 * batch) * ez
    eg += 8 * U * (abs(g) + eg)
    ag = abs(g) + eg
    p2 = g[..., None] * w3[:, None, :]  # δ2 before its mask
    ep2 = eg[..., None] * aw3[:, None, :] + U * ag[..., None] * aw3[:, None, :]
    d2 = p2 * (a2 > 0)
    ed2 = np.where(masks[1] != (a2 > 0), abs(p2) + ep2, ep2)
    ad2 = abs(d2) + ed2
    p1 = d2 @ _t(W2)  # δ1 before its mask (with W2 before its update)
    ep1 = _gamma(hidden) * (ad2 @ _t(aW2)) + ed2 @ _t(aW2)
    d1 = p1 * (a1 > 0)
    ed1 = np.where(masks[0] != (a1 > 0), abs(p1) + ep1, ep1)
    ad1 = abs(d1) + ed1
    step = _gamma(batch + 1)
    new = [
        L1 - _t(xa) @ d1,
        W2 - _t(h1) @ d2,
        b2 - d2.sum(axis=1),
        w3 - np.einsum("mbh,mb->mh", h2, g),
        b3 - g.sum(axis=-1),
    ]
    bound = [
        step * (_t(ax) @ ad1 + aL1) + _t(ax) @ ed1,
        step * (_t(ah1) @ ad2 + aW2) + _t(e1) @ ad2 + _t(abs(h1)) @ ed2,
        step * (ad2.sum(axis=1) + ab2) + ed2.sum(axis=1),
        step * (np.einsum("mbh,mb->mh", ah2, ag) + aw3)
        + np.einsum("mbh,mb->mh", e2, ag)
        + np.einsum("mbh,mb->mh", abs(h2), eg),
        step * (ag.sum(axis=-1) + ab3) + eg.sum(axis=-1),
    ]
    return new, bound


def _weights(trainer: mem.StackedSGD) -> list[np.ndarray]:
    return [trainer.layer1, trainer.W2, trainer.b2, trainer.w3, trainer.b3]


def test_a_step_on_two_blas_threads_agrees_with_one_thread_within_the_float32_rounding_bound():
    """A threaded GEMM may split and reorder its inner sums, so a step on two BLAS threads need not give bitwise
    the weights of one thread; from the same weights, both steps lie within the rounding bound of the exact step.
    Checked at three successive weights of a run."""
    params = mlp.init_stacked([np.random.default_rng(7), np.random.default_rng(9)], 63, 256)
    x, y = (a.astype(np.float32) for a in _batch(m=2, b=128, d=63, seed=8))
    xa = np.concatenate([x, np.ones((2, 128, 1), np.float32)], axis=2).astype(np.float64)
    lr = 0.5
    for _ in range(3):
        steps = []
        for threads in (1, 2):
            trainer = mem.StackedSGD(params, 128, lr)
            with blas_threads(threads):
                trainer.step(x, y)
            theta = [a.astype(np.float64) for a in _weights(mem.StackedSGD(params, 128, lr))]
            exact, bound = _step_with_error_bound(theta, xa, y.astype(np.float64), lr, (trainer.h1 > 0, trainer.h2 > 0))
            steps.append((_weights(trainer), bound))
        (one, bound_one), (two, bound_two) = steps
        for got1, got2, b1, b2, want, before in zip(one, two, bound_one, bound_two, exact, theta):
            assert not np.array_equal(got1, before)  # every array moved
            assert max(np.max(b1), np.max(b2)) < 0.1 * np.max(abs(want - before))  # far below the step's size
            assert np.all(abs(got1 - want) <= b1) and np.all(abs(got2 - want) <= b2)
            assert np.all(abs(got1.astype(np.float64) - got2) <= b1 + b2)
        params = mlp.MLP(one[0][:, :-1].copy(), one[0][:, -1].copy(), *(a.copy() for a in one[1:]))


def test_stacked_params_are_views_the_steps_change():
    params = _params64()
    trainer = mem.StackedSGD(params, 5, 0.1)
    w1 = trainer.params.W1.copy()
    trainer.step(*_batch(seed=5))
    assert not np.array_equal(trainer.params.W1, w1) and np.shares_memory(trainer.params.b1, trainer.layer1)
    np.testing.assert_array_equal(params.W1, w1)  # the trainer copies its initial weights


@pytest.mark.parametrize(
    "kwargs, name", [({"backend": "jax"}, "backend"), ({"device": "cuda"}, "device"), ({"device": 0}, "device")]
)
def test_bad_backend_settings_name_the_argument(kwargs, name):
    with pytest.raises(ValueError, match=name):
        mem.MemorizationSettings(**kwargs)


def test_the_numpy_trainer_does_not_import_torch():
    """Torch stays optional (the import contract in pyproject.toml covers the rest of the package)."""
    import subprocess
    import sys

    code = "import sys, icl_verify.numerics.scaling.memorization; print('torch' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout == "False\n"


def test_scaling_device_without_torch_backend_is_exit_2(tmp_path):
    from click.testing import CliRunner

    from icl_verify.cli.scaling import command

    result = CliRunner().invoke(command, ["--device", "cuda", "--out-file", str(tmp_path / "r.jsonl")])
    assert result.exit_code == 2 and "--device" in result.output and "--backend torch" in result.output
    assert not (tmp_path / "r.jsonl").exists()
