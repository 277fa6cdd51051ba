"""Refutations in the documents and notebooks: every evidence row with its control, and the residual."""

from __future__ import annotations

import re

import numpy as np
import sympy as sp
from hypothesis import strategies as st
from sympy.matrices.expressions import MatrixSymbol

from icl_verify import Claim, Corrected, Numeric, Symbolic, check
from icl_verify.output import docs, render

n = sp.Symbol("n", positive=True, integer=True)
A, B = MatrixSymbol("A", n, n), MatrixSymbol("B", n, n)


def _refuted_commute():
    cases = st.just({"k": 2, "A": np.array([[0.0, 1.0], [0.0, 0.0]]), "B": np.array([[0.0, 0.0], [1.0, 0.0]])})
    return check(
        Claim(
            "commute",
            "s",
            "AB = BA",
            checks=(
                Symbolic(lambda: A * B - B * A),
                Numeric(
                    cases,
                    lambda c: (c["A"] @ c["B"], c["B"] @ c["A"]),
                ),
            ),
            holds=False,
            corrected=Corrected(numeric=lambda c: (np.trace(c["A"] @ c["B"]), np.trace(c["B"] @ c["A"]))),
        )
    )


def test_result_markdown_shows_every_row_the_counterexample_and_the_residual():
    text = render.result_markdown(_refuted_commute())
    assert "| symbolic | refuted | lhs − rhs ≠ 0 exactly at a random point with n = 2" in text  # the smallest
    assert "| numeric | refuted |" in text
    assert "| control | passed | numeric: the corrected form at the shrunk counterexample" in text
    assert "at sizes `k` = 2:" in text  # a size's name is code, not italic math
    assert re.search(r"> tolerance \$\d(\.\d+)? \\times 10\^\{-\d+\}\$\.", text)  # never 1.001e-09
    assert "**Residual** lhs − rhs (dimension-free):\n\n$$\n" + sp.latex(A * B - B * A) + "\n$$" in text


def test_a_failed_control_is_flagged_in_the_document():
    result = check(
        Claim(
            "root",
            "s",
            r"\sqrt{x}^2 = -x",
            checks=(
                Numeric(
                    st.just({"x": 2.0}),
                    lambda c: (np.sqrt(c["x"]) ** 2, -c["x"]),
                    rtol=0,
                    atol=0,
                ),
            ),
            holds=False,
            corrected=Corrected(numeric=lambda c: (np.sqrt(c["x"]) ** 2, c["x"])),
        )
    )
    text = render.result_markdown(result)
    assert "(refuted, but the control failed) — **not as expected**" in text
    assert "| control | failed |" in text


def test_skeleton_masks_control_details_but_keeps_their_outcome():
    row = "| control | passed | numeric: the corrected form at the shrunk counterexample, |lhs − rhs| = 3e-17 ≤ 1e-09 |"
    same = docs.skeleton(row.encode()) == docs.skeleton(row.replace("3e-17", "4e-17").encode())
    assert same
    assert docs.skeleton(row.encode()) != docs.skeleton(row.replace("passed", "failed").encode())
    residual = "$$\n6 \\alpha \\lambda w_{1}\n$$"
    assert docs.skeleton(residual.encode()) != docs.skeleton(residual.replace("6", "4").encode())
