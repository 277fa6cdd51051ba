"""Sweeps under real signals (numerics.shared.sweep): Ctrl-C keeps every finished job and the rerun
completes; ``kill -9`` of the sweep leaves no worker alive, local or of a Dask cluster it started; a torn record is reported and repaired; an
edited record is refused. Each sweep runs in a child process (its own session, like a terminal job)
with tiny jobs that synchronise with the test through files — a job writes ``started-<i>`` (its PID)
and, if told to, waits for ``release-<i>`` — so nothing depends on how fast the machine is.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from icl_verify.numerics.shared import sweep
from tests.clusters import local_dask_cluster

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")

DEADLINE = 60.0  # seconds to wait for a child to reach a state before the test fails
STOP_WITHIN = 2 * sweep.GRACE_SECONDS + 4  # Ctrl-C to exit: the grace period, stopping the workers, slack
ORPHAN_WITHIN = 10 * sweep.WATCHDOG_SECONDS + 3  # parent killed to every worker gone


def signal_job(config: dict[str, Any]) -> dict[str, Any]:
    """Write ``started-<i>`` with this process' PID; with ``block``, wait for ``release-<i>``; return i²."""
    folder, i = Path(config["dir"]), config["i"]
    (folder / f"started-{i}").write_text(str(os.getpid()))
    while config["block"] and not (folder / f"release-{i}").exists():
        time.sleep(0.01)
    return {"i": i, "square": i * i}


SCRIPT = """
import json, sys
sys.path[:0] = {path!r}
from icl_verify.numerics.shared import sweep
from test_sweep_signals import signal_job
try:
    with sweep.local_executor({workers}) as ex:
        sweep.run_sweep(signal_job, json.loads({configs!r}), {results!r}, executor=ex)
except sweep.SweepInterrupted as exc:
    print(exc, file=sys.stderr)
    sys.exit(130)
except ValueError as exc:
    print(exc, file=sys.stderr)
    sys.exit(2)
"""


def configs(folder: Path, n: int, blocking: set[int]) -> list[dict[str, Any]]:
    return [{"i": i, "dir": str(folder), "block": i in blocking} for i in range(n)]


def start(folder: Path, jobs: list[dict[str, Any]], workers: int = 2) -> subprocess.Popen:
    """The sweep in a child process of its own session; stderr captured as text."""
    path = [str(Path(__file__).parent), *sys.path]
    code = SCRIPT.format(path=path, workers=workers, configs=json.dumps(jobs), results=str(folder / "results.jsonl"))
    return subprocess.Popen([sys.executable, "-c", code], start_new_session=True, stderr=subprocess.PIPE, text=True)


def finish(child: subprocess.Popen) -> str:
    """Wait for the child sweep and return its stderr; on a timeout kill its whole group and fail."""
    try:
        return child.communicate(timeout=DEADLINE)[1]
    except subprocess.TimeoutExpired:
        os.killpg(child.pid, signal.SIGKILL)
        child.communicate()
        pytest.fail(f"the sweep did not finish within {DEADLINE} s")


def wait_for(condition: Callable[[], bool], what: str, within: float = DEADLINE) -> None:
    deadline = time.monotonic() + within
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {within} s waiting for {what}")
        time.sleep(0.01)


