"""The item–label task sampler (numerics.kinetics.task)."""

from __future__ import annotations

import numpy as np
import pytest

from icl_verify.numerics.kinetics import task as it


def test_task_is_balanced_and_scaled():
    task = it.make_task(4000, 50, np.random.default_rng(0), seed=0)
    assert task.k == 4000 and task.d == 50 and task.seed == 0
    assert np.sum(task.labels > 0) == 2000
    assert np.mean(np.sum(task.items**2, axis=1)) == pytest.approx(1.0, rel=0.02)  # x ~ N(0, I/D)


def test_training_query_is_in_its_context_with_its_label():
    rng = np.random.default_rng(1)
    task = it.make_task(1000, 8, rng)
    s = it.sample_training(task, 10, 200, rng)
    match = np.all(s.x == s.x_q[:, None, :], axis=2)
    assert np.all(match.any(axis=1))
    rows, cols = np.nonzero(match)
    np.testing.assert_array_equal(s.labels[rows, cols], s.l_q[rows])


def test_infinite_k_sequences_use_fresh_items():
    rng = np.random.default_rng(2)
    a = it.sample_training(None, 6, 3, rng, d=5)
    b = it.sample_training(None, 6, 3, rng, d=5)
    assert not np.any(np.isin(a.x, b.x))
    assert np.all(np.all(a.x == a.x_q[:, None, :], axis=2).any(axis=1))


@pytest.mark.parametrize("task_k", [None, 64])
def test_equalised_contexts_have_half_of_each_label(task_k):
    rng = np.random.default_rng(3)
    task = it.make_task(task_k, 6, rng) if task_k else None
    s = it.sample_training(task, 8, 50, rng, d=6, equalised=True)
    np.testing.assert_array_equal(s.labels.sum(axis=1), 0)
    assert np.all(np.all(s.x == s.x_q[:, None, :], axis=2).any(axis=1))


def test_iwl_eval_has_distinct_items_and_query_outside_the_context():
    rng = np.random.default_rng(4)
    task = it.make_task(30, 6, rng)
    s = it.sample_iwl_eval(task, 10, 40, rng)
    assert not np.any(np.all(s.x == s.x_q[:, None, :], axis=2))
    for b in range(40):
        assert len({tuple(v) for v in s.x[b]}) == 10


@pytest.mark.parametrize(("k", "n"), [(10, 9), (30, 10), (512, 64)])
def test_iwl_indices_are_the_smallest_of_uniform_keys_in_order(k, n):
    # a uniformly random ordered choice of N + 1 distinct items: the indices of the N + 1 smallest of K iid
    # uniform keys, in increasing key order — what a full argsort of the same keys gives
    task = it.make_task(k, 4, np.random.default_rng(6))
    ctx, query = it._iwl_indices(np.random.default_rng(7), task, n, 64)
    order = np.argsort(np.random.default_rng(7).random((64, k)), axis=1)
    np.testing.assert_array_equal(ctx, order[:, :n])
    np.testing.assert_array_equal(query, order[:, n])


def test_tasks_sampled_together_draw_what_each_samples_alone():
    tasks = [it.make_task(12, 5, np.random.default_rng(s)) for s in (1, 2, 3)]
    together = it.stacked_scores_sampler(tasks, 7, 9)([np.random.default_rng(10 + m) for m in range(3)])
    for m, task in enumerate(tasks):
        alone = it.training_scores_sampler(task, 7, 9)(np.random.default_rng(10 + m))
        for name in ("g", "labels", "x_q", "l_q"):
            np.testing.assert_array_equal(getattr(together, name)[m], getattr(alone, name), err_msg=name)
    with pytest.raises(ValueError, match="one K"):
        it.stacked_scores_sampler([tasks[0], it.make_task(14, 5, np.random.default_rng(4))], 7, 9)


def test_bad_input_names_the_argument():
    rng = np.random.default_rng(5)
    with pytest.raises(ValueError, match="k"):
        it.make_task(7, 4, rng)
    with pytest.raises(ValueError, match="d"):
        it.make_task(8, 0, rng)
    task = it.make_task(8, 4, rng)
    with pytest.raises(ValueError, match="n"):
        it.sample_training(task, 0, 4, rng)
    with pytest.raises(ValueError, match="n"):
        it.sample_training(task, 5, 4, rng, equalised=True)
    with pytest.raises(ValueError, match="n"):
        it.sample_iwl_eval(task, 8, 4, rng)
    with pytest.raises(ValueError, match="rng"):
        it.sample_training(task, 4, 4, 0)


