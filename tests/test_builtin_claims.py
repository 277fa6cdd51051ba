"""The built-in claims together: the foundation families are built in and corrections name true claims
(each family's claims and controls are checked in test_families.py)."""

from __future__ import annotations

from icl_verify.families import dual as dual_claims
from icl_verify.families import lsa_gd
from icl_verify.running import registry


def test_foundation_families_are_built_in():
    names = {c.name for c in registry.builtin_claims()}
    assert {c.name for c in registry.claims_in(lsa_gd) + registry.claims_in(dual_claims)} <= names


def test_corrections_name_true_builtin_claims():
    claims = {c.name: c for c in registry.builtin_claims()}
    for claim in claims.values():
        if claim.corrected is not None and claim.corrected.claim:
            assert claims[claim.corrected.claim].holds, f"{claim.name} is corrected by a false claim"
