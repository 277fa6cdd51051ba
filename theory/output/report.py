"""Rendering results: the readable table and the JSON report (schema: docs/json-report.md)."""

from __future__ import annotations

import json
import sys
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from icl_verify.core.checks.measured import format_interval
from icl_verify.core.claims import USER_FAMILY, Claim, Result
from icl_verify.core.derivation import DerivationResult
from icl_verify.core.evidence import MAX_RESIDUAL_CHARS, Kind, Status, StepStatus
from icl_verify.core.ledger import undermined
from icl_verify.core.multiplicity import family_reading
from icl_verify.core.verdicts import Verdict
from icl_verify.output import ledger, render, strict_json
from icl_verify.running import registry, runner
from icl_verify.running.verdict_cache import VerdictCache

SCHEMA_VERSION = 2


def _counterexample_lines(result: Result) -> list[str]:
    cex = result.counterexample
    if cex is None:
        return []
    try:
        return _counterexample_of_a_kind(cex)
    except (KeyError, TypeError, ValueError):  # a user's own check's counterexample, of its own shape: as it is
        return [f"    counterexample {json.dumps(cex, default=str, ensure_ascii=False)}"]


def _counterexample_of_a_kind(cex: dict[str, Any]) -> list[str]:
    """The lines of a counterexample of one of the built-in kinds (numeric, measured, Monte Carlo, exact)."""
    if cex["kind"] == Kind.NUMERIC:
        return [
            f"    counterexample (shrunk, seed {cex['seed']}): sizes {cex['sizes']}",
            f"      values {json.dumps(cex['values'])}",
            f"      |lhs − rhs| = {cex['residual']:.6g} > tolerance {cex['tolerance']:.3g}",
        ]
    if cex["kind"] in (Kind.MEASURED, Kind.MONTE_CARLO):
        values = cex["values"]
        return [
            f"    counterexample ({cex['kind'].replace('_', ' ')}, seed {cex['seed']}): estimate"
            f" {format_interval(values['estimate'], *values['interval'])}",
            f"      excludes {values['predicted']:.6g} ± {cex['tolerance']:.3g}",
        ]
    return [
        f"    counterexample (exact): sizes {cex['sizes']}",
        f"      values {json.dumps(cex['values'])}",
        f"      residual {cex['exact_residual']}",
    ]


CACHED_MARK = "(cached)"
"""Ends the row of a result read from the verdict cache rather than checked in this run."""


def _residual_lines(result: Result) -> list[str]:
    res = result.residual
    if res is None:
        return []
    where = "dimension-free" if res.sizes is None else f"at sizes {res.sizes}"
    note = f" … (truncated to {MAX_RESIDUAL_CHARS} characters)" if res.truncated else ""
    return [f"    lhs − rhs ({where}): {res.text}{note}"]


def _evidence_lines(result: Result) -> list[str]:
    """Every evidence row; for an ERROR, first where the claim was made (``file:line``), and beneath each row of a
    check that crashed its traceback (one already shown for this claim is not repeated)."""
    error = result.verdict is Verdict.ERROR
    lines = [f"    claim defined at {result.claim.defined_at}"] if error and result.claim.defined_at else []
    shown: set[str] = set()
    for e in result.evidence:
        lines.append(f"    {e.kind:<9} {e.status:<10} {e.detail}")
        if e.traceback and e.traceback in shown:
            lines.append("      (the same traceback as above)")
        elif e.traceback:
            lines.extend(f"      {line}" for line in e.traceback.splitlines())
            shown.add(e.traceback)
    return lines


def _source(claim: Claim) -> str:
    """The claim's source, and for a claim of a user's file where it was made: ``me (mine.py:3)``."""
    users = claim.family == USER_FAMILY and claim.defined_at
    return f"{claim.source} ({claim.defined_at})" if users else claim.source


def table(results: Sequence[Result], cached: Collection[str] = frozenset()) -> str:
    """A plain-text report: one row per claim, every evidence row beneath (controls and errors included),
    then for an ERROR where the claim was made and the traceback of what crashed, and the counterexample and the
    simplified lhs − rhs of a refutation.

    Rows of the results named in ``cached`` (read from the verdict cache) end with :data:`CACHED_MARK`. A claim of
    a user's file shows after its source where it was made (``file:line``), so that it cannot pass for a built-in
    claim of the same name.
    """
    width = max([len(r.claim.name) for r in results] + [5])
    lines = [f"{'claim':<{width}}  {'verdict':<9}  {'outcome':<28}  source", "-" * (width + 60)]
    for r in results:
        mark = " " if r.as_expected else "!"
        row = f"{r.claim.name:<{width}}  {r.verdict.value:<9}  {mark}{r.summary:<27}  {_source(r.claim)}"
        lines.append(row + (f"  {CACHED_MARK}" if r.claim.name in cached else ""))
        lines.extend(_evidence_lines(r))
        lines.extend(_counterexample_lines(r))
        lines.extend(_residual_lines(r))
    lines.extend(ledger.report_lines(results))
    lines.append("-" * (width + 60))
    lines.append(summary_line(results))
    lines.extend(multiplicity_lines(multiplicity(results)))
    reused = sum(r.claim.name in cached for r in results)
    if reused:
        lines.append(
            f"{reused} of {len(results)} results {CACHED_MARK} from the verdict cache; --no-cache checks afresh"
        )
    return "\n".join(lines)


