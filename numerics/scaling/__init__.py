"""Nguyen & Reddy 2025, the scaling laws: the MLP memorization trainer (I_K(∞) ~ K^ν), its optional PyTorch
backend, and the power-law and sigmoid fits with their intervals.

The ±1 item task and the constants c₁, c₂, c₃ come from ``numerics.shared.items``, which the kinetics group
uses too; the fits take plain arrays, so the K*(N) fits read the reduced-model runs of ``numerics.kinetics``
without importing that group.
"""
