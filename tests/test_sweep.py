"""Sweeps (numerics.shared.sweep): config hashing, resume after a kill without recomputation, corrupted
lines rerun, local processes and a Dask LocalCluster giving identical results for identical seeds."""

from __future__ import annotations

import json
from concurrent.futures import Executor, Future

import pytest

from icl_verify.numerics.scaling.memorization import sweep_job
from icl_verify.numerics.shared import sweep

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


def test_resume_after_a_kill_reruns_only_unfinished_jobs(tmp_path):
    path = tmp_path / "results.jsonl"
    full = sweep.run_sweep(sweep_job, CONFIGS, path, executor=InlineExecutor())
    lines = path.read_text().splitlines(keepends=True)
    assert len(lines) == len(CONFIGS)
    # A kill while writing the 4th record: three complete lines and half of the 4th.
    path.write_text("".join(lines[:3]) + lines[3][: len(lines[3]) // 2])
    again = InlineExecutor()
    resumed = sweep.run_sweep(sweep_job, CONFIGS, path, executor=again)
    finished_first = {json.loads(line)["hash"] for line in lines[:3]}
    assert {sweep.config_hash(sweep_job, c) for c in again.submitted}.isdisjoint(finished_first)
    assert len(again.submitted) == len(CONFIGS) - 3
    assert _results(resumed) == _results(full)
    records, bad = sweep.load_results(path)
    assert bad == 0 and len(records) == len(CONFIGS)


def test_a_corrupted_line_is_detected_and_its_job_rerun(tmp_path):
    path = tmp_path / "results.jsonl"
    full = sweep.run_sweep(sweep_job, CONFIGS, path, executor=InlineExecutor())
    lines = path.read_text().splitlines(keepends=True)
    tampered = json.loads(lines[1])
    tampered["config"]["seeds"] = [7]  # hash no longer matches its config
    path.write_text(lines[0] + json.dumps(tampered) + "\n" + "{not json\n" + "".join(lines[3:]))
    records, bad = sweep.load_results(path)
    assert bad == 2 and len(records) == len(CONFIGS) - 2
    again = InlineExecutor()
    assert _results(sweep.run_sweep(sweep_job, CONFIGS, path, executor=again)) == _results(full)
    lost = {json.loads(lines[i])["hash"] for i in (1, 2)}
    assert {sweep.config_hash(sweep_job, c) for c in again.submitted} == lost and len(again.submitted) == 2


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
    records, _ = sweep.load_results(path)
    assert list(records) == [sweep.config_hash(sweep_job, CONFIGS[0])]


def test_local_processes_give_the_inline_results(tmp_path):
    inline = sweep.run_sweep(sweep_job, CONFIGS[:4], tmp_path / "a.jsonl", executor=InlineExecutor())
    local = sweep.run_sweep(sweep_job, CONFIGS[:4], tmp_path / "b.jsonl")
    assert _results(local) == _results(inline)


def test_dask_local_cluster_gives_identical_results_for_identical_seeds(tmp_path):
    distributed = pytest.importorskip("distributed")
    inline = sweep.run_sweep(sweep_job, CONFIGS, tmp_path / "a.jsonl", executor=InlineExecutor())
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None)
    with cluster, sweep.dask_executor(cluster.scheduler_address) as executor:
        on_dask = sweep.run_sweep(sweep_job, CONFIGS, tmp_path / "b.jsonl", executor=executor)
    assert _results(on_dask) == _results(inline)


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
    before, _ = sweep.load_results(path)
    assert 2 <= len(before) < len(configs), "the kill must land mid-sweep"
    kept = path.read_text()
    again = InlineExecutor()
    records = sweep.run_sweep(sweep_job, configs, path, executor=again)
    assert {sweep.config_hash(sweep_job, c) for c in again.submitted}.isdisjoint(before)
    assert len(again.submitted) == len(configs) - len(before)
    assert path.read_text().startswith(kept)  # finished records kept as they were
    assert [r["config"] for r in records] == configs and all(r["result"][0]["converged"] for r in records)


def test_records_written_before_the_rename_resume_without_recomputation(tmp_path):
    """A results file from before the package was named icl_verify: jobs hashed under the old name."""
    old = "numerics.memorization:sweep_job"
    record = {"hash": sweep.config_hash(old, CONFIGS[0]), "fn": old, "config": CONFIGS[0], "result": "earlier"}
    path = tmp_path / "old.jsonl"
    path.write_text(json.dumps(record) + "\n")
    executor = InlineExecutor()
    records = sweep.run_sweep(sweep_job, CONFIGS[:1], path, executor=executor)
    assert executor.submitted == []
    assert records[0]["result"] == "earlier" and records[0]["fn"] == sweep.function_name(sweep_job)
