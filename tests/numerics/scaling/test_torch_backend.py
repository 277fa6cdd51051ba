"""The PyTorch backend of the memorization trainer (numerics.scaling.torch_backend): step by step equal to
the NumPy trainer from the same weights and batches (float64 to rounding, float32 within float32
tolerance), ``memorize(backend="torch")`` logging the same runs, devices checked, the command wired.
Skipped where PyTorch is not installed."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

# torch is the optional `torch` extra: without it this whole module has nothing to test (the NumPy
# trainer and the exit-2 message for a missing torch are tested in the default suite).
torch = pytest.importorskip("torch")

from icl_verify.numerics.scaling import memorization as mem  # noqa: E402
from icl_verify.numerics.scaling import torch_backend as tb  # noqa: E402
from icl_verify.numerics.shared import mlp  # noqa: E402

TINY = mem.MemorizationSettings(d=16, hidden=32, lr=0.5, batch=32, max_steps=50_000, min_log_gap=5)
# The CUDA comparison needs a GPU; on a CPU-only machine the CPU comparisons above cover the backend.
CUDA = pytest.mark.skipif(
    not torch.cuda.is_available(), reason="no CUDA device: the CPU comparisons of the backend run instead"
)


@pytest.fixture(autouse=True)
def _one_torch_thread():
    """As the sweep jobs run: PyTorch's threaded path for these small batched products is slow on a shared machine."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def _train_both(dtype: type, steps: int, device: str = "cpu", m: int = 2, d: int = 7, h: int = 16, b: int = 8):
    """The NumPy and the torch trainer after ``steps`` SGD steps from the same weights on the same batches."""
    params = mlp.init_stacked([np.random.default_rng(i) for i in range(m)], d, h, dtype)
    ours, theirs = mem.StackedSGD(params, b, 0.5), tb.TorchSGD(params, b, 0.5, device)
    rng = np.random.default_rng(0)
    for _ in range(steps):
        x = rng.standard_normal((m, b, d)).astype(dtype)
        y = np.where(rng.random((m, b)) < 0.5, -1.0, 1.0).astype(dtype)
        ours.step(x, y)
        theirs.step(x, y)
    return ours.numpy_params(), theirs.numpy_params()


def test_float64_steps_equal_the_numpy_trainer_to_rounding():
    a, b = _train_both(np.float64, 100)
    for u, w in zip(a.arrays(), b.arrays()):
        np.testing.assert_allclose(w, u, rtol=1e-12, atol=1e-14)


def test_float32_steps_equal_the_numpy_trainer_within_float32_tolerance():
    a, b = _train_both(np.float32, 100)
    for u, w in zip(a.arrays(), b.arrays()):
        assert w.dtype == np.float32
        np.testing.assert_allclose(w, u, rtol=1e-4, atol=1e-5)  # 100 steps × a few ulp (6e-8) of O(1) weights


def test_one_step_moves_the_weights():
    """The comparison above is not vacuous: one step changes every parameter array."""
    params = mlp.init_stacked([np.random.default_rng(0)], 7, 16)
    trainer = tb.TorchSGD(params, 8, 0.5)
    trainer.step(np.ones((1, 8, 7), np.float32), np.ones((1, 8), np.float32))
    for before, after in zip(params.arrays(), trainer.numpy_params().arrays()):
        assert not np.array_equal(before, after)


def test_memorize_with_torch_logs_the_numpy_runs():
    numpy_runs = mem.memorize([64, 128], [0, 1], TINY)
    torch_runs = mem.memorize([64, 128], [0, 1], replace(TINY, backend="torch"))
    for u, w in zip(numpy_runs, torch_runs):
        assert w.converged and w.steps == u.steps
        # same batches and float32 weights as above, so c₁ agrees to the same float32 bound
        np.testing.assert_allclose(w.c1, u.c1, rtol=1e-4, atol=1e-6)
        assert w.summary()["settings"]["backend"] == "torch"


def test_sweep_job_runs_on_torch_with_one_thread_and_restores_the_count():
    before = torch.get_num_threads()
    settings = {"d": 8, "hidden": 16, "lr": 0.5, "batch": 16, "max_steps": 30, "min_log_gap": 10, "backend": "torch"}
    (run,) = mem.sweep_job({"ks": [32], "seeds": [0], "settings": settings})
    assert run["final_step"] == 30 and run["settings"]["device"] == "cpu"
    assert torch.get_num_threads() == before


@pytest.mark.parametrize("device", ["bogus", "cuda:0x", "meta"])
def test_bad_devices_raise(device):
    with pytest.raises(ValueError, match="device"):
        tb.torch_device(device)


# The error for a missing GPU can only be provoked where there is none; with a GPU the CUDA test runs instead.
@pytest.mark.skipif(
    torch.cuda.is_available(), reason="a CUDA device is present: the missing-GPU error cannot occur; the CUDA test runs"
)
def test_missing_cuda_is_a_clear_error_and_exit_2(tmp_path):
    from click.testing import CliRunner

    from icl_verify.cli.scaling import command

    with pytest.raises(ValueError, match="CUDA is not available"):
        mem.memorize([32], [0], replace(TINY, backend="torch", device="cuda"))
    out = tmp_path / "r.jsonl"
    result = CliRunner().invoke(
        command, ["--preset", "paper", "--backend", "torch", "--device", "cuda", "--out-file", str(out)]
    )
    assert result.exit_code == 2 and "CUDA is not available" in result.output and not out.exists()


@CUDA
def test_cuda_steps_equal_the_numpy_trainer_within_float32_tolerance():
    a, b = _train_both(np.float32, 100, device="cuda")
    # float32 (ε ≈ 6e-8) sums in another order on the GPU, accumulated over 100 steps: the CPU float32 bound
    for u, w in zip(a.arrays(), b.arrays()):
        np.testing.assert_allclose(w, u, rtol=1e-4, atol=1e-5)


def test_missing_torch_is_exit_2_naming_the_extra(monkeypatch, tmp_path):
    from click.testing import CliRunner

    from icl_verify.cli.scaling import command

    monkeypatch.setattr(tb, "torch", None)  # as where PyTorch is not installed
    out = tmp_path / "r.jsonl"
    result = CliRunner().invoke(command, ["--backend", "torch", "--out-file", str(out)])
    assert result.exit_code == 2 and "icl-verify[torch]" in result.output and not out.exists()
