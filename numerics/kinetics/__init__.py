"""Nguyen & Reddy 2025: the (w, β) ODE, the item–label task, the reduced model and the one-layer transformer."""
