"""Every built-in refutation discriminates: the corrected form passes where the printed one fails.

For each built-in claim expected to be false, the engine runs its control — the corrected form at
the counterexample, with the same comparison and tolerance — and it must pass (or the claim must
say why no corrected form exists). Covers every family.
"""

from __future__ import annotations

import pytest

from icl_verify import NoControl
from icl_verify.running import registry

EXPECTED_FALSE = [c for c in registry.builtin_claims() if not c.holds]


@pytest.mark.parametrize("claim", EXPECTED_FALSE, ids=lambda c: c.name)
def test_builtin_refutation_has_a_passing_control(claim, builtin_results):
    result = builtin_results[claim.name]
    controls = [e for e in result.evidence if e.kind == "control"]
    assert controls, f"{claim.name}: no control row"
    if isinstance(claim.corrected, NoControl):
        assert [e.status for e in controls] == ["waived"]
    else:
        assert all(e.status == "passed" for e in controls), [(e.status, e.detail) for e in controls]
    assert result.as_expected, result.summary
