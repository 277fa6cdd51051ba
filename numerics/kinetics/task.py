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

What a model reads. The transformer (``numerics.kinetics.transformer``) reads the items themselves:
:class:`Sequences` (:func:`sample_training`, :func:`sample_icl_eval`, :func:`sample_iwl_eval`). The
reduced model of §3.2, z = φ(x_q) + w Σ_j softmax_j(β x_q·x_j) ℓ_j, reads only the query x_q (for the
MLP φ), the N attention scores g_j = x_j·x_q and the labels: :class:`Scores`
(:func:`sample_training_scores`, :func:`sample_icl_eval_scores`, :func:`sample_iwl_eval_scores`),
drawn without forming the B × N × D context items:

* K → ∞ (fresh items), exact in distribution. In a sequence the query is a copy of the context item
  at a uniform position p, and the other N − 1 context items x_j are independent of it, x_j ~ N(0, I_D/D).
  Conditionally on x_q, g_j = x_j·x_q is a linear form of a Gaussian vector, so
  g_j | x_q ~ N(0, x_qᵀ (I_D/D) x_q) = N(0, |x_q|²/D), independently over j ≠ p, and g_p = |x_q|². So
  x_q ~ N(0, I_D/D) (B × D normals) and z ~ N(0, 1) (B × N) give g_j = z_j |x_q|/√D (j ≠ p),
  g_p = |x_q|²: B(N + D) normals instead of B N D, with the joint law of (x_q, g, ℓ) unchanged
  (the labels are independent of the items, as in :func:`sample_training`).
* Finite K: g_j is an entry of the K × K Gram matrix G = X Xᵀ of the training items, formed once per
  task in float64 and rounded to float32 (:attr:`ItemLabelTask.gram`, for K ≤ :data:`GRAM_MAX_K`), and
  gathered as G[ctx_j, query]; above GRAM_MAX_K (G would not fit) the scores are the dot products of
  the gathered float32 items. The indices are drawn exactly as for :class:`Sequences`, so both views
  of a draw hold the same sequences.

Arrays are batch first, tokens as rows; float32.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from icl_verify.errors import InvalidArgument
from icl_verify.numerics.shared.checks import positive_int
from icl_verify.numerics.shared.items import even_k, sample_items

GRAM_MAX_K = 4096
"""Largest K whose Gram matrix a task keeps: 4 K² bytes in float32 (64 MiB at K = 4096; 12 K² while it is
formed in float64). Above it the scores are formed from the gathered items, B N D products per batch."""


def gram(items: np.ndarray) -> np.ndarray:
    """G = X Xᵀ ``(K, K)`` of the items (rows), accumulated in float64 and rounded once to float32."""
    x = np.asarray(items, dtype=np.float64)
    return (x @ x.T).astype(np.float32)


@dataclass(frozen=True)
class ItemLabelTask:
    """The K training pairs: ``items (K, D)``, ``labels (K,)`` in {±1}; ``seed`` as recorded;
    ``gram`` = :func:`gram` of the items (None for K above :data:`GRAM_MAX_K`)."""

    items: np.ndarray
    labels: np.ndarray
    seed: int | None = None
    gram: np.ndarray | None = field(default=None, repr=False)

    @property
    def k(self) -> int:
        return self.items.shape[0]

    @property
    def d(self) -> int:
        return self.items.shape[1]

    def scores(self, ctx: np.ndarray, query: np.ndarray) -> np.ndarray:
        """g[b, j] = x_{ctx[b, j]}·x_{query[b]} ``(B, N)`` for index arrays ``ctx (B, N)``, ``query (B,)``:
        gathered from the Gram matrix (as entries of its flattened rows, G[i, q] = G.flat[i K + q]), or dot
        products of the gathered items when there is none."""
        if self.gram is not None:
            return np.take(self.gram.reshape(-1), ctx * self.k + query[:, None])
        return np.einsum("bnd,bd->bn", self.items[ctx], self.items[query])


@dataclass(frozen=True)
class Sequences:
    """A batch of sequences: context ``x (B, N, D)``, ``labels (B, N)``; query ``x_q (B, D)``, ``l_q (B,)``."""

    x: np.ndarray
    labels: np.ndarray
    x_q: np.ndarray
    l_q: np.ndarray


@dataclass(frozen=True)
class Scores:
    """What the reduced model reads of a batch of sequences: the scores ``g (B, N)``, g_j = x_j·x_q, the
    context ``labels (B, N)``, the query ``x_q (B, D)`` and its label ``l_q (B,)`` (module docstring)."""

    g: np.ndarray
    labels: np.ndarray
    x_q: np.ndarray
    l_q: np.ndarray


