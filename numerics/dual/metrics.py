"""Dai et al.'s (ACL Findings 2023, §4) ICL-vs-fine-tuning metrics, and one variant.

Every metric is computed for one example (one query, one layer or head); Dai et al. average them over
examples and layers. Representations and attention maps are 1-D arrays, or 2-D with one example per row
(the similarities then return one value per row). ZSL is the zero-shot model (no
demonstrations), ICL the model prompted with the demonstrations, FT the model fine-tuned on them.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from icl_verify.errors import InvalidArgument
from icl_verify.numerics.shared.checks import finite_array
from icl_verify.numerics.shared.fuzz import Fuzz


def _vectors(
    names: tuple[str, ...], values: tuple[object, ...], ndim: int | tuple[int, ...] = 1
) -> list[NDArray[np.float64]]:
    """Non-empty finite arrays of one common shape, named in every error."""
    arrays = [finite_array(name, value, ndim=ndim, nonempty=True) for name, value in zip(names, values)]
    for name, arr in zip(names[1:], arrays[1:]):
        if arr.shape != arrays[0].shape:
            raise InvalidArgument(f"{name} must have the shape of {names[0]}, {arrays[0].shape}, got {arr.shape}")
    return arrays


def _cosine(a: NDArray[np.float64], b: NDArray[np.float64], name_a: str, name_b: str) -> float | NDArray[np.float64]:
    """cos(a, b) = aᵀb / (‖a‖ ‖b‖) along the last axis (one value per row of a 2-D array); each vector is
    first divided by its largest |entry|, so that no norm overflows."""
    values = []
    for name, v in ((name_a, a), (name_b, b)):
        peak = np.max(np.abs(v), axis=-1, keepdims=True)
        if not np.all(peak > 0):
            raise InvalidArgument(f"{name} is the zero vector: its cosine similarity is undefined")
        values.append(v / peak)
    a, b = values
    cos = np.clip(np.sum(a * b, axis=-1) / (np.linalg.norm(a, axis=-1) * np.linalg.norm(b, axis=-1)), -1.0, 1.0)
    return float(cos) if cos.ndim == 0 else cos


def _difference(a: NDArray[np.float64], b: NDArray[np.float64]) -> NDArray[np.float64]:
    """a − b, computed at a common scale so that entries near ±1e308 cannot overflow."""
    scale = max(float(np.max(np.abs(a))), float(np.max(np.abs(b))), 1.0)
    return a / scale - b / scale


def rec2ftp(zsl_correct: ArrayLike, ft_correct: ArrayLike, icl_correct: ArrayLike) -> float:
    """Recall to fine-tuning predictions (Dai et al. §4.2): among the examples that FT gets right and ZSL
    gets wrong (FT-positive), the fraction that ICL also gets right.

    Each argument holds one truth value (0 or 1) per example.
    """
    names = ("zsl_correct", "ft_correct", "icl_correct")
    flags = []
    for name, arr in zip(names, _vectors(names, (zsl_correct, ft_correct, icl_correct))):
        if not np.all((arr == 0) | (arr == 1)):
            raise InvalidArgument(f"{name} must hold 0/1 (wrong/right) per example")
        flags.append(arr.astype(bool))
    zsl, ft, icl = flags
    ft_positive = ft & ~zsl
    if not ft_positive.any():
        raise InvalidArgument("ft_correct and zsl_correct leave no FT-positive example (FT right, ZSL wrong)")
    return float(np.sum(ft_positive & icl) / np.sum(ft_positive))


def sim_aou(h_zsl: ArrayLike, h_icl: ArrayLike, h_ft: ArrayLike) -> float | NDArray[np.float64]:
    """Similarity of attention-output updates (Dai et al. §4.3): cos(h_ICL − h_ZSL, h_FT − h_ZSL), where h is
    the attention output (at the query's last token) of the zero-shot, prompted and fine-tuned model."""
    zsl, icl, ft = _vectors(("h_zsl", "h_icl", "h_ft"), (h_zsl, h_icl, h_ft), ndim=(1, 2))
    return _cosine(_difference(icl, zsl), _difference(ft, zsl), "h_icl − h_zsl", "h_ft − h_zsl")


def sim_am(m_icl: ArrayLike, m_ft: ArrayLike) -> float | NDArray[np.float64]:
    """Similarity of attention maps (Dai et al. §4.4): cos(m_ICL, m_FT), the attention weights of the query
    over the query-text tokens (for ICL the weights on the demonstration tokens are left out)."""
    icl, ft = _vectors(("m_icl", "m_ft"), (m_icl, m_ft), ndim=(1, 2))
    return _cosine(icl, ft, "m_icl", "m_ft")


def sim_am_delta(m_zsl: ArrayLike, m_icl: ArrayLike, m_ft: ArrayLike) -> float | NDArray[np.float64]:
    """SimAM of the updates rather than of the maps: cos(m_ICL − m_ZSL, m_FT − m_ZSL).

    SimAM compares the maps themselves, which share the zero-shot map, so two unrelated changes of a common
    map still score high; this variant removes the shared part, as SimAOU does for the outputs (§4.3).
    """
    zsl, icl, ft = _vectors(("m_zsl", "m_icl", "m_ft"), (m_zsl, m_icl, m_ft), ndim=(1, 2))
    return _cosine(_difference(icl, zsl), _difference(ft, zsl), "m_icl − m_zsl", "m_ft − m_zsl")


def kendall_tau_a(x: ArrayLike, y: ArrayLike) -> float:
    """Kendall's τ_a = (concordant − discordant pairs) / (n(n−1)/2) (Kendall 1938; Dai et al. §4.4 rank the
    attention on demonstration tokens against the training tokens' importance with it).

    A tied pair counts as neither, so with ties τ_a differs from SciPy's default τ_b, which divides by the
    geometric mean of the untied pairs in x and in y.
    """
    x, y = _vectors(("x", "y"), (x, y))
    if x.size < 2:
        raise InvalidArgument(f"x must have at least 2 entries for a pair, got {x.size}")
    upper = np.triu_indices(x.size, k=1)
    with np.errstate(over="ignore", invalid="ignore"):
        signs = np.sign(np.subtract.outer(x, x)[upper]) * np.sign(np.subtract.outer(y, y)[upper])
    return float(np.sum(signs) / upper[0].size)


# ---------------------------------------------------------------------------------------------
# Examples for the bad-input fuzzer (numerics.shared.fuzz)

FUZZ = {
    "rec2ftp": Fuzz(
        lambda: {
            "zsl_correct": np.array([0.0, 0, 1, 1]),
            "ft_correct": np.array([1.0, 1, 1, 0]),
            "icl_correct": np.ones(4),
        }
    ),
    "sim_aou": Fuzz(lambda: dict(zip(("h_zsl", "h_icl", "h_ft"), np.random.default_rng(6).standard_normal((3, 4))))),
    "sim_am": Fuzz(lambda: dict(zip(("m_icl", "m_ft"), np.random.default_rng(7).uniform(0.1, 1.0, (2, 4))))),
    "sim_am_delta": Fuzz(
        lambda: dict(zip(("m_zsl", "m_icl", "m_ft"), np.random.default_rng(8).uniform(0.1, 1, (3, 4))))
    ),
    "kendall_tau_a": Fuzz(lambda: {"x": np.array([1.0, 2, 3, 4]), "y": np.array([2.0, 1, 4, 3])}),
}
