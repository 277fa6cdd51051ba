"""Dai et al. (ACL Findings 2023): attention as the dual form of gradient descent, fine-tuning of keys and
values, the ICL-vs-fine-tuning metrics, and simulations of two critiques (Deutch et al. 2024, Shen et al. 2024)."""
