"""'Unimodal far from K*' is an upper confidence bound on the minority fraction, not a dip test that failed to reject.

The accuracies are synthetic (``_bimodal_dip`` replaced), so the right verdict is known: a group with runs in a
separate mode must not come out VERIFIED, whatever the dip test would say, and the rule's error at the bound is
computed exactly from the binomial law.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from icl_verify.core.checks.measured import Measured
from icl_verify.core.evidence import Status
from icl_verify.families.scaling import final_accuracy as fa

RUNS = fa.BIMODAL_GROUPS["below"][1]
"""Runs per far group in the claim (64, the same above K*)."""


def _groups(below_minority: int, above_minority: int, runs: int = RUNS):
    """Accuracies near ½ below K* and near 1 above it, with the given numbers of runs in the other mode."""

    def dip(seed: int, group: str):
        rng = np.random.default_rng([seed, 7])
        main, other = (0.5, 0.98) if group == "below" else (0.98, 0.5)
        k = below_minority if group == "below" else above_minority
        acc = np.r_[main + 0.02 * rng.standard_normal(runs - k), other + 0.02 * rng.standard_normal(k)]
        return np.clip(acc, 0, 1), None

    return dip


def _status(monkeypatch, below: int, above: int, runs: int = RUNS) -> str:
    monkeypatch.setattr(fa, "_bimodal_dip", _groups(below, above, runs))
    monkeypatch.setattr(fa, "_describe_group", lambda seed, group: group)
    return Measured(fa.measure_unimodal_far).run(0, 1).evidence.status


@pytest.mark.parametrize("below, above", [(1, 0), (2, 0), (4, 0), (0, 3)])
def test_at_16_runs_a_separate_mode_of_one_to_four_runs_is_never_verified(monkeypatch, below, above):
    """The dip test at 0.01 passed these samples of 16 (P(VERIFIED) = 1.00 for 1–4 of 16 runs in a separate mode);
    the bound leaves them undecided (at x = 1 its upper end is 0.302 > 0.25)."""
    assert _status(monkeypatch, below, above, runs=16) != Status.VERIFIED


def test_no_run_in_the_other_mode_is_verified_and_a_large_minority_refuted(monkeypatch):
    assert _status(monkeypatch, 0, 0) == Status.VERIFIED  # upper bound 1 − 0.025^{1/64} = 0.056 < 0.25
    assert _status(monkeypatch, 0, 28) == Status.REFUTED  # 28/64: Clopper–Pearson lower end 0.31 > 0.25


def test_the_rule_errs_at_most_alpha_per_side_at_the_bound(monkeypatch):
    """Enumerating the minority count x of one group of the claim's 64 runs (the other none): VERIFIED exactly when
    the exact Clopper–Pearson upper end is below 0.25 (x ≤ 8), REFUTED exactly when its lower end exceeds 0.25. So
    at a true minority probability of 0.25 per run, P(VERIFIED) = P(Bin(64, 0.25) ≤ 8) per group, below α/2 = 2.5 %."""
    bounds = [stats.binomtest(x, RUNS).proportion_ci(0.95, "exact") for x in range(RUNS + 1)]
    verified = [x for x in range(RUNS + 1) if _status(monkeypatch, x, 0) == Status.VERIFIED]
    refuted = [x for x in range(RUNS + 1) if _status(monkeypatch, x, 0) == Status.REFUTED]
    assert verified == [x for x, ci in enumerate(bounds) if ci.high < 0.25] == list(range(9))
    assert refuted == [x for x, ci in enumerate(bounds) if ci.low > 0.25]
    assert stats.binom.cdf(8, RUNS, 0.25) <= 0.025
