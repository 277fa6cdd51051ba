"""Throughput of the memorization trainer (Nguyen & Reddy 2025) against PyTorch on the CPU and the matmul peak.

Run: ``python benchmarks/bench_memorization.py [--steps 300] [--hidden 512]``. Prints, in one process,
for 1 BLAS thread and for all cores (NumPy's OpenBLAS via ``numerics.shared.threads.blas_threads``,
PyTorch via ``torch.set_num_threads``):
1. the machine's measured float32 matmul peak at that thread count (NumPy and, if installed,
   PyTorch; square sizes 1024–4096, best of several repeats) — the reference "peak";
2. ``numerics.scaling.memorization.memorize`` (the whole hot loop: batch gather, forward, backward, SGD
   update) at the paper's sizes D = 63, H = 512, batch 128, for 1, 2 and 4 stacked networks;
3. the same network and optimizer in PyTorch (``nn.Sequential`` of ``nn.Linear``/``ReLU``,
   ``torch.optim.SGD`` lr 0.01, BCE-with-logits on the ±1 labels, batch gathered by index).
Throughput is network-steps per second and GFLOP/s with 6BH² + 4BDH flops per step (forward,
weight gradients and input gradients of the two big layers; O(BH) terms ignored).
PyTorch is optional (``pip install torch``) and imported only here.
"""

from __future__ import annotations

import argparse
import os
import time
from dataclasses import replace

import numpy as np

from icl_verify.numerics.scaling.memorization import MemorizationSettings, memorize
from icl_verify.numerics.shared.threads import blas_threads


def step_flops(batch: int, d: int, hidden: int) -> float:
    """Flops of one SGD step of the D → H → H → 1 MLP: forward 2B(DH + H²), backward 2B(DH + 2H²)."""
    return 6.0 * batch * hidden**2 + 4.0 * batch * d * hidden


def best_of(fn, repeats: int) -> float:
    """Smallest wall time of ``repeats`` calls (the machine is shared: the minimum is the least disturbed)."""
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def numpy_peak() -> float:
    """Best float32 GEMM rate of NumPy's BLAS over square sizes, GFLOP/s."""
    best = 0.0
    for n in (1024, 2048, 4096):
        a = np.random.default_rng(0).standard_normal((n, n)).astype(np.float32)
        a @ a
        best = max(best, 2 * n**3 / best_of(lambda a=a: a @ a, 3) / 1e9)
    return best


def ours(d: int, hidden: int, batch: int, steps: int, m: int) -> float:
    """Network-steps per second of ``memorize`` on m stacked networks (logging only at the ends)."""
    settings = MemorizationSettings(
        d=d, hidden=hidden, lr=0.01, batch=batch, max_steps=steps, min_log_gap=steps, n_eval=64, c1_tol=1e-9
    )
    memorize([2048] * m, list(range(m)), replace(settings, max_steps=10, min_log_gap=10))  # warm-up
    seconds = best_of(lambda: memorize([2048] * m, list(range(m)), settings), 2)
    return m * steps / seconds


def torch_peak(torch) -> float:
    best = 0.0
    for n in (1024, 2048, 4096):
        a = torch.randn(n, n)
        a @ a
        best = max(best, 2 * n**3 / best_of(lambda a=a: a @ a, 3) / 1e9)
    return best


def pytorch(torch, d: int, hidden: int, batch: int, steps: int) -> float:
    """Steps per second of the same MLP and SGD in PyTorch (CPU, float32)."""
    torch.manual_seed(0)
    net = torch.nn.Sequential(
        torch.nn.Linear(d, hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, hidden), torch.nn.ReLU(),
        torch.nn.Linear(hidden, 1),
    )  # fmt: skip
    opt = torch.optim.SGD(net.parameters(), lr=0.01)
    items = torch.randn(2048, d) / d**0.5
    labels = (torch.arange(2048) % 2).float()  # BCE targets (ℓ + 1)/2
    loss_fn = torch.nn.BCEWithLogitsLoss()

    def run(n: int) -> None:
        for _ in range(n):
            idx = torch.randint(0, 2048, (batch,))
            opt.zero_grad(set_to_none=True)
            loss_fn(net(items[idx])[:, 0], labels[idx]).backward()
            opt.step()

    run(10)
    return steps / best_of(lambda: run(steps), 2)


def compare(args: argparse.Namespace, torch, threads: int) -> None:
    """Peak, our trainer and PyTorch, all at ``threads`` threads."""
    flops = step_flops(args.batch, args.d, args.hidden)
    if torch is not None:
        torch.set_num_threads(threads)
    print(f"--- {threads} thread(s)")
    peak = numpy_peak()
    print(f"matmul peak, NumPy float32 GEMM: {peak:.1f} GFLOP/s")
    if torch is not None:
        tpeak = torch_peak(torch)
        print(
            f"matmul peak, PyTorch float32 GEMM ({torch.__version__}, {torch.get_num_threads()} threads): {tpeak:.1f} GFLOP/s"
        )
        peak = max(peak, tpeak)
    print(f"sizes D = {args.d}, H = {args.hidden}, batch {args.batch}: {flops / 1e6:.1f} MFLOP per step")
    for m in (1, 2, 4):
        rate = ours(args.d, args.hidden, args.batch, args.steps, m)
        print(f"  icl-verify, {m} stacked: {rate:8.0f} network-steps/s  {rate * flops / 1e9:6.1f} GFLOP/s  "
              f"{rate * flops / 1e9 / peak:5.0%} of peak")  # fmt: skip
    if torch is not None:
        rate = pytorch(torch, args.d, args.hidden, args.batch, args.steps)
        print(f"  PyTorch:               {rate:8.0f} network-steps/s  {rate * flops / 1e9:6.1f} GFLOP/s  "
              f"{rate * flops / 1e9 / peak:5.0%} of peak")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--hidden", type=int, default=512)
    parser.add_argument("--d", type=int, default=63)
    parser.add_argument("--batch", type=int, default=128)
    args = parser.parse_args()
    try:
        import torch
    except ImportError:
        torch = None
        print("PyTorch not installed: skipping the comparison (pip install torch)")
    for threads in sorted({1, os.cpu_count() or 1}):
        with blas_threads(threads):
            compare(args, torch, threads)


if __name__ == "__main__":
    main()
