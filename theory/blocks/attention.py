"""Attention as the dual form of gradient descent (Dai et al., ACL Findings 2023, §3).

Tokens are columns, as in the paper: X' ∈ R^{d×n'} the demonstrations, X ∈ R^{d×n} the query
text, q ∈ R^{d_k} the attention query. Values and keys of a token x are W_V x and W_K x.
"""

from __future__ import annotations

from typing import Any

from icl_verify.blocks.backend import exp, hstack, matrix_arg, total


def _attention_args(V: Any, K: Any, q: Any) -> None:
    """V (d_v × n) and K (d_k × n): one value and one key per token; q (d_k × 1 or more queries)."""
    matrix_arg("V", V)
    matrix_arg("K", K, cols=V.shape[1])
    matrix_arg("q", q, rows=K.shape[0])


def linear_attention(V: Any, K: Any, q: Any) -> Any:
    """LinearAttn(V, K, q) = Σ_i v_i (k_iᵀ q) = V Kᵀ q (eq. 4–5), values and keys as columns."""
    _attention_args(V, K, q)
    return V @ (K.T @ q)


def softmax_attention(V: Any, K: Any, q: Any) -> Any:
    """Σ_i softmax_i(Kᵀ q) v_i, the 1/√d scale dropped as in Dai et al.'s analysis (§3.2)."""
    _attention_args(V, K, q)
    weights = exp(K.T @ q)
    return V @ weights / total(weights)


def icl_attention(W_V: Any, W_K: Any, demos: Any, text: Any, q: Any, *, softmax: bool = False) -> Any:
    """F_ICL(q): attention of q over [X', X] with values W_V x and keys W_K x (eq. 8)."""
    tokens = hstack(demos, text)
    attend = softmax_attention if softmax else linear_attention
    return attend(W_V @ tokens, W_K @ tokens, q)


def w_zsl(W_V: Any, W_K: Any, text: Any) -> Any:
    """W_ZSL = W_V X (W_K X)ᵀ: the attention's weights before any demonstration (eq. 9)."""
    return (W_V @ text) @ (W_K @ text).T


def delta_w_icl(W_V: Any, W_K: Any, demos: Any) -> Any:
    """ΔW_ICL = Σ_i (W_V x'_i) ⊗ (W_K x'_i) = W_V X' (W_K X')ᵀ: the demonstrations' update (eq. 9)."""
    return (W_V @ demos) @ (W_K @ demos).T


def demo_mass(W_K: Any, demos: Any, text: Any, q: Any) -> Any:
    """λ(q): the softmax mass q puts on the demonstrations among [X', X] (§3.2 with softmax kept)."""
    weights_demo, weights_text = exp((W_K @ demos).T @ q), exp((W_K @ text).T @ q)
    return total(weights_demo) / (total(weights_demo) + total(weights_text))


def dual_form(W0: Any, errors: Any, inputs: Any, x: Any) -> Any:
    """W0 x + LinearAttn(E, X', x): a GD-updated linear layer in its dual form (eq. 3–5)."""
    return W0 @ x + linear_attention(errors, inputs, x)


def linear_loss_steps(W_V: Any, W_K: Any, text: Any, targets: Any, queries: Any, lr: Any) -> tuple[Any, Any]:
    """(ΔW_V, ΔW_K) = (lr T Qᵀ W_K S, lr Q Tᵀ W_V S), S = X Xᵀ: minus lr times the gradients of the linear
    fine-tuning loss L = −Σ_i t_iᵀ W_V S W_Kᵀ q_i (targets t_i and queries q_i as columns of T and Q; §3.3)."""
    S = text @ text.T
    return lr * (targets @ queries.T @ W_K @ S), lr * (queries @ targets.T @ W_V @ S)


def delta_w_ft(W_V: Any, W_K: Any, text: Any, targets: Any, queries: Any, lr: Any, *, train_keys: bool) -> Any:
    """ΔW_FT = (W_V + ΔW_V) S (W_K + ΔW_K)ᵀ − W_V S W_Kᵀ after one GD step on L (ΔW_K = 0 unless ``train_keys``):
    the change of the zero-shot weight W_ZSL = W_V S W_Kᵀ by fine-tuning (Dai et al. §3.3, eq. 10–11)."""
    step_V, step_K = linear_loss_steps(W_V, W_K, text, targets, queries, lr)
    S = text @ text.T
    new_K = W_K + step_K if train_keys else W_K
    return (W_V + step_V) @ S @ new_K.T - W_V @ S @ W_K.T
