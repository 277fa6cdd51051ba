"""Reduced model (numerics.kinetics.models): hand-written backward passes against finite differences,
the forward pass against a direct evaluation of the paper's formula, the training record and its sweep job."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from icl_verify.numerics.kinetics import models as m
from icl_verify.numerics.kinetics import task as icl_task


def _sequences(rng, b=5, n=6, d=4) -> tuple[icl_task.Sequences, icl_task.Scores]:
    """Explicit float64 items, and the scores the reduced model reads of them (g_j = x_j·x_q, a loop of dot products)."""
    x = rng.standard_normal((b, n, d))
    labels = rng.choice([-1.0, 1.0], (b, n))
    pos = rng.integers(0, n, b)
    seqs = icl_task.Sequences(x, labels, x[np.arange(b), pos], labels[np.arange(b), pos])
    g = np.array([[np.dot(x[i, j], seqs.x_q[i]) for j in range(n)] for i in range(b)])
    return seqs, icl_task.Scores(g, labels, seqs.x_q, seqs.l_q)


def _model(rng, d=4, hidden=7) -> m.Reduced:
    return m.Reduced(m.init_mlp(d, hidden, rng, dtype=np.float64), 0.7, -0.4)


def _loss(p, seqs) -> float:
    return m.reduced_loss_grads(p, seqs)[0]


def test_forward_is_the_papers_formula():
    rng = np.random.default_rng(0)
    p, (seqs, scores) = _model(rng), _sequences(rng)
    z, _ = m.reduced_forward(p, scores)
    for b in range(seqs.x.shape[0]):
        h1 = np.maximum(seqs.x_q[b] @ p.mlp.W1 + p.mlp.b1, 0)
        phi = np.maximum(h1 @ p.mlp.W2 + p.mlp.b2, 0) @ p.mlp.w3 + p.mlp.b3
        s = np.exp(p.beta * seqs.x[b] @ seqs.x_q[b])
        assert z[b] == pytest.approx(phi + p.w * np.sum(s * seqs.labels[b]) / np.sum(s), rel=1e-12)


def test_attention_gradients_match_central_differences():
    rng = np.random.default_rng(1)
    p, (_, seqs) = _model(rng), _sequences(rng)
    _, g = m.reduced_loss_grads(p, seqs)
    h = 1e-6
    for name, analytic in (("w", g.w), ("beta", g.beta)):
        plus, minus = _model(np.random.default_rng(1)), _model(np.random.default_rng(1))
        setattr(plus, name, getattr(p, name) + h)
        setattr(minus, name, getattr(p, name) - h)
        numeric = (_loss(plus, seqs) - _loss(minus, seqs)) / (2 * h)
        assert analytic == pytest.approx(numeric, rel=1e-6, abs=1e-10)


def test_mlp_gradients_match_central_differences():
    rng = np.random.default_rng(2)
    p, (_, seqs) = _model(rng), _sequences(rng)
    _, g = m.reduced_loss_grads(p, seqs)
    h = 1e-6
    for param, grad in zip(p.mlp.arrays(), g.mlp.arrays()):
        flat, gflat = param.reshape(-1), np.asarray(grad).reshape(-1)
        for i in rng.choice(flat.size, min(flat.size, 6), replace=False):
            old = flat[i]
            flat[i] = old + h
            up = _loss(p, seqs)
            flat[i] = old - h
            down = _loss(p, seqs)
            flat[i] = old
            assert gflat[i] == pytest.approx((up - down) / (2 * h), rel=1e-5, abs=1e-9)


def test_weight_decay_only_touches_the_attention_path():
    rng = np.random.default_rng(3)
    p = _model(rng)
    zero = m.ReducedGrads(m.MLP(*(np.zeros_like(a) for a in p.mlp.arrays())), 0.0, 0.0)
    before = [a.copy() for a in p.mlp.arrays()]
    m.sgd_step(p, zero, lr=0.1, decay=0.5)
    assert p.w == pytest.approx(0.7 * (1 - 0.05)) and p.beta == pytest.approx(-0.4 * (1 - 0.05))
    for a, b in zip(before, p.mlp.arrays()):
        np.testing.assert_array_equal(a, b)


def test_constants_match_their_definitions():
    rng = np.random.default_rng(4)
    mlp = m.init_mlp(4, 5, rng, dtype=np.float64)
    items = rng.standard_normal((10, 4))
    labels = np.repeat([1.0, -1.0], 5)
    c = m.mlp_constants(mlp, items, labels)
    u = labels * m.mlp_forward(mlp, items)[0]
    s = 1 / (1 + np.exp(u))
    assert c["c1"] == pytest.approx(s.mean())
    assert c["c2"] == pytest.approx(1 - np.mean(s**2) / s.mean())
    assert c["c3"] == pytest.approx(np.mean(np.exp(-u)))


def test_constants_at_zero_logits_are_one_half():
    mlp = m.init_mlp(3, 4, np.random.default_rng(0), dtype=np.float64)
    mlp.w3[:] = 0
    mlp.b3[...] = 0
    c = m.mlp_constants(mlp, np.ones((4, 3)), np.array([1.0, -1.0, 1.0, -1.0]))
    assert c["c1"] == pytest.approx(0.5) and c["c2"] == pytest.approx(0.5) and c["c3"] == pytest.approx(1.0)


def test_training_record_is_reproducible_and_time_is_lr_times_steps():
    cfg = m.ReducedConfig(d=8, k=16, n=4, hidden=8, lr=0.05, batch=8, steps=20, record_every=5, eval_batch=32)
    a, b = m.train_reduced(cfg, 7), m.train_reduced(cfg, 7)
    assert a.seed == 7 and a.w == b.w and a.beta == b.beta
    np.testing.assert_allclose(a.t, [0.0, 0.25, 0.5, 0.75, 1.0])
    assert len(a.c1) == 5 and all(0 <= v <= 1 for v in a.icl_acc)


@pytest.mark.parametrize(
    "changes, name",
    [
        ({"k": 7}, "k"),
        ({"n": 0}, "n"),
        ({"d": 0}, "d"),
        ({"lr": float("nan")}, "lr"),
        ({"decay": -1.0}, "decay"),
        ({"equalised": True, "n": 5}, "n"),
    ],
)
def test_bad_config_names_the_argument(changes, name):
    with pytest.raises(ValueError, match=name):
        m.ReducedConfig(**changes)


def test_bad_seed():
    with pytest.raises(ValueError, match="seed"):
        m.train_reduced(m.ReducedConfig(steps=1), -1)


# ---------------------------------------------------------------------------------------------
# The authors' conventions as options (ReducedConfig.context, .clock, .constants_labels)

_SMALL = m.ReducedConfig(d=8, k=16, n=6, hidden=8, lr=0.05, batch=8, steps=20, record_every=5, eval_batch=32)


def test_context_with_query_has_one_pair_fewer(monkeypatch):
    """len_context = N counts the query (the authors' code): N − 1 context pairs in every generated sequence."""
    shapes = []
    original = icl_task.training_scores_sampler

    def spy(task, n, batch, **kw):
        sample = original(task, n, batch, **kw)

        def recorded(rng):
            seqs = sample(rng)
            shapes.append(seqs.g.shape[1])
            return seqs

        return recorded

    monkeypatch.setattr(icl_task, "training_scores_sampler", spy)
    for context, pairs in (("pairs", 6), ("with_query", 5)):
        shapes.clear()
        cfg = m.ReducedConfig(**{**_SMALL.__dict__, "context": context})
        assert cfg.context_pairs == pairs
        m.train_reduced(cfg, 0)
        assert shapes and set(shapes) == {pairs}  # training batches and the ICL evaluation set


def test_iterations_clock_is_lr_steps_over_lr():
    """Same seed, same training; only the stamps change: t_iterations = t_lr·steps / lr, and so does the ODE's t_ICL."""
    flow = m.train_reduced(_SMALL, 3)
    steps = m.train_reduced(m.ReducedConfig(**{**_SMALL.__dict__, "clock": "iterations"}), 3)
    np.testing.assert_allclose(steps.t, np.asarray(flow.t) / _SMALL.lr, rtol=1e-12)
    assert steps.t == [0.0, 5.0, 10.0, 15.0, 20.0]
    np.testing.assert_array_equal(steps.beta, flow.beta)
    level = 1e-3  # β rises from 0 to ≈ 5·10⁻³ in these 20 steps
    t_flow = m.ode_for_run(flow, beta_cap=level).t_icl[0]
    assert np.isfinite(t_flow)
    assert m.ode_for_run(steps, beta_cap=level).t_icl[0] == pytest.approx(t_flow / _SMALL.lr, rel=1e-9)


def test_positive_constants_average_over_plus_one_items_only():
    """constants_labels='positive': c₁ = ⟨σ(−φ₊)⟩ over the +1 items (the code's analysis), by direct evaluation."""
    cfg = m.ReducedConfig(**{**_SMALL.__dict__, "constants_labels": "positive", "steps": 1, "record_every": 1})
    run = m.train_reduced(cfg, 4)
    rng = np.random.default_rng(4)  # the draws of train_reduced, in its order: task, then the MLP
    task = icl_task.make_task(cfg.k, cfg.d, rng)
    mlp = m.init_mlp(cfg.d, cfg.hidden, rng)
    phi_plus = m.mlp_forward(mlp, task.items[task.labels > 0])[0].astype(float)
    # the run forms c₁ from float32 items and MLP outputs; this float64 mean differs at float32 rounding (~1e-7)
    assert run.c1[0] == pytest.approx(np.mean(1 / (1 + np.exp(phi_plus))), rel=1e-5)
    both = m.train_reduced(m.ReducedConfig(**{**cfg.__dict__, "constants_labels": "both"}), 4)
    phi = m.mlp_forward(mlp, task.items)[0].astype(float) * task.labels
    assert both.c1[0] == pytest.approx(np.mean(1 / (1 + np.exp(phi))), rel=1e-5)


@pytest.mark.parametrize(
    "changes, name",
    [({"context": "query"}, "context"), ({"clock": "epochs"}, "clock"), ({"constants_labels": "plus"}, "constants_labels"),
     ({"n": 1, "context": "with_query"}, "n")],
)  # fmt: skip
def test_bad_convention_names_the_option(changes, name):
    with pytest.raises(ValueError, match=name):
        m.ReducedConfig(**changes)


def test_threshold_job_runs_the_reduced_model():
    reduced = {"d": 8, "k": 16, "n": 8, "hidden": 16, "lr": 0.5, "batch": 16, "steps": 63, "record_every": 3}
    config = {"reduced": reduced, "seed": 5}
    out = m.threshold_job(config)
    assert out["n"] == 8 and out["k"] == 16 and out["seed"] == 5
    assert 0 <= out["icl_acc"] <= 1 and 0 <= out["iwl_acc"] <= 1
    assert out["t_final"] == pytest.approx(63 * 0.5)


@pytest.mark.parametrize(
    "changes",
    [{}, {"k": None}, {"k": None, "equalised": True, "n": 6}, {"decay": 0.01, "record_every": 3}],
)
def test_runs_trained_together_are_the_runs_trained_alone(changes):
    """The stacked trainer gives every run the record train_reduced gives it, to the last bit."""
    cfg = m.ReducedConfig(**{**_SMALL.__dict__, **changes})
    configs = [dataclasses.replace(cfg, w0=w0, beta0=b0) for w0, b0 in ((0.0, 0.0), (0.3, -0.7), (-0.2, 0.9))]
    seeds = [5, 11, 12]
    together = m.train_reduced_together(configs, seeds)
    for c, seed, run in zip(configs, seeds, together):
        alone = m.train_reduced(c, seed).arrays()
        assert run.seed == seed and run.config == c
        for key, values in run.arrays().items():
            np.testing.assert_array_equal(values, alone[key], err_msg=key)


def test_runs_trained_together_refuse_what_they_cannot_stack():
    with pytest.raises(ValueError, match="differ only in w0 and beta0"):
        m.train_reduced_together([_SMALL, dataclasses.replace(_SMALL, lr=0.1)], [0, 1])
    with pytest.raises(ValueError, match="stop_icl"):
        m.train_reduced_together([dataclasses.replace(_SMALL, stop_icl=0.9)], [0])
    with pytest.raises(ValueError, match="equal length"):
        m.train_reduced_together([_SMALL], [0, 1])
