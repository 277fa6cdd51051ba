"""``icl-verify kinetics``: simulate the reduced model and compare its (w, β) with the ODE.

Trains the reduced model of Nguyen & Reddy (§3.2) for the given (D, K, N, seed), integrates the
paper's ODE (eq. 4) driven by the run's measured c₁(t), c₂(t), and prints (or plots, or writes as
JSON) both trajectories side by side with t_ICL. matplotlib is imported only for ``--plot``.
"""

from __future__ import annotations

import io
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING

import click

from icl_verify.cli._params import (
    FiniteFloat,
    OutputFile,
    count,
    max_memory_option,
    png_written_by,
    reject_given,
    within_memory,
)
from icl_verify.errors import InvalidArgument

if TYPE_CHECKING:  # the numerics (SciPy) are imported when the command runs, not to parse its options
    from icl_verify.numerics.kinetics import models as icl_models

# The conventions of ``numerics.kinetics.models`` (CONTEXTS, CLOCKS, CONSTANTS_LABELS) and the ODE's
# ``BETA_CAP``, here so that parsing the options imports no numerics; a test holds them equal.
CONTEXTS = ("pairs", "with_query")
CLOCKS = ("lr_steps", "iterations")
CONSTANTS_LABELS = ("both", "positive")
BETA_CAP = 40.0
#: The ``Software`` text chunk of the PNG ``--plot`` writes: how a file of ours is recognised (never another).
PLOT_SOFTWARE = "icl-verify kinetics"
#: The c₂ conventions of ``numerics.kinetics.models`` (C2_CONVENTIONS); a test holds them equal.
C2_CONVENTIONS = ("paper", "code")

MAX_K = 10**9  # K item–label pairs: the memory check below refuses what does not fit


def _k(value: str) -> int | None:
    """K as an even integer, or 'inf' for K → ∞."""
    if value.lower() in ("inf", "infinity"):
        return None
    try:
        k = int(value)
    except ValueError:
        raise click.UsageError(f"--pairs/-k must be an even integer or 'inf', got {value!r}") from None
    if not 2 <= k <= MAX_K:
        raise click.UsageError(f"--pairs/-k must be an even integer in [2, {MAX_K}] or 'inf', got {value!r}")
    return k


def memory_estimate(config: icl_models.ReducedConfig) -> int:
    """Bytes a run allocates at most, counted as float64: the K × D items, the task's K × K Gram matrix
    while it is formed (float64, then float32: 1.5 float64 words per entry; K ≤ ``GRAM_MAX_K`` only), the
    training, evaluation and c-estimation sequences (N + 1 vectors of D each, what the items of a batch take
    above GRAM_MAX_K; the scores take less) three times over (data, attention, gradients), and the MLP's
    weights and activations."""
    from icl_verify.numerics.kinetics import task as icl_task

    c = config
    items = (c.k or 0) * c.d + (1.5 * c.k**2 if c.k is not None and c.k <= icl_task.GRAM_MAX_K else 0)
    sequences = 3 * (c.batch + 2 * c.eval_batch + c.constants_items) * (c.n + 1) * c.d
    mlp = c.hidden * (c.d + c.hidden) + 6 * (c.batch + c.eval_batch + c.constants_items) * c.hidden
    return int(8 * (items + sequences + mlp))


def _check_stable(lr: float, decay: float) -> None:
    """Refuse a decay the SGD step amplifies: w ← (1 − lr·λ)w − lr·∇ diverges when lr·λ > 2."""
    if lr * decay > 2:
        raise click.UsageError(
            f"--decay × --lr must be at most 2 (the step (1 − lr·λ) diverges beyond), got {lr * decay:g}"
        )


def _series(run: icl_models.ReducedRun) -> dict[str, list[float]]:
    """The run's records and the driven ODE on the same times (NaN after the ODE's blow-up)."""
    from icl_verify.numerics.kinetics import models as icl_models

    a = run.arrays()
    sol = icl_models.ode_for_run(run, t_eval=a["t"])
    out = {k: v.tolist() for k, v in a.items()}
    out["w_ode"], out["beta_ode"] = sol.w[0].tolist(), sol.beta[0].tolist()
    out["t_blowup_ode"] = float(sol.t_icl[0])
    return out


