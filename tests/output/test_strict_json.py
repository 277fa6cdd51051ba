"""Strict JSON from every ``--json``: no NaN/Infinity tokens, ``null`` plus a reason instead."""

from __future__ import annotations

import json
import math

import pytest
from click.testing import CliRunner

from icl_verify.cli.main import main
from icl_verify.output.strict_json import dumps, sanitise

INF_CLAIM = """
import math
from hypothesis import strategies as st
import icl_verify as iv

overflowing = iv.Claim(
    name="overflowing",
    source="a test of strict JSON",
    statement=r"e^{1000} = 0",
    holds=False,
    corrected=iv.NoControl("a test of strict JSON"),
    checks=(iv.Numeric(st.fixed_dictionaries({"x": st.just(1000.0)}), lambda c: (math.inf, 0.0)),),
)
"""


def strict_loads(text: str):
    """``json.loads`` that raises on the NaN / Infinity / -Infinity tokens instead of accepting them."""

    def refuse(token: str):
        raise ValueError(f"non-standard JSON token {token}")

    return json.loads(text, parse_constant=refuse)


def test_the_strict_parser_rejects_what_python_json_writes_by_default():
    with pytest.raises(ValueError, match="NaN"):
        strict_loads(json.dumps({"x": math.nan}))


def test_non_finite_values_become_null_with_a_reason_under_their_pointer():
    doc = {"a": math.nan, "b": [1.0, math.inf, math.nan, 2], "c": {"x/y~": [{"z": -math.inf}, "s"]}, "d": 3}
    out = strict_loads(dumps(doc))
    assert out["a"] is None and out["b"] == [1.0, None, None, 2] and out["c"]["x/y~"] == [{"z": None}, "s"]
    assert out["d"] == 3
    assert out["null_reasons"] == {
        "/a": "was NaN (undefined)",
        "/b": "2 of 4 entries (the first at index 1) were +infinity or NaN (undefined)",
        "/c/x~1y~0/0/z": "was −infinity",  # RFC 6901: "/" → "~1", "~" → "~0"
    }


def test_finite_documents_are_unchanged_and_have_no_reasons():
    doc = {"a": 1.5, "b": [1, 2.0], "c": None, "d": "nan"}
    assert sanitise(doc) == doc and strict_loads(dumps(doc)) == doc


def test_a_document_that_already_has_null_reasons_is_refused():
    with pytest.raises(ValueError, match="null_reasons"):
        sanitise({"null_reasons": {}})


def _json_of(args: list[str], tmp_path) -> dict | list:
    result = CliRunner().invoke(main, args, catch_exceptions=False)
    assert result.exit_code in (0, 1), result.output
    return strict_loads(result.stdout)


def test_check_json_is_strict_when_a_comparison_overflows(tmp_path):
    path = tmp_path / "overflowing.py"
    path.write_text(INF_CLAIM)
    report = _json_of(["check", str(path), "--json", "--max-examples", "5"], tmp_path)
    # an infinite side is a broken check (ERROR), reported in words: no Infinity token anywhere
    (claim,) = report["claims"]
    assert claim["verdict"] == "ERROR" and claim["counterexample"] is None
    assert [e["status"] for e in claim["evidence"] if e["kind"] == "numeric"] == ["error"]


def test_kinetics_json_is_strict_and_says_why_values_are_null(tmp_path):
    args = [
        "kinetics",
        "--dimension",
        "4",
        "--pairs",
        "8",
        "--context-length",
        "4",
        "--steps",
        "4",
        "--hidden",
        "4",
        "--json",
    ]
    data = _json_of(args, tmp_path)
    # 4 steps at lr 0.5 are far too few for ICL accuracy 0.95: the simulated t_ICL is undefined
    assert data["t_icl_sim"] is None and data["null_reasons"]["/t_icl_sim"] == "was NaN (undefined)"


@pytest.mark.parametrize(
    "args",
    [
        ["list", "--json"],
        ["raw", "theorem1", "--dimension", "2", "--json"],
        ["train", "single", "--steps", "2", "--batch", "8", "--test-tasks", "100", "--json"],
    ],
    ids=["list", "raw", "train"],
)
def test_every_other_json_output_parses_strictly(args, tmp_path):
    assert _json_of(args, tmp_path)
