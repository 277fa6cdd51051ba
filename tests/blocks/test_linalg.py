"""trace, det, inverse, ones, broadcast, softmax and the symbolic-size layer_norm, on both sides.

Each NumPy value is compared with the exact SymPy value of the same block on the same entries,
and with the defining formula (Σ diagonal, Leibniz/NumPy determinant, M M⁻¹ = I, columns of
softmax summing to 1).
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from sympy.matrices.expressions import MatrixExpr, MatrixSymbol

from icl_verify import blocks as b
from icl_verify.errors import InvalidArgument
from icl_verify.maths.identities import decide
from icl_verify.maths.strategies import matrices
from icl_verify.maths.symbolic import as_explicit

FAST = settings(max_examples=25, deadline=None)
n = sp.Symbol("n", integer=True, positive=True)


def _exact(m: np.ndarray) -> sp.Matrix:
    return sp.Matrix(m.shape[0], m.shape[1], lambda i, j: sp.Rational(str(m[i, j])))


@FAST
@given(matrices(3, 3, 3.0))
def test_trace_and_det_agree_on_numpy_and_sympy(m):
    assert b.trace(m) == pytest.approx(float(sum(np.diag(m))), abs=1e-12)
    assert b.det(m) == pytest.approx(float(b.det(_exact(m))), abs=1e-9 * (1 + np.abs(m).max() ** 3))


def test_inverse_on_both_sides():
    m = np.array([[2.0, 1.0], [1.0, 3.0]])
    np.testing.assert_allclose(b.inverse(m) @ m, np.eye(2), atol=1e-14)
    assert b.inverse(_exact(m)) == sp.Matrix([[3, -1], [-1, 2]]) / 5


@pytest.mark.bitwise("small integers plus 2.5 are exact in IEEE 754, the same sums on both sides")
def test_ones_and_broadcast():
    assert b.ones(2, 3).shape == (2, 3) and np.all(b.ones(2, 3) == 1)
    assert b.ones(n) == sp.OneMatrix(n, 1)
    z = np.arange(6.0).reshape(3, 2)
    np.testing.assert_array_equal(z + b.broadcast(2.5, z), z + 2.5)
    s = MatrixSymbol("s", n, 1)
    c = sp.Symbol("c")
    # the expression that used to crash the exact check: s + c (s·0 + 1), written with broadcast
    residual = s + b.broadcast(c, s) - (s + c * b.ones(n))
    assert decide(residual).holds is True


def test_trace_and_det_need_square_matrices():
    with pytest.raises(InvalidArgument, match=r"square matrix, got shape \(2, 3\)"):
        b.trace(np.ones((2, 3)))
    with pytest.raises(InvalidArgument, match="square"):
        b.det(MatrixSymbol("X", n, sp.Symbol("d", integer=True, positive=True)))


def test_softmax_columns_sum_to_one_on_both_sides():
    z = np.array([[0.0, 1.0], [np.log(3.0), -1.0]])
    p = b.softmax(z)
    np.testing.assert_allclose(p.sum(axis=0), 1.0)
    np.testing.assert_allclose(p[:, 0], [0.25, 0.75])
    exact = b.softmax(_exact(np.array([[0.0], [0.0]])))
    assert exact == sp.Matrix([[sp.Rational(1, 2)], [sp.Rational(1, 2)]])
    with pytest.raises(InvalidArgument, match="concrete sizes"):
        b.softmax(MatrixSymbol("z", n, 1))


def test_layer_norm_of_symbolic_size_matches_the_explicit_one():
    z = MatrixSymbol("z", n, 1)
    symbolic = b.layer_norm(z, eps=sp.Rational(1, 10))
    assert isinstance(symbolic, MatrixExpr)
    at_three = as_explicit(symbolic.xreplace({n: 3}))[0]
    z3 = MatrixSymbol("z", 3, 1)
    explicit = b.layer_norm(sp.Matrix(z3.as_explicit()), eps=sp.Rational(1, 10))
    values = {z3[i, 0]: v for i, v in enumerate((1, 2, 6))}
    assert sp.simplify(at_three.subs(values) - explicit.subs(values)) == sp.zeros(3, 1)
    # and against the formula: mean 3, variance 14/3
    expected = sp.Matrix([-2, -1, 3]) / sp.sqrt(sp.Rational(14, 3) + sp.Rational(1, 10))
    assert sp.simplify(explicit.subs(values) - expected) == sp.zeros(3, 1)


@FAST
@given(matrices(3, 3, 2.0))
def test_matpow_is_the_matrix_power_on_both_sides(m):
    """M³ is M·M·M (not NumPy's element-wise cube), M⁰ = I; the exact SymPy value on the same entries agrees."""
    cube = b.matpow(m, 3)
    np.testing.assert_allclose(cube, m @ m @ m, rtol=1e-12, atol=1e-12)
    # M⁰: numpy.linalg.matrix_power returns the identity itself, no arithmetic, so equality is exact by construction
    np.testing.assert_array_equal(b.matpow(m, 0), np.eye(3))
    exact = b.matpow(_exact(m), 3)
    assert exact == _exact(m) * _exact(m) * _exact(m)
    np.testing.assert_allclose(np.array(exact, dtype=float), cube, rtol=1e-9, atol=1e-9)


def test_matpow_keeps_a_symbolic_exponent_and_refuses_a_non_integer_one():
    k = sp.Symbol("K", integer=True, nonnegative=True)
    a = MatrixSymbol("A", n, n)
    assert b.matpow(a, k) == sp.MatPow(a, k) and b.matpow(a, 2) == a * a
    assert b.matpow(MatrixSymbol("A", 2, 2), 0) == sp.Identity(2)
    assert b.matpow(sp.Symbol("x"), 3) == sp.Symbol("x") ** 3  # a scalar
    with pytest.raises(InvalidArgument, match="integer exponent"):
        b.matpow(np.eye(2), 1.5)
    with pytest.raises(InvalidArgument, match="integer exponent"):
        b.matpow(a, sp.Rational(1, 2))
    with pytest.raises(InvalidArgument, match="square"):
        b.matpow(np.ones((2, 3)), 2)


def test_elementary_functions_on_both_sides():
    x = sp.Symbol("x", positive=True)
    assert b.log(x) == sp.log(x) and b.exp(x) == sp.exp(x) and b.sqrt(x) == sp.sqrt(x) and b.abs(-x) == x
    assert b.log(np.e) == pytest.approx(1.0) and b.abs(-2.5) == 2.5 and b.sqrt(9.0) == 3.0
    m = np.array([[1.0, 4.0]])
    np.testing.assert_allclose(b.log(b.exp(m)), m)
    assert b.sqrt(sp.Matrix([[4, 9]])) == sp.Matrix([[2, 3]])
    with pytest.raises(InvalidArgument, match="concrete size"):
        b.log(MatrixSymbol("A", n, n))
