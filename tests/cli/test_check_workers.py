"""``icl-verify check`` when claims exit, die or hang, when the user presses Ctrl-C, and with names and files."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time

import pytest
from click.testing import CliRunner

from icl_verify.cli.main import main

BAD_AND_GOOD = """
import os, sys, time
from icl_verify import Claim, Symbolic

def exits():
    sys.exit(0)

def underscore_exits():
    os._exit(0)

def hangs():
    time.sleep(600)

GOOD = Claim("good", "s", "s", (Symbolic(lambda: 0),))
EXITS = Claim("exits", "s", "s", (Symbolic(exits),))
UNDERSCORE = Claim("os-exit", "s", "s", (Symbolic(underscore_exits),))
HANGS = Claim("hangs", "s", "s", (Symbolic(hangs),))
"""

HANGING = """
import subprocess, sys, time
from icl_verify import Claim, Symbolic

def hangs():
    subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])  # a process of the claim's own
    time.sleep(600)

FIRST = Claim("hangs-first", "s", "s", (Symbolic(hangs),))
SECOND = Claim("hangs-second", "s", "s", (Symbolic(hangs),))
"""


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_claims_that_exit_or_hang_are_errors_and_the_status_is_1(tmp_path, jobs):
    path = tmp_path / "bad.py"
    path.write_text(BAD_AND_GOOD)
    result = CliRunner().invoke(main, ["check", str(path), "--no-cache", "--jobs", jobs, "--timeout", "1"])
    assert result.exit_code == 1, result.output
    assert isinstance(result.exception, SystemExit) and "BrokenProcessPool" not in result.output  # no crash
    # the one traceback is the claim's own, of its sys.exit (os._exit and a hang raise nothing)
    assert result.output.count("Traceback") == 1 and f'File "{path}", line 6, in exits' in result.output
    for line in (
        "the check exited with status 0 while running",  # sys.exit(0), and os._exit(0)
        "timed out after 1 s",
    ):
        assert line in result.output
    assert result.output.count("the check exited with status 0 while running") == 2
    table = result.output[result.output.index("claim ") :]  # the report after the streamed lines
    rows = [line.split()[:2] for line in table.splitlines() if line and not line.startswith((" ", "-", "claim"))]
    assert rows[:4] == [["good", "PROVED"], ["exits", "ERROR"], ["os-exit", "ERROR"], ["hangs", "ERROR"]]


def test_verdict_lines_are_streamed_before_the_report(user_file):
    result = CliRunner().invoke(main, ["check", str(user_file), "--no-cache", "-v"])  # -v: streamed though piped
    streamed = result.stderr.splitlines()
    assert sorted(line.split()[0] for line in streamed) == ["REFUTED", "VERIFIED"]
    assert result.output.index(streamed[-1]) < result.output.index("claim ")  # before the report
    assert result.stdout.startswith("claim ")  # the report alone on stdout
    as_json = CliRunner().invoke(main, ["check", str(user_file), "--no-cache", "--json", "-v"])
    assert as_json.stdout.lstrip().startswith("{")  # nothing streamed into the JSON


def test_a_name_and_a_file_check_both(user_file):
    result = CliRunner().invoke(main, ["check", "newton-residual-squares", str(user_file), "--no-cache", "--json"])
    import json

    names = [c["name"] for c in json.loads(result.output)["claims"]]
    assert names == ["newton-residual-squares", "user-square-of-sum", "user-wrong-square"]


def test_bad_timeouts_are_usage_errors(user_file):
    for bad in ("0", "-1", "soon", "1e30"):
        result = CliRunner().invoke(main, ["check", str(user_file), "--timeout", bad])
        assert result.exit_code == 2 and "--timeout" in result.output and "Traceback" not in result.output


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_ctrl_c_stops_every_worker_within_a_second_and_exits_130(tmp_path, jobs):
    path = tmp_path / "hanging.py"
    path.write_text(HANGING)
    # Started as a shell starts a command, Ctrl-C raising KeyboardInterrupt: a process inherits an ignored SIGINT
    # (a pytest-xdist worker's, at times, as a command under nohup) and Python then leaves it ignored.
    start = "import signal; signal.signal(signal.SIGINT, signal.default_int_handler); from icl_verify.cli.main import main; main()"
    command = [sys.executable, "-c", start, "check", str(path), "--no-cache", "--jobs", jobs]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True, text=True)
    groups = {os.getpgid(proc.pid)}
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None:
            groups |= {os.getpgid(proc.pid)} | set(_descendants(proc.pid))  # a job's process leads a group of its own
            # the command, per worker its template, the process of its job and the process its claim started
            if _count(groups) == 1 + 3 * int(jobs):
                break
            time.sleep(0.2)
        assert _count(groups) == 1 + 3 * int(jobs)
        os.killpg(os.getpgid(proc.pid), signal.SIGINT)  # Ctrl-C in a terminal reaches the foreground group
        sent = time.monotonic()
        out, err = proc.communicate(timeout=30)
        assert time.monotonic() - sent < 5  # one second for the workers to stop; the rest is the interpreter's exit
    finally:
        for group in groups:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(group, signal.SIGKILL)
    assert proc.returncode == 130
    assert err.strip().splitlines() == [
        "interrupted: every worker stopped; verdicts finished so far are kept in the cache"
    ]
    assert "Traceback" not in out + err
    assert _count(groups) == 0  # no worker, and nothing a claim started, survives


def _processes() -> list[tuple[int, int, int, str]]:
    """(pid, parent pid, process group, state) of every process, from /proc."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            found.append((int(entry), int(fields[1]), int(fields[2]), fields[0]))
    return found


