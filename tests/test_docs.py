"""Derivation documents: deterministic, complete, and never stale; derivations mark every step."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import sympy as sp
from sympy.matrices.expressions import MatrixSymbol

from icl_verify import Derivation, Step, Verdict, check
from icl_verify.engine import registry
from icl_verify.families import lsa_gd
from icl_verify.output import docs
from icl_verify.output.figures import Figure, digest, render_svg
from icl_verify.output.render import claim_markdown, derivation_markdown, result_markdown

COMMITTED = Path(__file__).resolve().parents[1] / "docs" / "derivations"


@pytest.fixture(scope="module")
def built(builtin_results):
    return docs.build(builtin_results)


def test_committed_docs_are_up_to_date(built):
    stale = docs.stale_files(built, COMMITTED)
    assert stale == [], f"run `icl-verify docs` to regenerate: {stale}"


def test_regeneration_is_byte_identical(built, builtin_results):
    again = docs.build(builtin_results)
    assert again.keys() == built.keys()
    assert all(again[k] == built[k] for k in built)  # SVG figures included


def test_every_family_has_a_document_with_its_claims_and_figures(built):
    for fam in registry.families():
        text = built[f"{fam.name}.md"].decode()
        for claim in fam.claims:
            assert f"### `{claim.name}`" in text
        for fig in fam.figures:
            assert f"figures/{fam.name}-{fig.name}.svg" in built
    index = built["index.md"].decode()
    assert all(f"({fam.name}.md)" in index for fam in registry.families())


def test_misprints_show_printed_and_corrected_forms_and_counterexample(built):
    text = built["lsa-gd.md"].decode()
    section = text.split("### `prop1-p-eta-not-eta-over-n`")[1].split("\n### ")[0]
    assert "refuted, as expected" in section
    assert "**Counterexample**" in section
    assert "**Corrected form** (`prop1-lsa-equals-gd-step`)" in section


def test_documents_contain_no_timings():
    claim = lsa_gd.PROP1
    text = result_markdown(check(claim))
    assert " s)" not in text and "seconds" not in text


def test_derivations_of_the_foundation_are_proved():
    for module in (lsa_gd,):
        for derivation in registry.derivations_in(module):
            assert derivation.check().verdict is Verdict.PROVED


def test_a_wrong_matrix_step_is_never_marked_proved():
    n = sp.Symbol("n", positive=True, integer=True)
    A, B = MatrixSymbol("A", n, n), MatrixSymbol("B", n, n)
    d = Derivation("wrong", "wrong", "test", start=A * B, steps=[Step(B * A, "matrices commute (they don't)")])
    result = d.check()
    assert result.marks[0].status != "proved"
    assert result.verdict is not Verdict.PROVED


def test_a_wrong_scalar_step_is_refuted_with_an_exact_witness():
    x, y = sp.symbols("x y")
    d = Derivation("wrong", "wrong", "test", start=(x + y) ** 2, steps=[Step(x**2 + y**2, "forgot the cross term")])
    result = d.check()
    assert result.verdict is Verdict.REFUTED
    w = result.marks[0].witness
    xv, yv = sp.Rational(w["x"]), sp.Rational(w["y"])
    assert (xv + yv) ** 2 != xv**2 + yv**2


def test_derivation_needs_steps():
    with pytest.raises(ValueError, match="at least one step"):
        Derivation("d", "t", "s", start=sp.Integer(1), steps=[])


def test_markdown_reprs_for_jupyter():
    result = check(lsa_gd.PROP1_P_ETA)
    assert "$$" in lsa_gd.PROP1._repr_markdown_()
    assert "Verdict: REFUTED" in result._repr_markdown_()
    assert "✅ proved" in lsa_gd.PROP1_QUERY_DERIVATION._repr_markdown_()
    assert claim_markdown(lsa_gd.PROP1).startswith("### `prop1-lsa-equals-gd-step`")
    assert "1. ✅ proved" in derivation_markdown(lsa_gd.PROP1_QUERY_DERIVATION.check())


def _line_figure() -> Figure:
    return Figure("line", "a line", lambda: {"x": np.arange(5.0), "y": 2 * np.arange(5.0)}, lambda ax, d: ax.plot(d["x"], d["y"]))


def test_svg_is_deterministic():
    fig = _line_figure()
    data = fig.data()
    first, second = render_svg(fig, data), render_svg(fig, data)
    assert first == second and first.startswith(b"<?xml")
    assert b"<dc:date>" not in first


def test_digest_ignores_rounding_but_sees_real_changes():
    data = {"y": np.array([0.1, 0.2, 3e-16])}
    assert digest(data) == digest({"y": data["y"] + np.array([1e-17, -1e-17, 2e-16])})
    assert digest(data) != digest({"y": data["y"] * (1 + 1e-4)})


def test_staleness_ignores_visited_ranges_but_not_verdicts_or_counts():
    row = "| numeric | ✔️ verified | 100 random cases pass (seed 0); N∈[1,5], Nx∈[1,3] |\n"
    assert docs.comparable(row.encode()) == docs.comparable(row.replace("[1,5]", "[1,4]").encode())
    assert docs.comparable(row.encode()) != docs.comparable(row.replace("100", "99").encode())
    assert docs.comparable(row.encode()) != docs.comparable(row.replace("verified", "refuted").encode())
