"""Inequalities as statements: proved by the decision procedure, searched toward a violation, refuted exactly."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

import icl_verify as iv

norm = np.linalg.norm
XY = {"x": iv.scalar(), "y": iv.scalar()}
AB = {"A": iv.matrix("n", "m"), "B": iv.matrix("m", "p")}

AM_GM = iv.statement(
    "am-gm", "Cauchy 1821", r"\tfrac{x + y}{2} \ge \sqrt{xy}", relation=">=",
    symbols={"x": iv.scalar(positive=True), "y": iv.scalar(positive=True)},
    lhs=lambda x, y: (x + y) / 2, rhs=lambda x, y: (x * y) ** 0.5,
)  # fmt: skip
TWICE_THE_PRODUCT = iv.statement(
    "squares-exceed-thrice-the-product", "a tempting variant", r"x^2 + y^2 \ge 3xy", relation=">=", symbols=XY,
    lhs=lambda x, y: x**2 + y**2, rhs=lambda x, y: 3 * x * y, holds=False, corrected=lambda x, y: 2 * x * y,
)  # fmt: skip
FROBENIUS = iv.statement(
    "frobenius-of-a-product", "Horn & Johnson 2013, §5.6", r"\|AB\|_F \le \|A\|_2 \|B\|_F", relation="<=",
    symbols=AB, lhs=lambda A, B: norm(A @ B), rhs=lambda A, B: norm(A, 2) * norm(B),
)  # fmt: skip
SPECTRAL_ONLY = iv.statement(
    "frobenius-by-spectral-norms", "a tempting variant", r"\|AB\|_F \le \|A\|_2 \|B\|_2", relation="<=",
    symbols=AB, lhs=lambda A, B: norm(A @ B), rhs=lambda A, B: norm(A, 2) * norm(B, 2),
    holds=False, corrected=lambda A, B: norm(A, 2) * norm(B),
)  # fmt: skip


def test_a_true_scalar_inequality_is_proved_with_its_certificate():
    result = iv.check(AM_GM, max_examples=50)
    assert result.verdict is iv.Verdict.PROVED
    proof = result.evidence[0]
    assert (proof.kind, proof.status) == ("symbolic", "proved")
    assert "certificate: the negation is unsatisfiable" in proof.detail and "nlsat" in proof.detail


def test_a_tight_inequality_passes_every_check():
    """x² + y² ≥ 2xy is an equality on x = y: within the tolerance, never a violation."""
    tight = iv.statement("tight", "t", "x^2 + y^2 >= 2xy", symbols=XY, relation=">=",
                         lhs=lambda x, y: x**2 + y**2, rhs=lambda x, y: 2 * x * y)  # fmt: skip
    result = iv.check(tight, max_examples=200)
    assert [e.status for e in result.evidence] == ["proved", "verified"]


def test_a_false_scalar_inequality_is_refuted_by_an_exact_counterexample_and_the_numeric_one():
    result = iv.check(TWICE_THE_PRODUCT, max_examples=100)
    assert result.verdict is iv.Verdict.REFUTED and result.as_expected
    proof, numeric = result.evidence[:2]
    assert proof.status == numeric.status == "refuted"
    # the exact counterexample: x² + y² < 3xy, i.e. the violation 3xy − x² − y² > 0, exactly
    x, y = (float(eval(proof.counterexample["values"][k])) for k in ("x", "y"))
    assert (
        3 * x * y - x**2 - y**2 == pytest.approx(proof.counterexample["residual"])
        and proof.counterexample["residual"] > 0
    )
    # the numeric one is signed (lhs − rhs < 0 for ≥) and exact at the shrunk rationals
    cex = numeric.counterexample
    x, y = cex["values"]["x"], cex["values"]["y"]
    assert cex["lhs_minus_rhs"] == x**2 + y**2 - 3 * x * y < 0 and cex["residual"] == -cex["lhs_minus_rhs"]
    assert float(eval(cex["exact_residual"])) == 3 * x * y - x**2 - y**2
    assert "lhs − rhs = -" in numeric.detail and "|lhs − rhs|" not in numeric.detail
    assert [e.status for e in result.evidence if e.kind == "control"] == ["passed", "passed"]


def test_a_true_matrix_norm_inequality_is_verified_by_search():
    result = iv.check(FROBENIUS, max_examples=100)
    assert result.verdict is iv.Verdict.VERIFIED and [e.kind for e in result.evidence] == ["numeric"]


def test_a_false_matrix_norm_inequality_is_refuted_at_its_smallest_sizes():
    """‖AB‖_F ≤ ‖A‖₂‖B‖₂ needs rank(AB) ≥ 2 to fail (‖M‖_F = ‖M‖₂ at rank 1): n = m = p = 2."""
    result = iv.check(SPECTRAL_ONLY, max_examples=100)
    assert result.verdict is iv.Verdict.REFUTED and result.as_expected
    cex = result.counterexample
    assert cex["sizes"] == {"n": 2, "m": 2, "p": 2}
    A, B = np.array(cex["values"]["A"]), np.array(cex["values"]["B"])
    assert cex["lhs_minus_rhs"] == pytest.approx(norm(A @ B) - norm(A, 2) * norm(B, 2)) and cex["lhs_minus_rhs"] > 0


def test_a_solver_timeout_is_unproven_never_a_pass(monkeypatch):
    """The Motzkin polynomial (Motzkin 1967) is non-negative; a solver that runs out of time on it (z3 answers
    ``unknown``, reason "timeout") leaves it undecided. The timeout is forced: whether z3 finishes within 1 ms
    depends on the machine and on what ran before in the process (it once did, in a shuffled one-thread run)."""
    z3 = pytest.importorskip("z3")
    monkeypatch.setattr(z3.Solver, "check", lambda self, *assumptions: z3.unknown)
    monkeypatch.setattr(z3.Solver, "reason_unknown", lambda self: "timeout")
    motzkin = iv.statement(
        "motzkin", "Motzkin 1967", "M(x, y) >= 0", symbols=XY, relation=">=", timeout=0.001,
        lhs=lambda x, y: x**4 * y**2 + x**2 * y**4 - 3 * x**2 * y**2 + 1, rhs=lambda x, y: 0 * x,
    )  # fmt: skip
    proof = iv.check(motzkin, max_examples=20).evidence[0]
    assert (proof.status, proof.detail) == ("undecided", "not decided: z3 gave no answer (timeout)")


def test_a_strict_inequality_is_refuted_at_its_point_of_equality_by_the_proof():
    strict = iv.statement("strict", "t", "x^2 + y^2 > 2xy", symbols=XY, relation=">", holds=False,
                          no_control="equality on x = y", lhs=lambda x, y: x**2 + y**2, rhs=lambda x, y: 2 * x * y)  # fmt: skip
    result = iv.check(strict, max_examples=50)
    proof = result.evidence[0]
    assert result.verdict is iv.Verdict.REFUTED and proof.status == "refuted"
    assert proof.counterexample["values"]["x"] == proof.counterexample["values"]["y"]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [({"relation": "=<"}, "relation must be one of"), ({"relation": "<=", "timeout": 0}, "timeout must be")],
)
def test_bad_relations_and_timeouts_are_refused(kwargs, message):
    with pytest.raises(iv.InvalidArgument, match=message):
        iv.statement("bad", "t", "s", symbols=XY, lhs=lambda x: x, rhs=lambda y: y, **kwargs)


def test_an_exact_rational_violation_accompanies_a_numeric_counterexample_of_matrix_sides():
    """‖AB‖²_F ≤ ‖A‖²_F written with traces evaluates on SymPy too: the shrunk case gets its exact violation."""
    trace = lambda M: sum(M[i, i] for i in range(M.shape[0]))  # noqa: E731
    claim = iv.statement(
        "frobenius-squared-without-b", "a tempting variant", "s", symbols=AB, relation="<=", holds=False,
        no_control="no corrected form", lhs=lambda A, B: trace((A @ B).T @ (A @ B)), rhs=lambda A: trace(A.T @ A),
    )  # fmt: skip
    cex = iv.check(claim).counterexample
    A, B = np.array(cex["values"]["A"]), np.array(cex["values"]["B"])
    assert float(eval(cex["exact_residual"])) == cex["lhs_minus_rhs"] > 0
    assert cex["lhs_minus_rhs"] == pytest.approx(norm(A @ B) ** 2 - norm(A) ** 2)


def test_a_relation_with_random_inputs_is_refused():
    with pytest.raises(iv.InvalidArgument, match="relation is for bounds between deterministic sides"):
        iv.statement("jensen", "t", "s", symbols={"x": iv.gaussian("d")}, relation=">=",
                     lhs=iv.expect(lambda x: x.T @ x), rhs=lambda d: 0 * d)  # fmt: skip


def test_a_refutation_does_not_depend_on_the_searchs_path(monkeypatch):
    """A search that finds nothing (as one Hypothesis release's did for ‖AB‖_F ≤ ‖A‖₂‖B‖₂) is followed by simple
    cases at the smallest sizes: A = B = I₂ refutes it, confirmed exactly; none refutes the true bound (and a search
    that evaluated nothing is no evidence)."""
    from hypothesis.errors import NoSuchExample

    from icl_verify.core.checks import bound

    def finds_nothing(*args, **kwargs):
        raise NoSuchExample("a search that misses")

    monkeypatch.setattr(bound, "find", finds_nothing)
    result = iv.check(SPECTRAL_ONLY, max_examples=100)
    assert result.verdict is iv.Verdict.REFUTED and result.as_expected
    cex = result.counterexample
    assert cex["sizes"] == {"n": 2, "m": 2, "p": 2}
    # the example is np.eye(2) itself, passed on without arithmetic: its entries are 0.0 and 1.0 on every machine
    assert cex["values"]["A"] == cex["values"]["B"] == [[1.0, 0.0], [0.0, 1.0]]
    assert cex["lhs_minus_rhs"] == pytest.approx(np.sqrt(2) - 1)
    numeric = iv.check(FROBENIUS, max_examples=100).evidence[-1]  # the true bound: no example refutes it
    assert (numeric.kind, numeric.status) == ("numeric", "undecided") and "no evidence" in numeric.detail


@pytest.mark.parametrize("sign", [1, -1])
def test_the_simple_cases_do_not_refute_a_true_bound_at_extreme_values(monkeypatch, sign):
    """The simple cases tried after a search that found nothing put a scalar at the middle of its declared domain,
    here x = ±5·10²⁹⁹. (x + 1) − x ≥ 1 is not refuted there (0 ≥ 1 in floats, within the terms' magnitude 10³⁰⁰); its
    twin (x + 1) − x ≥ |x|/2 is refuted at the same case, confirmed exactly (residual |x|/2 − 1)."""
    from hypothesis.errors import NoSuchExample

    from icl_verify.core.checks import bound

    def finds_nothing(*args, **kwargs):
        raise NoSuchExample("a search that misses")

    monkeypatch.setattr(bound, "find", finds_nothing)
    low, high = sorted((sign * 1e15, sign * 1e300))
    x = {"x": iv.scalar(low=low, high=high)}

    def numeric_row(rhs, **expected) -> iv.Evidence:
        claim = iv.statement(
            "plus-one", "t", "(x + 1) - x >= rhs", symbols=x, relation=">=", lhs=lambda x: (x + 1) - x, rhs=rhs,
            **expected,
        )  # fmt: skip
        (row,) = [e for e in iv.check(claim, max_examples=20).evidence if e.kind == "numeric"]
        return row

    assert numeric_row(lambda x: 1 + 0 * x).status != "refuted"
    false = numeric_row(lambda x: sign * x / 2, holds=False, corrected=lambda x: 1 + 0 * x)
    middle = (low + high) / 2
    assert false.status == "refuted" and false.counterexample["values"]["x"] == middle
    assert sp.Rational(false.counterexample["exact_residual"]) == sp.Rational(abs(middle)) / 2 - 1
