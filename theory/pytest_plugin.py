"""A pytest plugin: module-level claims in test files run as ordinary tests.

Installed with icl-verify (entry point ``pytest11``). In any collected test module, every
module-level :class:`~icl_verify.core.claims.Claim` becomes a test item that passes exactly when the
claim reaches its expected verdict — PROVED / VERIFIED for a true claim, REFUTED for one
declared ``holds=False``; UNPROVEN and ERROR always fail. Every module-level
:class:`~icl_verify.core.derivation.Derivation` becomes one test item too, passing exactly when
it reaches its expected verdict (PROVED, or REFUTED for ``holds=False``), its steps and their marks
shown when it fails. Options: ``--icl-seed`` and ``--icl-max-examples``.
"""

from __future__ import annotations

import pytest

from icl_verify.core.claims import Claim, Result, check
from icl_verify.core.derivation import Derivation, DerivationResult
from icl_verify.output.report import derivations_table, table


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("icl-verify")
    group.addoption("--icl-seed", type=int, default=0, help="seed for claims' random searches (default 0)")
    group.addoption("--icl-max-examples", type=int, default=100, help="random cases per claim (default 100)")


@pytest.hookimpl(tryfirst=True)
def pytest_pycollect_makeitem(collector: pytest.Collector, name: str, obj: object) -> pytest.Item | None:
    if isinstance(obj, Claim) and isinstance(collector, pytest.Module):
        return ClaimItem.from_parent(collector, name=obj.name, claim=obj)
    if isinstance(obj, Derivation) and isinstance(collector, pytest.Module):
        return DerivationItem.from_parent(collector, name=obj.name, derivation=obj)
    return None


class ClaimFailure(Exception):
    def __init__(self, result: Result | DerivationResult) -> None:
        super().__init__(result.summary)
        self.result = result


class ClaimItem(pytest.Item):
    """One claim, checked with the session's seed and example budget."""

    def __init__(self, *, claim: Claim, **kwargs) -> None:
        super().__init__(**kwargs)
        self.claim = claim

    def runtest(self) -> None:
        result = check(
            self.claim,
            seed=self.config.getoption("icl_seed"),
            max_examples=self.config.getoption("icl_max_examples"),
        )
        if not result.as_expected:
            raise ClaimFailure(result)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style=None) -> str:
        if isinstance(excinfo.value, ClaimFailure):
            return f"claim {self.claim.name!r}: {excinfo.value.result.summary}\n" + table([excinfo.value.result])
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple:
        return self.path, None, f"claim {self.claim.name}"


class DerivationItem(pytest.Item):
    """One derivation, every step checked by SymPy."""

    def __init__(self, *, derivation: Derivation, **kwargs) -> None:
        super().__init__(**kwargs)
        self.derivation = derivation

    def runtest(self) -> None:
        result = self.derivation.check()
        if not result.as_expected:
            raise ClaimFailure(result)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style=None) -> str:
        if isinstance(excinfo.value, ClaimFailure):
            result = excinfo.value.result
            return f"derivation {self.derivation.name!r}: {result.summary}\n" + derivations_table([result])
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple:
        return self.path, None, f"derivation {self.derivation.name}"
