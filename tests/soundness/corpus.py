"""The soundness corpus as data: statements from standard references, each true as printed and with a false twin.

Sources, cited statement by statement:

* The Matrix Cookbook (Petersen & Pedersen, version of November 15, 2012): §1 basics, trace and
  determinant (equations (1)–(31)), §3.1–3.2 inverses (145), (155)–(167), §7.8 the Wishart
  mean (343), §8.1–8.2 Gaussian moments (372)–(383) and the quartic forms of §8.2.4, §9.1 block
  matrices (397)–(402) and the Schur complement of §9.1.5. A Gaussian x ~ N(m, Σ) is written
  x = m + z with z ~ N(0, Σ) (``iv.gaussian`` draws mean zero).
* Isserlis (1918) and Wick's theorem for Gaussian product moments; the fourth cumulant of iid entries.
* Classical inequalities (Hardy, Littlewood & Pólya 1952, *Inequalities*): AM–GM, Cauchy–Schwarz,
  Bernoulli, the triangle inequality, Young, Schur, Nesbitt, Engel's form of Cauchy–Schwarz,
  log x ≤ x − 1.

Every true statement comes with a twin perturbed in one place (order, sign, coefficient, transpose,
exponent or direction) that is false for the declared symbols; the true right-hand side is the twin's
corrected form. Each entry declares whether it lies inside a fragment the engine decides
(polynomial and rational matrix identities with traces and determinants, Gaussian and iid
polynomial moments, scalar polynomial inequalities) or outside it (square roots of non-squares,
transcendental functions, non-polynomial moments, matrix inequalities, statements over an integer
parameter).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np
import sympy as sp

import icl_verify as iv
from icl_verify.blocks import det, inverse, trace
from icl_verify.blocks.backend import block, exp, eye, sqrt, zeros

COOKBOOK = "Petersen & Pedersen 2012, The Matrix Cookbook"


@dataclass(frozen=True)
class Entry:
    """A statement of the corpus: its name, whether it is true, whether it lies inside a fragment the engine
    decides, whether it belongs to the fast subset of the default test run, and how to build its claim.

    The claim is built when it is checked, so that a statement the engine refuses at definition is that
    statement's failure (an error) and not the whole corpus's.
    """

    name: str
    holds: bool
    decided: bool
    fast: bool
    build: Callable[[], iv.Claim]


def pair(
    name: str,
    source: str,
    text: str,
    symbols: dict[str, Any],
    lhs: Callable[..., Any],
    rhs: Callable[..., Any],
    twin: Callable[..., Any],
    perturbed: str,
    *,
    decided: bool = True,
    fast: bool = False,
    relation: str = "=",
    twin_relation: str | None = None,
    **options: Any,
) -> list[Entry]:
    """The statement ``lhs relation rhs`` as printed and its twin ``lhs relation twin`` (``twin_relation`` when the
    twin reverses the direction); the twin's corrected form is the printed right-hand side."""
    common = {"symbols": symbols, "lhs": lhs, **options}
    if twin_relation is None:
        control: dict[str, Any] = {"corrected": rhs}
    else:
        control = {"no_control": f"the twin reverses the direction of a true bound ({perturbed})"}
    true = partial(iv.statement, name, source, text, rhs=rhs, relation=relation, **common)
    false = partial(
        iv.statement,
        f"{name}-twin",
        source,
        f"false twin ({perturbed}) of {text}",
        rhs=twin,
        relation=twin_relation or relation,
        holds=False,
        **control,
        **common,
    )
    return [Entry(name, True, decided, fast, true), Entry(f"{name}-twin", False, decided, fast, false)]


def log(x: Any) -> Any:
    """The natural logarithm on either side (SymPy's ``log`` of a symbol or exact number, NumPy's of floats)."""
    return sp.log(x) if isinstance(x, sp.Basic) else np.log(x)


def cube(m: Any) -> Any:
    """M³ as the product M M M (a matrix power on both sides, never NumPy's element-wise ``**``)."""
    return m @ m @ m


SQUARE = iv.matrix("n", "n")
INVERTIBLE = iv.matrix("n", "n", invertible=True)
TWO = iv.matrix(2, 2)
COLUMN = iv.matrix("n", 1)
SCALAR = iv.scalar()
POSITIVE = iv.scalar(positive=True)
NONZERO = iv.scalar(nonzero=True)


def _basics() -> list[Entry]:
    """§1: transposes and inverses of sums and products, (1)–(6)."""
    two = {"A": INVERTIBLE, "B": INVERTIBLE}
    three = {"A": INVERTIBLE, "B": INVERTIBLE, "C": INVERTIBLE}
    rect = {"A": iv.matrix("n", "k"), "B": iv.matrix("k", "m")}
    chain = {"A": iv.matrix("n", "k"), "B": iv.matrix("k", "l"), "C": iv.matrix("l", "m")}
    return [
        *pair(
            "cookbook-1-inverse-of-product",
            f"{COOKBOOK}, (1)",
            r"(AB)^{-1} = B^{-1} A^{-1}",
            two,
            lambda A, B: inverse(A @ B),
            lambda A, B: inverse(B) @ inverse(A),
            lambda A, B: inverse(A) @ inverse(B),
            "order of the factors",
        ),
        *pair(
            "cookbook-2-inverse-of-triple-product",
            f"{COOKBOOK}, (2)",
            r"(ABC)^{-1} = C^{-1} B^{-1} A^{-1}",
            three,
            lambda A, B, C: inverse(A @ B @ C),
            lambda A, B, C: inverse(C) @ inverse(B) @ inverse(A),
            lambda A, B, C: inverse(C) @ inverse(A) @ inverse(B),
            "order of the factors",
        ),
        *pair(
            "cookbook-3-inverse-of-transpose",
            f"{COOKBOOK}, (3)",
            r"(A^\top)^{-1} = (A^{-1})^\top",
            {"A": INVERTIBLE},
            lambda A: inverse(A.T),
            lambda A: inverse(A).T,
            lambda A: inverse(A),
            "transpose dropped",
            fast=True,
        ),
        *pair(
            "cookbook-4-transpose-of-sum",
            f"{COOKBOOK}, (4)",
            r"(A + B)^\top = A^\top + B^\top",
            {"A": iv.matrix("n", "m"), "B": iv.matrix("n", "m")},
            lambda A, B: (A + B).T,
            lambda A, B: A.T + B.T,
            lambda A, B: A.T - B.T,
            "sign",
        ),
        *pair(
            "cookbook-5-transpose-of-product",
            f"{COOKBOOK}, (5)",
            r"(AB)^\top = B^\top A^\top",
            rect,
            lambda A, B: (A @ B).T,
            lambda A, B: B.T @ A.T,
            lambda A, B: 2 * B.T @ A.T,
            "coefficient",
        ),
        *pair(
            "cookbook-5-transpose-of-square-product",
            f"{COOKBOOK}, (5) for square factors",
            r"(AB)^\top = B^\top A^\top",
            {"A": SQUARE, "B": SQUARE},
            lambda A, B: (A @ B).T,
            lambda A, B: B.T @ A.T,
            lambda A, B: A.T @ B.T,
            "order of the factors",
        ),
        *pair(
            "cookbook-6-transpose-of-triple-product",
            f"{COOKBOOK}, (6)",
            r"(ABC)^\top = C^\top B^\top A^\top",
            chain,
            lambda A, B, C: (A @ B @ C).T,
            lambda A, B, C: C.T @ B.T @ A.T,
            lambda A, B, C: -(C.T @ B.T @ A.T),
            "sign",
            explicit_sizes={"n": [1, 2], "k": [1], "l": [2], "m": [1]},
        ),
    ]


def _traces() -> list[Entry]:
    """§1.1: the trace, (13)–(17), and what follows from them."""
    square_pair = {"A": SQUARE, "B": SQUARE}
    return [
        *pair(
            "cookbook-13-trace-of-transpose",
            f"{COOKBOOK}, (13)",
            r"\operatorname{Tr}(A) = \operatorname{Tr}(A^\top)",
            {"A": SQUARE},
            lambda A: trace(A),
            lambda A: trace(A.T),
            lambda A: trace(A.T @ A.T),
            "exponent",
        ),
        *pair(
            "cookbook-14-trace-of-product-commutes",
            f"{COOKBOOK}, (14)",
            r"\operatorname{Tr}(AB) = \operatorname{Tr}(BA)",
            {"A": iv.matrix("n", "m"), "B": iv.matrix("m", "n")},
            lambda A, B: trace(A @ B),
            lambda A, B: trace(B @ A),
            lambda A, B: trace(B @ A) + trace(A @ B),
            "a term doubled",
        ),
        *pair(
            "cookbook-14-trace-of-product-transposed",
            f"{COOKBOOK}, (13) and (14)",
            r"\operatorname{Tr}(AB) = \operatorname{Tr}(A^\top B^\top)",
            square_pair,
            lambda A, B: trace(A @ B),
            lambda A, B: trace(A.T @ B.T),
            lambda A, B: trace(A @ B.T),
            "one transpose dropped",
        ),
        *pair(
            "cookbook-15-trace-of-sum",
            f"{COOKBOOK}, (15)",
            r"\operatorname{Tr}(A + B) = \operatorname{Tr}(A) + \operatorname{Tr}(B)",
            square_pair,
            lambda A, B: trace(A + B),
            lambda A, B: trace(A) + trace(B),
            lambda A, B: trace(A) - trace(B),
            "sign",
        ),
        *pair(
            "cookbook-16-trace-rotation-bca",
            f"{COOKBOOK}, (16)",
            r"\operatorname{Tr}(ABC) = \operatorname{Tr}(BCA)",
            {"A": iv.matrix("n", "k"), "B": iv.matrix("k", "l"), "C": iv.matrix("l", "n")},
            lambda A, B, C: trace(A @ B @ C),
            lambda A, B, C: trace(B @ C @ A),
            lambda A, B, C: trace(B @ C @ A) * 2,
            "coefficient",
            explicit_sizes={"n": [1, 2], "k": [1], "l": [2]},
        ),
        *pair(
            "cookbook-16-trace-rotation-cab",
            f"{COOKBOOK}, (16)",
            r"\operatorname{Tr}(ABC) = \operatorname{Tr}(CAB)",
            {"A": SQUARE, "B": SQUARE, "C": SQUARE},
            lambda A, B, C: trace(A @ B @ C),
            lambda A, B, C: trace(C @ A @ B),
            lambda A, B, C: trace(A @ C @ B),
            "order (a transposition, not a rotation)",
        ),
        *pair(
            "cookbook-17-inner-product-as-trace",
            f"{COOKBOOK}, (17)",
            r"a^\top a = \operatorname{Tr}(a a^\top)",
            {"a": COLUMN},
            lambda a: a.T @ a,
            lambda a: trace(a @ a.T),
            lambda a: trace(a @ a.T @ a @ a.T),
            "exponent",
        ),
        *pair(
            "cookbook-11-trace-is-linear",
            f"{COOKBOOK}, (11) and (15)",
            r"\operatorname{Tr}(cA - B) = c \operatorname{Tr}(A) - \operatorname{Tr}(B)",
            {"A": SQUARE, "B": SQUARE, "c": SCALAR},
            lambda A, B, c: trace(c * A - B),
            lambda A, B, c: c * trace(A) - trace(B),
            lambda A, B, c: c * trace(A) - c * trace(B),
            "coefficient",
        ),
    ]


