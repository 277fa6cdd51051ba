"""The verdict rules seen from the command line: a claim file that tries to fool the engine exits 1."""

from __future__ import annotations

import json
import textwrap

import pytest
from click.testing import CliRunner

from icl_verify.cli.main import main
from icl_verify.core.claims import Result
from icl_verify.core.verdicts import Verdict
from icl_verify.output import report
from icl_verify.running import registry

HEADER = """
import numpy as np
from hypothesis import strategies as st
from icl_verify import Claim, Corrected, Explicit, NoControl, Numeric
import sympy as sp
"""

FOOLING_FILES = {
    # an expected-false claim whose compare returns NaN: not "refuted, as expected"
    "nan": """
    nan_claim = Claim(
        name="nan-refuted", source="s", statement="x = x + 1",
        checks=(Numeric(st.fixed_dictionaries({"x": st.floats(0, 1)}), lambda c: (np.nan, c["x"])),),
        holds=False, corrected=NoControl("a test"),
    )
    """,
    # a crashing check beside a refuting one: the crash is not hidden
    "crash": """
    def boom(case):
        raise RuntimeError("broken compare")

    crash_claim = Claim(
        name="crash-and-refute", source="s", statement="1 = 0",
        checks=(Explicit(lambda: [sp.Integer(1)], [{}]), Numeric(st.just({}), boom)),
        holds=False, corrected=NoControl("a test"),
    )
    """,
    # a refutation whose corrected form fails the same comparison: hollow
    "hollow": """
    hollow_claim = Claim(
        name="root-squared-sign", source="s", statement="sqrt(x)^2 = -x",
        checks=(Numeric(st.just({"x": 2.0}), lambda c: (np.sqrt(c["x"]) ** 2, -c["x"]), rtol=0, atol=0),),
        holds=False, corrected=Corrected(numeric=lambda c: (np.sqrt(c["x"]) ** 2, c["x"])),
    )
    """,
}


@pytest.mark.parametrize("name", sorted(FOOLING_FILES))
def test_a_claim_file_cannot_fool_the_exit_status(name, tmp_path):
    path = tmp_path / f"{name}.py"
    path.write_text(HEADER + textwrap.dedent(FOOLING_FILES[name]))
    result = CliRunner().invoke(main, ["check", str(path), "--max-examples", "10"])
    assert result.exit_code == 1, result.output
    assert "1 NOT as expected" in result.output and isinstance(result.exception, SystemExit)  # no crash of the CLI
    # the only traceback is that of the claim's own code (the crash file's), none of the command's
    assert result.output.count("Traceback") == (name == "crash") and "icl_verify" not in result.output
    as_json = CliRunner().invoke(main, ["check", str(path), "--max-examples", "10", "--json"])
    report = json.loads(as_json.output)
    assert as_json.exit_code == 1 and report["ok"] is False and report["schema"] == 2
    (claim,) = report["claims"]
    assert claim["as_expected"] is False
    statuses = {(e["kind"], e["status"]) for e in claim["evidence"]}
    expected = {"nan": ("numeric", "error"), "crash": ("numeric", "error"), "hollow": ("control", "failed")}[name]
    assert expected in statuses


def test_a_users_claim_named_like_a_built_in_says_where_it_was_made(tmp_path, monkeypatch):
    """Checked alone, a file's claim named like a built-in one (prop2-as-printed, lsa-gd family) cannot pass for it:
    its row names the file and line that made it, a built-in's row does not."""
    path = tmp_path / "mine.py"
    path.write_text(
        HEADER
        + textwrap.dedent("""
        same_name = Claim(
            name="prop2-as-printed", source="me", statement="x = x",
            checks=(Explicit(lambda: [sp.Integer(0)], [{}]),),
        )
        """)
    )
    monkeypatch.chdir(tmp_path)
    mine = CliRunner().invoke(main, ["check", "mine.py", "--no-cache"])
    line = HEADER.count("\n") + 2  # the line of ``Claim(`` in the file
    assert mine.exit_code == 0 and f"  me (mine.py:{line})" in mine.output.splitlines()[2]
    (builtin,) = registry.select(registry.builtin_claims(), ["prop2-as-printed"])
    assert report.table([Result(builtin, Verdict.PROVED, (), 0, 100)]).splitlines()[2].endswith(f"  {builtin.source}")
