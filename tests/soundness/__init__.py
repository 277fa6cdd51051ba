"""The soundness corpus: textbook identities and inequalities as printed, each with a perturbed false twin."""
