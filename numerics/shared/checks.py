"""Input validation shared by the numerics: bad input raises :class:`~icl_verify.errors.InvalidArgument` (a
``ValueError``) naming the argument."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

import numpy as np
from numpy.typing import NDArray

from icl_verify.errors import InvalidArgument

T = TypeVar("T")


MAX_STEPS = 1_000_000
"""Largest iteration count (steps of gradient descent or iterative Newton, stacked layers) a numerics
function runs. Each step on the papers' small matrices costs microseconds, so the bound is seconds of
work, and the iterations it bounds converge geometrically (GD at rate |1 − ηλ| per step, Newton
quadratically; Nesterov 2004, §1.2.3; Fu et al. 2024, §3): a larger count changes no digit of a
convergent run, and is far more likely a size or a seed passed by mistake, which would otherwise hang."""


def _at_most(name: str, value: int, maximum: int | None) -> int:
    if maximum is not None and value > maximum:
        raise InvalidArgument(f"{name} must be at most {maximum}, got {value!r}")
    return value


def positive_int(name: str, value: object, *, maximum: int | None = None) -> int:
    """Return ``value`` as an ``int`` if it is a positive integer (at most ``maximum``), else raise :class:`InvalidArgument`."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise InvalidArgument(f"{name} must be a positive integer, got {value!r}")
    return _at_most(name, int(value), maximum)


def nonnegative_int(name: str, value: object, *, maximum: int | None = None) -> int:
    """Return ``value`` as an ``int`` if it is a non-negative integer (not a bool; at most ``maximum``), else raise
    :class:`InvalidArgument`."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
        raise InvalidArgument(f"{name} must be a non-negative integer, got {value!r}")
    return _at_most(name, int(value), maximum)


def seed_value(name: str, value: object) -> int:
    """Return a random seed ``value`` as an ``int`` if it is a non-negative integer (not a bool), else raise.

    >>> seed_value("seed", 3)
    3
    """
    return nonnegative_int(name, value)


def finite_scalar(name: str, value: object, *, positive: bool = False, nonnegative: bool = False) -> float:
    """Return ``value`` as a finite ``float``; optionally require it to be positive / non-negative.

    A complex value is refused, never cast to its real part.
    """
    if isinstance(value, (complex, np.complexfloating)) or (isinstance(value, np.ndarray) and value.dtype.kind == "c"):
        raise InvalidArgument(f"{name} must be a real number, got the complex {value!r}")
    try:
        x = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise InvalidArgument(f"{name} must be a real number, got {value!r}") from None
    if not np.isfinite(x):
        raise InvalidArgument(f"{name} must be finite, got {value!r}")
    if positive and x <= 0:
        raise InvalidArgument(f"{name} must be positive, got {value!r}")
    if nonnegative and x < 0:
        raise InvalidArgument(f"{name} must be non-negative, got {value!r}")
    return x


def finite_array(
    name: str,
    value: object,
    *,
    ndim: int | Sequence[int] | None = None,
    nonempty: bool = False,
    allow_inf: bool = False,
) -> NDArray[np.float64]:
    """Return ``value`` as a finite float64 array with the given number of dimensions.

    ``nonempty=True`` also requires every axis to have length at least 1; ``allow_inf=True`` admits
    ±inf entries (never NaN). Complex input is refused, never cast to its real part.

    >>> finite_array("x", [[1, 2]], ndim=2).shape
    (1, 2)
    """
    not_real = InvalidArgument(f"{name} must be an array of real numbers, got {type(value).__name__}")
    try:
        raw = np.asarray(value)
    except (TypeError, ValueError):
        raise not_real from None
    if raw.dtype.kind == "c" or (raw.dtype.kind == "O" and any(np.iscomplexobj(v) for v in raw.flat)):
        raise InvalidArgument(f"{name} must be an array of real numbers, got complex values")
    try:
        arr = raw.astype(np.float64, copy=False)
    except (TypeError, ValueError):
        raise not_real from None
    if ndim is not None:
        allowed = (ndim,) if isinstance(ndim, int) else tuple(ndim)
        if arr.ndim not in allowed:
            want = " or ".join(str(d) for d in allowed)
            raise InvalidArgument(f"{name} must have {want} dimensions, got shape {arr.shape}")
    if allow_inf and np.any(np.isnan(arr)):
        raise InvalidArgument(f"{name} must not contain NaN")
    if not allow_inf and arr.size and not np.all(np.isfinite(arr)):
        raise InvalidArgument(f"{name} must contain only finite values (no NaN or inf)")
    if nonempty and 0 in arr.shape:
        raise InvalidArgument(f"{name} must not be empty, got shape {arr.shape}")
    return arr


def confidence_level(name: str, value: object) -> float:
    """Return a confidence level as a ``float`` in the open interval (0, 1), else raise :class:`InvalidArgument`."""
    level = finite_scalar(name, value)
    if not 0 < level < 1:
        raise InvalidArgument(f"{name} must lie in (0, 1), got {value!r}")
    return level


def same_size(name: str, actual: int, expected: int, what: str) -> None:
    """Raise :class:`InvalidArgument` unless an axis of ``name`` has the ``expected`` length."""
    if actual != expected:
        raise InvalidArgument(f"{name} must have {what} = {expected}, got {actual}")


def time_series(
    times_name: str, times: object, values_name: str, values: object, *, strict: bool = False, infinite: bool = False
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Validate samples of a function of time: non-empty 1-D finite ``times`` (increasing; strictly
    if ``strict``) and finite ``values`` of the same length (``infinite=True`` admits ±inf values, e.g.
    a quantity that blew up, never NaN). Returns both as float64 arrays."""
    t = finite_array(times_name, times, ndim=1, nonempty=True)
    v = finite_array(values_name, values, ndim=1, allow_inf=infinite)
    same_size(values_name, v.size, t.size, f"the length of {times_name}")
    steps = np.diff(t)
    if np.any(steps <= 0 if strict else steps < 0):
        raise InvalidArgument(f"{times_name} must be {'strictly increasing' if strict else 'non-decreasing'}")
    return t, v


