"""The result families: one module per family of results, each declaring its claims,
derivations and figures at module level (with ``FAMILY``, the family's name, and ``PAPER``).

Families are discovered: every module in this package is one (:func:`icl_verify.running.registry.families`).
"""
