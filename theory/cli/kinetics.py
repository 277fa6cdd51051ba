"""``icl-verify kinetics``: simulate the reduced model and compare its (w, β) with the ODE.

Trains the reduced model of Nguyen & Reddy (§3.2) for the given (D, K, N, seed), integrates the
paper's ODE (eq. 4) driven by the run's measured c₁(t), c₂(t), and prints (or plots, or writes as
JSON) both trajectories side by side with t_ICL. matplotlib is imported only for ``--plot``.
"""

from __future__ import annotations

import json
from dataclasses import asdict

import click
import numpy as np

from icl_verify.numerics.kinetics import models as icl_models
from icl_verify.numerics.scaling.memorization import first_crossing


def _k(value: str) -> int | None:
    """K as an even integer, or 'inf' for K → ∞."""
    if value.lower() in ("inf", "infinity"):
        return None
    try:
        return int(value)
    except ValueError:
        raise click.UsageError(f"k must be an even integer or 'inf', got {value!r}") from None


def _series(run: icl_models.ReducedRun) -> dict[str, list[float]]:
    """The run's records and the driven ODE on the same times (NaN after the ODE's blow-up)."""
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


def _plot(series: dict, path: str, title: str) -> None:
    from matplotlib.figure import Figure  # object-oriented: no pyplot, no backend switch

    fig = Figure(figsize=(13, 3.6))
    axes = fig.subplots(1, 3)
    for ax, key, label in ((axes[0], "w", "w"), (axes[1], "beta", "β")):
        ax.plot(series["t"], series[key], label="simulation")
        ax.plot(series["t"], series[key + "_ode"], "--", label="ODE (measured c₁, c₂)")
        ax.set_xlabel("t = lr × steps")
        ax.set_ylabel(label)
        ax.legend()
    axes[2].plot(series["t"], series["icl_acc"], label="ICL accuracy")
    axes[2].plot(series["t"], series["iwl_acc"], label="IWL accuracy")
    axes[2].plot(series["t"], series["c1"], label="c₁")
    axes[2].set_xlabel("t")
    axes[2].legend()
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


@click.command("kinetics")
@click.option("--d", "d", default=32, show_default=True, type=click.IntRange(min=1), help="Item dimension D.")
@click.option("--k", "k", default="512", show_default=True, help="Number of item–label pairs K (even), or 'inf'.")
@click.option("--n", "n", default=64, show_default=True, type=click.IntRange(min=1), help="Context length N.")
@click.option("--seed", default=0, show_default=True, type=click.IntRange(min=0))
@click.option("--steps", default=600, show_default=True, type=click.IntRange(min=1), help="SGD steps.")
@click.option("--lr", default=0.5, show_default=True, type=float, help="SGD learning rate (t = lr × steps).")
@click.option("--batch", default=128, show_default=True, type=click.IntRange(min=1))
@click.option("--hidden", default=128, show_default=True, type=click.IntRange(min=1), help="MLP width.")
@click.option("--w0", default=0.0, show_default=True, type=float)
@click.option("--beta0", default=0.0, show_default=True, type=float)
@click.option("--decay", default=0.0, show_default=True, type=float, help="Weight decay on (w, β) only.")
@click.option("--equalised", is_flag=True, help="Exactly N/2 context labels of each sign.")
@click.option("--every", default=10, show_default=True, type=click.IntRange(min=1), help="Print every n-th record.")
@click.option("--plot", "plot_path", default=None, help="Write a PNG of the trajectories here.")
@click.option("--json", "as_json", is_flag=True, help="Print the full series as JSON.")
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
    every: int,
    plot_path: str | None,
    as_json: bool,
) -> None:
    """Simulate the reduced model and print its (w, β) trajectory against the ODE prediction."""
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
        )
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    run = icl_models.train_reduced(config, seed)
    series = _series(run)
    level = float(np.log(n / 16)) if n > 16 else None
    summary = {
        "config": asdict(config),
        "seed": seed,
        "t_icl_sim": run.t_icl(),
        "t_blowup_ode": series["t_blowup_ode"],
        "t_level_sim": first_crossing(np.asarray(run.t), np.asarray(run.beta), level) if level else None,
        "t_level_ode": float(icl_models.ode_for_run(run, beta_cap=level).t_icl[0]) if level else None,
    }
    if as_json:
        click.echo(json.dumps({**summary, "series": series}, allow_nan=True))
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
        _plot(series, plot_path, f"reduced model D={d} K={k} N={n} seed={seed}")
        if not as_json:
            click.echo(f"wrote {plot_path}")
