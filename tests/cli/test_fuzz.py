"""Every command validates its options before working: a one-line error naming the option,
exit status 2, no traceback, nothing written — for Hypothesis-generated bad values and a list of
malformed command lines found by hand."""

from __future__ import annotations

import json
import math
import os
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from icl_verify.cli import kinetics, raw, train
from icl_verify.cli._params import MAX_JOBS, machine_memory_gib
from icl_verify.cli.main import main
from icl_verify.numerics.kinetics.models import ReducedConfig, train_reduced
from icl_verify.numerics.lsa.training import TrainConfig
from icl_verify.numerics.raw.compiler import compile_program
from icl_verify.output import docs, files

FAST = settings(max_examples=12, deadline=None, derandomize=True)
NOT_A_NUMBER = st.sampled_from(["nan", "NaN", "inf", "-inf", "Infinity", "abc", "", "1,5", "0x"])

# (command line before the option, option, kind, low, high, low_open, high_open): the accepted range.
# The command lines are small, so a value that slips through validation fails the test quickly.
KIN = ["kinetics", "--dimension", "4", "--pairs", "8", "--context-length", "4", "--steps", "2", "--hidden", "4"]
FLOAT_OPTIONS = [
    (["raw", "theorem1"], "--alpha", 0.0, 10.0, True, False),
    (["raw", "ridge", "--examples", "1", "--dimension", "1"], "--lam", 1e-6, 1e6, False, False),
    (["raw", "theorem1"], "--scale", 1.0, 1e8, False, False),
    (KIN, "--lr", 0.0, 10.0, True, False),
    (KIN, "--w0", -1e3, 1e3, False, False),
    (KIN, "--beta0", -40.0, 40.0, False, True),
    (KIN, "--decay", 0.0, 1e3, False, False),
    (KIN, "--max-memory", 0.0, machine_memory_gib(), True, False),
    (["train", "single", "--steps", "1"], "--lr", 0.0, 10.0, True, False),
    (["train", "single", "--steps", "1"], "--x-range", 1e-3, 1e3, False, False),
    (["train", "deep", "--steps", "1"], "--init-scale", 0.0, 10.0, True, False),
]
INT_OPTIONS = [
    (["raw", "sgd"], "--dimension", 1, 100_000),
    (["raw", "sgd"], "--examples", 1, 100_000),
    (["raw", "sgd"], "--seed", 0, None),
    (KIN, "--steps", 1, 10**7),
    (KIN, "--batch", 1, 10**9),
    (KIN, "--every", 1, 10**7),
    (["train", "single"], "--steps", 1, 10**7),
    (["train", "single"], "--test-tasks", 100, 10**7),
    (["train", "deep", "--steps", "1"], "--layers", 1, 10**7),
    (["check", "dai-dual-form-linear-layer"], "--max-examples", 1, 10_000),
    (["check", "dai-dual-form-linear-layer"], "--seed", 0, None),
    (["docs"], "--max-examples", 1, 10_000),
    (["check", "dai-dual-form-linear-layer"], "--jobs", 1, MAX_JOBS),
    (["docs"], "--jobs", 1, MAX_JOBS),
    (["scaling"], "--jobs", 1, MAX_JOBS),
    (["scaling"], "--workers", 1, MAX_JOBS),
]


def outside_floats(low: float, high: float, low_open: bool, high_open: bool) -> st.SearchStrategy[str]:
    """Text of numbers outside [low, high] (or the open ends), non-finite values and non-numbers."""
    below = st.floats(max_value=low, exclude_max=not low_open, allow_nan=False, allow_infinity=False)
    above = st.floats(min_value=high, exclude_min=not high_open, allow_nan=False, allow_infinity=False)
    return st.one_of(NOT_A_NUMBER, below.map(repr), above.map(repr))


def outside_ints(low: int, high: int | None) -> st.SearchStrategy[str]:
    """Text of integers outside [low, high], non-integers and non-numbers."""
    bad = [NOT_A_NUMBER, st.integers(max_value=low - 1).map(str), st.sampled_from(["1.5", "2e3", "1e308"])]
    if high is not None:
        bad.append(st.integers(min_value=high + 1).map(str))
    return st.one_of(*bad)


def assert_refused(args: list[str], folder, *, names: str | None = None) -> str:
    """Run ``args`` in ``folder``: exit 2, one line on stderr naming ``names``, no traceback, nothing written."""
    before = sorted(os.listdir(folder))
    cwd = os.getcwd()
    os.chdir(folder)
    try:
        result = CliRunner().invoke(main, args)
    finally:
        os.chdir(cwd)
    assert result.exit_code == 2, (args, result.output)
    assert result.exception is None or isinstance(result.exception, SystemExit), (args, result.exception)
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and "Traceback" not in result.output and result.stdout == "", (args, result.output)
    if names:
        assert names in lines[0], (args, lines[0])
    assert sorted(os.listdir(folder)) == before, args
    return lines[0]


