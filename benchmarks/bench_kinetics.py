"""Learning kinetics (Nguyen & Reddy 2025): ODE batch throughput and training speed at the paper's sizes.

Run: ``python benchmarks/bench_kinetics.py``. Prints, in one process:
1. ODE throughput in initial conditions per second for M random (w₀, β₀): ``blowup_times`` (one
   Dormand–Prince step size per IC), one batched ``integrate`` call (``solve_ivp``, one shared step
   size) and the baseline of one ``integrate`` call per IC, at two tolerances;
2. SGD steps per second at D = 63, N = 100, MLP width 512, batch 128 (the paper's sizes) for the
   reduced model and the one-layer transformer, with one and with two OpenBLAS threads.
"""

from __future__ import annotations

import time
from dataclasses import replace

import numpy as np

from icl_verify.numerics.kinetics import models as icl_models
from icl_verify.numerics.kinetics import ode as kin
from icl_verify.numerics.kinetics import transformer as icl_transformer


def ode_throughput(m: int, rtol: float, how: str, seed: int = 0) -> float:
    """Initial conditions per second for M ICs, w₀ ~ N(0, 0.3²), β₀ ~ U(−1, 2), N = 100, c₁ = c₂ = ½."""
    rng = np.random.default_rng(seed)
    w0, b0 = rng.normal(0, 0.3, m), rng.uniform(-1, 2, m)
    t0 = time.perf_counter()
    if how == "lanes":
        reached = np.isfinite(kin.blowup_times(w0, b0, n=100, c1=0.5, c2=0.5, t_max=1e7, rtol=rtol)).sum()
    elif how == "solve_ivp":
        sol = kin.integrate(w0, b0, n=100, c1=0.5, c2=0.5, t_max=1e7, rtol=rtol, atol=rtol * 1e-2)
        reached = np.isfinite(sol.t_icl).sum()
    else:
        reached = sum(
            np.isfinite(kin.integrate(w, b, n=100, c1=0.5, c2=0.5, t_max=1e7, rtol=rtol, atol=rtol * 1e-2).t_icl[0])
            for w, b in zip(w0, b0)
        )
    dt = time.perf_counter() - t0
    assert reached == m
    return m / dt


def steps_per_second(train, config, threads: int, steps: int) -> float:
    """SGD steps per second (one evaluation record at the start, subtracted by timing two lengths)."""
    short, long = replace(config, steps=1, record_every=10**9), replace(config, steps=1 + steps, record_every=10**9)
    t0 = time.perf_counter()
    train(short, 0, threads=threads)
    t1 = time.perf_counter()
    train(long, 0, threads=threads)
    t2 = time.perf_counter()
    return steps / ((t2 - t1) - (t1 - t0))


def main() -> None:
    print("ODE (w, β) blow-up times, initial conditions per second")
    for rtol in (1e-10, 1e-8):
        for m in (10, 1000, 10_000):
            lanes = ode_throughput(m, rtol, "lanes")
            shared = ode_throughput(min(m, 1000), rtol, "solve_ivp")
            single = ode_throughput(min(m, 100), rtol, "single")
            print(
                f"  rtol {rtol:.0e}  M = {m:6d}: blowup_times {lanes:8.0f}/s   integrate (batch of"
                f" {min(m, 1000)}) {shared:6.0f}/s   one integrate per IC {single:5.0f}/s"
            )
    print("SGD steps per second at D = 63, N = 100, MLP width 512, batch 128 (K = 10⁴)")
    reduced = icl_models.ReducedConfig(d=63, k=10_000, n=100, hidden=512, batch=128, eval_batch=128)
    transformer = icl_transformer.TransformerConfig(d=63, k=10_000, n=100, hidden=512, batch=128, eval_batch=128)
    for threads in (1, 2):
        r = steps_per_second(icl_models.train_reduced, reduced, threads, 200)
        t = steps_per_second(icl_transformer.train_transformer, transformer, threads, 40)
        print(f"  {threads} BLAS thread(s): reduced model {r:6.1f} steps/s   one-layer transformer {t:6.1f} steps/s")


if __name__ == "__main__":
    main()
