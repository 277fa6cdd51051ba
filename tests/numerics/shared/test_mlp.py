"""The shared MLP and BCE (numerics.shared.mlp): backward passes against central finite differences,
single and stacked networks, the nn.Linear initialisation in distribution, and the BCE's reduction."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from icl_verify.numerics.shared import mlp


def _phi_sum(p: mlp.MLP, x: np.ndarray, g: np.ndarray) -> float:
    return float(np.sum(g * mlp.mlp_forward(p, x)[0]))


def _numeric_gradient(f, a: np.ndarray, h: float = 1e-6) -> np.ndarray:
    out = np.empty_like(a)
    for i in np.ndindex(a.shape):
        old = a[i]
        a[i] = old + h
        up = f()
        a[i] = old - h
        down = f()
        a[i] = old
        out[i] = (up - down) / (2 * h)
    return out


@pytest.mark.parametrize("stack", [(), (2,)])
def test_backward_and_input_gradient_match_central_differences(stack):
    rng = np.random.default_rng(0)
    if stack:
        p = mlp.init_stacked([np.random.default_rng(i) for i in range(stack[0])], 3, 5, np.float64)
    else:
        p = mlp.init_mlp(3, 5, rng, dtype=np.float64)
    x = rng.standard_normal(stack + (4, 3))
    g = rng.standard_normal(stack + (4,))
    _, work = mlp.mlp_forward(p, x)
    grads = mlp.mlp_backward(p, work, g)
    dx = mlp.mlp_input_gradient(p, work)
    for a, ga in zip(p.arrays(), grads.arrays()):
        np.testing.assert_allclose(ga, _numeric_gradient(lambda: _phi_sum(p, x, g), a), rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(dx, _numeric_gradient(lambda: _phi_sum(p, x, g), x), rtol=1e-6, atol=1e-9)


def test_forward_is_the_two_layer_relu_formula():
    rng = np.random.default_rng(1)
    p = mlp.init_mlp(4, 6, rng, dtype=np.float64)
    x = rng.standard_normal((5, 4))
    h1 = np.maximum(x @ p.W1 + p.b1, 0)
    want = np.maximum(h1 @ p.W2 + p.b2, 0) @ p.w3 + p.b3
    np.testing.assert_allclose(mlp.mlp_forward(p, x)[0], want, rtol=1e-12)


def test_a_reused_pass_gives_the_fresh_result():
    rng = np.random.default_rng(2)
    p = mlp.init_mlp(3, 4, rng, dtype=np.float64)
    x1, x2 = rng.standard_normal((6, 3)), rng.standard_normal((6, 3))
    _, work = mlp.mlp_forward(p, x1)
    mlp.mlp_backward(p, work, np.ones(6))
    z, _ = mlp.mlp_forward(p, x2, work)
    g = [a.copy() for a in mlp.mlp_backward(p, work, np.ones(6)).arrays()]
    z_fresh, fresh = mlp.mlp_forward(p, x2)
    np.testing.assert_array_equal(z, z_fresh)
    for a, b in zip(g, mlp.mlp_backward(p, fresh, np.ones(6)).arrays()):
        np.testing.assert_array_equal(a, b)


def test_input_gradient_needs_a_backward_pass():
    p = mlp.init_mlp(2, 3, np.random.default_rng(0))
    _, work = mlp.mlp_forward(p, np.ones((1, 2), np.float32))
    with pytest.raises(ValueError, match="backward"):
        mlp.mlp_input_gradient(p, work)


def test_init_is_pytorch_linear_default_in_distribution():
    """Every weight and bias iid U(±1/√fan_in): Kolmogorov–Smirnov against the uniform law, per array."""
    d, h = 300, 200
    p = mlp.init_mlp(d, h, np.random.default_rng(3), dtype=np.float64)
    assert (p.W1.shape, p.b1.shape, p.W2.shape, p.b2.shape, p.w3.shape, p.b3.shape) == (
        (d, h),
        (h,),
        (h, h),
        (h,),
        (h,),
        (),
    )
    for a, fan_in in zip(p.arrays(), (d, d, h, h, h, h)):
        bound = 1 / np.sqrt(fan_in)
        assert np.all(np.abs(a) <= bound)
        if a.size > 1:
            assert stats.kstest(a.ravel(), stats.uniform(-bound, 2 * bound).cdf).pvalue > 1e-3


def test_stacked_init_is_one_network_per_generator():
    stacked = mlp.init_stacked([np.random.default_rng(s) for s in (5, 6)], 3, 4)
    for m, s in enumerate((5, 6)):
        alone = mlp.init_mlp(3, 4, np.random.default_rng(s))
        for a, b in zip(stacked.arrays(), alone.arrays()):
            np.testing.assert_array_equal(a[m], b)
    assert stacked.W1.dtype == np.float32
    np.testing.assert_array_equal(stacked.take(np.array([1])).W2[0], stacked.W2[1])


def test_bce_is_softplus_of_minus_label_times_logit_averaged_over_the_axis():
    logits = np.array([[0.0, 2.0, -1.0], [3.0, -0.5, 0.25]])
    labels = np.array([[1.0, -1.0, -1.0], [1.0, 1.0, -1.0]])
    direct = np.log1p(np.exp(-labels * logits))
    np.testing.assert_allclose(mlp.bce(logits, labels), direct.mean(axis=1), rtol=1e-12)
    assert float(mlp.bce(logits, labels, axis=None)) == pytest.approx(direct.mean(), rel=1e-12)


def test_bce_gradient_is_the_derivative_of_the_scaled_batch_mean():
    rng = np.random.default_rng(4)
    logits, labels = rng.standard_normal((2, 5)), np.where(rng.random((2, 5)) < 0.5, -1.0, 1.0)
    out = np.empty_like(logits)
    got = mlp.bce_gradient(logits, labels, 0.3, out=out)
    assert got is out
    numeric = _numeric_gradient(lambda: 0.3 * float(mlp.bce(logits, labels).sum()), logits)
    np.testing.assert_allclose(got, numeric, rtol=1e-6, atol=1e-10)


def test_bce_refuses_labels_that_would_broadcast_and_nan_logits():
    with pytest.raises(ValueError, match=r"labels of shape \(6,\) do not match the last axes of logits \(6, 1\)"):
        mlp.bce(np.zeros((6, 1)), np.ones(6))  # once 6 losses of a 6 × 6 broadcast
    with pytest.raises(ValueError, match="logits must not contain NaN"):
        mlp.bce(np.array([np.nan, 0.0]), np.ones(2))
    # one label per logit on the last axis, one loss per stacked network: log 2 at φ = 0
    np.testing.assert_allclose(mlp.bce(np.zeros((3, 4)), np.ones(4)), np.full(3, np.log(2)), rtol=1e-15)