@pytest.mark.parametrize("prefix, option, low, high, low_open, high_open", FLOAT_OPTIONS)
def test_bad_real_values_are_refused_naming_the_option(prefix, option, low, high, low_open, high_open, tmp_path):
    @FAST
    @given(outside_floats(low, high, low_open, high_open))
    def refused(value: str) -> None:
        assert_refused([*prefix, option, value], tmp_path, names=option)

    refused()


@pytest.mark.parametrize("prefix, option, low, high", INT_OPTIONS)
def test_bad_whole_numbers_are_refused_naming_the_option(prefix, option, low, high, tmp_path):
    @FAST
    @given(outside_ints(low, high))
    def refused(value: str) -> None:
        assert_refused([*prefix, option, value], tmp_path, names=option)

    refused()


@FAST
@given(
    st.one_of(
        st.sampled_from(["nan", "-inf", "abc", "", "1.5", "7", "1e8"]),  # 'inf' is K → ∞, allowed
        st.integers(max_value=1).map(str),
        st.integers(min_value=10**9 + 1).map(str),
    )
)
def test_bad_k_is_refused(value):
    result = CliRunner().invoke(main, ["kinetics", "--steps", "2", "--pairs", value])
    assert result.exit_code == 2 and len(result.stderr.splitlines()) == 1 and "k must be" in result.stderr


# Malformed command lines found by hand, each with what the one-line message must name.
HAND_CASES = [
    (["kinetics", "--beta0", "100"], "--beta0"),
    (["kinetics", "--lr", "1e300"], "--lr"),
    (["kinetics", "--w0", "1e308"], "--w0"),
    (["raw", "theorem1", "--alpha", "nan"], "--alpha"),
    (["raw", "theorem1", "--alpha", "inf"], "--alpha"),
    (["raw", "theorem1", "--alpha", "-1e308"], "--alpha"),
    (["raw", "theorem1", "--scale", "nan"], "--scale"),
    (["raw", "theorem1", "--scale", "1e308"], "--scale"),
    (["raw", "theorem1", "--scale", "1e-300"], "--scale"),
    (["raw", "ridge", "--lam", "nan"], "--lam"),
    (["raw", "ridge", "--lam", "1e-300"], "--lam"),
    (["train", "single", "--x-range", "1e308"], "--x-range"),
    (["docs", "--out", "/proc/nope/docs"], "--out"),
    (["kinetics", "--plot", "/nonexistent/dir/x.png"], "--plot"),
    (["raw", "ridge", "--dimension", "3000"], "--max-memory"),
    (["train", "single", "--batch", "100000000"], "--max-memory"),
    (["train", "deep", "--layers", "1000000"], "--max-memory"),
    (["kinetics", "--pairs", "100000000"], "--max-memory"),
    (["kinetics", "--context-length", "100000000"], "--max-memory"),
    (["raw", "sgd", "--examples", "100000"], "--max-memory"),
    (["check", "--max-examples", "100000000"], "--max-examples"),
    (["raw", "theorem1", "--examples", "5"], "--examples does not apply to theorem1"),
    (["raw", "theorem2", "--alpha", "0.2"], "--alpha does not apply to theorem2"),
    (["kinetics", "--lr", "1", "--decay", "3"], "--decay"),
    (["kinetics", "--every", "5", "--json"], "--every does not apply with --json"),
]


@pytest.mark.parametrize("args, names", HAND_CASES, ids=[" ".join(a) for a, _ in HAND_CASES])
def test_malformed_command_lines_found_by_hand_get_one_line_and_exit_2(args, names, tmp_path):
    assert_refused(args, tmp_path, names=names)


def test_a_memory_refusal_states_the_estimate_and_the_limit_and_can_be_overridden(tmp_path):
    line = assert_refused(["raw", "ridge", "--dimension", "3000"], tmp_path)
    assert "PiB" in line and "limit 4 GiB" in line
    args = ["raw", "ridge", "--dimension", "6", "--examples", "2"]
    needed = raw.memory_estimate("ridge", 6, 2) / (1 << 30)
    assert "above the limit" in assert_refused([*args, "--max-memory", f"{needed / 2:.6g}"], tmp_path)
    assert CliRunner().invoke(main, [*args, "--max-memory", f"{needed * 2:.6g}"]).exit_code == 0


