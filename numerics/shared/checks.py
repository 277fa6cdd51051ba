"""Input validation shared by the numerics: bad input raises a ``ValueError`` naming the argument."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def positive_int(name: str, value: object) -> int:
    """Return ``value`` as an ``int`` if it is a positive integer, else raise ``ValueError``."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


def seed_value(name: str, value: object) -> int:
    """Return a random seed ``value`` as an ``int`` if it is a non-negative integer (not a bool), else raise.

    >>> seed_value("seed", 3)
    3
    """
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
        raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
    return int(value)


def finite_scalar(name: str, value: object, *, positive: bool = False, nonnegative: bool = False) -> float:
    """Return ``value`` as a finite ``float``; optionally require it to be positive / non-negative."""
    try:
        x = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a real number, got {value!r}") from None
    if not np.isfinite(x):
        raise ValueError(f"{name} must be finite, got {value!r}")
    if positive and x <= 0:
        raise ValueError(f"{name} must be positive, got {value!r}")
    if nonnegative and x < 0:
        raise ValueError(f"{name} must be non-negative, got {value!r}")
    return x


def finite_array(name: str, value: object, *, ndim: int | Sequence[int] | None = None) -> np.ndarray:
    """Return ``value`` as a finite float64 array with the given number of dimensions.

    >>> finite_array("x", [[1, 2]], ndim=2).shape
    (1, 2)
    """
    arr = np.asarray(value, dtype=np.float64)
    if ndim is not None:
        allowed = (ndim,) if isinstance(ndim, int) else tuple(ndim)
        if arr.ndim not in allowed:
            want = " or ".join(str(d) for d in allowed)
            raise ValueError(f"{name} must have {want} dimensions, got shape {arr.shape}")
    if arr.size and not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must contain only finite values (no NaN or inf)")
    return arr


def same_size(name: str, actual: int, expected: int, what: str) -> None:
    """Raise ``ValueError`` unless an axis of ``name`` has the ``expected`` length."""
    if actual != expected:
        raise ValueError(f"{name} must have {what} = {expected}, got {actual}")
