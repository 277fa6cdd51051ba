"""The claims ledger: which claims each claim builds on, and what a failure undermines.

A claim names the claims it relies on in ``Claim.builds_on`` and the conditions it needs in
``Claim.assumptions``. :func:`validate` rejects a ledger that names an unknown
claim or runs in a circle; :func:`undermined` gives, for a set of results, every claim that builds
— directly or through other claims — on a claim that was expected to hold but was refuted, left
unproven or broke (:func:`failed`). Such a claim's own verdict may stand, but the argument behind
it no longer does.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from graphlib import CycleError, TopologicalSorter

from icl_verify.core import verdicts
from icl_verify.core.claims import Claim, Result
from icl_verify.errors import InvalidArgument


def failed(result: Result) -> bool:
    """Whether ``result`` is a claim expected to hold that was refuted, left unproven or errored."""
    return verdicts.failed(result.verdict, result.claim.holds)


def validate(claims: Iterable[Claim], known: Iterable[str] = ()) -> None:
    """``ValueError`` if a claim builds on a name that is neither among ``claims`` nor ``known``, or on itself via a cycle.

    ``known`` names the claims outside the set being checked that may be built on
    (:func:`icl_verify.running.registry.validate_ledger` passes the built-in claims).
    """
    claims = list(claims)
    names = {c.name for c in claims} | set(known)
    for claim in claims:
        unknown = [name for name in claim.builds_on if name not in names]
        if unknown:
            raise InvalidArgument(
                f"claim {claim.name!r}: builds_on names unknown claim(s) {', '.join(map(repr, unknown))} "
                "(expected names of claims being checked or built in, see `icl-verify list`)"
            )
    try:
        _order(claims)
    except CycleError as exc:
        cycle = exc.args[1]
        raise InvalidArgument(
            f"claims build on each other in a cycle: {' → '.join(reversed(cycle))} (→: builds on)"
        ) from None


def _order(claims: Iterable[Claim]) -> list[str]:
    """Claim names, every claim after the claims it builds on (``graphlib.CycleError`` on a cycle)."""
    return list(TopologicalSorter({c.name: c.builds_on for c in claims}).static_order())


def undermined(results: Iterable[Result]) -> dict[str, tuple[str, ...]]:
    """Each claim that builds, directly or transitively, on a :func:`failed` claim → those failed claims, sorted.

    Only the claims among ``results`` are followed: a dependency that was not checked is not
    known to fail. Claims are listed in the order of ``results``; a failed claim appears only if
    it builds on another failed one. Call :func:`validate` first (a cycle raises ``ValueError``).
    """
    by_name: Mapping[str, Result] = {r.claim.name: r for r in results}
    try:
        order = _order(r.claim for r in by_name.values())
    except CycleError:
        raise InvalidArgument("claims build on each other in a cycle (see ledger.validate)") from None
    roots: dict[str, set[str]] = {}
    for name in order:
        result = by_name.get(name)
        if result is None:
            continue
        deps = [d for d in result.claim.builds_on if d in by_name]
        roots[name] = {d for d in deps if failed(by_name[d])}.union(*(roots[d] for d in deps))
    return {name: tuple(sorted(roots[name])) for name in by_name if roots[name]}
