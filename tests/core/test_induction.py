"""Integer parameters and statements over every K: drawn like sizes, proved by induction when a recursion is given."""

from __future__ import annotations

import pytest

import icl_verify as iv

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
