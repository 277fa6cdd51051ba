"""Adam and global-norm clipping (numerics.shared.optim) against hand computations, and their bad input."""

from __future__ import annotations

import numpy as np
import pytest

from icl_verify.numerics.shared.optim import Adam, clip_by_global_norm


def test_adam_first_step_is_minus_lr_sign():
    """With bias-corrected moments the first update is −lr·g/(|g| + ε) ≈ −lr·sign(g) (Kingma & Ba 2015)."""
    g = np.array([[[3.0, -0.02], [0.5, -7.0]]])
    params = [{"P": np.zeros((1, 2, 2))}]
    out = Adam(lr=0.1).step(params, [{"P": g}])
    np.testing.assert_allclose(out[0]["P"], -0.1 * np.sign(g), rtol=1e-6)


def test_adam_second_step_matches_hand_computation():
    opt = Adam(lr=0.5, beta1=0.9, beta2=0.99, eps=1e-12)
    p = [{"P": np.array([[[1.0]]])}]
    p = opt.step(p, [{"P": np.array([[[2.0]]])}])
    p = opt.step(p, [{"P": np.array([[[-1.0]]])}])
    m = 0.9 * 0.1 * 2.0 + 0.1 * -1.0  # 0.08
    v = 0.99 * 0.01 * 4.0 + 0.01 * 1.0  # 0.0496
    expected = 1.0 - 0.5 - 0.5 * (m / (1 - 0.81)) / np.sqrt(v / (1 - 0.9801))
    assert p[0]["P"][0, 0, 0] == pytest.approx(expected, rel=1e-12)


def test_clip_by_global_norm():
    grads = [{"P": np.full((1, 1, 1), 3.0)}, {"P": np.full((1, 1, 1), 4.0)}]
    clipped, norm = clip_by_global_norm(grads, 1.0)
    assert norm == pytest.approx(5.0)
    assert [c["P"].item() for c in clipped] == pytest.approx([0.6, 0.8])
    same, _ = clip_by_global_norm(grads, 10.0)
    assert [c["P"].item() for c in same] == [3.0, 4.0]


def test_bad_clip_norm_and_moment_rate():
    with pytest.raises(ValueError, match="max_norm"):
        clip_by_global_norm([{"P": np.ones((1, 1, 1))}], 0.0)
    with pytest.raises(ValueError, match="beta1"):
        Adam(beta1=1.0)


@pytest.mark.parametrize("dtypes", [("float32", "float32"), ("float64", "float64"), ("float32", "float64")])
def test_adam_updates_every_array_as_algorithm_1(dtypes):
    """Several arrays of several shapes (one flat update when they share a dtype, one per array otherwise): every
    entry as Kingma & Ba's Algorithm 1 computed array by array, to the last bit, over steps with a varying rate."""
    rng = np.random.default_rng(0)
    shapes = [{"A": (2, 3), "b": (3,)}, {"C": (1, 4, 4)}]
    kinds = [dtypes[0], dtypes[1]]
    params = [{k: rng.standard_normal(s).astype(kind) for k, s in layer.items()} for layer, kind in zip(shapes, kinds)]
    ref = [{k: a.copy() for k, a in layer.items()} for layer in params]
    moments = [{k: (np.zeros_like(a), np.zeros_like(a)) for k, a in layer.items()} for layer in params]
    opt = Adam(lr=0.01)
    for t in range(1, 4):
        grads = [{k: rng.standard_normal(a.shape).astype(a.dtype) for k, a in layer.items()} for layer in params]
        rate = 0.01 * np.cos(0.1 * t)  # a NumPy float64, as a cosine schedule gives
        params = opt.step(params, grads, rate)
        for layer, g_layer, mom in zip(ref, grads, moments):
            for k, g in g_layer.items():
                m, v = mom[k]
                m, v = 0.9 * m + (1 - 0.9) * g, 0.999 * v + (1 - 0.999) * g**2
                mom[k] = (m, v)
                step = rate * (m / (1 - 0.9**t)) / (np.sqrt(v / (1 - 0.999**t)) + 1e-8)
                layer[k] = (layer[k] - step).astype(layer[k].dtype)
        for got, want in zip(params, ref):
            for k in want:
                assert got[k].dtype == want[k].dtype and got[k].shape == want[k].shape
                np.testing.assert_array_equal(got[k], want[k])
