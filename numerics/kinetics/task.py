"""The item–label in-context task of Nguyen & Reddy (ICLR 2025, arXiv 2412.00104, §2; conventions in docs/reference.md).

K item–label pairs x_k ~ N(0, I_D/D), ℓ_k ∈ {±1} with exactly K/2 of each label. A training
sequence holds N context pairs drawn uniformly (with replacement) from the K pairs and a query
item whose label is hidden; the query item always occurs in the context. Conventions, as in the
authors' code (main_icl.py): draw N + 1 indices; if the query's is not among the N context ones,
replace it by a uniformly chosen context index. K → ∞ (``task=None``): every sequence draws N
fresh items with random ±1 labels and the query copies one of them.

Evaluation sets, as the paper measures them:
* ICL — novel items (never trained on), query in context (:func:`sample_icl_eval`);
* IWL — training items, N distinct ones in the context, the query not among them
  (:func:`sample_iwl_eval`), so only memorisation can answer.

Equalised contexts (§3.7; the code's ``is_equalize_classes``): exactly N/2 context pairs of each
label (N even), the query a copy of one of them.

Arrays are batch first, tokens as rows; float32.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from icl_verify.numerics.scaling.memorization import even_k, sample_items
from icl_verify.numerics.shared.checks import positive_int


@dataclass(frozen=True)
class ItemLabelTask:
    """The K training pairs: ``items (K, D)``, ``labels (K,)`` in {±1}; ``seed`` as recorded."""

    items: np.ndarray
    labels: np.ndarray
    seed: int | None = None

    @property
    def k(self) -> int:
        return self.items.shape[0]

    @property
    def d(self) -> int:
        return self.items.shape[1]


@dataclass(frozen=True)
class Sequences:
    """A batch of sequences: context ``x (B, N, D)``, ``labels (B, N)``; query ``x_q (B, D)``, ``l_q (B,)``."""

    x: np.ndarray
    labels: np.ndarray
    x_q: np.ndarray
    l_q: np.ndarray


def _rng(rng: object) -> np.random.Generator:
    if not isinstance(rng, np.random.Generator):
        raise ValueError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    return rng


def make_task(k: int, d: int, rng: np.random.Generator, *, seed: int | None = None) -> ItemLabelTask:
    """K balanced item–label pairs in dimension D (K must be even); ``seed`` is only recorded."""
    items, labels = sample_items(_rng(rng), even_k("k", k), positive_int("d", d))
    return ItemLabelTask(items, labels, seed)


def _equalised_n(n: int) -> int:
    if n % 2:
        raise ValueError(f"n must be even for equalised contexts, got {n}")
    return n


def _index_sequences(rng: np.random.Generator, labels: np.ndarray, n: int, batch: int, equalised: bool):
    """Context indices (B, N) into the K pairs and the query's position in the context (B,)."""
    k = labels.size
    if equalised:
        plus, minus = np.flatnonzero(labels > 0), np.flatnonzero(labels < 0)
        idx = np.concatenate([rng.choice(plus, (batch, n // 2)), rng.choice(minus, (batch, n // 2))], axis=1)
        return idx, rng.integers(0, n, batch)
    idx = rng.integers(0, k, (batch, n + 1))
    ctx, query = idx[:, :n], idx[:, n]
    present = ctx == query[:, None]
    pos = np.where(present.any(axis=1), present.argmax(axis=1), rng.integers(0, n, batch))
    return ctx, pos


def _fresh(rng: np.random.Generator, d: int, n: int, batch: int, equalised: bool) -> tuple[np.ndarray, np.ndarray]:
    """K → ∞: fresh items (B, N, D) and ±1 labels (B, N) — exactly N/2 of each when equalised."""
    x = rng.standard_normal((batch, n, d), dtype=np.float32) * np.float32(1 / np.sqrt(d))
    if equalised:
        base = np.repeat(np.array([1.0, -1.0], dtype=np.float32), n // 2)
        labels = rng.permuted(np.broadcast_to(base, (batch, n)), axis=1)
    else:
        labels = (2 * rng.integers(0, 2, (batch, n), dtype=np.int8) - 1).astype(np.float32)
    return x, labels


def _with_query(x: np.ndarray, labels: np.ndarray, pos: np.ndarray) -> Sequences:
    rows = np.arange(x.shape[0])
    return Sequences(x, labels, x[rows, pos], labels[rows, pos])


def sample_training(
    task: ItemLabelTask | None,
    n: int,
    batch: int,
    rng: np.random.Generator,
    *,
    d: int | None = None,
    equalised: bool = False,
) -> Sequences:
    """Training sequences from ``task`` (or K → ∞ fresh items of dimension ``d`` when ``task`` is None)."""
    rng, n, batch = _rng(rng), positive_int("n", n), positive_int("batch", batch)
    if equalised:
        _equalised_n(n)
    if task is None:
        x, labels = _fresh(rng, positive_int("d", d), n, batch, equalised)
        return _with_query(x, labels, rng.integers(0, n, batch))
    idx, pos = _index_sequences(rng, task.labels, n, batch, equalised)
    return _with_query(task.items[idx], task.labels[idx], pos)


def sample_icl_eval(d: int, n: int, batch: int, rng: np.random.Generator, *, equalised: bool = False) -> Sequences:
    """ICL evaluation: novel items (fresh every sequence), the query in the context."""
    return sample_training(None, n, batch, rng, d=d, equalised=equalised)


def sample_iwl_eval(task: ItemLabelTask, n: int, batch: int, rng: np.random.Generator) -> Sequences:
    """IWL evaluation: N distinct training items in the context and a training query not among them."""
    rng, n, batch = _rng(rng), positive_int("n", n), positive_int("batch", batch)
    if task.k < n + 1:
        raise ValueError(f"n must be below the number of training items K = {task.k} for IWL evaluation, got {n}")
    idx = np.argsort(rng.random((batch, task.k)), axis=1)[:, : n + 1]
    ctx, query = idx[:, :n], idx[:, n]
    return Sequences(task.items[ctx], task.labels[ctx], task.items[query], task.labels[query])
