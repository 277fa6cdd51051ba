"""``icl-verify raw``: compile one of Akyürek et al.'s RAW programs into transformer weights, run it
on a seeded random task and compare it with the closed form (ICLR 2023, Theorems 1–2)."""

from __future__ import annotations

import json
import time

import click
import numpy as np

from icl_verify.numerics.raw import compiler as rc
from icl_verify.numerics.raw.learners import ridge_weights, sgd_weights
from icl_verify.numerics.raw.programs import encode_examples, ridge_chain, sgd_chain, theorem1, theorem2

PROGRAMS = ("theorem1", "theorem2", "sgd", "ridge")


def build(name: str, d: int, n: int, alpha: float, lam: float, rng: np.random.Generator) -> dict:
    """The program, its input and the closed-form prediction for a random task (w, x ~ N(0, I))."""
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
        "relative_error": abs(pred - exact) / max(abs(exact), 1e-300),
    }


@click.command("raw")
@click.argument("program", type=click.Choice(PROGRAMS))
@click.option("--d", "d", default=8, show_default=True, type=click.IntRange(min=1), help="Input dimension.")
@click.option("--n", "n", default=4, show_default=True, type=click.IntRange(min=1), help="Examples (sgd, ridge).")
@click.option("--alpha", default=0.1, show_default=True, type=float, help="GD step size (theorem1, sgd).")
@click.option("--lam", default=0.5, show_default=True, type=click.FloatRange(min=0, min_open=True), help="λ.")
@click.option(
    "--scale",
    default=None,
    type=click.FloatRange(min=0, min_open=True),
    help="One construction scale N (M = N_a = N, N_d = N², β = 100); default: the compiler's.",
)
@click.option("--seed", default=0, show_default=True, type=click.IntRange(min=0), help="Seed of the random task.")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON record.")
def command(
    program: str, d: int, n: int, alpha: float, lam: float, scale: float | None, seed: int, as_json: bool
) -> None:
    """Compile PROGRAM (theorem1, theorem2, sgd, ridge) to transformer weights, run it and compare."""
    record = run(program, d, n, alpha, lam, scale, seed)
    if as_json:
        click.echo(json.dumps(record, indent=2))
        return
    click.echo(
        f"{program}: d={d} n={record['n']} seed={seed} — {record['primitives']} primitives → {record['layers']} layers, "
        f"width {record['width']}, ≤ {record['mlp_width']} GeLU units/layer\n"
        f"compile {record['compile_seconds']:.3f} s, forward {record['forward_seconds']:.3f} s\n"
        f"transformer {record['prediction']:.12g}  closed form {record['closed_form']:.12g}  "
        f"relative error {record['relative_error']:.2e}"
    )
