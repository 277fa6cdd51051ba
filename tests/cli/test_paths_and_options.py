"""Folders, files and options are checked before any work: a one-line usage error (exit 2) naming the path
or option and the reason — never a traceback, never a file written over that the command did not write —
and the commands share one vocabulary (``--jobs``, ``--family``, ``--summary``), statuses (130 after
Ctrl-C, 1 when a claim is not as expected) and file modes (the user's umask)."""

from __future__ import annotations

import contextlib
import json
import os
import re
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from icl_verify.cli import _params, scaling
from icl_verify.cli.main import main
from icl_verify.numerics.shared import sweep
from icl_verify.running import registry
from icl_verify.running.store import ENV_VAR

ROOT = os.geteuid() == 0  # root writes into read-only folders: those cases need another user
PNG = b"\x89PNG\r\n\x1a\n" + bytes(64)  # a PNG signature, not written by icl-verify


def _refused(args: list[str], *, env: dict[str, str] | None = None, names: str = "") -> str:
    """Run ``args``: exit 2, one line on stderr that contains ``names``, nothing on stdout; the line."""
    result = CliRunner().invoke(main, args, env=env)
    assert result.exit_code == 2, (args, result.output)
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr and result.stdout == "", (args, result.output)
    assert names in lines[0], (args, lines[0])
    return lines[0]


@pytest.fixture
def a_file(tmp_path: Path) -> Path:
    path = tmp_path / "notes.txt"
    path.write_text("my notes\n")
    return path


@pytest.fixture
def read_only(tmp_path: Path) -> Path:
    folder = tmp_path / "locked"
    folder.mkdir()
    folder.chmod(0o500)
    yield folder
    folder.chmod(0o700)


CHECK = ["check", "user-square-of-sum"]  # never reached: the folder is refused first


@pytest.mark.parametrize(
    "where, reason",
    [("file", "is a file, not a folder"), ("proc", "under /proc"), ("read_only", "cannot write in")],
)
@pytest.mark.parametrize("given", ["--cache-dir", f"${ENV_VAR}"])
def test_a_cache_folder_that_cannot_hold_a_cache_is_one_line_exit_2(where, reason, given, a_file, request):
    if where == "read_only" and ROOT:
        pytest.skip("root bypasses mode bits, so no folder here is read-only to it; the file and /proc cases still run")
    folder = {"file": str(a_file), "proc": "/proc/self/icl-verify-cache"}.get(where)
    folder = folder or str(request.getfixturevalue("read_only"))
    if given == "--cache-dir":
        line = _refused([*CHECK, "--cache-dir", folder], names="--cache-dir")
    else:
        line = _refused(CHECK, env={ENV_VAR: folder}, names=f"${ENV_VAR}")
    assert folder in line and reason in line
    assert a_file.read_text() == "my notes\n"


