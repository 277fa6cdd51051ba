"""The best rate of one gradient-descent step on Gaussian in-context linear regression.

Shared by the RAW probe (``numerics.raw.probe``: the GD learner a trained transformer is compared
with) and the Dai et al. critiques (``numerics.dual.critiques``: the GD construction of linear attention).
"""

from __future__ import annotations

import numpy as np

from icl_verify.numerics.shared.checks import finite_scalar, positive_int
from icl_verify.numerics.shared.fuzz import Fuzz


def best_gd_rate(n: int, d: int, noise_std: float = 0.0) -> float:
    """η* = 1 / (n + d + 1 + σ²): the step size of one GD step w = η Xᵀy from w = 0 with the least
    expected squared error E(x_qᵀ(w − ηXᵀy))² over x, x_q ~ N(0, I_d), w ~ N(0, I_d), noise N(0, σ²).

    The error is d − 2η E[wᵀXᵀXw] + η² E‖XᵀXw + Xᵀε‖² = d − 2ηnd + η² nd(n + d + 1 + σ²), using
    E[(XᵀX)²] = n(n + d + 1) I for Gaussian X (Wishart second moment); its minimiser is η*.
    """
    n, d = positive_int("n", n), positive_int("d", d)
    sigma = np.float64(finite_scalar("noise_std", noise_std, nonnegative=True))
    with np.errstate(over="ignore"):  # σ² = inf gives the limit η* = 0
        return float(1.0 / (n + d + 1 + sigma**2))


# ---------------------------------------------------------------------------------------------
# Examples for the bad-input fuzzer (numerics.shared.fuzz)

FUZZ = {"best_gd_rate": Fuzz(lambda: {"n": 8, "d": 4, "noise_std": 0.5})}
