"""Simulations and fits behind icl-verify's claims (NumPy, SciPy): one group per result family and
``shared`` (input validation, statistics, the MLP and its BCE, BLAS threads, resumable sweeps).
Never imports SymPy or the rest of icl-verify.
"""
