"""The numeric check: a property over random sizes and values drawn by Hypothesis, within a tolerance."""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, ClassVar

import numpy as np
from hypothesis import HealthCheck, Phase, Verbosity, assume, find, settings
from hypothesis.errors import HypothesisException, NoSuchExample, Unsatisfiable
from hypothesis.strategies import SearchStrategy
from numpy.typing import NDArray
from sympy.matrices.exceptions import NonInvertibleMatrixError

from icl_verify.core.checks.base import Check, Found, defined_sizes_hint, short
from icl_verify.core.evidence import ControlStatus, Evidence, Kind, Status, counterexample
from icl_verify.core.tracebacks import user_traceback
from icl_verify.errors import IclVerifyError, InvalidArgument
from icl_verify.maths.exact import nonzero
from icl_verify.maths.strategies import source_independent_draws


class MalformedComparison(IclVerifyError, ValueError):
    """A side's value cannot be compared at this case (a shape, a complex or non-numeric value): no counterexample."""


class NonFiniteComparison(MalformedComparison):
    """A comparison met NaN or inf: the check is broken there, which is no counterexample."""


def side_values(name: str, value: Any) -> NDArray[np.float64]:
    """A side's value as a float64 array of its own shape; complex, object or non-numeric values name the side.

    A complex value is never cast to its real part (``iA = −iA`` would pass) and a value NumPy can only
    hold as objects (ragged lists, SymPy numbers, ``None``) is no number: both raise
    :class:`MalformedComparison`.
    """
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError) as exc:
        raise MalformedComparison(f"{name} is not an array of numbers ({exc})") from None
    if arr.dtype.kind not in "biuf":
        what = "complex" if arr.dtype.kind == "c" else "non-numeric"
        raise MalformedComparison(
            f"{name} has {what} values (dtype {arr.dtype}); a numeric comparison needs real numbers"
        )
    return arr.astype(np.float64)


def same_shape(lhs: NDArray[np.float64], rhs: NDArray[np.float64], what: str = "lhs and rhs") -> None:
    """Raise :class:`MalformedComparison` unless the two sides have the same shape (x and xᵀ differ)."""
    if lhs.shape != rhs.shape:
        raise MalformedComparison(f"{what} have different shapes {lhs.shape} and {rhs.shape}")


def compare_with_tolerance(result: tuple, rtol: float, atol: float) -> tuple[bool, float, float]:
    """Return ``(ok, max |lhs − rhs|, tolerance)`` with tolerance ``atol + rtol · scale``.

    ``scale`` is the largest magnitude among lhs, rhs and an optional third element. The shapes are
    compared before the values, and each side must be real: a shape mismatch, a complex or a
    non-numeric value is :class:`MalformedComparison` naming the side; NaN or inf anywhere is no
    comparison at all (:class:`NonFiniteComparison` names the part).
    """
    if not isinstance(result, tuple) or len(result) not in (2, 3):
        raise InvalidArgument("compare must return (lhs, rhs) or (lhs, rhs, scale)")
    lhs, rhs = side_values("lhs", result[0]), side_values("rhs", result[1])
    same_shape(lhs, rhs)
    extra = side_values("scale", result[2]) if len(result) == 3 else np.zeros(())
    if extra.shape != ():
        raise MalformedComparison(f"scale must be one number, got shape {extra.shape}")
    for name, part in (("lhs", lhs), ("rhs", rhs), ("scale", extra)):
        if not np.all(np.isfinite(part)):
            raise NonFiniteComparison(f"{name} is not finite (NaN or inf)")
    err = float(np.max(np.abs(lhs - rhs), initial=0.0))
    scale = max(float(np.max(np.abs(lhs), initial=0.0)), float(np.max(np.abs(rhs), initial=0.0)), abs(float(extra)))
    tol = atol + rtol * scale
    return err <= tol, err, tol


