"""The interface of a kind of statement, and what :func:`~icl_verify.core.statement.statement` hands it.

Each kind (an equality, a bound, an expectation, an argmin) is one module of this package with one
:class:`StatementKind`: whether it applies to the statement, the checks it derives, and the counterpart
of each check for another right-hand side (the corrected form's). A new kind of statement is a new
module and one entry in :data:`~icl_verify.core.statement.KINDS`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from icl_verify.core.checks.base import Check
from icl_verify.core.induction import IntegerSpec
from icl_verify.core.symbols import Spec, cases


@dataclass(frozen=True)
class Given:
    """A statement as :func:`~icl_verify.core.statement.statement` validated it."""

    symbols: Mapping[str, Spec]  # the declared matrices, scalars and random inputs (the integers apart)
    integers: Mapping[str, IntegerSpec]
    lhs: Any
    rhs: Any
    ranges: Mapping[str, Any]  # each size's and integer's numeric range
    exact: list  # the sizes of the explicit check
    rtol: float
    timeout: float
    relation: str
    symbolic: bool
    explicit: bool

    def cases(self) -> st.SearchStrategy:
        """The numeric checks' draws: sizes in their ranges, then every declared symbol at those sizes."""
        return cases(self.symbols, self.ranges)


class StatementKind(ABC):
    """One kind of statement: when it applies, its checks, and the counterpart of each for another rhs."""

    @abstractmethod
    def applies(self, given: Given) -> bool:
        """Whether ``given`` is a statement of this kind (the kinds are tried in order)."""

    @abstractmethod
    def forms(self, given: Given, rhs: Any) -> dict[str, Any]:
        """``lhs`` against ``rhs`` for each check kind, by the check's ``kind`` (a corrected form passes its own rhs)."""

    @abstractmethod
    def checks(self, given: Given) -> list[Check]:
        """The checks of the statement as given."""

    def admit(self, given: Given, corrected: Any) -> None:  # noqa: B027  (most kinds need nothing more)
        """Raise :class:`~icl_verify.errors.InvalidArgument` for a ``corrected`` side this kind cannot take."""
