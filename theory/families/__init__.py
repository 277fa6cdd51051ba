"""The result families: one module per family of results, each declaring its claims,
derivations and figures at module level (with ``FAMILY``, the family's name, and ``PAPER``).

Families are discovered: every module in this package is one (:func:`icl_verify.running.registry.families`).
A large family is a package split by concern (:mod:`icl_verify.families.optimal_lsa`): its ``__init__``
imports the claims and derivations of its submodules in the order of its document and sets ``FIGURES``.
The settings and runs that a family shares with the command line are in :mod:`icl_verify.experiments`.
"""
