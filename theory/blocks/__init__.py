"""Building blocks of the papers' objects, on both sides: SymPy matrices (symbolic or concrete
sizes) and NumPy arrays alike, tokens as columns (the papers' convention).

Write a statement's two sides with these and ``icl_verify.statement`` derives the dimension-free
proof, the exact check at small sizes and the numeric property from that one definition.
"""

from icl_verify.blocks.attention import (
    delta_w_icl,
    demo_mass,
    dual_form,
    icl_attention,
    linear_attention,
    softmax_attention,
    w_zsl,
)
from icl_verify.blocks.backend import abs, block, exp, eye, log, sqrt
from icl_verify.blocks.kinetics import kinetics_flow
from icl_verify.blocks.linalg import broadcast, det, inverse, matpow, ones, softmax, trace
from icl_verify.blocks.lsa import (
    Head,
    context_tokens,
    delta_w,
    gd_gradient,
    gd_step,
    gd_steps,
    head,
    lsa_layer,
    lsa_prediction,
    lsa_update,
    preconditioned_gd_step,
    query_token,
    readout,
    regression_symbols,
    ridge,
    sherman_morrison,
    theta_gd,
    theta_gdpp,
    x_part,
    y_part,
)
from icl_verify.blocks.nonlinear import gelu, layer_norm, sgd_step

__all__ = [
    "Head",
    "abs",
    "block",
    "broadcast",
    "context_tokens",
    "delta_w",
    "delta_w_icl",
    "demo_mass",
    "det",
    "dual_form",
    "exp",
    "eye",
    "gd_gradient",
    "gd_step",
    "gd_steps",
    "gelu",
    "head",
    "icl_attention",
    "inverse",
    "kinetics_flow",
    "layer_norm",
    "linear_attention",
    "log",
    "lsa_layer",
    "lsa_prediction",
    "lsa_update",
    "matpow",
    "ones",
    "preconditioned_gd_step",
    "query_token",
    "readout",
    "regression_symbols",
    "ridge",
    "sgd_step",
    "sherman_morrison",
    "softmax",
    "softmax_attention",
    "sqrt",
    "theta_gd",
    "theta_gdpp",
    "trace",
    "w_zsl",
    "x_part",
    "y_part",
]
