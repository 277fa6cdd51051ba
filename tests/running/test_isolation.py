"""One claim cannot change another's verdict: every job is checked in a process of its own, forked from a template
that ran no claim, so what a claim changes in its process (NumPy's functions and error state, the random
generators, the environment, the working folder) reaches no other claim, whatever the order and the number of
workers; and the cache never keeps a verdict such a change decided."""

from __future__ import annotations

import subprocess
import sys

import pytest

from icl_verify import Verdict
from icl_verify.running import registry, runner
from icl_verify.running.verdict_cache import VerdictCache

PROBES = """
import os, random

import numpy as np
from hypothesis import strategies as st

import icl_verify as iv

SEED = 12345


def pollute():
    np.max = lambda *a, **k: 0.0  # the misbehaving compare of the issue: every |lhs - rhs| is 0
    np.seterr(all="raise")
    random.seed(SEED)
    np.random.seed(SEED)
    os.environ["ICL_VERIFY_PROBE"] = "leaked"
    os.chdir("/")
    return 0


def leaks():
    \"\"\"How many of the changes ``pollute`` makes this process sees.\"\"\"
    seen = [
        np.max(np.array([1.0, 2.0])) != 2.0,  # by what it computes: NumPy 1.x names np.max "amax"
        np.geterr() != {"divide": "warn", "over": "warn", "under": "ignore", "invalid": "warn"},
        random.random() == random.Random(SEED).random(),
        np.random.random_sample() == np.random.RandomState(SEED).random_sample(),
        "ICL_VERIFY_PROBE" in os.environ,
        os.getcwd() == "/",
    ]
    return sum(seen)


def compare(case):
    pollute()
    return (np.array([case["x"]]), np.array([case["x"]]))


POLLUTES = iv.Claim(
    "probe-pollutes", "probe", "x = x", (iv.Numeric(st.fixed_dictionaries({"x": st.floats(0, 1)}), compare),)
)
OBSERVES = iv.Claim("probe-observes", "probe", "no leak", (iv.Symbolic(leaks),))
"""

BUILTIN = ["prop2-as-printed", "shen-causal-icl-order-invariant"]  # expected REFUTED: np.max = 0 verifies them
EXPECTED = {
    "probe-pollutes": Verdict.VERIFIED,
    "probe-observes": Verdict.PROVED,
    "prop2-as-printed": Verdict.REFUTED,
    "shen-causal-icl-order-invariant": Verdict.REFUTED,
}


@pytest.fixture
def probes(tmp_path):
    path = tmp_path / "probes.py"
    path.write_text(PROBES)
    return path


def _claims(probes, order):
    by_name = {c.name: c for c in registry.load_file(probes) + registry.select(registry.builtin_claims(), BUILTIN)}
    return [by_name[name] for name in order]


def test_the_probe_sees_every_change_the_polluter_makes_and_none_before(tmp_path):
    """The probe can fail, on any NumPy: in one process ``leaks`` counts 0 changes before ``pollute`` and all 6 after it
    (a probe that read ``np.max.__name__`` counted a leak in a clean process on NumPy 1.x, where it is "amax")."""
    script = PROBES + "\nprint(leaks())\npollute()\nprint(leaks())\n"
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=tmp_path)
    assert run.stdout.split() == ["0", "6"]


@pytest.mark.parametrize("jobs", [1, 2])
def test_verdicts_do_not_depend_on_the_order_or_the_number_of_workers(probes, jobs, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("ICL_VERIFY_PROBE", raising=False)
    polluter_first = ["probe-pollutes", "probe-observes", *BUILTIN]
    for order in (polluter_first, list(reversed(polluter_first))):
        checked = runner.check_claims(_claims(probes, order), files=[str(probes)], jobs=jobs)
        assert {r.claim.name: r.verdict for r in checked.results} == EXPECTED, order


def test_the_cache_never_keeps_a_verdict_another_claim_decided(probes, tmp_path):
    cache = VerdictCache(tmp_path / "cache")
    order = ["probe-pollutes", *BUILTIN]
    first = runner.check_claims(_claims(probes, order), files=[str(probes)], jobs=1, cache=cache)
    assert [r.verdict for r in first.results] == [EXPECTED[name] for name in order]
    alone = runner.check_claims(registry.select(registry.builtin_claims(), BUILTIN), cache=cache, jobs=1)
    assert alone.cached == frozenset(BUILTIN)  # served from the cache the first run filled ...
    assert [r.verdict for r in alone.results] == [Verdict.REFUTED, Verdict.REFUTED]  # ... with honest verdicts
