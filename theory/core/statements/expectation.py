"""``E[lhs] = E[rhs]`` over random inputs declared with a law (``iv.gaussian``, ``iv.iid``), a side wrapped in
``iv.expect``: decided by the moment algebra for every size and at small sizes (:mod:`icl_verify.core.expectation`),
and measured by Monte Carlo.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hypothesis import strategies as st

from icl_verify.core.checks.base import Check
from icl_verify.core.checks.explicit import Explicit
from icl_verify.core.checks.symbolic import Symbolic
from icl_verify.core.expectation import (
    Expect,
    MomentExplicit,
    MomentSymbolic,
    MonteCarlo,
    RandomSpec,
    expected,
    explicit_entries,
    random_symbols,
    sample,
    samples_of,
)
from icl_verify.core.statements.base import Given, StatementKind
from icl_verify.core.symbols import (
    MatrixSpec,
    ScalarSpec,
    call,
    covariance_names,
    draw_spec,
    for_symmetric,
    inputs,
    randoms,
    size_names,
    size_strategies,
    size_symbol,
    symbolic_values,
    symmetric_names,
)
from icl_verify.errors import InvalidArgument
from icl_verify.maths.strategies import Dimension, reals, spd_matrices


def _check_laws(symbols: Mapping[str, Any], sides: Mapping[str, Any]) -> None:
    """Law parameters name declared symbols of the right kind; only ``iv.expect`` sides take random inputs."""
    for name, spec in randoms(symbols).items():
        for arg in ("cov", "variance", "kurtosis"):
            value = getattr(spec, arg)
            wanted = MatrixSpec if arg == "cov" else ScalarSpec
            if isinstance(value, str) and not isinstance(symbols.get(value), wanted):
                raise InvalidArgument(
                    f"symbols[{name!r}]: {arg}={value!r} must name a declared {wanted.__name__[:-4].lower()}"
                )
    for arg, side in sides.items():
        taken = set(randoms(symbols)) & set(inputs(side))
        if taken and not isinstance(side, Expect):
            raise InvalidArgument(f"{arg} takes the random input(s) {sorted(taken)}: wrap it in iv.expect(...)")


def _moment_residual(symbols: Mapping[str, Any], lhs: Any, rhs: Any, sizes: Mapping[str, Any]) -> Any:
    """E[lhs] − E[rhs] by the moment algebra, at symbolic or concrete sizes."""
    values = {**symbolic_values(symbols, sizes), **sizes}
    inputs, laws = random_symbols(randoms(symbols), sizes, values)
    values |= inputs
    return expected(lhs, values, laws, call) - expected(rhs, values, laws, call)


def _moment_forms(symbols: Mapping[str, Any], lhs: Any, rhs: Any) -> dict[str, Any]:
    """The counterpart of ``E[lhs] = E[rhs]`` for each check kind; covariances and ``spd`` matrices symmetric in each."""
    symmetric = symmetric_names(symbols)

    def symbolic() -> list[Any]:
        sizes = {n: size_symbol(n) for n in size_names(symbols)}
        return [for_symmetric(_moment_residual(symbols, lhs, rhs, sizes), symmetric)]

    def explicit(**sizes: int) -> list[Any]:
        return [explicit_entries(_moment_residual(symbols, lhs, rhs, sizes), symmetric)]

    def measured(case: Mapping[str, Any], n: int, rng: Any) -> tuple:
        values = dict(case) | {k: sample(spec, case, n, rng) for k, spec in randoms(symbols).items()}
        return samples_of(call(lhs, values), n), samples_of(call(rhs, values), n)

    return {Symbolic.kind: symbolic, Explicit.kind: explicit, MonteCarlo.kind: measured}


def _moment_cases(symbols: Mapping[str, Any], ranges: Mapping[str, Dimension]) -> st.SearchStrategy[dict]:
    """Sizes and deterministic symbols drawn as for equalities; covariances SPD, kurtoses at least 1."""
    dimensions = size_strategies(ranges)
    covariances = covariance_names(symbols)
    kurtoses = {s.kurtosis for s in randoms(symbols).values() if isinstance(s.kurtosis, str)}

    @st.composite
    def draw_case(draw) -> dict:
        case: dict[str, Any] = {name: draw(d) for name, d in dimensions.items()}
        for name, spec in symbols.items():
            if name in covariances:
                case[name] = draw(
                    spd_matrices(
                        case[spec.rows] if isinstance(spec.rows, str) else spec.rows,
                        min_eigenvalue=0.25,
                        max_eigenvalue=4.0,
                    )
                )
            elif name in kurtoses:
                case[name] = 1.0 + draw(reals(spec.bound, positive=True))
            elif not isinstance(spec, RandomSpec):
                case[name] = draw(draw_spec(spec, case))
        return case

    return draw_case()


def _expectation_checks(
    symbols: Mapping[str, Any],
    lhs: Any,
    rhs: Any,
    ranges: Mapping[str, Any],
    exact: list,
    *,
    symbolic: bool,
    explicit: bool,
) -> list[Check]:
    _check_laws(symbols, {"lhs": lhs, "rhs": rhs})
    forms = _moment_forms(symbols, lhs, rhs)
    checks: list[Check] = [MomentSymbolic(forms[Symbolic.kind])] if symbolic else []
    checks += [MomentExplicit(forms[Explicit.kind], exact)] if explicit else []
    iid = sorted(n for n, spec in randoms(symbols).items() if spec.law == "iid")
    only = (
        f"{', '.join(iid)} sampled from one three-point law; iv.iid declares every law of that variance and "
        "kurtosis, and laws agree on moments up to the fourth only"
    )
    checks.append(MonteCarlo(_moment_cases(symbols, ranges), forms[MonteCarlo.kind], only if iid else ""))
    return checks


class ExpectationStatement(StatementKind):
    """A statement over declared random inputs."""

    def applies(self, given: Given) -> bool:
        return bool(randoms(given.symbols))

    def forms(self, given: Given, rhs: Any) -> dict[str, Any]:
        return _moment_forms(given.symbols, given.lhs, rhs)

    def checks(self, given: Given) -> list[Check]:
        return _expectation_checks(
            given.symbols, given.lhs, given.rhs, given.ranges, given.exact,
            symbolic=given.symbolic, explicit=given.explicit,
        )  # fmt: skip

    def admit(self, given: Given, corrected: Any) -> None:
        _check_laws(given.symbols, {"corrected": corrected})
