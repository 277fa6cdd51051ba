"""1 × 1 matrices are scalars on both sides: vᵀA⁻¹u is a number a side can add to 1."""

from __future__ import annotations

import numpy as np
import sympy as sp
from sympy import Determinant, MatrixSymbol, Trace

import icl_verify as iv
from icl_verify.blocks import det, inverse, trace
from icl_verify.maths.scalars import Entry, declared, scalar_of

n = sp.Symbol("n", integer=True, positive=True)


def _columns(size):
    return declared("u", size, 1, (False, True)), declared("v", size, 1, (False, True))


def test_a_product_that_is_1_by_1_by_declaration_is_a_scalar():
    u, v = _columns(n)
    A = declared("A", n, n)
    assert 1 + v.T @ inverse(A) @ u == 1 + Entry(sp.MatMul(v.T, A.I, u))
    assert (A @ u).shape == (n, 1) and (u @ v.T).shape == (n, n)


def test_an_outer_product_at_size_1_stays_a_matrix():
    u, v = _columns(1)
    A = declared("A", 1, 1)
    assert isinstance(A + u @ v.T, sp.MatrixExpr)  # A + uvᵀ at n = 1: a 1 × 1 matrix, not a scalar
    assert 1 + v.T @ u == 1 + Entry(sp.MatMul(v.T, u))


def test_a_side_value_of_1_by_1_is_its_entry_on_every_side():
    assert scalar_of(np.array([[2.0]])) == 2.0 and scalar_of(np.ones((2, 1))).shape == (2, 1)
    assert scalar_of(sp.Matrix([[3]])) == 3
    u = MatrixSymbol("u", n, 1)
    assert scalar_of(u.T * u) == Trace(u.T * u) and scalar_of(u) == u


LEMMA = {"A": iv.matrix("n", "n", spd=True), "u": iv.matrix("n", 1), "v": iv.matrix("n", 1)}


def test_the_matrix_determinant_lemma_written_as_printed_is_proved():
    """det(A + uvᵀ) = det(A)(1 + vᵀA⁻¹u): the rhs adds 1 to a 1 × 1 product on every side."""
    claim = iv.statement("lemma", "t", "s", symbols=LEMMA, lhs=lambda A, u, v: det(A + u @ v.T),
                         rhs=lambda A, u, v: det(A) * (1 + v.T @ inverse(A) @ u), expect="proved")  # fmt: skip
    result = iv.check(claim, max_examples=30)
    assert result.verdict is iv.Verdict.PROVED and result.as_expected
    assert "matrix determinant lemma" in result.evidence[0].detail
    assert [e.status for e in result.evidence[1:]] == ["verified", "verified"]


def test_the_lemma_with_u_and_v_swapped_in_the_wrong_place_is_refuted():
    """det(A + uvᵀ) = det(A)(1 + uᵀA⁻¹v) is false for a non-symmetric rank-one term (n ≥ 2, A symmetric:
    uᵀA⁻¹v = vᵀA⁻¹u, so take 1 − vᵀA⁻¹u instead, false from n = 1)."""
    claim = iv.statement("lemma-sign", "t", "s", symbols=LEMMA, lhs=lambda A, u, v: det(A + u @ v.T),
                         rhs=lambda A, u, v: det(A) * (1 - v.T @ inverse(A) @ u), holds=False,
                         corrected=lambda A, u, v: det(A) * (1 + v.T @ inverse(A) @ u))  # fmt: skip
    result = iv.check(claim, max_examples=30)
    assert result.verdict is iv.Verdict.REFUTED and result.as_expected
    assert result.evidence[0].status == "refuted" and "n = 1" in result.evidence[0].detail


def test_a_quadratic_form_equals_a_trace_on_every_side():
    """vᵀAu = tr(A u vᵀ): a 1 × 1 side against a scalar one (numeric shapes (1, 1) and () agree)."""
    symbols = {"A": iv.matrix("n", "n"), "u": iv.matrix("n", 1), "v": iv.matrix("n", 1)}
    claim = iv.statement("quadratic", "t", "s", symbols=symbols, lhs=lambda A, u, v: v.T @ A @ u,
                         rhs=lambda A, u, v: trace(A @ u @ v.T))  # fmt: skip
    assert iv.check(claim, max_examples=20).verdict is iv.Verdict.PROVED
    wrong = iv.statement("quadratic-wrong", "t", "s", symbols=symbols, lhs=lambda A, u, v: v.T @ A @ u,
                         rhs=lambda A, u, v: trace(A @ v @ u.T), holds=False,
                         corrected=lambda A, u, v: trace(A @ u @ v.T))  # fmt: skip
    result = iv.check(wrong, max_examples=20)
    assert result.verdict is iv.Verdict.REFUTED and result.as_expected
    assert result.counterexample["sizes"] == {"n": 2}  # vᵀAu = uᵀAv at n = 1


def test_determinant_of_a_1_by_1_is_its_entry_in_the_decision_procedure():
    from icl_verify.maths.identities import decide

    u, v = MatrixSymbol("u", n, 1), MatrixSymbol("v", n, 1)
    assert decide(Determinant(u.T * v) - Trace(v.T * u)).holds is True
    assert decide(Determinant(u.T * v) - Trace(v.T * u) - 1).holds is False
