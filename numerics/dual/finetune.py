"""Fine-tuning the keys and values of relaxed linear attention (the FT side of Dai et al. 2023, §3.3).

Rows convention as in ``numerics.dual.attention``: ``text`` is the query text X (one token per row), ``W_V`` and
``W_K`` act on a token x as W x. The zero-shot attention weight is W_ZSL = W_V S W_Kᵀ with S = XᵀX
(rows), so F_ZSL(q) = W_ZSL q (eq. 9). Fine-tuning on the demonstrations minimises the linear loss

    L(W_V, W_K) = −Σ_i t_iᵀ W_V S W_Kᵀ q_i,

the negative score of the target value t_i at the query q_i (rows of ``targets`` and ``queries``): a
loss whose gradient is a sum of outer products, chosen so that both sides of the comparison are exact.
"""

from __future__ import annotations

from typing import TypeVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from icl_verify.numerics.shared.checks import finite_array, finite_result, finite_scalar, same_size
from icl_verify.numerics.shared.fuzz import Fuzz

T = TypeVar("T")


def _inputs(
    W_V: ArrayLike, W_K: ArrayLike, text: ArrayLike, targets: ArrayLike, queries: ArrayLike
) -> tuple[NDArray[np.float64], ...]:
    W_V = finite_array("W_V", W_V, ndim=2, nonempty=True)
    W_K = finite_array("W_K", W_K, ndim=2, nonempty=True)
    text = finite_array("text", text, ndim=2)
    targets = finite_array("targets", targets, ndim=2)
    queries = finite_array("queries", queries, ndim=2)
    same_size("W_K", W_K.shape[1], W_V.shape[1], "input width (axis 1) of W_V")
    same_size("text", text.shape[1], W_V.shape[1], "token width (axis 1) = input width of W_V")
    same_size("targets", targets.shape[1], W_V.shape[0], "width (axis 1) = rows of W_V")
    same_size("queries", queries.shape[1], W_K.shape[0], "width (axis 1) = rows of W_K")
    same_size("queries", queries.shape[0], targets.shape[0], "number of rows of targets")
    return W_V, W_K, text, targets, queries


def _checked(value: T, names: str) -> T:
    return finite_result(value, f"{names} overflow float64 in the fine-tuning step (entries too large)")


def linear_loss_gradients(
    W_V: ArrayLike, W_K: ArrayLike, text: ArrayLike, targets: ArrayLike, queries: ArrayLike
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """(∇_{W_V} L, ∇_{W_K} L) = (−Tᵀ Q W_K S, −Qᵀ T W_V S) for L = −Σ_i t_iᵀ W_V S W_Kᵀ q_i, S = XᵀX."""
    W_V, W_K, X, T, Q = _inputs(W_V, W_K, text, targets, queries)
    with np.errstate(all="ignore"):
        S = X.T @ X
        return _checked((-(T.T @ Q) @ W_K @ S, -(Q.T @ T) @ W_V @ S), "W_V, W_K, text, targets and queries")


def finetune_step(
    W_V: ArrayLike,
    W_K: ArrayLike,
    text: ArrayLike,
    targets: ArrayLike,
    queries: ArrayLike,
    lr: float,
    *,
    train_keys: bool,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """One full-batch GD step of rate ``lr`` on L: W_V − lr ∇_{W_V} L, and W_K − lr ∇_{W_K} L if ``train_keys``."""
    lr = finite_scalar("lr", lr, positive=True)
    W_V, W_K = finite_array("W_V", W_V, ndim=2), finite_array("W_K", W_K, ndim=2)
    grad_V, grad_K = linear_loss_gradients(W_V, W_K, text, targets, queries)
    with np.errstate(all="ignore"):
        new = (W_V - lr * grad_V, W_K - lr * grad_K if train_keys else W_K)
    return _checked(new, "lr and the gradients")


def delta_w_ft(
    W_V: ArrayLike,
    W_K: ArrayLike,
    text: ArrayLike,
    targets: ArrayLike,
    queries: ArrayLike,
    lr: float,
    *,
    train_keys: bool,
) -> NDArray[np.float64]:
    """ΔW_FT = W_V' S W_K'ᵀ − W_V S W_Kᵀ: the change of the zero-shot weight after one step (Dai et al. §3.3)."""
    new_V, new_K = finetune_step(W_V, W_K, text, targets, queries, lr, train_keys=train_keys)
    W_V, W_K, X = np.asarray(W_V, float), np.asarray(W_K, float), np.asarray(text, float)
    with np.errstate(all="ignore"):
        S = X.T @ X
        return _checked(new_V @ S @ new_K.T - W_V @ S @ W_K.T, "W_V, W_K, text, targets, queries and lr")


# ---------------------------------------------------------------------------------------------
# Examples for the bad-input fuzzer (numerics.shared.fuzz)


def _example_finetuning() -> dict[str, NDArray[np.float64]]:
    r = np.random.default_rng(11)
    return {"W_V": r.standard_normal((3, 2)), "W_K": r.standard_normal((2, 2)), "text": r.standard_normal((2, 2))} | {
        "targets": r.standard_normal((4, 3)),
        "queries": r.standard_normal((4, 2)),
    }


FUZZ = {
    "linear_loss_gradients": Fuzz(_example_finetuning),
    "finetune_step": Fuzz(lambda: _example_finetuning() | {"lr": 0.1, "train_keys": True}, fixed=("train_keys",)),
    "delta_w_ft": Fuzz(lambda: _example_finetuning() | {"lr": 0.1, "train_keys": True}, fixed=("train_keys",)),
}
