"""The slope claims of the lsa-constructions family: one fitted slope per random task, the median over the tasks."""

from __future__ import annotations

import math

import numpy as np
import pytest

from icl_verify.core.checks.measured import median_level
from icl_verify.families import lsa_constructions as lc


@pytest.mark.parametrize("seed", [0, 1000])
def test_every_task_s_copy_slope_is_within_the_exact_forms_range(seed):
    """ln‖Δ‖ = const − ln(e^β + T − 1) (prop3-softmax-copy-error), so over β ∈ [12, 24] the slope is −1 + δ with
    0 ≤ δ ≤ (T − 1) e^{−12} (T = 11 tokens). One-way, ‖Δ‖² = ‖A‖² + ‖B‖²/(e^β + T − 1)²: the uniform rows A of the
    y-tokens and the query do not decay, the x-tokens' rows B do, so ‖Δ‖ falls to ‖A‖ > 0 and the slope is ≤ 0 (up to
    rounding), here inside the corrected 0 ± 0.01; it is far from 0 only where Σ_j y_j ≈ 0 makes ‖A‖ tiny."""
    bound = 10 * math.exp(-12)
    for task in range(lc.SLOPE_TASKS):
        paired = lc._slope(*lc.copy_errors(seed, False, task))
        assert -1 - 1e-6 <= paired <= -1 + bound
        assert -lc.RATE_TOLERANCE < lc._slope(*lc.copy_errors(seed, True, task)) <= 1e-12


@pytest.mark.parametrize("seed", [0, 1000])
def test_every_task_s_two_head_order_is_two(seed):
    """The rescaled error is N ε² h₃ + O(ε⁴): over ε ∈ [10⁻³, 10⁻²] each task's slope is 2 within 0.01."""
    errors = lc.two_head_errors(seed)
    slopes = [lc._slope(np.log(errors["eps"]), task) for task in errors["centred"].T]
    assert len(slopes) == lc.SLOPE_TASKS and max(abs(s - 2) for s in slopes) <= 0.01


def test_the_slope_claims_take_the_median_task_with_its_order_statistic_interval():
    """16 tasks at 95 %: [x₍₄₎, x₍₁₃₎], level 1 − 2·697/2¹⁶ = 0.9787 (697 = 1 + 16 + 120 + 560)."""
    errors = lc.two_head_errors(3)
    slopes = sorted(lc._slope(np.log(errors["eps"]), task) for task in errors["centred"].T)
    est = lc._measure_order(3)
    assert (est.low, est.high) == (slopes[3], slopes[12]) and est.value == pytest.approx(np.median(slopes))
    assert est.level == median_level(16, 4) == pytest.approx(1 - 2 * 697 / 2**16, abs=1e-15)
    assert est.estimand.startswith("median over random tasks of the least-squares slope")