def summary_line(results: Sequence[Result]) -> str:
    return _tally(results, "claims")


def multiplicity(results: Sequence[Result]) -> dict[str, Any] | None:
    """The multiplicity reading across the measured verdicts of ``results`` (:func:`~icl_verify.core.multiplicity.
    family_reading`, Holm and Benjamini–Hochberg at 0.025 over every measured row with a stated level), each
    claim's entry with its row's ``status``, and ``decided``: the claims whose row is verified or refuted. A claim
    with several measured rows enters once per row, the second as ``name#2``. ``None`` when no row is measured."""
    rows: dict[str, Any] = {}
    for r in results:
        measured = [e for e in r.evidence if e.kind == Kind.MEASURED and e.measurement is not None]
        rows |= {r.claim.name + (f"#{k}" if k > 1 else ""): e for k, e in enumerate(measured, 1)}
    if not rows:
        return None
    reading = family_reading({name: e.measurement for name, e in rows.items()})
    for name, entry in reading["claims"].items():
        entry["status"] = str(rows[name].status)
    decided = (Status.VERIFIED, Status.REFUTED)
    reading["decided"] = [name for name, entry in reading["claims"].items() if entry["status"] in decided]
    return reading


def multiplicity_lines(reading: dict[str, Any] | None) -> list[str]:
    """How many of the decided measured verdicts survive Holm (family-wise) and Benjamini–Hochberg (false
    discovery), naming those that do not; nothing when the run has no measured verdict."""
    if reading is None:
        return []
    claims, decided = reading["claims"], reading["decided"]

    def survivors(rule: str) -> str:
        lost = [name for name in decided if not claims[name][rule]]
        return f"{len(decided) - len(lost)} survive" + (f" (not: {', '.join(lost)})" if lost else "")

    left_out = f"; {len(reading['left_out'])} left out (interval of no stated level)" if reading["left_out"] else ""
    return [
        f"multiplicity: {len(decided)} measured verdicts decided of {len(claims)} tested{left_out};"
        f" Holm (family-wise {reading['alpha']:g}) {survivors('holm')};"
        f" Benjamini–Hochberg (false discovery {reading['alpha']:g}) {survivors('benjamini_hochberg')}"
        " — p-values read off the intervals as normal (optimistic for few-run t-intervals and sequential looks)"
    ]


def _tally(checked: Sequence[Result | DerivationResult], noun: str) -> str:
    """'N <noun>: counts per verdict — all as expected' (or how many were not); '0 <noun>' when there are none.
    ``noun`` is plural ('claims'); one is '1 claim'."""
    if not checked:
        return f"0 {noun}"
    if len(checked) == 1:
        noun = noun.removesuffix("s")
    counts: dict[str, int] = {}
    for r in checked:
        counts[r.verdict.value] = counts.get(r.verdict.value, 0) + 1
    unexpected = sum(not r.as_expected for r in checked)
    parts = ", ".join(f"{n} {v.lower()}" for v, n in sorted(counts.items()))
    status = "all as expected" if unexpected == 0 else f"{unexpected} NOT as expected"
    return f"{len(checked)} {noun}: {parts} — {status}"


def derivations_table(checked: Sequence[DerivationResult]) -> str:
    """A plain-text report of checked derivations: one row each, every step's mark beneath, witnesses."""
    width = max([len(r.derivation.name) for r in checked] + [10])
    lines = [f"{'derivation':<{width}}  {'verdict':<9}  {'outcome':<28}  source", "-" * (width + 60)]
    for r in checked:
        mark = " " if r.as_expected else "!"
        lines.append(
            f"{r.derivation.name:<{width}}  {r.verdict.value:<9}  {mark}{r.summary:<27}  {r.derivation.source}"
        )
        for i, (step, step_mark) in enumerate(zip(r.derivation.steps, r.marks), start=1):
            label = f" ({step.label})" if step.label else ""
            lines.append(f"    step {i:<3} {step_mark.status:<10} {step.why}{label}")
            if step_mark.witness:
                lines.append(
                    f"      {'error' if step_mark.status == StepStatus.ERROR else 'witness'} {json.dumps(step_mark.witness, ensure_ascii=False)}"
                )
    lines.append("-" * (width + 60))
    lines.append(derivations_summary_line(checked))
    return "\n".join(lines)


def derivations_summary_line(checked: Sequence[DerivationResult]) -> str:
    """One line: how many derivations reached each verdict and whether all were as expected."""
    return _tally(checked, "derivations")


