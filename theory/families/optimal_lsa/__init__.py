"""The optimal single-layer LSA, derived from input moments and checked by Monte Carlo and training.

Results (docs/reference.md, von Oswald et al. 2023 and the optimal-LSA results):

* von Oswald et al. (ICML 2023): a meta-trained LSA layer is one GD step with the best rate.
  For iid input coordinates (variance s², kurtosis κ), w ~ N(0, I), ŷ = (η/N) Σ_i y_i x_iᵀ x_q:
  η* = N / (s² (N + d + κ − 2)) and ½·MSE* = ½ s² d (d + κ − 2) / (N + d + κ − 2).
* Ahn, Cheng, Daneshmand, Sra (NeurIPS 2023): Gaussian inputs (κ = 3) give rate N/(N + d + 1).
* Mahankali, Hashimoto, Ma (ICLR 2024): with label noise σ², c* = n / (n + d + 1 + σ²).
* Zhang, Frei, Bartlett (JMLR 2024, Thm. 4.1): for x ~ N(0, Λ) the optimum is ŷ = x_qᵀ Γ⁻¹ (1/N) Σ y_i x_i
  with Γ = (1 + 1/N) Λ + (tr Λ / N) I.

Nothing here is typed in: the expected loss is a product of data matrices X (N × d), x_q, w of
symbolic size whose expectation the moment algebra takes (:mod:`icl_verify.maths.moments`: Wick
pairings, plus the fourth cumulant for iid non-Gaussian inputs, whose variance and kurtosis come
from the input density, :func:`density_moment`); the loss is minimised with SymPy, or its matrix
gradient is evaluated at the stated preconditioner. The claims compare the derived optimum with the
papers' formulas for every N and d, then with Monte Carlo and with trained LSA.

Depth (von Oswald et al. 2023, §4 and Fig. 3): K trained layers are compared with K GD steps (η
line-searched) and K-layer GD++ (paper eq. 23: each layer also maps x ← (I − γ XᵀX) x; η, γ tuned).
Two weight-tied layers match GD++. Three untied layers contain GD++ as a point (every layer set to
θ_GD++), so their optimum is at or below it. Trained from random weights they often are not there
after 3000 Adam steps (a layer can stay near zero; 0.46–2.7 × GD++ over four seeds); trained
weight-tied for 1000 steps and then untied for 2000, on the median task they beat 3-step GD 60- to
100-fold and GD++ 5- to 9-fold (check seeds 0–31): noiseless tasks with N > d have zero Bayes risk, which three
GD++ steps do not reach. Their mean loss is dominated by rare tasks on which the trained polynomial
of the context errs badly (one task in 2¹⁶ at ½·MSE 10³), so the claims compare median task losses.
"Matches GD++" holds for the tied layers, not for untied ones in this setting.
"""

# isort: off
# The claims in the order of the family's document: the registry collects this module's claims in the
# order these imports bind them.
from icl_verify.families.optimal_lsa.closed_forms import (
    ETA_STAR,
    LOSS_STAR,
    GAUSSIAN_RATE,
    MAHANKALI,
    RATE_WITHOUT_1_OVER_N,
    X_RANGE_TEXT,
    X_RANGE_CODE,
    GAMMA,
    GAMMA_AS_INVERSE_COVARIANCE,
)
from icl_verify.families.optimal_lsa.training import (
    TRAINED_LOSS,
    TRAINED_VS_TUNED_GD,
    TRAINED_MODEL_COS,
    TRAINED_PRODUCTS,
    TRAINED_INTERPOLATION,
    TRAINED_RAW_RATE,
)
from icl_verify.families.optimal_lsa.certificate import (
    TRAINED_GAMMA,
    TRAINED_NOISY_RATE,
    TRAINED_INVERSE_COVARIANCE,
)
from icl_verify.families.optimal_lsa.deep import (
    DEEP_BEATS_GD,
    DEEP_MATCHES_GDPP,
    DEEP_CLOSER_TO_GDPP,
    DEEP_IS_PLAIN_GD,
    UNTIED_BEATS_GD,
    UNTIED_REACHES_GDPP,
    UNTIED_CURVE,
)
from icl_verify.families.optimal_lsa.moments import ONE_STEP_DERIVATION
from icl_verify.families.optimal_lsa.monte_carlo import LOSS_CURVE
# isort: on

FAMILY = "optimal-lsa"
PAPER = "von Oswald et al. 2023; Ahn et al. 2023; Mahankali, Hashimoto & Ma 2024; Zhang, Frei & Bartlett 2024"
FIGURES = (LOSS_CURVE, UNTIED_CURVE)

__all__ = [
    "DEEP_BEATS_GD",
    "DEEP_CLOSER_TO_GDPP",
    "DEEP_IS_PLAIN_GD",
    "DEEP_MATCHES_GDPP",
    "ETA_STAR",
    "FAMILY",
    "FIGURES",
    "GAMMA",
    "GAMMA_AS_INVERSE_COVARIANCE",
    "GAUSSIAN_RATE",
    "LOSS_STAR",
    "MAHANKALI",
    "ONE_STEP_DERIVATION",
    "RATE_WITHOUT_1_OVER_N",
    "TRAINED_GAMMA",
    "TRAINED_INTERPOLATION",
    "TRAINED_INVERSE_COVARIANCE",
    "TRAINED_LOSS",
    "TRAINED_MODEL_COS",
    "TRAINED_NOISY_RATE",
    "TRAINED_PRODUCTS",
    "TRAINED_RAW_RATE",
    "TRAINED_VS_TUNED_GD",
    "UNTIED_BEATS_GD",
    "UNTIED_REACHES_GDPP",
    "X_RANGE_CODE",
    "X_RANGE_TEXT",
]