def _determinants() -> list[Entry]:
    """§1.2: the determinant, (19)–(27), and the determinant lemmas built on (24)."""
    square_pair = {"A": SQUARE, "B": SQUARE}

    def det_i_plus(A: Any) -> Any:
        return det(eye(A.shape[0], A) + A)

    def e2(A: Any) -> Any:
        return trace(A) ** 2 / 2 - trace(A @ A) / 2

    return [
        *pair(
            "cookbook-19-determinant-of-scaled-matrix",
            f"{COOKBOOK}, (19)",
            r"\det(cA) = c^n \det(A),\ A \in \mathbb{R}^{n\times n}",
            {"A": SQUARE, "c": SCALAR},
            lambda A, c: det(c * A),
            lambda A, c, n: c**n * det(A),
            lambda A, c: c * det(A),
            "exponent",
        ),
        *pair(
            "cookbook-20-determinant-of-transpose",
            f"{COOKBOOK}, (20)",
            r"\det(A^\top) = \det(A)",
            {"A": SQUARE},
            lambda A: det(A.T),
            lambda A: det(A),
            lambda A: -det(A),
            "sign",
            fast=True,
        ),
        *pair(
            "cookbook-21-determinant-of-product",
            f"{COOKBOOK}, (21)",
            r"\det(AB) = \det(A)\det(B)",
            square_pair,
            lambda A, B: det(A @ B),
            lambda A, B: det(A) * det(B),
            lambda A, B: det(A) + det(B),
            "product replaced by a sum",
            fast=True,
        ),
        *pair(
            "cookbook-21-determinant-of-triple-product",
            f"{COOKBOOK}, (21) twice",
            r"\det(ABC) = \det(A)\det(B)\det(C)",
            {"A": SQUARE, "B": SQUARE, "C": SQUARE},
            lambda A, B, C: det(A @ B @ C),
            lambda A, B, C: det(A) * det(B) * det(C),
            lambda A, B, C: det(A) * det(B) * det(C) ** 2,
            "exponent",
        ),
        *pair(
            "cookbook-22-determinant-of-inverse",
            f"{COOKBOOK}, (22)",
            r"\det(A^{-1}) = 1 / \det(A)",
            {"A": INVERTIBLE},
            lambda A: det(inverse(A)),
            lambda A: 1 / det(A),
            lambda A: det(A),
            "exponent",
        ),
        *pair(
            "cookbook-23-determinant-of-cube",
            f"{COOKBOOK}, (23) with exponent 3",
            r"\det(A^3) = \det(A)^3",
            {"A": SQUARE},
            lambda A: det(cube(A)),
            lambda A: det(A) ** 3,
            lambda A: det(A) ** 2,
            "exponent",
        ),
        *pair(
            "cookbook-23-determinant-of-inverse-square",
            f"{COOKBOOK}, (22) and (23)",
            r"\det(A^{-1} A^{-1}) = 1 / \det(A)^2",
            {"A": INVERTIBLE},
            lambda A: det(inverse(A) @ inverse(A)),
            lambda A: 1 / det(A) ** 2,
            lambda A: 1 / det(A),
            "exponent",
        ),
        *pair(
            "cookbook-24-determinant-of-rank-one-update",
            f"{COOKBOOK}, (24)",
            r"\det(I + u v^\top) = 1 + u^\top v",
            {"u": COLUMN, "v": COLUMN},
            lambda u, v, n: det(eye(n, u) + u @ v.T),
            lambda u, v: 1 + u.T @ v,
            lambda u, v: 1 - u.T @ v,
            "sign",
            fast=True,
        ),
        *pair(
            "determinant-lemma",
            f"{COOKBOOK}, (24) with (21): the matrix determinant lemma",
            r"\det(A + u v^\top) = (1 + v^\top A^{-1} u) \det(A)",
            {"A": INVERTIBLE, "u": COLUMN, "v": COLUMN},
            lambda A, u, v: det(A + u @ v.T),
            lambda A, u, v: (1 + v.T @ inverse(A) @ u) * det(A),
            lambda A, u, v: (1 + v.T @ inverse(A) @ u) / det(A),
            "exponent of det(A)",
        ),
        *pair(
            "sylvester-determinant-identity",
            "Sylvester's determinant identity; " + f"{COOKBOOK}, (24) for k = 1",
            r"\det(I_n + AB) = \det(I_k + BA),\ A \in \mathbb{R}^{n\times k}",
            {"A": iv.matrix("n", "k"), "B": iv.matrix("k", "n")},
            lambda A, B, n: det(eye(n, A) + A @ B),
            lambda A, B, k: det(eye(k, A) + B @ A),
            lambda A, B, k: det(eye(k, A) - B @ A),
            "sign",
        ),
        *pair(
            "cookbook-25-determinant-of-identity-plus-2x2",
            f"{COOKBOOK}, (25)",
            r"n = 2:\ \det(I + A) = 1 + \det(A) + \operatorname{Tr}(A)",
            {"A": TWO},
            det_i_plus,
            lambda A: 1 + det(A) + trace(A),
            lambda A: 1 + det(A) - trace(A),
            "sign",
        ),
        *pair(
            "cookbook-26-determinant-of-identity-plus-3x3",
            f"{COOKBOOK}, (26)",
            r"n = 3:\ \det(I + A) = 1 + \det(A) + \operatorname{Tr}(A) + \tfrac12 \operatorname{Tr}(A)^2"
            r" - \tfrac12 \operatorname{Tr}(A^2)",
            {"A": iv.matrix(3, 3)},
            det_i_plus,
            lambda A: 1 + det(A) + trace(A) + e2(A),
            lambda A: 1 + det(A) + trace(A) + trace(A) ** 2 / 2 + trace(A @ A) / 2,
            "sign of the last term",
        ),
        *pair(
            "cookbook-27-determinant-of-identity-plus-4x4",
            f"{COOKBOOK}, (27)",
            r"n = 4:\ \det(I + A) = 1 + \det(A) + \operatorname{Tr}(A) + \tfrac12 \operatorname{Tr}(A)^2"
            r" - \tfrac12 \operatorname{Tr}(A^2) + \tfrac16 \operatorname{Tr}(A)^3"
            r" - \tfrac12 \operatorname{Tr}(A)\operatorname{Tr}(A^2) + \tfrac13 \operatorname{Tr}(A^3)",
            {"A": iv.matrix(4, 4)},
            det_i_plus,
            lambda A: (
                1 + det(A) + trace(A) + e2(A) + trace(A) ** 3 / 6 - trace(A) * trace(A @ A) / 2 + trace(cube(A)) / 3
            ),
            lambda A: (
                1 + det(A) + trace(A) + e2(A) + trace(A) ** 3 / 6 - trace(A) * trace(A @ A) / 2 + trace(cube(A)) / 6
            ),
            "coefficient of Tr(A³)",
        ),
    ]


def _two_by_two() -> list[Entry]:
    """§1.3: the special case 2 × 2, (29)–(31), its eigenvalues and Cayley–Hamilton."""
    invertible_two = {"A": iv.matrix(2, 2, invertible=True)}

    def root(A: Any, sign: int) -> Any:
        return (trace(A) + sign * sqrt(trace(A) ** 2 - 4 * det(A))) / 2

    return [
        *pair(
            "cookbook-29-determinant-2x2",
            f"{COOKBOOK}, (29)",
            r"\det(A) = A_{11} A_{22} - A_{12} A_{21}",
            {"A": TWO},
            lambda A: det(A),
            lambda A: A[0, 0] * A[1, 1] - A[0, 1] * A[1, 0],
            lambda A: A[0, 0] * A[1, 1] + A[0, 1] * A[1, 0],
            "sign",
        ),
        *pair(
            "cookbook-30-trace-2x2",
            f"{COOKBOOK}, (30)",
            r"\operatorname{Tr}(A) = A_{11} + A_{22}",
            {"A": TWO},
            lambda A: trace(A),
            lambda A: A[0, 0] + A[1, 1],
            lambda A: A[0, 0] + A[0, 1],
            "wrong index",
        ),
        *pair(
            "cookbook-31-inverse-2x2",
            f"{COOKBOOK}, (31)",
            r"A^{-1} = \frac{1}{\det(A)} \begin{bmatrix} A_{22} & -A_{12} \\ -A_{21} & A_{11} \end{bmatrix}",
            invertible_two,
            lambda A: (inverse(A)[0, 0], inverse(A)[0, 1], inverse(A)[1, 0], inverse(A)[1, 1]),
            lambda A: (A[1, 1] / det(A), -A[0, 1] / det(A), -A[1, 0] / det(A), A[0, 0] / det(A)),
            lambda A: (A[1, 1] / det(A), A[0, 1] / det(A), A[1, 0] / det(A), A[0, 0] / det(A)),
            "signs of the off-diagonal entries",
        ),
        *pair(
            "cookbook-1-3-sum-of-eigenvalues",
            f"{COOKBOOK}, §1.3",
            r"\lambda_{1,2} = \tfrac12\big(\operatorname{Tr}(A) \pm \sqrt{\operatorname{Tr}(A)^2 - 4\det(A)}\big):\ "
            r"\lambda_1 + \lambda_2 = \operatorname{Tr}(A)",
            {"A": TWO},
            lambda A: root(A, 1) + root(A, -1),
            lambda A: trace(A),
            lambda A: 2 * trace(A),
            "coefficient",
            decided=False,
        ),
        *pair(
            "cookbook-1-3-product-of-eigenvalues",
            f"{COOKBOOK}, §1.3",
            r"\lambda_1 \lambda_2 = \det(A)",
            {"A": TWO},
            lambda A: root(A, 1) * root(A, -1),
            lambda A: det(A),
            lambda A: -det(A),
            "sign",
            decided=False,
        ),
        *pair(
            "cookbook-1-3-characteristic-equation",
            f"{COOKBOOK}, §1.3",
            r"\lambda_1^2 - \lambda_1 \operatorname{Tr}(A) + \det(A) = 0",
            {"A": TWO},
            lambda A: root(A, 1) ** 2 - root(A, 1) * trace(A) + det(A),
            lambda A: 0 * trace(A),
            lambda A: det(A),
            "a term left over",
            decided=False,
        ),
        *pair(
            "cayley-hamilton-2x2",
            f"Cayley–Hamilton theorem; {COOKBOOK}, §1.3 (characteristic polynomial)",
            r"A^2 - \operatorname{Tr}(A) A + \det(A) I = 0",
            {"A": TWO},
            lambda A: A @ A - trace(A) * A + det(A) * eye(2, A),
            lambda A: 0 * A,
            lambda A: 2 * det(A) * eye(2, A),
            "sign of det(A) I",
        ),
        *pair(
            "cayley-hamilton-trace-form-2x2",
            "Cayley–Hamilton theorem, traces of powers (Newton's identities)",
            r"\operatorname{Tr}(A^3) = \tfrac32 \operatorname{Tr}(A)\operatorname{Tr}(A^2) - \tfrac12 \operatorname{Tr}(A)^3",
            {"A": TWO},
            lambda A: trace(cube(A)),
            lambda A: 1.5 * trace(A) * trace(A @ A) - 0.5 * trace(A) ** 3,
            lambda A: 1.5 * trace(A) * trace(A @ A) - trace(A) ** 3 / 3,
            "coefficient",
        ),
    ]


