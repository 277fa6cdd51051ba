"""Markdown (with LaTeX math) for claims, results and derivations — for docs and Jupyter — and LaTeX.

Math is written as ``$$ … $$`` display blocks and ``$…$`` inline, which GitHub and MkDocs
(pymdownx.arithmatex) both render. Measured estimates are printed to the precision their
interval supports, other numbers to 4 significant digits, and timings never.

For papers, :func:`claim_latex` writes a checked claim as an ``iclclaim`` environment (its source
the optional argument, a ``\\label`` to ``\\ref``, its statement in display math, the verdict, the
counterexample and residual of a refutation in math) and :func:`derivation_latex` a checked derivation
as a numbered list of steps (a mark of what SymPy found, the justification as text in which ``$…$`` is
math, the formula). They need the small preamble :data:`LATEX_PREAMBLE` (``amsmath``, ``amssymb``,
``amsthm``, ``graphicx``; the ``iclclaim`` environment and ``\\iclmath``, display math that fits the line
without scaling), which leaves a paper's own environments and theorem style alone, and their text is
ASCII (:func:`latex_text`), so they compile with pdfLaTeX as well as XeLaTeX or LuaLaTeX.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Mapping, Sequence
from typing import Any

import sympy as sp

from icl_verify.core import display
from icl_verify.core.checks.measured import format_interval
from icl_verify.core.claims import Claim, Result
from icl_verify.core.derivation import Derivation, DerivationResult
from icl_verify.core.evidence import MAX_RESIDUAL_CHARS, ControlStatus, Kind, Residual, Status, StepStatus

MARKS: dict[
    str, str
] = {  # words, not emoji: they read the same in every font, on the site, on GitHub and in a terminal
    Status.PROVED: "proved",
    Status.VERIFIED: "verified",
    Status.REFUTED: "refuted",
    Status.UNDECIDED: "undecided",
    StepStatus.UNPROVEN: "unproven",
    Status.ERROR: "error",
    ControlStatus.PASSED: "passed",  # control rows: the corrected form passes at the counterexample
    ControlStatus.FAILED: "failed",  # the corrected form fails too: the refutation is hollow
    ControlStatus.WAIVED: "waived",  # no corrected form exists (the claim says why)
    ControlStatus.MISSING: "missing",  # no control was given
}


LATEX_MARKS: dict[str, str] = {  # in math mode
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
    "ᵀ": r"\ensuremath{^\top}",
    "⊤": r"\ensuremath{^\top}",
    "→": r"\ensuremath{\to}",
    "←": r"\ensuremath{\leftarrow}",
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
    "∝": r"\ensuremath{\propto}",
    "∫": r"\ensuremath{\int}",
    "≪": r"\ensuremath{\ll}",
    "≫": r"\ensuremath{\gg}",
    "⊆": r"\ensuremath{\subseteq}",
    "∅": r"\ensuremath{\emptyset}",
    "⊂": r"\ensuremath{\subset}",
    "∼": r"\ensuremath{\sim}",
    "≡": r"\ensuremath{\equiv}",
    "⊗": r"\ensuremath{\otimes}",
    "∘": r"\ensuremath{\circ}",
    "∀": r"\ensuremath{\forall}",
    "∃": r"\ensuremath{\exists}",
    "⇒": r"\ensuremath{\Rightarrow}",
    "↦": r"\ensuremath{\mapsto}",
    "ℝ": r"\ensuremath{\mathbb{R}}",
    "ℓ": r"\ensuremath{\ell}",
    "—": "---",
    "–": "--",
    "’": "'",
    "‘": "`",
    "“": "``",
    "”": "''",
    "…": r"\ldots{}",
    "§": r"\ensuremath{\S}",
    "¶": r"\ensuremath{\P}",
    "½": r"\ensuremath{\tfrac12}",
    "°": r"\ensuremath{^\circ}",
    "⟨": r"\ensuremath{\langle}",
    "⟩": r"\ensuremath{\rangle}",
}
_LATEX_ACCENTS = {  # a combining mark (after NFD) → the text-mode accent command
    "\u0300": "`",
    "\u0301": "'",
    "\u0302": "^",
    "\u0303": "~",
    "\u0308": '"',
    "\u0327": "c",
    "\u030c": "v",
}


def latex_text(text: str) -> str:
    """``text`` for LaTeX's text mode, in ASCII: special characters escaped, Greek and common math symbols as ``\\ensuremath``.

    A letter with an accent gets the accent command (``ü`` → ``\\"{u}``); another character with no LaTeX
    spelling here is reduced to its ASCII base when it has one (``₀`` → ``0``), else shown as its code point (``[U+2603]``) — never passed through to break pdfLaTeX.
    """
    out, last = [], 0
    for m in _SCRIPT_RUN.finditer(text):
        out += ["".join(_latex_char(ch) for ch in text[last : m.start()]), _script_run(m[0])]
        last = m.end()
    return "".join([*out, *(_latex_char(ch) for ch in text[last:])])


_SUPERSCRIPTS = "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁿⁱ"
_SUBSCRIPTS = "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑₒₓₕₖₗₘₙₚₛₜ"
_SCRIPT_RUN = re.compile(f"[{_SUPERSCRIPTS}]+|[{_SUBSCRIPTS}]+")
_SCRIPT_ASCII = str.maketrans(_SUPERSCRIPTS + _SUBSCRIPTS, "0123456789+-=()ni" + "0123456789+-=()aeoxhklmnpst")


def _script_run(run: str) -> str:
    """A run of Unicode superscripts (``⁻¹``) or subscripts (``₀``) as one math script: ``\\ensuremath{^{-1}}``."""
    script = "^" if run[0] in _SUPERSCRIPTS else "_"
    return f"\\ensuremath{{{script}{{{run.translate(_SCRIPT_ASCII)}}}}}"


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
    decomposed = unicodedata.normalize("NFD", ch)
    if len(decomposed) == 2 and decomposed[0].isascii() and decomposed[1] in _LATEX_ACCENTS:
        return f"\\{_LATEX_ACCENTS[decomposed[1]]}{{{decomposed[0]}}}"  # ü → \"{u}
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


_SCRIPT = re.compile(r"(?<=\S)([\^_])\{((?:[^{}\n]|\{[^{}\n]*\})*)\}")
"""``^{…}`` or ``_{…}`` after a character (one level of inner braces): a superscript or subscript in prose."""
_VERBATIM = re.compile(
    r"(?ms)^(?P<fence>```|~~~).*?^(?P=fence)[^\n]*$"  # fenced code
    r"|\$\$.*?\$\$"  # display math
    r"|<!--.*?-->"  # comments
    r"|(?P<ticks>`+).+?(?P=ticks)"  # inline code
    r"|(?<![\\$])\$(?=\S)[^$\n]+?(?<![\s\\])\$(?!\d)"  # inline math
)


def prose_markdown(text: str) -> str:
    """``text`` (Markdown) with the superscripts and subscripts of its prose written ``<sup>``/``<sub>``.

    Prose such as ``κ = c₂ e^{−β₀}`` or ``X ∈ R^{Nx×N}`` is Unicode with TeX's script braces; outside
    math (``$…$``, ``$$…$$``), code and comments these become ``e<sup>−β₀</sup>``, which GitHub and the
    site both typeset, instead of showing the braces raw. Math and code are left as they are.
    """
    out, last = [], 0
    for m in _VERBATIM.finditer(text):
        out += [_scripts_html(text[last : m.start()]), m.group()]
        last = m.end()
    return "".join([*out, _scripts_html(text[last:])])


_STAR_MARK = re.compile(r"(?<![\w*\\])([^\W\d_][₀-₉]*)\*(?![\w*])")
"""A star that marks a symbol (``K*``, ``τ*``, ``η*``): after one letter, itself not after a word character or a star."""


def _scripts_html(prose: str) -> str:
    """``prose`` with TeX's script braces as ``<sup>``/``<sub>``, and a symbol's star escaped (two of them,
    ``K* … τ*``, would otherwise be read as emphasis and vanish)."""
    prose = _STAR_MARK.sub(r"\1\\*", prose)
    return _SCRIPT.sub(
        lambda m: f"<{'sup' if m[1] == '^' else 'sub'}>{m[2]}</{'sup' if m[1] == '^' else 'sub'}>", prose
    )


_INLINE_MATH = re.compile(r"(?<![\\$])\$(?=\S)([^$\n]+?)(?<![\s\\])\$(?!\d)")


def prose_latex(text: str) -> str:
    """Prose (a justification, a source, a caption) for LaTeX's text mode: ``$…$`` kept as math, ``^{…}`` and
    ``_{…}`` as ``\\textsuperscript``/``\\textsubscript``, the rest through :func:`latex_text`."""
    out, last = [], 0
    for m in _INLINE_MATH.finditer(text):
        out += [_scripts_latex(text[last : m.start()]), f"${m[1]}$"]
        last = m.end()
    return "".join([*out, _scripts_latex(text[last:])])


_SCRIPT_CHAR = re.compile(r"(?<=\S)(\^)([^\s{}\\^_$|,.;:()\[\]])")
"""``^β`` after a character: a one-character superscript without braces (``e^β``). Not ``_``, which is
part of identifiers such as ``n_demo``."""
_SCRIPTS_LATEX = re.compile(f"{_SCRIPT.pattern}|{_SCRIPT_CHAR.pattern}")


def _scripts_latex(prose: str) -> str:
    out, last = [], 0
    for m in _SCRIPTS_LATEX.finditer(prose):
        script, text = (m[1], m[2]) if m[1] else (m[3], m[4])
        command = "textsuperscript" if script == "^" else "textsubscript"
        out += [latex_text(prose[last : m.start()]), f"\\{command}{{{latex_text(text)}}}"]
        last = m.end()
    return "".join([*out, latex_text(prose[last:])])


def math_block(latex: str) -> str:
    return f"$$\n{latex.strip()}\n$$"


_E_NUMBER = re.compile(r"(?<![\w.])(-?\d+(?:\.\d+)?)e([-+]?)0*(\d+)(?![\w.])")


def latex_number(value: float | int | str) -> str:
    """A number for math mode, to 4 significant digits: ``3.001 \\times 10^{-9}``, never ``3.001e-09``.

    A string (e.g. an interval :func:`~icl_verify.core.checks.measured.format_interval` wrote) has each
    number in e-notation rewritten so; ``inf`` and ``nan`` become ``\\infty`` and ``\\mathrm{NaN}``.
    """
    text = _fmt(float(value)) if isinstance(value, int | float) and not isinstance(value, bool) else str(value)
    text = text.replace("inf", r"\infty").replace("nan", r"\mathrm{NaN}")
    return _E_NUMBER.sub(lambda m: f"{m[1]} \\times 10^{{{'-' if m[2] == '-' else ''}{m[3]}}}", text)


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
                f"**Counterexample** (shrunk by Hypothesis, seed {cex['seed']}){_at_sizes(_sizes_markdown(cex['sizes']))}:",
                "",
                "| name | value |",
                "|---|---|",
                *rows,
                "",
                f"$|\\mathrm{{lhs}} - \\mathrm{{rhs}}| = {latex_number(cex['residual'])}$ "
                f"> tolerance ${latex_number(cex['tolerance'])}$.",
            ]
        )
    if cex["kind"] in (Kind.EXPLICIT, Kind.SYMBOLIC):
        values = ", ".join(f"${sp.latex(sp.Symbol(k))} = {v}$" for k, v in cex["values"].items())
        where = _at_sizes(_sizes_markdown(cex["sizes"]))
        return f"**Counterexample** (exact){where}{' with ' + values if values else ''}: residual `{cex['exact_residual']}`."
    values = cex["values"]
    return (
        f"**Counterexample** (measured, seed {cex['seed']}): estimate "
        f"{format_interval(values['estimate'], *values['interval'])} excludes {_fmt(values['predicted'])} "
        f"± {_fmt(cex['tolerance'])}."
    )


def measurement_markdown(m: Mapping[str, Any] | None) -> str:
    """A measured row's verdict as data, on one line after the evidence table: estimand, estimate and interval,
    the interval's level and α per side, and the test; empty for a row that is not measured."""
    if m is None:
        return ""
    if m["test"] == "equivalence":
        test = f"equivalence test of |θ − {_fmt(m['predicted'])}| ≤ {_fmt(m['tolerance'])}"
    else:
        test = f"one-sided test of θ {'≤' if m['test'] == 'at most' else '≥'} {_fmt(m['predicted'])}"
    level = (
        "interval of no stated level, no error rate claimed"
        if m["level"] is None
        else f"{m['level']:.4g} interval, α = {m['alpha_per_side']:.3g} per side"
    )
    what = m["estimand"] or "the measured quantity"
    return f"\n*Measurement:* θ = {what}; {format_interval(m['estimate'], *m['interval'])} ({level}); {test}."


def _at_sizes(sizes: str) -> str:
    """`` at sizes …`` — nothing when a counterexample has no sizes."""
    return f" at sizes {sizes}" if sizes else ""


def _sizes_markdown(sizes: Mapping[str, Any]) -> str:
    """``n_demo`` = 1, ``d`` = 2: a size's name is code (an identifier, not italic math)."""
    return ", ".join(f"`{k}` = {v}" for k, v in sizes.items())


def residual_markdown(residual: Residual | None) -> str:
    """The simplified lhs − rhs of a refuted claim: display math, or code when it was truncated."""
    if residual is None:
        return ""
    where = "dimension-free" if residual.sizes is None else f"at sizes {_sizes_markdown(residual.sizes)}"
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
        lines.append(f"| {e.kind} | {MARKS.get(e.status, e.status)} | {table_cell(e.detail)} |")
    lines += [line for e in result.evidence if (line := measurement_markdown(e.measurement))]
    for extra in (counterexample_markdown(result.counterexample), residual_markdown(result.residual)):
        if extra:
            lines += ["", extra]
    if result.traceback:
        where = f" (claim defined at `{result.claim.defined_at}`)" if result.claim.defined_at else ""
        lines += ["", f"**Traceback**{where}:", "", "```text", result.traceback, "```"]
    if corrected is not None:
        lines += ["", f"**Corrected form** (`{corrected.name}`):", "", math_block(corrected.statement)]
    return "\n".join(lines)


_TRAILING_BRACES = re.compile(r"(?<![\^_\\])\{([^{}\n]*)\}(\s*)$")
"""A ``{…}`` group that ends a cell (not a script's ``^{…}``): what attr_list would take for an attribute list."""


def table_cell(text: str) -> str:
    """``text`` for a Markdown table cell: ``|`` escaped, and a ``{…}`` that ends it too, so that sizes such as
    ``at {'Nx': 1}`` are not read as an attribute list (attr_list) and dropped; script braces are left alone."""
    return _TRAILING_BRACES.sub(r"\\{\1\\}\2", text.replace("|", r"\|"))


def derivation_markdown(result: DerivationResult, level: int = 3) -> str:
    """A derivation: the start, then each step with its justification, label and SymPy mark — a numbered list
    whose items hold their formula and witness (indented), so it numbers 1, 2, 3…"""
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
        lines += [
            f"{i}. **{MARKS[mark.status]}** — {step.why}{label}",
            "",
            _indented(math_block("= " + sp.latex(step.expr))),
            "",
        ]
        if mark.witness:
            lines += [
                f"    {'Error' if mark.status == StepStatus.ERROR else 'Witness'}: `{json.dumps(mark.witness)}`",
                "",
            ]
    return "\n".join(lines).rstrip() + "\n"


def _indented(block: str) -> str:
    """``block`` indented by four spaces: a list item's continuation, so the steps number 1, 2, 3… in Markdown."""
    return "\n".join("    " + line for line in block.splitlines())


LATEX_PREAMBLE = r"""\RequirePackage{amsmath,amssymb,amsthm,graphicx}
% mathtools' psmallmatrix, which some statements use, unless the document loads mathtools itself.
\AtBeginDocument{\ifcsname psmallmatrix\endcsname\else
  \newenvironment{psmallmatrix}{\left(\begin{smallmatrix}}{\end{smallmatrix}\right)}\fi}
% iclclaim: a checked claim, numbered "Claim 1", "Claim 2"... Its own name, so that it never clashes with a
% document's claim or theorem; in amsthm's definition style, and the document's \theoremstyle restored after.
\makeatletter
\edef\icl@theoremstyle{\the\thm@style}
\theoremstyle{definition}
\newtheorem{iclclaim}{Claim}
\thm@style\expandafter{\icl@theoremstyle}
% \iclmath{formula}: display math that fits the line without scaling it. In display style at the text's size
% when it fits; else at the first smaller font size where it fits (\small, \footnotesize, \scriptsize); else as
% a paragraph of math in \scriptsize that breaks after its = and + signs and its \quad spaces.
\newsavebox{\icl@box}
\newcommand{\icl@fit}[2]{\ifdim\wd\icl@box>\linewidth\sbox{\icl@box}{#1$\displaystyle #2$}\fi}
\newcommand{\iclmath}[1]{\par{\centering\sbox{\icl@box}{$\displaystyle #1$}%
  \icl@fit\small{#1}\icl@fit\footnotesize{#1}\icl@fit\scriptsize{#1}%
  \ifdim\wd\icl@box>\linewidth{\scriptsize\def\quad{\hskip1em\allowbreak}\raggedright$\displaystyle #1$\par}%
  \else\usebox{\icl@box}\fi
  \par}}
\makeatother
"""
r"""What the LaTeX export needs (``amsmath``, ``amssymb``, ``amsthm``, ``graphicx``; the theorem-like ``iclclaim``
environment, which leaves the document's ``\theoremstyle`` as it was): written as ``iclverify.sty`` beside the
fragments, or into a ``--standalone`` document's preamble."""


def derivation_latex(result: DerivationResult) -> str:
    r"""A checked derivation: its start, then a numbered list of steps, each its mark and justification above its
    formula (``\iclmath``, which fits the line without scaling).

    Marks: ``\checkmark`` proved, ``\times`` refuted (followed by the exact witness), ``?`` unproven; a
    justification's ``$…$`` is math.
    """
    d = result.derivation
    header = rf"\paragraph{{{prose_latex(d.title)}}} {{\raggedright\textit{{{prose_latex(d.source)}}} --- "
    header += rf"\textbf{{{result.verdict.value}}} step by step ({latex_text(result.summary)}).\par}}"
    lines = [header, rf"\iclmath{{{sp.latex(d.start)}}}", r"\begin{enumerate}"]
    for step, mark in zip(d.steps, result.marks):
        why = prose_latex(step.why) + (f" ({prose_latex(step.label)})" if step.label else "")
        note = f"${LATEX_MARKS[mark.status]}$ {why}"
        if mark.status == StepStatus.REFUTED and mark.witness:
            note += r" at $" + _witness_latex(mark.witness) + "$"
        lines += [rf"  \item {{\raggedright {note}\par}}", rf"  \iclmath{{= {sp.latex(step.expr)}}}"]
    return "\n".join([*lines, r"\end{enumerate}"])


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
    r"""A checked claim for a paper: a ``claim`` environment with its source, its name, the statement in display
    math, the verdict, and for a refutation the counterexample and the simplified residual in math."""
    c = result.claim
    printed = "" if c.holds else " (this form is expected to be false)"
    flag = "" if result.as_expected else r" --- \textbf{not as expected}"
    lines = [
        rf"\begin{{iclclaim}}[{{{prose_latex(c.source)}}}]\label{{{claim_label(c.name)}}}"
        rf"\raggedright\hfill\texttt{{{latex_text(c.name)}}}",
        rf"\iclmath{{{_ascii(c.statement.strip())}}}",
        rf"\textit{{Verdict:}} {latex_text(result.summary)}{printed}{flag}.",
    ]
    if c.note:
        lines.append(prose_latex(c.note))
    for extra in (counterexample_latex(result.counterexample), residual_latex(result.residual)):
        if extra:
            lines += ["", extra]
    return "\n".join([*lines, r"\end{iclclaim}"])


def claim_label(name: str) -> str:
    """The ``\\label`` of a claim in LaTeX: ``claim:`` and its name, so that a paper can ``\\ref`` it."""
    return f"claim:{name}"


def _ascii(latex: str) -> str:
    """LaTeX source written for MathJax, with each non-ASCII character spelled as :func:`latex_text` does (an en
    dash in ``\\text{log–log}`` becomes ``--``), so that pdfLaTeX reads it whatever the input encoding."""
    return "".join(ch if ch.isascii() else latex_text(ch) for ch in latex)


def _name_latex(name: str) -> str:
    """A value's or a size's name, upright and in typewriter (an identifier, not a product of italic letters)."""
    return rf"\texttt{{{latex_text(name)}}}"


def json_latex(value: Any) -> str:
    """A JSON value (a counterexample's) in math: numbers as :func:`latex_number`, lists as row vectors,
    lists of lists as matrices; anything deeper as text."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return rf"\text{{{latex_text(json.dumps(value))}}}"
    if isinstance(value, int | float):
        return latex_number(value)
    if all(isinstance(v, int | float) and not isinstance(v, bool) for v in value):
        return r"\begin{pmatrix}" + " & ".join(latex_number(v) for v in value) + r"\end{pmatrix}"
    if all(isinstance(row, list) and all(isinstance(v, int | float) for v in row) for row in value):
        rows = (" & ".join(latex_number(v) for v in row) for row in value)
        return r"\begin{pmatrix}" + r" \\ ".join(rows) + r"\end{pmatrix}"
    return rf"\text{{{latex_text(json.dumps(value))}}}"


def _sizes_latex(sizes: Mapping[str, Any]) -> str:
    return ", ".join(f"{_name_latex(k)} $= {v}$" for k, v in sizes.items())


def counterexample_latex(cex: dict[str, Any] | None) -> str:
    """A refutation's counterexample for LaTeX: its values and residual (or estimate) in math."""
    if cex is None:
        return ""
    if cex["kind"] == Kind.NUMERIC:
        values = [rf"\iclmath{{{_name_latex(k)} = {json_latex(v)}}}" for k, v in cex["values"].items()]
        return "\n".join(
            [
                rf"Counterexample (shrunk by Hypothesis, seed {cex['seed']}){_at_sizes(_sizes_latex(cex['sizes']))}:",
                *values,
                rf"where $|\mathrm{{lhs}} - \mathrm{{rhs}}| = {latex_number(cex['residual'])}$ "
                rf"$>$ tolerance ${latex_number(cex['tolerance'])}$.",
            ]
        )
    if cex["kind"] in (Kind.EXPLICIT, Kind.SYMBOLIC):
        where = _at_sizes(_sizes_latex(cex["sizes"]))
        named = ",\\ ".join(f"{sp.latex(sp.Symbol(k))} = {_value_latex(str(v))}" for k, v in cex["values"].items())
        at = f" with ${named}$" if named else ""
        return rf"Counterexample (exact){where}{at}: residual ${_value_latex(str(cex['exact_residual']))}$."
    values = cex["values"]
    estimate = latex_number(format_interval(values["estimate"], *values["interval"]))
    return (
        rf"Counterexample (measured, seed {cex['seed']}): estimate ${estimate}$ excludes "
        rf"${latex_number(values['predicted'])} \pm {latex_number(cex['tolerance'])}$."
    )


def residual_latex(residual: Residual | None) -> str:
    """The simplified lhs − rhs of a refuted claim in display math; as text when it was truncated."""
    if residual is None:
        return ""
    where = "dimension-free" if residual.sizes is None else f"at sizes {_sizes_latex(residual.sizes)}"
    if residual.truncated:
        return (
            rf"Residual lhs $-$ rhs ({where}; first {MAX_RESIDUAL_CHARS} characters): "
            rf"{{\small\texttt{{{latex_text(residual.text)}}}}}\ldots"
        )
    return rf"Residual lhs $-$ rhs ({where}):" + "\n" + rf"\iclmath{{{residual.latex}}}"


def results_markdown(results: Sequence[Result]) -> str:
    """A compact table of verdicts, for notebooks and the index."""
    lines = ["| claim | verdict | outcome | source |", "|---|---|---|---|"]
    for r in results:
        lines.append(f"| `{r.claim.name}` | {r.verdict.value} | {r.summary} | {table_cell(r.claim.source)} |")
    return "\n".join(lines)


display.register(Claim, claim_markdown)
display.register(Result, result_markdown)
display.register(DerivationResult, derivation_markdown)
display.register(Derivation, lambda derivation: derivation_markdown(derivation.check()))
