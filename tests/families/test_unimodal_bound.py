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


def _groups(below_minority: int, above_minority: int, runs: int = 16):
    """Accuracies near ½ below K* and near 1 above it, with the given numbers of runs in the other mode."""

    def dip(seed: int, group: str):
        rng = np.random.default_rng([seed, 7])
        main, other = (0.5, 0.98) if group == "below" else (0.98, 0.5)
        k = below_minority if group == "below" else above_minority
        acc = np.r_[main + 0.02 * rng.standard_normal(runs - k), other + 0.02 * rng.standard_normal(k)]
        return np.clip(acc, 0, 1), None

    return dip


def _status(monkeypatch, below: int, above: int) -> str:
    monkeypatch.setattr(fa, "_bimodal_dip", _groups(below, above))
    monkeypatch.setattr(fa, "_describe_group", lambda seed, group: group)
    return Measured(fa.measure_unimodal_far).run(0, 1).evidence.status


@pytest.mark.parametrize("below, above", [(1, 0), (2, 0), (4, 0), (0, 3)])
def test_a_separate_mode_of_one_to_four_runs_is_never_verified_unimodal(monkeypatch, below, above):
    """The dip test at 0.01 passed these samples (P(VERIFIED) = 1.00 for 1–4 of 16 runs in a separate mode)."""
    assert _status(monkeypatch, below, above) != Status.VERIFIED


def test_no_run_in_the_other_mode_is_verified_and_a_large_minority_refuted(monkeypatch):
    assert _status(monkeypatch, 0, 0) == Status.VERIFIED  # upper bound 1 − 0.025^{1/16} = 0.206 < 0.25
    assert _status(monkeypatch, 9, 0) == Status.REFUTED  # 9/16: Clopper–Pearson lower end 0.30 > 0.25


def test_the_rule_errs_at_most_alpha_per_side_at_the_bound(monkeypatch):
    """Enumerating the minority count x of one group (the other none): VERIFIED exactly when x = 0 (the exact upper
    bound 1 − 0.025^{1/16} = 0.206 < 0.25; at x = 1 it is 0.302), REFUTED exactly when the lower bound exceeds 0.25.
    So at a true minority probability of 0.25 per run, P(VERIFIED) = 0.75^16 per group (≤ 1 %, below α/2 = 2.5 %),
    and with each run in the minority with probability 0.2 (the referee's case) it is 0.8^16 = 2.8 % per group,
    0.08 % for both — against 0.84 for the dip-test reading."""
    verified = [x for x in range(17) if _status(monkeypatch, x, 0) == Status.VERIFIED]
    refuted = [x for x in range(17) if _status(monkeypatch, x, 0) == Status.REFUTED]
    assert verified == [0]
    assert refuted == [x for x in range(17) if stats.binomtest(x, 16).proportion_ci(0.95, "exact").low > 0.25]
    assert stats.binom.pmf(0, 16, 0.25) <= 0.025