def _inverses() -> list[Entry]:
    """§3.1–3.2: exact relations for inverses, (145) and (155)–(167), with the push-through identities."""
    two = {"A": INVERTIBLE, "B": INVERTIBLE}
    thin = {"A": iv.matrix("n", "k"), "B": iv.matrix("k", "n")}
    return [
        *pair(
            "cookbook-145-inverse-times-matrix",
            f"{COOKBOOK}, (145)",
            r"A^{-1} A = I",
            {"A": INVERTIBLE},
            lambda A: inverse(A) @ A,
            lambda A, n: eye(n, A),
            lambda A: inverse(A) @ A.T,
            "transpose",
        ),
        *pair(
            "cookbook-145-inverse-of-inverse",
            f"{COOKBOOK}, (145)",
            r"(A^{-1})^{-1} = A",
            {"A": INVERTIBLE},
            lambda A: inverse(inverse(A)),
            lambda A: A,
            lambda A: A.T,
            "transpose",
        ),
        *pair(
            "cookbook-155-inverse-of-cube",
            f"{COOKBOOK}, (155) applied twice",
            r"(A^3)^{-1} = (A^{-1})^3",
            {"A": INVERTIBLE},
            lambda A: inverse(cube(A)),
            lambda A: cube(inverse(A)),
            lambda A: inverse(A) @ inverse(A),
            "exponent",
        ),
        *pair(
            "inverse-of-scaled-matrix",
            f"{COOKBOOK}, (145): (cA)(c^{{-1}}A^{{-1}}) = I",
            r"(cA)^{-1} = c^{-1} A^{-1},\ c \ne 0",
            {"A": INVERTIBLE, "c": NONZERO},
            lambda A, c: inverse(c * A),
            lambda A, c: inverse(A) / c,
            lambda A, c: c * inverse(A),
            "exponent of c",
        ),
        *pair(
            "cookbook-156-woodbury-symmetric-form",
            f"{COOKBOOK}, (156)",
            r"(A + C B C^\top)^{-1} = A^{-1} - A^{-1} C (B^{-1} + C^\top A^{-1} C)^{-1} C^\top A^{-1}",
            {"A": INVERTIBLE, "B": iv.matrix("k", "k", invertible=True), "C": iv.matrix("n", "k")},
            lambda A, B, C: inverse(A + C @ B @ C.T),
            lambda A, B, C: inverse(A) - inverse(A) @ C @ inverse(inverse(B) + C.T @ inverse(A) @ C) @ C.T @ inverse(A),
            lambda A, B, C: inverse(A) + inverse(A) @ C @ inverse(inverse(B) + C.T @ inverse(A) @ C) @ C.T @ inverse(A),
            "sign of the correction",
        ),
        *pair(
            "cookbook-157-woodbury",
            f"{COOKBOOK}, (157)",
            r"(A + U B V)^{-1} = A^{-1} - A^{-1} U (B^{-1} + V A^{-1} U)^{-1} V A^{-1}",
            {
                "A": INVERTIBLE,
                "B": iv.matrix("k", "k", invertible=True),
                "U": iv.matrix("n", "k"),
                "V": iv.matrix("k", "n"),
            },
            lambda A, B, U, V: inverse(A + U @ B @ V),
            lambda A, B, U, V: inverse(A) - inverse(A) @ U @ inverse(inverse(B) + V @ inverse(A) @ U) @ V @ inverse(A),
            lambda A, B, U, V: inverse(A) - inverse(A) @ U @ inverse(B + V @ inverse(A) @ U) @ V @ inverse(A),
            "B in place of its inverse",
        ),
        *pair(
            "cookbook-158-positive-definite-push-through",
            f"{COOKBOOK}, (158) and (185), P and R positive definite",
            r"(P^{-1} + B^\top R^{-1} B)^{-1} B^\top R^{-1} = P B^\top (B P B^\top + R)^{-1}",
            {"P": iv.matrix("n", "n", spd=True), "R": iv.matrix("m", "m", spd=True), "B": iv.matrix("m", "n")},
            lambda P, R, B: inverse(inverse(P) + B.T @ inverse(R) @ B) @ B.T @ inverse(R),
            lambda P, R, B: P @ B.T @ inverse(B @ P @ B.T + R),
            lambda P, R, B: P @ B.T @ inverse(B @ P @ B.T + inverse(R)),
            "R⁻¹ in place of R",
        ),
        *pair(
            "cookbook-159-kailath-variant",
            f"{COOKBOOK}, (159)",
            r"(A + BC)^{-1} = A^{-1} - A^{-1} B (I + C A^{-1} B)^{-1} C A^{-1}",
            {"A": INVERTIBLE, "B": iv.matrix("n", "k"), "C": iv.matrix("k", "n")},
            lambda A, B, C: inverse(A + B @ C),
            lambda A, B, C, k: inverse(A) - inverse(A) @ B @ inverse(eye(k, A) + C @ inverse(A) @ B) @ C @ inverse(A),
            lambda A, B, C, k: inverse(A) - inverse(A) @ B @ inverse(eye(k, A) - C @ inverse(A) @ B) @ C @ inverse(A),
            "sign inside the inverse",
        ),
        *pair(
            "cookbook-160-sherman-morrison",
            f"{COOKBOOK}, (160)",
            r"(A + b c^\top)^{-1} = A^{-1} - \frac{A^{-1} b c^\top A^{-1}}{1 + c^\top A^{-1} b}",
            {"A": INVERTIBLE, "b": COLUMN, "c": COLUMN},
            lambda A, b, c: inverse(A + b @ c.T),
            lambda A, b, c: inverse(A) - inverse(A) @ b @ c.T @ inverse(A) / (1 + c.T @ inverse(A) @ b),
            lambda A, b, c: inverse(A) - inverse(A) @ b @ c.T @ inverse(A) / (1 - c.T @ inverse(A) @ b),
            "sign in the denominator",
            fast=True,
        ),
        *pair(
            "cookbook-161-searle",
            f"{COOKBOOK}, (161)",
            r"(I + A^{-1})^{-1} = A (A + I)^{-1}",
            {"A": INVERTIBLE},
            lambda A, n: inverse(eye(n, A) + inverse(A)),
            lambda A, n: A @ inverse(A + eye(n, A)),
            lambda A, n: inverse(A) @ inverse(A + eye(n, A)),
            "A⁻¹ in place of A",
            fast=True,
        ),
        *pair(
            "cookbook-162-searle",
            f"{COOKBOOK}, (162)",
            r"(A + B B^\top)^{-1} B = A^{-1} B (I + B^\top A^{-1} B)^{-1}",
            {"A": INVERTIBLE, "B": iv.matrix("n", "k")},
            lambda A, B: inverse(A + B @ B.T) @ B,
            lambda A, B, k: inverse(A) @ B @ inverse(eye(k, A) + B.T @ inverse(A) @ B),
            lambda A, B, k: inverse(A) @ B @ inverse(eye(k, A) - B.T @ inverse(A) @ B),
            "sign inside the inverse",
        ),
        *pair(
            "cookbook-163-harmonic-sum-first-form",
            f"{COOKBOOK}, (163)",
            r"(A^{-1} + B^{-1})^{-1} = A (A + B)^{-1} B",
            two,
            lambda A, B: inverse(inverse(A) + inverse(B)),
            lambda A, B: A @ inverse(A + B) @ B,
            lambda A, B: A @ B @ inverse(A + B),
            "order of the factors",
        ),
        *pair(
            "cookbook-163-harmonic-sum-second-form",
            f"{COOKBOOK}, (163)",
            r"(A^{-1} + B^{-1})^{-1} = B (A + B)^{-1} A",
            two,
            lambda A, B: inverse(inverse(A) + inverse(B)),
            lambda A, B: B @ inverse(A + B) @ A,
            lambda A, B: inverse(A + B) @ B @ A,
            "order of the factors",
        ),
        *pair(
            "cookbook-164-searle",
            f"{COOKBOOK}, (164)",
            r"A - A (A + B)^{-1} A = B - B (A + B)^{-1} B",
            two,
            lambda A, B: A - A @ inverse(A + B) @ A,
            lambda A, B: B - B @ inverse(A + B) @ B,
            lambda A, B: B - A @ inverse(A + B) @ B,
            "A in place of B",
        ),
        *pair(
            "cookbook-165-sum-of-inverses",
            f"{COOKBOOK}, (165)",
            r"A^{-1} + B^{-1} = A^{-1} (A + B) B^{-1}",
            two,
            lambda A, B: inverse(A) + inverse(B),
            lambda A, B: inverse(A) @ (A + B) @ inverse(B),
            lambda A, B: inverse(A) @ (A - B) @ inverse(B),
            "sign",
        ),
        *pair(
            "cookbook-166-searle",
            f"{COOKBOOK}, (166)",
            r"(I + AB)^{-1} = I - A (I + BA)^{-1} B",
            thin,
            lambda A, B, n: inverse(eye(n, A) + A @ B),
            lambda A, B, n, k: eye(n, A) - A @ inverse(eye(k, A) + B @ A) @ B,
            lambda A, B, n, k: eye(n, A) + A @ inverse(eye(k, A) + B @ A) @ B,
            "sign",
        ),
        *pair(
            "cookbook-167-push-through",
            f"{COOKBOOK}, (167)",
            r"(I + AB)^{-1} A = A (I + BA)^{-1}",
            thin,
            lambda A, B, n: inverse(eye(n, A) + A @ B) @ A,
            lambda A, B, k: A @ inverse(eye(k, A) + B @ A),
            lambda A, B, k: A @ inverse(eye(k, A) - B @ A),
            "sign",
        ),
        *pair(
            "ridge-push-through",
            f"{COOKBOOK}, (167) with A = Xᵀ/λ, B = X",
            r"(X^\top X + \lambda I)^{-1} X^\top = X^\top (X X^\top + \lambda I)^{-1}",
            {"X": iv.matrix("n", "d"), "lam": POSITIVE},
            lambda X, lam, d: inverse(X.T @ X + lam * eye(d, X)) @ X.T,
            lambda X, lam, n: X.T @ inverse(X @ X.T + lam * eye(n, X)),
            lambda X, lam, n: X.T @ inverse(X @ X.T + 2 * lam * eye(n, X)),
            "coefficient of λ",
        ),
        *pair(
            "woodbury-inverse-of-sum",
            f"{COOKBOOK}, (157) with U = V = I",
            r"(A + B)^{-1} = A^{-1} - A^{-1} (B^{-1} + A^{-1})^{-1} A^{-1}",
            two,
            lambda A, B: inverse(A + B),
            lambda A, B: inverse(A) - inverse(A) @ inverse(inverse(B) + inverse(A)) @ inverse(A),
            lambda A, B: inverse(A) - inverse(B) @ inverse(inverse(B) + inverse(A)) @ inverse(A),
            "B⁻¹ in place of A⁻¹",
        ),
    ]


