"""Estimators of the results that followed the four core papers: iterative Newton (Fu et al. 2024),
the least-squares baselines (Garg et al. 2022) and the discrete-prior posterior mean (Raventós et al.
2023). Examples are rows: X ∈ R^{n×d}, y ∈ R^n."""
