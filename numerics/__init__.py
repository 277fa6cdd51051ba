"""Simulations and fits behind icl-verify's claims (NumPy, SciPy). Never imports SymPy."""
