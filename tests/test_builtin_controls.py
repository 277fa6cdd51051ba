"""Every built-in refutation discriminates: the corrected form passes where the printed one fails.

For each built-in claim expected to be false, the engine runs its control — the corrected form at
the counterexample, with the same comparison and tolerance — and it must pass (or the claim must
say why no corrected form exists). Covers every family.
"""

from __future__ import annotations

import pytest

from icl_verify.running import registry

EXPECTED_FALSE = [c for c in registry.builtin_claims() if not c.holds]


@pytest.mark.parametrize("claim", EXPECTED_FALSE, ids=lambda c: c.name)
def test_builtin_refutation_has_a_passing_control(claim, builtin_results):
    result = builtin_results[claim.name]
    controls = [e for e in result.evidence if e.kind == "control"]
    assert controls, f"{claim.name}: no control row"
    if claim.no_control:
        assert [e.status for e in controls] == ["waived"]
    else:
        assert all(e.status == "passed" for e in controls), [(e.status, e.detail) for e in controls]
    assert result.as_expected, result.summary


def test_there_are_twenty_six_expected_false_builtin_claims():
    # A guard on the list above: a new expected-false claim is covered automatically, a removed one noticed.
    # 17 before; + prop3-one-way-softmax-copy-rate, two-softmax-heads-equal-lsa (lsa-constructions);
    # + dai-ft-equals-icl, deutch-simaou-noise-is-a-quarter, shen-causal-icl-order-invariant;
    # + newton-converges-at-the-boundary-rate, ols-excess-error-k-minus-d, zfb-covariate-scaling-is-harmless;
    # + final-icl-accuracy-unimodal-near-k-star (scaling).
    assert len(EXPECTED_FALSE) == 26
