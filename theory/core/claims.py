"""The claim engine: a claim is a named statement with a source and the checks that decide it.

Each check is a :class:`~icl_verify.core.checks.base.Check` (``Symbolic``, ``Explicit``,
``Numeric``, ``Measured`` or a new kind); :func:`check` runs them in order and combines their
evidence (:mod:`icl_verify.core.verdicts`).

Verdicts never overstate the evidence: ``PROVED`` needs a check that proves for every size;
``VERIFIED`` means the other checks passed on what they covered; ``UNPROVEN`` (nothing decided
it) is never a pass; an ``ERROR`` in any check (a crash, or NaN/inf in a numeric comparison)
makes the claim ``ERROR`` whatever the others say.

A refutation must discriminate: for a claim expected to be false, the corrected form
(:class:`Corrected`, one counterpart per kind of check) is run by each refuting check at its
counterexample with the same comparison and tolerance and reported as evidence of kind
``control`` — ``passed``, ``failed`` (the refutation is hollow: not as expected), ``waived``
(:class:`NoControl` says why there is no corrected form) or ``missing``.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any, ClassVar

from icl_verify.core import display, verdicts
from icl_verify.core.checks.base import Check, Found, guarded
from icl_verify.core.checks.explicit import Explicit
from icl_verify.core.checks.numeric import Numeric
from icl_verify.core.evidence import ControlStatus, Evidence, Kind, Residual, Status
from icl_verify.core.tracebacks import defined_at
from icl_verify.core.verdicts import Verdict
from icl_verify.errors import InvalidArgument
from icl_verify.numerics.shared.checks import seed_value

USER_FAMILY = "user"
"""The family of a claim that no built-in family module declares."""


def expectation(expect: str | None, holds: bool) -> Verdict | None:
    """A statement's ``expect`` as the claim's: ``"proved"`` → PROVED; ``"verified"`` or ``None`` → VERIFIED for a
    statement expected to hold (a true statement VERIFIED is not a failure unless a proof is asked for)."""
    if expect not in (None, "proved", "verified"):
        raise InvalidArgument(f"expect must be 'proved' or 'verified', got {expect!r}")
    if not holds:
        if expect is not None:
            raise InvalidArgument("expect is for statements expected to hold: holds=False expects REFUTED")
        return None
    return Verdict.PROVED if expect == "proved" else Verdict.VERIFIED


@dataclass(frozen=True, init=False)
class Corrected:
    """The corrected form of a claim expected to be false: for each kind of check, its counterpart.

    ``Corrected("name-of-the-true-claim", numeric=compare, explicit=residual)``: ``claim`` names
    the claim stating the corrected form; each keyword is a check's kind and the corrected
    counterpart that check runs at its counterexample (see the check's ``control_at``).
    """

    claim: str
    forms: tuple[tuple[str, Any], ...]  # (kind, counterpart) pairs

    def __init__(self, claim: str = "", **forms: Any) -> None:
        if not isinstance(claim, str):
            raise InvalidArgument(f"claim must be the name of the claim stating the corrected form, got {claim!r}")
        if not claim and not forms:
            raise InvalidArgument(
                "Corrected needs a corrected counterpart for a check (e.g. numeric=...) or a claim name"
            )
        for kind, form in forms.items():
            if form is None:
                raise InvalidArgument(f"{kind} must be the corrected counterpart of the {kind} check, got None")
        object.__setattr__(self, "claim", claim)
        object.__setattr__(self, "forms", tuple(forms.items()))

    @property
    def kinds(self) -> tuple[str, ...]:
        """The kinds of check this corrected form has a counterpart for."""
        return tuple(kind for kind, _ in self.forms)

    def form(self, kind: str) -> Any:
        """The corrected counterpart for checks of ``kind``, or ``None``."""
        return dict(self.forms).get(kind)


@dataclass(frozen=True)
class NoControl:
    """A claim expected to be false that has no corrected form, and why."""

    why: str
    claim: ClassVar[str] = ""  # no claim states a corrected form
    kinds: ClassVar[tuple[str, ...]] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.why, str) or not self.why:
            raise InvalidArgument(f"why must say why there is no corrected form, got {self.why!r}")

    def form(self, kind: str) -> None:
        """No counterpart for any check."""
        return None


@dataclass(frozen=True)
class Claim:
    """A named statement with its source, LaTeX statement and checks.

    ``holds=False`` declares a claim expected to be false (a paper's misprint, a tempting
    variant): its expected verdict is ``REFUTED`` and the report says "refuted, as expected".
    It needs ``corrected``: a :class:`Corrected` form (the control of its refutation) or a
    :class:`NoControl` reason.

    ``defined_at`` is the ``file:line`` where the claim was made (found when it is made: the first frame of the
    calling stack in the user's code), which a report of its ERROR names.
    """

    name: str
    source: str
    statement: str
    checks: tuple[Check, ...]
    holds: bool = True
    corrected: Corrected | NoControl | None = None
    family: str = USER_FAMILY  # the registry labels built-in claims with their family
    note: str = ""
    assumptions: tuple[str, ...] = ()  # e.g. ("isotropic inputs", "W0 = 0"), for the claims ledger
    builds_on: tuple[str, ...] = ()  # names of the claims this one relies on, for the claims ledger
    expect: Verdict | None = None  # a true claim's expected verdict (PROVED or VERIFIED); None: derived from its checks
    defined_at: str = field(default="", compare=False, repr=False)

    def __post_init__(self) -> None:
        if not self.name or not isinstance(self.name, str):
            raise InvalidArgument("name must be a non-empty string")
        if not self.defined_at:
            object.__setattr__(self, "defined_at", defined_at())
        checks = self.checks
        if not isinstance(checks, (tuple, list)) or not checks or not all(isinstance(c, Check) for c in checks):
            raise InvalidArgument(f"claim {self.name!r}: checks must be a non-empty tuple of checks, got {checks!r}")
        object.__setattr__(self, "checks", tuple(checks))
        self._check_corrected()
        self._check_expect()
        for key in ("assumptions", "builds_on"):
            value = getattr(self, key)
            if not isinstance(value, tuple) or not all(isinstance(v, str) and v for v in value):
                raise InvalidArgument(f"claim {self.name!r}: {key} must be a tuple of non-empty strings, got {value!r}")

    def _check_corrected(self) -> None:
        corrected = self.corrected
        if self.holds and corrected is not None:
            raise InvalidArgument(f"claim {self.name!r}: corrected is for claims expected to be false (holds=False)")
        if self.holds:
            return
        if not isinstance(corrected, (Corrected, NoControl)):
            raise InvalidArgument(
                f"claim {self.name!r}: holds=False needs corrected=Corrected(...) or NoControl('why'), got {corrected!r}"
            )
        stray = [kind for kind in corrected.kinds if kind not in self.kinds]
        if stray:
            kinds = ", ".join(map(str, self.kinds))
            forms = ", ".join(map(str, stray))
            raise InvalidArgument(f"claim {self.name!r}: corrected has a form for {forms}, but its checks are {kinds}")

    def _check_expect(self) -> None:
        if self.expect is None:
            return
        if self.expect not in (Verdict.PROVED, Verdict.VERIFIED) or not self.holds:
            raise InvalidArgument(
                f"claim {self.name!r}: expect must be PROVED or VERIFIED for a claim expected to hold, got {self.expect!r}"
            )
        if self.expect is Verdict.PROVED and not any(c.proves for c in self.checks):
            raise InvalidArgument(f"claim {self.name!r}: expect=PROVED needs a check that proves for every size")

    @property
    def kinds(self) -> tuple[str, ...]:
        """The kinds of this claim's checks, in order."""
        return tuple(c.kind for c in self.checks)

    @property
    def expected(self) -> Verdict:
        """REFUTED for a claim expected to be false; else ``expect`` if given, else PROVED for a claim with a check
        that proves for every size, VERIFIED for another. A claim expecting VERIFIED is also as expected when PROVED
        (it holds at the strongest level reached)."""
        if self.holds and self.expect is not None:
            return self.expect
        return verdicts.expected(self.holds, any(c.proves for c in self.checks))

    def check(self, seed: int = 0, max_examples: int = 100) -> Result:
        """Run every check this claim has and combine them into a :class:`Result`."""
        return check(self, seed=seed, max_examples=max_examples)

    def _repr_markdown_(self) -> str | None:
        return display.markdown(self)


@dataclass(frozen=True)
class Result:
    """The verdict on a claim with the evidence behind it."""

    claim: Claim
    verdict: Verdict
    evidence: tuple[Evidence, ...]
    seed: int
    max_examples: int
    seconds: float = field(default=0.0, compare=False)

    @property
    def _controls(self) -> list[str]:
        return [e.status for e in self.evidence if e.kind == Kind.CONTROL]

    @property
    def control_failed(self) -> bool:
        """A control (the corrected form at the counterexample) failed: the refutation is hollow."""
        return ControlStatus.FAILED in self._controls

    @property
    def _wanted(self) -> Verdict:
        """The expected verdict, PROVED counting as VERIFIED (a proof is more than was asked for)."""
        expected = self.claim.expected
        return self.verdict if expected is Verdict.VERIFIED and self.verdict is Verdict.PROVED else expected

    @property
    def as_expected(self) -> bool:
        """The expected verdict, reached by a refutation that discriminates (no failed control)."""
        return verdicts.as_expected(self.verdict, self._wanted, self._controls)

    @property
    def counterexample(self) -> dict[str, Any] | None:
        """The counterexample behind a REFUTED verdict: that of the check of lowest ``rank`` (the numeric, shrunk one first)."""
        rank = {c.kind: c.rank for c in self.claim.checks}
        found = [e for e in self.evidence if e.counterexample is not None and e.kind in rank]
        return min(found, key=lambda e: rank[e.kind]).counterexample if found else None

    @property
    def residual(self) -> Residual | None:
        """For a REFUTED verdict: the simplified lhs − rhs, dimension-free (symbolic) first."""
        if self.verdict is not Verdict.REFUTED:
            return None
        return next((e.residual for e in self.evidence if e.residual is not None), None)

    @property
    def summary(self) -> str:
        """One line: the verdict in words, e.g. 'refuted, as expected' or 'refuted, but the control failed'."""
        line = verdicts.summary(self.verdict, self._wanted, self.claim.holds, self._controls)
        unproved = self.verdict is Verdict.VERIFIED and any(c.proves for c in self.claim.checks)
        return f"{line} — no proof found for every size" if unproved and self.as_expected else line

    @property
    def traceback(self) -> str | None:
        """The tracebacks of the checks that crashed (their last frames in the user's code; each one once), else
        None."""
        found = dict.fromkeys(e.traceback for e in self.evidence if e.traceback)
        return "\n".join(found) if found else None

    def _repr_markdown_(self) -> str | None:
        return display.markdown(self)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready record (see docs/json-report.md)."""
        c = self.claim
        return {
            "name": c.name,
            "defined_at": c.defined_at,
            "family": c.family,
            "source": c.source,
            "statement": c.statement,
            "holds": c.holds,
            "assumptions": list(c.assumptions),
            "builds_on": list(c.builds_on),
            "verdict": self.verdict.value,
            "expected": c.expected.value,
            "as_expected": self.as_expected,
            "seed": self.seed,
            "max_examples": self.max_examples,
            "seconds": round(self.seconds, 4),
            "evidence": [e.to_dict() for e in self.evidence],
            "counterexample": self.counterexample,
            "residual": None if self.residual is None else self.residual.to_dict(),
        }


def _control_of(check: Check, at: Any, form: Any) -> Evidence:
    """The control row of ``check`` run with its corrected counterpart ``form`` at ``at`` (None: every size). The
    row of a check class defined outside icl-verify begins with the check's kind, as the built-in checks' rows of
    checks that share no kind do, so that it can be told as that check's
    (:func:`icl_verify.running.verdict_cache.own_check`)."""
    row = guarded(Kind.CONTROL, lambda: Found(check.control_at(at, form))).evidence
    if type(check).__module__.partition(".")[0] == "icl_verify" or row.detail.startswith(f"{check.kind}:"):
        return row
    return replace(row, detail=f"{check.kind}: {row.detail}")


WRONG_SIDE = "the corrected form does not hold either: is it on the right side?"


def _fails_elsewhere(corrected: Corrected, runs: Sequence[tuple[Check, Found]], seed: int) -> bool:
    """Whether the corrected form also fails a numeric check at random points (not only at the counterexample)."""
    for c, _ in runs:
        form = corrected.form(c.kind)
        if isinstance(c, Numeric) and form is not None:
            found = guarded(c.kind, partial(replace(c, compare=form).run, seed, 25))
            if found.evidence.status == Status.REFUTED:
                return True
    return False


def _controls(corrected: Corrected | NoControl, runs: Sequence[tuple[Check, Found]], seed: int = 0) -> list[Evidence]:
    """Control rows for an expected-false claim with this ``corrected`` form.

    Each check that found a counterexample runs its corrected counterpart there; then, if the
    claim was refuted, each check that proves for every size runs its own (no counterexample needed).
    A check with a counterpart that errored has an ``error`` row (its control could not run); when
    every control failed and the corrected form fails at random points too, the rows say it may
    be on the wrong side.
    """
    refuted = any(found.evidence.status == Status.REFUTED for _, found in runs)
    due = [(c, found.at) for c, found in runs if found.at is not None]
    due += [(c, None) for c, _ in runs if c.proves and refuted]
    rows = [_control_of(c, at, form) for c, at in due if (form := corrected.form(c.kind)) is not None]
    rows += [
        Evidence(
            Kind.CONTROL,
            ControlStatus.ERROR,
            f"{c.kind} control not run: its check errored ({found.evidence.detail})",
            0.0,
        )
        for c, found in runs
        if found.evidence.status == Status.ERROR and corrected.form(c.kind) is not None
    ]
    all_failed = rows and all(r.status == ControlStatus.FAILED for r in rows)
    if all_failed and isinstance(corrected, Corrected) and _fails_elsewhere(corrected, runs, seed):
        rows = [replace(r, detail=f"{r.detail}; {WRONG_SIDE}") for r in rows]
    if rows:
        return rows
    if isinstance(corrected, NoControl):
        return [Evidence(Kind.CONTROL, ControlStatus.WAIVED, f"no corrected form: {corrected.why}", 0.0)]
    detail = "no control ran: give the refuting check's corrected form (Corrected(kind=...)), or NoControl('why')"
    return [Evidence(Kind.CONTROL, ControlStatus.MISSING, detail, 0.0)]


LIKELY_CAUSE = (
    "likely cause: a side that computes differently on NumPy arrays and on SymPy matrices (NumPy's ** is "
    "element-wise, SymPy's a matrix power: write iv.matpow), or a fault in one of the checks"
)


def _same_sizes(found: Found, check: Check) -> bool:
    """Whether a refutation's counterexample sits at one of the sizes an :class:`Explicit` check verified exactly."""
    cex = found.evidence.counterexample or {}
    return isinstance(check, Explicit) and cex.get("sizes") in [dict(s) for s in check.sizes]


def disagreement(runs: Sequence[tuple[Check, Found]]) -> Evidence | None:
    """An ``error`` row when the checks contradict each other, else ``None``.

    A proof for every size against a counterexample, or an exact expansion to 0 at the very sizes where
    another check refuted, cannot both be right: the claim is ERROR with both pieces of evidence, never
    resolved silently (a symbolic proof is overturned only by a counterexample the same exact arithmetic
    confirms, and then the contradiction itself is the bug to report).
    """
    refuted = [(c, f) for c, f in runs if f.evidence.status == Status.REFUTED]
    if not refuted:
        return None
    proved = [(c, f) for c, f in runs if f.evidence.status == Status.PROVED]
    exact_pass = [
        (c, f) for c, f in runs if f.evidence.status == Status.VERIFIED and any(_same_sizes(r, c) for _, r in refuted)
    ]
    against = (proved or exact_pass)[:1]
    if not against:
        return None
    (_, one), (_, other) = against[0], refuted[0]
    detail = (
        f"the checks disagree: {one.evidence.kind} {one.evidence.status} ({one.evidence.detail}) but "
        f"{other.evidence.kind} refuted ({other.evidence.detail}); {LIKELY_CAUSE}"
    )
    return Evidence(Kind.CONSISTENCY, Status.ERROR, detail, 0.0)


def check(claim: Claim, seed: int = 0, max_examples: int = 100) -> Result:
    """Check ``claim``: run its checks, the controls of an expected-false claim, and combine the evidence.

    ``seed`` seeds Hypothesis' search (recorded in the result); ``max_examples`` bounds it.
    """
    seed = seed_value("seed", seed)
    if isinstance(max_examples, bool) or not isinstance(max_examples, int) or max_examples < 1:
        raise InvalidArgument(f"max_examples must be a positive integer, got {max_examples!r}")
    t0 = time.perf_counter()
    runs = [(c, guarded(c.kind, partial(c.run, seed, max_examples))) for c in claim.checks]
    controls = [] if claim.corrected is None else _controls(claim.corrected, runs, seed)  # holds=False has one
    evidence = [found.evidence for _, found in runs] + controls
    if (conflict := disagreement(runs)) is not None:
        evidence.append(conflict)
    verdict = verdicts.combine(e.status for e in evidence)
    return Result(claim, verdict, tuple(evidence), seed, max_examples, time.perf_counter() - t0)
