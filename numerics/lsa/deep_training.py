"""Untied multi-layer LSA meta-trained from a weight-tied start (von Oswald et al., ICML 2023, §4).

"Tie, then untie": phase 1 trains K weight-tied layers (:func:`numerics.lsa.training.train` with
``recurrent=True``, its plateau test and restarts included); phase 2 copies the trained layer into
K independent layers and continues training them untied with a fresh Adam state and its own
learning-rate schedule. The copies start at the tied network's function, so phase 2 starts where
the tied training ended, with every layer active.

Why: from N(0, 0.01²) weights, untied 3-layer training on d = 5, N = 10, x ~ U(−½, ½) can leave a
layer near zero for thousands of steps (a network of fewer effective layers); at 3000 Adam steps
(batch 256, lr 10⁻² cosine) training seeds 0–3 ended at 0.46, 1.71, 2.71 and 0.51 × the loss of
tuned 3-step GD++. Weight tying makes every layer learn from the
first step, as in the paper's recurrent runs (§4, Fig. 3).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from icl_verify.errors import InvalidArgument
from icl_verify.numerics.lsa.layers import LSAParams
from icl_verify.numerics.lsa.training import (
    NAMES,
    Layer,
    TrainConfig,
    TrainResult,
    as_params,
    run_steps,
    train,
)
from icl_verify.numerics.shared.checks import seed_value

UNTIE_STREAM = 1
"""Phase 2 draws its task batches from ``default_rng([seed, UNTIE_STREAM, 0])``, apart from phase 1's streams."""

SHARED_FIELDS = (
    "nx",
    "ny",
    "n_context",
    "n_layers",
    "heads",
    "x_dist",
    "x_range",
    "x_std",
    "noise_std",
    "loss",
    "dtype",
)
"""Settings the two phases must share: the architecture, the task distribution, the loss and the dtype."""


@dataclass(frozen=True)
class UntiedResult:
    """The untied layers after phase 2, phase 2's loss per step, and phase 1's :class:`TrainResult`."""

    layers: list[LSAParams]
    losses: NDArray[np.float64]
    tied: TrainResult
    seed: int
    config: TrainConfig
    seconds: float = field(default=0.0, compare=False)

    @property
    def all_losses(self) -> NDArray[np.float64]:
        """Training loss per step over both phases (phase 1's kept attempt, then phase 2)."""
        return np.concatenate([self.tied.losses, self.losses])


def untie(tied: TrainResult) -> list[Layer]:
    """K independent copies of the trained weight-tied layer, in the training dtype."""
    if not tied.config.recurrent:
        raise InvalidArgument("tied: expected the result of a weight-tied run (config.recurrent=True)")
    dtype = tied.config.dtype
    return [{k: np.array(getattr(p, k), dtype=dtype) for k in NAMES} for p in tied.layers]


def continue_training(
    layers: list[Layer], config: TrainConfig, rng: np.random.Generator
) -> tuple[list[Layer], NDArray[np.float64]]:
    """``config.steps`` Adam steps (fresh moments, clipping, ``config``'s schedule) on fresh tasks, from ``layers``."""
    return run_steps(config, rng, start=layers)


def train_tied_then_untied(tied: TrainConfig, untied: TrainConfig, seed: int) -> UntiedResult:
    """Phase 1 ``train(tied, seed)``, then phase 2: ``untied.steps`` untied steps from copies of the tied layer.

    ``tied`` must be weight-tied and ``untied`` not, with the same :data:`SHARED_FIELDS`; ``untied``'s
    plateau-test settings are not used (phase 2 starts from a trained network). All randomness from ``seed``.
    """
    seed = seed_value("seed", seed)
    if not tied.recurrent:
        raise InvalidArgument("tied: expected a weight-tied config (recurrent=True)")
    if untied.recurrent:
        raise InvalidArgument("untied: expected an untied config (recurrent=False)")
    for name in SHARED_FIELDS:
        if getattr(tied, name) != getattr(untied, name):
            raise InvalidArgument(
                f"untied: {name} must equal tied's {getattr(tied, name)!r}, got {getattr(untied, name)!r}"
            )
    t0 = time.perf_counter()
    first = train(tied, seed)
    layers, losses = continue_training(untie(first), untied, np.random.default_rng([seed, UNTIE_STREAM, 0]))
    return UntiedResult(as_params(layers, untied), losses, first, seed, untied, time.perf_counter() - t0)


# ---------------------------------------------------------------------------------------------
# Examples for the bad-input fuzzer (numerics.shared.fuzz)

FUZZ_EXEMPT = {
    name: "tie-then-untie training on validated TrainConfigs; mismatched or wrongly tied configs and results are refused"
    for name in ("untie", "continue_training", "train_tied_then_untied")
}
