"""Derivation documents (icl_verify.output.docs): deterministic, skeletons that ignore a machine's digits,
`icl-verify docs` writing only what changed; derivations mark every step."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
import sympy as sp
from click.testing import CliRunner
from sympy.matrices.expressions import MatrixSymbol

from icl_verify import Derivation, Step, Verdict, check
from icl_verify.cli.main import main
from icl_verify.core.figure import Figure
from icl_verify.families import lsa_gd
from icl_verify.output import docs, render
from icl_verify.output.figures import digest, render_svg
from icl_verify.output.render import claim_markdown, derivation_markdown, result_markdown

COMMITTED = Path(__file__).resolve().parents[2] / "docs" / "derivations"


def test_documents_contain_no_timings():
    claim = lsa_gd.PROP1
    text = result_markdown(check(claim))
    assert " s)" not in text and "seconds" not in text


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
    assert "**proved**" in lsa_gd.PROP1_QUERY_DERIVATION._repr_markdown_()
    assert claim_markdown(lsa_gd.PROP1).startswith("### `prop1-lsa-equals-gd-step`")
    assert "1. **proved**" in derivation_markdown(lsa_gd.PROP1_QUERY_DERIVATION.check())


def _line_figure() -> Figure:
    return Figure(
        "line", "a line", lambda: {"x": np.arange(5.0), "y": 2 * np.arange(5.0)}, lambda ax, d: ax.plot(d["x"], d["y"])
    )


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


ROW = "| numeric | verified | 100 random cases pass (seed 0); N∈[1,5], Nx∈[1,3] |"
MEASURED = "| measured | verified | measured 0.68 [0.66, 0.71] vs predicted 0.7 ± 0.1 (seed 0); slope 1.43 |"


def _same(a: str, b: str) -> bool:
    return docs.skeleton(a.encode()) == docs.skeleton(b.encode())


def test_skeleton_ignores_what_a_machine_or_a_hypothesis_release_changes():
    assert _same(ROW, ROW.replace("[1,5]", "[1,4]").replace("100", "87"))
    assert _same(MEASURED, MEASURED.replace("0.68 [0.66, 0.71]", "0.67 [0.65, 0.70]").replace("1.43", "1.47"))
    values = "| `A` | `[[0.5, 1.25], [2.0, -1.0]]` |"
    assert _same(values, values.replace("1.25", "1.5"))
    residual = "$|\\mathrm{lhs} - \\mathrm{rhs}| = 0.75$ > tolerance $1e-09$."
    assert _same(residual, residual.replace("0.75", "0.5"))
    assert _same("text\n<!-- figure data sha256: ab12 -->\n", "text\n<!-- figure data sha256: cd34 -->\n")
    measurement = render.measurement_markdown(
        {
            "estimand": "a ratio",
            "estimate": 0.68,
            "interval": [0.66, 0.71],
            "level": 0.95,
            "test": "equivalence",
            "alpha_per_side": 0.025,
            "predicted": 0.7,
            "tolerance": 0.1,
        }
    ).strip()
    assert measurement.startswith("*Measurement:* θ = a ratio; 0.68 [0.66, 0.71] (0.95 interval, α = 0.025 per side)")
    assert _same(measurement, measurement.replace("0.68 [0.66, 0.71]", "0.67 [0.65, 0.70]"))


def test_skeleton_keeps_verdicts_outcomes_sizes_and_statements():
    assert not _same(ROW, ROW.replace("verified", "refuted"))
    assert not _same(ROW, ROW.replace("| numeric |", "| explicit |"))
    header = "**Counterexample** (shrunk by Hypothesis, seed 0) at dimensions $N = 2$, $Nx = 1$:"
    assert not _same(header, header.replace("$N = 2$", "$N = 3$"))
    verdict = "| `prop1` | PROVED | proved | von Oswald et al. 2023, Proposition 1 |"
    assert not _same(verdict, verdict.replace("PROVED | proved", "VERIFIED | verified"))
    statement = "$$\nZ_1 = Z_0 - \\frac{\\eta}{N} \\sum_i x_i\n$$"
    assert not _same(statement, statement.replace("\\frac{\\eta}{N}", "\\eta"))


def test_default_check_passes_with_another_machines_digits_strict_does_not(tmp_path):
    files = {"fam.md": (MEASURED + "\n").encode(), "figures/fam-a.svg": b"<svg>1</svg>"}
    docs.write(files, tmp_path)
    elsewhere = {"fam.md": (MEASURED.replace("0.68", "0.69") + "\n").encode(), "figures/fam-a.svg": b"<svg>2</svg>"}
    assert docs.stale_files(elsewhere, tmp_path) == []
    assert docs.stale_files(elsewhere, tmp_path, strict=True) == ["fam.md", "figures/fam-a.svg"]
    assert docs.stale_files({**files, "new.md": b"x"}, tmp_path) == ["new.md"]


def test_drawing_a_figure_leaves_the_users_matplotlib_backend_alone():
    import matplotlib

    before = matplotlib.get_backend()
    matplotlib.use("pdf")
    try:
        render_svg(_line_figure(), _line_figure().data())
        assert matplotlib.get_backend() == "pdf"
    finally:
        matplotlib.use(before)


# ---------------------------------------------------------------------------------------------
# `icl-verify docs` writes only what changed


def test_changed_files_are_the_documents_whose_skeleton_changed_with_their_figures(tmp_path):
    files = {
        "fam.md": (MEASURED + "\n\n![a](figures/fam-a.svg)\n").encode(),
        "figures/fam-a.svg": b"<svg>1</svg>",
        "other.md": b"# other\n\n![b](figures/other-b.svg)\n",
        "figures/other-b.svg": b"<svg>2</svg>",
    }
    docs.write(files, tmp_path)
    digits = {**files, "fam.md": files["fam.md"].replace(b"0.68", b"0.69"), "figures/fam-a.svg": b"<svg>3</svg>"}
    assert docs.changed_files(digits, tmp_path) == []  # another machine's digits: nothing to write
    assert docs.changed_files({**digits, "other.md": b"# renamed\n\n![b](figures/other-b.svg)\n"}, tmp_path) == [
        "other.md",
        "figures/other-b.svg",
    ]
    (tmp_path / "figures" / "fam-a.svg").unlink()
    assert docs.changed_files(digits, tmp_path) == ["figures/fam-a.svg"]  # a missing figure, alone


def _docs(*args: str):
    return CliRunner().invoke(main, ["docs", "--jobs", "1", *args])


def _tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_docs_rewrites_only_the_family_asked_for_and_only_what_changed(tmp_path):
    out = tmp_path / "derivations"
    shutil.copytree(COMMITTED, out)
    newton = out / "newton.md"
    text = newton.read_text(encoding="utf-8")
    row = "| numeric | verified | 100 random cases pass (seed 0); d∈[1,4], k∈[0,4] |"
    assert text.count(row) == 1
    other_digits = text.replace(row, row.replace("100 random", "99 random"))  # masked by the skeleton
    newton.write_text(other_digits, encoding="utf-8")
    (out / "figures" / "newton-boundary.svg").unlink()
    before = _tree(out)

    result = _docs("--family", "newton", "--out", str(out))
    assert result.exit_code == 0, result.output
    assert f"wrote 1 of 2 files to {out}" in result.output
    after = _tree(out)
    assert after.keys() == before.keys() | {"figures/newton-boundary.svg"}
    assert all(after[rel] == before[rel] for rel in before)  # the document kept its digits, others untouched

    newton.write_text(other_digits.replace("refuted", "REFUTED?"), encoding="utf-8")  # its skeleton changed
    result = _docs("--family", "newton", "--out", str(out))
    assert result.exit_code == 0 and f"wrote 2 of 2 files to {out}" in result.output, result.output
    assert newton.read_text(encoding="utf-8") == text  # regenerated as committed
    assert _docs("--family", "newton", "--out", str(out), "--check").exit_code == 0


def test_docs_family_must_be_known(tmp_path):
    result = _docs("--family", "no-such-family", "--out", str(tmp_path))
    assert result.exit_code == 2 and "--family: unknown family 'no-such-family'" in result.output
    assert "newton" in result.output and "Traceback" not in result.output
