"""Hypothesis strategies for claims: dimensions, bounded reals and matrices.

Exported for users writing their own claims. Elements are bounded, finite and never
subnormal, so residuals are meaningful and shrinking lands on simple values (0, 1, …).
Dimensions shrink towards their lower bound, so a counterexample is reported at the
smallest sizes that show it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from icl_verify.errors import InvalidArgument


def dims(min_value: int = 1, max_value: int = 4) -> st.SearchStrategy[int]:
    """A dimension (size of an axis) in [min_value, max_value]; shrinks towards ``min_value``."""
    return st.integers(min_value=min_value, max_value=max_value)


FIRST_VALUES = 16
"""How many of the smallest values :func:`wide_integers` always covers."""


def wide_integers(low: int, high: int) -> st.SearchStrategy[int]:
    """Integers in [low, high]: half the draws among the first :data:`FIRST_VALUES`, half log-uniform.

    The log-uniform half draws a bit length b uniformly, then low + an offset in [2^(b−1), 2^b]: each
    order of magnitude up to ``high`` is drawn as often as the next, where a uniform draw over
    [0, 10⁶] would almost never show a value below 1000. Both halves shrink toward ``low``.
    """

    @st.composite
    def log_uniform(draw) -> int:
        bits = draw(st.integers(0, (high - low).bit_length()))
        span = min(high - low, 2**bits)
        return low + draw(st.integers(span // 2, span))

    return st.one_of(st.integers(low, min(high, low + FIRST_VALUES - 1)), log_uniform())


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


def spd_matrices(n: int, *, min_eigenvalue: float = 0.1, max_eigenvalue: float = 10.0) -> st.SearchStrategy[np.ndarray]:
    """A symmetric positive-definite ``n × n`` matrix with eigenvalues in [min, max] (well-conditioned).

    Built as Q diag(λ) Qᵀ with Q from the QR factorisation of a drawn matrix, so the condition
    number is at most max_eigenvalue / min_eigenvalue.
    """
    if not 0 < min_eigenvalue <= max_eigenvalue:
        raise InvalidArgument(f"need 0 < min_eigenvalue <= max_eigenvalue, got {min_eigenvalue}, {max_eigenvalue}")
    eigenvalues = hnp.arrays(np.float64, (n,), elements=st.floats(min_eigenvalue, max_eigenvalue))

    @st.composite
    def build(draw) -> np.ndarray:
        a = draw(matrices(n, n)) + 4.0 * np.eye(n)  # diagonally dominant: QR is well defined
        q, _ = np.linalg.qr(a)
        lam = draw(eigenvalues)
        return (q * lam) @ q.T

    return build()


def token_batches(batch: int, tokens: int, width: int, bound: float = 3.0) -> st.SearchStrategy[np.ndarray]:
    """A ``(batch, tokens, width)`` float64 array of tokens as rows (the numerics' convention)."""
    return arrays((batch, tokens, width), bound)


Dimension = int | tuple[int, int]
"""A dimension fixed to an ``int`` or ranged over a ``(low, high)`` pair (inclusive)."""


def dimension(name: str, value: Dimension) -> st.SearchStrategy[int]:
    """A strategy for a dimension given as an ``int`` (fixed) or a ``(low, high)`` pair (shrinks to low)."""
    pair = (value, value) if isinstance(value, int) and not isinstance(value, bool) else value
    positive = isinstance(pair, tuple) and len(pair) == 2 and all(type(v) is int and v >= 1 for v in pair)
    if not (positive and isinstance(pair, tuple) and pair[0] <= pair[1]):
        raise InvalidArgument(f"{name} must be a positive int or a (low, high) pair of them, got {pair!r}")
    return dims(*pair)


def nonzero_matrices(rows: int, cols: int, bound: float = 3.0) -> st.SearchStrategy[np.ndarray]:
    """Like :func:`matrices`, never all zero: an all-zero draw gets a 1 in its first entry."""

    def lift(a: np.ndarray) -> np.ndarray:
        if np.any(a != 0):
            return a
        out = a.copy()
        out.flat[0] = 1.0
        return out

    return matrices(rows, cols, bound).map(lift)


W0_CHOICES = (True, False, "nonzero")


@st.composite
def regression_cases(
    draw,
    *,
    Nx: Dimension = (1, 3),
    Ny: Dimension = (1, 3),
    N: Dimension = (1, 5),
    w0: bool | str = True,
    bound: float = 3.0,
) -> dict:
    """A random regression context as rows: X (N×Nx), Y (N×Ny), query x_q (1×Nx), W0 and η > 0.

    Every dimension is fixed (``Ny=1``) or ranged (``N=(1, 5)``); they are reported as ``Nx``,
    ``Ny`` and ``N`` (von Oswald et al.'s names). ``w0``: ``True`` draws W0, ``False`` sets
    W0 = 0, ``"nonzero"`` draws a W0 that is never all zero.
    """
    if w0 not in W0_CHOICES:
        raise InvalidArgument(f"w0 must be one of {W0_CHOICES}, got {w0!r}")
    nx, ny, n = draw(dimension("Nx", Nx)), draw(dimension("Ny", Ny)), draw(dimension("N", N))
    if w0 == "nonzero":
        W0 = draw(nonzero_matrices(ny, nx, bound))
    else:
        W0 = draw(matrices(ny, nx, bound)) if w0 else np.zeros((ny, nx))
    return {
        "Nx": nx,
        "Ny": ny,
        "N": n,
        "X": draw(matrices(n, nx, bound)),
        "Y": draw(matrices(n, ny, bound)),
        "x_q": draw(matrices(1, nx, bound)),
        "W0": W0,
        "eta": draw(reals(2.0, positive=True)),
    }


@contextlib.contextmanager
def source_independent_draws() -> Iterator[None]:
    """Within it, Hypothesis draws the same examples from a seed whatever Python modules are loaded.

    Hypothesis (since 6.131) mixes into about 5 % of its draws the literal constants it finds in the
    source of every loaded module outside site-packages, and keeps them in ``.hypothesis/constants``
    under the working directory. A check would then depend on which modules happen to be imported
    (a user's claim file, a module imported lazily by an earlier claim), on an editable rather than a
    plain install, and on any edit of a literal — and would write into the user's folder. Here that
    pool is empty (its built-in constants, 0, ±1, ±inf, … are kept), so the draws are a function of
    the seed and the strategy alone. Hypothesis versions without the pool are left as they are.
    """
    try:
        from hypothesis.internal.conjecture import providers
    except ImportError:  # pragma: no cover - a Hypothesis without this module has no local pool
        yield
        return
    getter, constants_cache = (
        getattr(providers, "_get_local_constants", None),
        getattr(providers, "CONSTANTS_CACHE", None),
    )
    if getter is None or constants_cache is None:  # pragma: no cover - the pool was removed or renamed
        yield
        return
    empty = providers.Constants()
    providers._get_local_constants = lambda: empty
    constants_cache.cache.clear()  # drop pools filtered from the local constants before
    try:
        yield
    finally:
        providers._get_local_constants = getter
        constants_cache.cache.clear()
