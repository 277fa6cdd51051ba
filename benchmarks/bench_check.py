"""Time `icl-verify check` on the foundation claims (von Oswald et al. and Dai et al.) and the explicit-check fast path.

Run: ``python benchmarks/bench_check.py``. Prints, in one process:
1. wall time per claim and in total for the von Oswald and Dai families, against the 30 s target;
2. the explicit symbolic check's conversion (matrix symbols replaced by explicit entries before
   multiplying) against the baseline of expanding the symbolic product afterwards.
"""

from __future__ import annotations

import time

from sympy.matrices.expressions import block_collapse

from icl_verify import check
from icl_verify.engine import registry
from icl_verify.engine.symbolic import as_explicit
from icl_verify.families import dual as dual_claims
from icl_verify.families import lsa_gd

TARGET_SECONDS = 30.0


def time_claims() -> float:
    total = 0.0
    for claim in registry.claims_in(lsa_gd) + registry.claims_in(dual_claims):
        t0 = time.perf_counter()
        result = check(claim)
        dt = time.perf_counter() - t0
        total += dt
        print(f"  {claim.name:<34} {result.verdict.value:<9} {dt:6.2f} s")
    print(f"  total {total:.2f} s — {total / TARGET_SECONDS:.2f}× the {TARGET_SECONDS:.0f} s target")
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
    print("Foundation claims, default settings (seed 0, 100 examples):")
    time_claims()
    print("Explicit check conversion, best of 3:")
    time_explicit_conversion()
