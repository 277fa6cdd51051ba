"""The LaTeX export of the built-in claims and derivations compiles with pdfLaTeX without an overfull box.

Every built-in claim's ``iclclaim`` environment (its source, statement and a verdict) and every built-in
derivation go into one document with the export's preamble; the log must hold no error, no overfull or
underfull box and no character the export could not spell (``[U+…]``). The command's own output for two
built-in families, figures included, is compiled as ``--standalone`` documents (slow: it checks their claims).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from icl_verify.cli.main import main
from icl_verify.core.claims import Result
from icl_verify.core.verdicts import Verdict
from icl_verify.output import render
from icl_verify.running import registry

pytestmark = pytest.mark.skipif(
    shutil.which("pdflatex") is None, reason="no LaTeX engine (apt-get install texlive-latex-base)"
)


def _compile(folder: Path, name: str) -> str:
    proc = subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", f"{name}.tex"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout[-3000:]
    log = (folder / f"{name}.log").read_text(errors="replace")
    boxes = re.findall(r"(?:Overfull|Underfull) \\[hv]box.*\n.*", log)
    assert not boxes, "\n".join(boxes[:10])
    return log


def _document(folder: Path, parts: list[str]) -> None:
    text = "\n".join(
        [r"\documentclass{article}", render.LATEX_PREAMBLE, r"\begin{document}", *parts, r"\end{document}"]
    )
    assert text.isascii() and "[U+" not in text, re.findall(r".{40}\[U\+.{40}", text)[:5]
    (folder / "all.tex").write_text(text)


def test_every_builtin_claim_compiles_without_an_overfull_box(tmp_path):
    parts = []
    for fam in registry.families():
        parts.append(rf"\section*{{\raggedright {render.prose_latex(fam.title)}}}")
        for c in fam.claims:
            verdict = Verdict.PROVED if c.holds else Verdict.REFUTED  # the statement is under test, not a check
            parts.append(render.claim_latex(Result(c, verdict, (), seed=0, max_examples=1)))
    _document(tmp_path, parts)
    _compile(tmp_path, "all")


@pytest.mark.slow
def test_every_builtin_derivation_compiles_without_an_overfull_box(tmp_path):
    parts = [render.derivation_latex(d.check()) for fam in registry.families() for d in fam.derivations]
    assert parts
    _document(tmp_path, parts)
    _compile(tmp_path, "all")


@pytest.mark.slow
def test_two_builtin_families_export_to_standalone_documents_with_figures(tmp_path):
    out = tmp_path / "tex"
    families = ("newton", "preconditioned-gd")
    args = ["docs", "--format", "latex", "--standalone", "--out", str(out), "--no-cache", "--jobs", "1"]
    result = CliRunner().invoke(main, [*args, *(a for name in families for a in ("--family", name))])
    assert result.exit_code == 0, result.output
    for name in families:
        tex = (out / f"{name}.tex").read_text()
        figures = re.findall(r"\\includegraphics\[[^\]]*\]\{(figures/[^}]+\.pdf)\}", tex)
        assert figures and all((out / f).read_bytes().startswith(b"%PDF-") for f in figures)
        assert r"\begin{iclclaim}" in tex and tex.rstrip().endswith(r"\end{document}")
        _compile(out, name)