def alive(pid: int) -> bool:
    """Whether ``pid`` is a running process (a zombie awaiting its reaper counts as gone)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    except OSError:  # no /proc: ask the kernel
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True
    return state not in ("Z", "X")


def parent_of(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


def records(folder: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (folder / "results.jsonl").read_text().splitlines()]


def started(folder: Path) -> dict[int, int]:
    """Job index → worker PID of every job that started."""
    return {int(p.name.split("-")[1]): int(p.read_text() or 0) for p in folder.glob("started-*")}


@pytest.fixture
def reap():
    """PIDs to kill when the test ends, so a failing test leaves no worker behind."""
    pids: set[int] = set()
    yield pids
    for pid in pids:
        if alive(pid):
            os.kill(pid, signal.SIGKILL)


def test_ctrl_c_keeps_every_finished_job_and_the_rerun_completes(tmp_path, reap):
    jobs = configs(tmp_path, 6, blocking={2, 3, 4, 5})
    child = start(tmp_path, jobs)
    results = tmp_path / "results.jsonl"
    wait_for(lambda: results.exists() and results.read_text().count("\n") == 2, "jobs 0 and 1 to be saved")
    wait_for(lambda: {2, 3} <= started(tmp_path).keys() and all(started(tmp_path).values()), "jobs 2 and 3 to start")
    workers = set(started(tmp_path).values())
    reap.update(workers)
    os.killpg(child.pid, signal.SIGINT)  # what Ctrl-C in a terminal does: the whole foreground group
    t0 = time.monotonic()
    (tmp_path / "release-2").touch()  # job 2 finishes during the grace period and must be kept
    err = finish(child)
    assert time.monotonic() - t0 < STOP_WITHIN
    assert child.returncode == 130
    assert "3 of 6 jobs finished" in err and "rerun the same command to resume" in err
    assert "Traceback" not in err
    assert sorted(r["config"]["i"] for r in records(tmp_path)) == [0, 1, 2]
    wait_for(lambda: not any(alive(pid) for pid in workers), "the workers to exit", within=ORPHAN_WITHIN)
    for i in (3, 4, 5):
        (tmp_path / f"release-{i}").touch()
    for f in tmp_path.glob("started-*"):
        f.unlink()
    rerun = start(tmp_path, jobs)
    err = finish(rerun)
    assert rerun.returncode == 0, err
    assert set(started(tmp_path)) == {3, 4, 5}  # the saved jobs are not recomputed
    assert sorted(r["result"]["square"] for r in records(tmp_path)) == [0, 1, 4, 9, 16, 25]


def test_kill_9_of_the_sweep_leaves_no_worker_alive(tmp_path, reap):
    child = start(tmp_path, configs(tmp_path, 4, blocking={0, 1, 2, 3}))
    wait_for(lambda: len(started(tmp_path)) == 2 and all(started(tmp_path).values()), "two jobs to start")
    workers = set(started(tmp_path).values())
    reap.update(workers)
    assert all(alive(pid) and parent_of(pid) == child.pid for pid in workers)  # really the sweep's workers
    os.kill(child.pid, signal.SIGKILL)  # the parent only: the workers must notice on their own
    child.wait(timeout=DEADLINE)
    wait_for(lambda: not any(alive(pid) for pid in workers), "the orphaned workers to exit", within=ORPHAN_WITHIN)


def test_a_torn_record_is_reported_and_repaired_on_resume(tmp_path):
    jobs = configs(tmp_path, 4, blocking=set())
    first = start(tmp_path, jobs[:3])
    finish(first)
    assert first.returncode == 0
    results = tmp_path / "results.jsonl"
    lines = results.read_text().splitlines(keepends=True)
    torn = json.loads(lines[2])["config"]["i"]  # records are in the order the jobs finished
    results.write_text(lines[0] + lines[1] + lines[2][:25])  # a writer killed in the middle of line 3
    for f in tmp_path.glob("started-*"):
        f.unlink()
    child = start(tmp_path, jobs)
    err = finish(child)
    assert child.returncode == 0
    assert "line 3 was a torn record" in err and "kept 2 record(s)" in err
    assert results.read_text().startswith(lines[0] + lines[1])
    assert sorted(r["config"]["i"] for r in records(tmp_path)) == [0, 1, 2, 3]
    assert set(started(tmp_path)) == {torn, 3}  # only the torn job and the new one ran


def test_an_edited_record_is_refused_and_nothing_runs(tmp_path):
    jobs = configs(tmp_path, 3, blocking=set())
    first = start(tmp_path, jobs)
    finish(first)
    assert first.returncode == 0
    results = tmp_path / "results.jsonl"
    lines = results.read_text().splitlines(keepends=True)
    record = json.loads(lines[1])
    record["result"]["square"] += 1  # an edit whichever job this line holds (0 × 10 would be no edit)
    results.write_text(lines[0] + json.dumps(record) + "\n" + lines[2])
    before = results.read_bytes()
    for f in tmp_path.glob("started-*"):
        f.unlink()
    child = start(tmp_path, jobs)
    err = finish(child)
    assert child.returncode == 2
    assert f"{results} line 2 has a checksum that does not match its content" in err
    assert results.read_bytes() == before and started(tmp_path) == {}


def test_ctrl_c_with_dask_keeps_finished_jobs_and_cancels_the_rest(tmp_path):
    pytest.importorskip("distributed")
    jobs = configs(tmp_path, 4, blocking={1, 2, 3})
    results = tmp_path / "results.jsonl"

    def ctrl_c_while_job_1_runs() -> None:
        wait_for(lambda: 1 in started(tmp_path) and results.exists() and results.read_text().count("\n") == 1, "job 1")
        os.kill(os.getpid(), signal.SIGINT)  # the sweep handles it: pytest is not interrupted
        (tmp_path / "release-1").touch()  # job 1 finishes during the grace period and must be kept

    cluster = local_dask_cluster(1, processes=False)
    interrupter = threading.Thread(target=ctrl_c_while_job_1_runs, daemon=True)
    with cluster, sweep.dask_executor(cluster.scheduler_address) as executor:
        interrupter.start()
        try:
            with pytest.raises(sweep.SweepInterrupted, match="2 of 4 jobs finished"):
                sweep.run_sweep(signal_job, jobs, results, executor=executor)
            assert sorted(r["config"]["i"] for r in records(tmp_path)) == [0, 1]
            # The cancel reaches the worker a moment after the sweep returns; until then job 3 is queued there.
            queued = next(iter(cluster.workers.values())).state.tasks
            wait_for(lambda: "ready" not in {t.state for t in tuple(queued.values())}, "job 3 to be dropped")
        finally:  # let the job still in the worker thread return before the cluster closes (it would wait ~30 s)
            for i in range(4):
                (tmp_path / f"release-{i}").touch()
    assert set(started(tmp_path)) <= {0, 1, 2}  # job 3 was cancelled before it started


DASK_SCRIPT = """
import json, sys
sys.path[:0] = {path!r}
from icl_verify.numerics.shared import sweep
from test_sweep_signals import local_dask_cluster, signal_job
if __name__ == "__main__":
    cluster = local_dask_cluster(2, processes=True)
    with sweep.dask_executor(cluster.scheduler_address) as ex:
        sweep.run_sweep(signal_job, json.loads({configs!r}), {results!r}, executor=ex)