# ---------------------------------------------------------------------------------------------
# The reduced model's view (Scores): sufficient statistics for K → ∞, the Gram matrix for finite K

_U = 2.0**-24
"""Unit roundoff of float32: a rounded value is within _U·|x| of x."""


def _explicit_scores(seqs: it.Sequences) -> np.ndarray:
    """g_j = x_j·x_q of explicit items, in float64 (exact to ~1e-16 against float32 rounding)."""
    return np.einsum("bnd,bd->bn", seqs.x.astype(np.float64), seqs.x_q.astype(np.float64))


def _query_positions(s: it.Scores) -> tuple[np.ndarray, np.ndarray]:
    """The context position holding the query's own score |x_q|² (continuous scores: it is unique), and |x_q|²."""
    sq = np.sum(s.x_q.astype(np.float64) ** 2, axis=1)
    return np.argmin(np.abs(s.g - sq[:, None]), axis=1), sq


@pytest.mark.parametrize("equalised", [False, True])
def test_infinite_k_scores_hold_the_query_its_norm_and_its_label(equalised):
    rng = np.random.default_rng(6)
    s = it.sample_training_scores(None, 8, 300, rng, d=5, equalised=equalised)
    assert s.g.shape == s.labels.shape == (300, 8) and s.x_q.shape == (300, 5) and s.g.dtype == np.float32
    pos, sq = _query_positions(s)
    rows = np.arange(300)
    np.testing.assert_allclose(s.g[rows, pos], sq, rtol=_U)  # g_p = |x_q|², rounded once to float32
    np.testing.assert_array_equal(s.labels[rows, pos], s.l_q)
    if equalised:
        np.testing.assert_array_equal(s.labels.sum(axis=1), 0)
    assert np.mean(np.sum(s.x_q**2, axis=1)) == pytest.approx(1.0, rel=0.05)  # x_q ~ N(0, I/D)


def test_infinite_k_scores_have_the_law_of_explicit_items():
    """Two-sample KS tests (scipy.stats.ks_2samp) of the sufficient-statistic sampler against explicit items.

    D = 4, where |x_q|² = χ²₄/4 varies most, so the law of g_j = x_j·x_q is a wide scale mixture of normals.
    40 000 sequences of N = 8 each way; compared: one g_j (j ≠ query) per sequence (the scores of one
    sequence share x_q, so only one per sequence makes an i.i.d. sample), the pooled g_j/|x_q| (i.i.d.
    N(0, 1/D) given x_q, whatever x_q: the conditional law) and the query's g_p. The correct sampler
    passes at p > 10⁻³ (p ≥ 0.05 at the eight seed pairs tried while writing the test); three wrong ones,
    built from the same draws of x_q and z, are rejected at p < 10⁻¹²: variance |x_q|²/D² (a factor D too
    small; p = 0 in double precision), variance 1/D (the right mean variance but no mixing over |x_q|:
    the marginal test alone gives p ≈ 10⁻²⁰) and |y|²/D with y independent of x_q (the right marginal,
    p ≈ 0.1–0.8 there; the conditional test gives p ≈ 10⁻¹³⁰).
    """
    from scipy.stats import ks_2samp

    d, n, b = 4, 8, 40_000
    rows = np.arange(b)
    fast = it.sample_training_scores(None, n, b, np.random.default_rng(7), d=d)
    items = it.sample_training(None, n, b, np.random.default_rng(8), d=d)
    g_items = _explicit_scores(items)
    pos_items = np.argmax(np.all(items.x == items.x_q[:, None, :], axis=2), axis=1)
    off_items = np.ones((b, n), bool)
    off_items[rows, pos_items] = False
    reference = g_items[off_items].reshape(b, n - 1)
    conditional = reference / np.linalg.norm(items.x_q.astype(np.float64), axis=1)[:, None]

    pos, sq = _query_positions(fast)
    off = np.ones((b, n), bool)
    off[rows, pos] = False
    norm = np.sqrt(sq)[:, None]
    g_off = fast.g[off].reshape(b, n - 1).astype(np.float64)

    def p_values(g: np.ndarray) -> tuple[float, float]:
        """KS p-values of the marginal (first off-query score of each sequence) and of the conditional law."""
        return ks_2samp(g[:, 0], reference[:, 0]).pvalue, ks_2samp((g / norm).ravel(), conditional.ravel()).pvalue

    assert min(p_values(g_off)) > 1e-3
    assert ks_2samp(fast.g[rows, pos], g_items[rows, pos_items]).pvalue > 1e-3

    z = g_off / (norm / np.sqrt(d))  # the sampler's standard normals, recovered
    other = np.roll(norm, 1)  # the norm of another sequence's query: independent of this x_q
    wrong = {"|x_q|²/D²": z * norm / d, "1/D": z / np.sqrt(d), "independent norm": z * other / np.sqrt(d)}
    for name, g_wrong in wrong.items():
        assert min(p_values(g_wrong)) < 1e-12, name