def _rng(rng: object) -> np.random.Generator:
    if not isinstance(rng, np.random.Generator):
        raise InvalidArgument(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    return rng


def make_task(k: int, d: int, rng: np.random.Generator, *, seed: int | None = None) -> ItemLabelTask:
    """K balanced item–label pairs in dimension D (K must be even), with their Gram matrix for
    K ≤ :data:`GRAM_MAX_K`; ``seed`` is only recorded."""
    items, labels = sample_items(_rng(rng), even_k("k", k), positive_int("d", d))
    return ItemLabelTask(items, labels, seed, gram(items) if k <= GRAM_MAX_K else None)


def _checked(rng: object, n: object, batch: object, equalised: bool) -> tuple[np.random.Generator, int, int]:
    """The sampler arguments, validated: a Generator, N ≥ 1 (even for equalised contexts), batch ≥ 1."""
    return (_rng(rng), *_sizes(n, batch, equalised))


def _sizes(n: object, batch: object, equalised: bool) -> tuple[int, int]:
    """N ≥ 1 (even for equalised contexts) and batch ≥ 1, validated."""
    n, batch = positive_int("n", n), positive_int("batch", batch)
    if equalised and n % 2:
        raise InvalidArgument(f"n must be even for equalised contexts, got {n}")
    return n, batch


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


def _iwl_indices(rng: np.random.Generator, task: ItemLabelTask, n: int, batch: int):
    """N distinct context indices (B, N) and a query index outside them (B,), uniformly."""
    if task.k < n + 1:
        raise InvalidArgument(f"n must be below the number of training items K = {task.k} for IWL evaluation, got {n}")
    keys = rng.random((batch, task.k))
    # the n + 1 smallest keys in increasing order (argsort's first n + 1): partition, then sort only those
    low = np.argpartition(keys, n, axis=1)[:, : n + 1]
    idx = np.take_along_axis(low, np.take_along_axis(keys, low, axis=1).argsort(axis=1), axis=1)
    return idx[:, :n], idx[:, n]


def _fresh_labels(rng: np.random.Generator, n: int, batch: int, equalised: bool) -> np.ndarray:
    """K → ∞: ±1 labels (B, N), independent and uniform — exactly N/2 of each when equalised."""
    if equalised:
        base = np.repeat(np.array([1.0, -1.0], dtype=np.float32), n // 2)
        return rng.permuted(np.broadcast_to(base, (batch, n)), axis=1)
    return (2 * rng.integers(0, 2, (batch, n), dtype=np.int8) - 1).astype(np.float32)


def _fresh_items(rng: np.random.Generator, shape: tuple[int, ...], d: int) -> np.ndarray:
    """Items x ~ N(0, I_D/D) of the given leading shape, float32."""
    return rng.standard_normal((*shape, d), dtype=np.float32) * np.float32(1 / np.sqrt(d))


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
    rng, n, batch = _checked(rng, n, batch, equalised)
    if task is None:
        x = _fresh_items(rng, (batch, n), positive_int("d", d))
        labels = _fresh_labels(rng, n, batch, equalised)
        return _with_query(x, labels, rng.integers(0, n, batch))
    idx, pos = _index_sequences(rng, task.labels, n, batch, equalised)
    return _with_query(task.items[idx], task.labels[idx], pos)


def _fresh_scores(rng: np.random.Generator, d: int, n: int, batch: int, equalised: bool) -> Scores:
    """K → ∞ scores from the sufficient statistics (module docstring): g_j = z_j |x_q|/√D, g_p = |x_q|².

    Draws, in this order: x_q (B, D), z (B, N), the labels (B, N), the query position p (B,).
    """
    x_q = _fresh_items(rng, (batch,), d)
    sq = np.einsum("bd,bd->b", x_q.astype(np.float64), x_q.astype(np.float64))
    g = rng.standard_normal((batch, n), dtype=np.float32) * np.sqrt(sq / d).astype(np.float32)[:, None]
    labels = _fresh_labels(rng, n, batch, equalised)
    rows, pos = np.arange(batch), rng.integers(0, n, batch)
    g[rows, pos] = sq.astype(np.float32)
    return Scores(g, labels, x_q, labels[rows, pos])


def _task_scores(task: ItemLabelTask, ctx: np.ndarray, query: np.ndarray) -> Scores:
    return Scores(task.scores(ctx, query), task.labels[ctx], task.items[query], task.labels[query])


def sample_training_scores(
    task: ItemLabelTask | None,
    n: int,
    batch: int,
    rng: np.random.Generator,
    *,
    d: int | None = None,
    equalised: bool = False,
) -> Scores:
    """:func:`sample_training` as the reduced model reads it (:class:`Scores`); for a task the same draws
    give the same sequences, for K → ∞ (``task`` None) the same law from B(N + D) normals."""
    rng = _rng(rng)
    return training_scores_sampler(task, n, batch, d=d, equalised=equalised)(rng)


def training_scores_sampler(
    task: ItemLabelTask | None, n: int, batch: int, *, d: int | None = None, equalised: bool = False
) -> Callable[[np.random.Generator], Scores]:
    """:func:`sample_training_scores` with its settings validated once: ``sampler(rng)`` draws a batch
    (a training loop draws thousands; the generator is not checked again)."""
    n, batch = _sizes(n, batch, equalised)
    if task is None:
        d = positive_int("d", d)
        return lambda rng: _fresh_scores(rng, d, n, batch, equalised)
    rows = np.arange(batch)

    def sample(rng: np.random.Generator) -> Scores:
        ctx, pos = _index_sequences(rng, task.labels, n, batch, equalised)
        return _task_scores(task, ctx, ctx[rows, pos])

    return sample


def stacked_scores_sampler(
    tasks: list[ItemLabelTask], n: int, batch: int
) -> Callable[[list[np.random.Generator]], Scores]:
    """:func:`training_scores_sampler` for M tasks of one K (with Gram matrices; contexts not equalised) at once:
    ``sample(rngs)`` draws task m's indices from ``rngs[m]`` exactly as the single sampler does (the same
    sequences) and gathers every task's scores, labels and queries in one pass, as ``(M, B, …)`` arrays."""
    n, batch = _sizes(n, batch, False)
    k = tasks[0].k
    if any(t.k != k or t.gram is None for t in tasks):
        raise InvalidArgument("tasks must share one K and have Gram matrices to be sampled together")
    grams = np.stack([t.gram for t in tasks if t.gram is not None]).reshape(-1)
    labels, items = np.stack([t.labels for t in tasks]), np.stack([t.items for t in tasks])
    nets = np.arange(len(tasks))[:, None]

    def sample(rngs: list[np.random.Generator]) -> Scores:
        draws = [(rng.integers(0, k, (batch, n + 1)), rng.integers(0, n, batch)) for rng in rngs]
        idx, fallback = np.stack([d[0] for d in draws]), np.stack([d[1] for d in draws])
        ctx, query = idx[..., :n], idx[..., n]
        present = ctx == query[..., None]
        pos = np.where(present.any(axis=-1), present.argmax(axis=-1), fallback)  # as _index_sequences, per task
        q = np.take_along_axis(ctx, pos[..., None], axis=-1)[..., 0]
        g = np.take(grams, (nets[..., None] * k + ctx) * k + q[..., None])
        return Scores(g, labels[nets[..., None], ctx], items[nets, q], labels[nets, q])

    return sample


def sample_icl_eval(d: int, n: int, batch: int, rng: np.random.Generator, *, equalised: bool = False) -> Sequences:
    """ICL evaluation: novel items (fresh every sequence), the query in the context."""
    return sample_training(None, n, batch, rng, d=d, equalised=equalised)


def sample_icl_eval_scores(d: int, n: int, batch: int, rng: np.random.Generator, *, equalised: bool = False) -> Scores:
    """:func:`sample_icl_eval` as the reduced model reads it (:class:`Scores`, K → ∞ sampler)."""
    return sample_training_scores(None, n, batch, rng, d=d, equalised=equalised)


def sample_iwl_eval(task: ItemLabelTask, n: int, batch: int, rng: np.random.Generator) -> Sequences:
    """IWL evaluation: N distinct training items in the context and a training query not among them."""
    rng, n, batch = _checked(rng, n, batch, False)
    ctx, query = _iwl_indices(rng, task, n, batch)
    return Sequences(task.items[ctx], task.labels[ctx], task.items[query], task.labels[query])


def sample_iwl_eval_scores(task: ItemLabelTask, n: int, batch: int, rng: np.random.Generator) -> Scores:
    """:func:`sample_iwl_eval` as the reduced model reads it (:class:`Scores`; the same draws, the same sequences)."""
    rng, n, batch = _checked(rng, n, batch, False)
    return _task_scores(task, *_iwl_indices(rng, task, n, batch))


# ---------------------------------------------------------------------------------------------
# Examples for the bad-input fuzzer (numerics.shared.fuzz)

FUZZ_EXEMPT = {
    **{
        name: "task sampler on a validated ItemLabelTask"
        for name in (
            "make_task",
            "sample_training",
            "sample_icl_eval",
            "sample_iwl_eval",
            "sample_training_scores",
            "training_scores_sampler",
            "stacked_scores_sampler",
            "sample_icl_eval_scores",
            "sample_iwl_eval_scores",
        )
    },
    "gram": "Gram matrix of a task's validated items, formed by make_task",
}
