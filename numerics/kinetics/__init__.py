"""Nguyen & Reddy 2025, the learning kinetics: the (w, β) ODE, the item–label task, the reduced model and the
one-layer transformer, and what runs of the reduced model measure (the bimodality of the final ICL accuracy
near K*, the runs of the K*(N) sweeps).

The paper's other experiment, the MLP memorization trainer and the scaling-law fits, is the group ``scaling``.
The two share only the ±1 item task and the constants c₁, c₂, c₃ (``numerics.shared.items``); the runs of
the reduced model that the scaling claims sweep stay here with the reduced model, so neither group imports
the other.
"""
