"""Statements and derivations with inverses, traces and determinants, decided for every size.

The true statements are classical identities (push-through, Woodbury, Sherman–Morrison, trace
cyclicity); the false ones fail at the sizes the mathematics says: (A + B)⁻¹ = A⁻¹ + B⁻¹ already at
n = 1 (1/(a + b) ≠ 1/a + 1/b), tr(ABC) = tr(BAC) and det(A + B) = det A + det B only from n = 2
(1 × 1 matrices commute; det is additive on scalars).
"""

from __future__ import annotations

import pytest
import sympy as sp
from hypothesis import strategies as st
from sympy import Identity, MatrixSymbol

import icl_verify as iv
from icl_verify import Claim, Corrected, Numeric, Symbolic, Verdict, check
from icl_verify.blocks import det, inverse, trace
from icl_verify.blocks.backend import eye
from icl_verify.errors import InvalidArgument
from icl_verify.maths import identities
from icl_verify.maths.strategies import dims, matrices

SQUARES = {"A": iv.matrix("n", "n"), "B": iv.matrix("n", "n"), "C": iv.matrix("n", "n")}


def _statement(name, symbols, lhs, rhs, **kw):
    return iv.statement(name, "test", name, symbols=symbols, lhs=lhs, rhs=rhs, **kw)


TRUE_STATEMENTS = {
    "push-through": _statement(
        "push-through",
        {"X": iv.matrix("n", "d"), "lam": iv.scalar(positive=True)},
        lambda X, lam, d: inverse(X.T @ X + lam * eye(d, X)) @ X.T,
        lambda X, lam, n: X.T @ inverse(X @ X.T + lam * eye(n, X)),
    ),
    "Woodbury": _statement(
        "Woodbury",
        {
            "A": iv.matrix("n", "n", spd=True),
            "U": iv.matrix("n", "k"),
            "W": iv.matrix("k", "k", spd=True),
            "V": iv.matrix("k", "n"),
        },
        lambda A, U, W, V: inverse(A + U @ W @ V),
        lambda A, U, W, V: inverse(A) - inverse(A) @ U @ inverse(inverse(W) + V @ inverse(A) @ U) @ V @ inverse(A),
        sizes={"n": (1, 3), "k": (1, 2)},
        explicit_sizes={"n": [1], "k": [1]},
    ),
    "Sherman–Morrison": _statement(
        "Sherman–Morrison",
        {"A": iv.matrix("n", "n", spd=True), "u": iv.matrix("n", 1), "v": iv.matrix("n", 1)},
        lambda A, u, v: inverse(A + u @ v.T),
        lambda A, u, v: inverse(A) - inverse(A) @ u @ inverse(eye(1, u) + v.T @ inverse(A) @ u) @ v.T @ inverse(A),
        sizes={"n": (1, 3)},
        explicit_sizes={"n": [1]},
    ),
    "trace cyclicity": _statement(
        "trace cyclicity", SQUARES, lambda A, B, C: trace(A @ B @ C), lambda A, B, C: trace(C @ A @ B)
    ),
}


@pytest.mark.parametrize("name", TRUE_STATEMENTS)
def test_true_identities_with_inverses_and_traces_are_proved(name):
    result = TRUE_STATEMENTS[name].check(max_examples=30)
    assert result.verdict is Verdict.PROVED and result.as_expected, [e.detail for e in result.evidence]


SPD = {"A": iv.matrix("n", "n", spd=True), "B": iv.matrix("n", "n", spd=True)}  # A + B invertible
FALSE_STATEMENTS = {  # name: (symbols, lhs, rhs, the smallest n at which lhs ≠ rhs)
    "(A + B)⁻¹ = A⁻¹ + B⁻¹": (SPD, lambda A, B: inverse(A + B), lambda A, B: inverse(A) + inverse(B), 1),
    "tr(ABC) = tr(BAC)": (SQUARES, lambda A, B, C: trace(A @ B @ C), lambda A, B, C: trace(B @ A @ C), 2),
    "det(A + B) = det A + det B": (SQUARES, lambda A, B: det(A + B), lambda A, B: det(A) + det(B), 2),
}


