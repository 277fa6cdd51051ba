"""Every RAW / program / learner claim comes out with its expected verdict (reduced example budget)."""

from __future__ import annotations

import pytest

import icl_verify.families.learners
import icl_verify.families.raw
import icl_verify.families.raw_programs
from icl_verify.core.verdicts import Verdict
from icl_verify.running.registry import claims_in, family_modules

CLAIMS = [
    c
    for m in (icl_verify.families.raw, icl_verify.families.raw_programs, icl_verify.families.learners)
    for c in claims_in(m)
]


def test_families_are_registered():
    found = {m.__name__ for m in family_modules()}
    assert {"icl_verify.families.raw", "icl_verify.families.raw_programs", "icl_verify.families.learners"} <= found


@pytest.mark.parametrize("claim", CLAIMS, ids=[c.name for c in CLAIMS])
def test_claim_verdict(claim):
    result = claim.check(seed=1, max_examples=25)
    assert result.verdict == claim.expected, [e.detail for e in result.evidence]
    if not claim.holds:
        assert result.counterexample is not None
    assert result.verdict is not Verdict.UNPROVEN


def test_expected_false_claims_are_the_paper_traps():
    refuted = {c.name for c in CLAIMS if not c.holds}
    assert refuted == {
        "raw-strict-mask-aff",
        "mov-argument-order-as-printed",
        "div-by-signed-denominator",
        "compiled-mul-error-rate-1-over-n",
        "theorem1-lambda-op-list",
        "theorem1-lambda-walkthrough",
    }
