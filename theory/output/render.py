"""Markdown (with LaTeX math) for claims, results and derivations — for docs and Jupyter — and LaTeX.

Math is written as ``$$ … $$`` display blocks and ``$…$`` inline, which GitHub and MkDocs
(pymdownx.arithmatex) both render. Measured estimates are printed to the precision their
interval supports, other numbers to 4 significant digits, and timings never.

For papers, :func:`derivation_latex` writes a checked derivation as an ``align*`` block (one line
per step, the justification as ``\\text{}``, a mark of what SymPy found) and :func:`claim_latex` a
claim's statement with its verdict; both need only ``amsmath`` and ``amssymb``, and their text
is ASCII (:func:`latex_text`), so they compile with pdfLaTeX as well as XeLaTeX or LuaLaTeX.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Mapping, Sequence
from typing import Any

import sympy as sp

from icl_verify.core import display
from icl_verify.core.checks.measured import format_interval
from icl_verify.core.claims import Claim, Result
from icl_verify.core.derivation import Derivation, DerivationResult
from icl_verify.core.evidence import MAX_RESIDUAL_CHARS, ControlStatus, Kind, Residual, Status, StepStatus

MARKS = {
    Status.PROVED: "✅ proved",
    Status.VERIFIED: "✔️ verified",
    Status.REFUTED: "❌ refuted",
    Status.UNDECIDED: "❔ undecided",
    StepStatus.UNPROVEN: "❔ unproven",
    Status.ERROR: "💥 error",
    ControlStatus.PASSED: "✅ passed",  # control rows: the corrected form passes at the counterexample
    ControlStatus.FAILED: "❌ failed",  # the corrected form fails too: the refutation is hollow
    ControlStatus.WAIVED: "➖ waived",  # no corrected form exists (the claim says why)
    ControlStatus.MISSING: "⚠️ missing",  # no control was given
}


LATEX_MARKS = {
    StepStatus.PROVED: r"\checkmark",
    StepStatus.REFUTED: r"\times",
    StepStatus.UNPROVEN: "?",
    StepStatus.ERROR: r"\text{error}",
}
_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}
_LATEX_UNICODE = {
    "−": r"\ensuremath{-}",
    "·": r"\ensuremath{\cdot}",
    "×": r"\ensuremath{\times}",
    "²": r"\ensuremath{^2}",
    "³": r"\ensuremath{^3}",
    "ᵀ": r"\ensuremath{^\top}",
    "⊤": r"\ensuremath{^\top}",
    "→": r"\ensuremath{\to}",
    "≠": r"\ensuremath{\neq}",
    "≤": r"\ensuremath{\leq}",
    "≥": r"\ensuremath{\geq}",
    "≈": r"\ensuremath{\approx}",
    "∈": r"\ensuremath{\in}",
    "‖": r"\ensuremath{\|}",
    "∑": r"\ensuremath{\sum}",
    "∂": r"\ensuremath{\partial}",
    "∇": r"\ensuremath{\nabla}",
    "∞": r"\ensuremath{\infty}",
    "√": r"\ensuremath{\surd}",
    "±": r"\ensuremath{\pm}",
    "—": "---",
    "–": "--",
    "’": "'",
    "‘": "`",
    "“": "``",
    "”": "''",
    "…": r"\ldots{}",
}


def latex_text(text: str) -> str:
    """``text`` for LaTeX's text mode, in ASCII: special characters escaped, Greek and common math symbols as ``\\ensuremath``.

    A character with no LaTeX spelling here is reduced to its ASCII base letter when it has one
    (``é`` → ``e``), else shown as its code point (``[U+2603]``) — never passed through to break pdfLaTeX.
    """
    return "".join(_latex_char(ch) for ch in text)


def _latex_char(ch: str) -> str:
    if ch in _LATEX_SPECIAL:
        return _LATEX_SPECIAL[ch]
    if ch.isascii():
        return ch
    if ch in _LATEX_UNICODE:
        return _LATEX_UNICODE[ch]
    name = unicodedata.name(ch, "").replace("LAMDA", "LAMBDA")
    for case, prefix in ((str.lower, "GREEK SMALL LETTER "), (str.capitalize, "GREEK CAPITAL LETTER ")):
        letter = case(name.removeprefix(prefix))
        if name.startswith(prefix) and letter in _GREEK:
            return f"\\ensuremath{{\\{letter}}}"
    base = unicodedata.normalize("NFKD", ch).encode("ascii", "ignore").decode()
    return "".join(_latex_char(b) for b in base) if base else f"[U+{ord(ch):04X}]"


_GREEK = set(  # the Greek letters LaTeX has commands for (no \omicron, no \Alpha)
    [
        "alpha",
        "beta",
        "gamma",
        "delta",
        "epsilon",
        "zeta",
        "eta",
        "theta",
        "iota",
        "kappa",
        "lambda",
        "mu",
        "nu",
        "xi",
        "pi",
        "rho",
        "sigma",
        "tau",
        "upsilon",
        "phi",
        "chi",
        "psi",
        "omega",
        "Gamma",
        "Delta",
        "Theta",
        "Lambda",
        "Xi",
        "Pi",
        "Sigma",
        "Upsilon",
        "Phi",
        "Psi",
        "Omega",
    ]
)


def math_block(latex: str) -> str:
    return f"$$\n{latex.strip()}\n$$"


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, list):
        return "[" + ", ".join(_fmt(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_fmt(v)}" for k, v in value.items()) + "}"
    return str(value)


def claim_markdown(claim: Claim, level: int = 3) -> str:
    """The claim as stated: name, source, statement — without running any check."""
    kind = "expected to be **false**" if not claim.holds else "expected to hold"
    lines = [
        f"{'#' * level} `{claim.name}`",
        "",
        f"*{claim.source}* — {kind}.",
        "",
        math_block(claim.statement),
    ]
    if claim.note:
        lines += ["", claim.note]
    if claim.assumptions:
        lines += ["", f"*Assumes:* {'; '.join(claim.assumptions)}."]
    if claim.builds_on:
        lines += ["", f"*Builds on:* {', '.join(f'`{name}`' for name in claim.builds_on)}."]
    return "\n".join(lines)


def counterexample_markdown(cex: dict[str, Any] | None) -> str:
    if cex is None:
        return ""
    if cex["kind"] == Kind.NUMERIC:
        rows = [f"| `{k}` | `{json.dumps(v)}` |" for k, v in cex["values"].items()]
        return "\n".join(
            [
                f"**Counterexample** (shrunk by Hypothesis, seed {cex['seed']}) at sizes "
                f"{', '.join(f'${k} = {v}$' for k, v in cex['sizes'].items())}:",
                "",
                "| value | |",
                "|---|---|",
                *rows,
                "",
                f"$|\\mathrm{{lhs}} - \\mathrm{{rhs}}| = {_fmt(cex['residual'])}$ "
                f"> tolerance ${_fmt(cex['tolerance'])}$.",
            ]
        )
    if cex["kind"] in (Kind.EXPLICIT, Kind.SYMBOLIC):
        values = ", ".join(f"${sp.latex(sp.Symbol(k))} = {v}$" for k, v in cex["values"].items())
        where = f" at sizes {_fmt(cex['sizes'])}" if cex["sizes"] else ""
        return f"**Counterexample** (exact){where}{' with ' + values if values else ''}: residual `{cex['exact_residual']}`."
    values = cex["values"]
    return (
        f"**Counterexample** (measured, seed {cex['seed']}): estimate "
        f"{format_interval(values['estimate'], *values['interval'])} excludes {_fmt(values['predicted'])} "
        f"± {_fmt(cex['tolerance'])}."
    )


def residual_markdown(residual: Residual | None) -> str:
    """The simplified lhs − rhs of a refuted claim: display math, or code when it was truncated."""
    if residual is None:
        return ""
    where = "dimension-free" if residual.sizes is None else f"at sizes {_fmt(residual.sizes)}"
    if residual.truncated:
        return "\n".join(
            [
                f"**Residual** lhs − rhs ({where}; first {MAX_RESIDUAL_CHARS} characters):",
                "",
                f"```\n{residual.text} …\n```",
            ]
        )
    return "\n".join([f"**Residual** lhs − rhs ({where}):", "", math_block(residual.latex)])


def result_markdown(result: Result, level: int = 3, corrected: Claim | None = None) -> str:
    """A checked claim: statement, verdict, every evidence row (controls included), counterexample,
    the simplified residual of a refutation, and the correction."""
    lines = [claim_markdown(result.claim, level), ""]
    outcome = result.summary
    flag = "" if result.as_expected else " — **not as expected**"
    lines += [f"**Verdict: {result.verdict.value}** ({outcome}){flag}.", ""]
    lines += ["| check | outcome | what was covered |", "|---|---|---|"]
    for e in result.evidence:
        detail = e.detail.replace("|", r"\|")
        lines.append(f"| {e.kind} | {MARKS.get(e.status, e.status)} | {detail} |")
    for extra in (counterexample_markdown(result.counterexample), residual_markdown(result.residual)):
        if extra:
            lines += ["", extra]
    if corrected is not None:
        lines += ["", f"**Corrected form** (`{corrected.name}`):", "", math_block(corrected.statement)]
    return "\n".join(lines)


def derivation_markdown(result: DerivationResult, level: int = 3) -> str:
    """A derivation: the start, then each step with its justification, label and SymPy mark."""
    d = result.derivation
    line = f"*{d.source}* — **{result.verdict.value}** step by step"
    if not d.holds or not result.as_expected:
        line += f" ({result.summary})" + ("" if result.as_expected else " — **not as expected**")
    lines = [f"{'#' * level} {d.title}", "", line + ".", ""]
    if d.intro:
        lines += [d.intro, ""]
    lines += [math_block(sp.latex(d.start)), ""]
    for i, (step, mark) in enumerate(zip(d.steps, result.marks), start=1):
        label = f" ({step.label})" if step.label else ""
        lines += [f"{i}. {MARKS[mark.status]} — {step.why}{label}", "", math_block("= " + sp.latex(step.expr)), ""]
        if mark.witness:
            lines += [
                f"   {'Error' if mark.status == StepStatus.ERROR else 'Witness'}: `{json.dumps(mark.witness)}`",
                "",
            ]
    return "\n".join(lines).rstrip() + "\n"


def derivation_latex(result: DerivationResult) -> str:
    r"""A checked derivation as an ``align*`` block: one line per step, its justification and its mark.

    Marks: ``\checkmark`` proved, ``\times`` refuted (followed by the exact witness), ``?`` unproven.
    """
    d = result.derivation
    header = (
        rf"\paragraph{{{latex_text(d.title)}}} \textit{{{latex_text(d.source)}}} --- \textbf{{{result.verdict.value}}}"
    )
    header += f" step by step ({latex_text(result.summary)})."
    rows = [f"  &{sp.latex(d.start)}"]
    for step, mark in zip(d.steps, result.marks):
        why = step.why + (f" ({step.label})" if step.label else "")
        note = f"{LATEX_MARKS[mark.status]}\\ \\text{{{latex_text(why)}}}"
        if mark.status == StepStatus.REFUTED and mark.witness:
            note += r"\quad \text{at } " + _witness_latex(mark.witness)
        rows.append(f"  &= {sp.latex(step.expr)} && {note}")
    return "\n".join([header, r"\begin{align*}", " \\\\\n".join(rows), r"\end{align*}"])


def _witness_latex(witness: Mapping[str, str]) -> str:
    """``x = 1, y = 3`` and the non-zero difference, each value as SymPy prints it."""
    values = [f"{sp.latex(sp.Symbol(k))} = {_value_latex(v)}" for k, v in witness.items() if k != "difference"]
    difference = rf",\ \text{{difference }} {_value_latex(witness['difference'])}" if "difference" in witness else ""
    return ",\\ ".join(values) + difference


def _value_latex(value: str) -> str:
    try:
        return sp.latex(sp.sympify(value))
    except (sp.SympifyError, TypeError, SyntaxError):
        return rf"\text{{{latex_text(value)}}}"


def claim_latex(result: Result) -> str:
    """A checked claim for a paper: its name and source, the verdict in words, and the statement."""
    c = result.claim
    flag = "" if result.as_expected else r" --- \textbf{not as expected}"
    return "\n".join(
        [
            rf"\paragraph{{\texttt{{{latex_text(c.name)}}}}} \textit{{{latex_text(c.source)}}} --- "
            rf"\textbf{{{result.verdict.value}}} ({latex_text(result.summary)}){flag}.",
            r"\[",
            c.statement.strip(),
            r"\]",
        ]
    )


def results_markdown(results: Sequence[Result]) -> str:
    """A compact table of verdicts, for notebooks and the index."""
    lines = ["| claim | verdict | outcome | source |", "|---|---|---|---|"]
    for r in results:
        lines.append(f"| `{r.claim.name}` | {r.verdict.value} | {r.summary} | {r.claim.source} |")
    return "\n".join(lines)


display.register(Claim, claim_markdown)
display.register(Result, result_markdown)
display.register(DerivationResult, derivation_markdown)
display.register(Derivation, lambda derivation: derivation_markdown(derivation.check()))
