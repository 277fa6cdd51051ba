"""The claim engine: claims and their checks, verdicts, symbolic zero-testing, Hypothesis
strategies, step-by-step derivations, figures as data, and the registry of result families.

It imports no result family, no output module and no command: rendering registers itself
(:mod:`icl_verify.engine.display`).
"""
