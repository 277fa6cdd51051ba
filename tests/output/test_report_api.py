"""``iv.check_all`` and its :class:`Report` as a Python or Jupyter user meets them: a subset of the built-in claims
(by object or by name) is checked as ``icl-verify check NAME`` checks it, a report's repr is one line, and its
Markdown shows each refutation in full."""

from __future__ import annotations

import pytest
from hypothesis import strategies as st

import icl_verify as iv
from icl_verify.running.registry import builtin_claims

BUILDS_ON = "kinetics-gradient-flow"  # symbolic, cheap; builds on kinetics-simplified-loss, left out here


def test_a_subset_of_builtin_claims_may_build_on_claims_left_out():
    claim = next(c for c in builtin_claims() if c.name == BUILDS_ON)
    assert claim.builds_on and not set(claim.builds_on) & {BUILDS_ON}
    by_object = iv.check_all([claim], jobs=1, cache=False, progress=False)
    by_name = iv.check_all([BUILDS_ON], jobs=1, cache=False, progress=False)
    assert [r.verdict for r in (*by_object.results, *by_name.results)] == [iv.Verdict.PROVED] * 2
    assert by_name.results[0].claim.name == claim.name


def test_an_unknown_name_is_named():
    with pytest.raises(iv.InvalidArgument, match=r"unknown claim.*no-such-claim"):
        iv.check_all(["no-such-claim"], jobs=1, cache=False, progress=False)


def _wrong() -> iv.Claim:
    return iv.Claim(
        name="plus-one-is-same",
        source="a test",
        statement="x + 1 = x",
        checks=(iv.Numeric(st.fixed_dictionaries({"x": st.floats(0, 3)}), lambda c: (c["x"] + 1, c["x"])),),
        holds=False,
        corrected=iv.NoControl("a test of the report"),
    )


def test_repr_is_one_line_and_markdown_shows_each_refutation_in_full():
    report = iv.check_all([_wrong()], jobs=1, cache=False, progress=False, max_examples=5)
    assert repr(report) == "Report(1 claim: 1 refuted — all as expected)"
    markdown = report._repr_markdown_()
    assert "| `plus-one-is-same` | REFUTED |" in markdown
    assert "**1 claim: 1 refuted — all as expected**" in markdown
    assert "#### `plus-one-is-same`" in markdown and "**Counterexample**" in markdown
    assert "| `x` | `0.0` |" in markdown  # Hypothesis shrinks x to 0: (0 + 1) − 0 = 1 ≠ 0


def test_a_users_own_counterexample_of_any_shape_is_shown_as_it_is():
    """A check of the user's that refutes with a counterexample without the built-in keys (``kind``, ``sizes`` …):
    the text report shows it as JSON instead of crashing with a KeyError."""
    from dataclasses import dataclass
    from typing import Any, ClassVar

    from icl_verify.output import report

    @dataclass(frozen=True)
    class Mine(iv.Check):
        kind: ClassVar[str] = "mine"

        def run(self, seed: int, max_examples: int) -> iv.Found:
            return iv.Found(iv.Evidence(self.kind, "refuted", "x = 2 breaks it", 0.0, {"x": 2}))

        def control_at(self, at: Any, corrected: Any) -> iv.Evidence:
            raise AssertionError("no control")

    claim = iv.Claim("mine", "t", "s", (Mine(),), holds=False, corrected=iv.NoControl("none"))
    text = report.table([iv.check(claim)])
    assert 'counterexample {"x": 2}' in text
