"""Benchmark: LSA meta-training steps per second, NumPy (analytic gradients) vs PyTorch (autograd) on the CPU.

Both run the *same* training in one process: same initial weights, the same fresh task batches
(drawn by ``numerics.lsa.regression.sample_tasks`` from one generator), the same ½·MSE loss, global-norm
clipping and Adam with the same schedule — so besides the speed the script reports how far the two
loss curves drift apart (float32 round-off only). PyTorch is optional: without it only NumPy runs.

    python benchmarks/bench_lsa_training.py            # default cases
    python benchmarks/bench_lsa_training.py --steps 300 --threads 2

Not a timed test: results go to docs/performance.md ("Trained LSA").
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from dataclasses import asdict, replace

import numpy as np

from icl_verify.numerics.lsa.training import TrainConfig, batch_tokens, init_layers, learning_rate, loss_and_grads
from icl_verify.numerics.shared.optim import Adam, clip_by_global_norm

CASES = {
    "1 layer, batch 2048 (paper)": TrainConfig(batch=2048, lr=1e-3),
    "1 layer, batch 512": TrainConfig(batch=512, lr=3e-3, schedule="cosine"),
    "3 layers tied, batch 1024": TrainConfig(n_layers=3, recurrent=True, batch=1024, lr=3e-3, schedule="cosine"),
    "3 layers untied, batch 1024": TrainConfig(n_layers=3, batch=1024, lr=3e-3, schedule="cosine"),
}


def run_numpy(config: TrainConfig, seed: int) -> tuple[np.ndarray, float]:
    """The loop of ``numerics.lsa.training.train`` with the sampling inline; returns (losses, seconds)."""
    rng = np.random.default_rng(seed)
    layers, opt = init_layers(config, rng), Adam(lr=config.lr)
    losses = np.empty(config.steps)
    t0 = time.perf_counter()
    for step in range(config.steps):
        tokens, y_q = batch_tokens(config, rng)
        losses[step], grads = loss_and_grads(layers, tokens, y_q, config)
        grads, _ = clip_by_global_norm(grads, config.clip)
        layers = opt.step(layers, grads, learning_rate(config, step))
    return losses, time.perf_counter() - t0


def run_torch(config: TrainConfig, seed: int) -> tuple[np.ndarray, float]:
    """The same training written with torch autograd, torch.optim.Adam and clip_grad_norm_."""
    import torch

    rng = np.random.default_rng(seed)
    layers = [{k: torch.tensor(v, requires_grad=True) for k, v in layer.items()} for layer in init_layers(config, rng)]
    params = [p for layer in layers for p in layer.values()]
    opt = torch.optim.Adam(params, lr=config.lr, betas=(0.9, 0.999), eps=1e-8)
    order = [0] * config.n_layers if config.recurrent else list(range(config.n_layers))
    n, nx = config.n_context, config.nx
    losses = np.empty(config.steps)
    t0 = time.perf_counter()
    for step in range(config.steps):
        tokens, y_q = (torch.from_numpy(a) for a in batch_tokens(config, rng))
        E = tokens
        for i in order:
            V = layers[i]["P"] @ layers[i]["W_V"]
            K = layers[i]["W_K"].transpose(1, 2) @ layers[i]["W_Q"]
            C = E[:, :n].transpose(1, 2) @ E[:, :n]
            M = sum(V[h] @ C @ K[h] for h in range(V.shape[0]))
            E = E + E @ M.transpose(1, 2)
        loss = 0.5 * torch.mean((-E[:, n:, nx:] - y_q) ** 2)
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, config.clip)
        for group in opt.param_groups:
            group["lr"] = learning_rate(config, step)
        opt.step()
        losses[step] = float(loss)
    return losses, time.perf_counter() - t0


def bench(name: str, config: TrainConfig, seed: int) -> dict:
    """Steps/s of both implementations on one case and the largest relative gap between their loss curves."""
    run_numpy(replace(config, steps=5), seed)  # warm-up
    np_losses, np_s = run_numpy(config, seed)
    row = {"case": name, "steps": config.steps, "numpy_steps_per_s": config.steps / np_s}
    try:
        import torch
    except ImportError:
        row["torch"] = "not installed"
        return row
    run_torch(replace(config, steps=5), seed)
    t_losses, t_s = run_torch(config, seed)
    row.update(
        torch_version=torch.__version__,
        torch_threads=torch.get_num_threads(),
        torch_steps_per_s=config.steps / t_s,
        max_rel_loss_gap=float(np.max(np.abs(np_losses - t_losses) / np.abs(t_losses))),
        final_loss_numpy=float(np.mean(np_losses[-20:])),
        final_loss_torch=float(np.mean(t_losses[-20:])),
    )
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=None, help="torch.set_num_threads (default: torch's own)")
    args = parser.parse_args()
    if args.threads is not None:
        try:
            import torch

            torch.set_num_threads(args.threads)
        except ImportError:
            pass
    print(f"# {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, numpy {np.__version__}")
    for name, config in CASES.items():
        row = bench(name, replace(config, steps=args.steps), args.seed)
        print(json.dumps(row | {"config": {k: v for k, v in asdict(config).items() if k != "steps"}}))


if __name__ == "__main__":
    main()
