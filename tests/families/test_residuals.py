"""The reported lhs − rhs of a refutation covers every output the sides return.

Proposition 1 of von Oswald et al. (2023) with the query among the keys and values returns the context
tokens and the query token. Its error lies in both: (2η/N) W0 x_q x_qᵀ X in the context y-parts and
(2η/N) W0 x_q ‖x_q‖² in the query's (the corrected form's closed form), so at the numeric
counterexample X = 0 only the query part is non-zero. The residual shown in the report and the JSON
must not vanish there.
"""

from __future__ import annotations

import sympy as sp

from icl_verify import check
from icl_verify.families import lsa_gd


def _parts_at(text: str, values: dict, sizes: dict) -> list[sp.Matrix]:
    """The printed residual parts, each evaluated at the counterexample's values."""
    shapes = {"X": ("Nx", "N"), "Y": ("Ny", "N"), "W0": ("Ny", "Nx"), "x_q": ("Nx", None)}
    symbols = {k: sp.MatrixSymbol(k, sizes[r], sizes[c] if c else 1) for k, (r, c) in shapes.items()}
    expr = sp.sympify(text, locals={**symbols, "Matrix": sp.Matrix, "eta": sp.Symbol("eta")})
    subs = {symbols[k]: sp.Matrix(values[k]) for k in symbols} | {sp.Symbol("eta"): values["eta"]}
    return [sp.Matrix(part).subs(subs).doit() for part in expr]


def test_residual_of_query_in_keys_is_nonzero_at_its_counterexample():
    result = check(lsa_gd.PROP1_QUERY_IN_KEYS, max_examples=50)
    cex, residual = result.counterexample, result.residual
    assert cex["kind"] == "numeric" and residual is not None
    parts = _parts_at(residual.text, cex["values"], residual.sizes)
    assert len(parts) == 2  # context tokens and query token
    n = residual.sizes["N"]
    eta, (w0, x_q) = cex["values"]["eta"], (sp.Matrix(cex["values"][k]) for k in ("W0", "x_q"))
    query_error = 2 * sp.nsimplify(eta) / n * w0 * x_q * (x_q.T * x_q)[0]  # (2η/N) W0 x_q ‖x_q‖², the query's y-part
    assert sp.simplify(abs(parts[1][-1]) - abs(query_error[0])) == 0
    assert max(abs(float(v)) for p in parts for v in p) == cex["residual"]
    assert result.to_dict()["residual"]["text"] == residual.text  # the JSON shows the same parts
