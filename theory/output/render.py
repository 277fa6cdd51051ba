"""Markdown (with LaTeX math) for claims, results and derivations — for docs and Jupyter.

Math is written as ``$$ … $$`` display blocks and ``$…$`` inline, which GitHub and MkDocs
(pymdownx.arithmatex) both render. Measured estimates are printed to the precision their
interval supports, other numbers to 4 significant digits, and timings never.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import sympy as sp

from icl_verify.engine import display
from icl_verify.engine.claims import MAX_RESIDUAL_CHARS, Claim, Residual, Result, format_interval
from icl_verify.engine.derivation import Derivation, DerivationResult

MARKS = {
    "proved": "✅ proved",
    "verified": "✔️ verified",
    "refuted": "❌ refuted",
    "undecided": "❔ undecided",
    "unproven": "❔ unproven",
    "error": "💥 error",
    "passed": "✅ passed",  # control rows: the corrected form passes at the counterexample
    "failed": "❌ failed",  # the corrected form fails too: the refutation is hollow
    "waived": "➖ waived",  # no corrected form exists (the claim says why)
    "missing": "⚠️ missing",  # no control was given
}


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
    if cex["kind"] == "numeric":
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
    if cex["kind"] in ("explicit", "symbolic"):
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
    lines = [f"{'#' * level} {d.title}", "", f"*{d.source}* — **{result.verdict.value}** step by step.", ""]
    if d.intro:
        lines += [d.intro, ""]
    lines += [math_block(sp.latex(d.start)), ""]
    for i, (step, mark) in enumerate(zip(d.steps, result.marks), start=1):
        label = f" ({step.label})" if step.label else ""
        lines += [f"{i}. {MARKS[mark.status]} — {step.why}{label}", "", math_block("= " + sp.latex(step.expr)), ""]
        if mark.witness:
            lines += [f"   Witness: `{json.dumps(mark.witness)}`", ""]
    return "\n".join(lines).rstrip() + "\n"


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
