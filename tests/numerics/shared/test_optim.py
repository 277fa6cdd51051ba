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
