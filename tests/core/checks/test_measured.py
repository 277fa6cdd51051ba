"""The sequential measured check: looks in rounds, stops at the first interval that decides, caps at the last look,
and its verdicts keep their error rate under the repeated looks.

The toy ``measure`` functions draw normal runs whose true mean is known, so a verdict's correctness is known too.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import special

from icl_verify.core.checks.measured import Estimate, Measured
from icl_verify.core.evidence import Status
from icl_verify.errors import InvalidArgument
from icl_verify.numerics.shared.stats import spending_levels


def _fixed(value: float, half: float, predicted: float = 1.0, tolerance: float = 0.1):
    """A measure whose interval is value ± half at every look, recording the (runs, level) it was asked for."""
    calls: list[tuple[int, float]] = []

    def measure(seed: int, runs: int, level: float) -> Estimate:
        calls.append((runs, level))
        return Estimate(value, value - half, value + half, predicted, tolerance)

    return measure, calls


def test_stops_at_the_first_look_whose_interval_lies_inside_the_band():
    measure, calls = _fixed(1.0, 0.05)
    found = Measured(measure, looks=(4, 8)).run(0, 100)
    assert found.evidence.status == Status.VERIFIED
    assert calls == [(4, pytest.approx(spending_levels([4, 8])[0]))]
    assert "4 of at most 8 runs" in found.evidence.detail and "inside the band" in found.evidence.detail


def test_stops_at_the_first_look_whose_interval_excludes_the_band():
    measure, calls = _fixed(2.0, 0.05)
    found = Measured(measure, looks=(4, 8)).run(0, 100)
    assert found.evidence.status == Status.REFUTED and len(calls) == 1
    assert found.at[0].value == 2.0  # the estimate the control runs at


def test_an_undecided_interval_looks_again_up_to_the_cap():
    measure, calls = _fixed(1.1, 0.05)  # straddles the band's upper end at every look
    found = Measured(measure, looks=(2, 4, 8)).run(0, 100)
    assert found.evidence.status == Status.UNDECIDED
    assert calls == [(n, pytest.approx(p)) for n, p in zip((2, 4, 8), spending_levels([2, 4, 8]))]
    assert "cap was reached" in found.evidence.detail


def test_without_looks_the_check_is_the_fixed_sample_one():
    found = Measured(lambda seed: Estimate(1.0, 0.95, 1.05, 1.0, 0.1)).run(3, 100)
    assert found.evidence.status == Status.VERIFIED and "sequential" not in found.evidence.detail


@pytest.mark.parametrize("looks", [(0, 4), (4, 4), (8, 4)])
def test_looks_must_be_increasing_positive_run_counts(looks):
    with pytest.raises(InvalidArgument, match="looks"):
        Measured(lambda seed, runs, level: Estimate(1.0, 1.0, 1.0, 1.0), looks=looks)


def _normal_measure(mean: float, predicted: float, tolerance: float):
    """t-interval of the mean of the first ``runs`` N(mean, 1) draws of a seed (the runs a seed fixes)."""

    def measure(seed: int, runs: int, level: float) -> Estimate:
        x = np.random.default_rng([seed, 99]).standard_normal(64)[:runs] + mean
        half = special.stdtrit(runs - 1, (1 + level) / 2) * x.std(ddof=1) / math.sqrt(runs)  # Student-t quantile
        return Estimate(float(x.mean()), float(x.mean() - half), float(x.mean() + half), predicted, tolerance)

    return measure


SEEDS = 1000
SLACK = 3 * math.sqrt(0.05 * 0.95 / SEEDS)


def test_a_false_claim_is_verified_at_most_alpha_of_the_time_despite_the_looks():
    """The claim reads 1 ± 0.1 and the true mean is 1.1, on the band's edge (the hardest false case: any
    interval inside the band misses it); VERIFIED must come out in at most α = 5 % of the seeds, although
    the check may stop at any of its four looks (the stopping rule)."""
    check = Measured(_normal_measure(1.1, 1.0, 0.1), looks=(8, 16, 32, 64))
    wrong = sum(check.run(seed, 100).evidence.status == Status.VERIFIED for seed in range(SEEDS))
    assert wrong / SEEDS <= 0.05 + SLACK


def test_a_true_claim_is_refuted_at_most_alpha_of_the_time_and_mostly_stops_early():
    """The claim reads 1 ± 0.7 and is true. Look 3 (32 runs) has level 1 − (α(½) − α(¼)) ≈ 0.9945, so its
    half-width is ≈ t_{31, 0.99725}/√32 ≈ 0.53: the interval lies inside the band when |x̄ − 1| ≲ 0.17, which
    (x̄ − 1 ~ N(0, 1/32)) happens in ≈ 2Φ(0.17·√32) − 1 ≈ 66 % of the seeds; half of them is a safe floor."""
    check = Measured(_normal_measure(1.0, 1.0, 0.7), looks=(8, 16, 32, 64))
    found = [check.run(seed, 100).evidence for seed in range(SEEDS)]
    assert sum(e.status == Status.REFUTED for e in found) / SEEDS <= 0.05 + SLACK
    assert sum("32 of at most 64 runs" in e.detail for e in found) > SEEDS / 2