def _descendants(pid: int) -> list[int]:
    """The processes below ``pid``."""
    found, todo = [], [pid]
    while todo:
        above = todo.pop()
        below = [p for p, parent, _, _ in _processes() if parent == above]
        found += below
        todo += below
    return found


def _count(groups: set[int]) -> int:
    """The live (not zombie) processes of ``groups``."""
    return sum(group in groups and state != "Z" for _, _, group, state in _processes())


ESCAPING = """
import subprocess, sys, time
from icl_verify import Claim, Symbolic

SLEEP = [sys.executable, "-c", "import time; time.sleep(600)"]

def hangs():
    subprocess.Popen(SLEEP)  # in the claim's process group
    subprocess.Popen(SLEEP, start_new_session=True)  # in a session of its own
    time.sleep(600)

FIRST = Claim("escapes-first", "s", "s", (Symbolic(hangs),))
SECOND = Claim("escapes-second", "s", "s", (Symbolic(hangs),))
"""


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGKILL])
def test_no_process_outlives_the_command_whatever_ends_it(tmp_path, signum):
    path = tmp_path / "escaping.py"
    path.write_text(ESCAPING)
    command = [sys.executable, "-c", "from icl_verify.cli.main import main; main()", "check", str(path)]
    # started as from a terminal, not under nohup (or a test run started so): a signal the command starts
    # ignoring stays ignored, which is what nohup asks
    default = None if signum == signal.SIGKILL else lambda: signal.signal(signum, signal.SIG_DFL)
    proc = subprocess.Popen(
        [*command, "--no-cache", "--jobs", "2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=default,
    )
    seen: set[int] = set()
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and len(_sleeping(seen)) < 4:  # two per claim, both claims started
            seen |= set(_descendants(proc.pid))
            time.sleep(0.2)
        assert len(_sleeping(seen)) == 4
        proc.send_signal(signum)
        _, err = proc.communicate(timeout=30)  # no process left holds its stdout or stderr
        time.sleep(0.5)
        assert _alive(seen) == []
    finally:
        for pid in seen | {proc.pid}:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
    if signum != signal.SIGKILL:
        assert proc.returncode == 128 + signum
        name = signal.Signals(signum).name
        assert err.strip().splitlines() == [
            f"terminated by {name}: every worker stopped; verdicts finished so far are kept in the cache"
        ]


def _alive(pids: set[int]) -> list[int]:
    """The processes of ``pids`` still running (not zombies)."""
    return [pid for pid, _, _, state in _processes() if pid in pids and state != "Z"]


def _sleeping(pids: set[int]) -> list[int]:
    """The processes of ``pids`` that a claim of ESCAPING started."""
    found = []
    for pid in pids:
        with contextlib.suppress(OSError), open(f"/proc/{pid}/cmdline", "rb") as f:
            if b"time.sleep(600)" in f.read():
                found.append(pid)
    return found


def test_two_ctrl_c_in_quick_succession_still_exit_130(tmp_path):
    path = tmp_path / "hanging.py"
    path.write_text(HANGING)
    start = "import signal; signal.signal(signal.SIGINT, signal.default_int_handler); from icl_verify.cli.main import main; main()"
    command = [sys.executable, "-c", start, "check", str(path), "--no-cache", "--jobs", "2"]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True, text=True)
    seen: set[int] = set()
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and len(_sleeping(seen)) < 2:
            seen |= set(_descendants(proc.pid))
            time.sleep(0.2)
        for _ in range(2):
            os.killpg(proc.pid, signal.SIGINT)
            time.sleep(0.2)
        _, err = proc.communicate(timeout=30)
    finally:
        for pid in seen | {proc.pid}:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and _alive(seen) == []
