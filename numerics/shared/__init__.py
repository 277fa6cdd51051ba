"""Shared by every numeric group: input validation, statistics, the MLP and its BCE, Adam and gradient
clipping, the ±1 item task, the best one-step GD rate, BLAS threads, resumable sweeps and the fuzzer's
example arguments."""
