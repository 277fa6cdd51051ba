"""A crashing claim shows where it was made and its traceback (the last frames, in the user's code) in every
output: the Python result, the text report, the JSON report, the pytest plugin's failure text and the command
line (issue 42)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

import icl_verify as iv
from icl_verify.cli.main import main
from icl_verify.core import tracebacks
from icl_verify.output.report import table, to_json

USER_FILE = textwrap.dedent(
    """\
    import icl_verify as iv


    def helper(x):
        raise RuntimeError("my helper is broken")


    def side(x):
        return helper(x)


    broken = iv.statement("broken-helper", "a test", "x = x", symbols={"x": iv.scalar()}, lhs=side, rhs=lambda x: x)
    """
)
MADE_AT = 12
"""The line of USER_FILE where the claim is made."""
RAISED_AT = 5


def _helper() -> None:
    raise RuntimeError("my helper is broken")


def _side(x):
    _helper()


def _crashing_claim() -> iv.Claim:
    return iv.statement("crashing", "a test", "x = x", symbols={"x": iv.scalar()}, lhs=_side, rhs=lambda x: x)


def test_a_claim_carries_the_file_and_line_it_was_made_at():
    line = sys._getframe().f_lineno + 1
    claim = iv.statement("made-here", "a test", "x = x", symbols={"x": iv.scalar()}, lhs=lambda x: x, rhs=lambda x: x)
    assert claim.defined_at == f"{__file__}:{line}"  # the user's line, not the statement's engine
    assert iv.Claim("c", "s", "t", claim.checks).defined_at == f"{__file__}:{line + 2}"


def test_a_built_in_claim_carries_its_family_module_line():
    from icl_verify.running import registry

    for claim in registry.builtin_claims()[:5]:
        path, line = claim.defined_at.rsplit(":", 1)
        assert "/families/" in path and int(line) > 0
        assert f'"{claim.name}"' in Path(path).read_text().splitlines()[int(line) - 1 : int(line) + 3].__str__()


def test_the_result_of_a_crash_has_the_users_frames_only():
    result = iv.check(_crashing_claim(), max_examples=5)
    assert result.verdict is iv.Verdict.ERROR
    trace = result.traceback
    assert trace is not None and trace.startswith("Traceback (most recent call last):")
    assert trace.endswith("RuntimeError: my helper is broken")
    assert trace.count("Traceback") == 1  # the same crash in three checks is shown once
    frames = [line for line in trace.splitlines() if line.startswith("  File ")]
    assert frames == [
        f'  File "{__file__}", line {_side.__code__.co_firstlineno + 1}, in _side',
        f'  File "{__file__}", line {_helper.__code__.co_firstlineno + 1}, in _helper',
    ]  # neither the engine's frames (core, maths) nor Hypothesis' nor SymPy's
    assert all(e.traceback == trace for e in result.evidence)


def test_no_traceback_without_a_crash():
    claim = iv.statement("fine", "a test", "x = x", symbols={"x": iv.scalar()}, lhs=lambda x: x, rhs=lambda x: x)
    result = iv.check(claim, max_examples=5)
    assert result.traceback is None and "defined at" not in table([result]) and "Traceback" not in table([result])
    assert [e["traceback"] for e in result.to_dict()["evidence"]] == [None] * len(result.evidence)


def test_the_text_and_json_reports_of_an_error_show_where_and_why():
    result = iv.check(_crashing_claim(), max_examples=5)
    text = table([result])
    assert f"    claim defined at {result.claim.defined_at}\n" in text
    assert f'      File "{__file__}", line {_helper.__code__.co_firstlineno + 1}, in _helper' in text
    assert text.count("(the same traceback as above)") == 2  # symbolic shows it; explicit and numeric refer to it
    record = to_json([result], seed=0, max_examples=5)["claims"][0]
    assert record["defined_at"] == result.claim.defined_at
    assert [e["traceback"] for e in record["evidence"]] == [result.traceback] * 3


def test_a_frame_of_the_engine_or_a_library_is_not_the_users():
    import hypothesis
    import sympy

    import icl_verify.core.claims
    import icl_verify.families
    import icl_verify.running.runner

    assert tracebacks.is_users(__file__) and tracebacks.is_users(icl_verify.families.__file__)
    for module in (icl_verify.core.claims, icl_verify.running.runner, hypothesis, sympy, json):
        assert not tracebacks.is_users(module.__file__), module
    assert not tracebacks.is_users("<string>")


def test_a_crash_in_a_library_with_no_user_frame_keeps_the_last_frames():
    try:
        json.loads("{")
    except ValueError as exc:
        inside = exc.with_traceback(exc.__traceback__.tb_next)  # without this test's frame: json's only
    trace = tracebacks.user_traceback(inside)
    frames = [line for line in trace.splitlines() if line.startswith("  File ")]
    assert len(frames) == tracebacks.FALLBACK_FRAMES and all("json" in frame for frame in frames)
    assert trace.endswith("Expecting property name enclosed in double quotes: line 1 column 2 (char 1)")


@pytest.fixture
def user_file(tmp_path: Path) -> Path:
    path = tmp_path / "test_broken.py"
    path.write_text(USER_FILE)
    return path


def test_the_command_line_shows_the_claims_line_and_its_traceback(user_file):
    run = CliRunner().invoke(main, ["check", str(user_file), "--no-cache", "--max-examples", "5", "--jobs", "1"])
    assert run.exit_code == 1, run.output
    assert f"claim defined at {user_file}:{MADE_AT}" in run.output
    assert f'File "{user_file}", line {RAISED_AT}, in helper' in run.output
    assert "RuntimeError: my helper is broken" in run.output
    as_json = CliRunner().invoke(main, ["check", str(user_file), "--no-cache", "--max-examples", "5", "--json"])
    claim = json.loads(as_json.output)["claims"][0]
    assert claim["defined_at"] == f"{user_file}:{MADE_AT}"
    assert f'File "{user_file}", line {RAISED_AT}, in helper' in claim["evidence"][0]["traceback"]


def test_the_pytest_plugin_shows_the_claims_line_and_its_traceback(user_file):
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist", "-p", "no:randomly"]
    run = subprocess.run(
        [*command, "--icl-max-examples", "5", user_file.name],
        cwd=user_file.parent,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 1 and "1 failed" in run.stdout, run.stdout + run.stderr
    assert f"claim defined at {user_file}:{MADE_AT}" in run.stdout
    assert f'File "{user_file}", line {RAISED_AT}, in helper' in run.stdout


def test_a_notebooks_markdown_of_an_error_shows_where_and_why():
    from icl_verify.output.render import result_markdown

    result = iv.check(_crashing_claim(), max_examples=5)
    text = result_markdown(result)
    assert f"**Traceback** (claim defined at `{result.claim.defined_at}`):" in text
    assert f"```text\n{result.traceback}\n```" in text
    fine = iv.statement("fine", "a test", "x = x", symbols={"x": iv.scalar()}, lhs=lambda x: x, rhs=lambda x: x)
    assert "Traceback" not in result_markdown(iv.check(fine, max_examples=5))
