"""The command line: listing, checking built-in and user claims, JSON report, exit status."""

from __future__ import annotations

import json
import textwrap

import pytest
from click.testing import CliRunner

from icl_verify.cli.main import main

USER_FILE = textwrap.dedent(
    """
    import numpy as np
    from hypothesis import strategies as st
    from icl_verify import Claim, Numeric
    from icl_verify.maths.strategies import dims, matrices

    @st.composite
    def pairs(draw):
        k = draw(dims(1, 3))
        return {"k": k, "A": draw(matrices(k, k)), "B": draw(matrices(k, k))}

    trace_commutes = Claim(
        name="trace-of-product-commutes",
        source="linear algebra",
        statement=r"\\operatorname{tr}(AB) = \\operatorname{tr}(BA)",
        checks=(Numeric(pairs(), lambda c: (np.trace(c["A"] @ c["B"]), np.trace(c["B"] @ c["A"]))),),
    )
    """
)

FALSE_FILE = USER_FILE.replace('"trace-of-product-commutes"', '"product-commutes"').replace(
    '(np.trace(c["A"] @ c["B"]), np.trace(c["B"] @ c["A"]))', '(c["A"] @ c["B"], c["B"] @ c["A"])'
)


@pytest.fixture
def runner():
    return CliRunner()


def test_list_shows_builtin_claims(runner):
    result = runner.invoke(main, ["list", "--json"])
    assert result.exit_code == 0
    names = {row["name"] for row in json.loads(result.output)["claims"]}
    assert {"prop1-lsa-equals-gd-step", "dai-relaxed-icl-attention"} <= names


def test_check_named_claims_json(runner):
    result = runner.invoke(
        main,
        [
            "check",
            "prop1-lsa-equals-gd-step",
            "prop1-p-eta-not-eta-over-n",
            "--json",
            "--seed",
            "3",
            "--max-examples",
            "30",
        ],
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["ok"] is True and report["seed"] == 3 and report["max_examples"] == 30
    verdicts = {c["name"]: (c["verdict"], c["as_expected"]) for c in report["claims"]}
    assert verdicts == {"prop1-lsa-equals-gd-step": ("PROVED", True), "prop1-p-eta-not-eta-over-n": ("REFUTED", True)}
    refuted = next(c for c in report["claims"] if c["verdict"] == "REFUTED")
    assert refuted["counterexample"]["sizes"]["N"] == 2


def test_table_says_refuted_as_expected(runner):
    result = runner.invoke(main, ["check", "prop1-query-in-keys-w0-nonzero"])
    assert result.exit_code == 0
    assert "refuted, as expected" in result.output
    assert "counterexample" in result.output


def test_user_file_of_claims(runner, tmp_path):
    path = tmp_path / "my_claims.py"
    path.write_text(USER_FILE)
    result = runner.invoke(main, ["check", str(path), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert [(c["name"], c["verdict"]) for c in report["claims"]] == [("trace-of-product-commutes", "VERIFIED")]


def test_false_user_claim_exits_1_with_counterexample(runner, tmp_path):
    path = tmp_path / "false_claims.py"
    path.write_text(FALSE_FILE)
    result = runner.invoke(main, ["check", str(path)])
    assert result.exit_code == 1
    assert "REFUTED" in result.output and "expected verified" in result.output


@pytest.mark.parametrize(
    "args, message",
    [
        (["check", "no-such-claim"], "unknown claim"),
        (["check", "missing_file.py"], "does not exist"),
        (["check", "--max-examples", "0"], "max-examples"),
    ],
)
def test_usage_and_input_errors_exit_2_without_traceback(runner, args, message):
    result = runner.invoke(main, args)
    assert result.exit_code == 2
    assert message in result.output
    assert "Traceback" not in result.output


def test_broken_user_file_exits_2(runner, tmp_path):
    path = tmp_path / "broken.py"
    path.write_text("raise RuntimeError('oops')\n")
    result = runner.invoke(main, ["check", str(path)])
    assert result.exit_code == 2
    assert "failed to import" in result.output and "oops" in result.output


def test_file_without_claims_exits_2(runner, tmp_path):
    path = tmp_path / "empty.py"
    path.write_text("x = 1\n")
    result = runner.invoke(main, ["check", str(path)])
    assert result.exit_code == 2 and "defines no Claim" in result.output
