"""The ±1 item task (numerics.shared.items): balanced labels, the scale of the items, and c₁, c₂, c₃ in closed form."""

from __future__ import annotations

import numpy as np
import pytest

from icl_verify.numerics.shared.items import constants, sample_items


def test_items_are_balanced_and_scaled_as_n_0_i_over_d():
    x, y = sample_items(np.random.default_rng(0), 4000, 50, np.float64)
    assert (y == 1).sum() == (y == -1).sum() == 2000
    # E‖x‖² = 1 for x ~ N(0, I_D/D); the sample mean of 4000 draws has sd √(2/D/4000) ≈ 0.003
    assert np.mean(np.sum(x**2, axis=1)) == pytest.approx(1.0, abs=0.015)


@pytest.mark.parametrize("phi", [0.0, 1.5, -2.0])
def test_constants_match_closed_forms_for_constant_logits(phi):
    labels = np.array([1.0, 1.0, -1.0, -1.0])
    logits = np.array([phi, phi, -phi, -phi])
    c = constants(logits, labels)
    s = 1 / (1 + np.exp(phi))  # σ(−φ)
    assert c["c1"] == pytest.approx(s)
    assert c["c2"] == pytest.approx(1 - s)  # 1 − σ²/σ
    assert c["c3"] == pytest.approx(np.exp(-phi))
    assert c["loss"] == pytest.approx(np.log1p(np.exp(-phi)))
    assert c["iwl_acc"] == (1.0 if phi > 0 else 0.0)


def test_constants_use_only_items_labelled_plus_one():
    c = constants(np.array([2.0, -50.0]), np.array([1.0, -1.0]))
    assert c["c1"] == pytest.approx(1 / (1 + np.exp(2.0)))


def test_sample_items_rejects_odd_k():
    with pytest.raises(ValueError, match="balanced"):
        sample_items(np.random.default_rng(0), 7, 3)


@pytest.mark.parametrize(
    ("logits", "labels", "match"),
    [
        ([np.nan, 1.0], [1.0, -1.0], "logits must contain only finite values"),
        ([1.0, 2.0], [1.0, -1.0, 1.0], "labels must have the length of logits = 2, got 3"),
        ([1.0, 2.0], [-1.0, -1.0], "at least one item labelled \\+1"),
        ([1.0, 2.0], [0.5, 1.0], "labels must be ±1"),
        ([1.0 + 1j, 2.0], [1.0, -1.0], "logits must be an array of real numbers"),
    ],
)
def test_constants_refuse_nan_mismatched_or_unlabelled_input(logits, labels, match):
    with pytest.raises(ValueError, match=match):
        constants(logits, labels)
