"""The balanced ±1 item–label task of Nguyen & Reddy (ICLR 2025, arXiv 2412.00104, §2) and the constants
c₁, c₂, c₃ of an MLP's logits on it (§3.4).

Shared by the two groups on that paper: the kinetics group (the reduced model and the transformer
sample their items and measure c₁, c₂, c₃ here) and the scaling group (the memorization trainer).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import expit

from icl_verify.errors import InvalidArgument
from icl_verify.numerics.shared.checks import finite_array, positive_int, same_size
from icl_verify.numerics.shared.fuzz import Fuzz
from icl_verify.numerics.shared.mlp import bce


def even_k(name: str, value: object) -> int:
    """K for a balanced ±1 task: an even integer ≥ 2 (K/2 items of each label)."""
    k = positive_int(name, value)
    if k < 2 or k % 2:
        raise InvalidArgument(f"{name} must be an even integer >= 2 for balanced labels, got {value!r}")
    return k


def sample_items(
    rng: np.random.Generator, k: int, d: int, dtype: type = np.float32
) -> tuple[NDArray[np.floating], NDArray[np.floating]]:
    """K items x_k ~ N(0, I_D/D) as rows ``(K, D)`` and balanced labels ±1 ``(K,)`` in random order.

    Nguyen & Reddy 2025, §2: K/2 items labelled +1 and K/2 labelled −1.
    """
    if not isinstance(rng, np.random.Generator):
        raise InvalidArgument(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    k, d = even_k("k", k), positive_int("d", d)
    x = rng.standard_normal((k, d)) / np.sqrt(d)
    labels = np.repeat(np.array([1.0, -1.0]), k // 2)
    return x.astype(dtype), rng.permutation(labels).astype(dtype)


def constants(logits: ArrayLike, labels: ArrayLike) -> dict[str, float]:
    """c₁, c₂, c₃ from the logits on items labelled +1 and the IWL accuracy over all items.

    Nguyen & Reddy 2025, §3.4: c₁ = ⟨σ(−φ₊)⟩, c₂ = 1 − ⟨σ(−φ₊)²⟩/c₁, c₃ = ⟨e^{−φ₊}⟩. ``logits`` and
    ``labels`` (±1, at least one +1) are 1-D of one length; NaN or inf logits are refused.
    """
    phi = finite_array("logits", logits, ndim=1, nonempty=True)
    ell = finite_array("labels", labels, ndim=1)
    same_size("labels", ell.size, phi.size, "the length of logits")
    if not np.all(np.abs(ell) == 1) or not np.any(ell > 0):
        raise InvalidArgument("labels must be ±1 with at least one item labelled +1 (c₁ averages over them)")
    return log_constants(phi, ell)


def log_constants(logits: NDArray[np.floating], labels: NDArray[np.floating]) -> dict[str, float]:
    """:func:`constants` without validation, for the trainers' own logs (NaN once a run diverged, which they test)."""
    phi = np.asarray(logits, dtype=np.float64)
    plus = phi[labels > 0]
    s = expit(-plus)
    c1 = float(np.mean(s))
    return {
        "c1": c1,
        "c2": float(1.0 - np.mean(s**2) / c1) if c1 > 0 else 1.0,
        "c3": float(np.mean(np.exp(np.minimum(-plus, 700.0)))),
        "iwl_acc": float(np.mean(np.sign(phi) == labels)),
        "loss": float(bce(phi, labels)) if not np.any(np.isnan(phi)) else np.nan,
    }


# ---------------------------------------------------------------------------------------------
# Examples for the bad-input fuzzer (numerics.shared.fuzz)

FUZZ_EXEMPT = {
    "even_k": "a validator of K",
    "sample_items": "a sampler inside the trainers, on the sizes their settings validated",
    "log_constants": "the trainers' unvalidated kernel of constants (NaN marks a diverged run)",
}


def _constants_example() -> dict[str, object]:
    return {"logits": np.array([0.5, -1.0, 2.0, 0.1]), "labels": np.array([1.0, -1.0, 1.0, -1.0])}


FUZZ = {"constants": Fuzz(_constants_example)}
