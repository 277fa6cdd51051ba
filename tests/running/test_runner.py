"""Parallel checking: the same report for every number of workers, longest claims first, failures as ERROR."""

from __future__ import annotations

import functools
import json
import os
import re

import pytest
from click.testing import CliRunner

from icl_verify import Claim, Estimate, Measured, Symbolic, Verdict
from icl_verify.cli.main import main
from icl_verify.output import report
from icl_verify.running import options, registry, runner, workers
from icl_verify.running.verdict_cache import VerdictCache
from tests.clusters import local_dask_cluster

# A proof, a numeric refutation with a shrunk counterexample, an exact refutation and a measured claim.
SUBSET = [
    "dai-dual-form-linear-layer",
    "dai-relaxed-form-under-softmax",
    "prop1-p-eta-not-eta-over-n",
    "kinetics-blowup-time",
]


def _without_timings(data: dict) -> dict:
    for claim in data["claims"]:
        claim.pop("seconds")
        for e in claim["evidence"]:
            e.pop("seconds")
    return data


NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:e[-+]?\d+)?")


def _assert_same_up_to_rounding(got: str, want: str, rel: float) -> None:
    """Reports from different processes: the same text, numbers within ``rel`` (two processes need not round
    alike; the verdicts, kinds, statuses and sizes in the text must still be equal)."""
    assert NUMBER.sub("#", got) == NUMBER.sub("#", want)
    assert [float(x) for x in NUMBER.findall(got)] == pytest.approx([float(x) for x in NUMBER.findall(want)], rel=rel)


TABLE_REL = 1e-2
"""The table prints 3 significant digits: a rounding difference moves the last one by at most 1 (≤ 1 %)."""
JSON_REL = 1e-9
"""The JSON has every digit; the checks' inputs are the same seeded draws, so their residuals (sums of a few
terms of small matrices) differ by a few float64 roundings (≈ 1e-16 relative) at most, far below 1e-9."""


def _subset():
    return registry.select(registry.builtin_claims(), SUBSET)


def test_one_and_two_workers_give_the_same_report():
    claims = _subset()
    serial = runner.check_claims(claims, jobs=1).results
    parallel = runner.check_claims(claims, jobs=2).results
    assert [r.claim.name for r in parallel] == SUBSET  # the order given, not the order finished
    assert [r.verdict for r in parallel] == [r.verdict for r in serial]
    assert [r.verdict for r in serial] == [c.expected for c in claims]
    _assert_same_up_to_rounding(report.table(parallel), report.table(serial), TABLE_REL)
    as_json = [_without_timings(report.to_json(rs, seed=0, max_examples=100)) for rs in (serial, parallel)]
    _assert_same_up_to_rounding(json.dumps(as_json[1]), json.dumps(as_json[0]), JSON_REL)
    assert serial[1].counterexample is not None  # the comparison covers a shrunk counterexample


def test_claims_of_a_file_are_reloaded_by_the_workers(user_file):
    path = user_file
    claims = registry.load_file(path)
    serial = runner.check_claims(claims, files=[str(path)], jobs=1).results
    parallel = runner.check_claims(claims, files=[str(path)], jobs=2).results
    assert [r.verdict for r in parallel] == [Verdict.VERIFIED, Verdict.REFUTED]
    _assert_same_up_to_rounding(report.table(parallel), report.table(serial), TABLE_REL)


def test_a_worker_that_cannot_load_its_claim_gives_an_error_that_is_not_cached(user_file, tmp_path, monkeypatch):
    # A spawned worker re-loads the claims by reference: here the file raises there, so the claims are ERROR.
    path = tmp_path / "parent_only.py"
    path.write_text(
        "import multiprocessing\n"
        "if multiprocessing.parent_process() is not None:\n"
        "    raise RuntimeError('no claims in a worker')\n" + user_file.read_text()
    )
    claims = registry.load_file(path)
    monkeypatch.setattr(workers, "START_METHOD", "spawn")
    cache = VerdictCache(tmp_path / "cache")
    checked = runner.check_claims(claims, files=[str(path)], jobs=2, cache=cache)
    assert [r.verdict for r in checked.results] == [Verdict.ERROR, Verdict.ERROR]
    assert not checked.results[0].as_expected
    evidence = checked.results[0].evidence[0]
    assert evidence.kind == "worker" and "no claims in a worker" in evidence.detail
    assert [p.name for p in (tmp_path / "cache").glob("*.json")] == []  # checked again next time


