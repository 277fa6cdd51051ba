"""One statement, every check: a claim written once as ``lhs = rhs`` (or a bound, an expectation, an argmin)
over declared symbols.

The two sides are Python functions of the declared matrices and scalars (:mod:`icl_verify.core.symbols`;
and, by name, of the sizes). From that single definition :func:`statement` derives an ordinary
:class:`Claim`: it validates the declarations and the sides, then hands them to the first kind of
statement that applies (:data:`KINDS`, one module each under :mod:`icl_verify.core.statements`), which
derives its checks — for an equality the symbolic proof for every size, the explicit check at small sizes
and the numeric search.

A statement expected to be false (``holds=False``) names its corrected right-hand side
(``corrected=``) or why there is none (``no_control=``); the corrected right-hand side becomes the
claim's :class:`~icl_verify.core.claims.Corrected` form, a counterpart for every check.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

import numpy as np

from icl_verify.core.bounds import DEFAULT_TIMEOUT, check_relation
from icl_verify.core.checks.base import parts
from icl_verify.core.claims import Claim, Corrected, NoControl, expectation
from icl_verify.core.expectation import RandomSpec
from icl_verify.core.induction import IntegerSpec, bound
from icl_verify.core.optimality import Argmin
from icl_verify.core.statements.argmin import ArgminStatement
from icl_verify.core.statements.base import Given, StatementKind
from icl_verify.core.statements.equality import EqualityStatement, recursion_over
from icl_verify.core.statements.expectation import ExpectationStatement
from icl_verify.core.statements.inequality import InequalityStatement
from icl_verify.core.symbols import MatrixSpec, ScalarSpec, Spec, call, inputs, probe_values, randoms, size_names
from icl_verify.errors import InvalidArgument
from icl_verify.maths.symbolic import grid
from icl_verify.maths.tolerance import RTOL

KINDS: tuple[StatementKind, ...] = (
    ArgminStatement(),
    ExpectationStatement(),
    InequalityStatement(),
    EqualityStatement(),
)
"""The kinds of statement, tried in order: the first that applies derives the checks."""


def _check_side(arg: str, fn: Any, known: Iterable[str]) -> None:
    if not (callable(fn) or isinstance(fn, Argmin)):
        raise InvalidArgument(f"{arg} must be a function of the declared symbols, got {type(fn).__name__}")
    known = set(known)
    for p in inputs(fn):
        if p not in known:
            raise InvalidArgument(f"{arg} takes {p!r}, which is neither a declared symbol nor a size ({sorted(known)})")


def _check_symbols(symbols: Any) -> None:
    if not isinstance(symbols, Mapping) or not symbols:
        raise InvalidArgument("symbols must be a non-empty dict of name -> iv.matrix(...) or iv.scalar(...)")
    for name, spec in symbols.items():
        if not (isinstance(name, str) and name.isidentifier()):
            raise InvalidArgument(f"symbols: every name must be a Python identifier, got {name!r}")
        if not isinstance(spec, (MatrixSpec, ScalarSpec, RandomSpec, IntegerSpec)):
            raise InvalidArgument(
                f"symbols[{name!r}] must be iv.matrix(...), iv.scalar(...), iv.gaussian(...) or iv.iid(...), "
                f"got {type(spec).__name__}"
            )


def _check_control(holds: bool, corrected: Callable[..., Any] | None, no_control: str, correction: str) -> None:
    if holds and (corrected is not None or no_control):
        raise InvalidArgument("corrected and no_control are for statements expected to be false (holds=False)")
    if not holds and (corrected is None) == (not no_control):
        raise InvalidArgument(
            "a statement with holds=False needs exactly one of corrected (its true rhs) or no_control"
        )
    if correction and corrected is None:
        raise InvalidArgument("correction names the claim stating the corrected form: give its rhs as corrected too")


def _ordered_sizes(
    symbols: Mapping[str, Spec], sizes: Mapping[str, Any], explicit_sizes: Mapping[str, Any], integers: list[str]
) -> list:
    """The size names and integer parameters, those given in ``sizes`` first and in its order; unknown names are an error."""
    names = size_names(symbols) + integers
    clash = set(names) & set(symbols)
    if clash:
        raise InvalidArgument(f"symbols: {sorted(clash)} name both a symbol and a size")
    for arg, given in (("sizes", sizes), ("explicit_sizes", explicit_sizes)):
        unknown = set(given) - set(names)
        if unknown:
            raise InvalidArgument(
                f"{arg} names {sorted(unknown)}, which is neither a size of a declared matrix nor an iv.integer (sizes: {names})"
            )
    return [n for n in sizes if n in names] + [n for n in names if n not in sizes]


def _probe_shapes(arg: str, fn: Callable[..., Any], values: Mapping[str, Any]) -> list[tuple] | None:
    """The shapes of a side's parts at the probe values; a usage error (an inverse of a non-square matrix)
    names the side; a side that cannot run here gives ``None`` (its checks report it)."""
    try:
        with np.errstate(all="ignore"):
            return [getattr(p, "shape", ()) for p in parts(call(fn, values))]
    except InvalidArgument as exc:
        sizes = {k: v for k, v in values.items() if isinstance(v, int)}
        raise InvalidArgument(f"{arg} is undefined for the declared shapes: {exc} at sizes {sizes}") from None
    except Exception:
        return None


def _check_defined(symbols: Mapping[str, Spec], names: list[str], sides: Mapping[str, Callable]) -> None:
    """Every side must be defined for the declared shapes, and ``corrected`` have the shape of both sides:
    checked at distinct concrete sizes 2, 3, …, on numbers (so n × d is not square even where n = d could be)."""
    sizes = {n: 2 + i for i, n in enumerate(names)}
    values = {**probe_values(symbols, sizes), **sizes}
    shapes = {arg: _probe_shapes(arg, fn, values) for arg, fn in sides.items()}
    if "corrected" not in shapes or any(v is None for v in shapes.values()):
        return
    for arg in ("lhs", "rhs"):
        if shapes[arg] != shapes["corrected"]:
            raise InvalidArgument(
                f"corrected returns shape(s) {shapes['corrected']} but {arg} returns {shapes[arg]} (at sizes {sizes})"
            )


def _explicit_values(name: str, values: Iterable[int], minimum: int = 1) -> list[int]:
    values = list(values) if isinstance(values, Iterable) else []
    if not values or not all(type(v) is int and v >= minimum for v in values):
        raise InvalidArgument(f"explicit_sizes[{name!r}] must be a non-empty list of ints at least {minimum}")
    return values


def statement(
    name: str,
    source: str,
    statement: str,
    *,
    symbols: Mapping[str, Spec],
    lhs: Callable[..., Any],
    rhs: Callable[..., Any],
    sizes: Mapping[str, int | tuple[int, int]] | None = None,
    explicit_sizes: Mapping[str, Iterable[int]] | None = None,
    symbolic: bool = True,
    explicit: bool = True,
    holds: bool = True,
    corrected: Callable[..., Any] | None = None,
    no_control: str = "",
    correction: str = "",
    rtol: float = RTOL,
    relation: str = "=",
    timeout: float = DEFAULT_TIMEOUT,
    expect: str | None = None,
    **claim_fields: Any,
) -> Claim:
    """The :class:`Claim` ``lhs = rhs`` with its symbolic, explicit and numeric checks derived.

    ``symbols`` declares the inputs (``iv.matrix("Nx", "N")``, ``iv.scalar(positive=True)``); the
    sides are functions whose parameters name declared symbols or sizes. ``sizes`` gives each size's
    numeric range (default 1 to 4), ``explicit_sizes`` the sizes of the exact check (default 1 and 2).
    Turn off ``symbolic`` when a side needs concrete sizes (e.g. softmax), ``explicit`` when the
    expansion is too slow. ``rtol`` multiplies the term magnitude; the default is the rounding bound
    of :mod:`icl_verify.maths.tolerance`. ``correction`` names the claim stating the ``corrected`` form.
    ``relation`` ``"<="``, ``">="``, ``"<"`` or ``">"`` states an inequality (:mod:`icl_verify.core.bounds`):
    decided by z3 within ``timeout`` seconds when every symbol is a scalar, else searched. Other
    keyword arguments (``note``, ``assumptions``, ``builds_on``, …) go to the :class:`Claim`.
    ``expect="proved"`` asks for a proof for every size: a true statement only VERIFIED is then not as
    expected (by default it is: VERIFIED or PROVED, :func:`~icl_verify.core.claims.expectation`).
    """
    _check_symbols(symbols)
    check_relation(relation, timeout)
    integers = {n: spec for n, spec in symbols.items() if isinstance(spec, IntegerSpec)}
    for key, spec in integers.items():
        if spec.name and spec.name != key:
            raise InvalidArgument(f"symbols[{key!r}] = iv.integer({spec.name!r}, ...): the name must be its key")
    symbols = {n: spec for n, spec in symbols.items() if n not in integers}
    lhs, rhs, corrected = (bound(side, {n: i.low for n, i in integers.items()}) for side in (lhs, rhs, corrected))
    sizes, explicit_sizes = dict(sizes or {}), dict(explicit_sizes or {})
    names = _ordered_sizes(symbols, sizes, explicit_sizes, list(integers))
    known = [*symbols, *names]
    _check_side("lhs", lhs, known)
    _check_side("rhs", rhs, known)
    _check_control(holds, corrected, no_control, correction)
    if corrected is not None:
        _check_side("corrected", corrected, known)
    _check_defined(symbols, names, {"lhs": lhs, "rhs": rhs} | ({"corrected": corrected} if corrected else {}))
    ranges = {
        n: integers[n].strategy(n, sizes.get(n), wide=relation != "=", recursion=recursion_over(lhs, rhs) == n)
        if n in integers
        else sizes.get(n, (1, 4))
        for n in names
    }
    low = {n: integers[n].low for n in integers}
    exact = grid(
        **{
            n: _explicit_values(n, explicit_sizes.get(n, (low.get(n, 1), low.get(n, 1) + 1)), low.get(n, 1))
            for n in names
        }
    )
    if relation != "=" and (isinstance(lhs, Argmin) or randoms(symbols)):
        raise InvalidArgument("relation is for bounds between deterministic sides: not with iv.argmin or random inputs")
    given = Given(symbols, integers, lhs, rhs, ranges, exact, rtol, timeout, relation, symbolic, explicit)
    kind = next(k for k in KINDS if k.applies(given))
    checks = kind.checks(given)
    fixed: Corrected | NoControl | None = NoControl(no_control) if no_control else None
    if corrected is not None:
        kind.admit(given, corrected)
        forms = kind.forms(given, corrected)
        fixed = Corrected(correction, **{c.kind: forms[c.kind] for c in checks})
    return Claim(
        name=name,
        source=source,
        statement=statement,
        checks=tuple(checks),
        holds=holds,
        corrected=fixed,
        expect=expectation(expect, holds),
        **claim_fields,
    )
