"""The checks of a claim: the :class:`~icl_verify.core.checks.base.Check` abstraction and the built-in
kinds, each a small declaration around it (symbolic, explicit, numeric, measured).
"""
