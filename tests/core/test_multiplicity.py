"""The multiplicity reading across measured claims: p-values read off the interval, and Holm/BH on them."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from icl_verify.core.checks.measured import Estimate, Measured, Rule, measurement
from icl_verify.core.evidence import Status
from icl_verify.core.multiplicity import family_reading, p_values


def _m(value: float, half: float, predicted: float, tolerance: float = 0.0, rule: Rule = Rule.EQUIVALENCE):
    """A normal 95 % interval value ± half (se = half/1.95996)."""
    return measurement(Estimate(value, value - half, value + half, predicted, tolerance, level=0.95, test=rule))


def test_the_p_value_at_the_decision_boundary_is_alpha_per_side():
    """An interval whose end touches the band edge is decided at exactly (1 − L)/2 = 0.025."""
    assert p_values(_m(0.0, 1.0, 0.0, 1.0))[0] == pytest.approx(0.025)  # the interval fills the band exactly
    touching = p_values(_m(0.5, 0.5, 0.0, 1.0))  # [0, 1] inside [−1, 1] with the upper end on the edge
    assert touching[0] == pytest.approx(0.025)
    assert p_values(
        _m(
            2.0,
            1.0,
            0.0,
            1.0,
        )
    )[1] == pytest.approx(0.025)  # [1, 3] touches the band from outside
    assert p_values(_m(-1.0, 1.0, 0.0, rule=Rule.AT_MOST))[0] == pytest.approx(0.025)
    assert p_values(_m(1.0, 1.0, 0.0, rule=Rule.AT_LEAST))[0] == pytest.approx(0.025)


def test_p_below_the_per_side_rate_iff_the_verdict_is_decided():
    """Over random intervals, the check's VERIFIED/REFUTED coincide with p ≤ 0.025 in the matching direction."""
    rng = np.random.default_rng(3)
    for _ in range(500):
        value, half, tol = rng.normal(0, 2), rng.uniform(0.1, 2), rng.uniform(0, 2)
        est = Estimate(value, value - half, value + half, 0.0, tol, level=0.95)
        status = Measured(lambda seed, e=est: e).run(0, 1).evidence.status
        pv, pr = p_values(measurement(est))
        assert pv <= 0.025 + 1e-9 if status == Status.VERIFIED else pv >= 0.025 - 1e-9
        assert pr <= 0.025 + 1e-9 if status == Status.REFUTED else pr >= 0.025 - 1e-9


def test_family_reading_applies_holm_and_bh_and_leaves_out_unstated_levels():
    """Five claims: two decided far from their edges (p ≈ 0), one just decided (p = 0.015), one undecided (p ≈ 0.35)
    and one with no level (left out). Over the four at 0.025: Holm keeps the two strong ones and stops at
    0.015 > 0.025/2; BH keeps the third too (0.015 ≤ 3 · 0.025/4 = 0.01875; 0.35 > 0.025)."""
    z = stats.norm.isf(0.025)
    strong = _m(0.0, 0.1, 0.0, 1.0)
    just = _m(1.0 - 0.5 * stats.norm.isf(0.015) / z, 0.5, 0.0, 1.0)  # upper edge at z_{0.985}·se: p = 0.015
    weak = _m(0.0, 1.0, 0.0, 0.2)
    unstated = measurement(Estimate(0.0, -0.1, 0.1, 0.0, 1.0))
    reading = family_reading({"a": strong, "b": dict(strong), "c": just, "d": weak, "e": unstated})
    claims = reading["claims"]
    assert reading["left_out"] == ["e"]
    assert claims["c"]["p"] == pytest.approx(0.015, rel=1e-6) and claims["c"]["direction"] == "verified"
    assert [claims[k]["holm"] for k in "abcd"] == [True, True, False, False]
    assert [claims[k]["benjamini_hochberg"] for k in "abcd"] == [True, True, True, False]
