"""Seed robustness of the measured claims: the same verdict at every check seed 0–31 (slow suite).

Every built-in measured claim is checked here at the 32 seeds, except those that train networks or
reduced models (:data:`TRAINED`): their 32-seed spread takes about an hour on two cores, so it is
run with ``benchmarks/seed_spread.py`` and recorded in docs/performance.md instead. A new measured
claim is spread here by default.
"""

from __future__ import annotations

import pytest

from icl_verify import Kind, check
from icl_verify.running import registry

SEEDS = range(32)

TRAINED = frozenset(
    {
        "kinetics-reduced-model-follows-ode",
        "kinetics-reduced-model-follows-ode-authors-conventions",
        "kinetics-sim-t-icl-linear-in-n",
        "kinetics-sim-t-icl-exponential-in-beta0",
        "kinetics-transience-with-attention-decay",
        "kinetics-no-transience-without-decay",
        "kinetics-sim-equalised-contexts-slower",
        "trained-lsa-loss-closed-form",
        "trained-lsa-vs-tuned-gd",
        "trained-lsa-model-cos",
        "trained-lsa-products-theta-gd",
        "trained-lsa-interpolation",
        "trained-lsa-rate-without-1-over-n",
        "trained-lsa-preconditioner-gamma",
        "trained-lsa-preconditioner-inverse-covariance",
        "trained-lsa-noisy-rate",
        "trained-2-layer-beats-2-step-gd",
        "trained-2-layer-matches-gdpp",
        "trained-2-layer-closer-to-gdpp",
        "trained-2-layer-is-plain-gd",
        "trained-3-layer-untied-beats-3-step-gd",
        "trained-3-layer-untied-reaches-gdpp",
        "probe-depth1-nearest-gd",
        "probe-depth1-nearest-gd-ilwd",
        "probe-depth2-nearer-ols-than-gd",
        "probe-ols-gap-shrinks-with-depth",
        "memorization-exponent",
        "memorization-time-definitions-agree",
        "k-star-slope-is-inverse-nu-claim",
        "final-icl-accuracy-bimodal-near-k-star",
        "final-icl-accuracy-unimodal-far-from-k-star",
        "final-icl-accuracy-unimodal-near-k-star",
    }
)

MEASURED = [c for c in registry.builtin_claims() if Kind.MEASURED in c.kinds]


def test_trained_claims_are_measured_claims():
    """The list of claims spread by the benchmark names only built-in measured claims (it cannot go stale)."""
    assert TRAINED - {c.name for c in MEASURED} == set()


@pytest.mark.slow
@pytest.mark.parametrize("claim", [c for c in MEASURED if c.name not in TRAINED], ids=lambda c: c.name)
def test_same_verdict_at_seeds_0_to_31(claim):
    """The expected verdict, with a control that passes where one is needed, at each of the 32 seeds."""
    results = {seed: check(claim, seed=seed) for seed in SEEDS}
    others = {seed: r.verdict.value for seed, r in results.items() if not r.as_expected}
    assert not others, f"{claim.name}: expected {claim.expected.value} at every seed, got {others}"
