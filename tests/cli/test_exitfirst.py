"""``icl-verify check -x`` (``--exitfirst``): the run stops at the first claim or derivation not as expected,
reports what ran and how many were not run, and exits 1 (issue 42); the runner cancels what is pending and
ends its workers."""

from __future__ import annotations

import json
import multiprocessing
import textwrap
import time

import sympy as sp
from click.testing import CliRunner
from hypothesis import strategies as st

import icl_verify as iv
from icl_verify.cli.main import main
from icl_verify.running import runner

CLAIMS = textwrap.dedent(
    """\
    import sympy as sp
    import icl_verify as iv

    x = sp.Symbol("x")
    wrong = iv.Claim("wrong", "s", "x = x + 1", (iv.Symbolic(lambda: x - (x + 1)),))
    right = iv.Claim("right", "s", "2x = x + x", (iv.Symbolic(lambda: 2 * x - (x + x)),))
    also_right = iv.Claim("also-right", "s", "x^2 = x x", (iv.Symbolic(lambda: x**2 - x * x),))
    squares = iv.Derivation("squares", "squares", "s", start=x**2, steps=[iv.Step(x * x, "a square")])
    """
)


def _check(tmp_path, *args):
    path = tmp_path / "claims.py"
    path.write_text(CLAIMS)
    return CliRunner().invoke(main, ["check", str(path), "--no-cache", "--jobs", "1", *args])


def test_without_x_every_claim_and_derivation_runs(tmp_path):
    run = _check(tmp_path)
    assert run.exit_code == 1 and "3 claims: 2 proved, 1 refuted — 1 NOT as expected" in run.output, run.output
    assert "1 derivation: 1 proved" in run.output and "stopped early" not in run.output


def test_x_stops_at_the_first_failure_and_says_how_many_were_not_run(tmp_path):
    run = _check(tmp_path, "-x")
    assert run.exit_code == 1, run.output
    lines = run.output.splitlines()
    assert lines[-1] == "stopped early (-x) at the first result not as expected: 2 claims and 1 derivation not run"
    assert "1 claim: 1 refuted — 1 NOT as expected" in lines
    assert not any(line.startswith(("right", "also-right", "squares")) for line in lines)  # not run, not reported
    quiet = _check(tmp_path, "--exitfirst", "-q")
    assert quiet.output.splitlines() == [
        "FAILED claim wrong: refuted, expected proved",
        "1 claim: 1 refuted — 1 NOT as expected",
        lines[-1],
    ]


def test_x_in_the_json_report_names_what_was_not_run(tmp_path):
    report = json.loads(_check(tmp_path, "-x", "--json").output)
    assert [c["name"] for c in report["claims"]] == ["wrong"] and report["ok"] is False
    assert report["not_run"] == {"claims": ["right", "also-right"], "derivations": ["squares"]}
    full = json.loads(_check(tmp_path, "--json").output)
    assert full["not_run"] == {"claims": [], "derivations": []}


def test_x_with_nothing_failing_runs_everything(tmp_path):
    path = tmp_path / "claims.py"
    path.write_text(CLAIMS.replace("x - (x + 1)", "x - x"))
    run = CliRunner().invoke(main, ["check", str(path), "--no-cache", "-x", "-q"])
    assert run.exit_code == 0 and run.output.splitlines() == [
        "3 claims: 3 proved — all as expected",
        "1 derivation: 1 proved — all as expected",
    ]


def _sleeps(case):
    time.sleep(60)
    return 0.0, 0.0


def test_the_runner_cancels_the_pending_claims_and_ends_its_workers():
    s = sp.Symbol("s")
    slow = iv.Claim("slow", "s", "0 = 0", (iv.Numeric(st.just({}), _sleeps),))
    wrong = iv.Claim("wrong", "s", "s = s + 1", (iv.Symbolic(lambda: s - (s + 1)),))
    later = iv.Claim("later", "s", "s = s", (iv.Symbolic(lambda: s - s),))
    t0 = time.monotonic()
    checked = runner.check_claims([slow, wrong, later], jobs=2, exitfirst=True, timeout=120)
    assert time.monotonic() - t0 < 30  # the slow claim (60 s) was not waited for
    assert [r.claim.name for r in checked.results] == ["wrong"] and checked.not_run == ("slow", "later")
    assert multiprocessing.active_children() == []  # every worker ended
    assert checked.depends is None  # a run stopped early is never kept whole
