"""Integer parameters and statements over every K: drawn like sizes, proved by induction when a recursion is given."""

from __future__ import annotations

import pytest

import icl_verify as iv
from icl_verify.blocks import eye, inverse

RELAX = {"x0": iv.scalar(), "c": iv.scalar(), "eta": iv.scalar(), "K": iv.integer(low=0)}
STEPS = iv.recursion(base=lambda x0: x0, step=lambda prev, eta, c: (1 - eta) * prev + eta * c, over="K")

CONTRACTION = iv.statement(
    "relaxation-closed-form", "x_{k+1} = (1 − η) x_k + η c, solved", r"x_K = c + (1-\eta)^K (x_0 - c)",
    symbols=RELAX, lhs=STEPS, rhs=lambda x0, c, eta, K: c + (1 - eta) ** K * (x0 - c),
)  # fmt: skip
OFF_BY_ONE = iv.statement(
    "relaxation-off-by-one", "a tempting variant", r"x_K = c + (1-\eta)^{K+1} (x_0 - c)",
    symbols=RELAX, lhs=STEPS, rhs=lambda x0, c, eta, K: c + (1 - eta) ** (K + 1) * (x0 - c),
    holds=False, corrected=lambda x0, c, eta, K: c + (1 - eta) ** K * (x0 - c),
)  # fmt: skip

GD = {
    "X": iv.matrix("Nx", "N"),
    "Y": iv.matrix("Ny", "N"),
    "W0": iv.matrix("Ny", "Nx"),
    "eta": iv.scalar(),
    "K": iv.integer(low=0),
}
GD_STEPS = iv.recursion(
    base=lambda W0: W0, step=lambda prev, X, Y, eta, N: prev - eta / N * (prev @ X - Y) @ X.T, over="K"
)


def test_a_statement_over_every_k_is_proved_by_induction():
    result = iv.check(CONTRACTION, max_examples=50)
    assert result.verdict is iv.Verdict.PROVED
    induction, explicit, numeric = result.evidence
    assert induction.detail.startswith("proved by induction on K: base case and step reduce to 0")
    assert "K∈{0,1}" in explicit.detail and "K∈[0,3]" in numeric.detail


def test_a_false_statement_over_every_k_is_refuted_at_k_0():
    result = iv.check(OFF_BY_ONE, max_examples=50)
    assert result.verdict is iv.Verdict.REFUTED and result.as_expected
    assert result.evidence[0].status == "undecided" and "the base does not reduce to 0" in result.evidence[0].detail
    cex = result.counterexample
    assert cex["sizes"] == {"K": 0}
    x0, c, eta = (cex["values"][k] for k in ("x0", "c", "eta"))
    assert cex["residual"] == pytest.approx(abs(eta * (x0 - c))) and cex["residual"] > 0  # x0 − c − (1−η)(x0 − c)


def test_two_recursions_of_matrices_are_proved_equal_by_their_steps():
    """W ← W − η/N (WX − Y)Xᵀ and W ← W(I − ηXXᵀ/N) + ηYXᵀ/N: the same step, so the same K-step iterate."""
    expanded = iv.recursion(
        base=lambda W0: W0,
        step=lambda prev, X, Y, eta, N: prev - eta / N * prev @ X @ X.T + eta / N * Y @ X.T,
        over="K",
    )
    claim = iv.statement("gd-two-ways", "t", "s", symbols=GD, lhs=GD_STEPS, rhs=expanded)
    assert iv.check(claim, max_examples=20).verdict is iv.Verdict.PROVED


def test_a_wrong_sign_in_the_step_is_refuted_after_one_step():
    wrong = iv.recursion(
        base=lambda W0: W0,
        step=lambda prev, X, Y, eta, N: prev - eta / N * prev @ X @ X.T - eta / N * Y @ X.T,
        over="K",
    )
    claim = iv.statement(
        "gd-sign", "t", "s", symbols=GD, lhs=GD_STEPS, rhs=wrong, holds=False, no_control="a sign error"
    )
    result = iv.check(claim)
    assert result.verdict is iv.Verdict.REFUTED
    assert result.counterexample["sizes"] == {"Nx": 1, "Ny": 1, "N": 1, "K": 1}
    assert "the step does not reduce to 0" in result.evidence[0].detail