def _blocks() -> list[Entry]:
    """§9.1: block matrices — multiplication, determinants (397)–(398), inverses (399)–(402), the Schur complement."""
    general = {
        "A11": iv.matrix("p", "p"),
        "A12": iv.matrix("p", "q"),
        "A21": iv.matrix("q", "p"),
        "A22": iv.matrix("q", "q", invertible=True),
    }
    both = {**general, "A11": iv.matrix("p", "p", invertible=True)}
    sizes = {"p": (1, 3), "q": (1, 3)}

    def whole(A11: Any, A12: Any, A21: Any, A22: Any) -> Any:
        return block([[A11, A12], [A21, A22]])

    def c1(A11: Any, A12: Any, A21: Any, A22: Any) -> Any:
        return A11 - A12 @ inverse(A22) @ A21

    def c2(A11: Any, A12: Any, A21: Any, A22: Any) -> Any:
        return A22 - A21 @ inverse(A11) @ A12

    def first_form(A11: Any, A12: Any, A21: Any, A22: Any, sign: int = 1) -> Any:
        C1, C2 = inverse(c1(A11, A12, A21, A22)), inverse(c2(A11, A12, A21, A22))
        return block([[C1, -sign * inverse(A11) @ A12 @ C2], [-C2 @ A21 @ inverse(A11), C2]])

    def second_form(A11: Any, A12: Any, A21: Any, A22: Any, sign: int = 1) -> Any:
        C1, C2 = inverse(c1(A11, A12, A21, A22)), inverse(c2(A11, A12, A21, A22))
        i11, i22 = inverse(A11), inverse(A22)
        return block(
            [
                [i11 + i11 @ A12 @ C2 @ A21 @ i11, -C1 @ A12 @ i22],
                [-i22 @ A21 @ C1, i22 + sign * i22 @ A21 @ C1 @ A12 @ i22],
            ]
        )

    def schur(A11: Any, A12: Any, A21: Any, A22: Any, sign: int = 1) -> Any:
        p, q = A11.shape[0], A22.shape[0]
        i22 = inverse(A22)
        lower = block([[eye(p, A11), zeros(p, q, A11)], [-sign * i22 @ A21, eye(q, A11)]])
        middle = block([[inverse(c1(A11, A12, A21, A22)), zeros(p, q, A11)], [zeros(q, p, A11), i22]])
        upper = block([[eye(p, A11), -A12 @ i22], [zeros(q, p, A11), eye(q, A11)]])
        return lower @ middle @ upper

    products = {
        "A11": iv.matrix("p", "r"),
        "A12": iv.matrix("p", "s"),
        "A21": iv.matrix("q", "r"),
        "A22": iv.matrix("q", "s"),
        "B11": iv.matrix("r", "t"),
        "B12": iv.matrix("r", "u"),
        "B21": iv.matrix("s", "t"),
        "B22": iv.matrix("s", "u"),
    }

    def product(A11, A12, A21, A22, B11, B12, B21, B22) -> Any:
        return block([[A11, A12], [A21, A22]]) @ block([[B11, B12], [B21, B22]])

    def blockwise(A11, A12, A21, A22, B11, B12, B21, B22, sign: int = 1) -> Any:
        return block(
            [
                [A11 @ B11 + A12 @ B21, A11 @ B12 + A12 @ B22],
                [A21 @ B11 + A22 @ B21, A21 @ B12 + sign * A22 @ B22],
            ]
        )

    diagonal = {"A11": iv.matrix("p", "p", invertible=True), "A22": iv.matrix("q", "q", invertible=True)}
    one = {name: [1] for name in ("p", "q", "r", "s", "t", "u")}
    return [
        *pair(
            "cookbook-9-1-1-block-multiplication",
            f"{COOKBOOK}, §9.1.1",
            r"\begin{bmatrix} A_{11} & A_{12} \\ A_{21} & A_{22} \end{bmatrix}"
            r"\begin{bmatrix} B_{11} & B_{12} \\ B_{21} & B_{22} \end{bmatrix} = "
            r"\begin{bmatrix} A_{11}B_{11} + A_{12}B_{21} & A_{11}B_{12} + A_{12}B_{22} \\ "
            r"A_{21}B_{11} + A_{22}B_{21} & A_{21}B_{12} + A_{22}B_{22} \end{bmatrix}",
            products,
            product,
            blockwise,
            lambda A11, A12, A21, A22, B11, B12, B21, B22: blockwise(A11, A12, A21, A22, B11, B12, B21, B22, -1),
            "sign of A₂₂B₂₂",
            sizes={name: (1, 2) for name in one},
            explicit_sizes=one,
        ),
        *pair(
            "cookbook-397-block-determinant-schur-of-a22",
            f"{COOKBOOK}, §9.1.2 (397)",
            r"\det\begin{bmatrix} A_{11} & A_{12} \\ A_{21} & A_{22} \end{bmatrix} = \det(A_{22}) \det(C_1),\ "
            r"C_1 = A_{11} - A_{12} A_{22}^{-1} A_{21}",
            general,
            lambda A11, A12, A21, A22: det(whole(A11, A12, A21, A22)),
            lambda A11, A12, A21, A22: det(A22) * det(c1(A11, A12, A21, A22)),
            lambda A11, A12, A21, A22: det(A22) * det(A11 + A12 @ inverse(A22) @ A21),
            "sign inside the Schur complement",
            sizes=sizes,
        ),
        *pair(
            "cookbook-398-block-determinant-schur-of-a11",
            f"{COOKBOOK}, §9.1.2 (398)",
            r"\det\begin{bmatrix} A_{11} & A_{12} \\ A_{21} & A_{22} \end{bmatrix} = \det(A_{11}) \det(C_2),\ "
            r"C_2 = A_{22} - A_{21} A_{11}^{-1} A_{12}",
            both,
            lambda A11, A12, A21, A22: det(whole(A11, A12, A21, A22)),
            lambda A11, A12, A21, A22: det(A11) * det(c2(A11, A12, A21, A22)),
            lambda A11, A12, A21, A22: det(A11) * det(A22 - A12.T @ inverse(A11) @ A21.T),
            "transposed off-diagonal blocks",
            sizes=sizes,
        ),
        *pair(
            "cookbook-399-block-inverse-first-form",
            f"{COOKBOOK}, §9.1.3 (399)–(400)",
            r"\begin{bmatrix} A_{11} & A_{12} \\ A_{21} & A_{22} \end{bmatrix}^{-1} = "
            r"\begin{bmatrix} C_1^{-1} & -A_{11}^{-1} A_{12} C_2^{-1} \\ -C_2^{-1} A_{21} A_{11}^{-1} & C_2^{-1} \end{bmatrix}",
            both,
            lambda A11, A12, A21, A22: inverse(whole(A11, A12, A21, A22)),
            first_form,
            lambda A11, A12, A21, A22: first_form(A11, A12, A21, A22, -1),
            "sign of the upper right block",
            sizes=sizes,
        ),
        *pair(
            "cookbook-399-block-inverse-second-form",
            f"{COOKBOOK}, §9.1.3 (399)–(400)",
            r"\begin{bmatrix} A_{11} & A_{12} \\ A_{21} & A_{22} \end{bmatrix}^{-1} = "
            r"\begin{bmatrix} A_{11}^{-1} + A_{11}^{-1} A_{12} C_2^{-1} A_{21} A_{11}^{-1} & -C_1^{-1} A_{12} A_{22}^{-1} \\ "
            r"-A_{22}^{-1} A_{21} C_1^{-1} & A_{22}^{-1} + A_{22}^{-1} A_{21} C_1^{-1} A_{12} A_{22}^{-1} \end{bmatrix}",
            both,
            lambda A11, A12, A21, A22: inverse(whole(A11, A12, A21, A22)),
            second_form,
            lambda A11, A12, A21, A22: second_form(A11, A12, A21, A22, -1),
            "sign in the lower right block",
            sizes=sizes,
        ),
        *pair(
            "cookbook-401-block-diagonal-inverse",
            f"{COOKBOOK}, §9.1.4 (401)",
            r"\begin{bmatrix} A_{11} & 0 \\ 0 & A_{22} \end{bmatrix}^{-1} = "
            r"\begin{bmatrix} A_{11}^{-1} & 0 \\ 0 & A_{22}^{-1} \end{bmatrix}",
            diagonal,
            lambda A11, A22, p, q: inverse(block([[A11, zeros(p, q, A11)], [zeros(q, p, A11), A22]])),
            lambda A11, A22, p, q: block([[inverse(A11), zeros(p, q, A11)], [zeros(q, p, A11), inverse(A22)]]),
            lambda A11, A22, p, q: block([[inverse(A11), zeros(p, q, A11)], [zeros(q, p, A11), A22]]),
            "exponent of A₂₂",
            sizes=sizes,
        ),
        *pair(
            "cookbook-402-block-diagonal-determinant",
            f"{COOKBOOK}, §9.1.4 (402)",
            r"\det\begin{bmatrix} A_{11} & 0 \\ 0 & A_{22} \end{bmatrix} = \det(A_{11}) \det(A_{22})",
            {"A11": iv.matrix("p", "p"), "A22": iv.matrix("q", "q")},
            lambda A11, A22, p, q: det(block([[A11, zeros(p, q, A11)], [zeros(q, p, A11), A22]])),
            lambda A11, A22: det(A11) * det(A22),
            lambda A11, A22: det(A11) + det(A22),
            "product replaced by a sum",
            sizes=sizes,
        ),
        *pair(
            "block-triangular-determinant",
            f"{COOKBOOK}, §9.1.2 (398) with A₂₁ = 0",
            r"\det\begin{bmatrix} A_{11} & A_{12} \\ 0 & A_{22} \end{bmatrix} = \det(A_{11}) \det(A_{22})",
            {"A11": iv.matrix("p", "p"), "A12": iv.matrix("p", "q"), "A22": iv.matrix("q", "q")},
            lambda A11, A12, A22, q, p: det(block([[A11, A12], [zeros(q, p, A11), A22]])),
            lambda A11, A12, A22: det(A11) * det(A22),
            lambda A11, A12, A22: det(A11) * det(A22) - det(A12 @ A12.T),
            "a term in A₁₂ added",
            sizes=sizes,
        ),
        *pair(
            "cookbook-9-1-5-schur-factorisation",
            f"{COOKBOOK}, §9.1.5",
            r"\begin{bmatrix} A_{11} & A_{12} \\ A_{21} & A_{22} \end{bmatrix}^{-1} = "
            r"\begin{bmatrix} I & 0 \\ -A_{22}^{-1} A_{21} & I \end{bmatrix}"
            r"\begin{bmatrix} C_1^{-1} & 0 \\ 0 & A_{22}^{-1} \end{bmatrix}"
            r"\begin{bmatrix} I & -A_{12} A_{22}^{-1} \\ 0 & I \end{bmatrix}",
            general,
            lambda A11, A12, A21, A22: inverse(whole(A11, A12, A21, A22)),
            schur,
            lambda A11, A12, A21, A22: schur(A11, A12, A21, A22, -1),
            "sign of the lower left factor",
            sizes=sizes,
        ),
    ]


