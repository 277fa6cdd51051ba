"""What a statement expects: a true statement VERIFIED is no failure unless a proof is asked for.

``iv.statement(..., expect="proved")`` and ``icl-verify check --require-proof`` ask for a proof for
every size; built-in claims declare what they expect, so a lost proof still fails CI.
"""

from __future__ import annotations

import pytest
from click.testing import CliRunner

import icl_verify as iv
from icl_verify.blocks import inverse, trace
from icl_verify.cli.main import main
from icl_verify.running import registry

SPD = {"A": iv.matrix("n", "n", spd=True), "B": iv.matrix("n", "n", spd=True)}


def _split(**kw):
    """tr((A + B)⁻¹A) + tr((A + B)⁻¹B) = n: true, and no procedure proves it for every size (it stays VERIFIED)."""
    return iv.statement(
        "split-trace", "t", "s", symbols=SPD,
        lhs=lambda A, B: trace(inverse(A + B) @ A) + trace(inverse(A + B) @ B), rhs=lambda n: n, **kw,
    )  # fmt: skip


def _proved(**kw):
    return iv.statement(
        "transpose", "t", "s", symbols=SPD, lhs=lambda A, B: (A @ B).T, rhs=lambda A, B: B.T @ A.T, **kw
    )


def test_a_true_statement_verified_is_as_expected_and_says_no_proof_was_found():
    result = iv.check(_split(), max_examples=20)
    assert result.verdict is iv.Verdict.VERIFIED and result.as_expected
    assert result.summary == "verified — no proof found for every size"


def test_a_statement_that_asks_for_a_proof_is_not_as_expected_when_only_verified():
    result = iv.check(_split(expect="proved"), max_examples=20)
    assert result.verdict is iv.Verdict.VERIFIED and not result.as_expected
    assert result.summary == "verified, expected proved"


@pytest.mark.parametrize("expect", [None, "verified", "proved"])
def test_a_proved_statement_is_as_expected_whatever_it_asked_for(expect):
    result = iv.check(_proved(expect=expect), max_examples=10)
    assert result.verdict is iv.Verdict.PROVED and result.as_expected and result.summary == "proved"


def test_a_false_statement_declared_true_still_fails():
    claim = iv.statement("wrong", "t", "s", symbols=SPD, lhs=lambda A, B: (A @ B).T, rhs=lambda A, B: A.T @ B.T)
    result = iv.check(claim, max_examples=10)
    assert result.verdict is iv.Verdict.REFUTED and not result.as_expected


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({"expect": "yes"}, "expect must be 'proved' or 'verified'"),
        ({"expect": "proved", "symbolic": False}, "needs a check that proves for every size"),
        ({"expect": "proved", "holds": False, "no_control": "x"}, "holds=False expects REFUTED"),
    ],
)
def test_bad_expectations_are_refused(kw, message):
    with pytest.raises(iv.InvalidArgument, match=message):
        _proved(**kw)


def test_built_in_statements_with_a_proof_declare_that_they_expect_it():
    claims = {c.name: c for fam in registry.families() for c in fam.claims}
    for name in ("prop1-lsa-equals-gd-step", "k-layers-equal-k-gd-steps", "preconditioned-gd-change-of-variables"):
        assert claims[name].expected is iv.Verdict.PROVED
    lenient = [n for n, c in claims.items() if c.expected is iv.Verdict.VERIFIED and any(k.proves for k in c.checks)]
    assert lenient == []


def test_require_proof_on_the_command_line(tmp_path):
    path = tmp_path / "mine.py"
    path.write_text(
        "import icl_verify as iv\nfrom icl_verify.blocks import inverse, trace\n"
        "SPD = {'A': iv.matrix('n', 'n', spd=True), 'B': iv.matrix('n', 'n', spd=True)}\n"
        "split = iv.statement('split-trace', 't', 's', symbols=SPD,\n"
        "    lhs=lambda A, B: trace(inverse(A + B) @ A) + trace(inverse(A + B) @ B), rhs=lambda n: n)\n"
    )
    plain = CliRunner().invoke(main, ["check", str(path), "--no-cache", "--max-examples", "20"])
    assert plain.exit_code == 0, plain.output
    assert "verified — no proof found for every size" in plain.output and "all as expected" in plain.output
    strict = CliRunner().invoke(main, ["check", str(path), "--no-cache", "--max-examples", "20", "--require-proof"])
    assert strict.exit_code == 1 and "not proved for every size: split-trace" in strict.output
