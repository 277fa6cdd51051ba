"""Akyürek et al. 2023: the transformer layer, RAW programs and their compiler, the reference learners."""
