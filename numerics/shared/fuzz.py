"""Example arguments for the bad-input fuzzer, declared by each numerics module beside its functions.

Every public function of a numerics module is named in the module's ``FUZZ`` (a :class:`Fuzz`: valid
keyword arguments, which the fuzzer corrupts one argument at a time) or ``FUZZ_EXEMPT`` (the reason it
is not fuzzed), so a new function cannot be forgotten. The fuzzer requires of a fuzzed function that
NaN, ±inf and a string are refused with a one-line ``ValueError`` (or ``TypeError``) naming the
argument, and that zero, negative, huge, tiny, wrong-shape, empty and ``None`` values are refused the
same way or give a finite result.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray


@dataclass(frozen=True)
class Fuzz:
    """Valid keyword arguments of a function (``args()`` builds them fresh per call) and what the fuzzer may corrupt.

    ``fixed``: arguments never corrupted (a Generator, a flag, an object built by the package);
    ``infinite``: arguments where ±inf is meaningful (a quantity that blew up); ``nan_result``: the
    function documents NaN entries in its result (e.g. 'not reached before t_max').
    """

    args: Callable[[], dict[str, Any]]
    fixed: tuple[str, ...] = ()
    infinite: tuple[str, ...] = ()
    nan_result: bool = False


def linear_data(n: int = 5, d: int = 2, seed: int = 0) -> dict[str, NDArray[np.float64]]:
    """Examples of a noisy linear regression: ``X`` (n, d) Gaussian, ``y = X (1, …, d) + 0.1 ε``."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    return {"X": X, "y": X @ np.arange(1.0, d + 1) + 0.1 * rng.standard_normal(n)}


def logged_series() -> dict[str, NDArray[np.float64]]:
    """A logged series: increasing ``times`` and a decaying ``c1`` on them."""
    return {"times": np.array([0.0, 1.0, 2.0, 4.0]), "c1": np.array([0.5, 0.3, 0.1, 0.01])}


FUZZ: dict[str, Fuzz] = {}
FUZZ_EXEMPT = {name: "an example builder of the fuzzer" for name in ("linear_data", "logged_series")}
