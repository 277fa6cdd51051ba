"""Output habits like pytest's: the report on stdout, progress and a line per claim on stderr on a terminal only,
colour on a terminal unless NO_COLOR, ``-q``/``-v``/``--no-progress``/``--color``, defaults from
``[tool.icl-verify]`` in pyproject.toml, "1 claim", ``list``'s header, ``--help`` without this machine's numbers,
and a schema and version in every ``--json``.

The terminal is a real pseudo-terminal (:func:`_in_a_terminal`): the progress bar and the streamed lines share it
as they do for a user, and every streamed line must come out whole.
"""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from icl_verify.cli.main import COMMANDS, main

CLAIMS = textwrap.dedent(
    """
    import time

    import sympy as sp

    import icl_verify as iv

    x = sp.Symbol("x")


    def slow(expr):
        def check():
            time.sleep(0.4)  # long enough for the progress bar to be drawn between two claims
            return expr
        return check


    first = iv.Claim(name="first-square", source="s", statement="x^2 = x x", checks=(iv.Symbolic(slow(x**2 - x * x)),))
    second = iv.Claim(name="second-sum", source="s", statement="x + x = 2x", checks=(iv.Symbolic(slow(x + x - 2 * x)),))
    third = iv.Claim(name="third-wrong", source="s", statement="x = 2x", checks=(iv.Symbolic(slow(x - 2 * x)),))
    # (SymPy finds x − 2x ≠ 0 but no check here searches a counterexample: UNPROVEN, not as expected)
    """
)
NAMES = ("first-square", "second-sum", "third-wrong")
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


@pytest.fixture
def claims(tmp_path: Path) -> Path:
    path = tmp_path / "claims.py"
    path.write_text(CLAIMS)
    return path


def _run(*args: str, env: dict[str, str] | None = None):
    return CliRunner(env=env).invoke(main, list(args), prog_name="icl-verify")


def _in_a_terminal(args: list[str], cwd: Path, env: dict[str, str]) -> str:
    """What a user sees running ``icl-verify ARGS`` in a terminal: stdout and stderr on one pseudo-terminal."""
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))  # 100 columns, as a window has
    command = [sys.executable, "-c", "from icl_verify.cli.main import main; main()", *args]
    proc = subprocess.Popen(command, stdin=follower, stdout=follower, stderr=follower, cwd=cwd, env=env)
    os.close(follower)
    chunks = []
    while True:
        ready, _, _ = select.select([leader], [], [], 120)
        if not ready:
            proc.kill()
            pytest.fail("no output from the command for 120 s")
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the terminal closed: the command exited
            break
        if not chunk:
            break
        chunks.append(chunk)
    proc.wait(timeout=60)
    os.close(leader)
    return b"".join(chunks).decode("utf-8", "replace")


def _terminal_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    return {**env, "COLUMNS": "100", "TERM": "xterm", **extra}


def test_in_a_terminal_the_bar_and_the_streamed_lines_never_garble_each_other(claims, tmp_path):
    shown = _in_a_terminal(["check", str(claims), "--no-cache", "--jobs", "1"], tmp_path, _terminal_env())
    assert ANSI.search(shown), "no colour on a terminal"
    plain = ANSI.sub("", shown)
    assert "checking:" in plain, "no progress bar on a terminal"
    segments = [s.strip() for s in re.split(r"[\r\n]", plain)]
    for name, verdict in zip(NAMES, ("PROVED", "PROVED", "UNPROVEN")):
        mark = " " if verdict == "PROVED" else "!"
        line = re.compile(rf"^{verdict}\s+{re.escape(mark)}?{re.escape(name)}  \(\d+\.\d s\)$")
        assert any(line.match(s) for s in segments), f"the line of {name} is garbled or missing:\n{plain!r}"
    assert "3 claims: 2 proved, 1 unproven — 1 NOT as expected" in plain


def test_no_color_is_honoured_on_a_terminal(claims, tmp_path):
    shown = _in_a_terminal(["check", str(claims), "--no-cache", "--jobs", "1"], tmp_path, _terminal_env(NO_COLOR="1"))
    assert not re.search(r"\x1b\[[0-9;]*m", shown), "colour despite NO_COLOR"
    assert "3 claims: 2 proved, 1 unproven — 1 NOT as expected" in shown