def _gaussian(**matrices: Any) -> dict[str, Any]:
    """x = m + z with z ~ N(0, Σ) in dimension n, Σ positive definite, and the given deterministic matrices."""
    return {"z": iv.gaussian("n", cov="S"), "S": iv.matrix("n", "n", spd=True), "m": COLUMN, **matrices}


def _gaussian_moments() -> list[Entry]:
    """§8.2 (and §7.8): moments of x ~ N(m, Σ), written x = m + z, of linear, quadratic, cubic and quartic forms."""
    A, B, C, D = (iv.matrix("n", "n") for _ in range(4))
    k_by_n = iv.matrix("k", "n")

    def second(S: Any, m: Any) -> Any:
        return S + m @ m.T

    def quadratic_mean(A: Any, S: Any, m: Any) -> Any:
        return trace(A @ S) + m.T @ A @ m

    def outer_four(A, B, C, D, a, b, c, d, S, m, sign: int = 1) -> Any:
        Am, Bm, Cm, Dm = A @ m + a, B @ m + b, C @ m + c, D @ m + d
        return (
            (A @ S @ B.T + Am @ Bm.T) @ (C @ S @ D.T + Cm @ Dm.T)
            + (A @ S @ C.T + Am @ Cm.T) @ (B @ S @ D.T + Bm @ Dm.T)
            + (Bm.T @ Cm) * (A @ S @ D.T - sign * Am @ Dm.T)
            + trace(B @ S @ C.T) * (A @ S @ D.T + Am @ Dm.T)
        )

    def inner_four(A, B, C, D, a, b, c, d, S, m, sign: int = 1) -> Any:
        Am, Bm, Cm, Dm = A @ m + a, B @ m + b, C @ m + c, D @ m + d
        return (
            trace(A @ S @ (C.T @ D + D.T @ C) @ S @ B.T)
            + (Am.T @ B + Bm.T @ A) @ S @ (C.T @ Dm + D.T @ Cm)
            + sign * (trace(A @ S @ B.T) + Am.T @ Bm) @ (trace(C @ S @ D.T) + Cm.T @ Dm)
        )

    four = {"A": A, "B": B, "C": C, "D": D, "a": COLUMN, "b": COLUMN, "c": COLUMN, "d": COLUMN}
    one = {"n": [1]}
    return [
        *pair(
            "cookbook-372-gaussian-mean",
            f"{COOKBOOK}, (372)",
            r"x \sim N(m, \Sigma):\ E[x] = m",
            _gaussian(),
            iv.expect(lambda z, m: m + z),
            lambda m: m,
            lambda m: 0 * m,
            "mean dropped",
        ),
        *pair(
            "cookbook-373-gaussian-covariance",
            f"{COOKBOOK}, (373)",
            r"\operatorname{Var}(x) = \Sigma = E[x x^\top] - m m^\top",
            _gaussian(),
            iv.expect(lambda z, m: (m + z) @ (m + z).T - m @ m.T),
            lambda S: S,
            lambda S, m: S + m @ m.T,
            "sign of mmᵀ",
        ),
        *pair(
            "cookbook-374-mean-of-linear-map",
            f"{COOKBOOK}, (374)",
            r"E[Ax] = A E[x] = A m,\ A \in \mathbb{R}^{k\times n}",
            _gaussian(A=k_by_n),
            iv.expect(lambda z, m, A: A @ (m + z)),
            lambda m, A: A @ m,
            lambda m, A: 2 * A @ m,
            "coefficient",
        ),
        *pair(
            "cookbook-375-variance-of-linear-map",
            f"{COOKBOOK}, (375)",
            r"\operatorname{Var}[Ax] = A \operatorname{Var}[x] A^\top",
            _gaussian(A=A),
            iv.expect(lambda z, A: (A @ z) @ (A @ z).T),
            lambda S, A: A @ S @ A.T,
            lambda S, A: A.T @ S @ A,
            "transposes exchanged",
        ),
        *pair(
            "cookbook-376-covariance-of-linear-maps",
            f"{COOKBOOK}, (376) with y = x",
            r"\operatorname{Cov}[Ax, Bx] = A \Sigma B^\top",
            _gaussian(A=k_by_n, B=iv.matrix("l", "n")),
            iv.expect(lambda z, A, B: (A @ z) @ (B @ z).T),
            lambda S, A, B: A @ S @ B.T,
            lambda S, A, B: -(A @ S @ B.T),
            "sign",
            explicit_sizes={"n": [1, 2], "k": [1], "l": [2]},
        ),
        *pair(
            "cookbook-377-second-moment",
            f"{COOKBOOK}, (377)",
            r"E[x x^\top] = \Sigma + m m^\top",
            _gaussian(),
            iv.expect(lambda z, m: (m + z) @ (m + z).T),
            second,
            lambda S, m: S - m @ m.T,
            "sign",
            fast=True,
        ),
        *pair(
            "cookbook-378-quadratic-form",
            f"{COOKBOOK}, (378)",
            r"E[x^\top A x] = \operatorname{Tr}(A\Sigma) + m^\top A m",
            _gaussian(A=A),
            iv.expect(lambda z, m, A: (m + z).T @ A @ (m + z)),
            quadratic_mean,
            lambda A, S, m: trace(A) * trace(S) + m.T @ A @ m,
            "Tr(A)Tr(Σ) in place of Tr(AΣ)",
            fast=True,
        ),
        *pair(
            "cookbook-379-variance-of-quadratic-form",
            f"{COOKBOOK}, (379)",
            r"\operatorname{Var}(x^\top A x) = \operatorname{Tr}[A\Sigma(A + A^\top)\Sigma] + m^\top (A + A^\top) \Sigma (A + A^\top) m",
            _gaussian(A=A),
            iv.expect(
                lambda z, m, A, S: (
                    ((m + z).T @ A @ (m + z) - quadratic_mean(A, S, m))
                    @ ((m + z).T @ A @ (m + z) - quadratic_mean(A, S, m))
                )
            ),
            lambda A, S, m: trace(A @ S @ (A + A.T) @ S) + m.T @ (A + A.T) @ S @ (A + A.T) @ m,
            lambda A, S, m: trace(A @ S @ (A + A.T) @ S) - m.T @ (A + A.T) @ S @ (A + A.T) @ m,
            "sign of the mean term",
        ),
        *pair(
            "cookbook-380-shifted-quadratic-form",
            f"{COOKBOOK}, (380)",
            r"E[(x - m')^\top A (x - m')] = (m - m')^\top A (m - m') + \operatorname{Tr}(A\Sigma)",
            _gaussian(A=A, m2=COLUMN),
            iv.expect(lambda z, m, m2, A: (m + z - m2).T @ A @ (m + z - m2)),
            lambda A, S, m, m2: (m - m2).T @ A @ (m - m2) + trace(A @ S),
            lambda A, S, m, m2: (m + m2).T @ A @ (m + m2) + trace(A @ S),
            "sign of m′",
        ),
        *pair(
            "cookbook-381-variance-isotropic",
            f"{COOKBOOK}, (381) with σ² = 2",
            r"\Sigma = \sigma^2 I,\ A = A^\top:\ \operatorname{Var}(x^\top A x) = 2\sigma^4 \operatorname{Tr}(A^2)"
            r" + 4\sigma^2 m^\top A^2 m",
            {"z": iv.gaussian("n", cov=2), "m": COLUMN, "A": iv.matrix("n", "n", spd=True)},
            iv.expect(
                lambda z, m, A: (
                    ((m + z).T @ A @ (m + z) - 2 * trace(A) - m.T @ A @ m)
                    @ ((m + z).T @ A @ (m + z) - 2 * trace(A) - m.T @ A @ m)
                )
            ),
            lambda m, A: 2 * 4 * trace(A @ A) + 4 * 2 * m.T @ A @ A @ m,
            lambda m, A: 2 * 4 * trace(A @ A) + 2 * 2 * m.T @ A @ A @ m,
            "coefficient of the mean term",
        ),
        *pair(
            "cookbook-382-covariance-of-quadratic-forms",
            f"{COOKBOOK}, (382) with σ² = 2",
            r"x \sim N(0, \sigma^2 I),\ A = A^\top, B = B^\top:\ \operatorname{Cov}(x^\top A x, x^\top B x) = 2\sigma^4 \operatorname{Tr}(AB)",
            {"z": iv.gaussian("n", cov=2), "A": iv.matrix("n", "n", spd=True), "B": iv.matrix("n", "n", spd=True)},
            iv.expect(lambda z, A, B: (z.T @ A @ z - 2 * trace(A)) @ (z.T @ B @ z - 2 * trace(B))),
            lambda A, B: 2 * 4 * trace(A @ B),
            lambda A, B: 4 * trace(A @ B),
            "coefficient",
        ),
        *pair(
            "cookbook-383-cubic-form",
            f"{COOKBOOK}, (383) for a Gaussian",
            r"E[x b^\top x x^\top] = m b^\top (M + m m^\top) + (M + m m^\top) b m^\top + b^\top m (M - m m^\top)",
            _gaussian(b=COLUMN),
            iv.expect(lambda z, m, b: (m + z) @ b.T @ (m + z) @ (m + z).T),
            lambda S, m, b: m @ b.T @ second(S, m) + second(S, m) @ b @ m.T + (b.T @ m) * (S - m @ m.T),
            lambda S, m, b: m @ b.T @ second(S, m) + second(S, m) @ b @ m.T + (b.T @ m) * (S + m @ m.T),
            "sign of mmᵀ in the last term",
        ),
        *pair(
            "cookbook-8-2-4-quartic-outer",
            f"{COOKBOOK}, §8.2.4",
            r"E[x x^\top x x^\top] = 2(\Sigma + m m^\top)^2 + m^\top m (\Sigma - m m^\top) + \operatorname{Tr}(\Sigma)(\Sigma + m m^\top)",
            _gaussian(),
            iv.expect(lambda z, m: (m + z) @ (m + z).T @ (m + z) @ (m + z).T),
            lambda S, m: 2 * second(S, m) @ second(S, m) + (m.T @ m) * (S - m @ m.T) + trace(S) * second(S, m),
            lambda S, m: second(S, m) @ second(S, m) + (m.T @ m) * (S - m @ m.T) + trace(S) * second(S, m),
            "coefficient",
        ),
        *pair(
            "cookbook-8-2-4-quartic-with-matrix",
            f"{COOKBOOK}, §8.2.4",
            r"E[x x^\top A x x^\top] = (\Sigma + m m^\top)(A + A^\top)(\Sigma + m m^\top) + m^\top A m (\Sigma - m m^\top)"
            r" + \operatorname{Tr}(A\Sigma)(\Sigma + m m^\top)",
            _gaussian(A=A),
            iv.expect(lambda z, m, A: (m + z) @ (m + z).T @ A @ (m + z) @ (m + z).T),
            lambda S, m, A: (
                second(S, m) @ (A + A.T) @ second(S, m) + (m.T @ A @ m) * (S - m @ m.T) + trace(A @ S) * second(S, m)
            ),
            lambda S, m, A: (
                second(S, m) @ (A + A) @ second(S, m) + (m.T @ A @ m) * (S - m @ m.T) + trace(A @ S) * second(S, m)
            ),
            "transpose dropped",
        ),
        *pair(
            "cookbook-8-2-4-quartic-inner",
            f"{COOKBOOK}, §8.2.4",
            r"E[x^\top x x^\top x] = 2\operatorname{Tr}(\Sigma^2) + 4 m^\top \Sigma m + (\operatorname{Tr}(\Sigma) + m^\top m)^2",
            _gaussian(),
            iv.expect(lambda z, m: (m + z).T @ (m + z) @ (m + z).T @ (m + z)),
            lambda S, m: 2 * trace(S @ S) + 4 * m.T @ S @ m + (trace(S) + m.T @ m) ** 2,
            lambda S, m: 2 * trace(S @ S) + 2 * m.T @ S @ m + (trace(S) + m.T @ m) ** 2,
            "coefficient",
        ),
        *pair(
            "cookbook-8-2-4-two-quadratic-forms",
            f"{COOKBOOK}, §8.2.4",
            r"E[x^\top A x x^\top B x] = \operatorname{Tr}[A\Sigma(B + B^\top)\Sigma] + m^\top (A + A^\top)\Sigma(B + B^\top) m"
            r" + (\operatorname{Tr}(A\Sigma) + m^\top A m)(\operatorname{Tr}(B\Sigma) + m^\top B m)",
            _gaussian(A=A, B=B),
            iv.expect(lambda z, m, A, B: (m + z).T @ A @ (m + z) @ (m + z).T @ B @ (m + z)),
            lambda S, m, A, B: (
                trace(A @ S @ (B + B.T) @ S)
                + m.T @ (A + A.T) @ S @ (B + B.T) @ m
                + quadratic_mean(A, S, m) * quadratic_mean(B, S, m)
            ),
            lambda S, m, A, B: (
                trace(A @ S @ (B + B.T) @ S)
                + m.T @ (A + A.T) @ S @ (B - B.T) @ m
                + quadratic_mean(A, S, m) * quadratic_mean(B, S, m)
            ),
            "sign inside the mean term",
            explicit_sizes=one,
        ),
        *pair(
            "cookbook-8-2-4-four-linear-forms",
            f"{COOKBOOK}, §8.2.4",
            r"E[a^\top x\, b^\top x\, c^\top x\, d^\top x] = (a^\top M b)(c^\top M d) + (a^\top M c)(b^\top M d)"
            r" + (a^\top M d)(b^\top M c) - 2 a^\top m\, b^\top m\, c^\top m\, d^\top m,\ M = \Sigma + m m^\top",
            _gaussian(a=COLUMN, b=COLUMN, c=COLUMN, d=COLUMN),
            iv.expect(lambda z, m, a, b, c, d: (a.T @ (m + z)) * (b.T @ (m + z)) * (c.T @ (m + z)) * (d.T @ (m + z))),
            lambda S, m, a, b, c, d: (
                (a.T @ second(S, m) @ b) * (c.T @ second(S, m) @ d)
                + (a.T @ second(S, m) @ c) * (b.T @ second(S, m) @ d)
                + (a.T @ second(S, m) @ d) * (b.T @ second(S, m) @ c)
                - 2 * (a.T @ m) * (b.T @ m) * (c.T @ m) * (d.T @ m)
            ),
            lambda S, m, a, b, c, d: (
                (a.T @ second(S, m) @ b) * (c.T @ second(S, m) @ d)
                + (a.T @ second(S, m) @ c) * (b.T @ second(S, m) @ d)
                + (a.T @ second(S, m) @ d) * (b.T @ second(S, m) @ c)
                - 3 * (a.T @ m) * (b.T @ m) * (c.T @ m) * (d.T @ m)
            ),
            "coefficient of the mean term",
            explicit_sizes=one,
        ),
        *pair(
            "cookbook-8-2-4-affine-outer-products",
            f"{COOKBOOK}, §8.2.4",
            r"E[(Ax + a)(Bx + b)^\top (Cx + c)(Dx + d)^\top] = [A\Sigma B^\top + (Am + a)(Bm + b)^\top]"
            r"[C\Sigma D^\top + (Cm + c)(Dm + d)^\top] + [A\Sigma C^\top + (Am + a)(Cm + c)^\top]"
            r"[B\Sigma D^\top + (Bm + b)(Dm + d)^\top] + (Bm + b)^\top (Cm + c)[A\Sigma D^\top - (Am + a)(Dm + d)^\top]"
            r" + \operatorname{Tr}(B\Sigma C^\top)[A\Sigma D^\top + (Am + a)(Dm + d)^\top]",
            _gaussian(**four),
            iv.expect(
                lambda z, m, A, B, C, D, a, b, c, d: (
                    (A @ (m + z) + a) @ (B @ (m + z) + b).T @ (C @ (m + z) + c) @ (D @ (m + z) + d).T
                )
            ),
            outer_four,
            lambda A, B, C, D, a, b, c, d, S, m: outer_four(A, B, C, D, a, b, c, d, S, m, -1),
            "sign of (Am + a)(Dm + d)ᵀ in the third term",
            explicit_sizes=one,
        ),
        *pair(
            "cookbook-8-2-4-affine-inner-products",
            f"{COOKBOOK}, §8.2.4",
            r"E[(Ax + a)^\top (Bx + b)(Cx + c)^\top (Dx + d)] = \operatorname{Tr}[A\Sigma(C^\top D + D^\top C)\Sigma B^\top]"
            r" + [(Am + a)^\top B + (Bm + b)^\top A]\Sigma[C^\top (Dm + d) + D^\top (Cm + c)]"
            r" + [\operatorname{Tr}(A\Sigma B^\top) + (Am + a)^\top (Bm + b)][\operatorname{Tr}(C\Sigma D^\top) + (Cm + c)^\top (Dm + d)]",
            _gaussian(**four),
            iv.expect(
                lambda z, m, A, B, C, D, a, b, c, d: (
                    (A @ (m + z) + a).T @ (B @ (m + z) + b) @ (C @ (m + z) + c).T @ (D @ (m + z) + d)
                )
            ),
            inner_four,
            lambda A, B, C, D, a, b, c, d, S, m: inner_four(A, B, C, D, a, b, c, d, S, m, -1),
            "sign of the product of means",
            explicit_sizes=one,
        ),
        *pair(
            "affine-second-moment",
            f"{COOKBOOK}, (374)–(377) for affine maps",
            r"E[(Ax + a)(Bx + b)^\top] = A\Sigma B^\top + (Am + a)(Bm + b)^\top",
            _gaussian(A=k_by_n, B=iv.matrix("l", "n"), a=iv.matrix("k", 1), b=iv.matrix("l", 1)),
            iv.expect(lambda z, m, A, B, a, b: (A @ (m + z) + a) @ (B @ (m + z) + b).T),
            lambda S, m, A, B, a, b: A @ S @ B.T + (A @ m + a) @ (B @ m + b).T,
            lambda S, m, A, B, a, b: A @ S @ B.T + (A @ m + a) @ (B @ m - b).T,
            "sign of b",
            explicit_sizes={"n": [1, 2], "k": [1], "l": [2]},
        ),
        *pair(
            "cookbook-343-wishart-mean",
            f"{COOKBOOK}, (343): XᵀX ~ Wishart(Σ, N)",
            r"X \in \mathbb{R}^{N\times n} \text{ with rows } N(0, \Sigma):\ E[X^\top X] = N \Sigma",
            {"X": iv.gaussian("N", "n", cov="S"), "S": iv.matrix("n", "n", spd=True)},
            iv.expect(lambda X: X.T @ X),
            lambda S, N: N * S,
            lambda S, n: n * S,
            "n in place of N",
        ),
        *pair(
            "wishart-second-moment",
            f"{COOKBOOK}, §8.2.4 with m = 0, summed over N independent rows",
            r"E[X^\top X A X^\top X] = N^2 \Sigma A \Sigma + N(\Sigma A^\top \Sigma + \operatorname{Tr}(A\Sigma)\Sigma)",
            {"X": iv.gaussian("N", "n", cov="S"), "S": iv.matrix("n", "n", spd=True), "A": A},
            iv.expect(lambda X, A: X.T @ X @ A @ X.T @ X),
            lambda S, A, N: N**2 * S @ A @ S + N * (S @ A.T @ S + trace(A @ S) * S),
            lambda S, A, N: N**2 * S @ A @ S + N * (S @ A @ S + trace(A @ S) * S),
            "transpose dropped",
            explicit_sizes={"N": [1, 2], "n": [1]},
        ),
    ]


