"""Throughput of the memorization trainer (Nguyen & Reddy 2025, §3.6) against PyTorch on the CPU and the GEMM peak.

Run: ``python benchmarks/bench_memorization.py [--steps 200] [--rounds 7] [--hidden 512]``. In one
process, for 1 thread and for all cores (NumPy's and SciPy's OpenBLAS via
``numerics.shared.threads.blas_threads``, PyTorch via ``torch.set_num_threads``), it prints

1. the machine's float32 GEMM peak at that thread count, measured here (square products 1024 and
   2048, NumPy and, if installed, PyTorch; best of several) — the reference "peak";
2. the SGD hot loop at the paper's sizes D = 63, H = 512, batch 128, float32 (draw the batch
   indices, gather the batch, forward, backward, update), ``--steps`` steps per timing, for:
   ``StackedSGD`` (icl-verify's NumPy trainer, 1 and 2 stacked networks; its products run in SciPy's
   OpenBLAS on the threads the limit allows), ``TorchSGD`` (its PyTorch
   backend, ``numerics.scaling.torch_backend``), and the same training written the usual PyTorch way
   (``nn.Sequential`` of ``nn.Linear``/``ReLU``, ``BCEWithLogitsLoss`` on the targets (ℓ + 1)/2, which
   is the mean softplus(−ℓφ), ``torch.optim.SGD(lr=0.01, foreach=True)``, ``zero_grad(set_to_none=True)``,
   batch gathered by ``torch.randint`` indices) — the baseline.

The machine may be shared: the implementations are timed in interleaved rounds (each round times
every implementation once, in turn), the best of ``--rounds`` is reported with the median, and the
load average is printed. Throughput is network-steps per second and GFLOP/s with 6BH² + 4BDH flops
per step (forward, weight gradients and input gradients of the two big layers; O(BH) terms ignored).
PyTorch is optional (``pip install 'icl-verify[torch]'``).
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable

import numpy as np

from icl_verify.numerics.scaling.memorization import StackedSGD
from icl_verify.numerics.shared.items import sample_items
from icl_verify.numerics.shared.mlp import init_stacked
from icl_verify.numerics.shared.threads import blas_threads

K = 2048
"""Items per network (the batch indices are drawn from K)."""


def step_flops(batch: int, d: int, hidden: int) -> float:
    """Flops of one SGD step of the D → H → H → 1 MLP: forward 2B(DH + H²), backward 2B(DH + 2H²)."""
    return 6.0 * batch * hidden**2 + 4.0 * batch * d * hidden


def best_time(fn: Callable[[], object], repeats: int) -> float:
    """Smallest wall time of ``repeats`` calls (on a shared machine the minimum is the least disturbed)."""
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def gemm_peak(matmul: Callable[[int], Callable[[], object]]) -> float:
    """Best float32 GEMM rate over square sizes 1024 and 2048, GFLOP/s; ``matmul(n)`` makes the n × n product."""
    best = 0.0
    for n in (1024, 2048):
        product = matmul(n)
        product()
        best = max(best, 2 * n**3 / best_time(product, 4) / 1e9)
    return best


def numpy_square(n: int) -> Callable[[], object]:
    a = np.random.default_rng(0).standard_normal((n, n)).astype(np.float32)
    out = np.empty_like(a)
    return lambda: np.matmul(a, a, out=out)


def torch_square(torch, n: int) -> Callable[[], object]:
    a = torch.randn(n, n)
    out = torch.empty(n, n)
    return lambda: torch.mm(a, a, out=out)


def icl_verify_trainer(args: argparse.Namespace, m: int, torch_device: str | None = None) -> Callable[[int], None]:
    """``run(n)``: n steps of the trainer of ``memorize`` on m stacked networks (NumPy, or PyTorch on a device)."""
    rngs = [np.random.default_rng(i) for i in range(m)]
    data = [sample_items(r, K, args.d) for r in rngs]
    params = init_stacked(rngs, args.d, args.hidden)
    if torch_device is None:
        trainer = StackedSGD(params, args.batch, 0.01)
    else:
        from icl_verify.numerics.scaling.torch_backend import TorchSGD

        trainer = TorchSGD(params, args.batch, 0.01, torch_device)
    trainer.set_items(np.stack([x for x, _ in data]), np.stack([y for _, y in data]))
    offsets = np.arange(m)[:, None] * K

    def run(n: int) -> None:
        for _ in range(n):
            trainer.step_indices(np.stack([r.integers(0, K, args.batch) for r in rngs]) + offsets)

    return run


def pytorch_autograd(torch, args: argparse.Namespace) -> Callable[[int], None]:
    """``run(n)``: n SGD steps of the same MLP and loss written with ``nn.Linear``, autograd and ``torch.optim.SGD``."""
    torch.manual_seed(0)
    d, hidden = args.d, args.hidden
    net = torch.nn.Sequential(
        torch.nn.Linear(d, hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, hidden), torch.nn.ReLU(),
        torch.nn.Linear(hidden, 1),
    )  # fmt: skip
    opt = torch.optim.SGD(net.parameters(), lr=0.01, foreach=True)
    items = torch.randn(K, d) / d**0.5
    targets = (torch.arange(K) % 2).float()  # (ℓ + 1)/2: BCE-with-logits = softplus(−ℓφ)
    loss_fn = torch.nn.BCEWithLogitsLoss()

    def run(n: int) -> None:
        for _ in range(n):
            idx = torch.randint(0, K, (args.batch,))
            opt.zero_grad(set_to_none=True)
            loss_fn(net(items[idx])[:, 0], targets[idx]).backward()
            opt.step()

    return run


def interleaved(contenders: dict[str, tuple[Callable[[int], None], int]], steps: int, rounds: int) -> dict:
    """Network-steps/s of each contender (``run``, networks per step): best and median over interleaved rounds."""
    for run, _ in contenders.values():
        run(10)  # warm-up
    seconds: dict[str, list[float]] = {name: [] for name in contenders}
    for _ in range(rounds):
        for name, (run, _) in contenders.items():
            t0 = time.perf_counter()
            run(steps)
            seconds[name].append(time.perf_counter() - t0)
    return {
        name: (m * steps / min(seconds[name]), m * steps / float(np.median(seconds[name])))
        for name, (_, m) in contenders.items()
    }


def compare(args: argparse.Namespace, torch, threads: int) -> None:
    """GEMM peak, the trainers and the PyTorch baseline, all at ``threads`` threads, in interleaved rounds."""
    flops = step_flops(args.batch, args.d, args.hidden)
    print(f"--- {threads} thread(s), load average before: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    peak = gemm_peak(numpy_square)
    print(f"GEMM peak, NumPy float32: {peak:.1f} GFLOP/s")
    contenders = {
        "icl-verify NumPy, 1 network": (icl_verify_trainer(args, 1), 1),
        "icl-verify NumPy, 2 stacked": (icl_verify_trainer(args, 2), 2),
    }
    if torch is not None:
        torch.set_num_threads(threads)
        tpeak = gemm_peak(lambda n: torch_square(torch, n))
        print(
            f"GEMM peak, PyTorch {torch.__version__} float32 ({torch.get_num_threads()} threads): {tpeak:.1f} GFLOP/s"
        )
        peak = max(peak, tpeak)
        contenders["icl-verify torch backend (cpu)"] = (icl_verify_trainer(args, 1, "cpu"), 1)
        contenders["PyTorch autograd + optim.SGD"] = (pytorch_autograd(torch, args), 1)
    print(f"D = {args.d}, H = {args.hidden}, batch {args.batch}: {flops / 1e6:.1f} MFLOP per step; "
          f"{args.rounds} interleaved rounds of {args.steps} steps")  # fmt: skip
    rates = interleaved(contenders, args.steps, args.rounds)
    for name, (best, median) in rates.items():
        print(f"  {name:32s} best {best:6.0f} network-steps/s  {best * flops / 1e9:6.1f} GFLOP/s  "
              f"{best * flops / 1e9 / peak:4.0%} of peak   (median {median:6.0f})")  # fmt: skip
    if torch is not None:
        base = rates["PyTorch autograd + optim.SGD"]
        ours = rates["icl-verify NumPy, 1 network"]
        print(
            f"  ratio icl-verify NumPy / PyTorch autograd: best {ours[0] / base[0]:.2f}, median {ours[1] / base[1]:.2f}"
        )
    print(f"    load average after: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--hidden", type=int, default=512)
    parser.add_argument("--d", type=int, default=63)
    parser.add_argument("--batch", type=int, default=128)
    args = parser.parse_args()
    try:
        import torch
    except ImportError:
        torch = None
        print("PyTorch not installed: the comparison is skipped (pip install 'icl-verify[torch]')")
    for threads in sorted({1, os.cpu_count() or 1}):
        with blas_threads(threads):
            compare(args, torch, threads)


if __name__ == "__main__":
    main()