CONDITION_LIMIT = 1e12
"""Largest condition number accepted where a matrix is inverted: the relative error of the solve is
up to κ·ε ≈ 2e-4 at κ = 1e12 (float64 ε ≈ 2.2e-16; Golub & Van Loan 2013, §2.6)."""


def well_conditioned(name: str, matrix: NDArray[np.float64], what: str) -> NDArray[np.float64]:
    """Return the square ``matrix`` if its 2-norm condition number is at most :data:`CONDITION_LIMIT`,
    else raise :class:`InvalidArgument` naming ``name`` (the arguments that made ``what`` singular)."""
    with np.errstate(all="ignore"):
        cond = float(np.linalg.cond(matrix)) if matrix.size and np.all(np.isfinite(matrix)) else np.inf
    if not cond <= CONDITION_LIMIT:
        raise InvalidArgument(f"{name} make {what} singular or ill-conditioned (condition number {cond:.3g} > 1e12)")
    return matrix


def finite_result(value: T, message: str) -> T:
    """Return ``value`` (an array, a number or a tuple of them) if every entry is finite, else raise
    ``InvalidArgument(message)`` (divergence or overflow)."""
    parts: tuple[Any, ...] = value if isinstance(value, tuple) else (value,)
    if not all(np.all(np.isfinite(part)) for part in parts):
        raise InvalidArgument(message)
    return value


# ---------------------------------------------------------------------------------------------
# Examples for the bad-input fuzzer (numerics.shared.fuzz)

FUZZ_EXEMPT = {
    name: "a validator, unit-tested on its own"
    for name in (
        "positive_int",
        "nonnegative_int",
        "seed_value",
        "finite_scalar",
        "finite_array",
        "confidence_level",
        "same_size",
        "time_series",
        "well_conditioned",
        "finite_result",
    )
}