@pytest.mark.parametrize("name", FALSE_STATEMENTS)
def test_false_identities_are_refuted_at_their_minimal_size_with_an_exact_witness(name):
    symbols, lhs, rhs, smallest = FALSE_STATEMENTS[name]
    claim = _statement(name, symbols, lhs, rhs, holds=False, no_control="a tempting misreading")
    result = claim.check(max_examples=30)
    assert result.verdict is Verdict.REFUTED and result.as_expected
    explicit = next(e for e in result.evidence if e.kind == "explicit")
    assert explicit.status == "refuted" and explicit.counterexample["sizes"] == {"n": smallest}
    assert explicit.counterexample["values"] and explicit.counterexample["tolerance"] == 0.0


def test_a_claim_no_procedure_decides_is_unproven():
    # tr((A + B)⁻¹A) + tr((A + B)⁻¹B) = n is true, but A + B has no single longest word to reduce by
    result = check(Claim("split", "s", "tr((A + B)⁻¹A) + tr((A + B)⁻¹B) = n", (Symbolic(_undecided_trace),)))
    assert result.verdict is Verdict.UNPROVEN and not result.as_expected


# ---------------------------------------------------------------------------------------------
# Derivations

n, d = sp.symbols("n d", integer=True, positive=True)
X, y, lam = MatrixSymbol("X", n, d), MatrixSymbol("y", n, 1), sp.Symbol("lam", positive=True)
RIDGE = (X.T * X + lam * Identity(d)).I * X.T * y


def test_a_wrong_matrix_step_is_named_with_its_sizes_and_witness():
    steps = [
        iv.Step(X.T * (X * X.T + lam * Identity(n)).I * y, "push-through"),
        iv.Step(X.T * (X * X.T).I * y, "drop λ (wrong)"),
        iv.Step(X.T * (X * X.T).I * y, "nothing"),
    ]
    result = iv.Derivation("ridge-dual", "t", "s", RIDGE, steps).check()
    assert [m.status for m in result.marks] == ["proved", "refuted", "proved"]
    assert result.verdict is Verdict.REFUTED
    # at n = d = 1 the step reads x y/(x² + λ) = y/x: false for every λ > 0
    assert result.refutation.startswith("refuted at step 2, d = 1, n = 1: ")
    assert "lam = " in result.refutation and "difference = " in result.refutation


def test_a_step_proof_beyond_sympy_is_recorded():
    result = iv.Derivation("push", "t", "s", RIDGE, [iv.Step(X.T * (X * X.T + lam * Identity(n)).I * y, "p")]).check()
    assert result.verdict is Verdict.PROVED
    assert "clearing denominators" in result.marks[0].witness["proof"]


def test_a_randomized_step_proof_states_its_failure_probability(monkeypatch):
    monkeypatch.setattr(identities, "CLEARING_DEPTH", 0)  # leave the square identity to the GF(p) test
    A, B = MatrixSymbol("A", n, n), MatrixSymbol("B", n, n)
    start = A * (Identity(n) + B * A).I
    result = iv.Derivation("push-square", "t", "s", start, [iv.Step((Identity(n) + A * B).I * A, "p")]).check()
    assert result.verdict is Verdict.PROVED
    assert "failure probability" in result.marks[0].witness["proof"]


def test_a_non_conforming_step_is_a_usage_error_naming_it():
    M = MatrixSymbol("M", d, d)
    with pytest.raises(InvalidArgument, match=r"step 1 \('wrong'\): X.T \(d × n\) times M \(d × d\) does not conform"):
        iv.Derivation("bad", "t", "s", X.T * X, [iv.Step(X.T * M, "wrong")])


def test_a_step_of_another_shape_is_a_usage_error():
    with pytest.raises(
        InvalidArgument, match=r"step 1 \('transpose'\) has shape n × d, the expression before it d × n"
    ):
        iv.Derivation("bad", "t", "s", X.T, [iv.Step(X, "transpose")])


# ---------------------------------------------------------------------------------------------
# Controls


def _squares():
    @st.composite
    def cases(draw):
        k = draw(dims(1, 3))
        return {"k": k, "A": draw(matrices(k, k)), "B": draw(matrices(k, k))}

    return cases()


