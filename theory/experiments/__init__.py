"""The experiments: the settings, runs and estimates that the families' claims and the commands share.

A module here drives a simulation of :mod:`icl_verify.numerics` at stated settings and returns what
a claim measures or a command reports (the memorization sweep and its report, the derived optimum
a trained LSA layer is compared with, paired loss estimates). The families import them to state
their claims; the command line imports them to run the same experiments at other settings, and never
imports a family.
"""
