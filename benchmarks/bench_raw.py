"""Benchmark the RAW compiler (Akyürek et al. 2023): compile and forward time of the n-example ridge chain,
and the compiled programs' error against the construction scale N.

Run: ``python benchmarks/bench_raw.py`` (full grid, ~1 min) or ``--quick``. Prints Markdown tables;
the figures are recorded in docs/performance.md ("RAW compiler"). Seeded: ``--seed``.
"""

from __future__ import annotations

import argparse
import os
import platform
import time

# Single-threaded BLAS unless the caller says otherwise: on the shared 2-core machine, threaded
# BLAS on these small matrices was up to 20× slower under load (measured; docs/performance.md).
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

from icl_verify.numerics.raw import compiler as rc  # noqa: E402
from icl_verify.numerics.raw.learners import ridge_weights  # noqa: E402
from icl_verify.numerics.raw.programs import encode_examples, ridge_chain, theorem1, theorem2  # noqa: E402


def _timed(fn, repeats: int) -> tuple[float, object]:
    best, out = float("inf"), None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def _weights_mb(compiled: rc.Compiled) -> float:
    total = 0
    for layer in compiled.layers:
        total += layer.W_F.nbytes + layer.W_1.nbytes + layer.W_2.nbytes
        total += sum(h.W_Q.nbytes + h.W_K.nbytes + h.W_V.nbytes for h in layer.heads)
    return total / 1e6


def ridge_chain_table(ds: list[int], ns: list[int], seed: int) -> None:
    print("| d | n | layers | width | weights (MB) | compile (s) | forward (s) | rel. error vs ridge |")
    print("|---|---|---|---|---|---|---|---|")
    rng = np.random.default_rng(seed)
    for d in ds:
        for n in ns:
            program, (block, t) = ridge_chain(n, d, 0.5)
            X, y, xq = rng.normal(size=(n, d)), rng.normal(size=n), rng.normal(size=d)
            H = encode_examples(X, y, xq, program.D)
            t_compile, compiled = _timed(lambda p=program: rc.compile_program(p), 1 if n * d > 100 else 3)
            t_forward, out = _timed(lambda c=compiled, h=H: c.run(h), 1 if n * d > 100 else 3)
            exact = ridge_weights(X, y, 0.5) @ xq
            rel = abs(program.read(out, block, t)[0] - exact) / abs(exact)
            print(
                f"| {d} | {n} | {compiled.depth} | {compiled.width} | {_weights_mb(compiled):.0f} "
                f"| {t_compile:.3f} | {t_forward:.3f} | {rel:.1e} |"
            )


def error_vs_scale(seed: int, d: int = 8, states: int = 5) -> None:
    """Median relative error of compiled Theorem 1 / 2 (d = 8) vs the closed form, β = 100, N = M = N_a, N_d = N²."""
    print(f"| N | Theorem 1 (d={d}) | Theorem 2 (d={d}) |")
    print("|---|---|---|")
    rng = np.random.default_rng(seed)
    cases = [(rng.normal(size=d), rng.normal(size=d), rng.normal(size=d), rng.normal()) for _ in range(states)]
    for n in (1e2, 1e3, 1e4, 1e5, 1e6):
        scales = rc.Scales.uniform(n, attention=100.0)
        errs1, errs2 = [], []
        for w, x1, x2, y1 in cases:
            p1, (b1, t1) = theorem1(d, w, 0.1, 0.3)
            H1 = encode_examples(x1[None], np.array([y1]), x2, p1.D)
            exact1 = (w - 0.2 * (x1 * (w @ x1) - y1 * x1 + 0.3 * w)) @ x2
            errs1.append(abs(p1.read(rc.compile_program(p1, scales).run(H1), b1, t1)[0] - exact1) / abs(exact1))
            p2, (b2, t2) = theorem2(d, 0.5)
            H2 = encode_examples(x1[None], np.array([y1]), x2, p2.D)
            exact2 = ridge_weights(x1[None], np.array([y1]), 0.5) @ x2
            errs2.append(abs(p2.read(rc.compile_program(p2, scales).run(H2), b2, t2)[0] - exact2) / abs(exact2))
        print(f"| {n:.0e} | {np.median(errs1):.2e} | {np.median(errs2):.2e} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="d ∈ {2, 4}, n ∈ {4, 16} only")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print(
        f"# bench_raw  seed={args.seed}  numpy={np.__version__}  python={platform.python_version()}  "
        f"cpus={os.cpu_count()}  load={os.getloadavg()[0]:.1f}  blas_threads={os.environ['OPENBLAS_NUM_THREADS']}"
    )
    print("\n## Ridge chain (n Sherman–Morrison updates), default scales\n")
    ridge_chain_table([2, 4] if args.quick else [2, 4, 8], [4, 16] if args.quick else [4, 16, 64], args.seed)
    print("\n## Error vs scale N, compiled Theorem 1 and 2\n")
    error_vs_scale(args.seed, states=2 if args.quick else 5)


if __name__ == "__main__":
    main()