def test_piped_the_report_alone_is_on_stdout(claims):
    result = _run("check", str(claims), "--no-cache", "--jobs", "1")
    assert result.exit_code == 1
    assert not re.search(r"^(PROVED|UNPROVEN) ", result.stdout, re.MULTILINE), "streamed lines in the report"
    assert "\x1b[" not in result.stdout and result.stderr == ""
    assert result.stdout.startswith("claim ") and "1 NOT as expected" in result.stdout


def test_verbose_streams_a_line_per_claim_on_stderr_even_when_piped(claims):
    result = _run("check", str(claims), "--no-cache", "--jobs", "1", "-v")
    streamed = sorted(re.findall(r"^(?:PROVED|UNPROVEN)\s+[ !](\S+)  \(", result.stderr, re.MULTILINE))
    assert streamed == sorted(NAMES)
    assert "checking:" not in result.stderr  # no progress bar off a terminal


def test_quiet_prints_what_failed_and_the_summary(claims):
    result = _run("check", str(claims), "--no-cache", "--jobs", "1", "-q")
    assert result.exit_code == 1
    assert result.stdout == "FAILED claim third-wrong: unproven, expected proved\n" + (
        "3 claims: 2 proved, 1 unproven — 1 NOT as expected\n"
    )
    assert _run("check", str(claims), "-q", "-v").exit_code == 2


def test_color_always_and_never(claims):
    coloured = _run("check", str(claims), "--no-cache", "--jobs", "1", "-q", "--color", "always")
    assert "\x1b[31m" in coloured.stdout or "\x1b[1m\x1b[31m" in coloured.stdout  # red: not as expected
    never = _run("check", str(claims), "--no-cache", "--jobs", "1", "-q", "--color", "never")
    assert "\x1b[" not in never.stdout


def test_one_claim_is_one_claim(claims, tmp_path):
    one = tmp_path / "one.py"
    one.write_text(CLAIMS.split("second = ")[0])
    result = _run("check", str(one), "--no-cache", "--jobs", "1", "-q")
    assert result.stdout.strip() == "1 claim: 1 proved — all as expected"


def test_pyproject_sets_defaults_and_a_wrong_key_is_named(claims, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text(
        "[tool.icl-verify]\nseed = 5\n\n[tool.icl-verify.check]\nmax-examples = 7\n"
    )
    result = _run("check", str(claims), "--no-cache", "--jobs", "1", "--json")
    report = json.loads(result.stdout)
    assert (report["seed"], report["max_examples"]) == (5, 7)
    given = json.loads(_run("check", str(claims), "--no-cache", "--jobs", "1", "--json", "--seed", "2").stdout)
    assert given["seed"] == 2  # the command line wins
    (tmp_path / "pyproject.toml").write_text("[tool.icl-verify.check]\nmax-exampels = 7\n")
    wrong = _run("check", str(claims))
    assert wrong.exit_code == 2 and "'max-exampels', no option of check" in wrong.stderr
    assert len(wrong.stderr.strip().splitlines()) == 1


def test_list_has_a_header_and_a_count_and_its_json_a_schema():
    result = _run("list")
    claims, derivations = result.stdout.split("\n\n")  # a section of claims, then one of derivations
    for section, noun in ((claims.splitlines(), "claim"), (derivations.splitlines(), "derivation")):
        assert re.match(rf"^{noun}\s+family\s+source$", section[0])
        assert re.match(rf"^\d+ {noun}s$", section[-1]) and int(section[-1].split()[0]) == len(section) - 2
    listed = json.loads(_run("list", "--json").stdout)
    assert listed["schema"] == 1 and listed["icl_verify_version"]
    assert len(listed["claims"]) == len(claims.splitlines()) - 2
    assert len(listed["derivations"]) == len(derivations.splitlines()) - 2 > 0


def test_every_json_output_has_a_schema_and_a_version(claims):
    outputs = {
        "check": _run("check", str(claims), "--no-cache", "--jobs", "1", "--json").stdout,
        "list": _run("list", "--json").stdout,
        "raw": _run("raw", "ridge", "--examples", "4", "--dimension", "2", "--json").stdout,
    }
    for command, text in outputs.items():
        record = json.loads(text)
        assert isinstance(record["schema"], int) and record["icl_verify_version"], command


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_help_shows_no_number_of_this_machine_and_no_rst_markup(command):
    text = _run(command, "--help").stdout
    assert "``" not in text
    assert not re.search(r"\d\.\d{5,}", text), re.findall(r".{30}\d\.\d{5,}", text)