def _names(jobs: list[list[Claim]]) -> list[list[str]]:
    return [[c.name for c in job] for job in jobs]


def test_longest_claims_are_submitted_first():
    def measured(seed: int) -> Estimate:
        return Estimate(1.0, 1.0, 1.0, predicted=1.0)

    cheap = Claim("cheap", "s", "s", checks=(Symbolic(lambda: 0),))
    slow = Claim("slow", "s", "s", checks=(Measured(measured),))
    middle = Claim("middle", "s", "s", checks=(Symbolic(lambda: 0),))
    # Never timed: a measured claim is assumed to take longer than a symbolic one; ties keep their order.
    assert _names(runner.jobs_of([cheap, middle, slow], {}, {})) == [["slow"], ["cheap"], ["middle"]]
    # Recorded durations win over the static guess.
    recorded = {"cheap": 50.0, "slow": 2.0, "middle": 0.5}
    assert _names(runner.jobs_of([cheap, middle, slow], {}, recorded)) == [["cheap"], ["slow"], ["middle"]]


def test_measured_claims_of_one_family_and_file_are_one_job_in_their_order():
    def measured(seed: int) -> Estimate:
        return Estimate(1.0, 1.0, 1.0, predicted=1.0)

    def claim(name: str, family: str, kind: str) -> Claim:
        check = Measured(measured) if kind == "measured" else Symbolic(lambda: 0)
        return Claim(name, "s", "s", (check,), family=family)

    claims = [
        claim("a1", "a", "measured"),
        claim("a-sym", "a", "symbolic"),
        claim("b1", "b", "measured"),
        claim("a2", "a", "measured"),
        claim("u1", "user", "measured"),
        claim("u2", "user", "measured"),
    ]
    origin = {"u1": "one.py", "u2": "two.py"}  # two users' files: no simulation shared
    recorded = {"a1": 3.0, "a2": 1.0, "b1": 3.5, "u1": 0.1, "u2": 0.2, "a-sym": 0.01}
    assert _names(runner.jobs_of(claims, origin, recorded)) == [["a1", "a2"], ["b1"], ["u2"], ["u1"], ["a-sym"]]


SHARED_SIMULATION = """
from pathlib import Path
from icl_verify import Claim, Estimate, Measured, Symbolic
from icl_verify.core.caches import cached


@cached()
def simulation(seed):
    with (Path(__file__).parent / "runs.txt").open("a") as f:
        f.write(f"{seed}\\n")
    return 1.0


def measure(seed):
    value = simulation(seed)
    return Estimate(value, value, value, predicted=1.0, tolerance=0.1)


FIRST = Claim("shares-one", "s", "s", (Measured(measure),))
SECOND = Claim("shares-two", "s", "s", (Measured(measure),))
OTHER = Claim("other", "s", "s", (Symbolic(lambda: 0),))  # a second job: the workers start
"""


def test_claims_sharing_a_cached_simulation_run_it_once_with_two_workers(tmp_path):
    path = tmp_path / "shared.py"
    path.write_text(SHARED_SIMULATION)
    checked = runner.check_claims(registry.load_file(path), files=[str(path)], jobs=2)
    assert [r.verdict for r in checked.results] == [Verdict.VERIFIED, Verdict.VERIFIED, Verdict.PROVED]
    assert (tmp_path / "runs.txt").read_text() == "0\n"  # one worker, one simulation


def test_dask_cluster_gives_the_same_report(tmp_path):
    pytest.importorskip("distributed")
    claims = _subset()[:2]
    serial = runner.check_claims(claims, jobs=1).results
    cluster = local_dask_cluster(2, processes=False)
    with cluster:
        on_dask = runner.check_claims(claims, jobs=2, executor="dask", scheduler=cluster.scheduler_address).results
    _assert_same_up_to_rounding(report.table(on_dask), report.table(serial), TABLE_REL)


OVERLAP_CLAIMS = """
import threading, time
from icl_verify import Claim, Symbolic

INSIDE, MOST, LOCK = [0], [0], threading.Lock()


def _inside():
    with LOCK:
        INSIDE[0] += 1
        MOST[0] = max(MOST[0], INSIDE[0])
    time.sleep(0.3)  # long enough for a second thread to enter
    with LOCK:
        INSIDE[0] -= 1
    return 0


A = Claim("overlap-a", "s", "s", (Symbolic(_inside),))
B = Claim("overlap-b", "s", "s", (Symbolic(_inside),))
"""


