"""``icl-verify raw``: compile one of Akyürek et al.'s RAW programs into transformer weights, run it
on a seeded random task and compare it with the closed form (ICLR 2023, Theorems 1–2).

Exit status 0 when the transformer reproduces the closed form to a relative error of at most
:data:`AGREEMENT`, 1 otherwise (the construction's products and divisions are accurate only while the
values stay in their range: a diverging GD, too many examples or too small a scale leave it)."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import click

from icl_verify.cli._params import FiniteFloat, count, max_memory_option, reject_given, within_memory

if TYPE_CHECKING:  # NumPy and the compiler are imported when the command runs, not to parse its options
    import numpy as np

PROGRAMS = ("theorem1", "theorem2", "sgd", "ridge")
SINGLE_EXAMPLE = ("theorem1", "theorem2")  # one (x, y) pair: --n does not apply
AGREEMENT = 1e-3
"""The relative error to the closed form within which the compiled transformer reproduces it: the defaults reach
1e-8 to 1e-5 (the construction's error shrinks as 1/N² with the scale N)."""
USES_ALPHA = ("theorem1", "sgd")  # GD steps: --alpha applies


def compiled_size(name: str, d: int, n: int) -> tuple[int, int]:
    """(layers, width) of the compiled ``name`` for dimension d and n examples, before compiling.

    The width is the compiler's layout (``numerics.raw.compiler.Geometry``): data and scratch units
    plus one position unit per timestep (2n + 2 with the sink) plus three control units; the GD
    programs keep O(d) scratch units, the ridge programs a d × d matrix (O(d²)). Layers: one block
    per example step.
    """
    n = 1 if name in SINGLE_EXAMPLE else n
    quadratic = name in ("theorem2", "ridge")
    units = 4 * d * d + (6 if name == "theorem2" else 7) * d + 4 if quadratic else 5 * d + 4
    layers = {"theorem1": 9, "theorem2": 10, "sgd": 5 * n + 2, "ridge": 6 * n + 3}[name]
    return layers, units + 2 * n + 2 + 3


def memory_estimate(name: str, d: int, n: int) -> int:
    """Bytes of the compiled weights: per layer at most three width × width float64 blocks (attention, MLP in
    and out)."""
    layers, width = compiled_size(name, d, n)
    return 24 * layers * width * width


def build(name: str, d: int, n: int, alpha: float, lam: float, rng: np.random.Generator) -> dict:
    """The program, its input and the closed-form prediction for a random task (w, x ~ N(0, I))."""
    from icl_verify.numerics.raw.learners import ridge_weights, sgd_weights
    from icl_verify.numerics.raw.programs import encode_examples, ridge_chain, sgd_chain, theorem1, theorem2

    n = 1 if name in ("theorem1", "theorem2") else n
    X, y, xq, w0 = rng.normal(size=(n, d)), rng.normal(size=n), rng.normal(size=d), rng.normal(size=d)
    if name == "theorem1":
        (program, readout), w = theorem1(d, w0, alpha, lam), sgd_weights(X, y, alpha, lam, w0)
    elif name == "theorem2":
        (program, readout), w = theorem2(d, lam), ridge_weights(X, y, lam)
    elif name == "sgd":
        (program, readout), w = sgd_chain(n, d, w0, alpha, lam), sgd_weights(X, y, alpha, lam, w0)
    else:
        (program, readout), w = ridge_chain(n, d, lam), ridge_weights(X, y, lam)
    return {
        "program": program,
        "readout": readout,
        "H": encode_examples(X, y, xq, program.D),
        "closed_form": float(w @ xq),
        "n": n,
    }


def run(name: str, d: int, n: int, alpha: float, lam: float, scale: float | None, seed: int) -> dict:
    """Compile and run; returns a JSON-ready record with sizes, timings and the relative error."""
    import numpy as np

    from icl_verify.numerics.raw import compiler as rc

    task = build(name, d, n, alpha, lam, np.random.default_rng(seed))
    scales = rc.Scales() if scale is None else rc.Scales.uniform(scale, attention=100.0)
    t0 = time.perf_counter()
    compiled = rc.compile_program(task["program"], scales)
    t1 = time.perf_counter()
    out = compiled.run(task["H"], check_range=False)  # the command reports the construction's error itself
    t2 = time.perf_counter()
    pred = float(task["program"].read(out, *task["readout"])[0])
    exact = task["closed_form"]
    return {
        "program": name,
        "d": d,
        "n": task["n"],
        "seed": seed,
        "primitives": len(task["program"].ops),
        "layers": compiled.depth,
        "width": compiled.width,
        "mlp_width": compiled.mlp_width,
        "scales": vars(scales),
        "compile_seconds": round(t1 - t0, 4),
        "forward_seconds": round(t2 - t1, 4),
        "prediction": pred,
        "closed_form": exact,
        "relative_error": (error := abs(pred - exact) / max(abs(exact), 1e-300)),
        "checks": {f"reproduces the closed form (relative error ≤ {AGREEMENT:g})": bool(error <= AGREEMENT)},
    }


def _check_applies(ctx: click.Context, program: str) -> None:
    """Refuse an option given on the command line that the chosen program does not use."""
    if program in SINGLE_EXAMPLE:
        reject_given(ctx, "n", f"does not apply to {program} (one example)")
    if program not in USES_ALPHA:
        reject_given(ctx, "alpha", f"does not apply to {program} (no gradient step)")


@click.command("raw")
@click.argument("program", type=click.Choice(PROGRAMS))
@click.option("--dimension", "-d", "d", default=8, show_default=True, type=count(1, 100_000), help="Input dimension.")
@click.option(
    "--examples", "-n", "n", default=4, show_default=True, type=count(1, 100_000), help="Examples (sgd, ridge)."
)
@click.option(
    "--alpha",
    default=0.1,
    show_default=True,
    type=FiniteFloat(min=0, max=10, min_open=True),
    help="GD step size (theorem1, sgd).",
)
@click.option("--lam", default=0.5, show_default=True, type=FiniteFloat(min=1e-6, max=1e6), help="λ.")
@click.option(
    "--scale",
    default=None,
    type=FiniteFloat(min=1, max=1e8),
    help="One construction scale N (M = N_a = N, N_d = N², β = 100); default: the compiler's.",
)
@click.option("--seed", default=0, show_default=True, type=click.IntRange(min=0), help="Seed of the random task.")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON record.")
@max_memory_option
@click.pass_context
def command(
    ctx: click.Context,
    program: str,
    d: int,
    n: int,
    alpha: float,
    lam: float,
    scale: float | None,
    seed: int,
    as_json: bool,
    max_memory: float,
) -> None:
    """Compile a RAW program to transformer weights, run it and compare.

    PROGRAM is theorem1, theorem2, sgd or ridge; the result is compared with the closed form. Exit status 0
    when the transformer reproduces it to a relative error of at most 1e-3, 1 when it does not (its
    approximations hold only while the values stay in range: try a smaller --alpha, fewer examples or a
    larger --scale)."""
    from icl_verify.output import strict_json

    _check_applies(ctx, program)
    within_memory(memory_estimate(program, d, n), max_memory, f"raw {program} with d={d}, n={n}")
    record = run(program, d, n, alpha, lam, scale, seed)
    agrees = all(record["checks"].values())
    if as_json:
        click.echo(strict_json.dumps(strict_json.versioned(record), indent=2))
        raise SystemExit(0 if agrees else 1)
    click.echo(
        f"{program}: d={d} n={record['n']} seed={seed} — {record['primitives']} primitives → {record['layers']} layers, "
        f"width {record['width']}, ≤ {record['mlp_width']} GeLU units/layer\n"
        f"compile {record['compile_seconds']:.3f} s, forward {record['forward_seconds']:.3f} s\n"
        f"transformer {record['prediction']:.12g}  closed form {record['closed_form']:.12g}  "
        f"relative error {record['relative_error']:.2e}"
    )
    for criterion, ok in record["checks"].items():
        click.echo(f"  [{'ok' if ok else 'FAIL'}] {criterion}")
    if not agrees:
        click.echo(
            "the transformer did not reproduce the closed form: its values left the range where the construction's "
            "products and divisions hold (try a smaller --alpha, fewer examples or a larger --scale)",
            err=True,
        )
    raise SystemExit(0 if agrees else 1)