def _isserlis() -> list[Entry]:
    """Isserlis (1918) / Wick: Gaussian product moments by pairings; the fourth cumulant of iid entries."""
    scalar = {"x": iv.gaussian(1, cov="s2"), "s2": iv.matrix(1, 1, spd=True)}
    vectors = {"x": iv.gaussian("n", cov="S"), "S": iv.matrix("n", "n", spd=True), "a": COLUMN, "b": COLUMN}

    def power(x: Any, k: int) -> Any:
        out = x
        for _ in range(k - 1):
            out = out @ x
        return out

    def var(s2: Any) -> Any:
        return trace(s2)

    def form(u: Any, S: Any, v: Any) -> Any:
        return u.T @ S @ v

    one = {"n": [1]}
    return [
        *pair(
            "isserlis-second-moment",
            "Isserlis 1918: x ~ N(0, σ²)",
            r"E[x^2] = \sigma^2",
            scalar,
            iv.expect(lambda x: power(x, 2)),
            lambda s2: var(s2),
            lambda s2: 2 * var(s2),
            "coefficient",
        ),
        *pair(
            "isserlis-odd-moment",
            "Isserlis 1918: odd moments of a centred Gaussian vanish",
            r"E[x^3] = 0",
            scalar,
            iv.expect(lambda x: power(x, 3)),
            lambda s2: 0 * var(s2),
            lambda s2: var(s2),
            "a non-zero value",
        ),
        *pair(
            "isserlis-fourth-moment",
            "Isserlis 1918: 3 pairings",
            r"E[x^4] = 3\sigma^4",
            scalar,
            iv.expect(lambda x: power(x, 4)),
            lambda s2: 3 * var(s2) ** 2,
            lambda s2: var(s2) ** 2,
            "coefficient (independence in place of the pairings)",
            fast=True,
        ),
        *pair(
            "isserlis-sixth-moment",
            "Isserlis 1918: 5!! = 15 pairings",
            r"E[x^6] = 15\sigma^6",
            scalar,
            iv.expect(lambda x: power(x, 6)),
            lambda s2: 15 * var(s2) ** 3,
            lambda s2: 9 * var(s2) ** 3,
            "coefficient (the sixth moment of a kurtosis-3 three-point law)",
        ),
        *pair(
            "isserlis-eighth-moment",
            "Isserlis 1918: 7!! = 105 pairings",
            r"E[x^8] = 105\sigma^8",
            scalar,
            iv.expect(lambda x: power(x, 8)),
            lambda s2: 105 * var(s2) ** 4,
            lambda s2: 96 * var(s2) ** 4,
            "coefficient",
        ),
        *pair(
            "isserlis-two-directions",
            "Isserlis 1918",
            r"E[(a^\top x)^2 (b^\top x)^2] = (a^\top \Sigma a)(b^\top \Sigma b) + 2 (a^\top \Sigma b)^2",
            vectors,
            iv.expect(lambda x, a, b: (a.T @ x) ** 2 * (b.T @ x) ** 2),
            lambda S, a, b: form(a, S, a) * form(b, S, b) + 2 * form(a, S, b) ** 2,
            lambda S, a, b: form(a, S, a) * form(b, S, b) + form(a, S, b) ** 2,
            "coefficient",
        ),
        *pair(
            "isserlis-three-and-one",
            "Isserlis 1918",
            r"E[(a^\top x)^3 (b^\top x)] = 3 (a^\top \Sigma a)(a^\top \Sigma b)",
            vectors,
            iv.expect(lambda x, a, b: (a.T @ x) ** 3 * (b.T @ x)),
            lambda S, a, b: 3 * form(a, S, a) * form(a, S, b),
            lambda S, a, b: 3 * form(a, S, a) * form(b, S, b),
            "b in place of a",
        ),
        *pair(
            "isserlis-sixth-moment-of-a-direction",
            "Isserlis 1918",
            r"E[(a^\top x)^6] = 15 (a^\top \Sigma a)^3",
            vectors,
            iv.expect(lambda x, a: (a.T @ x) ** 6),
            lambda S, a: 15 * form(a, S, a) ** 3,
            lambda S, a: 15 * form(a, S, a) ** 2,
            "exponent",
            explicit_sizes=one,
        ),
        *pair(
            "isserlis-four-directions",
            "Isserlis 1918",
            r"E[a^\top x\, b^\top x\, c^\top x\, d^\top x] = (a^\top\Sigma b)(c^\top\Sigma d) + (a^\top\Sigma c)(b^\top\Sigma d)"
            r" + (a^\top\Sigma d)(b^\top\Sigma c)",
            {**vectors, "c": COLUMN, "d": COLUMN},
            iv.expect(lambda x, a, b, c, d: (a.T @ x) * (b.T @ x) * (c.T @ x) * (d.T @ x)),
            lambda S, a, b, c, d: (
                form(a, S, b) * form(c, S, d) + form(a, S, c) * form(b, S, d) + form(a, S, d) * form(b, S, c)
            ),
            lambda S, a, b, c, d: (
                form(a, S, b) * form(c, S, d) + form(a, S, c) * form(b, S, d) - form(a, S, d) * form(b, S, c)
            ),
            "sign",
            explicit_sizes=one,
        ),
        *pair(
            "isserlis-squared-norm",
            "Isserlis 1918",
            r"E[(x^\top x)^2] = 2 \operatorname{Tr}(\Sigma^2) + (\operatorname{Tr} \Sigma)^2",
            {"x": iv.gaussian("n", cov="S"), "S": iv.matrix("n", "n", spd=True)},
            iv.expect(lambda x: x.T @ x @ x.T @ x),
            lambda S: 2 * trace(S @ S) + trace(S) ** 2,
            lambda S: trace(S @ S) + trace(S) ** 2,
            "coefficient",
        ),
        *pair(
            "isserlis-centred-quartic-outer",
            "Isserlis 1918",
            r"E[x x^\top x x^\top] = 2\Sigma^2 + \operatorname{Tr}(\Sigma)\Sigma",
            {"x": iv.gaussian("n", cov="S"), "S": iv.matrix("n", "n", spd=True)},
            iv.expect(lambda x: x @ x.T @ x @ x.T),
            lambda S: 2 * S @ S + trace(S) * S,
            lambda S: 2 * S @ S + trace(S @ S) * S,
            "Tr(Σ²) in place of Tr(Σ)",
        ),
        *pair(
            "iid-fourth-moment-of-the-norm",
            "the fourth cumulant of iid entries (E r² = 1, E r⁴ = κ)",
            r"E[(x^\top x)^2] = n(n + \kappa - 1)",
            {"x": iv.iid("n", variance=1, kurtosis="k"), "k": POSITIVE},
            iv.expect(lambda x: x.T @ x @ x.T @ x),
            lambda n, k: n * (n + k - 1),
            lambda n: n * (n + 2),
            "the Gaussian value κ = 3",
        ),
        *pair(
            "iid-quadratic-form",
            "iid entries of variance σ²: E[xxᵀ] = σ² I",
            r"E[x^\top A x] = \sigma^2 \operatorname{Tr}(A)",
            {"x": iv.iid("n", variance="s", kurtosis=3), "s": POSITIVE, "A": SQUARE},
            iv.expect(lambda x, A: x.T @ A @ x),
            lambda s, A: s * trace(A),
            lambda s, A: s**2 * trace(A),
            "exponent of σ²",
        ),
    ]