def test_a_value_error_from_the_numerics_is_one_line_exit_2(tmp_path):
    # --equalised needs an even N: ReducedConfig raises ValueError, which main turns into a one-line error
    line = assert_refused([*KIN[:5], "--context-length", "5", "--equalised"], tmp_path, names="n must be even")
    assert line.startswith("main kinetics: error: ")  # CliRunner names the program "main"


def test_existing_files_that_are_not_ours_are_refused_and_kept(tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n")
    assert_refused([*KIN, "--plot", str(notes)], tmp_path, names="refusing to overwrite")
    assert_refused([*KIN, "--plot", str(tmp_path)], tmp_path, names="--plot")
    assert_refused(["docs", "--out", str(notes)], tmp_path, names="--out")
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "index.md").write_text("my own index\n")
    assert_refused(["docs", "--out", str(mine)], tmp_path, names="refusing to write into it")
    assert notes.read_text() == "my notes\n" and (mine / "index.md").read_text() == "my own index\n"


@pytest.mark.parametrize(
    "args",
    [
        [*KIN, "--plot", "afile/x.png"],
        [*KIN, "--plot", "/proc/x.png"],
        [*KIN, "--plot", "missing/x.png"],
        ["docs", "--out", "afile/docs"],
        ["docs", "--out", "afile"],
        ["docs", "--out", "/proc/nope"],
    ],
    ids=lambda args: " ".join(args[-2:]),
)
def test_output_paths_that_cannot_be_written_are_refused_before_computing(args, tmp_path):
    (tmp_path / "afile").write_text("a file, not a folder\n")
    assert_refused(args, tmp_path, names=args[-2])
    assert (tmp_path / "afile").read_text() == "a file, not a folder\n"


