"""Sweeps (numerics.shared.sweep): config hashing, resume after a kill without recomputation, a torn
record repaired and reported, edited records and foreign files refused untouched, unwritable paths
refused before any job, local processes and a Dask LocalCluster giving the inline results for identical
seeds (within the rounding of the training: two processes need not round alike). The real-signal tests (Ctrl-C, kill -9 of the parent) are in test_sweep_signals.py."""

from __future__ import annotations

import json
import warnings
from concurrent.futures import Executor, Future

import numpy as np
import pytest

from icl_verify.numerics.scaling.memorization import sweep_job
from icl_verify.numerics.shared import sweep
from tests.clusters import local_dask_cluster

SETTINGS = {"d": 8, "hidden": 16, "lr": 0.5, "batch": 16, "max_steps": 5000, "min_log_gap": 5}
CONFIGS = [{"ks": [k], "seeds": [s], "settings": SETTINGS} for k in (16, 32, 64) for s in (0, 1)]


class InlineExecutor(Executor):
    """Runs each job at submission, in this process, and remembers what was submitted."""

    def __init__(self) -> None:
        self.submitted: list[dict] = []

    def submit(self, fn, /, *args, **kwargs) -> Future:
        self.submitted.append(args[1])
        fut: Future = Future()
        try:
            fut.set_result(fn(*args, **kwargs))
        except Exception as exc:
            fut.set_exception(exc)
        return fut


def _results(records):
    return [r["result"] for r in records]


FLOAT32_STEPS_RTOL = SETTINGS["max_steps"] * float(np.finfo(np.float32).eps)
"""Two processes need not round alike (NumPy's SIMD sums and BLAS kernels may depend on memory alignment),
so runs on two executors are compared within the rounding of the training: at most one float32 rounding
(ε₃₂ ≈ 1.2e-7 relative) per SGD step, accumulated over ``max_steps`` steps (≈ 6e-4)."""


def _assert_same_runs(got, want):
    """The same runs up to rounding: every key, count, flag and config equal, every float within the bound above."""
    assert len(got) == len(want)
    for run_got, run_want in zip((r for job in got for r in job), (r for job in want for r in job)):
        exact = ("k", "seed", "settings", "converged", "diverged", "final_step")
        assert {k: run_got[k] for k in exact} == {k: run_want[k] for k in exact}
        for key in ("i_inf", "quadrature_error", "t_iwl", "epochs"):
            assert run_got[key] == pytest.approx(run_want[key], rel=FLOAT32_STEPS_RTOL), key
        for key, curve in run_want["curves"].items():
            assert run_got["curves"][key] == pytest.approx(curve, rel=FLOAT32_STEPS_RTOL, abs=1e-12), key


def test_the_cross_executor_tolerance_tells_two_seeds_apart():
    """The bound is meaningful: the runs of two seeds differ by far more than it."""
    a, b = (sweep_job({"ks": [16], "seeds": [s], "settings": SETTINGS})[0] for s in (0, 1))
    assert abs(a["i_inf"] - b["i_inf"]) > 10 * FLOAT32_STEPS_RTOL * a["i_inf"]


def test_hash_is_canonical_and_includes_the_seed():
    a = sweep.config_hash(sweep_job, {"ks": [16], "seeds": [0], "settings": SETTINGS})
    b = sweep.config_hash(sweep_job, {"settings": dict(reversed(SETTINGS.items())), "seeds": [0], "ks": [16]})
    c = sweep.config_hash(sweep_job, {"ks": [16], "seeds": [1], "settings": SETTINGS})
    assert a == b != c and len(a) == 16


def test_hash_rejects_unserialisable_configs():
    with pytest.raises(ValueError, match="config"):
        sweep.config_hash(sweep_job, {"x": float("nan")})
    with pytest.raises(ValueError, match="module-level"):
        sweep.config_hash(lambda c: c, {})