def _non_polynomial_moments() -> list[Entry]:
    """Moments outside the Wick fragment: a random variable under an inverse, a root or an exponential."""
    standard = {"x": iv.gaussian("n", cov=1)}
    return [
        *pair(
            "normalised-outer-product",
            "rotational invariance of N(0, I_n): E[x xᵀ / xᵀx] = I/n",
            r"E\left[\frac{x x^\top}{x^\top x}\right] = \frac{I}{n}",
            standard,
            iv.expect(lambda x: x @ inverse(x.T @ x) @ x.T),
            lambda n: eye(n, n) / n,
            lambda n: eye(n, n) / (n + 1),
            "denominator",
            decided=False,
        ),
        *pair(
            "half-normal-mean",
            "the half-normal law: x ~ N(0, 1)",
            r"E\,|x| = \sqrt{2/\pi}",
            {"x": iv.gaussian(1, cov=1)},
            iv.expect(lambda x: sqrt(x.T @ x)),
            lambda: math.sqrt(2 / math.pi),
            lambda: math.sqrt(1 / math.pi),
            "coefficient under the root",
            decided=False,
        ),
        *pair(
            "gaussian-moment-generating-function",
            "the moment generating function of N(0, 1)",
            r"E\,e^{t x} = e^{t^2/2},\ t \in [-1, 1]",
            {"x": iv.gaussian(1, cov=1), "t": iv.scalar(low=-1, high=1)},
            iv.expect(lambda x, t: exp(t * x)),
            lambda t: exp(t**2 / 2),
            lambda t: exp(t**2),
            "coefficient in the exponent",
            decided=False,
        ),
    ]


HLP = "Hardy, Littlewood & Pólya 1952, Inequalities"


