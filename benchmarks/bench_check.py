"""Time `icl-verify check` cold in one process, cold in parallel and warm; `icl-verify docs` cold and warm.

Run: ``python benchmarks/bench_check.py [--jobs N] [--skip-serial] [--skip-docs] [--foundation]``
from the repository's root. Prints, in one run, the wall time and the CPU time (the command's and
all its worker processes', user + system) of each command run as a user runs it (a fresh
interpreter, so imports count), side by side:

1. cold serial — ``icl-verify check --no-cache --jobs 1``, every built-in claim in one process;
2. cold parallel — ``icl-verify check --jobs N`` into an empty verdict cache (a temporary folder);
3. warm — the same command again, nothing changed: every verdict from the cache;
4. ``icl-verify docs --check`` cold (an empty cache: every claim checked, every figure computed
   and drawn), then warm (the same cache: every verdict and every drawn figure read back);

and whether the verdicts and evidence of steps 1–3 are identical (the JSON reports without timings).
Targets (docs/performance.md, on the idle 2-core machine): cold parallel ≤ 45 s, warm ≤ 5 s, docs cold ≤ check
+ 10 s and warm ≤ 15 s (wall). On a machine other jobs are using, only the CPU times mean something.
``--foundation`` adds the per-claim times of the von Oswald and Dai families and the explicit-check
conversion against its baseline.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from sympy.matrices.expressions import block_collapse

from icl_verify import check
from icl_verify.families import dual as dual_claims
from icl_verify.families import lsa_gd
from icl_verify.maths.symbolic import as_explicit
from icl_verify.running import registry

CLI = [sys.executable, "-c", "from icl_verify.cli.main import main; main()"]
TARGETS = {"cold parallel": 45.0, "warm": 5.0, "docs warm": 15.0}


def run_cli(*args: str, cache: Path | None) -> tuple[float, float, dict | None]:
    """Wall and CPU time (its own and its waited-for workers') of one ``icl-verify`` command, and its JSON report."""
    env = {**os.environ, "ICL_VERIFY_CACHE_DIR": str(cache or "")}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run([*CLI, *args], capture_output=True, text=True, env=env)
    seconds = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if done.returncode not in (0, 1):
        raise RuntimeError(f"icl-verify {' '.join(args)} failed ({done.returncode}): {done.stderr[-2000:]}")
    return seconds, cpu, json.loads(done.stdout) if "--json" in args else None


def verdicts(report: dict) -> list:
    """A report's claims without timings or cache marks: what must not depend on the number of workers."""
    return [
        {k: v for k, v in c.items() if k not in ("seconds", "cached", "evidence")}
        | {"evidence": [{k: v for k, v in e.items() if k != "seconds"} for e in c["evidence"]]}
        for c in report["claims"]
    ]


def time_commands(jobs: int, skip_serial: bool, skip_docs: bool) -> None:
    timings: dict[str, tuple[float, float]] = {}
    reports: dict[str, dict] = {}

    def run(name: str, *args: str, cache: Path | None) -> None:
        wall, cpu, report = run_cli(*args, cache=cache)
        timings[name] = (wall, cpu)
        if report is not None:
            reports[name] = report

    with tempfile.TemporaryDirectory() as tmp:
        cache, docs_cache = Path(tmp) / "cache", Path(tmp) / "docs-cache"
        if not skip_serial:
            run("cold serial", "check", "--json", "--no-cache", "--jobs", "1", cache=None)
        run("cold parallel", "check", "--json", "--jobs", str(jobs), cache=cache)
        run("warm", "check", "--json", "--jobs", str(jobs), cache=cache)
        if not skip_docs:
            run("docs cold", "docs", "--check", "--jobs", str(jobs), cache=docs_cache)
            run("docs warm", "docs", "--check", "--jobs", str(jobs), cache=docs_cache)
            figures = len(list(docs_cache.glob("*.figure.pickle")))
    claims = len(reports["warm"]["claims"])
    cached = sum(c["cached"] for c in reports["warm"]["claims"])
    print(f"  {claims} claims, {jobs} worker(s) on {os.cpu_count()} core(s); warm run: {cached} from the cache")
    if not skip_docs:
        print(f"  docs: {figures} drawn figures kept in the cache by the cold run, read back by the warm one")
    print(f"  {'':<14} {'wall':>9} {'CPU':>9}")
    for name, (wall, cpu) in timings.items():
        target = f"  (target ≤ {TARGETS[name]:.0f} s wall)" if name in TARGETS else ""
        print(f"  {name:<14} {wall:7.1f} s {cpu:7.1f} s{target}")
    if "docs cold" in timings:
        extra = [timings["docs cold"][k] - timings["cold parallel"][k] for k in (0, 1)]
        print(f"  docs cold − cold parallel check: {extra[0]:.1f} s wall, {extra[1]:.1f} s CPU (target ≤ 10 s wall)")
    base = verdicts(reports["cold parallel"])
    same = {name: verdicts(r) == base for name, r in reports.items()}
    print(
        "  verdicts and evidence identical to the cold parallel run: " + ", ".join(f"{k} {v}" for k, v in same.items())
    )


def time_claims() -> float:
    total = 0.0
    for claim in registry.claims_in(lsa_gd) + registry.claims_in(dual_claims):
        t0 = time.perf_counter()
        result = check(claim)
        dt = time.perf_counter() - t0
        total += dt
        print(f"  {claim.name:<34} {result.verdict.value:<9} {dt:6.2f} s")
    print(f"  total {total:.2f} s")
    return total


def time_explicit_conversion(repeats: int = 3) -> None:
    residuals = lsa_gd.gdpp_residuals(nx=2, ny=2, n=3)

    def fast() -> None:
        as_explicit(residuals)

    def baseline() -> None:
        [block_collapse(r).as_explicit() for r in residuals]

    timings = {}
    for name, fn in (("baseline: collapse then as_explicit", baseline), ("icl-verify: entries first", fast)):
        best = min(_timed(fn) for _ in range(repeats))
        timings[name] = best
        print(f"  {name:<38} {best * 1e3:8.1f} ms")
    ratio = timings["baseline: collapse then as_explicit"] / timings["icl-verify: entries first"]
    print(f"  speed-up {ratio:.2f}× (GD++ residuals at Nx = Ny = 2, N = 3)")


def _timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="workers of the parallel runs")
    parser.add_argument("--skip-serial", action="store_true", help="leave out the cold serial run")
    parser.add_argument("--skip-docs", action="store_true", help="leave out the two docs runs")
    parser.add_argument("--foundation", action="store_true", help="also time the foundation claims one by one")
    args = parser.parse_args()
    print("icl-verify check and docs, wall and CPU time of each command (seed 0, 100 examples):")
    time_commands(args.jobs, args.skip_serial, args.skip_docs)
    if args.foundation:
        print("Foundation claims, default settings (seed 0, 100 examples):")
        time_claims()
        print("Explicit check conversion, best of 3:")
        time_explicit_conversion()