A_, B_ = MatrixSymbol("A", n, n), MatrixSymbol("B", n, n)


def _undecided_trace():
    """tr((A + B)⁻¹A) + tr((A + B)⁻¹B) − n: zero, and undecided for every size by the procedures here."""
    return trace((A_ + B_).I * A_) + trace((A_ + B_).I * B_) - n


def test_an_undecided_dimension_free_control_is_undecided_not_failed():
    # the corrected form's symbolic counterpart is true but undecided for every size; the numeric control passes.
    claim = Claim(
        "commute",
        "s",
        "AB = BA",
        (Symbolic(lambda: A_ * B_ - B_ * A_), Numeric(_squares(), lambda c: (c["A"] @ c["B"], c["B"] @ c["A"]))),
        holds=False,
        corrected=Corrected(
            symbolic=_undecided_trace,
            numeric=lambda c: (c["A"] @ c["B"], (c["B"].T @ c["A"].T).T),
        ),
    )
    result = check(claim)
    controls = {e.detail.split(":")[0]: e.status for e in result.evidence if e.kind == "control"}
    assert controls == {"numeric": "passed", "symbolic": "undecided"}
    assert result.as_expected and result.summary == "refuted, as expected"


def test_a_control_whose_check_errored_reports_that_error():
    def broken(case):
        raise RuntimeError("the compare is broken")

    claim = Claim("c", "s", "AB = BA", (Numeric(_squares(), broken),), holds=False, corrected=Corrected(numeric=broken))
    result = check(claim)
    control = result.evidence[-1]
    assert (control.kind, control.status) == ("control", "error")
    assert "the compare is broken" in control.detail and "missing" not in control.detail


def test_a_corrected_form_on_the_wrong_side_gets_a_hint():
    # AB = BA is false; "corrected" AB = 2BA fails at the counterexample and at random points too.
    claim = Claim(
        "c",
        "s",
        "AB = BA",
        (Numeric(_squares(), lambda c: (c["A"] @ c["B"], c["B"] @ c["A"])),),
        holds=False,
        corrected=Corrected(numeric=lambda c: (c["A"] @ c["B"], 2 * c["B"] @ c["A"])),
    )
    control = check(claim).evidence[-1]
    assert control.status == "failed" and "is it on the right side?" in control.detail


def test_the_numeric_control_uses_the_tolerance_of_the_refutation():
    compare = lambda c: (c["A"] @ c["B"], c["B"] @ c["A"])  # noqa: E731
    claim = Claim(
        "c", "s", "AB = BA", (Numeric(_squares(), compare),), holds=False, corrected=Corrected(numeric=compare)
    )
    result = check(claim)
    refuted, control = result.evidence[0], result.evidence[-1]
    assert refuted.detail.split(" > ")[1].split(" ")[0] in control.detail  # the same tolerance, printed alike


def test_corrected_must_have_the_shape_of_both_sides():
    with pytest.raises(InvalidArgument, match="corrected returns shape"):
        _statement(
            "c",
            {"X": iv.matrix("n", "d")},
            lambda X: X @ X.T,
            lambda X: X.T @ X,
            holds=False,
            corrected=lambda X: X.T @ X @ X.T,
        )


def test_a_step_built_unevaluated_is_rendered_as_written_and_checked():
    A, B = MatrixSymbol("A", n, n), MatrixSymbol("B", n, n)
    written = sp.MatMul(A, B, B.I, evaluate=False)
    derivation = iv.Derivation("cancel", "t", "s", A, [iv.Step(written, "insert B B⁻¹")])
    result = derivation.check()
    assert result.verdict is Verdict.PROVED
    assert result.to_dict()["steps"][0]["expr"] == "A B B^{-1}"


def test_a_refutation_whose_only_control_is_undecided_is_not_as_expected():
    claim = Claim(
        "commute",
        "s",
        "AB = BA",
        (Symbolic(lambda: A_ * B_ - B_ * A_),),
        holds=False,
        corrected=Corrected(symbolic=_undecided_trace),
    )
    result = check(claim)
    assert result.verdict is Verdict.REFUTED and result.evidence[-1].status == "undecided"
    assert not result.as_expected and result.summary == "refuted, but the control is undecided"
