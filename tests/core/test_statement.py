"""One statement, every check: the symbolic, explicit and numeric checks derived from lhs = rhs."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings

import icl_verify as iv
from icl_verify.blocks import (
    gd_step,
    inverse,
    lsa_prediction,
    regression_symbols,
    softmax_attention,
    theta_gd,
    trace,
)
from icl_verify.core.checks.numeric import compare_with_tolerance
from icl_verify.core.symbols import cases
from icl_verify.maths.symbolic import is_zero


def _gd_prediction(X, Y, W0, x_q, eta):
    return gd_step(W0, X, Y, eta) @ x_q


def _query_in_keys(X, Y, W0, x_q, eta, N):
    return lsa_prediction(theta_gd(W0, eta, N), X, Y, x_q, W0, include_query=True)


def _query_in_keys_corrected(X, Y, W0, x_q, eta, N):
    """The query among the keys adds −(2η/N) W0 x_q ‖x_q‖² to the prediction (worked out by hand)."""
    return gd_step(W0, X, Y, eta) @ x_q - (2 * eta / N) * W0 @ x_q @ x_q.T @ x_q


PROP1 = iv.statement(
    "prop1-statement",
    "von Oswald et al. 2023, Proposition 1",
    r"\hat y_q = (W_0 + \Delta W) x_q",
    symbols=regression_symbols(),
    lhs=lambda X, Y, W0, x_q, eta, N: lsa_prediction(theta_gd(W0, eta, N), X, Y, x_q, W0),
    rhs=_gd_prediction,
)

QUERY_IN_KEYS = iv.statement(
    "query-in-keys-statement",
    "von Oswald et al. 2023, Proposition 1 with the query among the keys",
    r"\hat y_q = (W_0 + \Delta W) x_q",
    symbols=regression_symbols(w0="nonzero"),
    lhs=_query_in_keys,
    rhs=_gd_prediction,
    holds=False,
    corrected=_query_in_keys_corrected,
    correction="prop1-statement",
)


def test_a_true_statement_gets_all_three_checks_and_is_proved():
    result = iv.check(PROP1, max_examples=30)
    assert [(e.kind, e.status) for e in result.evidence] == [
        ("symbolic", "proved"),
        ("explicit", "verified"),
        ("numeric", "verified"),
    ]
    assert result.verdict is iv.Verdict.PROVED


def test_a_false_statement_is_refuted_at_the_smallest_sizes_with_controls_that_pass():
    result = iv.check(QUERY_IN_KEYS, max_examples=30)
    assert result.verdict is iv.Verdict.REFUTED and result.as_expected
    statuses = {e.kind: e.status for e in result.evidence}
    assert statuses["explicit"] == statuses["numeric"] == "refuted"
    cex = result.counterexample
    assert cex["sizes"] == {"Nx": 1, "Ny": 1, "N": 1}
    case = cex["sizes"] | {k: np.array(v) if isinstance(v, list) else v for k, v in cex["values"].items()}
    # the O(1) error is exactly the term the corrected form adds: 2η/N · |W0 x_q| x_q²
    np.testing.assert_allclose(cex["residual"], 2 * case["eta"] * abs(case["W0"][0, 0]) * case["x_q"][0, 0] ** 2)
    corrected = QUERY_IN_KEYS.corrected
    assert corrected.claim == "prop1-statement" and corrected.kinds == ("symbolic", "explicit", "numeric")
    numeric = QUERY_IN_KEYS.checks[-1]
    ok, _, _ = compare_with_tolerance(corrected.form("numeric")(case), numeric.rtol, 0.0)
    assert ok
    assert all(is_zero(r) for r in corrected.form("explicit")(Nx=1, Ny=1, N=1))
    assert all(is_zero(r) for r in corrected.form("symbolic")())
    controls = [e for e in result.evidence if e.kind == "control"]
    assert [(e.status, e.detail.split(":")[0]) for e in controls] == [
        ("passed", "explicit"),
        ("passed", "numeric"),
        ("passed", "symbolic"),
    ]


def test_a_wrong_correction_fails_its_control():
    wrong = iv.statement(
        "wrong-correction",
        "test",
        "x",
        symbols=regression_symbols(w0="nonzero"),
        lhs=_query_in_keys,
        rhs=_gd_prediction,
        holds=False,
        corrected=lambda X, Y, W0, x_q, eta, N: gd_step(W0, X, Y, eta) @ x_q - (eta / N) * W0 @ x_q @ x_q.T @ x_q,
    )
    case = {"Nx": 1, "Ny": 1, "N": 1, "X": np.zeros((1, 1)), "Y": np.zeros((1, 1)), "W0": np.ones((1, 1))}
    case |= {"x_q": np.ones((1, 1)), "eta": 1.0}
    assert not compare_with_tolerance(wrong.corrected.form("numeric")(case), wrong.checks[-1].rtol, 0.0)[0]
    assert is_zero(wrong.corrected.form("explicit")(Nx=1, Ny=1, N=1)[0]) is not True


def test_sizes_are_fixed_or_ranged_and_nonzero_matrices_are_never_zero():
    symbols = regression_symbols(w0="nonzero")

    @settings(max_examples=40, deadline=None)
    @given(cases(symbols, {"Nx": 2, "Ny": 1, "N": (1, 3)}))
    def drawn(case):
        assert (case["Nx"], case["Ny"]) == (2, 1) and 1 <= case["N"] <= 3
        assert case["X"].shape == (2, case["N"]) and case["W0"].shape == (1, 2) and case["x_q"].shape == (2, 1)
        assert np.any(case["W0"] != 0) and case["eta"] > 0

    drawn()


def test_symbol_assumptions_reach_sympy():
    claim = iv.statement(
        "abs-of-positive",
        "test",
        "|a| = a",
        symbols={"a": iv.scalar(positive=True), "M": iv.matrix(1, 1)},
        lhs=lambda a, M: sp.Abs(a) * M if isinstance(a, sp.Basic) else abs(a) * M,
        rhs=lambda a, M: a * M,
    )
    assert iv.check(claim, max_examples=20).verdict is iv.Verdict.PROVED


def test_numeric_only_statement_with_concrete_sizes():
    """Softmax needs concrete sizes: symbolic=False keeps the explicit and numeric checks."""
    claim = iv.statement(
        "softmax-of-equal-scores-is-the-mean",
        "test",
        r"\mathrm{softmax}(0)^\top V = \bar v",
        symbols={"V": iv.matrix("d", "n"), "K": iv.matrix("k", "n", bound=1.0)},
        lhs=lambda V, K: softmax_attention(V, K, np.zeros((K.shape[0], 1))),
        rhs=lambda V, n: V @ np.ones((V.shape[1], 1)) / n,
        symbolic=False,
        explicit=False,
    )
    assert iv.check(claim, max_examples=30).verdict is iv.Verdict.VERIFIED


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"lhs": lambda X, Z: X}, "lhs takes 'Z'"),
        ({"rhs": 3}, "rhs must be a function"),
        ({"symbols": {}}, "symbols must be a non-empty dict"),
        ({"symbols": {"X": (2, 2)}}, r"symbols\['X'\] must be iv.matrix"),
        ({"holds": False}, "needs exactly one of corrected"),
        ({"no_control": "none"}, "for statements expected to be false"),
        ({"holds": False, "no_control": "none", "correction": "x"}, "give its rhs as corrected too"),
        ({"sizes": {"Q": 2}}, r"sizes names \['Q'\]"),
        ({"sizes": {"N": (3, 1)}}, r"sizes\['N'\] must be a positive int or a \(low, high\) pair"),
        ({"explicit_sizes": {"N": []}}, r"explicit_sizes\['N'\] must be a non-empty list"),
        (
            {"symbols": {"N": iv.matrix("N", 1)}, "lhs": lambda N: N, "rhs": lambda N: N},
            "name both a symbol and a size",
        ),
    ],
)
def test_bad_input_names_the_argument(kwargs, message):
    base = {"symbols": {"X": iv.matrix("N", "N")}, "lhs": lambda X: X, "rhs": lambda X: X}
    with pytest.raises(ValueError, match=message):
        iv.statement("bad", "test", "x", **{**base, **kwargs})


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: iv.matrix("N", 0), "cols must be a size name or a positive integer"),
        (lambda: iv.matrix("N x", 1), "rows must be a size name that is a Python identifier"),
        (lambda: iv.scalar(bound=-1.0), "bound must be a positive finite number"),
    ],
)
def test_bad_declarations_name_the_argument(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_each_statement_goes_to_the_first_kind_that_applies():
    """statement() hands a statement to the first kind in KINDS that applies: argmin, expectation, bound, equality."""
    from icl_verify.core.statement import KINDS
    from icl_verify.core.statements.base import Given

    x = {"x": iv.scalar()}
    given = lambda symbols, lhs, relation="=": Given(symbols, {}, lhs, None, {}, [], 0.0, 1.0, relation, True, True)  # noqa: E731
    loss = iv.argmin(lambda x, eta: (eta - x) ** 2, over="eta")
    chosen = {
        "argmin": given(x | {"eta": iv.scalar()}, loss),
        "expectation": given({"z": iv.gaussian("n", cov=1)}, iv.expect(lambda z: z.T @ z)),
        "inequality": given(x, lambda x: x, "<="),
        "equality": given(x, lambda x: x),
    }
    for name, statement in chosen.items():
        kind = next(k for k in KINDS if k.applies(statement))
        assert type(kind).__name__.lower() == f"{name}statement"


def test_a_numeric_check_says_where_it_drew_the_scalars_from():
    """The evidence of a search names each declared scalar's interval, exclusions included."""
    claim = iv.statement(
        "drawn", "t", "s", symbols={"eta": iv.scalar(positive=True, high=3), "c": iv.scalar(nonzero=True)},
        lhs=lambda eta, c: eta * c, rhs=lambda eta, c: c * eta, symbolic=False, explicit=False,
    )  # fmt: skip
    (numeric,) = iv.check(claim, max_examples=10).evidence
    assert numeric.status == "verified"
    assert "scalars drawn from eta∈(0,3], |c|∈[0.0625,2]" in numeric.detail
    bound = iv.statement("drawn-bound", "t", "s", symbols={"x": iv.scalar(low=-1, high=1, exclude=(0.5,))},
                         lhs=lambda x: x * x, rhs=lambda x: 1, relation="<=", timeout=0.01)  # fmt: skip
    assert any("x∈[-1,1]∖{0.5}" in e.detail for e in iv.check(bound, max_examples=10).evidence if e.kind == "numeric")


