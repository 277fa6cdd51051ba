"""``icl-verify train``: reproduce von Oswald et al.'s trained-LSA results (ICML 2023, §3–4).

* ``icl-verify train single`` — meta-train one LSA layer on the paper's setting (d = N = 10,
  x ~ U(−½, ½) as in the authors' code) and compare it with GD at the derived optimal rate
  η* = 200/33: loss vs the closed form ½·MSE* = 245/1188, model cos, preds/model diff, the
  products P W_V and W_Kᵀ W_Q up to rescaling, the interpolation test. Under 2 minutes on 2 cores.
* ``icl-verify train deep`` — K layers (weight-tied with ``--recurrent``) against K steps of GD
  (η line-searched) and K weight-tied GD++ layers (η, γ tuned), the paper's Fig. 3 comparison.

Exit status 0 when every stated criterion holds, 1 otherwise.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict
from typing import TYPE_CHECKING

import click

from icl_verify.cli._params import FiniteFloat, count, max_memory_option, within_memory
from icl_verify.errors import InvalidArgument
from icl_verify.numerics.lsa.regression import CODE_X_RANGE

if TYPE_CHECKING:  # the trainer and SymPy are imported when a command runs, not to parse its options
    from icl_verify.numerics.lsa.training import TrainConfig, TrainResult


def _training_options(steps: int, batch: int, lr: float):
    """The options both commands share, with per-command defaults for steps, batch and learning rate."""

    def wrap(fn):
        for opt in reversed(
            [
                click.option("--steps", default=steps, show_default=True, type=count(1, 10**7)),
                click.option("--batch", default=batch, show_default=True, type=count(1, 10**9)),
                click.option("--lr", default=lr, show_default=True, type=FiniteFloat(min=0, max=10, min_open=True)),
                click.option(
                    "--schedule", default="cosine", show_default=True, type=click.Choice(["constant", "cosine"])
                ),
                click.option(
                    "--x-range",
                    default=CODE_X_RANGE,
                    show_default=True,
                    type=FiniteFloat(min=1e-3, max=1e3),
                    help="x ~ U(−a, a); the paper's text says 1, its code 0.5.",
                ),
                click.option(
                    "--init-scale", default=0.01, show_default=True, type=FiniteFloat(min=0, max=10, min_open=True)
                ),
                click.option("--seed", default=0, show_default=True, type=click.IntRange(min=0)),
                click.option("--test-tasks", default=1 << 15, show_default=True, type=count(100, 10**7)),
                click.option("--json", "as_json", is_flag=True, help="Print a JSON record instead of text."),
                max_memory_option,
            ]
        ):
            fn = opt(fn)
        return fn

    return wrap


@click.group("train", invoke_without_command=True)
@click.pass_context
def command(ctx: click.Context) -> None:
    """Meta-train LSA on linear regression and compare it with GD."""
    if ctx.invoked_subcommand is None:
        click.echo(ctx.get_help())


def _fmt(interval: tuple[float, float, float]) -> str:
    return f"{interval[0]:.5f} [{interval[1]:.5f}, {interval[2]:.5f}]"


def _emit(record: dict, lines: list[str], as_json: bool) -> None:
    from icl_verify.output import strict_json

    click.echo(strict_json.dumps(strict_json.versioned(record), indent=2) if as_json else "\n".join(lines))


LINE_SEARCH_TASKS = 10_000  # tasks drawn to line-search η (and tune GD++) after training


def memory_estimate(config: TrainConfig, test_tasks: int) -> int:
    """Bytes a run allocates at most, counted as float64: per layer, the training batch's tokens (N + 1 of
    width D, kept for the backward pass with three same-sized intermediates) and its (N + 1)² attention
    scores twice, then the test and line-search tasks (N + 8 tokens each, 8 queries) four times per layer
    (the trained, GD and GD++ models' states)."""
    c = config
    tokens = (c.n_context + 1) * c.width
    train = c.batch * (4 * tokens + 2 * (c.n_context + 1) ** 2)
    evaluate = 4 * (test_tasks + LINE_SEARCH_TASKS) * (c.n_context + 8) * c.width
    return 8 * c.n_layers * (train + evaluate)


def _config(test_tasks: int, max_memory: float, **kwargs) -> TrainConfig:
    """Settings from the options; a bad value or a run too large for ``--max-memory`` is a usage error (exit 2)."""
    from icl_verify.numerics.lsa.training import TrainConfig

    try:
        config = TrainConfig(**kwargs)
    except InvalidArgument as exc:
        raise click.UsageError(str(exc)) from None
    what = f"train with {config.n_layers} layer(s), batch {config.batch}, {test_tasks} test tasks"
    within_memory(memory_estimate(config, test_tasks), max_memory, what)
    return config


@contextmanager
def _step_bar(config: TrainConfig, quiet: bool) -> Iterator:
    """A tqdm bar on stderr over the training steps with the last loss and an ETA (none with --json or when
    stderr is not a terminal); yields the trainer's ``on_step`` callback, or None."""
    from tqdm import tqdm

    if quiet or not sys.stderr.isatty():
        yield None
        return
    with tqdm(total=config.steps, desc="training LSA", unit="step", file=sys.stderr, leave=False) as bar:

        def on_step(step: int, loss: float) -> None:
            bar.update(step - bar.n)  # a restarted attempt counts from its own first step
            if step % 50 == 0:
                bar.set_postfix(loss=f"{loss:.5f}", refresh=False)

        yield on_step


def _train(config: TrainConfig, seed: int, as_json: bool) -> TrainResult:
    from icl_verify.numerics.lsa.training import train

    with _step_bar(config, as_json) as on_step:
        return train(config, seed, on_step=on_step)


@command.command("single")
@_training_options(steps=3000, batch=1024, lr=3e-3)
def single(steps, batch, lr, schedule, x_range, init_scale, seed, test_tasks, as_json, max_memory) -> None:
    """One layer: trained LSA ≈ GD with η* (model cos ≥ 0.99, loss within 1 % of the closed form)."""
    import numpy as np
    import sympy as sp

    from icl_verify.experiments.lsa import paired_loss, paper_values
    from icl_verify.numerics.lsa.alignment import (
        gd_model,
        gd_reference,
        interpolate,
        line_search_rate,
        lsa_model,
        mean_interval,
        model_cos,
        model_diff,
        preds_diff,
        product_alignment,
    )

    config = _config(
        test_tasks,
        max_memory,
        steps=steps,
        batch=batch,
        lr=lr,
        schedule=schedule,
        x_range=x_range,
        init_scale=init_scale,
    )
    eta_star, loss_star = (float(v) for v in paper_values(sp.nsimplify(x_range)))
    t0 = time.perf_counter()
    result = _train(config, seed, as_json)
    rng = np.random.default_rng([seed, 10])
    eta_ls = line_search_rate(config.sample(rng, LINE_SEARCH_TASKS))
    tasks = config.sample(rng, test_tasks, n_queries=8, seed=seed)
    model, gd = lsa_model(result.layers), gd_model(eta_star)
    loss = paired_loss(model, gd, tasks, loss_star)
    cos = mean_interval(model_cos(model, gd, tasks))
    ref = gd_reference(config.nx, config.ny, eta_star, config.n_context)
    s, err_v, err_k = product_alignment(result.layers[0], ref, nx=config.nx)
    interp = paired_loss(lsa_model([interpolate(result.layers[0], ref)]), gd, tasks, loss_star)
    record = {
        "config": asdict(config),
        "seed": seed,
        "train_seconds": round(result.seconds, 2),
        "steps_per_second": round(steps / result.seconds, 1),
        "final_train_loss": float(np.mean(result.losses[-100:])),
        "eta_star": eta_star,
        "eta_line_search": eta_ls,
        "loss_star": loss_star,
        "test_loss": list(loss),
        "loss_rel_gap": (loss[0] - loss_star) / loss_star,
        "model_cos": list(cos),
        "preds_diff": float(np.mean(preds_diff(model, gd, tasks))),
        "model_diff": float(np.mean(model_diff(model, gd, tasks))),
        "products": {"scale": s, "err_PW_V": err_v, "err_WKtWQ": err_k},
        "interpolated_loss": list(interp),
        "total_seconds": round(time.perf_counter() - t0, 2),
    }
    record["checks"] = {
        "loss within 1 % of closed form": bool(0.99 * loss_star <= loss[1] and loss[2] <= 1.01 * loss_star),
        "model cos >= 0.99": bool(cos[1] >= 0.99),
    }
    lines = [
        f"trained 1-layer LSA, d = N = 10, x ~ U(−{x_range:g}, {x_range:g}); seed {seed}; {steps} steps in"
        f" {result.seconds:.1f} s ({record['steps_per_second']} steps/s)",
        f"  η* (derived) = {eta_star:.5f}; η line-searched on 10⁴ tasks = {eta_ls:.5f}",
        f"  ½·MSE trained = {_fmt(loss)} vs closed form {loss_star:.5f} (gap {100 * record['loss_rel_gap']:+.3f} %)",
        f"  model cos = {_fmt(cos)}; preds diff = {record['preds_diff']:.4f}; model diff = {record['model_diff']:.4f}",
        f"  products vs θ_GD(η*) after rescaling s = {s:.4f}: P W_V {err_v:.4f}, W_Kᵀ W_Q {err_k:.4f} (relative)",
        f"  interpolated (½ trained + ½ θ_GD) ½·MSE = {_fmt(interp)}",
    ] + [f"  [{'ok' if v else 'FAIL'}] {k}" for k, v in record["checks"].items()]
    _emit(record, lines, as_json)
    raise SystemExit(0 if all(record["checks"].values()) else 1)


@command.command("deep")
@click.option("--layers", default=3, show_default=True, type=count(1, 10**7))
@click.option("--recurrent/--untied", default=True, show_default=True, help="Weight-tied layers (paper §3) or not.")
@_training_options(steps=5000, batch=1024, lr=3e-3)
def deep(
    layers, recurrent, steps, batch, lr, schedule, x_range, init_scale, seed, test_tasks, as_json, max_memory
) -> None:
    """K layers vs K steps of GD and K weight-tied GD++ layers (von Oswald et al. §4, Fig. 3)."""
    import numpy as np

    from icl_verify.numerics.lsa.alignment import (
        gd_model,
        gdpp_model,
        line_search_rate,
        lsa_model,
        mean_interval,
        model_cos,
        preds_diff,
        task_losses,
        tune_gdpp,
    )

    config = _config(
        test_tasks,
        max_memory,
        n_layers=layers,
        recurrent=recurrent,
        steps=steps,
        batch=batch,
        lr=lr,
        schedule=schedule,
        x_range=x_range,
        init_scale=init_scale,
    )
    result = _train(config, seed, as_json)
    rng = np.random.default_rng([seed, 10])
    tune = config.sample(rng, LINE_SEARCH_TASKS)
    eta = line_search_rate(tune, layers)
    eta_pp, gamma = tune_gdpp(tune, layers, eta)
    tasks = config.sample(rng, test_tasks, n_queries=8, seed=seed)
    model, gd, gdpp = lsa_model(result.layers), gd_model(eta, layers), gdpp_model(eta_pp, gamma, layers)
    losses = {
        name: mean_interval(task_losses(m, tasks)) for name, m in (("trained", model), ("gd", gd), ("gdpp", gdpp))
    }
    vs_gd = mean_interval(task_losses(model, tasks) - task_losses(gd, tasks))
    to_gd, to_pp = preds_diff(model, gd, tasks), preds_diff(model, gdpp, tasks)
    closer = mean_interval(to_pp - to_gd)
    record = {
        "config": asdict(config),
        "seed": seed,
        "train_seconds": round(result.seconds, 2),
        "steps_per_second": round(steps / result.seconds, 1),
        "gd": {"eta": eta},
        "gdpp": {"eta": eta_pp, "gamma": gamma},
        "loss": {k: list(v) for k, v in losses.items()},
        "trained_minus_gd_loss": list(vs_gd),
        "preds_diff": {"to_gd": float(np.mean(to_gd)), "to_gdpp": float(np.mean(to_pp))},
        "model_cos": {
            "to_gd": float(np.mean(model_cos(model, gd, tasks))),
            "to_gdpp": float(np.mean(model_cos(model, gdpp, tasks))),
        },
        "checks": {
            f"trained beats {layers}-step GD": bool(vs_gd[2] < 0),
            "trained closer to GD++ than to GD (preds diff)": bool(closer[2] < 0),
        },
    }
    kind = "weight-tied" if recurrent else "untied"
    lines = [
        f"trained {layers}-layer {kind} LSA; seed {seed}; {steps} steps in {result.seconds:.1f} s",
        f"  ½·MSE trained {_fmt(losses['trained'])}",
        f"  ½·MSE {layers}-step GD (η = {eta:.4f}) {_fmt(losses['gd'])}",
        f"  ½·MSE {layers}-layer GD++ (η = {eta_pp:.4f}, γ = {gamma:.5f}) {_fmt(losses['gdpp'])}",
        f"  preds diff to GD {record['preds_diff']['to_gd']:.4f}, to GD++ {record['preds_diff']['to_gdpp']:.4f};"
        f" model cos to GD {record['model_cos']['to_gd']:.4f}, to GD++ {record['model_cos']['to_gdpp']:.4f}",
    ] + [f"  [{'ok' if v else 'FAIL'}] {k}" for k, v in record["checks"].items()]
    _emit(record, lines, as_json)
    raise SystemExit(0 if all(record["checks"].values()) else 1)