def test_without_a_recursion_a_statement_over_k_is_verified_over_the_k_drawn():
    claim = iv.statement("sum", "t", "s", symbols={"x": iv.scalar(), "K": iv.integer(low=1, high=5)},
                         lhs=lambda x, K: sum(x for _ in range(K)), rhs=lambda x, K: K * x)  # fmt: skip
    result = iv.check(claim, max_examples=30)
    assert result.verdict is iv.Verdict.VERIFIED and [e.kind for e in result.evidence] == ["explicit", "numeric"]
    assert "K∈[1,5]" in result.evidence[1].detail


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: iv.integer(low=-1), "low must be a non-negative int"),
        (lambda: iv.integer(low=2, high=1), "high must be an int at least low"),
        (lambda: iv.recursion(base=lambda x: x, step=lambda x: x, over="K"), "step must take 'prev'"),
        (
            lambda: iv.statement("s", "t", "s", symbols={"L": iv.integer("K")}, lhs=lambda L: L, rhs=lambda L: L),
            "must be its key",
        ),
        (
            lambda: iv.statement("s", "t", "s", symbols={"x": iv.scalar()}, lhs=STEPS, rhs=lambda x: x),
            "not declared with iv.integer",
        ),
        (
            lambda: iv.statement("s", "t", "s", symbols=RELAX, lhs=STEPS, rhs=lambda x0: x0, sizes={"K": (-1, 2)}),
            "none below 0",
        ),
    ],
)
def test_bad_integer_declarations_are_refused(call, message):
    with pytest.raises(iv.InvalidArgument, match=message):
        call()


def test_an_integer_declared_with_its_name_is_drawn_like_a_size():
    claim = iv.statement("named", "t", "s", symbols={"x": iv.scalar(), "K": iv.integer("K", low=1)},
                         lhs=lambda x, K: x * K, rhs=lambda x, K: K * x)  # fmt: skip
    result = iv.check(claim, max_examples=10)
    assert result.verdict is iv.Verdict.VERIFIED and "K∈{1,2}" in result.evidence[0].detail


# K steps of gradient descent on ½(w − w*)ᵀS(w − w*): w_{k+1} = w_k − η(S w_k − S w*), solved in closed form
GD_QUADRATIC = {
    "S": iv.matrix("d", "d"),
    "w0": iv.matrix("d", 1),
    "wstar": iv.matrix("d", 1),
    "eta": iv.scalar(),
    "K": iv.integer(low=0),
}
GD_ITERATES = iv.recursion(
    base=lambda w0: w0, step=lambda prev, S, eta, wstar: prev - eta * (S @ prev - S @ wstar), over="K"
)
# Σ_{k<K} (I − ηS)^k ηS, the matrix that K steps apply to w* − w0
GEOMETRIC = iv.recursion(
    base=lambda S: 0 * S, step=lambda prev, S, eta, K, d: prev + iv.matpow(eye(d, S) - eta * S, K) @ (eta * S), over="K"
)


def _gd_closed_form(extra: int):
    return lambda S, w0, wstar, eta, K, d: wstar + iv.matpow(eye(d, S) - eta * S, K + extra) @ (w0 - wstar)


def _geometric_sum(extra: int):
    return lambda S, eta, K, d: eye(d, S) - iv.matpow(eye(d, S) - eta * S, K + extra)


LEAST_SQUARES = {k: GD_QUADRATIC[k] for k in ("w0", "wstar", "eta", "K")} | {"X": iv.matrix("n", "d")}
LEAST_SQUARES_ITERATES = iv.recursion(  # GD on ½‖Xw − Xw*‖²: the quadratic's S is the product XᵀX
    base=lambda w0: w0, step=lambda prev, X, wstar, eta: prev - eta * X.T @ (X @ prev - X @ wstar), over="K"
)


def _least_squares_error(extra: int):
    return lambda X, w0, wstar, eta, K, d: iv.matpow(eye(d, X) - eta * X.T @ X, K + extra) @ (w0 - wstar)


PARTIAL_SUMS = iv.recursion(base=lambda M: 0 * M, step=lambda prev, M, d: eye(d, M) + M @ prev, over="K")