def _table(series: dict, every: int) -> str:
    head = f"{'t':>8} {'w sim':>8} {'w ode':>8} {'β sim':>8} {'β ode':>8} {'c1':>6} {'c2':>6} {'ICL':>5} {'IWL':>5}"
    rows = [head]
    for i in range(0, len(series["t"]), every):
        vals = [series[k][i] for k in ("t", "w", "w_ode", "beta", "beta_ode", "c1", "c2", "icl_acc", "iwl_acc")]
        rows.append("{:8.1f} {:8.3f} {:8.3f} {:8.3f} {:8.3f} {:6.3f} {:6.3f} {:5.2f} {:5.2f}".format(*vals))
    return "\n".join(rows)


def _plot(series: dict, path: str, title: str, xlabel: str) -> None:
    from matplotlib.figure import Figure  # object-oriented: no pyplot, no backend switch

    from icl_verify.output.files import write_file

    fig = Figure(figsize=(13, 3.6))
    axes = fig.subplots(1, 3)
    for ax, key, label in ((axes[0], "w", "w"), (axes[1], "beta", "β")):
        ax.plot(series["t"], series[key], label="simulation")
        ax.plot(series["t"], series[key + "_ode"], "--", label="ODE (measured c₁, c₂)")
        ax.set_xlabel(xlabel)
        ax.set_ylabel(label)
        ax.legend()
    axes[2].plot(series["t"], series["icl_acc"], label="ICL accuracy")
    axes[2].plot(series["t"], series["iwl_acc"], label="IWL accuracy")
    axes[2].plot(series["t"], series["c1"], label="c₁")
    axes[2].set_xlabel(xlabel)
    axes[2].legend()
    fig.suptitle(title)
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=120, metadata={"Software": PLOT_SOFTWARE})
    write_file(Path(path), buffer.getvalue())


def _print_tau_table() -> None:
    """τ*(β₀, c₂) at w₀ = 0 (paper §3.5): the integrated ODE, and the closed form √(π/2)e^{−β₀} of c₂ = 0."""
    import numpy as np

    from icl_verify.numerics.kinetics.ode import TAU_TABLE_BETA0, tau_star, tau_star_table

    table = tau_star_table()
    click.echo(f"{'β₀':>5} {'τ* (c₂ = 0)':>12} {'closed form':>12} {'τ* (c₂ = 1)':>12}")
    closed = tau_star(np.zeros(len(TAU_TABLE_BETA0)), np.array(TAU_TABLE_BETA0))
    for b, row, c in zip(TAU_TABLE_BETA0, table, closed):
        click.echo(f"{b:>5g} {row[0]:>12.4g} {c:>12.4g} {row[1]:>12.4g}")


@click.command("kinetics")
@click.option("--dimension", "-d", "d", default=32, show_default=True, type=count(1, 100_000), help="Item dimension D.")
@click.option(
    "--pairs", "-k", "k", default="512", show_default=True, help="Number of item–label pairs K (even), or 'inf'."
)
@click.option(
    "--context-length", "-n", "n", default=64, show_default=True, type=count(1, 10**9), help="Context length N."
)
@click.option("--seed", default=0, show_default=True, type=click.IntRange(min=0))
@click.option("--steps", default=600, show_default=True, type=count(1, 10**7), help="SGD steps.")
@click.option(
    "--lr",
    default=0.5,
    show_default=True,
    type=FiniteFloat(min=0, max=10, min_open=True),
    help="SGD learning rate (the authors' experiments: 0.01, their main.sh).",
)
@click.option("--batch", default=128, show_default=True, type=count(1, 10**9))
@click.option("--hidden", default=128, show_default=True, type=count(1, 100_000), help="MLP width.")
@click.option("--w0", default=0.0, show_default=True, type=FiniteFloat(min=-1e3, max=1e3))
@click.option(
    "--beta0",
    default=0.0,
    show_default=True,
    type=FiniteFloat(min=-BETA_CAP, max=BETA_CAP, max_open=True),
    help=f"Initial β (the ODE counts β ≥ {BETA_CAP:g} as blown up).",
)
@click.option(
    "--decay", default=0.0, show_default=True, type=FiniteFloat(min=0, max=1e3), help="Weight decay on (w, β) only."
)
@click.option("--equalised", is_flag=True, help="Exactly N/2 context labels of each sign.")
@click.option(
    "--context",
    type=click.Choice(CONTEXTS),
    default="pairs",
    show_default=True,
    help="pairs: N context pairs plus the query; with_query: N counts the query (the authors' len_context).",
)
@click.option(
    "--clock",
    type=click.Choice(CLOCKS),
    default="lr_steps",
    show_default=True,
    help="Time t: lr × steps (the ODE's gradient-flow time) or iterations (the authors' code).",
)
@click.option(
    "--c1-labels",
    "constants_labels",
    type=click.Choice(CONSTANTS_LABELS),
    default="both",
    show_default=True,
    help="c₁, c₂ over all K items (u = ℓφ) or the +1 items only (φ₊, the authors' analysis).",
)
@click.option(
    "--c2",
    "c2_convention",
    type=click.Choice(C2_CONVENTIONS),
    default="paper",
    show_default=True,
    help="c₂ printed: the paper's 1 − ⟨σ(−φ₊)²⟩/c₁, or the authors' code's ⟨σ(−φ₊)²⟩/c₁ = 1 − c₂ "
    "(analysis.py l. 208); the ODE is driven by the paper's either way.",
)
@click.option(
    "--tau-table",
    is_flag=True,
    help="Print τ* of the ODE at w₀ = 0 for β₀ = −3…2 and constant c₂ ∈ {0, 1} (N = 1, c₁ = 1) and exit.",
)
@click.option("--every", default=10, show_default=True, type=count(1, 10**7), help="Print every n-th record.")
@click.option(
    "--plot",
    "plot_path",
    default=None,
    type=OutputFile("PNG image of icl-verify kinetics", png_written_by(PLOT_SOFTWARE)),
    help="Write a PNG of the trajectories here (an existing file there must be a plot of this command).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the full series as JSON.")
