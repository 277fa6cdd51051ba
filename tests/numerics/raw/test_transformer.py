"""Tests for numerics.raw.transformer: the Akyürek et al. layer (ICLR 2023, §2)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from icl_verify.numerics.raw.transformer import (
    Head,
    Layer,
    attention,
    causal_softmax,
    forward,
    gelu,
    layer_forward,
    layer_norm,
)


def _normal_cdf(x: float) -> float:
    return 0.5 * (1 + math.erf(x / math.sqrt(2)))


def test_gelu_matches_x_phi_x():
    xs = np.array([-3.0, -1.0, 0.0, 0.5, 2.0])
    expected = np.array([x * _normal_cdf(x) for x in xs])
    np.testing.assert_allclose(gelu(xs), expected, rtol=1e-15, atol=1e-17)
    assert gelu(1.0) == pytest.approx(0.8413447460685429, rel=1e-15)  # Φ(1)


def test_layer_norm_standardises_each_timestep():
    z = np.array([[1.0, 2.0, 3.0, 6.0], [-1.0, 0.0, 0.0, 5.0]])
    out = layer_norm(z)
    np.testing.assert_allclose(out.mean(axis=1), 0.0, atol=1e-15)
    np.testing.assert_allclose(out.std(axis=1), 1.0, rtol=1e-14)
    np.testing.assert_allclose(out[0], (z[0] - 3.0) / np.sqrt(3.5), rtol=1e-14)


def test_layer_norm_constant_vector_raises_without_eps():
    with pytest.raises(ValueError, match="zero variance"):
        layer_norm(np.ones((1, 3)))
    np.testing.assert_allclose(layer_norm(np.ones((1, 3)), eps=1e-5), 0.0)


def test_causal_softmax_rows_sum_to_one_and_ignore_the_future():
    w = causal_softmax(np.arange(9.0).reshape(3, 3))
    np.testing.assert_allclose(w.sum(axis=1), 1.0)
    assert w[0, 1] == 0 and w[0, 2] == 0 and w[1, 2] == 0
    np.testing.assert_allclose(w[1, :2], np.exp([3.0, 4.0]) / np.exp([3.0, 4.0]).sum())


def _averaging_layer(D: int) -> Layer:
    """One head with zero logits (uniform causal average of h) and W^F = I, no MLP."""
    head = Head(np.zeros((1, D)), np.zeros((1, D)), np.eye(D))
    return Layer((head,), np.eye(D), np.zeros((0, D)), np.zeros((D, 0)))


def test_zero_logit_attention_is_the_running_mean():
    h = np.array([[1.0, 2.0], [3.0, -2.0], [5.0, 6.0]])
    a = attention(h, _averaging_layer(2))
    expected = np.cumsum(h, axis=0) / np.arange(1, 4)[:, None]
    np.testing.assert_allclose(a, expected, rtol=1e-15)
    np.testing.assert_allclose(layer_forward(h, _averaging_layer(2)), h + expected, rtol=1e-15)


def test_layer_is_causal():
    rng = np.random.default_rng(0)
    D = 4
    heads = tuple(Head(rng.normal(size=(2, D)), rng.normal(size=(2, D)), rng.normal(size=(3, D))) for _ in range(2))
    layer = Layer(heads, rng.normal(size=(D, 6)), rng.normal(size=(5, D)), rng.normal(size=(D, 5)))
    h = rng.normal(size=(5, D))
    h2 = h.copy()
    h2[3:] += rng.normal(size=(2, D))
    np.testing.assert_array_equal(layer_forward(h, layer)[:3], layer_forward(h2, layer)[:3])


def test_mlp_term_by_hand():
    D = 3
    layer = Layer(
        _averaging_layer(D).heads, np.zeros((D, D)), np.array([[1.0, 0.0, 0.0]]), np.array([[2.0], [0.0], [0.0]])
    )
    h = np.array([[1.0, 2.0, 4.0]])
    z = h[0]
    ln = (z - z.mean()) / z.std()
    expected = h[0] + np.array([2.0, 0.0, 0.0]) * ln[0] * _normal_cdf(ln[0])
    np.testing.assert_allclose(layer_forward(h, layer)[0], expected, rtol=1e-14)


def test_batch_axes_broadcast():
    rng = np.random.default_rng(1)
    layer = Layer(
        (Head(rng.normal(size=(2, 3)), rng.normal(size=(2, 3)), rng.normal(size=(2, 3))),),
        rng.normal(size=(3, 2)),
        rng.normal(size=(4, 3)),
        rng.normal(size=(3, 4)),
    )
    h = rng.normal(size=(2, 4, 3))
    out = forward(h, [layer, layer])
    for b in range(2):
        np.testing.assert_allclose(out[b], forward(h[b], [layer, layer]), rtol=1e-13)


def test_bad_inputs_raise():
    layer = _averaging_layer(2)
    with pytest.raises(ValueError, match="D = 2"):
        layer_forward(np.zeros((3, 3)), layer)
    with pytest.raises(ValueError, match="finite"):
        layer_forward(np.array([[np.nan, 0.0]]), layer)
    with pytest.raises(ValueError, match="W_F"):
        Layer(layer.heads, np.eye(3), np.zeros((0, 2)), np.zeros((2, 0)))
    with pytest.raises(ValueError, match="W_K"):
        Head(np.zeros((1, 2)), np.zeros((2, 2)), np.zeros((1, 2)))
    with pytest.raises(ValueError, match="at least one"):
        forward(np.zeros((1, 2)), [])
