"""Verdicts: the one place that turns statuses into a verdict and a verdict into words.

Claims and derivations share it: a claim's evidence and a derivation's step marks are combined by
:func:`combine`, compared with what was expected by :func:`as_expected` and summarised by
:func:`summary` ("refuted, as expected", "refuted, but the control failed", "verified, expected
proved", …); :func:`failed` says which claims undermine the claims built on them (the ledger).

Verdicts never overstate the evidence: an ``error`` anywhere makes the verdict ERROR, whatever
else passed; then any refutation makes it REFUTED; PROVED needs a ``proved`` status (a check that
proves for every size); UNPROVEN is never a pass.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum

from icl_verify.core.evidence import ControlStatus, Status


class Verdict(StrEnum):
    """The outcome of checking a claim, strongest evidence first."""

    PROVED = "PROVED"  # proved for every size
    VERIFIED = "VERIFIED"  # checks passed on what they covered
    REFUTED = "REFUTED"  # a counterexample was found
    UNPROVEN = "UNPROVEN"  # nothing decided it — never a pass
    ERROR = "ERROR"  # a check raised an exception — never a pass


FAILED_VERDICTS = frozenset({Verdict.REFUTED, Verdict.UNPROVEN, Verdict.ERROR})
"""The verdicts of a claim expected to hold that undermine every claim built on it."""


def combine(statuses: Iterable[str], *, conjunction: bool = False) -> Verdict:
    """The verdict the statuses support: any error wins, then any refutation, then a proof.

    The statuses of a claim's checks are evidence for one statement: one ``proved`` suffices.
    With ``conjunction`` they are the marks of separate statements that must all hold (a
    derivation's steps): PROVED needs every one ``proved``.
    """
    found = {str(s) for s in statuses}
    if Status.ERROR in found:
        return Verdict.ERROR
    if Status.REFUTED in found:
        return Verdict.REFUTED
    if (found == {Status.PROVED}) if conjunction else (Status.PROVED in found):
        return Verdict.PROVED
    if Status.VERIFIED in found:
        return Verdict.VERIFIED
    return Verdict.UNPROVEN


def expected(holds: bool, proves: bool) -> Verdict:
    """REFUTED for a statement expected to be false; else PROVED if a check ``proves`` it for every size, else VERIFIED."""
    if not holds:
        return Verdict.REFUTED
    return Verdict.PROVED if proves else Verdict.VERIFIED


def _undecided_only(controls: set[str]) -> bool:
    """Some control is undecided and none passed: the refutation's discrimination is not shown."""
    return ControlStatus.UNDECIDED in controls and ControlStatus.PASSED not in controls


def as_expected(verdict: Verdict, wanted: Verdict, controls: Iterable[str] = ()) -> bool:
    """The expected verdict, reached by a refutation that discriminates (no ``failed`` control, and
    not only ``undecided`` ones)."""
    controls = set(controls)
    return verdict == wanted and ControlStatus.FAILED not in controls and not _undecided_only(controls)


def summary(verdict: Verdict, wanted: Verdict, holds: bool, controls: Iterable[str] = ()) -> str:
    """One line: the verdict in words, e.g. 'refuted, as expected' or 'refuted, but the control failed'.

    ``controls`` are the statuses of the control rows (a claim expected to be false).
    """
    controls = set(controls)
    word = verdict.value.lower()
    if verdict == wanted and ControlStatus.FAILED in controls:
        return f"{word}, but the control failed"
    if verdict == wanted and _undecided_only(controls):
        return f"{word}, but the control is undecided"
    if verdict == wanted and holds:
        return word
    if verdict == wanted:
        return f"{word}, as expected" + (" (no control)" if ControlStatus.MISSING in controls else "")
    expected = "verified or proved" if holds and wanted == Verdict.VERIFIED else wanted.value.lower()
    return f"{word}, expected {expected}"


def failed(verdict: Verdict, holds: bool) -> bool:
    """Whether a claim expected to hold was refuted, left unproven or errored (it undermines what builds on it)."""
    return holds and verdict in FAILED_VERDICTS
