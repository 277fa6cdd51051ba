"""The shared seed validator (numerics.shared.checks.seed_value) and every entry point that uses it."""

from __future__ import annotations

import numpy as np
import pytest

from icl_verify import Claim, Estimate, Measured, check
from icl_verify.numerics.kinetics import models, transformer
from icl_verify.numerics.lsa.training import TrainConfig, train
from icl_verify.numerics.scaling import memorization
from icl_verify.numerics.shared.checks import seed_value


@pytest.mark.parametrize("value", [0, 7, np.int64(3), 2**40])
def test_non_negative_integers_are_seeds(value):
    got = seed_value("seed", value)
    assert got == int(value) and type(got) is int


@pytest.mark.parametrize("value", [-1, True, False, 1.0, "1", None, np.float64(2.0)])
def test_anything_else_is_refused_naming_the_argument(value):
    with pytest.raises(ValueError, match="my_seed must be a non-negative integer"):
        seed_value("my_seed", value)


_CLAIM = Claim("m", "s", "st", checks=(Measured(lambda seed: Estimate(1.0, 1.0, 1.0, 1.0)),))


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda s: check(_CLAIM, seed=s), "seed"),
        (lambda s: train(TrainConfig(steps=1), s), "seed"),
        (lambda s: models.train_reduced(models.ReducedConfig(steps=1), s), "seed"),
        (
            lambda s: transformer.train_transformer(transformer.TransformerConfig(d=4, k=8, n=4, hidden=4, steps=1), s),
            "seed",
        ),
        (lambda s: memorization.memorize([8], [s]), "seeds"),
    ],
)
@pytest.mark.parametrize("bad", [-1, True])
def test_every_seeded_entry_point_refuses_bad_seeds(call, name, bad):
    with pytest.raises(ValueError, match=f"{name} must be a non-negative integer"):
        call(bad)
