"""Automatic tolerance: a running bound on the rounding error of each side of a statement.

A floating-point evaluation of an expression built from +, −, ×, @ and / errs by at most a
modest multiple of the unit roundoff u times the *magnitude of its terms* — the same expression
evaluated with every input replaced by its absolute value and every subtraction turned into an
addition (Higham, *Accuracy and Stability of Numerical Algorithms*, 2nd ed. 2002, §3.1 and
Lemma 3.1: |fl(xᵀy) − xᵀy| ≤ γ_n |x|ᵀ|y|, γ_n = nu / (1 − nu)). :class:`Magnitude` is an array
that performs that second evaluation: passed through the unchanged user functions, it returns
the term magnitude, and :func:`term_scale` uses it as the scale of the numeric comparison, so an
identity whose terms cancel — (A + B)² − A² − AB − BA = B² with A large — is not refuted by
rounding, while an O(1) error still is.

Elementary functions (exp, tanh, erf, …) are applied to the magnitude of their argument and the
absolute value taken, a bound for the monotone functions the building blocks use. Inverses and
divisions by differences that cancel are not bounded this way: give such statements an explicit
``rtol``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

import numpy as np

UNIT_ROUNDOFF = float(np.finfo(np.float64).eps) / 2
"""u = 2⁻⁵³ for float64 (Higham 2002, §2.1)."""

ROUNDING_FACTOR = 2048
"""The multiple of u allowed per unit of term magnitude: γ_n ≤ 2nu covers sums of up to ~1000 terms."""

RTOL = ROUNDING_FACTOR * UNIT_ROUNDOFF
"""The relative tolerance applied to the term magnitude (≈ 2.3e-13)."""

ATOL = ROUNDING_FACTOR * float(np.finfo(np.float64).smallest_subnormal)
"""The absolute floor for results that underflow: each operation may add an error up to the smallest
subnormal (Higham 2002, §2.1, the model fl(x op y) = (x op y)(1 + δ) + η with gradual underflow)."""

_MAGNITUDE_OF = {np.subtract: np.add, np.negative: np.positive}


def _unwrap(value: Any) -> Any:
    """The absolute value of an array, scalar or nested list/tuple, as plain NumPy data."""
    if isinstance(value, (list, tuple)):
        return type(value)(_unwrap(v) for v in value)
    if isinstance(value, (np.ndarray, np.generic, int, float)) and not isinstance(value, bool):
        return np.abs(np.asarray(value))
    return value


def _wrap(value: Any) -> Any:
    """Wrap array results back into :class:`Magnitude` (absolute values), leave the rest alone."""
    if isinstance(value, (list, tuple)):
        return type(value)(_wrap(v) for v in value)
    if isinstance(value, (np.ndarray, np.generic)) and np.issubdtype(np.asarray(value).dtype, np.number):
        return np.asarray(np.abs(value)).view(Magnitude)
    return value


class Magnitude(np.ndarray):
    """An array standing for |terms|: arithmetic on it adds magnitudes, subtraction included.

    >>> a = magnitude_of(np.array([3.0, -1.0]))
    >>> np.asarray(a - np.array([2.0, 1.0]))
    array([5., 2.])
    """

    def __array_ufunc__(self, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any) -> Any:
        """Apply ``ufunc`` to the inputs' magnitudes; − becomes +, unary minus the identity."""
        if kwargs.get("out") is not None:
            raise TypeError("Magnitude does not support in-place operations (out=)")
        ufunc = _MAGNITUDE_OF.get(ufunc, ufunc)
        return _wrap(getattr(ufunc, method)(*_unwrap(inputs), **kwargs))

    def __array_function__(
        self, func: Callable[..., Any], types: Iterable[type], args: Iterable[Any], kwargs: Mapping[str, Any]
    ) -> Any:
        """NumPy functions (stacking, reductions, …) on the magnitudes, the result again a Magnitude."""
        return _wrap(func(*_unwrap(args), **{k: _unwrap(v) for k, v in kwargs.items()}))


def magnitude_of(value: Any) -> Any:
    """An array or a float as a :class:`Magnitude`; integers (sizes) and other objects unchanged."""
    if isinstance(value, (np.ndarray, np.floating, float)):
        return _wrap(np.asarray(value, dtype=np.float64))
    return value


def term_magnitude(fn: Callable[..., Any], values: Mapping[str, Any]) -> float:
    """The largest entry of ``fn`` evaluated on the magnitudes of ``values`` (0 for no entries).

    Integer values are sizes and are passed unchanged.
    """
    with np.errstate(over="ignore"):
        out = fn(**{k: magnitude_of(v) for k, v in values.items()})
    parts = out if isinstance(out, (list, tuple)) else [out]
    return max((float(np.max(np.asarray(p, dtype=np.float64), initial=0.0)) for p in parts), default=0.0)


def term_scale(sides: tuple[Callable[..., Any], ...], values: Mapping[str, Any]) -> float:
    """The scale of a comparison of ``sides`` at ``values``: the largest term magnitude of any side."""
    return max(term_magnitude(fn, values) for fn in sides)
