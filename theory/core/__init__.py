"""The claim core: a claim and its checks, evidence and verdicts, derivations, statements written
once as ``lhs = rhs``, the claims ledger, figures as data and memoisation.

It imports no running infrastructure, family, output module or command: rendering registers itself
(:mod:`icl_verify.core.display`).
"""
