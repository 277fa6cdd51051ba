"""The report's multiplicity reading: how many measured verdicts of a run survive Holm and Benjamini–Hochberg."""

from __future__ import annotations

import pytest
from scipy import stats

import icl_verify as iv
from icl_verify.core.checks.measured import Estimate, Measured
from icl_verify.output import report

Z = stats.norm.isf(0.025)


def _claim(name: str, value: float, half: float = 0.1, level: float | None = 0.95) -> iv.Claim:
    """A measured claim θ = 0 ± 1 whose 95 % interval is value ± half (or of no level)."""
    est = Estimate(value, value - half, value + half, 0.0, 1.0, estimand="toy", level=level)
    return iv.Claim(name=name, source="test", statement="x = 0", checks=(Measured(lambda seed: est),))


def _results() -> list[iv.Result]:
    """strong: p ≈ Φ(−19.6); just: the upper end inside the edge with p = 0.015; undecided: crosses the edge;
    unstated: no level; symbolic: no measured row."""
    just = 1.0 - 0.1 * stats.norm.isf(0.015) / Z
    claims = [
        _claim("strong", 0.0),
        _claim("just", just),
        _claim("undecided", 0.95),
        _claim("unstated", 0.0, level=None),
        iv.Claim(name="symbolic", source="test", statement="x = x", checks=(iv.Symbolic(lambda: 0),)),
    ]
    return [iv.check(c) for c in claims]


def test_holm_drops_a_verdict_that_bh_keeps_and_the_report_names_it():
    """Three claims in the family (m = 3): Holm needs p ≤ 0.025/2 for the second smallest — 0.015 fails; BH
    needs p ≤ 2 · 0.025/3 = 0.0167 — it passes. The undecided claim counts in m but is not a decided verdict."""
    results = _results()
    assert [r.verdict.value for r in results[:3]] == ["VERIFIED", "VERIFIED", "UNPROVEN"]
    reading = report.multiplicity(results)
    assert reading["left_out"] == ["unstated"] and set(reading["claims"]) == {"strong", "just", "undecided"}
    assert reading["decided"] == ["strong", "just"]
    assert reading["claims"]["just"]["p"] == pytest.approx(0.015, rel=1e-6)
    assert [reading["claims"][n]["holm"] for n in ("strong", "just")] == [True, False]
    assert [reading["claims"][n]["benjamini_hochberg"] for n in ("strong", "just")] == [True, True]
    assert reading["claims"]["undecided"]["status"] == "undecided"
    text = report.table(results)
    assert (
        "multiplicity: 2 measured verdicts decided of 3 tested; 1 left out (interval of no stated level);"
        " Holm (family-wise 0.025) 1 survive (not: just); Benjamini–Hochberg (false discovery 0.025) 2 survive"
    ) in text
    assert report.to_json(results, seed=0, max_examples=100)["multiplicity"] == reading


def test_a_run_without_measured_claims_has_no_multiplicity_reading():
    results = _results()[-1:]
    assert (
        report.multiplicity(results) is None and report.to_json(results, seed=0, max_examples=1)["multiplicity"] is None
    )
    assert "multiplicity:" not in report.table(results)  # (the claims' file, named in their rows, says "multiplicity")
