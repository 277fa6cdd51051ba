"""The kinds of statement, one module each behind :class:`~icl_verify.core.statements.base.StatementKind`:
``lhs = rhs`` (:mod:`.equality`, an induction over a recursion included), a bound ``lhs <= rhs``
(:mod:`.inequality`), an expectation over declared laws (:mod:`.expectation`) and an argmin
(:mod:`.argmin`). :func:`icl_verify.core.statement.statement` validates a statement and hands it to the
first kind that applies.
"""