def test_docs_write_refuses_a_foreign_file_and_writes_nothing(tmp_path):
    (tmp_path / "index.md").write_text("not generated\n")
    with pytest.raises(ValueError, match="refusing to overwrite"):
        docs.write({"a.md": b"x", "index.md": b"y"}, tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["index.md"]


def test_the_committed_documents_are_recognised_as_generated():
    folder = Path(__file__).resolve().parents[2] / docs.DEFAULT_OUT
    documents, figures = sorted(folder.glob("*.md")), sorted((folder / "figures").glob("*.svg"))
    assert folder / "index.md" in documents and figures
    assert all(docs.is_generated(p) for p in documents + figures)
    assert not docs.is_generated(Path(__file__))  # a file icl-verify docs did not write


def test_a_write_failing_midway_leaves_every_previous_file_intact(tmp_path, monkeypatch):
    old = {tmp_path / "a.md": b"old a", tmp_path / "sub" / "b.svg": b"old b"}
    files.write_files(old)
    real_fsync, calls = os.fsync, []

    def fail_on_second(fd: int) -> None:  # the second file's bytes are written, then the disk "fails"
        calls.append(fd)
        if len(calls) == 2:
            raise OSError(28, "No space left on device")
        real_fsync(fd)

    monkeypatch.setattr(files.os, "fsync", fail_on_second)
    with pytest.raises(OSError, match="No space"):
        files.write_files({path: b"new " + content * 1000 for path, content in old.items()})
    assert {p: p.read_bytes() for p in old} == old
    assert sorted(p.name for p in tmp_path.rglob("*") if p.is_file()) == ["a.md", "b.svg"]  # no temporary left


PREVIOUS_PLOT = b"\x89PNG\r\n\x1a\n tEXtSoftware\x00" + kinetics.PLOT_SOFTWARE.encode() + b" previous figure"


def test_a_figure_failing_to_render_keeps_the_previous_png(tmp_path, monkeypatch):
    png = tmp_path / "kin.png"
    png.write_bytes(PREVIOUS_PLOT)
    from matplotlib.figure import Figure

    def broken(self, *args, **kwargs):
        raise RuntimeError("renderer failed")

    monkeypatch.setattr(Figure, "savefig", broken)
    result = CliRunner().invoke(main, [*KIN, "--plot", str(png)])
    assert result.exit_code == 1  # a bug: its traceback and a request to report it, not an input error (2)
    assert "Traceback" in result.stderr and "icl-verify: internal error: RuntimeError: renderer failed" in result.stderr
    assert png.read_bytes() == PREVIOUS_PLOT
    assert os.listdir(tmp_path) == ["kin.png"]


def test_a_previous_plot_is_replaced_by_a_complete_new_png_that_is_recognised_again(tmp_path):
    png = tmp_path / "kin.png"
    png.write_bytes(PREVIOUS_PLOT)
    result = CliRunner().invoke(main, [*KIN, "--plot", str(png)])
    assert result.exit_code == 0, result.output
    content = png.read_bytes()
    assert content.startswith(b"\x89PNG\r\n\x1a\n") and content.endswith(b"IEND\xaeB`\x82")  # PNG's last chunk
    assert CliRunner().invoke(main, [*KIN, "--plot", str(png)]).exit_code == 0


def test_a_png_kinetics_did_not_draw_is_refused_and_kept(tmp_path):
    theirs = tmp_path / "kin.png"
    theirs.write_bytes(b"\x89PNG\r\n\x1a\n someone's figure")
    assert_refused([*KIN, "--plot", str(theirs)], tmp_path, names="refusing to overwrite")
    assert theirs.read_bytes() == b"\x89PNG\r\n\x1a\n someone's figure"


@pytest.mark.parametrize("program", raw.PROGRAMS)
@pytest.mark.parametrize("d, n", [(1, 1), (3, 2), (2, 5)])
def test_raw_sizes_are_known_before_compiling(program, d, n):
    task = raw.build(program, d, n, 0.1, 0.5, np.random.default_rng(0))
    compiled = compile_program(task["program"])
    assert raw.compiled_size(program, d, n) == (compiled.depth, compiled.width)


def _peak_bytes(fn) -> int:
    """Peak traced allocation of ``fn()`` (NumPy reports its buffers to tracemalloc)."""
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("program, d, n", [("ridge", 6, 2), ("sgd", 4, 12), ("theorem2", 5, 1)])
def test_raw_memory_estimate_bounds_the_measured_peak(program, d, n):
    peak = _peak_bytes(lambda: raw.run(program, d, n, 0.1, 0.5, None, 0))
    assert peak <= raw.memory_estimate(program, d, n) <= 10 * peak


def test_kinetics_memory_estimate_bounds_the_measured_peak():
    config = ReducedConfig(d=16, k=2048, n=32, hidden=32, batch=256, steps=3, record_every=1)
    peak = _peak_bytes(lambda: train_reduced(config, 0))
    assert peak <= kinetics.memory_estimate(config) <= 10 * peak


@pytest.mark.slow  # trains under tracemalloc, which slows every allocation: 2–6 s each
@pytest.mark.parametrize(
    "command, layers", [(["single"], 1), (["deep", "--layers", "3", "--untied"], 3)], ids=["single", "deep"]
)
def test_train_memory_estimate_bounds_the_measured_peak(command, layers):
    args = ["train", *command, "--steps", "2", "--batch", "256", "--test-tasks", "2000", "--json"]
    peak = _peak_bytes(lambda: CliRunner().invoke(main, args, catch_exceptions=False))
    estimate = train.memory_estimate(TrainConfig(batch=256, n_layers=layers), 2000)
    assert peak <= estimate <= 10 * peak


def test_the_default_runs_are_within_the_default_memory_limit():
    limit = 4 * (1 << 30)
    assert raw.memory_estimate("ridge", 8, 4) < limit and raw.memory_estimate("sgd", 8, 4) < limit
    assert kinetics.memory_estimate(ReducedConfig(d=32, k=512, n=64, hidden=128, batch=128)) < limit
    assert train.memory_estimate(TrainConfig(batch=1024, n_layers=3), 1 << 15) < limit
    assert math.isfinite(limit)


@pytest.mark.filterwarnings("error::RuntimeWarning")
@pytest.mark.parametrize("w0, beta0", [(1e3, -40.0), (-1e3, 39.9), (1e3, 39.9)])
def test_kinetics_at_the_edges_of_its_ranges_stays_finite(w0, beta0):
    """The bounds of --lr, --w0 and --beta0 are where the simulation still computes (no overflow)."""
    args = [*KIN[:7], "--steps", "20", "--hidden", "8", "--lr", "10", "--w0", str(w0), "--beta0", str(beta0), "--json"]
    result = CliRunner().invoke(main, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    series = json.loads(result.stdout)["series"]
    assert all(math.isfinite(v) for key in ("w", "beta", "c1", "c2") for v in series[key])


def test_check_help_and_readme_say_a_claim_file_is_code_run_with_the_users_rights():
    help_text = " ".join(CliRunner().invoke(main, ["check", "--help"]).output.split())
    assert "A claim file is Python code, executed with your user's rights" in help_text
    assert "check only files you trust" in help_text
    readme = " ".join((Path(__file__).resolve().parents[2] / "README.md").read_text().split())
    assert (
        "**A claim file is Python code**: `icl-verify check` imports it, so it runs with your user's rights" in readme
    )