@pytest.mark.parametrize("equalised", [False, True])
@pytest.mark.parametrize("keep_gram", [True, False])
def test_task_scores_are_the_dot_products_of_the_same_sequences(keep_gram, equalised):
    """The same draws give the same sequences in both views, and g = x_j·x_q to float32 rounding: one rounding
    of the float64 Gram entry (|error| ≤ u|g|), or without the Gram matrix the float32 dot product of D terms
    (|error| ≤ γ_D Σ_i |x_ji x_qi|, γ_D = Du/(1 − Du); Higham, Accuracy and Stability, 2nd ed., §3.1)."""
    task = it.make_task(64, 6, np.random.default_rng(9))
    assert task.gram is not None and task.gram.dtype == np.float32
    if not keep_gram:
        task = it.ItemLabelTask(task.items, task.labels)
    draws = [
        (it.sample_training_scores, it.sample_training, {"equalised": equalised}),
        *([(it.sample_iwl_eval_scores, it.sample_iwl_eval, {})] if not equalised else []),
    ]
    for scores_of, items_of, kw in draws:
        s = scores_of(task, 10, 200, np.random.default_rng(10), **kw)
        seqs = items_of(task, 10, 200, np.random.default_rng(10), **kw)
        np.testing.assert_array_equal(s.x_q, seqs.x_q)
        np.testing.assert_array_equal(s.labels, seqs.labels)
        np.testing.assert_array_equal(s.l_q, seqs.l_q)
        exact = _explicit_scores(seqs)
        if keep_gram:
            bound = _U * np.abs(exact) + 1e-12
        else:
            d = task.d
            bound = d * _U / (1 - d * _U) * np.einsum("bnd,bd->bn", np.abs(seqs.x), np.abs(seqs.x_q)) + 1e-12
        assert np.all(np.abs(s.g - exact) <= bound)
        assert np.all(s.g != 0)  # not trivially within the bound


def test_gram_is_kept_up_to_its_size_limit_and_is_exact_to_float32():
    rng = np.random.default_rng(11)
    task = it.make_task(it.GRAM_MAX_K + 2, 2, rng)
    assert task.gram is None
    small = it.make_task(10, 3, rng)
    x = small.items.astype(np.float64)
    exact = np.array([[np.dot(x[i], x[j]) for j in range(10)] for i in range(10)])
    assert np.all(np.abs(small.gram - exact) <= _U * np.abs(exact) + 1e-15)
    np.testing.assert_array_equal(small.gram, small.gram.T)


def test_score_samplers_refuse_bad_input_naming_the_argument():
    rng = np.random.default_rng(12)
    task = it.make_task(8, 4, rng)
    with pytest.raises(ValueError, match="n"):
        it.sample_training_scores(task, 5, 4, rng, equalised=True)
    with pytest.raises(ValueError, match="d"):
        it.sample_training_scores(None, 4, 4, rng, d=0)
    with pytest.raises(ValueError, match="batch"):
        it.sample_icl_eval_scores(4, 4, 0, rng)
    with pytest.raises(ValueError, match="n"):
        it.sample_iwl_eval_scores(task, 8, 4, rng)
    with pytest.raises(ValueError, match="rng"):
        it.sample_training_scores(task, 4, 4, 0)
