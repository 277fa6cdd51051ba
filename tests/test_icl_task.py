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
