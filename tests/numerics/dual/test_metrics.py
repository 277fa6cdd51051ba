"""Dai et al.'s (2023, §4) metrics against examples computed by hand, and Kendall's τ_a against SciPy."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from icl_verify.numerics.dual import metrics as m


def test_rec2ftp_counts_icl_hits_among_the_ft_positive_examples():
    # FT-positive (FT right, ZSL wrong): examples 0, 1, 2; ICL right on 0 and 2 → 2/3.
    # Example 3 (both right) and example 4 (ICL right, FT wrong) do not count.
    zsl, ft, icl = [0, 0, 0, 1, 1], [1, 1, 1, 1, 0], [1, 0, 1, 0, 1]
    assert m.rec2ftp(zsl, ft, icl) == pytest.approx(2 / 3, abs=1e-15)


def test_sim_aou_is_the_cosine_of_the_two_updates():
    # updates: ICL (1,1) − (1,0) = (0,1); FT (2,1) − (1,0) = (1,1); cos = 1/√2
    assert m.sim_aou([1.0, 0.0], [1.0, 1.0], [2.0, 1.0]) == pytest.approx(1 / math.sqrt(2), abs=1e-15)
    # rows are examples: the second one has opposite updates (0,1) and (0,−1)
    got = m.sim_aou([[1.0, 0.0], [1.0, 0.0]], [[1.0, 1.0], [1.0, 1.0]], [[2.0, 1.0], [1.0, -1.0]])
    np.testing.assert_allclose(got, [1 / math.sqrt(2), -1.0], atol=1e-15)


def test_sim_aou_does_not_overflow_for_huge_outputs():
    assert m.sim_aou([1e300, 0.0], [1e300, 1e300], [2e300, 1e300]) == pytest.approx(1 / math.sqrt(2), abs=1e-15)


def test_sim_am_compares_maps_and_sim_am_delta_their_updates():
    # maps (0.5, 0.5) and (1, 0): cos = 0.5 / (√0.5 · 1) = 1/√2
    assert m.sim_am([0.5, 0.5], [1.0, 0.0]) == pytest.approx(1 / math.sqrt(2), abs=1e-15)
    # ICL and FT move the shared zero-shot map (0.5, 0.5) in opposite directions, (0.2, −0.2) and (−0.3, 0.3):
    # SimAM still reads (0.14 + 0.24)/(√0.58 √0.68) ≈ 0.605, SimAM_Δ reads −1.
    zsl, icl, ft = [0.5, 0.5], [0.7, 0.3], [0.2, 0.8]
    assert m.sim_am(icl, ft) == pytest.approx(0.38 / math.sqrt(0.58 * 0.68), rel=1e-12)
    assert m.sim_am_delta(zsl, icl, ft) == pytest.approx(-1.0, abs=1e-12)


def test_kendall_tau_a_by_hand_and_against_scipy():
    # pairs of (1,2,3) vs (1,3,2): (0,1) and (0,2) concordant, (1,2) discordant → (2 − 1)/3
    assert m.kendall_tau_a([1, 2, 3], [1, 3, 2]) == pytest.approx(1 / 3, abs=1e-15)
    assert stats.kendalltau([1, 2, 3], [1, 3, 2]).statistic == pytest.approx(1 / 3, abs=1e-15)


def test_kendall_tau_a_differs_from_tau_b_with_ties():
    # x = (1,1,2): pair (0,1) tied in x counts as neither → τ_a = 2/3; τ_b = 2/√((3 − 1)(3 − 0)) = 2/√6
    x, y = [1, 1, 2], [1, 2, 3]
    assert m.kendall_tau_a(x, y) == pytest.approx(2 / 3, abs=1e-15)
    assert stats.kendalltau(x, y, variant="b").statistic == pytest.approx(2 / math.sqrt(6), abs=1e-12)


@settings(max_examples=30, deadline=None)
@given(st.integers(2, 9).flatmap(lambda n: st.tuples(st.permutations(range(n)), st.permutations(range(n)))))
def test_kendall_tau_a_equals_tau_b_and_tau_c_without_ties(perms):
    """Without ties τ_b's denominator is n(n−1)/2 and τ_c's m = n, so all three coincide."""
    x, y = np.array(perms[0], float), np.array(perms[1], float)
    tau = m.kendall_tau_a(x, y)
    assert tau == pytest.approx(stats.kendalltau(x, y, variant="b").statistic, abs=1e-12)
    assert tau == pytest.approx(stats.kendalltau(x, y, variant="c").statistic, abs=1e-12)


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: m.rec2ftp([1, 1], [1, 1], [1, 0]), "FT-positive"),
        (lambda: m.rec2ftp([0, 2], [1, 1], [1, 0]), "zsl_correct must hold 0/1"),
        (lambda: m.rec2ftp([0, 0], [1, 1, 1], [1, 0]), "ft_correct"),
        (lambda: m.sim_aou([1.0, 0.0], [1.0, 0.0], [0.0, 1.0]), "h_icl − h_zsl is the zero vector"),
        (lambda: m.sim_aou([1.0, 0.0], [1.0, 1.0], [np.nan, 1.0]), "h_ft"),
        (lambda: m.sim_am([0.0, 0.0], [1.0, 0.0]), "m_icl"),
        (lambda: m.sim_am_delta([0.5, 0.5], [0.7, 0.3], [0.5, 0.5]), "m_ft − m_zsl"),
        (lambda: m.kendall_tau_a([1.0], [2.0]), "x must have at least 2"),
        (lambda: m.kendall_tau_a([1.0, 2.0], [2.0, 1.0, 0.0]), "y must have the shape of x"),
    ],
)
def test_bad_input_names_the_argument(call, match):
    with pytest.raises(ValueError, match=match):
        call()
