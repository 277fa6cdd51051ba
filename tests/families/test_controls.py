"""The expected-false claims of the lsa-gd and dual-gd families carry controls that pass where they fail.

A refutation discriminates only if the corrected form, compared the same way at the same
counterexample, agrees (von Oswald et al. 2023 Proposition 1 and 2; Dai et al. 2023 §3.2).
"""

from __future__ import annotations

import numpy as np
import pytest

from icl_verify import Explicit, Numeric, check
from icl_verify.core.checks.numeric import compare_with_tolerance
from icl_verify.families import dual, lsa_gd
from icl_verify.maths.symbolic import is_zero
from icl_verify.running import registry

FALSE_CLAIMS = [c for module in (lsa_gd, dual) for c in registry.claims_in(module) if not c.holds]


def _arrays(case: dict) -> dict:
    return {k: np.array(v, dtype=float) if isinstance(v, list) else v for k, v in case.items()}


def _check(claim, kind: type):
    return next((c for c in claim.checks if isinstance(c, kind)), None)


def test_every_expected_false_claim_has_a_control():
    assert FALSE_CLAIMS
    for claim in FALSE_CLAIMS:
        assert claim.corrected.form("numeric") is not None, claim.name
        assert _check(claim, Explicit) is None or claim.corrected.form("explicit") is not None, claim.name


@pytest.mark.parametrize("claim", FALSE_CLAIMS, ids=lambda c: c.name)
def test_the_control_passes_at_the_counterexample_the_claim_fails(claim):
    result = check(claim, max_examples=50)
    numeric = next(e for e in result.evidence if e.kind == "numeric")
    assert numeric.status == "refuted"
    case = _arrays(numeric.counterexample["sizes"] | numeric.counterexample["values"])
    num = _check(claim, Numeric)
    assert not compare_with_tolerance(num.compare(case), num.rtol, num.atol)[0]
    ok, err, tol = compare_with_tolerance(claim.corrected.form("numeric")(case), num.rtol, num.atol)
    assert ok, (err, tol)
    explicit = next((e for e in result.evidence if e.kind == "explicit"), None)
    if explicit is not None:
        assert explicit.status == "refuted"
        assert all(is_zero(r) is True for r in claim.corrected.form("explicit")(**explicit.counterexample["sizes"]))


def test_ledger_annotations_name_builtin_claims():
    names = {c.name for c in registry.builtin_claims()}
    for module in (lsa_gd, dual):
        for claim in registry.claims_in(module):
            assert set(claim.builds_on) <= names, claim.name
            assert claim.name not in claim.builds_on
    assert "W0 ≠ 0" in lsa_gd.PROP1_QUERY_IN_KEYS.assumptions
    assert lsa_gd.K_LAYERS.builds_on == ("prop1-lsa-equals-gd-step",)
