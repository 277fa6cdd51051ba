"""Exact points and rigorous signs (icl_verify.maths.exact): expected values from arithmetic by hand."""

from __future__ import annotations

import numpy as np
import sympy as sp
from hypothesis import given
from hypothesis import strategies as st

from icl_verify.maths.exact import enclose, exact, exact_case, nonzero, sign


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_a_float_is_the_rational_it_is(x: float) -> None:
    r = exact(x)
    assert r.is_Rational and float(r) == x
    if x != 0:
        assert r.q & (r.q - 1) == 0  # a dyadic rational: the denominator is a power of two


def test_a_case_keeps_sizes_and_makes_matrices() -> None:
    case = exact_case({"n": 2, "A": np.array([[0.5, -0.25], [1.0, 3.0]]), "t": 0.75, "v": np.array([1.0, 2.0])})
    assert case["n"] == 2 and isinstance(case["n"], int)
    assert case["A"] == sp.ImmutableMatrix([[sp.Rational(1, 2), sp.Rational(-1, 4)], [1, 3]])
    assert case["t"] == sp.Rational(3, 4)
    assert case["v"].shape == (2, 1)


def test_signs_of_rationals_and_algebraic_numbers() -> None:
    assert sign(sp.Rational(-1, 3)) == -1 and sign(sp.Integer(0)) == 0
    assert sign(sp.sqrt(2) - sp.Rational(140, 99)) == 1  # 1.41421… > 1.41414…
    assert sign(sp.sqrt(2) - sp.Rational(99, 70)) == -1  # 1.41421… < 1.41428…
    x = sp.Symbol("x")
    root = sp.CRootOf(x**3 - x - 1, 0)  # the plastic number, 1.3247179572…
    assert sign(root - sp.Rational(13247179572, 10**10)) == 1
    assert sign(root - sp.Rational(13247179573, 10**10)) == -1


def test_a_polynomial_vanishing_at_an_algebraic_number_has_sign_zero() -> None:
    """r³ − r − 1 = 0 at the plastic number r by definition, and (r² − 2)² − (r⁴ − 4r² + 4) = 0 by expansion,
    whatever SymPy's simplify does (SymPy 1.13 leaves the first unsimplified); r² − r − 1 ≠ 0 (r is not φ)."""
    x = sp.Symbol("x")
    root = sp.CRootOf(x**3 - x - 1, 0)
    assert sign(root**3 - root - 1) == 0 and sign((root**3 - root - 1) ** 2) == 0
    assert sign((root**2 - 2) ** 2 - (root**4 - 4 * root**2 + 4)) == 0
    assert sign(root**2 - root - 1) == -1  # = 1/r − r < 0 as r > 1 (r³ = r + 1 gives r² = 1 + 1/r)


def test_signs_of_transcendental_numbers_far_below_float_range() -> None:
    assert sign(sp.exp(-1000)) == 1  # ≈ 5e-435, below every float
    assert sign(sp.Rational(1, 10**400) - sp.exp(-1000)) == 1
    assert sign(sp.log(2) + sp.log(3) - sp.log(6)) == 0
    assert sign(sp.pi - sp.Rational(355, 113)) == -1  # 355/113 exceeds π by 2.7e-7


def test_an_enclosure_contains_the_number() -> None:
    box = enclose(sp.sqrt(2) + sp.exp(1), 80)
    assert float(box.delta.b) < 1e-20
    # √2 + e = 1.4142135623730950488… + 2.7182818284590452354… = 4.1324953908321402842…
    assert sign(sp.sqrt(2) + sp.E - sp.Rational("4.13249539083214028")) == 1
    assert sign(sp.sqrt(2) + sp.E - sp.Rational("4.13249539083214029")) == -1


def test_undecidable_numbers_are_not_given_a_sign() -> None:
    assert sign(sp.Symbol("y")) is None
    assert sign(sp.zoo) is None


def test_nonzero_of_a_matrix() -> None:
    assert nonzero(sp.Matrix([[0, sp.Rational(1, 10**300)]])) is True
    assert nonzero(sp.Matrix([[0, 0]])) is False