def failure_lines(results: Sequence[Result], derivations: Sequence[DerivationResult]) -> list[str]:
    """One line per claim and derivation that is not as expected, naming it, its outcome and a derivation's
    steps that are not proved."""
    lines = [f"FAILED claim {r.claim.name}: {r.summary}" for r in results if not r.as_expected]
    for r in derivations:
        if not r.as_expected:
            steps = ", ".join(f"step {i} {m.status}" for i, m in enumerate(r.marks, start=1) if m.status != "proved")
            lines.append(f"FAILED derivation {r.derivation.name}: {r.summary}" + (f" ({steps})" if steps else ""))
    return lines


def to_json(
    results: Sequence[Result],
    *,
    seed: int,
    max_examples: int,
    derivations: Sequence[DerivationResult] = (),
    cached: Collection[str] = frozenset(),
) -> dict[str, Any]:
    """The JSON report as a dict (``json.dumps`` it to print).

    ``derivations`` are the checked derivations; ``cached`` names the results read from the cache.
    """
    return {
        "schema": SCHEMA_VERSION,
        "icl_verify_version": strict_json.package_version(),
        "seed": seed,
        "max_examples": max_examples,
        "ok": all(r.as_expected for r in results) and all(d.as_expected for d in derivations),
        "summary": summary_line(results),
        "claims": [{**r.to_dict(), "cached": r.claim.name in cached} for r in results],
        "builds_on_failed": {name: list(roots) for name, roots in undermined(results).items()},
        "derivations": [r.to_dict() for r in derivations],
        "derivations_summary": derivations_summary_line(derivations),
        "multiplicity": multiplicity(results),
    }


@dataclass(frozen=True)
class Report:
    """The results of checking several claims — prints as a table, renders in Jupyter.

    ``cached`` names the results read from the verdict cache rather than checked in this run.
    """

    results: tuple[Result, ...]
    seed: int = 0
    max_examples: int = 100
    cached: frozenset[str] = frozenset()

    @property
    def ok(self) -> bool:
        return all(r.as_expected for r in self.results)

    def table(self) -> str:
        return table(self.results, self.cached)

    def to_json(self) -> dict[str, Any]:
        return to_json(self.results, seed=self.seed, max_examples=self.max_examples, cached=self.cached)

    def __str__(self) -> str:
        return self.table()

    def __repr__(self) -> str:
        """One line, not a dump of every result: ``Report(3 claims: 2 proved, 1 refuted — all as expected)``."""
        return f"Report({summary_line(self.results)})"

    def _repr_markdown_(self) -> str:
        """The verdict table and the summary, then in full (evidence, counterexample, residual) each result that is
        not as expected, or refuted, unproven or an error."""
        notable = [r for r in self.results if not r.as_expected or r.verdict.value in ("REFUTED", "UNPROVEN", "ERROR")]
        parts = [render.results_markdown(self.results), f"**{summary_line(self.results)}**"]
        return "\n\n".join(parts + [render.result_markdown(r, level=4) for r in notable])


def check_all(
    claims: Iterable[Claim | str] | None = None,
    *,
    seed: int = 0,
    max_examples: int = 100,
    jobs: int | None = None,
    cache: bool = True,
    cache_dir: str | Path | None = None,
    progress: bool | None = None,
) -> Report:
    """Check ``claims`` (default: every built-in claim) as ``icl-verify check`` does, and return a :class:`Report`.

    A claim may be given by the name of a built-in one (``iv.check_all(["prop1-lsa-equals-gd-step"])``); an
    unknown name is an ``InvalidArgument``. A claim may build on built-in claims left out of ``claims``.

    The claims go to :func:`icl_verify.running.runner.check_claims`: ``jobs`` worker processes (None: every
    core, or ``$ICL_VERIFY_JOBS``; 1 checks in this process), results reused from the verdict cache in
    ``cache_dir`` (None: the default folder) unless ``cache`` is False, and a progress bar on stderr
    (``progress`` None: when stderr is a terminal). A claim made at run time is checked in this process.
    """
    chosen = registry.builtin_claims() if claims is None else _claims(claims)
    registry.validate_ledger(chosen)
    checked = runner.check_claims(
        chosen,
        seed=seed,
        max_examples=max_examples,
        jobs=jobs,
        cache=VerdictCache(cache_dir) if cache else None,
        progress=sys.stderr.isatty() if progress is None else progress,
    )
    return Report(tuple(checked.results), seed, max_examples, checked.cached)


def _claims(given: Iterable[Claim | str]) -> list[Claim]:
    """``given`` with each name of a built-in claim replaced by that claim (:func:`registry.select`)."""
    given = list(given)
    names = [g for g in given if isinstance(g, str)]
    found = dict(zip(names, registry.select(registry.builtin_claims(), names))) if names else {}
    return [found[g] if isinstance(g, str) else g for g in given]