"""


def test_kill_9_of_a_sweep_on_its_own_dask_cluster_leaves_no_worker_alive(tmp_path, reap):
    """The cluster's worker processes (children of the sweep: LocalCluster's nannies run in it) exit with it."""
    pytest.importorskip("distributed")
    jobs = configs(tmp_path, 2, blocking={0, 1})
    script = tmp_path / "sweep_on_dask.py"
    path = [str(Path(__file__).parent), *sys.path]
    script.write_text(DASK_SCRIPT.format(path=path, configs=json.dumps(jobs), results=str(tmp_path / "results.jsonl")))
    child = subprocess.Popen([sys.executable, str(script)], start_new_session=True, stderr=subprocess.DEVNULL)
    try:
        wait_for(lambda: len(started(tmp_path)) == 2 and all(started(tmp_path).values()), "two jobs to start")
    except BaseException:
        os.killpg(child.pid, signal.SIGKILL)
        raise
    workers = set(started(tmp_path).values())
    reap.update(workers)
    assert len(workers) == 2 and all(alive(pid) and parent_of(pid) == child.pid for pid in workers)  # its workers
    os.kill(child.pid, signal.SIGKILL)  # the parent only: the workers must notice on their own
    child.wait(timeout=60)
    wait_for(lambda: not any(alive(pid) for pid in workers), "the orphaned Dask workers to exit", within=ORPHAN_WITHIN)