def read_only(value: Any) -> Any:
    """A copy of ``value`` whose arrays (also inside lists, tuples and dicts) cannot be written.

    Each array is a read-only view of a read-only copy, so a side cannot make it writeable again
    (``setflags(write=True)`` refuses a view of a read-only base): an in-place update of an input
    raises instead of changing what the other side, a re-run or the control sees.
    """
    if isinstance(value, np.ndarray):
        base = np.array(value, copy=True)
        base.flags.writeable = False
        view = base.view()
        view.flags.writeable = False
        return view
    if isinstance(value, dict):
        return {k: read_only(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(read_only(v) for v in value) if type(value) in (list, tuple) else value
    return value


def _compared(compare: Callable[[Mapping[str, Any]], tuple], case: Mapping[str, Any]) -> tuple:
    """``compare`` at a read-only copy of ``case`` (see :func:`read_only`)."""
    return compare(read_only(dict(case)))


def _sizes_of(case: Mapping[str, Any]) -> dict[str, int]:
    return {k: int(v) for k, v in case.items() if isinstance(v, (int, np.integer)) and not isinstance(v, bool)}


def _coverage(seen: Iterable[Mapping[str, int]]) -> str:
    seen = list(seen)
    keys = sorted({k for s in seen for k in s})
    return ", ".join(f"{k}∈[{min(s[k] for s in seen)},{max(s[k] for s in seen)}]" for k in keys)


def _describe(error: BaseException) -> str:
    """The error of a broken case; a write to a read-only input says that the inputs are read-only."""
    if isinstance(error, MalformedComparison):
        return str(error)
    text = f"{type(error).__name__}: {error}"
    if isinstance(error, ValueError) and "read-only" in str(error):
        text += " (a side modified its inputs in place: the case's arrays are read-only)"
    return text


class _BrokenCase(Exception):
    """Carries a case whose comparison was malformed, or whose compare raised, out of Hypothesis' search."""

    def __init__(self, case: Mapping[str, Any], error: Exception) -> None:
        super().__init__(str(error))
        self.case, self.error = case, error


def _settings(max_examples: int) -> settings:
    return settings(
        settings.get_profile("default"),  # Hypothesis' own defaults: a profile the user loaded changes no verdict
        max_examples=max_examples,
        derandomize=False,  # the search is seeded by ``seed`` (``random=`` in :meth:`Numeric.run`)
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        verbosity=Verbosity.quiet,
        phases=[Phase.generate, Phase.shrink],
    )


OUTSIDE_DOMAIN: tuple[type[BaseException], ...] = (
    np.linalg.LinAlgError,
    ZeroDivisionError,
    FloatingPointError,
    OverflowError,
    NonFiniteComparison,
    NonInvertibleMatrixError,
)
"""What a side raises at a point where it is undefined (a singular matrix, a division by zero, NaN or inf):
such a draw is rejected, like ``hypothesis.assume``, and counted — it is no counterexample and no error."""

MOSTLY_UNDEFINED = 0.9
"""A statement undefined at this share of the draws (or more) is an error: its domain must be declared."""

WHOLE_SIZE = 5
"""A statement undefined at every one of this many draws (or more) of one size is an error too."""

GROSS = 1e6
"""While searching and shrinking, a float failure this many times the tolerance counts without exact
arithmetic; the case finally reported is always decided (:meth:`Numeric.run`)."""

FLOAT_ONLY_MARGIN = 1e4
"""Where a side cannot be evaluated exactly, a floating-point counterexample of an automatic tolerance
counts only when |lhs − rhs| exceeds the rounding bound by this factor (and the evidence says so)."""


class Confirmation(StrEnum):
    """What exact arithmetic says of a floating-point counterexample (:mod:`icl_verify.maths.exact`)."""

    CONFIRMED = "confirmed exactly"  # the exact residual at the drawn point is non-zero
    ROUNDING = "rounding"  # the exact residual is 0: the float comparison failed by rounding
    OUTSIDE = "outside the domain"  # in exact arithmetic a side is undefined there (a singular matrix)
    UNDECIDED = "undecided"  # the exact residual's sign could not be decided
    FLOAT_ONLY = "floating point only"  # no exact evaluation: the float comparison decides, with a margin


@dataclass(frozen=True)
class Sides:
    """A comparison with its exact counterpart: called as ``compare(case)``; ``exact(case)`` gives lhs − rhs
    at the same point in exact arithmetic (a list of SymPy values), or raises :class:`Inexact`.

    ``probe()`` (optional) returns a message when the two evaluations of the sides compute different
    things at a generic point (NumPy's ``**`` is element-wise, SymPy's a matrix power), else ``None``.
    """

    compare: Callable[[Mapping[str, Any]], tuple]
    exact: Callable[[Mapping[str, Any]], list[Any]]
    probe: Callable[[], str | None] = lambda: None

    def __call__(self, case: Mapping[str, Any]) -> tuple:
        return self.compare(case)


class Inexact(IclVerifyError):
    """A side cannot be evaluated in exact arithmetic (it needs NumPy numbers)."""


def confirm(sides: Any, case: Mapping[str, Any]) -> tuple[Confirmation, str]:
    """Decide a floating-point counterexample at ``case`` in exact arithmetic: the verdict and the exact residual."""
    exact = getattr(sides, "exact", None)
    if exact is None:
        return Confirmation.FLOAT_ONLY, ""
    try:
        residual = exact(case)
    except OUTSIDE_DOMAIN:
        return Confirmation.OUTSIDE, ""
    except Inexact:
        return Confirmation.FLOAT_ONLY, ""
    answer = nonzero(residual)
    if answer is None:
        return Confirmation.UNDECIDED, ""
    if not answer:
        return Confirmation.ROUNDING, ""
    return Confirmation.CONFIRMED, short(_residual_text(residual)) + _binary_literals(exact, case)


def _binary_literals(exact: Callable[..., Any], case: Mapping[str, Any]) -> str:
    """A note when the exact residual vanishes once the sides' float literals are read as decimals (0.1 as 1/10)."""
    try:
        vanishes = nonzero(exact(case, decimal=True)) is False
    except Exception:  # no decimal reading (a hand-written exact form): no note
        return ""
    return (
        " — caused by binary floating-point literals in a side (0.1 is not 1/10): with exact literals "
        "(sp.Rational(1, 10) or fractions.Fraction) it holds here"
        if vanishes
        else ""
    )


def _residual_text(residual: list[Any]) -> str:
    """An exact residual on one line: each part a number or a matrix as its nested list of rows, "; " between."""
    return "; ".join(str(p.tolist()) if hasattr(p, "tolist") else str(p) for p in residual)


@dataclass
class _Tally:
    """What the search met besides passing cases: draws outside the domain and failures not confirmed."""

    evaluated: int = 0
    compared: int = 0  # passing cases that compared at least one value
    rejected: int = 0
    why_rejected: str = ""
    unconfirmed: dict[Confirmation, int] = field(default_factory=dict)
    by_size: dict[tuple, list[int]] = field(default_factory=dict)  # sizes → [draws, rejected]

    def count(self, sizes: Mapping[str, int]) -> None:
        self.evaluated += 1
        self.by_size.setdefault(tuple(sorted(sizes.items())), [0, 0])[0] += 1

    def reject(self, error: BaseException, sizes: Mapping[str, int]) -> None:
        self.rejected += 1
        self.by_size[tuple(sorted(sizes.items()))][1] += 1
        self.why_rejected = self.why_rejected or _describe(error)

    def undefined_size(self) -> dict[str, int] | None:
        """Sizes at which every one of at least :data:`WHOLE_SIZE` draws was undefined (a domain that excludes
        a whole size is a wrong declaration or a fault in a side, not a few singular draws)."""
        for sizes, (draws, rejected) in self.by_size.items():
            if draws >= WHOLE_SIZE and rejected == draws:
                return dict(sizes)
        return None

    def note(self, confirmation: Confirmation) -> None:
        self.unconfirmed[confirmation] = self.unconfirmed.get(confirmation, 0) + 1

    def mostly_undefined(self) -> bool:
        return self.evaluated > 0 and (
            self.rejected >= MOSTLY_UNDEFINED * self.evaluated or self.undefined_size() is not None
        )

    def describe(self) -> str:
        """The rejected draws and unconfirmed failures, for the evidence ("" when there were none)."""
        out = []
        if self.rejected:
            out.append(f"{self.rejected} draw(s) outside the domain rejected ({self.why_rejected})")
        for what, n in self.unconfirmed.items():
            meaning = {
                Confirmation.ROUNDING: "rounding (exact residual 0)",
                Confirmation.OUTSIDE: "outside the domain in exact arithmetic",
                Confirmation.UNDECIDED: "of undecided exact sign",
                Confirmation.FLOAT_ONLY: f"within {FLOAT_ONLY_MARGIN:g}× the rounding bound (no exact evaluation)",
            }[what]
            out.append(f"{n} floating-point failure(s) {meaning}, not counted")
        return "; ".join(out)


@dataclass(frozen=True)
class Numeric(Check):
    """Numeric property: ``compare(case)`` returns ``(lhs, rhs)`` or ``(lhs, rhs, scale)`` for a drawn case.

    ``cases`` draws a ``dict``; its ``int`` entries are reported as the dimensions covered.
    ``scale`` (optional) is the magnitude of the terms that cancel, for the tolerance
    ``|lhs − rhs| ≤ atol + rtol · scale``. A failing case is shrunk to a minimal counterexample.
    The corrected form is another ``compare``, run at the shrunk case with the same tolerance.
    ``compare`` receives a read-only copy of the case (:func:`read_only`): a side that modifies its
    inputs in place is an error, never a pass. A crash, a shape mismatch, a complex or non-numeric
    side at any case is an error naming that case's sizes (:func:`compare_with_tolerance`).

    A draw where a side is undefined (:data:`OUTSIDE_DOMAIN`) is rejected and counted. When ``compare``
    is a :class:`Sides` (statements written once), a failing case is a candidate until :func:`confirm`
    finds its exact residual non-zero; a plain ``compare`` is decided in floating point, as the evidence says.
    """

    cases: SearchStrategy[Mapping[str, Any]]
    compare: Callable[[Mapping[str, Any]], tuple]
    rtol: float = 1e-9
    atol: float = 1e-12
    drawn: str = ""  # where the scalars were drawn from (statements: their declared intervals), for the evidence

    kind: ClassVar[str] = Kind.NUMERIC
    rank: ClassVar[int] = 0

    def _fails(self, case: Mapping[str, Any], tally: _Tally, seen: list[dict[str, int]], strict: bool) -> bool:
        """Whether ``case`` is a counterexample: a float failure that exact arithmetic confirms.

        Unless ``strict``, a gross failure (beyond :data:`GROSS` times the tolerance) counts without the
        exact evaluation, to keep shrinking fast; :meth:`run` confirms the case it reports, and searches
        again strictly when that fails.
        """
        seen.append(_sizes_of(case))
        tally.count(seen[-1])
        try:
            result = _compared(self.compare, case)
            ok, err, tol = compare_with_tolerance(result, self.rtol, self.atol)
        except HypothesisException:  # assume() in a compare: Hypothesis' own control flow
            raise
        except OUTSIDE_DOMAIN as exc:
            tally.reject(exc, seen[-1])
            assume(False)
        except Exception as exc:  # a crash or a malformed comparison at a case is no counterexample
            raise _BrokenCase(case, exc) from exc
        if ok:
            tally.compared += bool(np.size(result[0]))
            return False
        if not strict and err > GROSS * tol:
            return True
        return self._counts(case, err, tol, tally)

    def _counts(self, case: Mapping[str, Any], err: float, tol: float, tally: _Tally | None = None) -> bool:
        """Whether a floating-point failure at ``case`` is a counterexample (:func:`confirm`); else it is noted."""
        confirmation, _ = confirm(self.compare, case)
        if confirmation == Confirmation.CONFIRMED:
            return True
        if confirmation == Confirmation.FLOAT_ONLY and (
            not isinstance(self.compare, Sides) or err > FLOAT_ONLY_MARGIN * tol
        ):
            return True
        if tally is not None:
            tally.note(confirmation)
        return False

    def _search(self, seed: int, max_examples: int, tally: _Tally, seen: list, strict: bool) -> Mapping[str, Any]:
        with source_independent_draws(), np.errstate(all="ignore"):
            return find(
                self.cases,
                lambda c: self._fails(c, tally, seen, strict),
                settings=_settings(max_examples),
                random=random.Random(seed),
            )

    def run(self, seed: int, max_examples: int) -> Found:
        t0 = time.perf_counter()
        seen: list[dict[str, int]] = []
        tally = _Tally()
        problem = getattr(self.compare, "probe", lambda: None)()
        if problem:
            return Found(Evidence(self.kind, Status.ERROR, problem, time.perf_counter() - t0))
        try:
            case = self._search(seed, max_examples, tally, seen, strict=False)
            with np.errstate(all="ignore"):
                _, err, tol = compare_with_tolerance(_compared(self.compare, case), self.rtol, self.atol)
            if not self._counts(case, err, tol):  # a gross float failure that exact arithmetic does not confirm
                seen.clear()
                tally = _Tally()
                case = self._search(seed, max_examples, tally, seen, strict=True)
        except (NoSuchExample, Unsatisfiable):
            return Found(self._passed(seed, seen, tally, time.perf_counter() - t0))
        except _BrokenCase as broken:
            detail = f"{_describe(broken.error)} in case {len(seen)} at sizes {_sizes_of(broken.case)} (seed {seed})"
            crash = None if isinstance(broken.error, MalformedComparison) else user_traceback(broken.error)
            return Found(Evidence(self.kind, Status.ERROR, detail, time.perf_counter() - t0, traceback=crash))
        return Found(self._refuted(case, seed, tally, time.perf_counter() - t0), case)

    def _passed(self, seed: int, seen: list[dict[str, int]], tally: _Tally, seconds: float) -> Evidence:
        """No counterexample: verified on what was covered, or an error when almost every draw was undefined."""
        if tally.mostly_undefined():
            whole = tally.undefined_size()
            where = f" (every draw at sizes {whole})" if whole is not None else ""
            sizes = f"; or {defined_sizes_hint(whole)}" if whole else ""  # X(XᵀX)⁻¹ for X n × d with n < d
            detail = (
                f"the sides are undefined at {tally.rejected} of {tally.evaluated} draws{where}: {tally.why_rejected} "
                f"(seed {seed}); declare the domain, e.g. iv.matrix(n, n, invertible=True) or "
                f"iv.scalar(low=..., exclude=...){sizes}, or fix the side"
            )
            return Evidence(self.kind, Status.ERROR, detail, seconds)
        if not tally.compared:  # every case compared two empty arrays: no evidence
            detail = f"no case compared any value ({tally.evaluated} cases, seed {seed}): no evidence"
            return Evidence(self.kind, Status.UNDECIDED, detail, seconds)
        detail = f"{tally.evaluated - tally.rejected} random cases pass (seed {seed})"
        if any(seen):
            detail += f"; {_coverage(seen)}"
        if self.drawn:
            detail += f"; {self.drawn}"
        if extra := tally.describe():
            detail += f"; {extra}"
        return Evidence(self.kind, Status.VERIFIED, detail, seconds)

    def _refuted(self, case: Mapping[str, Any], seed: int, tally: _Tally, seconds: float) -> Evidence:
        """The shrunk counterexample, with how it was confirmed."""
        with np.errstate(all="ignore"):
            _, err, tol = compare_with_tolerance(_compared(self.compare, case), self.rtol, self.atol)
        confirmation, residual = confirm(self.compare, case)
        sizes = _sizes_of(case)
        values = {k: v for k, v in case.items() if k not in sizes}
        extra = {"exact_residual": residual} if residual else {}
        cex = counterexample(self.kind, sizes, values, err, tol, seed, confirmation=str(confirmation), **extra)
        how = f"confirmed exactly, residual {residual}" if residual else "in floating point only: not confirmed exactly"
        detail = f"shrunk counterexample at {sizes}: |lhs − rhs| = {err:.3g} > {tol:.3g} ({how}; seed {seed})"
        if extra_tally := tally.describe():
            detail += f"; {extra_tally}"
        return Evidence(self.kind, Status.REFUTED, detail, seconds, cex)

    def control_at(self, at: Mapping[str, Any], corrected: Callable[[Mapping[str, Any]], tuple]) -> Evidence:
        """The corrected compare on the shrunk case must pass the refutation's own tolerance (same rtol, atol, scale),
        or, where it has an exact form, have residual exactly 0 there."""
        t0 = time.perf_counter()
        with np.errstate(all="ignore"):
            _, _, tol = compare_with_tolerance(_compared(self.compare, at), self.rtol, self.atol)  # the case's own
            _, err, _ = compare_with_tolerance(_compared(corrected, at), self.rtol, self.atol)
        ok = err <= tol
        relation = "≤" if ok else ">"
        detail = (
            f"numeric: the corrected form at the shrunk counterexample, |lhs − rhs| = {err:.3g} {relation} {tol:.3g}"
        )
        if not ok and confirm(corrected, at)[0] == Confirmation.ROUNDING:
            ok, detail = True, detail + ", by rounding: its exact residual there is 0"
        status = ControlStatus.PASSED if ok else ControlStatus.FAILED
        return Evidence(Kind.CONTROL, status, detail, time.perf_counter() - t0)
