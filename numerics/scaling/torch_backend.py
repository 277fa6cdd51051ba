"""PyTorch backend of the memorization trainer (Nguyen & Reddy 2025, §3.6), on the CPU or a CUDA GPU.

:class:`TorchSGD` is :class:`~icl_verify.numerics.scaling.memorization.StackedSGD` in PyTorch: the same
MLP D → H → H → 1 (``numerics.shared.mlp``), the same mean BCE on ±1 labels and plain SGD, the same
batches (the indices are drawn by the NumPy generators of ``memorize`` and gathered on the device),
and the same hand-written backward pass with every update fused into the batched GEMM that forms its
gradient (``baddbmm_`` with α = −1). All M stacked networks go through each layer as one batched
call. Float32 products stay float32 on CUDA (PyTorch's default ``allow_tf32 = False`` for matmul).

Optional: install with ``pip install 'icl-verify[torch]'``. Only this module imports torch, and only
``memorize(..., MemorizationSettings(backend="torch"))`` imports this module.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np

from icl_verify.errors import InvalidArgument
from icl_verify.numerics.shared.checks import finite_scalar, positive_int
from icl_verify.numerics.shared.mlp import MLP

try:
    import torch
except ImportError:  # pragma: no cover - exercised where torch is absent
    torch = None


def torch_device(device: str) -> torch.device:
    """The PyTorch device named ``device`` ("cpu", "cuda", "cuda:1"…), checked to exist; ValueError otherwise."""
    if torch is None:
        raise InvalidArgument("backend 'torch' needs PyTorch, which is not installed (pip install 'icl-verify[torch]')")
    try:
        dev = torch.device(device)
    except (RuntimeError, TypeError):
        raise InvalidArgument(
            f"device must be a PyTorch device such as 'cpu', 'cuda' or 'cuda:1', got {device!r}"
        ) from None
    if dev.type == "cuda" and not torch.cuda.is_available():
        raise InvalidArgument(
            f"device {device!r}: CUDA is not available to PyTorch {torch.__version__} on this machine"
        )
    if dev.type == "cuda" and dev.index is not None and dev.index >= torch.cuda.device_count():
        raise InvalidArgument(f"device {device!r}: only {torch.cuda.device_count()} CUDA device(s) visible")
    if dev.type not in ("cpu", "cuda"):
        raise InvalidArgument(f"device must be 'cpu' or a CUDA device, got {device!r}")
    return dev


@contextmanager
def torch_threads(n: int) -> Iterator[None]:
    """Run the block with ``n`` PyTorch CPU threads, restoring the previous number afterwards.

    As for OpenBLAS (``numerics.shared.threads.blas_threads``): the batched products of the trainer are
    small, and PyTorch's threaded path for them is many times slower on a shared 2-core machine.
    """
    n, before = positive_int("n", n), torch.get_num_threads()
    torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(before)


class TorchSGD:
    """Plain SGD on M stacked MLPs in PyTorch, all buffers preallocated on ``device``; the interface of ``StackedSGD``."""

    def __init__(self, params: MLP, batch: int, lr: float, device: str = "cpu") -> None:
        self.device = torch_device(device)
        self.lr = finite_scalar("lr", lr, positive=True)
        batch = positive_int("batch", batch)
        self.W1, self.b1, self.W2, self.b2, self.w3, self.b3 = (
            torch.from_numpy(np.array(a, copy=True)).to(self.device) for a in params.arrays()
        )
        m, d, h = self.W1.shape

        def empty(*shape: int) -> torch.Tensor:
            return torch.empty(shape, dtype=self.W1.dtype, device=self.device)

        self.x, self.y, self.z, self.g = empty(m, batch, d), empty(m, batch), empty(m, batch, 1), empty(m, batch)
        self.h1, self.h2, self.d1, self.d2 = (empty(m, batch, h) for _ in range(4))
        self.db, self.db3 = empty(m, h), empty(m)
        self.mask = torch.empty((m, batch, h), dtype=torch.bool, device=self.device)
        self.items, self.labels = empty(0, d), empty(0)

    def set_items(self, items: np.ndarray, labels: np.ndarray) -> None:
        """The training items ``(M, K_max, D)`` and labels ``(M, K_max)``, copied to the device once."""
        self.items = torch.from_numpy(np.ascontiguousarray(items.reshape(-1, items.shape[-1]))).to(self.device)
        self.labels = torch.from_numpy(np.ascontiguousarray(labels.reshape(-1))).to(self.device)

    def step_indices(self, idx: np.ndarray) -> None:
        """One SGD step on the batch of rows ``idx (M, B)`` of the flattened items (gathered on the device)."""
        rows = torch.from_numpy(idx.reshape(-1)).to(self.device, non_blocking=True)
        torch.index_select(self.items, 0, rows, out=self.x.view(-1, self.x.shape[-1]))
        torch.index_select(self.labels, 0, rows, out=self.y.view(-1))
        self.step_loaded()

    def step(self, x: np.ndarray, y: np.ndarray) -> None:
        """One SGD step θ ← θ − lr ∇θ L on every network, batch ``x (M, B, D)``, ``y (M, B)`` (NumPy arrays)."""
        self.x.copy_(torch.as_tensor(x, dtype=self.x.dtype))
        self.y.copy_(torch.as_tensor(y, dtype=self.y.dtype))
        self.step_loaded()

    def step_loaded(self) -> None:
        """One SGD step on the batch in :attr:`x`, :attr:`y`: the forward and backward passes of ``StackedSGD.step_loaded``."""
        h1, h2, d1, d2, g, mask = self.h1, self.h2, self.d1, self.d2, self.g, self.mask
        torch.baddbmm(self.b1[:, None, :], self.x, self.W1, out=h1).relu_()
        torch.baddbmm(self.b2[:, None, :], h1, self.W2, out=h2).relu_()
        torch.baddbmm(self.b3[:, None, None], h2, self.w3[..., None], out=self.z)
        # g = lr ∂L/∂φ = −(lr/B) ℓ σ(−ℓφ)  (numerics.shared.mlp.bce_gradient)
        torch.mul(self.z[..., 0], self.y, out=g).neg_().sigmoid_().mul_(self.y).mul_(-self.lr / g.shape[-1])
        torch.mul(g[..., None], self.w3[:, None, :], out=d2).mul_(torch.gt(h2, 0, out=mask))
        torch.bmm(d2, self.W2.transpose(1, 2), out=d1).mul_(torch.gt(h1, 0, out=mask))
        self.W2.baddbmm_(h1.transpose(1, 2), d2, alpha=-1)
        self.b2.sub_(torch.sum(d2, 1, out=self.db))
        self.w3[..., None].baddbmm_(h2.transpose(1, 2), g[..., None], alpha=-1)
        self.b3.sub_(torch.sum(g, 1, out=self.db3))
        self.W1.baddbmm_(self.x.transpose(1, 2), d1, alpha=-1)
        self.b1.sub_(torch.sum(d1, 1, out=self.db))

    def numpy_params(self) -> MLP:
        """The current weights as NumPy arrays on the host (a copy; waits for the device)."""
        return MLP(*(t.numpy(force=True).copy() for t in (self.W1, self.b1, self.W2, self.b2, self.w3, self.b3)))


# ---------------------------------------------------------------------------------------------
# Examples for the bad-input fuzzer (numerics.shared.fuzz)

FUZZ_EXEMPT = {name: "needs the optional torch extra" for name in ("torch_device", "torch_threads")}
