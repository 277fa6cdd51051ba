"""Shared by every numeric group: input validation, statistics, BLAS threads, resumable sweeps."""