def _inequalities() -> list[Entry]:
    """Classical inequalities: scalar ones decided by z3, matrix ones and those over an integer searched."""
    xy = {"x": POSITIVE, "y": POSITIVE}
    ab = {"a": SCALAR, "b": SCALAR}
    xyz = {"x": iv.scalar(low=0), "y": iv.scalar(low=0), "z": iv.scalar(low=0)}
    abc = {"a": POSITIVE, "b": POSITIVE, "c": POSITIVE}
    return [
        *pair(
            "am-gm-two",
            f"{HLP} (AM–GM)",
            r"\tfrac{x + y}{2} \ge \sqrt{xy},\ x, y > 0",
            xy,
            lambda x, y: (x + y) / 2,
            lambda x, y: sqrt(x * y),
            lambda x, y: sqrt(x * y),
            "direction",
            relation=">=",
            twin_relation="<=",
            fast=True,
        ),
        *pair(
            "am-gm-squares",
            f"{HLP} (AM–GM for squares)",
            r"a^2 + b^2 \ge 2ab",
            ab,
            lambda a, b: a**2 + b**2,
            lambda a, b: 2 * a * b,
            lambda a, b: 3 * a * b,
            "coefficient",
            relation=">=",
        ),
        *pair(
            "am-gm-three-cubes",
            f"{HLP} (AM–GM for three cubes)",
            r"x^3 + y^3 + z^3 \ge 3xyz,\ x, y, z \ge 0",
            xyz,
            lambda x, y, z: x**3 + y**3 + z**3,
            lambda x, y, z: 3 * x * y * z,
            lambda x, y, z: 4 * x * y * z,
            "coefficient",
            relation=">=",
        ),
        *pair(
            "cauchy-schwarz-two-terms",
            f"{HLP} (Cauchy–Schwarz)",
            r"(a c + b d)^2 \le (a^2 + b^2)(c^2 + d^2)",
            {**ab, "c": SCALAR, "d": SCALAR},
            lambda a, b, c, d: (a * c + b * d) ** 2,
            lambda a, b, c, d: (a**2 + b**2) * (c**2 + d**2),
            lambda a, b, c, d: (a**2 + b**2) * (c**2 + d**2) / 2,
            "coefficient",
            relation="<=",
        ),
        *pair(
            "cauchy-schwarz-vectors",
            f"{HLP} (Cauchy–Schwarz)",
            r"(u^\top v)^2 \le (u^\top u)(v^\top v)",
            {"u": COLUMN, "v": COLUMN},
            lambda u, v: (u.T @ v) @ (u.T @ v),
            lambda u, v: (u.T @ u) @ (v.T @ v),
            lambda u, v: (u.T @ u) @ (v.T @ v) / 2,
            "coefficient",
            relation="<=",
            decided=False,
        ),
        *pair(
            "cauchy-schwarz-frobenius",
            f"{HLP} (Cauchy–Schwarz for the trace inner product)",
            r"\operatorname{Tr}(A^\top B)^2 \le \operatorname{Tr}(A^\top A)\operatorname{Tr}(B^\top B)",
            {"A": iv.matrix("n", "m"), "B": iv.matrix("n", "m")},
            lambda A, B: trace(A.T @ B) ** 2,
            lambda A, B: trace(A.T @ A) * trace(B.T @ B),
            lambda A, B: trace(A.T @ A) * trace(B.T @ B) / 2,
            "coefficient",
            relation="<=",
            decided=False,
        ),
        *pair(
            "frobenius-submultiplicative",
            "Horn & Johnson 2013, §5.6 (the Frobenius norm is submultiplicative)",
            r"\operatorname{Tr}(AB(AB)^\top) \le \operatorname{Tr}(AA^\top)\operatorname{Tr}(BB^\top)",
            {"A": iv.matrix("n", "k"), "B": iv.matrix("k", "m")},
            lambda A, B: trace(A @ B @ (A @ B).T),
            lambda A, B: trace(A @ A.T) * trace(B @ B.T),
            lambda A, B: trace(A @ A.T) * trace(B @ B.T) / 2,
            "coefficient",
            relation="<=",
            decided=False,
        ),
        *pair(
            "bernoulli-cube",
            "Bernoulli's inequality, exponent 3",
            r"(1 + x)^3 \ge 1 + 3x,\ x \ge -1",
            {"x": iv.scalar(low=-1)},
            lambda x: (1 + x) ** 3,
            lambda x: 1 + 3 * x,
            lambda x: 1 + 4 * x,
            "coefficient",
            relation=">=",
        ),
        *pair(
            "bernoulli-every-exponent",
            "Bernoulli's inequality",
            r"(1 + x)^K \ge 1 + Kx,\ x \ge -1,\ K \in \mathbb{N}",
            {"x": iv.scalar(low=-1), "K": iv.integer(low=0)},
            lambda x, K: (1 + x) ** K,
            lambda x, K: 1 + K * x,
            lambda x, K: 1 + (K + 1) * x,
            "K + 1 in place of K",
            relation=">=",
            decided=False,
        ),
        *pair(
            "square-of-sum",
            f"{HLP} (Cauchy–Schwarz with two terms)",
            r"(a + b)^2 \le 2(a^2 + b^2)",
            ab,
            lambda a, b: (a + b) ** 2,
            lambda a, b: 2 * (a**2 + b**2),
            lambda a, b: a**2 + b**2,
            "coefficient",
            relation="<=",
            fast=True,
        ),
        *pair(
            "triangle-inequality",
            "the triangle inequality",
            r"|a + b| \le |a| + |b|",
            ab,
            lambda a, b: abs(a + b),
            lambda a, b: abs(a) + abs(b),
            lambda a, b: abs(a) + abs(b),
            "direction",
            relation="<=",
            twin_relation=">=",
        ),
        *pair(
            "reverse-triangle-inequality",
            "the reverse triangle inequality",
            r"\big||a| - |b|\big| \le |a - b|",
            ab,
            lambda a, b: abs(abs(a) - abs(b)),
            lambda a, b: abs(a - b),
            lambda a, b: abs(a - b) / 2,
            "coefficient",
            relation="<=",
        ),
        *pair(
            "young-with-epsilon",
            f"{HLP} (Young's inequality, p = q = 2, with a weight)",
            r"ab \le \tfrac{\varepsilon}{2} a^2 + \tfrac{1}{2\varepsilon} b^2,\ \varepsilon > 0",
            {**ab, "eps": POSITIVE},
            lambda a, b, eps: a * b,
            lambda a, b, eps: eps * a**2 / 2 + b**2 / (2 * eps),
            lambda a, b, eps: eps * a**2 / 2 + b**2 / (4 * eps),
            "coefficient",
            relation="<=",
        ),
        *pair(
            "young-four-thirds",
            f"{HLP} (Young's inequality, p = 4, q = 4/3, written for a, c = b^(1/3) ≥ 0)",
            r"a c^3 \le \tfrac{a^4}{4} + \tfrac{3 c^4}{4},\ a, c \ge 0",
            {"a": iv.scalar(low=0), "c": iv.scalar(low=0)},
            lambda a, c: a * c**3,
            lambda a, c: a**4 / 4 + 3 * c**4 / 4,
            lambda a, c: a**4 / 4 + c**4 / 2,
            "coefficient",
            relation="<=",
        ),
        *pair(
            "exponential-above-tangent",
            "convexity of exp: the tangent at 0",
            r"e^x \ge 1 + x",
            {"x": SCALAR},
            lambda x: exp(x),
            lambda x: 1 + x,
            lambda x: 1 + 2 * x,
            "coefficient",
            relation=">=",
            decided=False,
        ),
        *pair(
            "logarithm-below-tangent",
            "concavity of log: the tangent at 1",
            r"\log x \le x - 1,\ x > 0",
            {"x": POSITIVE},
            lambda x: log(x),
            lambda x: x - 1,
            lambda x: x - 1,
            "direction",
            relation="<=",
            twin_relation=">=",
            decided=False,
        ),
        *pair(
            "schur-inequality",
            "Schur's inequality, t = 1",
            r"x(x - y)(x - z) + y(y - x)(y - z) + z(z - x)(z - y) \ge 0,\ x, y, z \ge 0",
            xyz,
            lambda x, y, z: x * (x - y) * (x - z) + y * (y - x) * (y - z) + z * (z - x) * (z - y),
            lambda x, y, z: 0 * x,
            lambda x, y, z: x * y * z,
            "a positive right-hand side",
            relation=">=",
        ),
        *pair(
            "nesbitt-inequality",
            "Nesbitt 1903",
            r"\frac{a}{b + c} + \frac{b}{a + c} + \frac{c}{a + b} \ge \tfrac32,\ a, b, c > 0",
            abc,
            lambda a, b, c: a / (b + c) + b / (a + c) + c / (a + b),
            lambda a, b, c: 1.5 + 0 * a,
            lambda a, b, c: 2 + 0 * a,
            "constant",
            relation=">=",
        ),
        *pair(
            "engel-form",
            f"{HLP} (Cauchy–Schwarz in Engel's form)",
            r"\frac{a^2}{x} + \frac{b^2}{y} \ge \frac{(a + b)^2}{x + y},\ x, y > 0",
            {**ab, **xy},
            lambda a, b, x, y: a**2 / x + b**2 / y,
            lambda a, b, x, y: (a + b) ** 2 / (x + y),
            lambda a, b, x, y: (a + b) ** 2 / (x + y),
            "direction",
            relation=">=",
            twin_relation="<=",
        ),
        *pair(
            "quadratic-mean-above-arithmetic-mean",
            f"{HLP} (power means)",
            r"\sqrt{\tfrac{a^2 + b^2}{2}} \ge \tfrac{a + b}{2}",
            ab,
            lambda a, b: sqrt((a**2 + b**2) / 2),
            lambda a, b: (a + b) / 2,
            lambda a, b: a + b,
            "coefficient",
            relation=">=",
        ),
    ]


def _scalar_identities() -> list[Entry]:
    """Classical polynomial identities in scalars."""
    abcd = {"a": SCALAR, "b": SCALAR, "c": SCALAR, "d": SCALAR}
    return [
        *pair(
            "brahmagupta-fibonacci",
            "Brahmagupta–Fibonacci identity (Lagrange's identity for n = 2)",
            r"(a^2 + b^2)(c^2 + d^2) = (ac - bd)^2 + (ad + bc)^2",
            abcd,
            lambda a, b, c, d: (a**2 + b**2) * (c**2 + d**2),
            lambda a, b, c, d: (a * c - b * d) ** 2 + (a * d + b * c) ** 2,
            lambda a, b, c, d: (a * c + b * d) ** 2 + (a * d + b * c) ** 2,
            "sign",
        ),
        *pair(
            "sum-of-cubes",
            "factorisation of a sum of cubes",
            r"a^3 + b^3 = (a + b)(a^2 - ab + b^2)",
            {"a": SCALAR, "b": SCALAR},
            lambda a, b: a**3 + b**3,
            lambda a, b: (a + b) * (a**2 - a * b + b**2),
            lambda a, b: (a + b) * (a**2 + a * b + b**2),
            "sign",
        ),
        *pair(
            "completing-the-square",
            f"{COOKBOOK}, §8.1.6 (A symmetric)",
            r"-\tfrac12 x^\top A x + b^\top x = -\tfrac12 (x - A^{-1}b)^\top A (x - A^{-1}b) + \tfrac12 b^\top A^{-1} b",
            {"A": iv.matrix("n", "n", spd=True), "x": COLUMN, "b": COLUMN},
            lambda A, x, b: -x.T @ A @ x / 2 + b.T @ x,
            lambda A, x, b: -(x - inverse(A) @ b).T @ A @ (x - inverse(A) @ b) / 2 + b.T @ inverse(A) @ b / 2,
            lambda A, x, b: -(x - inverse(A) @ b).T @ A @ (x - inverse(A) @ b) / 2 - b.T @ inverse(A) @ b / 2,
            "sign of the constant",
        ),
    ]


CORPUS: list[Entry] = [
    *_basics(),
    *_traces(),
    *_determinants(),
    *_two_by_two(),
    *_inverses(),
    *_blocks(),
    *_gaussian_moments(),
    *_isserlis(),
    *_non_polynomial_moments(),
    *_inequalities(),
    *_scalar_identities(),
]
"""Every statement of the corpus, each true one followed by its false twin."""
