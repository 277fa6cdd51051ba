"""Simulations and fits behind icl-verify's claims (NumPy, SciPy): one group per paper or topic — ``lsa``,
``dual``, ``raw``, ``kinetics``, ``scaling``, ``literature`` — each importing only itself and ``shared``
(input validation, statistics, the MLP and its BCE, Adam, the ±1 item task, BLAS threads, resumable
sweeps, fuzz examples). Never imports SymPy or the rest of icl-verify.
"""
