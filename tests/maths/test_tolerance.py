"""The automatic tolerance: term magnitudes bound the rounding error, and O(1) errors still show."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from icl_verify.core.checks.numeric import compare_with_tolerance
from icl_verify.core.statements.equality import compare
from icl_verify.maths.strategies import matrices
from icl_verify.maths.tolerance import ATOL, RTOL, UNIT_ROUNDOFF, Magnitude, magnitude_of, term_magnitude

FAST = settings(max_examples=60, deadline=None)


def cancelling(A, B):
    """(A + B)² − A² − AB − BA: equal to B², its terms as large as A² (they cancel)."""
    return (A + B) @ (A + B) - A @ A - A @ B - B @ A


def square(B):
    return B @ B


def _exact_square(B: np.ndarray) -> list[list[Fraction]]:
    """B² in exact rational arithmetic (every float is a rational), independent of NumPy's rounding."""
    F = [[Fraction(float(v)) for v in row] for row in B]
    n = len(F)
    return [[sum((F[i][k] * F[k][j] for k in range(n)), Fraction(0)) for j in range(n)] for i in range(n)]


def test_magnitude_turns_subtraction_into_addition():
    a, b = np.array([3.0, -1.0]), np.array([2.0, 1.0])
    np.testing.assert_array_equal(np.asarray(magnitude_of(a) - b), [5.0, 2.0])
    np.testing.assert_array_equal(np.asarray(-magnitude_of(a)), [3.0, 1.0])
    A = np.array([[1.0, -2.0], [-3.0, 4.0]])
    np.testing.assert_array_equal(np.asarray(magnitude_of(A) @ A), np.abs(A) @ np.abs(A))
    stacked = np.block([[magnitude_of(A), A]])
    assert isinstance(stacked, Magnitude)
    np.testing.assert_array_equal(np.asarray(stacked - stacked), 2 * np.abs(np.block([[A, A]])))


def test_integers_are_sizes_and_stay_unchanged():
    assert magnitude_of(3) == 3 and type(magnitude_of(3)) is int
    assert term_magnitude(lambda X, N: X[:, :N] - X[:, :N], {"X": np.array([[1.0, -2.0]]), "N": 1}) == 2.0


def test_magnitude_is_the_sum_of_absolute_terms():
    A, B = np.array([[1e8, -2.0], [3.0, 4.0]]), np.array([[1.0, -1.0], [2.0, 0.5]])
    a, b = np.abs(A), np.abs(B)
    expected = np.max(2 * a @ a + 2 * (a @ b + b @ a) + b @ b)  # (|A|+|B|)² + |A|² + |A||B| + |B||A|
    np.testing.assert_allclose(term_magnitude(cancelling, {"A": A, "B": B}), expected, rtol=1e-15)


@FAST
@given(st.integers(1, 4).flatmap(lambda n: st.tuples(matrices(n, n, 1e6), matrices(n, n, 1.0))))
def test_rounding_error_stays_within_the_term_bound(pair):
    """|fl(lhs) − exact B²| ≤ RTOL · term magnitude + ATOL, the exact value computed with fractions."""
    A, B = pair
    computed = cancelling(A, B)
    exact = _exact_square(B)
    bound = Fraction(RTOL * term_magnitude(cancelling, {"A": A, "B": B})) + Fraction(ATOL)
    error = max(abs(Fraction(float(computed[i, j])) - exact[i][j]) for i in range(len(B)) for j in range(len(B)))
    assert error <= bound


@FAST
@given(st.integers(1, 4).flatmap(lambda n: st.tuples(matrices(n, n, 1e6), matrices(n, n, 1.0))))
def test_no_false_refutation_when_terms_cancel(pair):
    A, B = pair
    ok, err, tol = compare_with_tolerance(compare(cancelling, square, {"A": A, "B": B}), RTOL, ATOL)
    assert ok, (err, tol)


@FAST
@given(
    st.integers(1, 4).flatmap(lambda n: st.tuples(matrices(n, n, 1e3), matrices(n, n, 1.0))),
    st.floats(0.5, 2.0) | st.floats(-2.0, -0.5),
)
def test_an_order_one_error_is_never_missed(pair, error):
    A, B = pair
    wrong = lambda A, B: square(B) + error * np.eye(len(B))  # noqa: E731
    ok, err, tol = compare_with_tolerance(compare(cancelling, wrong, {"A": A, "B": B}), RTOL, ATOL)
    assert not ok and err >= 0.49 and tol < 1e-3


def test_the_term_scale_is_needed_where_sides_are_small():
    """With A = 1e8 the rounding error exceeds any tolerance relative to |lhs|, |rhs| alone."""
    A, B = np.full((2, 2), 1e8) + np.array([[0.1, 0.3], [0.7, 0.9]]), np.array([[1.0, 0.5], [0.25, 1.0]])
    lhs, rhs = cancelling(A, B), square(B)
    side_scale = max(np.max(np.abs(lhs)), np.max(np.abs(rhs)))
    assert np.max(np.abs(lhs - rhs)) > 1e3 * UNIT_ROUNDOFF * side_scale
    assert compare_with_tolerance(compare(cancelling, square, {"A": A, "B": B}), RTOL, ATOL)[0]