def test_an_empty_cache_folder_or_one_under_proc_through_a_link_is_refused(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # '' and /proc/self/cwd both lead here
    assert "an empty path" in _refused([*CHECK, "--cache-dir", ""], names="--cache-dir")
    line = _refused(CHECK, env={ENV_VAR: "/proc/self/cwd"}, names=f"${ENV_VAR}")
    assert "under /proc" in line
    assert list(tmp_path.iterdir()) == []  # no secret, no entry in the working folder


def test_docs_out_empty_is_refused(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mine.py").write_text("X = 1\n")
    assert "an empty path" in _refused(["docs", "mine.py", "--out", ""], names="--out")
    assert [p.name for p in tmp_path.iterdir()] == ["mine.py"]


def test_docs_refuses_a_cache_folder_that_is_a_file_too(a_file, tmp_path):
    line = _refused(["docs", "--out", str(tmp_path / "out"), "--cache-dir", str(a_file)], names="--cache-dir")
    assert "is a file" in line and not (tmp_path / "out").exists()


def test_a_fifo_as_cache_folder_is_refused_without_waiting(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    assert "is a file, not a folder" in _refused([*CHECK, "--cache-dir", str(fifo)], names=str(fifo))


def test_a_cache_folder_holding_someone_else_s_costs_json_is_refused_and_kept(tmp_path):
    folder = tmp_path / "shared"
    folder.mkdir()
    (folder / "costs.json").write_text('["not", "durations"]')
    assert "costs.json" in _refused([*CHECK, "--cache-dir", str(folder)], names=str(folder))
    assert (folder / "costs.json").read_text() == '["not", "durations"]'


def test_an_unwritable_default_cache_folder_warns_once_and_checks_without_cache(user_file, a_file, monkeypatch):
    monkeypatch.delenv(ENV_VAR)
    monkeypatch.setenv("XDG_CACHE_HOME", str(a_file / "cache"))  # under a file: nothing can be created there
    result = CliRunner().invoke(main, ["check", str(user_file)])
    assert result.exit_code == 0, result.output
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1 and "without the verdict cache" in warnings[0]
    assert "(cached)" not in result.stdout and "Traceback" not in result.stderr


def test_kinetics_plot_on_a_fifo_is_refused_without_opening_it(tmp_path):
    fifo = tmp_path / "plot.png"
    os.mkfifo(fifo)  # opening it for reading would block: the check must not
    assert "not a regular file" in _refused(["kinetics", "--plot", str(fifo)], names="--plot")


def test_scaling_out_on_a_fifo_is_refused(tmp_path):
    fifo = tmp_path / "results.jsonl"
    os.mkfifo(fifo)
    assert "not a regular file" in _refused(["scaling", "--out-file", str(fifo)], names="--out-file")


def test_scaling_figures_never_overwrite_a_file_scaling_did_not_write(tmp_path):
    figures = tmp_path / "figs"
    figures.mkdir()
    theirs = figures / "scaling-quick-ik.png"
    theirs.write_bytes(PNG)
    out = tmp_path / "r.jsonl"
    line = _refused(["scaling", "--out-file", str(out), "--figures", str(figures)], names=str(theirs))
    assert "not written by icl-verify scaling" in line
    assert theirs.read_bytes() == PNG and not out.exists()
    assert "is a file" in _refused(["scaling", "--out-file", str(out), "--figures", str(theirs)], names="--figures")


def test_a_scaling_figure_is_recognised_as_its_own(tmp_path):
    from matplotlib.figure import Figure

    fig = Figure(figsize=(1, 1))
    fig.subplots().plot([0, 1], [0, 1])
    path = tmp_path / "scaling-quick-ik.png"
    path.write_bytes(scaling._png(fig))
    assert scaling._is_our_figure(path)
    path.write_bytes(PNG)
    assert not scaling._is_our_figure(path)


@pytest.mark.parametrize(
    "args, option",
    [
        (["scaling", "--workers", str(10**30)], "--workers"),
        (["scaling", "--jobs", str(10**30)], "--jobs"),
        (["check", "--jobs", str(10**30)], "--jobs"),
        (["docs", "--jobs", "1025"], "--jobs"),
        (["kinetics", "--max-memory", f"{_params.machine_memory_gib() * 1.01:.6g}"], "--max-memory"),
        (["train", "single", "--max-memory", "1e300"], "--max-memory"),
        (["raw", "sgd", "--max-memory", f"{_params.machine_memory_gib() * 2:.6g}"], "--max-memory"),
    ],
)
def test_numeric_options_have_upper_bounds(args, option):
    _refused(args, names=option)


def test_workers_is_a_deprecated_name_of_jobs():
    assert "--workers" not in CliRunner().invoke(main, ["scaling", "--help"]).output
    line = _refused(["scaling", "--jobs", "2", "--workers", "2"], names="--workers")
    assert "--jobs" in line


def _closed_port() -> int:
    """A local TCP port nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.parametrize("command", [["scaling"], ["check", "user-square-of-sum"]])
def test_an_unreachable_dask_scheduler_is_one_line_exit_2(command):
    scheduler = f"tcp://127.0.0.1:{_closed_port()}"
    result = CliRunner().invoke(main, [*command, "--executor", "dask", "--scheduler", scheduler])
    assert result.exit_code == 2 and len(result.stderr.splitlines()) == 1, result.output
    assert "--scheduler" in result.stderr or "dask" in result.stderr  # unreachable, or the extra is missing


@contextlib.contextmanager
def _not_dask(garbage: bytes | None) -> Iterator[str]:
    """A local TCP server that is no Dask scheduler: it sends ``garbage`` to whoever connects (None: says nothing);
    its address. It stops with the block."""
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.2)
    done, kept = threading.Event(), []

    def serve() -> None:
        while not done.is_set():
            with contextlib.suppress(OSError):
                conn, _ = server.accept()
                kept.append(conn)
                if garbage is not None:
                    conn.sendall(garbage)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"tcp://127.0.0.1:{server.getsockname()[1]}"
    finally:
        done.set()
        thread.join()
        for conn in [*kept, server]:
            conn.close()


@pytest.mark.parametrize(
    "garbage, reason",
    [(b"\x7f" * 64, "does not speak Dask's protocol|no Dask scheduler answered"), (None, "no Dask scheduler answered")],
)
def test_a_scheduler_address_that_answers_tcp_but_is_not_dask_is_one_line_exit_2(
    garbage, reason, user_file, monkeypatch
):
    pytest.importorskip("distributed")
    monkeypatch.setattr(sweep, "DASK_TIMEOUT", 1.0)
    with _not_dask(garbage) as scheduler:
        started = time.monotonic()
        args = ["check", str(user_file), "--no-cache", "--executor", "dask", "--scheduler", scheduler]
        result = CliRunner().invoke(main, args)
    assert time.monotonic() - started < 30
    assert result.exit_code == 2 and result.stdout == "", result.output
    assert result.stderr.count("\n") == 1 and re.search(reason, result.stderr) and "Traceback" not in result.stderr


def test_reachable_scheduler_connects_or_refuses():
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        _params.reachable_scheduler(f"tcp://127.0.0.1:{server.getsockname()[1]}")  # accepted: no error
    with pytest.raises(Exception, match="no Dask scheduler reachable"):
        _params.reachable_scheduler(f"tcp://127.0.0.1:{_closed_port()}")
    with pytest.raises(Exception, match="expected tcp://HOST:PORT"):
        _params.reachable_scheduler("tcp://nohost")


def test_bare_commands_print_their_help_with_status_0():
    for args in ([], ["train"]):
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 0 and result.output.startswith("Usage:"), result.output
        assert "error" not in result.output and "Commands:" in result.output


def test_ctrl_c_is_one_line_and_status_130(monkeypatch):
    def interrupted():
        raise KeyboardInterrupt

    monkeypatch.setattr(registry, "builtin_claims", interrupted)
    result = CliRunner().invoke(main, ["list"], prog_name="icl-verify")
    assert result.exit_code == 130
    assert result.stderr == "icl-verify: error: interrupted\n" and result.stdout == ""


def test_scaling_exits_1_when_a_claim_of_its_report_is_not_as_expected(monkeypatch, tmp_path):
    from hypothesis import strategies as st

    from icl_verify import Claim, Numeric
    from icl_verify.experiments import scaling as experiment

    false = Claim(
        name="one-is-two",
        source="a deliberate falsehood",
        statement="1 = 2",
        checks=(Numeric(st.just({}), lambda c: (1.0, 2.0)),),
    )
    monkeypatch.setattr(experiment, "scaling_report", lambda *a, **k: ({"preset": "quick", "seed": 0}, []))
    monkeypatch.setattr(experiment, "report_claims", lambda report: [false])
    result = CliRunner().invoke(main, ["scaling", "--out-file", str(tmp_path / "r.jsonl"), "--json"])
    assert result.exit_code == 1, result.output
    assert [c["as_expected"] for c in json.loads(result.stdout)["claims"]] == [False]


def test_check_summary_is_one_line_per_family_and_family_selects(user_file):
    other = user_file.with_name("more_claims.py")
    other.write_text(user_file.read_text().replace('name="user-', 'name="more-'))
    result = CliRunner().invoke(main, ["check", str(user_file), str(other), "--summary"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert [line.split()[0] for line in lines] == ["my_claims", "more_claims"]
    assert all("2 claims" in line and "all as expected" in line for line in lines)
    chosen = CliRunner().invoke(main, ["check", str(user_file), str(other), "--family", "more_claims", "--json"])
    assert [c["name"] for c in json.loads(chosen.stdout)["claims"]] == ["more-square-of-sum", "more-wrong-square"]
    line = _refused(["check", str(user_file), "--family", "nosuch"], names="--family")
    assert "my_claims" in line


def test_docs_without_out_creates_nothing_outside_the_project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    line = _refused(["docs"], names="docs/derivations")
    assert "--out" in line and list(tmp_path.iterdir()) == []


def test_train_reports_on_stdout_and_shows_progress_only_on_a_terminal_s_stderr():
    args = ["train", "deep", "--layers", "1", "--steps", "20", "--batch", "8", "--test-tasks", "100"]
    result = CliRunner().invoke(main, args)
    assert result.stdout.startswith("trained 1-layer") and result.stderr == ""  # no step lines, no bar
    assert not any(line.startswith("step") for line in result.stdout.splitlines())


def test_the_trainer_reports_every_step_to_its_callback():
    from icl_verify.numerics.lsa.training import TrainConfig, train

    seen: list[tuple[int, float]] = []
    result = train(TrainConfig(steps=7, batch=4), 0, on_step=lambda step, loss: seen.append((step, loss)))
    assert [step for step, _ in seen] == list(range(1, 8))
    assert [loss for _, loss in seen] == [float(x) for x in result.losses]


FIGURE_FILE = """
import numpy as np
import icl_verify as iv
from hypothesis import strategies as st

SQUARE = iv.Claim(
    name="square-of-sum",
    source="algebra",
    statement="(a + b)^2 = a^2 + 2ab + b^2",
    checks=(
        iv.Numeric(
            cases=st.fixed_dictionaries({"a": st.floats(-10, 10), "b": st.floats(-10, 10)}),
            compare=lambda c: ((c["a"] + c["b"]) ** 2, c["a"] ** 2 + 2 * c["a"] * c["b"] + c["b"] ** 2),
        ),
    ),
)

FIGURES = [
    iv.Figure(
        "parabola",
        "The square, on five points.",
        data=lambda: {"t": np.linspace(-1.0, 1.0, 5), "t2": np.linspace(-1.0, 1.0, 5) ** 2},
        draw=lambda ax, d: ax.plot(d["t"], d["t2"]),
    )
]
"""


@pytest.mark.parametrize("cache", [[], ["--no-cache"]])
def test_docs_draws_the_figures_first_and_leaves_no_temporary_cache(cache, tmp_path, monkeypatch):
    import tempfile

    (tmp_path / "squares.py").write_text(FIGURE_FILE)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["docs", str(tmp_path / "squares.py"), "--out", str(out), *cache])
    assert result.exit_code == 0, result.output
    svg = (out / "figures" / "squares-parabola.svg").read_bytes()
    assert svg.lstrip().startswith(b"<?xml") or b"<svg" in svg[:400]
    assert "![parabola](figures/squares-parabola.svg)" in (out / "squares.md").read_text()
    assert list((tmp_path / "tmp").iterdir()) == []  # the --no-cache figures' folder is gone
