"""The mathematics the checks use: zero-testing and witnesses for SymPy expressions (``symbolic``),
matrix identities decided for every size (``identities``), tolerances from the magnitude of the
terms (``tolerance``), dimension-free moments of random data matrices (``moments``) and
Hypothesis strategies (``strategies``).

It imports nothing of ``icl_verify`` but the numerics.
"""
