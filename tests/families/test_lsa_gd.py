"""The lsa-gd family's claims (icl_verify.families.lsa_gd): Proposition 1 is proved dimension-free, and its
misprints are refuted at the smallest sizes with counterexamples that reproduce independently."""

from __future__ import annotations

import numpy as np
import pytest

from icl_verify import Verdict, check
from icl_verify.families import lsa_gd
from icl_verify.numerics.lsa import layers as lsa


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


def test_counterexample_reproduces_independently():
    # Rebuild the reported query-in-keys counterexample by hand and recompute its residual.
    case = check(lsa_gd.PROP1_QUERY_IN_KEYS).counterexample["values"]
    X, Y, x_q, W0 = (np.array(case[k], dtype=float) for k in ("X", "Y", "x_q", "W0"))
    tokens = lsa.make_tokens(X[None], Y[None], x_q[None], W0)
    params = lsa.theta_gd(1, 1, case["eta"], 1, W0)
    with_query = lsa.readout(lsa.lsa_layer(tokens, params, 1, include_query=True), 1, 1)
    without = lsa.readout(lsa.lsa_layer(tokens, params, 1), 1, 1)
    assert abs(with_query - without).max() > 0.1