def test_a_cluster_of_threads_checks_one_claim_at_a_time_per_process(tmp_path):
    """Two Dask workers that are threads of one process (``processes=False``): their claims must not run at once,
    since a check sets state of the whole process (Hypothesis's random generators, the BLAS thread limit)."""
    pytest.importorskip("distributed")
    path = tmp_path / "overlap.py"
    path.write_text(OVERLAP_CLAIMS)
    claims = registry.load_file(path)
    cluster = local_dask_cluster(2, processes=False)
    with cluster:
        checked = runner.check_claims(
            claims, files=[str(path)], jobs=2, executor="dask", scheduler=cluster.scheduler_address
        )
    assert [r.verdict for r in checked.results] == [Verdict.PROVED, Verdict.PROVED]
    assert registry.loaded(path).module.MOST == [1]  # the two checks ran one after the other


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"jobs": 0}, "jobs must be"),
        ({"executor": "threads"}, "executor must be one of local, dask"),
        ({"scheduler": "tcp://127.0.0.1:8786"}, "scheduler is only used with executor 'dask'"),
    ],
)
def test_bad_runner_arguments_are_named(kwargs, message):
    with pytest.raises(ValueError, match=message):
        runner.check_claims(_subset()[:1], **kwargs)


def test_json_report_marks_no_result_cached_without_a_cache():
    checked = runner.check_claims(_subset()[:1], jobs=1)
    data = report.to_json(checked.results, seed=0, max_examples=100, cached=checked.cached)
    assert checked.cached == frozenset() and [c["cached"] for c in data["claims"]] == [False]
    json.dumps(data)


def test_claims_the_workers_do_not_know_are_checked_here():
    # Claims made at run time (not built in, from no file) cannot be re-loaded by a worker.
    made_here = [Claim(f"made-here-{k}", "s", "s", checks=(Symbolic(lambda: 0),)) for k in range(2)]
    checked = runner.check_claims(made_here, jobs=2)
    assert [r.verdict for r in checked.results] == [Verdict.PROVED, Verdict.PROVED]


def test_the_default_number_of_workers_comes_from_icl_verify_jobs(monkeypatch):
    monkeypatch.setenv(options.JOBS_VAR, "3")
    assert options.validate(None, "local", None) == 3
    assert options.validate(2, "local", None) == 2  # an explicit number wins
    monkeypatch.delenv(options.JOBS_VAR)
    assert options.validate(None, "local", None) == (os.cpu_count() or 1)
    for bad in ("0", "two"):
        monkeypatch.setenv(options.JOBS_VAR, bad)
        with pytest.raises(ValueError, match=f"ICL_VERIFY_JOBS must be a positive integer, got '{bad}'"):
            options.validate(None, "local", None)


def test_a_bad_icl_verify_jobs_is_an_input_error_of_the_command(monkeypatch):
    monkeypatch.setenv(options.JOBS_VAR, "many")
    result = CliRunner().invoke(main, ["check", "dai-dual-form-linear-layer"])
    assert result.exit_code == 2 and "ICL_VERIFY_JOBS must be a positive integer, got 'many'" in result.output
    assert "Traceback" not in result.output


def test_extra_work_runs_in_the_worker_of_its_family_and_never_changes_a_verdict(tmp_path):
    path = tmp_path / "shared.py"
    path.write_text(SHARED_SIMULATION)
    claims = registry.load_file(path)
    marks = [tmp_path / "beside-the-claims.txt", tmp_path / "alone.txt"]
    extras = [
        runner.Extra(str(path), "user", functools.partial(marks[0].write_text, "ran")),
        runner.Extra(None, "no-measured-claims-here", functools.partial(marks[1].write_text, "ran")),
        runner.Extra(None, "failing", functools.partial(int, "not a number")),  # its failure is not a verdict
    ]
    serial = runner.check_claims(claims, files=[str(path)], jobs=1, extras=extras)
    assert [m.read_text() for m in marks] == ["ran", "ran"]  # one worker does them too
    for m in marks:
        m.unlink()
    parallel = runner.check_claims(claims, files=[str(path)], jobs=2, extras=extras)
    assert [m.read_text() for m in marks] == ["ran", "ran"]
    expected = [Verdict.VERIFIED, Verdict.VERIFIED, Verdict.PROVED]
    assert [r.verdict for r in parallel.results] == [r.verdict for r in serial.results] == expected
