"""Untied multi-layer LSA trained from a weight-tied start (numerics/lsa/deep_training.py).

The mathematics checked: untying preserves the network's function, the tied gradient is the sum of
the untied layers' gradients (chain rule over the shared weights), the two phases compose into one
reproducible, seeded run, and bad input is rejected with the argument's name.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from icl_verify.numerics.lsa.alignment import gdpp_model, lsa_model, task_losses
from icl_verify.numerics.lsa.deep_training import continue_training, train_tied_then_untied, untie
from icl_verify.numerics.lsa.layers import theta_gdpp
from icl_verify.numerics.lsa.training import NAMES, TrainConfig, batch_tokens, init_layers, loss_and_grads, train

TIED = TrainConfig(
    nx=3,
    n_context=6,
    n_layers=3,
    recurrent=True,
    batch=64,
    steps=60,
    lr=5e-3,
    schedule="cosine",
    clip=1.0,
    dtype="float64",
)
UNTIED = replace(TIED, recurrent=False, steps=40)


def test_untie_copies_the_layer_and_keeps_the_function():
    tied = train(TIED, 0)
    layers = untie(tied)
    assert len(layers) == TIED.n_layers
    for layer in layers:
        for k in NAMES:
            np.testing.assert_array_equal(layer[k], getattr(tied.layers[0], k))
    layers[0]["P"] += 1.0  # independent copies: changing one leaves the others as trained
    np.testing.assert_array_equal(layers[1]["P"], tied.layers[0].P)


def test_untied_loss_and_gradients_are_the_tied_ones_split_by_layer():
    """At equal layers the untied loss is the tied loss, and ∂L/∂θ_tied = Σ_k ∂L/∂θ_k (chain rule)."""
    rng = np.random.default_rng(4)
    shared = init_layers(replace(TIED, init_scale=0.3), rng)
    tokens, y_q = batch_tokens(TIED, rng)
    tied_loss, tied_grads = loss_and_grads(shared, tokens, y_q, TIED)
    copies = [{k: v.copy() for k, v in shared[0].items()} for _ in range(TIED.n_layers)]
    untied_loss, untied_grads = loss_and_grads(copies, tokens, y_q, UNTIED)
    assert untied_loss == pytest.approx(tied_loss, rel=1e-12)
    for k in NAMES:
        total = sum(g[k] for g in untied_grads)
        np.testing.assert_allclose(total, tied_grads[0][k], rtol=1e-10, atol=1e-14)
        assert not np.allclose(untied_grads[0][k], untied_grads[2][k])  # the layers get different gradients


def test_untied_layers_set_to_gdpp_are_gdpp():
    """The bound behind trained-3-layer-untied-reaches-gdpp: GD++ (eq. 23) is a point of untied LSA."""
    eta, gamma = 4.0, 0.1
    params = [theta_gdpp(TIED.nx, TIED.ny, eta, gamma, TIED.n_context)] * TIED.n_layers
    tasks = TIED.sample(np.random.default_rng(1), 256)
    a = task_losses(lsa_model(params), tasks)
    b = task_losses(gdpp_model(eta, gamma, TIED.n_layers), tasks)
    np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)


def test_tied_then_untied_composes_the_phases_and_is_reproducible():
    run = train_tied_then_untied(TIED, UNTIED, 3)
    again = train_tied_then_untied(TIED, UNTIED, 3)
    assert run.seed == 3 and run.tied.seed == 3 and run.config == UNTIED
    np.testing.assert_array_equal(run.all_losses, again.all_losses)
    assert run.all_losses.shape == (TIED.steps + UNTIED.steps,)
    np.testing.assert_array_equal(run.tied.losses, train(TIED, 3).losses)  # phase 1 is the plain tied run
    layers, losses = continue_training(untie(run.tied), UNTIED, np.random.default_rng([3, 1, 0]))
    np.testing.assert_array_equal(losses, run.losses)  # phase 2 draws from its own recorded stream
    for got, want in zip(run.layers, layers):
        np.testing.assert_array_equal(got.P, want["P"])
    assert not np.array_equal(run.layers[0].P, run.layers[2].P)  # the layers really were untied


def test_untied_phase_improves_on_the_tied_network():
    tied = replace(TIED, steps=300, batch=256)
    run = train_tied_then_untied(tied, replace(UNTIED, steps=300, batch=256, lr=1e-2), 0)
    tasks = TIED.sample(np.random.default_rng([0, 10]), 4096, n_queries=4)
    before = np.mean(task_losses(lsa_model(run.tied.layers), tasks))
    after = np.mean(task_losses(lsa_model(run.layers), tasks))
    assert after < 0.8 * before


@pytest.mark.parametrize(
    "tied, untied, message",
    [
        (replace(TIED, recurrent=False), UNTIED, "tied: expected a weight-tied"),
        (TIED, TIED, "untied: expected an untied"),
        (TIED, replace(UNTIED, nx=4), "untied: nx must equal tied's 3"),
        (TIED, replace(UNTIED, n_layers=2), "untied: n_layers must equal"),
        (TIED, replace(UNTIED, x_dist="gaussian"), "untied: x_dist must equal"),
    ],
)
def test_mismatched_phases_name_the_argument(tied, untied, message):
    with pytest.raises(ValueError, match=message):
        train_tied_then_untied(tied, untied, 0)


def test_untie_rejects_an_untied_result_and_bad_seed():
    with pytest.raises(ValueError, match="tied: expected the result of a weight-tied run"):
        untie(train(replace(UNTIED, steps=2), 0))
    with pytest.raises(ValueError, match="seed"):
        train_tied_then_untied(TIED, UNTIED, -1)
