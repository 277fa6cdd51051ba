"""Linear self-attention and GD on linear regression (von Oswald et al. 2023): tasks, layers, meta-training, alignment."""