@max_memory_option
def command(
    d: int,
    k: str,
    n: int,
    seed: int,
    steps: int,
    lr: float,
    batch: int,
    hidden: int,
    w0: float,
    beta0: float,
    decay: float,
    equalised: bool,
    context: str,
    clock: str,
    constants_labels: str,
    c2_convention: str,
    tau_table: bool,
    every: int,
    plot_path: str | None,
    as_json: bool,
    max_memory: float,
) -> None:
    """Simulate the reduced model and compare its (w, β) trajectory with the ODE."""
    if tau_table:
        _print_tau_table()
        return
    import numpy as np

    from icl_verify.numerics.kinetics import models as icl_models
    from icl_verify.numerics.shared.stats import first_crossing
    from icl_verify.output import strict_json

    try:
        config = icl_models.ReducedConfig(
            d=d,
            k=_k(k),
            n=n,
            hidden=hidden,
            lr=lr,
            batch=batch,
            steps=steps,
            w0=w0,
            beta0=beta0,
            decay=decay,
            equalised=equalised,
            record_every=max(1, steps // 200),
            context=context,
            clock=clock,
            constants_labels=constants_labels,
            c2_convention=c2_convention,
        )
    except InvalidArgument as exc:
        raise click.UsageError(str(exc)) from None
    if as_json:
        reject_given(click.get_current_context(), "every", "does not apply with --json (the full series is printed)")
    _check_stable(lr, decay)
    within_memory(memory_estimate(config), max_memory, f"kinetics with D={d}, K={k}, N={n}, batch {batch}")
    run = icl_models.train_reduced(config, seed)
    series = _series(run)
    level = float(np.log(n / 16)) if n > 16 and np.log(n / 16) > beta0 else None  # e^β = N/16, if not reached at t = 0
    summary = {
        "config": asdict(config),
        "seed": seed,
        "t_icl_sim": run.t_icl(),
        "t_blowup_ode": series["t_blowup_ode"],
        "t_level_sim": first_crossing(np.asarray(run.t), np.asarray(run.beta), level) if level else None,
        "t_level_ode": float(icl_models.ode_for_run(run, beta_cap=level).t_icl[0]) if level else None,
    }
    if as_json:
        click.echo(strict_json.dumps(strict_json.versioned({**summary, "series": series})))
    else:
        click.echo(_table(series, every))
        click.echo(
            f"t_ICL (ICL acc > 0.95): simulation {summary['t_icl_sim']:.1f}, ODE blow-up {summary['t_blowup_ode']:.1f}"
        )
        if level:
            sim = summary["t_level_sim"]
            click.echo(
                f"first e^β = N/16: simulation {'never' if sim is None else f'{sim:.1f}'}, ODE {summary['t_level_ode']:.1f}"
            )
    if plot_path:
        xlabel = "t = lr × steps" if clock == "lr_steps" else "t = iterations"
        _plot(series, plot_path, f"reduced model D={d} K={k} N={n} ({context}) seed={seed}", xlabel)
        if not as_json:
            click.echo(f"wrote {plot_path}")
