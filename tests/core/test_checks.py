"""The check abstraction: a new kind of check is a Check subclass, with no change to the engine.

The toy checks below are declared here, not in the package: a claim runs them, runs their controls
at their counterexamples and combines their evidence exactly as it does for the built-in kinds.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import pytest
import sympy as sp
from hypothesis import strategies as st

import icl_verify as iv
from icl_verify.core import verdicts
from icl_verify.core.derivation import DerivationResult, StepMark
from icl_verify.core.evidence import ControlStatus, Kind, Status, StepStatus


@dataclass(frozen=True)
class AlwaysProves(iv.Check):
    """A check that proves every claim for every size."""

    kind: ClassVar[str] = "always"
    proves: ClassVar[bool] = True

    def run(self, seed: int, max_examples: int) -> iv.Found:
        return iv.Found(iv.Evidence(self.kind, Status.PROVED, "proved by decree", 0.0))

    def control_at(self, at: Any, corrected: Callable[[], bool]) -> iv.Evidence:
        status = ControlStatus.PASSED if corrected() else ControlStatus.FAILED
        return iv.Evidence(Kind.CONTROL, status, "always: the corrected decree", 0.0)


@dataclass(frozen=True)
class Inequality(iv.Check):
    """``lhs(x) ≤ rhs(x)`` at each of ``xs``; refuted at the first ``x`` where it fails."""

    lhs: Callable[[int], float]
    rhs: Callable[[int], float]
    xs: Sequence[int]

    kind: ClassVar[str] = "inequality"
    rank: ClassVar[int] = -1  # its counterexample is shown before a numeric one

    def run(self, seed: int, max_examples: int) -> iv.Found:
        t0 = time.perf_counter()
        for x in self.xs:
            if self.lhs(x) > self.rhs(x):
                cex = {"kind": self.kind, "sizes": {}, "values": {"x": x}, "residual": self.lhs(x) - self.rhs(x)}
                evidence = iv.Evidence(self.kind, Status.REFUTED, f"fails at x = {x}", time.perf_counter() - t0, cex)
                return iv.Found(evidence, x)
        return iv.Found(iv.Evidence(self.kind, Status.VERIFIED, f"holds at {len(self.xs)} points", 0.0))

    def control_at(self, at: int, corrected: Callable[[int], float]) -> iv.Evidence:
        """The corrected right-hand side at the refuting ``x``, same comparison."""
        ok = self.lhs(at) <= corrected(at)
        status = ControlStatus.PASSED if ok else ControlStatus.FAILED
        return iv.Evidence(Kind.CONTROL, status, f"inequality: the corrected form at x = {at}", 0.0)


SQUARE_BELOW_DOUBLE = Inequality(lambda x: x * x, lambda x: 2 * x, range(4))  # fails first at x = 3


def test_a_new_kind_that_proves_makes_a_claim_proved():
    claim = iv.Claim("decree", "test", "x = x", (AlwaysProves(),))
    result = iv.check(claim)
    assert claim.expected is iv.Verdict.PROVED and result.verdict is iv.Verdict.PROVED
    assert [(e.kind, e.status) for e in result.evidence] == [("always", "proved")]
    assert result.as_expected and result.summary == "proved"


def test_a_new_kind_refutes_and_its_control_runs_at_its_counterexample():
    claim = iv.Claim(
        "square-below-double",
        "test",
        "x^2 <= 2x",
        (SQUARE_BELOW_DOUBLE,),
        holds=False,
        corrected=iv.Corrected(inequality=lambda x: x * x),  # x² ≤ x²: holds at x = 3
    )
    result = iv.check(claim)
    assert claim.expected is iv.Verdict.REFUTED
    rows = [(e.kind, e.status, e.detail) for e in result.evidence]
    assert rows == [
        ("inequality", "refuted", "fails at x = 3"),
        ("control", "passed", "inequality: the corrected form at x = 3"),
    ]
    assert result.counterexample["values"] == {"x": 3} and result.counterexample["residual"] == 3
    assert result.as_expected and result.summary == "refuted, as expected"


def test_a_hollow_refutation_by_a_new_kind_is_flagged():
    hollow = iv.Corrected(inequality=lambda x: 2 * x)  # the "corrected" form is the printed one: 9 > 6
    claim = iv.Claim("hollow", "test", "x^2 <= 2x", (SQUARE_BELOW_DOUBLE,), holds=False, corrected=hollow)
    result = iv.check(claim)
    assert result.verdict is iv.Verdict.REFUTED and result.control_failed
    assert not result.as_expected and result.summary == "refuted, but the control failed"


def test_a_proving_kind_runs_its_control_when_another_check_refutes():
    claim = iv.Claim(
        "mixed",
        "test",
        "x^2 <= 2x",
        (AlwaysProves(), SQUARE_BELOW_DOUBLE),
        holds=False,
        corrected=iv.Corrected(always=lambda: True, inequality=lambda x: x * x),
    )
    result = iv.check(claim)
    # a proof for every size beside a counterexample: the checks disagree, which is an error, never resolved silently
    assert result.verdict is iv.Verdict.ERROR
    assert [e.status for e in result.evidence if e.kind == Kind.CONSISTENCY] == ["error"]
    controls = [e.detail for e in result.evidence if e.kind == Kind.CONTROL]
    assert controls == ["inequality: the corrected form at x = 3", "always: the corrected decree"]


def test_a_crashing_new_kind_is_an_error_and_its_counterexample_rank_orders_the_report():
    broken = Inequality(lambda x: 1 / 0, lambda x: 0.0, [1])
    result = iv.check(iv.Claim("broken", "test", "st", (broken,)))
    assert [(e.kind, e.status, e.detail) for e in result.evidence] == [
        ("inequality", "error", "ZeroDivisionError: division by zero")
    ]
    assert result.verdict is iv.Verdict.ERROR and result.summary == "error, expected verified or proved"
    numeric = iv.Numeric(st.just({"k": 1}), lambda c: (1.0, 0.0))  # refutes too; its rank is 0, the toy's −1
    both = iv.Claim("both", "test", "st", (numeric, SQUARE_BELOW_DOUBLE), holds=False, corrected=iv.NoControl("test"))
    assert iv.check(both).counterexample["kind"] == "inequality"


def test_corrected_forms_must_match_the_claims_checks():
    with pytest.raises(ValueError, match="corrected has a form for numeric, but its checks are inequality"):
        iv.Claim("c", "t", "s", (SQUARE_BELOW_DOUBLE,), holds=False, corrected=iv.Corrected(numeric=lambda c: c))


# ---------------------------------------------------------------------------------------------
# The vocabulary keeps the strings of the JSON report and the verdict cache


def test_enum_values_are_the_report_strings():
    assert [k.value for k in Kind] == [
        "symbolic",
        "explicit",
        "numeric",
        "measured",
        "monte_carlo",
        "control",
        "consistency",
        "worker",
    ]
    assert [s.value for s in Status] == ["proved", "verified", "refuted", "undecided", "error"]
    assert [s.value for s in ControlStatus] == ["passed", "failed", "waived", "missing", "undecided", "error"]
    assert [s.value for s in StepStatus] == ["proved", "refuted", "unproven", "error"]
    assert [v.value for v in iv.Verdict] == ["PROVED", "VERIFIED", "REFUTED", "UNPROVEN", "ERROR"]
    evidence = iv.Evidence(Kind.NUMERIC, Status.REFUTED, "d", 0.0).to_dict()
    assert (type(evidence["kind"]), evidence["kind"], evidence["status"]) == (str, "numeric", "refuted")


# ---------------------------------------------------------------------------------------------
# One verdict module for claims and derivations


def test_a_proof_and_a_refutation_are_a_contradiction_in_a_claim_but_not_in_a_derivation():
    # two steps may be a proved one and a refuted one; two checks of one claim that say so contradict each other
    claim = iv.check(iv.Claim("c", "t", "s", (Fixed("proved"), Fixed("refuted"))))
    assert claim.verdict is iv.Verdict.ERROR and claim.evidence[-1].kind == Kind.CONSISTENCY
    marked = DerivationResult(
        iv.Derivation("d", "t", "s", X, [iv.Step(X, "a"), iv.Step(X, "b")]), (StepMark("proved"), StepMark("refuted"))
    )
    assert marked.verdict is iv.Verdict.REFUTED


@dataclass(frozen=True)
class Fixed(iv.Check):
    """A check whose run reports a given status (and proves when it is ``proved``)."""

    status: str

    kind: ClassVar[str] = "fixed"
    proves: ClassVar[bool] = True

    def run(self, seed: int, max_examples: int) -> iv.Found:
        return iv.Found(iv.Evidence(self.kind, self.status, "fixed", 0.0))

    def control_at(self, at: Any, corrected: Any) -> iv.Evidence:
        raise AssertionError("no counterexample, no control")


X = sp.Symbol("x")


@pytest.mark.parametrize("holds", [True, False])
@pytest.mark.parametrize(
    "statuses",
    [("proved",), ("refuted",), ("error",), ("proved", "proved"), ("refuted", "error")],
)
def test_a_claim_and_a_derivation_with_the_same_statuses_get_the_same_verdict_and_summary(statuses, holds):
    corrected = None if holds else iv.NoControl("a test")
    claim = iv.check(iv.Claim("c", "t", "s", tuple(Fixed(s) for s in statuses), holds=holds, corrected=corrected))
    steps = [iv.Step(X, "same") for _ in statuses]
    derivation = iv.Derivation("d", "t", "s", X, steps, holds=holds)
    marked = DerivationResult(derivation, tuple(StepMark(s) for s in statuses))
    assert claim.verdict is marked.verdict
    assert claim.summary == marked.summary
    assert claim.as_expected is marked.as_expected


@pytest.mark.parametrize(
    "statuses, claim_verdict, derivation_verdict",
    [
        (["proved", "undecided"], iv.Verdict.PROVED, iv.Verdict.UNPROVEN),  # one proof suffices for one statement
        (["proved", "unproven"], iv.Verdict.PROVED, iv.Verdict.UNPROVEN),  # every step must be proved
        (["undecided", "verified"], iv.Verdict.VERIFIED, iv.Verdict.VERIFIED),
        (["undecided"], iv.Verdict.UNPROVEN, iv.Verdict.UNPROVEN),
        (["error", "refuted", "proved"], iv.Verdict.ERROR, iv.Verdict.ERROR),
    ],
)
def test_combine_one_statement_or_a_conjunction(statuses, claim_verdict, derivation_verdict):
    assert verdicts.combine(statuses) is claim_verdict
    assert verdicts.combine(statuses, conjunction=True) is derivation_verdict


@pytest.mark.parametrize(
    "verdict, expected, holds, controls, line",
    [
        (iv.Verdict.PROVED, iv.Verdict.PROVED, True, (), "proved"),
        (iv.Verdict.VERIFIED, iv.Verdict.PROVED, True, (), "verified, expected proved"),
        (iv.Verdict.REFUTED, iv.Verdict.REFUTED, False, ("passed",), "refuted, as expected"),
        (iv.Verdict.REFUTED, iv.Verdict.REFUTED, False, ("waived",), "refuted, as expected"),
        (iv.Verdict.REFUTED, iv.Verdict.REFUTED, False, ("missing",), "refuted, as expected (no control)"),
        (iv.Verdict.REFUTED, iv.Verdict.REFUTED, False, ("passed", "failed"), "refuted, but the control failed"),
        (iv.Verdict.VERIFIED, iv.Verdict.REFUTED, False, ("missing",), "verified, expected refuted"),
        (iv.Verdict.ERROR, iv.Verdict.VERIFIED, True, (), "error, expected verified or proved"),
    ],
)
def test_summary_lines(verdict, expected, holds, controls, line):
    assert verdicts.summary(verdict, expected, holds, controls) == line
    assert verdicts.as_expected(verdict, expected, controls) is (line in ("proved",) or ", as expected" in line)


@pytest.mark.parametrize(
    "verdict, holds, failed",
    [
        (iv.Verdict.REFUTED, True, True),
        (iv.Verdict.UNPROVEN, True, True),
        (iv.Verdict.ERROR, True, True),
        (iv.Verdict.VERIFIED, True, False),
        (iv.Verdict.PROVED, True, False),
        (iv.Verdict.REFUTED, False, False),  # an expected-false claim undermines nothing
    ],
)
def test_which_claims_undermine_those_built_on_them(verdict, holds, failed):
    assert verdicts.failed(verdict, holds) is failed