def _neumann(extra: int):
    """Σ_{k<K} Mᵏ = (I − M)⁻¹(I − Mᴷ): the step needs M(I − M)⁻¹ = (I − M)⁻¹M − … cleared by (I − M)."""
    return lambda M, K, d: inverse(eye(d, M) - M) @ (eye(d, M) - iv.matpow(M, K + extra))


MATRIX_RECURSIONS = {
    "gd-closed-form": (GD_QUADRATIC, GD_ITERATES, _gd_closed_form),
    "geometric-matrix-sum": ({k: GD_QUADRATIC[k] for k in ("S", "eta", "K")}, GEOMETRIC, _geometric_sum),
    "least-squares-gd-error": (LEAST_SQUARES, LEAST_SQUARES_ITERATES - (lambda wstar: wstar), _least_squares_error),
    "neumann-partial-sums": ({"M": iv.matrix("d", "d"), "K": iv.integer(low=0)}, PARTIAL_SUMS, _neumann),
}


@pytest.mark.parametrize("name", MATRIX_RECURSIONS)
def test_a_matrix_recursion_is_proved_by_induction_with_matrix_powers(name):
    """w_K = w* + (I − ηS)^K (w0 − w*) and Σ_{k<K} (I − ηS)^k ηS = I − (I − ηS)^K: the step needs
    (I − ηS)^{K+1} = (I − ηS)(I − ηS)^K and S(I − ηS)^K = (I − ηS)^K S."""
    symbols, lhs, rhs = MATRIX_RECURSIONS[name]
    result = iv.check(iv.statement(name, "t", "s", symbols=symbols, lhs=lhs, rhs=rhs(0)), max_examples=30)
    assert result.verdict is iv.Verdict.PROVED, result.evidence[0].detail
    induction, explicit, numeric = result.evidence
    assert induction.detail.startswith("proved by induction on K") and "Mᴷ⁺¹ = Mᴷ·M" in induction.detail
    assert explicit.status == "verified" and numeric.status == "verified"


@pytest.mark.parametrize("name", MATRIX_RECURSIONS)
def test_the_exponent_k_plus_1_is_refuted_at_k_0_by_the_base_case(name):
    """With (I − ηS)^{K+1} the base case K = 0 is w0 − w* − (I − ηS)(w0 − w*) = ηS(w0 − w*) ≠ 0 (resp. −ηS ≠ 0)."""
    symbols, lhs, rhs = MATRIX_RECURSIONS[name]
    claim = iv.statement(name, "t", "s", symbols=symbols, lhs=lhs, rhs=rhs(1), holds=False, corrected=rhs(0))
    result = iv.check(claim, max_examples=30)
    assert result.verdict is iv.Verdict.REFUTED and result.as_expected
    induction = result.evidence[0]
    assert induction.status == "refuted" and "the base case K = 0 is false" in induction.detail
    sizes = result.counterexample["sizes"]
    assert sizes == {"K": 0} | {size: 1 for size in sizes if size != "K"}  # the smallest sizes refute
    assert all(e.status == "passed" for e in result.evidence if e.kind == "control")


def test_a_step_that_does_not_reduce_refutes_nothing():
    """S^K T ≠ T S^K in general, but the statement Σ… with a commuting-looking step is only undecided, never refuted."""
    symbols = {"S": iv.matrix("d", "d"), "T": iv.matrix("d", "d"), "K": iv.integer(low=0)}
    lhs = iv.recursion(base=lambda T: T, step=lambda prev, S: S @ prev, over="K")  # S^K T
    claim = iv.statement("s", "t", "s", symbols=symbols, lhs=lhs, rhs=lambda S, T, K: T @ iv.matpow(S, K),
                         holds=False, no_control="a false commutation")  # fmt: skip
    result = iv.check(claim, max_examples=30)
    assert result.evidence[0].status == "undecided" and "the step does not reduce to 0" in result.evidence[0].detail
    assert result.verdict is iv.Verdict.REFUTED  # by the exact and numeric checks at K = 1, d = 2
    assert result.counterexample["sizes"] == {"d": 2, "K": 1}


