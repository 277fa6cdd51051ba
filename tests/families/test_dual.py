"""The dual-gd family's claims (icl_verify.families.dual): the softmax misreading is refuted at the smallest size."""

from __future__ import annotations

from icl_verify import check
from icl_verify.families import dual as dual_claims


def test_softmax_dual_form_is_refuted_in_one_dimension():
    cex = check(dual_claims.SOFTMAX_AS_RELAXED).counterexample
    assert set(cex["sizes"].values()) == {1}
