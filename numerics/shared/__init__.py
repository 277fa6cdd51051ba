"""Shared by every numeric group: input validation, statistics, the MLP and its BCE, BLAS threads, resumable sweeps."""
