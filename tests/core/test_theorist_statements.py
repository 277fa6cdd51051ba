"""Statements as a theorist writes them, each with its false twin: traces of inverses and determinants.

Expected verdicts from the mathematics: tr(X(XᵀX + λI_d)⁻¹Xᵀ) = d − λ tr((XᵀX + λI_d)⁻¹) for X n × d
(XᵀX = G⁻¹ − λI with G the inverse), false with n for d as soon as n ≠ d (the residual is d − n);
Sylvester's det(I_n + AB) = det(I_k + BA) for A n × k, false with −BA already at n = k = 1 (1 + ab ≠ 1 − ab).
det(cA) = cⁿ det A is decided in tests/maths/test_identities.py (here SymPy reduces it by itself).
"""

from __future__ import annotations

import pytest

import icl_verify as iv
from icl_verify.blocks import det, eye, inverse, trace

RIDGE = {"X": iv.matrix("n", "d"), "lam": iv.scalar(positive=True)}
SYLVESTER = {"A": iv.matrix("n", "k"), "B": iv.matrix("k", "n")}


def _gram_inverse(X, lam, d):
    return inverse(X.T @ X + lam * eye(d, X))


STATEMENTS = {  # name: (symbols, lhs, true rhs, false rhs, theorem cited, the smallest refuting sizes)
    "ridge-hat-trace": (
        RIDGE,
        lambda X, lam, d: trace(X @ _gram_inverse(X, lam, d) @ X.T),
        lambda X, lam, d: d - lam * trace(_gram_inverse(X, lam, d)),
        lambda X, lam, d, n: n - lam * trace(_gram_inverse(X, lam, d)),
        "M⁻¹M = MM⁻¹ = I",
        ({"n": 1, "d": 2}, {"n": 2, "d": 1}),
    ),
    "sylvester": (
        SYLVESTER,
        lambda A, B, n: det(eye(n, A) + A @ B),
        lambda A, B, k: det(eye(k, A) + B @ A),
        lambda A, B, k: det(eye(k, A) - B @ A),
        "Sylvester's determinant identity",
        ({"n": 1, "k": 1},),
    ),
}


@pytest.mark.parametrize("name", STATEMENTS)
def test_the_statement_is_proved_for_every_size_citing_its_theorem(name):
    symbols, lhs, rhs, _, theorem, _ = STATEMENTS[name]
    result = iv.check(iv.statement(name, "t", "s", symbols=symbols, lhs=lhs, rhs=rhs, expect="proved"), max_examples=30)
    assert result.verdict is iv.Verdict.PROVED and result.as_expected, result.evidence
    assert theorem in result.evidence[0].detail


@pytest.mark.parametrize("name", STATEMENTS)
def test_its_false_twin_is_refuted_at_the_smallest_sizes(name):
    symbols, lhs, rhs, wrong, _, sizes = STATEMENTS[name]
    claim = iv.statement(name, "t", "s", symbols=symbols, lhs=lhs, rhs=wrong, holds=False, corrected=rhs)
    result = iv.check(claim, max_examples=30)
    assert result.verdict is iv.Verdict.REFUTED and result.as_expected
    assert result.evidence[0].status == "refuted"  # the symbolic check refutes too, exactly
    explicit = next(e for e in result.evidence if e.kind == "explicit")
    assert explicit.counterexample["sizes"] in sizes
