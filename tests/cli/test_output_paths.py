"""Where the command line's output goes: a claim's prints never into ``--json``; a closed pipe ends quietly; a full
or closed stdout is one line on stderr, never a traceback or a silent exit 0."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

COMMAND = [sys.executable, "-c", "from icl_verify.cli.main import main; main(prog_name='icl-verify')"]

PRINTS = """
import os, sys
import icl_verify as iv

print("printed while imported")
os.write(1, b"written to fd 1 while imported\\n")


def residual():
    print("printed while checked")
    os.write(1, b"written to fd 1 while checked\\n")
    return 0


LOUD = iv.Claim("loud", "s", "0 = 0", (iv.Symbolic(residual),))
"""

TINY = 'import icl_verify as iv\nQUIET = iv.Claim("quiet", "s", "0 = 0", (iv.Symbolic(lambda: 0),))\n'


def _run(*args: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([*COMMAND, *args], capture_output=True, text=True, timeout=300, **kwargs)


def test_a_claims_prints_go_to_stderr_and_json_stays_json(tmp_path):
    path = tmp_path / "loud.py"
    path.write_text(PRINTS)
    done = _run("check", str(path), "--no-cache", "--json")
    assert done.returncode == 0, done.stderr
    assert [c["verdict"] for c in json.loads(done.stdout)["claims"]] == ["PROVED"]
    for line in ("printed while imported", "written to fd 1 while imported", "printed while checked"):
        assert line in done.stderr
    assert "written to fd 1 while checked" in done.stderr


@pytest.mark.parametrize("args", [["--help"], ["--version"], ["list"], ["check", "TINY"], ["check", "--help"]])
def test_a_full_stdout_is_one_line_and_status_1(tmp_path, args):
    path = tmp_path / "tiny.py"
    path.write_text(TINY)
    args = [str(path) if a == "TINY" else a for a in args] + (["--no-cache"] if "TINY" in args else [])
    with open("/dev/full", "w") as full:
        done = subprocess.run([*COMMAND, *args], stdout=full, stderr=subprocess.PIPE, text=True, timeout=300)
    assert done.returncode == 1
    assert done.stderr.splitlines() == ["icl-verify: error: cannot write the output: No space left on device"]


@pytest.mark.parametrize("args", [["list"], ["--help"], ["check", "TINY"]])
def test_a_closed_pipe_ends_quietly(tmp_path, args):
    path = tmp_path / "tiny.py"
    path.write_text(TINY)
    args = [str(path) if a == "TINY" else a for a in args] + (["--no-cache"] if "TINY" in args else [])
    proc = subprocess.Popen([*COMMAND, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    proc.stdout.close()  # as `| head -c 0` does, before anything is written
    err = proc.stderr.read()
    assert proc.wait(timeout=300) == 141  # 128 + SIGPIPE, as a tool the signal ended
    assert err == ""


def test_a_closed_stdout_is_one_line_and_status_1(tmp_path):
    path = tmp_path / "tiny.py"
    path.write_text(TINY)
    done = subprocess.run(
        ["sh", "-c", '"$@" >&-', "sh", *COMMAND, "check", str(path), "--no-cache"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 1
    assert done.stderr.splitlines() == ["icl-verify: error: cannot write the output: stdout is closed"]


@pytest.mark.parametrize("closes", ["os.close(1)", "sys.stdout.close()"])
@pytest.mark.parametrize("command", ["check", "docs"])
def test_a_file_closing_stdout_at_import_leaves_the_report_whole(tmp_path, closes, command):
    path = tmp_path / "closes.py"
    path.write_text(f"import os, sys\n{closes}\n{TINY}")
    out = ["--out", str(tmp_path / "out")] if command == "docs" else ["--json"]
    done = _run(command, str(path), "--no-cache", *out)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    if command == "check":
        assert [c["verdict"] for c in json.loads(done.stdout)["claims"]] == ["PROVED"]
    else:
        assert done.stdout == f"wrote 1 of 1 files to {tmp_path / 'out'}\n"
        assert "quiet" in (tmp_path / "out" / "closes.md").read_text()
