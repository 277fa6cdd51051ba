"""A user's own file: its derivations checked by `icl-verify check`, its document by `icl-verify docs`.

The file below has a true claim, a claim expected to be false, a derivation that holds and one with
a wrong step ((x + y)² = x² + y², declared ``holds=False``), and a figure; the expectations are the
mathematics of those statements, not a previous run.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import textwrap

import pytest
import sympy as sp
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from icl_verify import Verdict
from icl_verify.cli.main import main
from icl_verify.output import docs
from icl_verify.output.render import latex_text
from icl_verify.running import registry

USER_FILE = textwrap.dedent(
    '''
    """My square identities.

    A claim, a wrong variant, and two derivations of the square of a sum.
    """
    import numpy as np
    import sympy as sp
    from hypothesis import strategies as st

    import icl_verify as iv

    x, y = sp.symbols("x y")

    square = iv.Claim(
        name="square-of-sum",
        source="algebra, eq. (1)",
        statement=r"(x + y)^2 = x^2 + 2xy + y^2",
        checks=(iv.Symbolic(lambda: (x + y) ** 2 - (x**2 + 2 * x * y + y**2)),),
    )

    freshman = iv.Claim(
        name="freshmans-dream",
        source="a tempting mistake",
        statement=r"(x + y)^2 = x^2 + y^2",
        checks=(
            iv.Numeric(
                st.fixed_dictionaries({"x": st.floats(-2, 2), "y": st.floats(-2, 2)}),
                lambda c: ((c["x"] + c["y"]) ** 2, c["x"] ** 2 + c["y"] ** 2),
            ),
        ),
        holds=False,
        corrected=iv.Corrected(
            "square-of-sum",
            numeric=lambda c: ((c["x"] + c["y"]) ** 2, c["x"] ** 2 + 2 * c["x"] * c["y"] + c["y"] ** 2),
        ),
    )

    expand = iv.Derivation(
        name="expand-square",
        title="Expanding the square of a sum",
        source="algebra",
        start=(x + y) ** 2,
        steps=[
            iv.Step((x + y) * (x + y), "definition of the square"),
            iv.Step(x**2 + 2 * x * y + y**2, "distribute; x_1 y = y x costs 100% nothing & #", "eq. 1"),
        ],
    )

    dream = iv.Derivation(
        name="dream-step",
        title="The freshman's dream",
        source="a wrong step",
        start=(x + y) ** 2,
        steps=[iv.Step((x + y) * (x + y), "definition"), iv.Step(x**2 + y**2, "drop the cross term −2xy")],
        holds=False,
    )

    FIGURES = [
        iv.Figure(
            "parabola",
            "The square, on five points.",
            data=lambda: {"t": np.linspace(-1.0, 1.0, 5), "t2": np.linspace(-1.0, 1.0, 5) ** 2},
            draw=lambda ax, d: ax.plot(d["t"], d["t2"]),
        )
    ]
    '''
)


@pytest.fixture
def user_file(tmp_path):
    path = tmp_path / "squares.py"
    path.write_text(USER_FILE)
    return path


def _invoke(*args: str):
    return CliRunner().invoke(main, list(args))


def _wrong_step_witness_holds(witness: dict[str, str]) -> None:
    """The witness is a point where (x + y)² − (x² + y²) = 2xy is the stated non-zero difference."""
    xv, yv = sp.Rational(witness["x"]), sp.Rational(witness["y"])
    assert 2 * xv * yv == sp.Rational(witness["difference"]) != 0


def test_check_reports_each_derivation_step_by_step(user_file):
    result = _invoke("check", str(user_file), "--max-examples", "20")
    assert result.exit_code == 0, result.output
    out = result.output
    assert "2 claims: 1 proved, 1 refuted — all as expected" in out
    assert "2 derivations: 1 proved, 1 refuted — all as expected" in out
    rows = [line.split() for line in out.splitlines() if line.startswith("    step ")]
    assert [row[2] for row in rows] == ["proved", "proved", "proved", "refuted"]
    assert re.search(r"dream-step\s+REFUTED\s+refuted, as expected", out)
    witness = json.loads(out.split("witness ", 1)[1].splitlines()[0])
    _wrong_step_witness_holds(witness)


def test_a_wrong_step_in_a_derivation_expected_to_hold_exits_1(user_file):
    user_file.write_text(USER_FILE.replace("    holds=False,\n)\n\nFIGURES", "    holds=True,\n)\n\nFIGURES"))
    result = _invoke("check", str(user_file), "--max-examples", "20")
    assert result.exit_code == 1, result.output
    assert re.search(r"dream-step\s+REFUTED\s+!refuted, expected proved", result.output)
    assert "1 NOT as expected" in result.output


def test_an_unproven_step_is_never_a_pass(tmp_path):
    # tr((A + B)⁻¹A) + tr((A + B)⁻¹B) = n: true, but no procedure here decides it for every size (A + B has no
    # single longest word to reduce by), and no small size refutes it — the step stays unproven, not as expected.
    path = tmp_path / "matrices.py"
    path.write_text(
        textwrap.dedent(
            """
            import sympy as sp
            import icl_verify as iv

            n = sp.Symbol("n", positive=True, integer=True)
            A, B = sp.MatrixSymbol("A", n, n), sp.MatrixSymbol("B", n, n)
            start = sp.Trace((A + B).I * A) + sp.Trace((A + B).I * B)
            split = iv.Derivation("split", "split", "s", start=start, steps=[iv.Step(n * sp.Integer(1), "tr I")])
            """
        )
    )
    result = _invoke("check", str(path), "--json")
    assert result.exit_code == 1, result.output
    report = json.loads(result.output)
    assert report["ok"] is False and report["claims"] == []
    [record] = report["derivations"]
    assert (record["verdict"], record["as_expected"]) == ("UNPROVEN", False)
    assert [s["status"] for s in record["steps"]] == ["unproven"]


def test_a_step_whose_shape_differs_is_refused_when_the_file_loads(tmp_path):
    path = tmp_path / "shapes.py"
    path.write_text(
        textwrap.dedent(
            """
            import sympy as sp
            import icl_verify as iv

            x = sp.Symbol("x")
            A = sp.MatrixSymbol("A", 2, 2)
            bad = iv.Derivation("shape-mismatch", "t", "s", start=x**2, steps=[iv.Step(x * x, "fine"), iv.Step(A, "a matrix")])
            """
        )
    )
    result = _invoke("check", str(path), "--json")
    assert result.exit_code == 2
    assert "step 2 ('a matrix') has shape 2 × 2, the expression before it scalar" in result.output


def test_a_crashing_step_is_an_error_even_in_a_derivation_expected_to_fail(tmp_path, monkeypatch):
    from icl_verify.core import derivation

    def crash(before, after):
        raise RuntimeError("the step's check crashed")

    monkeypatch.setattr(derivation, "_decide_step", crash)
    path = tmp_path / "crash.py"
    path.write_text(
        textwrap.dedent(
            """
            import sympy as sp
            import icl_verify as iv

            x = sp.Symbol("x")
            bad = iv.Derivation("crashes", "t", "s", start=x**2, steps=[iv.Step(x * x, "fine")], holds=False)
            """
        )
    )
    result = _invoke("check", str(path), "--json")
    assert result.exit_code == 1, result.output
    [record] = json.loads(result.output)["derivations"]
    assert record["verdict"] == "ERROR" and not record["as_expected"]
    assert [s["status"] for s in record["steps"]] == ["error"]
    assert record["steps"][0]["witness"]["error"] == "RuntimeError: the step's check crashed"


def test_json_report_has_one_record_per_derivation(user_file):
    result = _invoke("check", str(user_file), "--json", "--max-examples", "20")
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["ok"] is True
    assert [c["name"] for c in report["claims"]] == ["square-of-sum", "freshmans-dream"]
    expand, dream = report["derivations"]
    assert (expand["name"], expand["verdict"], expand["expected"], expand["holds"]) == (
        "expand-square",
        "PROVED",
        "PROVED",
        True,
    )
    assert (dream["name"], dream["verdict"], dream["expected"], dream["as_expected"]) == (
        "dream-step",
        "REFUTED",
        "REFUTED",
        True,
    )
    assert [s["status"] for s in dream["steps"]] == ["proved", "refuted"]
    assert dream["steps"][1]["why"] == "drop the cross term −2xy"
    assert dream["start"] == sp.latex((sp.Symbol("x") + sp.Symbol("y")) ** 2)
    _wrong_step_witness_holds(dream["steps"][1]["witness"])


def test_pytest_plugin_collects_one_item_per_derivation(tmp_path):
    (tmp_path / "test_squares.py").write_text(USER_FILE.replace("    holds=False,\n)\n\nFIGURES", ")\n\nFIGURES"))
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--icl-max-examples", "20", "test_squares.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    # two claims (one refuted as expected) pass; expand-square passes; dream-step, now expected to hold, fails
    assert "1 failed, 3 passed" in proc.stdout, proc.stdout + proc.stderr
    assert "derivation 'dream-step': refuted, expected proved" in proc.stdout


def test_docs_writes_the_users_document_in_the_builtin_format(user_file, tmp_path):
    out = tmp_path / "out"
    result = _invoke("docs", str(user_file), "--out", str(out), "--max-examples", "20")
    assert result.exit_code == 0, result.output
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()) == [
        "figures/squares-parabola.svg",
        "squares.md",
    ]
    text = (out / "squares.md").read_text()
    assert text.startswith("# My square identities\n")
    assert "`squares.py`" in text and str(tmp_path) not in text  # no machine-specific path
    assert "| `square-of-sum` | PROVED | proved | algebra, eq. (1) |" in text
    assert "| `freshmans-dream` | REFUTED | refuted, as expected | a tempting mistake |" in text
    assert "### The freshman's dream" in text and "(refuted, as expected)" in text
    assert "1. **proved** — definition\n" in text and "2. **refuted** — drop the cross term −2xy" in text
    witness = json.loads(re.search(r"Witness: `(\{.*\})`", text).group(1))
    _wrong_step_witness_holds(witness)
    assert "## Printed forms that are wrong" in text and "**Counterexample** (shrunk by Hypothesis" in text
    assert "![parabola](figures/squares-parabola.svg)" in text and "*Figure 1.* The square, on five points." in text
    assert (out / "figures" / "squares-parabola.svg").read_bytes().startswith(b"<?xml")


def test_user_documents_are_deterministic_and_checkable(user_file, tmp_path):
    out = tmp_path / "out"
    args = (str(user_file), "--out", str(out), "--max-examples", "20")
    assert _invoke("docs", *args).exit_code == 0
    first = (out / "squares.md").read_bytes()
    assert _invoke("docs", *args).exit_code == 0
    assert (out / "squares.md").read_bytes() == first
    for extra in ((), ("--strict",)):
        result = _invoke("docs", *args, "--check", *extra)
        assert result.exit_code == 0 and "up to date (2 files)" in result.output, result.output
    (out / "squares.md").write_bytes(first.replace(b"| PROVED | proved |", b"| VERIFIED | verified |"))
    result = _invoke("docs", *args, "--check")
    assert result.exit_code == 1 and f"stale: {out / 'squares.md'}" in result.output


def test_the_document_renders_in_jupyter_like_the_file(user_file, tmp_path):
    fam = registry.load_family(user_file)
    notebook = fam._repr_markdown_()
    written = docs.user_documents([fam], seed=0, max_examples=100)["squares.md"].decode()
    assert notebook.split("![parabola]")[0] == written.split("![parabola]")[0]
    assert "](data:image/svg+xml;base64," in notebook
    dream = next(d for d in fam.derivations if d.name == "dream-step").check()
    assert dream.verdict is Verdict.REFUTED and dream.as_expected
    shown = dream._repr_markdown_()
    assert "1. **proved** — definition" in shown and "2. **refuted** — drop the cross term" in shown
    assert "Witness:" in shown and "(refuted, as expected)" in shown


def _latex(user_file, tmp_path, *extra: str) -> str:
    out = tmp_path / "tex"
    args = ("docs", str(user_file), "--out", str(out), "--format", "latex", "--max-examples", "20", *extra)
    result = _invoke(*args)
    assert result.exit_code == 0, result.output
    written = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    package = [] if "--standalone" in extra else ["iclverify.sty"]
    assert written == ["figures/squares-parabola.pdf", *package, "squares.tex"]
    assert (out / "figures" / "squares-parabola.pdf").read_bytes().startswith(b"%PDF-")
    return (out / "squares.tex").read_text()


def _outside_math(tex: str) -> str:
    """``tex`` without comments, display math (``\\iclmath`` lines), inline math and \\ensuremath{…} arguments."""
    tex = re.sub(r"(?m)^%.*$", "", tex)
    tex = re.sub(r"(?m)^\s*\\iclmath\{.*\}$", "", tex)
    tex = re.sub(r"(?<!\\)\$[^$]*(?<!\\)\$", "", tex)
    return re.sub(r"\\ensuremath\{[^{}]*(\{[^{}]*\})?[^{}]*\}", "", tex)


def test_latex_export_has_claim_environments_step_lists_marks_and_verdicts(user_file, tmp_path):
    tex = _latex(user_file, tmp_path)
    assert tex.isascii()
    assert tex.count(r"\begin{enumerate}") == tex.count(r"\end{enumerate}") == 2
    assert tex.count(r"\begin{iclclaim}") == tex.count(r"\end{iclclaim}") == 2
    assert r"\begin{iclclaim}[{algebra, eq. (1)}]\label{claim:square-of-sum}" in tex
    assert r"\texttt{square-of-sum}" in tex
    assert r"\iclmath{(x + y)^2 = x^2 + 2xy + y^2}" in tex  # the statement, in display math
    assert r"\textit{Verdict:} proved." in tex
    assert r"\textit{Verdict:} refuted, as expected (this form is expected to be false)." in tex
    dream = tex.split(r"\paragraph{The freshman's dream}")[1].split(r"\end{enumerate}")[0]
    steps = dream.split(r"\item ")[1:]
    assert len(steps) == 2  # one item per step, its justification above its formula
    assert steps[0].startswith(r"{\raggedright $\checkmark$ definition\par}")
    assert r"\iclmath{= \left(x + y\right)^{2}}" in steps[0]
    assert steps[1].startswith(r"{\raggedright $\times$ drop the cross term \ensuremath{-}2xy at $")
    xv, yv, diff = re.search(r"at \$x = (-?\d+),\\ y = (-?\d+),\\ \\text\{difference \} (-?\d+)\$", steps[1]).groups()
    _wrong_step_witness_holds({"x": xv, "y": yv, "difference": diff})
    assert r"x\_1 y = y x costs 100\% nothing \& \#" in tex
    for special in "_%#&":  # none unescaped outside math
        assert not re.search(rf"(?<!\\){re.escape(special)}", _outside_math(tex)), special
    result = _invoke(
        "docs", str(user_file), "--out", str(tmp_path / "tex"), "--format", "latex", "--check", "--max-examples", "20"
    )
    assert result.exit_code == 0 and "up to date (3 files)" in result.output


def test_latex_counterexample_is_in_math_with_the_residual_and_tolerance(user_file, tmp_path):
    tex = _latex(user_file, tmp_path)
    freshman = tex.split(r"\texttt{freshmans-dream}")[1].split(r"\end{iclclaim}")[0]
    assert "Counterexample (shrunk by Hypothesis, seed 0):" in freshman
    values = dict(re.findall(r"\\iclmath\{\\texttt\{(\w)\} = (-?[\d.]+)\}", freshman))
    assert set(values) == {"x", "y"}
    x, y = (float(values[k]) for k in "xy")
    residual = float(re.search(r"\|\\mathrm\{lhs\} - \\mathrm\{rhs\}\| = ([\d.]+)\$", freshman)[1])
    assert residual == pytest.approx(abs(2 * x * y))  # (x + y)² − (x² + y²) = 2xy at the counterexample
    assert re.search(r"tolerance \$\d(\.\d+)? \\times 10\^\{-\d+\}\$", freshman)  # never 4.001e-09


def test_latex_figure_is_a_pdf_with_its_caption(user_file, tmp_path):
    tex = _latex(user_file, tmp_path)
    assert r"\includegraphics[width=\linewidth]{figures/squares-parabola.pdf}" in tex
    assert r"\caption{The square, on five points.}" in tex


def test_a_justification_may_hold_math(tmp_path):
    path = tmp_path / "dollars.py"
    path.write_text(
        "import sympy as sp\nimport icl_verify as iv\nw = sp.Symbol('w_0')\n"
        "d = iv.Derivation(name='d', title='Dollars', source='s', start=w + w,"
        " steps=[iv.Step(2 * w, 'collect $w_0 + w_0$ at cost 5% & e^{-1}')])\n"
    )
    result = _invoke("docs", str(path), "--out", str(tmp_path / "tex"), "--format", "latex")
    assert result.exit_code == 0, result.output
    tex = (tmp_path / "tex" / "dollars.tex").read_text()
    assert r"\item {\raggedright $\checkmark$ collect $w_0 + w_0$ at cost 5\% \& e\textsuperscript{-1}\par}" in tex


def _pdflatex(folder, name: str) -> str:
    """Compile ``name``.tex in ``folder`` with pdfLaTeX, twice (its claims' labels resolved); the last log."""
    for _ in range(2):
        proc = subprocess.run(
            ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", f"{name}.tex"],
            cwd=folder,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert proc.returncode == 0, proc.stdout[-3000:]
    assert (folder / f"{name}.pdf").stat().st_size > 0
    return (folder / f"{name}.log").read_text(errors="replace")


def _clean(log: str, tex: str) -> None:
    """No overfull or underfull box and no warning (fonts aside) in a pdfLaTeX log."""
    assert "Overfull" not in log and "Underfull" not in log, re.findall(r"(?:Overfull|Underfull).*\n.*", log)
    assert "Warning" not in log.replace("LaTeX Font Warning", ""), tex


PDFLATEX = pytest.mark.skipif(
    shutil.which("pdflatex") is None, reason="no LaTeX engine (apt-get install texlive-latex-base)"
)


@PDFLATEX
def test_latex_export_compiles_in_a_minimal_document_without_overfull_boxes(user_file, tmp_path):
    tex = _latex(user_file, tmp_path)
    (tmp_path / "tex" / "paper.tex").write_text(
        "\\documentclass{article}\n\\usepackage{iclverify}\n\\begin{document}\n\\input{squares}\n\\end{document}\n"
    )
    _clean(_pdflatex(tmp_path / "tex", "paper"), tex)


PAPER = r"""\documentclass{article}
\usepackage{amsthm}
\usepackage{iclverify}
\newtheorem{theorem}{Theorem}
\newtheorem{claim}{Claim}
\makeatletter\typeout{THEOREM STYLE: \the\thm@style.}\makeatother
\begin{document}
\section{Results}
\begin{theorem}\label{thm:own}The paper's own theorem.\end{theorem}
\begin{claim}The paper's own claim.\end{claim}
\input{squares}
As Claim~\ref{claim:square-of-sum} and Claim~\ref{claim:freshmans-dream} state, after Theorem~\ref{thm:own}.
\end{document}
"""
"""A paper with its own ``theorem`` and ``claim`` environments, defined after ``\\usepackage{iclverify}``, that
includes the fragment and refers to two of its claims."""


@PDFLATEX
def test_latex_fragment_drops_into_a_paper_with_its_own_theorem_and_claim(user_file, tmp_path):
    tex = _latex(user_file, tmp_path)
    assert not re.search(r"\\(sub)*section|\\resizebox|\\scalebox", tex)  # the paper's structure, unscaled
    folder = tmp_path / "tex"
    (folder / "paper.tex").write_text(PAPER)
    log = _pdflatex(folder, "paper")
    assert "THEOREM STYLE: plain." in log  # the package left amsthm's style for the paper's theorems (italic)
    assert "undefined" not in log, re.findall(r".*undefined.*", log)
    labels = re.findall(r"\\newlabel\{(claim:[^}]+)\}", (folder / "paper.aux").read_text())
    assert labels == ["claim:square-of-sum", "claim:freshmans-dream"]


@PDFLATEX
def test_standalone_latex_compiles_alone(user_file, tmp_path):
    tex = _latex(user_file, tmp_path, "--standalone")
    assert tex.count(r"\documentclass{article}") == 1 and tex.rstrip().endswith(r"\end{document}")
    _clean(_pdflatex(tmp_path / "tex", "squares"), tex)


@given(st.text(max_size=40))
def test_latex_text_is_ascii_with_every_special_character_escaped(text):
    escaped = _outside_math(latex_text(text))
    assert escaped.isascii()
    for special in "_%#&$^~":
        assert not re.search(rf"(?<!\\){re.escape(special)}", escaped), special


def test_docs_input_errors_exit_2(tmp_path):
    result = _invoke("docs", str(tmp_path / "missing.py"), "--out", str(tmp_path / "out"))
    assert result.exit_code == 2 and "does not exist" in result.output and "Traceback" not in result.output
    result = _invoke("docs", "--standalone", "--out", str(tmp_path / "out"))
    assert result.exit_code == 2 and "--standalone is only used with --format latex" in result.output
    result = _invoke("docs", str(tmp_path / "missing.py"), "--format", "pdf")
    assert result.exit_code == 2 and "'pdf' is not one of" in result.output
    assert not (tmp_path / "out").exists()
