"""Hypothesis strategies for claims: dimensions, bounded reals and matrices.

Exported for users writing their own claims. Elements are bounded, finite and never
subnormal, so residuals are meaningful and shrinking lands on simple values (0, 1, …).
Dimensions shrink towards their lower bound, so a counterexample is reported at the
smallest sizes that show it.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp


def dims(min_value: int = 1, max_value: int = 4) -> st.SearchStrategy[int]:
    """A dimension (size of an axis) in [min_value, max_value]; shrinks towards ``min_value``."""
    return st.integers(min_value=min_value, max_value=max_value)


def reals(bound: float = 3.0, *, positive: bool = False) -> st.SearchStrategy[float]:
    """A float in [−bound, bound] (or [1/16, bound] when ``positive``), finite and not subnormal."""
    low = 1.0 / 16 if positive else -bound
    return st.floats(min_value=low, max_value=bound, allow_nan=False, allow_infinity=False, allow_subnormal=False)


def matrices(rows: int, cols: int, bound: float = 3.0) -> st.SearchStrategy[np.ndarray]:
    """A float64 ``rows × cols`` matrix with entries from :func:`reals`."""
    return hnp.arrays(np.float64, (rows, cols), elements=reals(bound))


def arrays(shape: tuple[int, ...], bound: float = 3.0) -> st.SearchStrategy[np.ndarray]:
    """A float64 array of the given shape with entries from :func:`reals`."""
    return hnp.arrays(np.float64, shape, elements=reals(bound))