@pytest.mark.bitwise(
    "both sweeps run inline, in this process, on the same configs; kept records round-trip JSON exactly"
)
def test_resume_after_a_kill_reruns_only_unfinished_jobs(tmp_path):
    path = tmp_path / "results.jsonl"
    full = sweep.run_sweep(sweep_job, CONFIGS, path, executor=InlineExecutor())
    lines = path.read_text().splitlines(keepends=True)
    assert len(lines) == len(CONFIGS)
    # A kill while writing the 4th record: three complete lines and half of the 4th.
    path.write_text("".join(lines[:3]) + lines[3][: len(lines[3]) // 2])
    again = InlineExecutor()
    with pytest.warns(sweep.TornRecord, match=r"line 4 was a torn record.*kept 3 record"):
        resumed = sweep.run_sweep(sweep_job, CONFIGS, path, executor=again)
    finished_first = {json.loads(line)["hash"] for line in lines[:3]}
    assert {sweep.config_hash(sweep_job, c) for c in again.submitted}.isdisjoint(finished_first)
    assert len(again.submitted) == len(CONFIGS) - 3
    assert _results(resumed) == _results(full)
    assert path.read_text().startswith("".join(lines[:3]))  # the kept records are byte for byte as they were
    assert len(sweep.load_results(path)) == len(CONFIGS)


def test_a_torn_record_cut_after_its_first_bytes_is_still_recognised(tmp_path):
    path = tmp_path / "results.jsonl"
    sweep.run_sweep(sweep_job, CONFIGS[:2], path, executor=InlineExecutor())
    first = path.read_text().splitlines(keepends=True)[0]
    path.write_text(first + '{"ha')
    with pytest.warns(sweep.TornRecord, match="line 2"):
        assert len(sweep.load_results(path)) == 1
    assert path.read_text() == first


def test_every_record_is_sealed_by_a_checksum_of_key_and_result(tmp_path):
    path = tmp_path / "results.jsonl"
    sweep.run_sweep(sweep_job, CONFIGS[:1], path, executor=InlineExecutor())
    record = json.loads(path.read_text())
    assert record["checksum"] == sweep.record_checksum(record)
    edited = dict(record, result=[dict(record["result"][0], i_inf=10 * record["result"][0]["i_inf"])])
    assert sweep.record_checksum(edited) != record["checksum"]


@pytest.mark.parametrize(
    ("edit", "reason"),
    [
        (lambda r: r["result"][0].update(i_inf=10 * r["result"][0]["i_inf"]), "checksum that does not match"),
        (lambda r: r["config"].update(seeds=[7]), "key that does not match"),
        (lambda r: r.pop("checksum"), "not a sweep record"),
    ],
)
def test_an_edited_record_is_rejected_naming_its_line_and_the_file_is_left_as_is(tmp_path, edit, reason):
    path = tmp_path / "results.jsonl"
    sweep.run_sweep(sweep_job, CONFIGS[:3], path, executor=InlineExecutor())
    lines = path.read_text().splitlines(keepends=True)
    record = json.loads(lines[1])
    edit(record)
    path.write_text(lines[0] + json.dumps(record) + "\n" + lines[2])
    before = path.read_bytes()
    executor = InlineExecutor()
    with pytest.raises(ValueError, match=f"results.jsonl line 2 .*{reason}"):
        sweep.run_sweep(sweep_job, CONFIGS[:3], path, executor=executor)
    assert executor.submitted == [] and path.read_bytes() == before


@pytest.mark.parametrize("text", ["my notes\n", "my notes", "\n", '{"a": 1}\n', "\x00\xff binary"])
def test_a_file_that_is_not_a_results_file_is_refused_untouched(tmp_path, text):
    path = tmp_path / "notes.txt"
    path.write_bytes(text.encode("latin-1"))
    executor = InlineExecutor()
    with pytest.raises(ValueError, match=r"notes\.txt line 1 .*left as is"):
        sweep.run_sweep(sweep_job, CONFIGS[:1], path, executor=executor)
    assert executor.submitted == [] and path.read_bytes() == text.encode("latin-1")


def test_unwritable_paths_are_refused_before_any_job(tmp_path):
    (tmp_path / "afile").write_text("x")
    executor = InlineExecutor()
    for bad, reason in (
        (tmp_path / "afile" / "x.jsonl", "afile is not a directory"),
        (tmp_path, "Is a directory"),
        ("/proc/nope/x.jsonl", "cannot write results file /proc/nope/x.jsonl"),
    ):
        with pytest.raises(ValueError, match=reason):
            sweep.run_sweep(sweep_job, CONFIGS[:1], bad, executor=executor)
    assert executor.submitted == []
    assert (tmp_path / "afile").read_text() == "x"


def test_a_complete_sweep_is_not_rerun(tmp_path):
    path = tmp_path / "results.jsonl"
    sweep.run_sweep(sweep_job, CONFIGS[:2], path, executor=InlineExecutor())
    again = InlineExecutor()
    sweep.run_sweep(sweep_job, CONFIGS[:2], path, executor=again)
    assert again.submitted == []


def test_failed_jobs_do_not_lose_finished_ones(tmp_path):
    path = tmp_path / "results.jsonl"
    bad = {"ks": [15], "seeds": [0], "settings": SETTINGS}  # odd K: ValueError in the job
    with pytest.raises(RuntimeError, match="1 job"):
        sweep.run_sweep(sweep_job, [CONFIGS[0], bad], path, executor=InlineExecutor())
    assert list(sweep.load_results(path)) == [sweep.config_hash(sweep_job, CONFIGS[0])]


def test_local_processes_give_the_inline_results(tmp_path):
    inline = sweep.run_sweep(sweep_job, CONFIGS[:4], tmp_path / "a.jsonl", executor=InlineExecutor())
    local = sweep.run_sweep(sweep_job, CONFIGS[:4], tmp_path / "b.jsonl")
    _assert_same_runs(_results(local), _results(inline))


def test_dask_local_cluster_gives_the_inline_results_for_identical_seeds(tmp_path):
    pytest.importorskip("distributed")
    inline = sweep.run_sweep(sweep_job, CONFIGS, tmp_path / "a.jsonl", executor=InlineExecutor())
    cluster = local_dask_cluster(2, processes=False)
    with cluster, sweep.dask_executor(cluster.scheduler_address) as executor:
        on_dask = sweep.run_sweep(sweep_job, CONFIGS, tmp_path / "b.jsonl", executor=executor)
    _assert_same_runs(_results(on_dask), _results(inline))


def test_a_killed_sweep_process_resumes_without_redoing_finished_jobs(tmp_path):
    # A real kill: the sweep runs in a child process group (one worker process) and is sent
    # SIGKILL once two records are on disk; the rerun must submit only the unfinished jobs.
    import os
    import signal
    import subprocess
    import sys
    import time

    settings = dict(SETTINGS, d=16, hidden=32, batch=32, max_steps=20_000)
    configs = [{"ks": [1024], "seeds": [s], "settings": settings} for s in range(6)]  # ≈ 0.3 s each
    path = tmp_path / "results.jsonl"
    code = (
        "import json, sys\n"
        f"sys.path[:0] = {sys.path!r}\n"
        "from icl_verify.numerics.shared import sweep\n"
        "from icl_verify.numerics.scaling.memorization import sweep_job\n"
        "with sweep.local_executor(1) as ex:\n"
        f"    sweep.run_sweep(sweep_job, json.loads({json.dumps(json.dumps(configs))}), {str(path)!r}, executor=ex)\n"
    )
    child = subprocess.Popen([sys.executable, "-c", code], start_new_session=True)
    deadline = time.monotonic() + 120
    while not (path.exists() and path.read_text().count("\n") >= 2) and time.monotonic() < deadline:
        time.sleep(0.02)
    os.killpg(child.pid, signal.SIGKILL)
    child.wait()
    with warnings.catch_warnings():  # the kill may tear the record being written
        warnings.simplefilter("ignore", sweep.TornRecord)
        before = sweep.load_results(path)
    assert 2 <= len(before) < len(configs), "the kill must land mid-sweep"
    kept = path.read_text()
    again = InlineExecutor()
    records = sweep.run_sweep(sweep_job, configs, path, executor=again)
    assert {sweep.config_hash(sweep_job, c) for c in again.submitted}.isdisjoint(before)
    assert len(again.submitted) == len(configs) - len(before)
    assert path.read_text().startswith(kept)  # finished records kept as they were
    assert [r["config"] for r in records] == configs and all(r["result"][0]["converged"] for r in records)


@pytest.mark.parametrize(
    ("out", "message"),
    [
        ("notes.txt", "--out-file: notes.txt line 1 is not JSON"),
        ("afile/x.jsonl", "--out-file: cannot write results file afile/x.jsonl: afile is not a directory"),
        ("/proc/nope/x.jsonl", "--out-file: cannot write results file /proc/nope/x.jsonl: No such file or directory"),
    ],
)
def test_scaling_refuses_an_out_path_it_must_not_or_cannot_write_before_any_job(tmp_path, monkeypatch, out, message):
    from click.testing import CliRunner

    from icl_verify.cli.main import main

    monkeypatch.chdir(tmp_path)
    (tmp_path / "notes.txt").write_text("my notes\n")
    (tmp_path / "afile").write_text("not a directory\n")
    monkeypatch.setattr(sweep, "run_sweep", lambda *a, **k: pytest.fail("a job was started"))
    result = CliRunner().invoke(main, ["scaling", "--out-file", out])
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and f"scaling: error: {message}" in lines[0]
    assert (tmp_path / "notes.txt").read_text() == "my notes\n"
    assert (tmp_path / "afile").read_text() == "not a directory\n"


def test_scaling_usage_errors_create_no_results_file(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from icl_verify.cli.main import main

    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["scaling", "--scheduler", "tcp://127.0.0.1:1"])
    assert result.exit_code == 2 and "--scheduler is only used with --executor dask" in result.output
    assert list(tmp_path.iterdir()) == []