def _hat_trace(X, d):
    """tr X(XᵀX)⁻¹Xᵀ = d: defined only where XᵀX is invertible, n ≥ d."""
    return trace(X @ inverse(X.T @ X) @ X.T)


def test_a_size_where_every_draw_is_undefined_names_sizes_as_the_way_out():
    """With n < d every draw is singular: an error that says to draw only the sizes where the sides are defined;
    drawing n ≥ d (sizes=) then proves it. The explicit check decides it exactly at n = 1, d = 2 (XᵀX has
    determinant 0 for every X), on every Hypothesis release; the numeric search, whose draws per size depend on
    the release, says so too when it puts enough draws at one such size."""
    statement = dict(symbols={"X": iv.matrix("n", "d")}, lhs=_hat_trace, rhs=lambda d: d)
    result = iv.check(iv.statement("hat", "t", "s", **statement), max_examples=30)
    explicit = next(e for e in result.evidence if e.kind == "explicit")
    assert result.verdict is iv.Verdict.ERROR and explicit.status == "error"
    assert "undefined at every point of size {'n': 1, 'd': 2}" in explicit.detail
    assert "sizes={'n': (2, 4)} and explicit_sizes={'n': [2]}" in explicit.detail
    numeric = next(e for e in result.evidence if e.kind == "numeric")
    assert numeric.status != "error" or "sizes={'n': (2, 4)}" in numeric.detail
    drawn = iv.statement("hat", "t", "s", sizes={"n": (2, 4), "d": (1, 2)}, explicit_sizes={"n": [2], "d": [1, 2]},
                         **statement)  # fmt: skip
    assert iv.check(drawn, max_examples=30).verdict is iv.Verdict.PROVED
