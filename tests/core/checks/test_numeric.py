"""Honest sides in the numeric check: shapes before values, real values only, inputs read-only.

The three statements below are false or ill-formed and were once VERIFIED (shapes flattened away,
complex values cast to their real part, an lhs doubling its input in place before the rhs read it);
each must now be an ERROR naming what is wrong, never a pass.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import strategies as st

import icl_verify as iv
from icl_verify import Numeric, Verdict, check, compare_with_tolerance
from icl_verify.core.checks.numeric import MalformedComparison, read_only
from icl_verify.maths.strategies import dims, matrices


def _numeric_only(name, lhs, rhs, rows="n", cols="n"):
    return iv.statement(
        name,
        "a test",
        "lhs = rhs",
        symbols={"A": iv.matrix(rows, cols)},
        lhs=lhs,
        rhs=rhs,
        symbolic=False,
        explicit=False,
    )


def _double_in_place(A):
    A[...] = 2 * A
    return A


def _numeric_evidence(claim):
    result = check(claim)
    [evidence] = [e for e in result.evidence if e.kind == "numeric"]
    return result.verdict, evidence.detail


def test_x_equals_its_transpose_is_an_error_naming_the_shapes():
    verdict, detail = _numeric_evidence(_numeric_only("x-is-xt", lambda A: A, lambda A: A.T, cols=1))
    assert verdict is Verdict.ERROR
    assert "lhs and rhs have different shapes (2, 1) and (1, 2)" in detail and "'n': 2" in detail


def test_i_times_a_equals_minus_i_times_a_is_an_error_naming_the_complex_side():
    verdict, detail = _numeric_evidence(_numeric_only("ia", lambda A: 1j * A, lambda A: A))
    assert verdict is Verdict.ERROR and "lhs has complex values" in detail
    verdict, detail = _numeric_evidence(_numeric_only("ia2", lambda A: 1j * A, lambda A: -1j * A))
    assert verdict is Verdict.ERROR and "lhs has complex values" in detail
    verdict, detail = _numeric_evidence(_numeric_only("ia3", lambda A: A, lambda A: A + 0j))
    assert verdict is Verdict.ERROR and "rhs has complex values" in detail


def test_an_lhs_that_doubles_its_input_in_place_is_an_error_not_two_a_equals_a():
    verdict, detail = _numeric_evidence(_numeric_only("twice", _double_in_place, lambda A: A))
    assert verdict is Verdict.ERROR and "read-only" in detail


def _square_cases():
    @st.composite
    def cases(draw):
        n = draw(dims(1, 3))
        return {"n": n, "A": draw(matrices(n, n)), "parts": [draw(matrices(n, 1))]}

    return cases()


def test_a_compare_that_mutates_the_case_cannot_pass_through_a_nested_array_either():
    def mutating(case):
        case["parts"][0] *= 2  # an array inside a list of the case
        return case["parts"][0], case["parts"][0] / 2

    result = check(iv.Claim("nested", "s", "st", checks=(Numeric(_square_cases(), mutating),)))
    assert result.verdict is Verdict.ERROR and "read-only" in result.evidence[0].detail


def test_a_side_cannot_make_its_read_only_input_writeable_again():
    A = read_only(np.ones((2, 2)))
    with pytest.raises(ValueError):
        A.setflags(write=True)
    original = np.ones(3)
    copy = read_only({"x": [original]})["x"][0]
    assert not copy.flags.writeable and not np.shares_memory(copy, original) and original.flags.writeable


def test_the_control_also_gets_read_only_inputs():
    claim = iv.Claim(
        "refuted",
        "s",
        "st",
        checks=(Numeric(_square_cases(), lambda c: (2 * c["A"] + 1, c["A"])),),
        holds=False,
        corrected=iv.Corrected(numeric=lambda c: (_double_in_place(c["A"]), 2 * c["A"])),
    )
    controls = [e for e in check(claim).evidence if e.kind == "control"]
    assert [e.status for e in controls] == ["error"] and "read-only" in controls[0].detail


@pytest.mark.parametrize(
    "result, match",
    [
        ((np.ones((2, 1)), np.ones((1, 2))), r"lhs and rhs have different shapes \(2, 1\) and \(1, 2\)"),
        ((np.ones(3), np.ones((3, 1))), "different shapes"),
        ((1j, 1j), "lhs has complex values"),
        ((1.0, np.array([1 + 0j])), "rhs has complex values"),
        ((np.array([None]), 1.0), "lhs has non-numeric values"),
        ((1.0, "1"), "rhs has non-numeric values"),
        ((1.0, [[1.0], [1.0, 2.0]]), "rhs is not an array of numbers"),
        ((1.0, 1.0, 1j), "scale has complex values"),
        ((1.0, 1.0, np.ones(2)), "scale must be one number"),
    ],
)
def test_malformed_sides_are_refused_naming_the_side(result, match):
    with pytest.raises(MalformedComparison, match=match):
        compare_with_tolerance(result, rtol=1e-9, atol=1e-12)


def test_a_statement_compares_part_by_part_with_shapes():
    two_parts = _numeric_only("parts", lambda A: (A, A), lambda A: (A, A.T), rows=2, cols="n")
    verdict, detail = _numeric_evidence(two_parts)
    assert verdict is Verdict.ERROR and "lhs and rhs part 1 have different shapes" in detail
    counts = _numeric_only("counts", lambda A: (A, A), lambda A: np.concatenate([A, A]))
    verdict, detail = _numeric_evidence(counts)
    assert verdict is Verdict.ERROR and "lhs returns 2 part(s) but rhs returns 1" in detail


def test_real_sides_of_equal_shape_still_verify_and_integers_and_booleans_are_numbers():
    assert check(_numeric_only("same", lambda A: A + A, lambda A: 2 * A)).verdict is Verdict.VERIFIED
    assert compare_with_tolerance((np.array([1, 2]), np.array([True, True]) * 1.5), 0.0, 1.0)[0]