def test_a_corrected_form_the_induction_does_not_prove_is_an_undecided_control_not_a_failed_one():
    """(A + B)ᴷ⁺¹ against the recursion S ↦ AS + BS refutes at K = 0; the corrected (A + B)ᴷ is true, but its step
    AP + BP = P(A + B) (P = (A + B)ᴷ) needs P to commute with the sum A + B, which the canonical form does not
    know (only functions of one letter or one word commute there): undecided, and the refutation as expected."""
    symbols = {"A": iv.matrix("d", "d"), "B": iv.matrix("d", "d"), "K": iv.integer(low=0)}
    powers = iv.recursion(base=lambda A, d: eye(d, A), step=lambda prev, A, B: A @ prev + B @ prev, over="K")
    power = lambda extra: lambda A, B, K: iv.matpow(A + B, K + extra)  # noqa: E731
    claim = iv.statement("sum-power", "t", "s", symbols=symbols, lhs=powers, rhs=power(1), holds=False,
                         corrected=power(0))  # fmt: skip
    result = iv.check(claim, max_examples=20)
    assert result.verdict is iv.Verdict.REFUTED and result.as_expected
    controls = {e.detail.split(":")[0]: e.status for e in result.evidence if e.kind == "control"}
    assert controls == {"explicit": "passed", "numeric": "passed", "symbolic": "undecided"}


def test_a_recursion_is_a_value_inside_an_expression():
    """x_K − c = (1 − η)^K (x0 − c) with lhs written ``STEPS - (lambda c: c)``; c − x_K and x_K − 1 too."""
    assert (STEPS - 1)(x0=3.0, c=1.0, eta=0.5, K=2) == 1.0  # low = 1: one step from x0 = 3 gives 2
    assert (2 - STEPS)(x0=3.0, c=1.0, eta=0.5, K=2) == 0.0
    gap = iv.statement("gap", "t", "s", symbols=RELAX, lhs=STEPS - (lambda c: c),
                       rhs=lambda x0, c, eta, K: (1 - eta) ** K * (x0 - c))  # fmt: skip
    result = iv.check(gap, max_examples=30)
    assert result.verdict is iv.Verdict.PROVED and result.evidence[0].detail.startswith("proved by induction")
    flipped = iv.statement("flipped", "t", "s", symbols=RELAX, lhs=(lambda c: c) - STEPS,
                           rhs=lambda x0, c, eta, K: (1 - eta) ** K * (x0 - c), holds=False,
                           corrected=lambda x0, c, eta, K: -((1 - eta) ** K) * (x0 - c))  # fmt: skip
    assert iv.check(flipped, max_examples=30).verdict is iv.Verdict.REFUTED


def test_the_gd_error_written_with_the_recursion_is_proved_and_its_twin_refuted():
    """w_K − w* = (I − ηS)^K (w0 − w*): the recursion shifted by w*."""
    error = lambda extra: lambda S, w0, wstar, eta, K, d: iv.matpow(eye(d, S) - eta * S, K + extra) @ (w0 - wstar)  # noqa: E731
    lhs = GD_ITERATES - (lambda wstar: wstar)
    assert (
        iv.check(
            iv.statement("gd-error", "t", "s", symbols=GD_QUADRATIC, lhs=lhs, rhs=error(0)), max_examples=20
        ).verdict
        is iv.Verdict.PROVED
    )
    twin = iv.statement(
        "gd-error-k1", "t", "s", symbols=GD_QUADRATIC, lhs=lhs, rhs=error(1), holds=False, corrected=error(0)
    )
    result = iv.check(twin, max_examples=20)
    assert (
        result.verdict is iv.Verdict.REFUTED and result.as_expected and "base case K = 0" in result.evidence[0].detail
    )


def test_a_recursion_is_shifted_not_multiplied_and_says_so():
    """(I − M) @ S_K is no invertible shift of S_K: refused at once with how to write it, never a TypeError."""
    for product in (
        lambda: (lambda M: M) @ PARTIAL_SUMS,
        lambda: PARTIAL_SUMS @ (lambda M: M),
        lambda: 2 * PARTIAL_SUMS,
    ):
        with pytest.raises(iv.InvalidArgument, match=r"shifted .*not multiplied"):
            product()


def test_a_recursion_is_shifted_only_by_numbers_and_sides():
    with pytest.raises(iv.InvalidArgument, match="shifted by a number or a function"):
        STEPS - "c"
    with pytest.raises(iv.InvalidArgument, match="shifted by a number or a function"):
        STEPS - STEPS
