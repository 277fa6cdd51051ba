"""1 × 1 matrices are scalars on both sides: vᵀA⁻¹u is a number a side can add to 1."""

from __future__ import annotations

import numpy as np
import pytest
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


def test_a_1_by_1_product_of_sums_is_a_scalar():
    """(x − m)ᵀA(x − m) and (A(x − m))ᵀ(x − m) add to a number as xᵀAx does; an outer product of sums stays a matrix."""
    x, m = _columns(n)
    A = declared("A", n, n)
    assert isinstance((x - m).T @ A @ (x - m), Entry) and isinstance((A @ (x - m)).T @ (x - m), Entry)
    assert isinstance(1 + (2 * (x - m)).T @ (x + m), sp.Add)
    x1, m1 = _columns(1)
    assert isinstance((x1 - m1) @ (x1 - m1).T, sp.MatrixExpr)  # n = 1, but not 1 × 1 by declaration


def test_at_between_1_by_1_products_multiplies_as_numpy_does():
    """(vᵀu) @ (uᵀv) is a product; (vᵀu) @ uᵀ scales a row; @ a matrix of n rows is refused (NumPy refuses it too)."""
    u, v = _columns(n)
    A = declared("A", n, n)
    s, t = v.T @ u, u.T @ v
    assert s @ t == s * t and s @ u.T == s * u.T and u @ s == u * s
    with pytest.raises(sp.matrices.ShapeError, match="n rows"):
        s @ A


COMPLETING = {"A": iv.matrix("n", "n", spd=True), "x": iv.matrix("n", 1), "b": iv.matrix("n", 1)}


def _completed(sign: int):
    """−½(x − A⁻¹b)ᵀA(x − A⁻¹b) ± ½bᵀA⁻¹b: completing the square, a 1 × 1 product of sums plus a scalar."""
    return lambda A, x, b: -(x - inverse(A) @ b).T @ A @ (x - inverse(A) @ b) / 2 + sign * b.T @ inverse(A) @ b / 2


def test_completing_the_square_is_proved_and_its_wrong_constant_refuted():
    """−½xᵀAx + bᵀx = −½(x − A⁻¹b)ᵀA(x − A⁻¹b) + ½bᵀA⁻¹b (A symmetric); with −½bᵀA⁻¹b false at n = 1."""
    lhs = lambda A, x, b: -x.T @ A @ x / 2 + b.T @ x  # noqa: E731
    proved = iv.check(iv.statement("square", "t", "s", symbols=COMPLETING, lhs=lhs, rhs=_completed(1)), max_examples=20)
    assert proved.verdict is iv.Verdict.PROVED
    wrong = iv.statement("square-wrong", "t", "s", symbols=COMPLETING, lhs=lhs, rhs=_completed(-1), holds=False,
                         corrected=_completed(1))  # fmt: skip
    result = iv.check(wrong, max_examples=20)
    assert result.verdict is iv.Verdict.REFUTED and result.as_expected
    assert result.counterexample["sizes"] == {"n": 1}


def test_at_between_two_scalar_sums_is_an_error_that_says_to_write_a_product():
    """(xᵀAx − tr A) @ (xᵀAx − tr A): NumPy multiplies 1 × 1 arrays; the symbolic side says to write *."""
    claim = iv.statement("at", "t", "s", symbols={"A": iv.matrix("n", "n"), "x": iv.matrix("n", 1)},
                         lhs=lambda A, x: (x.T @ A @ x - trace(A)) @ (x.T @ A @ x - trace(A)),
                         rhs=lambda A, x: (x.T @ A @ x - trace(A)) * (x.T @ A @ x - trace(A)))  # fmt: skip
    result = iv.check(claim, max_examples=5)
    assert result.verdict is iv.Verdict.ERROR
    assert "write * for the product of two scalars" in result.evidence[0].detail
