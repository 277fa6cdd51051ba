"""Nguyen & Reddy 2025: the MLP memorization trainer and the scaling-law fits."""
