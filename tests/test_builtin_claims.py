"""The built-in claims together: the foundation families are built in, the misprints are refuted at the
smallest sizes, and corrections name true claims (each claim's verdict is checked in test_families.py)."""

from __future__ import annotations

import numpy as np
import pytest

from icl_verify import Verdict, check
from icl_verify.families import dual as dual_claims
from icl_verify.families import lsa_gd
from icl_verify.numerics.lsa import layers as lsa
from icl_verify.running import registry


def test_foundation_families_are_built_in():
    names = {c.name for c in registry.builtin_claims()}
    assert {c.name for c in registry.claims_in(lsa_gd) + registry.claims_in(dual_claims)} <= names


def test_proposition_1_is_proved_dimension_free():
    result = check(lsa_gd.PROP1)
    assert result.verdict is Verdict.PROVED
    assert {e.kind: e.status for e in result.evidence} == {
        "symbolic": "proved",
        "explicit": "verified",
        "numeric": "verified",
    }


def test_query_in_keys_is_refuted_at_one_by_one_with_one_example():
    # The query adds (2η/N) W0 x_q ‖x_q‖² to its own update, so Nx = Ny = N = 1 already fails.
    cex = check(lsa_gd.PROP1_QUERY_IN_KEYS).counterexample
    assert cex["sizes"] == {"Nx": 1, "Ny": 1, "N": 1}
    case = cex["values"]
    W0, x_q, eta, n = case["W0"][0][0], case["x_q"][0][0], case["eta"], 1
    assert cex["residual"] == pytest.approx(abs(2 * eta / n * W0 * x_q**3))


def test_p_eta_misprint_needs_two_examples_to_show():
    # P = ηI is a GD step with rate ηN: identical to the correct layer when N = 1, so the
    # smallest counterexample has N = 2.
    cex = check(lsa_gd.PROP1_P_ETA).counterexample
    assert cex["sizes"] == {"Nx": 1, "Ny": 1, "N": 2}
    explicit = next(e.counterexample for e in check(lsa_gd.PROP1_P_ETA).evidence if e.kind == "explicit")
    assert explicit["sizes"]["N"] == 2


def test_softmax_dual_form_is_refuted_in_one_dimension():
    cex = check(dual_claims.SOFTMAX_AS_RELAXED).counterexample
    assert set(cex["sizes"].values()) == {1}


def test_counterexample_reproduces_independently():
    # Rebuild the reported query-in-keys counterexample by hand and recompute its residual.
    case = check(lsa_gd.PROP1_QUERY_IN_KEYS).counterexample["values"]
    X, Y, x_q, W0 = (np.array(case[k], dtype=float) for k in ("X", "Y", "x_q", "W0"))
    tokens = lsa.make_tokens(X[None], Y[None], x_q[None], W0)
    params = lsa.theta_gd(1, 1, case["eta"], 1, W0)
    with_query = lsa.readout(lsa.lsa_layer(tokens, params, 1, include_query=True), 1, 1)
    without = lsa.readout(lsa.lsa_layer(tokens, params, 1), 1, 1)
    assert abs(with_query - without).max() > 0.1


def test_corrections_name_true_builtin_claims():
    claims = {c.name: c for c in registry.builtin_claims()}
    for claim in claims.values():
        if claim.corrected is not None and claim.corrected.claim:
            assert claims[claim.corrected.claim].holds, f"{claim.name} is corrected by a false claim"
