"""Derivation steps over traces of inverses: proved for every size, a wrong sign located, an open step explained."""

from __future__ import annotations

import sympy as sp
from sympy import Identity, MatrixSymbol

import icl_verify as iv
from icl_verify.blocks import inverse, trace

n, d = sp.symbols("n d", integer=True, positive=True)
X, lam = MatrixSymbol("X", n, d), sp.Symbol("lam", positive=True)
G = inverse(X.T @ X + lam * Identity(d))  # (XᵀX + λI_d)⁻¹


def _ridge_trace(sign: int) -> iv.Derivation:
    """tr(XGXᵀ) = tr(GXᵀX) = tr(G(XᵀX + λI − λI)) = tr(I − λG) = d − λ tr G (sign = +1: the wrong sign)."""
    steps = [
        iv.Step(trace(G @ X.T @ X), "cyclicity"),
        iv.Step(trace(G @ sp.MatAdd(X.T @ X, lam * Identity(d), -lam * Identity(d), evaluate=False)), "± λI"),
        iv.Step(trace(Identity(d) + sign * lam * G), "G (XᵀX + λI) = I"),
        iv.Step(d + sign * lam * trace(G), "linearity"),
    ]
    return iv.Derivation("ridge-trace", "t", "s", trace(X @ G @ X.T), steps, holds=sign < 0)


def test_the_ridge_trace_derivation_is_proved_step_by_step():
    result = _ridge_trace(-1).check()
    assert result.verdict is iv.Verdict.PROVED and result.as_expected
    assert "M⁻¹M = MM⁻¹ = I" in result.marks[2].witness["proof"]


def test_its_wrong_sign_is_refuted_at_step_3_with_a_witness():
    result = _ridge_trace(+1).check()
    assert result.verdict is iv.Verdict.REFUTED and result.as_expected
    assert [m.status for m in result.marks] == ["proved", "proved", "refuted", "proved"]
    witness = result.marks[2].witness
    lam_value = sp.Rational(witness["lam"])
    x = sp.Rational(witness["X[0, 0]"])
    # at d = n = 1: tr(G(x² + λ − λ)) − (1 + λG) = −2λG with G = 1/(x² + λ)
    assert witness["sizes"] == "d = 1, n = 1"
    assert sp.Rational(witness["difference"]) == -2 * lam_value / (x**2 + lam_value)


def test_a_step_nothing_decides_says_why_and_what_it_covered():
    A, B = MatrixSymbol("A", n, n), MatrixSymbol("B", n, n)
    start = trace(inverse(A + B) @ A) + trace(inverse(A + B) @ B)
    result = iv.Derivation("split", "t", "s", start, [iv.Step(n * sp.Integer(1), "tr of I")]).check()
    (mark,) = result.marks
    assert mark.status == "unproven" and result.verdict is iv.Verdict.UNPROVEN
    assert mark.witness["reason"].startswith("not proved for every size: traces and determinants of inverses")
    assert "exactly 0 at n = 1; n = 2; n = 3" in mark.witness["reason"]
