"""Claims that exit, interrupt, die or hang: each is its own ERROR; every other claim is still checked."""

from __future__ import annotations

import signal

import pytest

from icl_verify import Claim, Symbolic, Verdict
from icl_verify.running import options, registry, runner, workers

MISBEHAVING = """
import os, signal, sys, time
from icl_verify import Claim, Symbolic

def exits():
    sys.exit(0)

def exits_with_three():
    sys.exit(3)

def interrupts():
    raise KeyboardInterrupt

def underscore_exits():
    os._exit(0)

def killed():
    os.kill(os.getpid(), signal.SIGKILL)

def hangs():
    time.sleep(600)

GOOD_BEFORE = Claim("good-before", "s", "s", (Symbolic(lambda: 0),))
EXITS = Claim("exits", "s", "s", (Symbolic(exits),))
EXITS_3 = Claim("exits-with-three", "s", "s", (Symbolic(exits_with_three),))
INTERRUPTS = Claim("interrupts", "s", "s", (Symbolic(interrupts),))
UNDERSCORE = Claim("os-exit", "s", "s", (Symbolic(underscore_exits),))
KILLED = Claim("killed", "s", "s", (Symbolic(killed),))
HANGS = Claim("hangs", "s", "s", (Symbolic(hangs),))
GOOD_AFTER = Claim("good-after", "s", "s", (Symbolic(lambda: 0),))
"""

EXPECTED = {
    "good-before": None,
    "exits": "the check exited with status 0 while running",
    "exits-with-three": "the check exited with status 3 while running",
    "interrupts": "the check raised KeyboardInterrupt while running",
    "os-exit": "the check exited with status 0 while running",
    "killed": f"worker died: signal {int(signal.SIGKILL)}",
    "hangs": "timed out after 1 s",
    "good-after": None,
}


@pytest.fixture
def misbehaving(tmp_path):
    path = tmp_path / "misbehaving.py"
    path.write_text(MISBEHAVING)
    return path


@pytest.mark.parametrize("jobs", [1, 2])
def test_each_misbehaving_claim_is_its_own_error_and_the_others_are_checked(misbehaving, jobs):
    claims = registry.load_file(misbehaving)
    checked = runner.check_claims(claims, files=[str(misbehaving)], jobs=jobs, timeout=1)
    assert [r.claim.name for r in checked.results] == list(EXPECTED)  # every claim reported, in order
    for r in checked.results:
        detail = EXPECTED[r.claim.name]
        if detail is None:
            assert r.verdict is Verdict.PROVED
        else:
            assert r.verdict is Verdict.ERROR and not r.as_expected
            assert [(e.kind, e.detail) for e in r.evidence] == [("worker", detail)]


def test_a_dead_workers_remaining_claims_go_to_a_fresh_worker(misbehaving):
    # One job holds them all (the measured grouping is by family; here one worker takes them one by one).
    claims = registry.load_file(misbehaving)
    finished: dict[str, str] = {}
    job = workers.Job([c.name for c in claims], str(misbehaving), 0, 100)
    workers.INHERITED.clear()
    workers.INHERITED.update({c.name: c for c in claims})
    with workers.Pool(1, 1.0, lambda name, outcome: finished.setdefault(name, outcome.verdict.value)) as pool:
        pool.run([job])
        assert len(pool.workers) == 1 and pool.workers[0].process.is_alive()  # replaced, still one
    assert finished == {name: "PROVED" if d is None else "ERROR" for name, d in EXPECTED.items()}


def test_streamed_results_come_as_each_completes_and_the_report_keeps_the_given_order():
    claims = [Claim(f"quick-{k}", "s", "s", (Symbolic(lambda: 0),)) for k in range(3)]
    seen = []
    checked = runner.check_claims(claims, jobs=2, on_result=seen.append)
    assert sorted(r.claim.name for r in seen) == [c.name for c in claims]
    assert [r.claim.name for r in checked.results] == [c.name for c in claims]
    assert [r.verdict for r in seen] == [Verdict.PROVED] * 3


def test_small_work_uses_one_worker_and_jobs_forces_a_number(monkeypatch):
    monkeypatch.setenv(options.JOBS_VAR, "4")
    cheap = [[Claim(f"c{k}", "s", "s", (Symbolic(lambda: 0),))] for k in range(3)]  # 0.1 s each, never timed
    assert runner.workers_for(None, cheap, {}) == 1
    assert runner.workers_for(None, cheap, {"c0": 5.0}) == 3  # worth a second worker: every core, one per job
    assert runner.workers_for(2, cheap, {}) == 2  # forced
    assert runner.workers_for(8, cheap, {}) == 3  # never more workers than jobs


def test_verdicts_are_the_same_with_one_worker_or_several(misbehaving):
    claims = registry.load_file(misbehaving)
    good = [c for c in claims if c.name.startswith("good")]
    one = runner.check_claims(good, files=[str(misbehaving)], jobs=1)
    two = runner.check_claims(good, files=[str(misbehaving)], jobs=2)
    assert [r.verdict for r in one.results] == [r.verdict for r in two.results] == [Verdict.PROVED] * 2


@pytest.mark.parametrize("bad", [0, -1.0, float("nan"), float("inf")])
def test_a_bad_timeout_is_named(bad):
    with pytest.raises(ValueError, match="timeout must be a positive number of seconds"):
        runner.check_claims([], timeout=bad)


def test_a_forked_worker_reports_what_this_process_would(user_file):
    from icl_verify.core.claims import check

    claims = registry.load_file(user_file)
    here = [check(c, seed=0, max_examples=100) for c in claims]
    forked = runner.check_claims(claims, files=[str(user_file)], jobs=1).results

    def details(results):
        return [(r.verdict, [(e.kind, e.status, e.detail, e.counterexample) for e in r.evidence]) for r in results]

    assert details(forked) == details(here)
