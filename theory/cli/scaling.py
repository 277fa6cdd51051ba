"""``icl-verify scaling``: run the memorization sweep of a preset, fit ν, predict K* (Nguyen & Reddy §3.6).

The sweep resumes from its results file (``--out-file``, default ``scaling-<preset>.jsonl``, printed): rerunning
after an interruption skips the finished jobs. ``--out-file`` must be writable and, if it exists, a results
file (checked before any computation; nothing else is ever overwritten). Ctrl-C stops the sweep within
a few seconds, keeps every finished job and exits with status 130. ``--executor dask --scheduler ADDR`` runs the jobs on
a Dask cluster (optional extra); ``--executor dask`` alone, on a local one of ``--jobs`` workers. ``--figures DIR`` writes two PNG files there, never over a file this
command did not write (recognised by the PNG text chunk :data:`FIGURE_SOFTWARE`). Exit status 0 when
every claim of the report has its expected verdict, 1 when one does not, 2 for bad options.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
import warnings
from collections.abc import Iterator, Sequence
from concurrent.futures import Executor
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from icl_verify.cli import InputError
from icl_verify.cli._params import HEAD_BYTES, MAX_JOBS, count, jobs_option, png_written_by, reachable_scheduler
from icl_verify.errors import InvalidArgument

if TYPE_CHECKING:  # the experiment (SymPy, SciPy) is imported when the command runs, not to parse its options
    from icl_verify.experiments.scaling import Preset

#: The presets of ``icl_verify.experiments.scaling.PRESETS`` (a test holds them equal).
PRESET_NAMES = ("claim", "kstar", "paper", "quick")

#: The ``Software`` text chunk of the PNG files ``--figures`` writes: how a file of ours is recognised.
FIGURE_SOFTWARE = "icl-verify scaling"


def _check_executor_options(kind: str, scheduler: str | None) -> None:
    """--scheduler goes with --executor dask, and only with it, and must answer (without it, dask is a local
    cluster)."""
    if kind != "dask" and scheduler:
        raise click.UsageError("--scheduler is only used with --executor dask")
    if scheduler:
        reachable_scheduler(scheduler)


@contextlib.contextmanager
def _executor(kind: str, scheduler: str | None, workers: int | None) -> Iterator[Executor]:
    from icl_verify.numerics.shared import sweep

    if kind == "dask":
        try:
            with sweep.dask_executor(scheduler, workers) as ex:
                yield ex
        except InvalidArgument as exc:
            raise click.UsageError(str(exc)) from None
        return
    with sweep.local_executor(workers) as ex:
        yield ex


def _interval(d: dict[str, Any], key: str = "exponent") -> str:
    return f"{d[key]:.3f} [{d['low']:.3f}, {d['high']:.3f}]"


def format_report(report: dict[str, Any]) -> str:
    """The report as readable lines: ν with its interval, diagnostics, the other fits, K*."""
    nu, s = report["nu"], report["settings"]
    diag, hold = nu["diagnostics"], nu["holdout"]
    diff = report["t_iwl_minus_i_inf"]
    lines = [
        f"preset {report['preset']}: MLP {s['d']}→{s['hidden']}→{s['hidden']}→1, SGD lr {s['lr']}, batch {s['batch']}, "
        f"K = {report['ks']}, {report['runs_per_k']} runs/K, seed {report['seed']}",
        f"ν (I_K(∞) ~ K^ν, log-log)    = {_interval(nu)}  (95 % bootstrap over {nu['n_runs']} runs; "
        f"paper ≈ {report['paper_nu']})",
        f"ν (nonlinear fit)             = {_interval(report['nu_nonlinear'])}",
        f"ν' (t_IWL ~ K^ν')             = {_interval(report['nu_t_iwl'])};  ν' − ν = "
        f"{diff['difference']:.3f} [{diff['low']:.3f}, {diff['high']:.3f}]",
        f"diagnostics: R² = {diag['r2']:.4f}, rms log-residual = {diag['rms_log']:.3f}, "
        f"curvature = {diag['curvature']:.3g} (p = {diag['curvature_p']:.2g}), "
        f"held-out K = {hold['heldout_x']} log-error = {hold['log_error']:.3f}",
        f"unconverged runs dropped: {report['unconverged']}",
    ]
    kp = report["k_star_prediction"]
    lines.append(
        f"K* prediction (τ* = {kp['tau_star']:.4g} at w₀ = {kp['w0']}, β₀ = {kp['beta0']}): slope of log K* vs log N "
        f"= 1/ν = {kp['slope']:.3f} [{kp['slope_low']:.3f}, {kp['slope_high']:.3f}]"
    )
    for n, k, lo, hi in zip(kp["n"], kp["k_star"], kp["k_star_low"], kp["k_star_high"]):
        lines.append(f"  N = {n:>4}: K* ≈ {k:,.0f} [{lo:,.0f}, {hi:,.0f}]")
    lines.append(f"  ({kp['caveat']})")
    m, diff = report["k_star_measurement"], report["k_star_slope_minus_inverse_nu"]
    if diff is None:
        lines.append(f"K* measurement ({m['runs']} reduced-model runs): none, {m['no_transition']}")
    else:
        lines += _k_star_lines(m, diff)
    for c in report.get("claims", []):
        lines.append(f"claim {c['name']}: {c['verdict']} — {c['evidence'][0]['detail']}")
    if "results_file" in report:
        lines.append(f"results file: {report['results_file']} (rerunning resumes from it)")
    lines.append(f"time: {report['seconds']} s")
    return "\n".join(lines)


def _k_star_lines(m: dict[str, Any], diff: dict[str, float]) -> list[str]:
    """The measured K*(N) and slope, one line each."""
    lines = [
        f"K* measurement ({m['runs']} reduced-model runs, sigmoid of final ICL accuracy vs log₁₀ K per N): "
        f"slope = {m['slope']:.3f} [{m['low']:.3f}, {m['high']:.3f}];  slope − 1/ν = "
        f"{diff['difference']:.3f} [{diff['low']:.3f}, {diff['high']:.3f}]"
    ]
    for n, k, lo, hi in zip(m["n"], m["k_star"], m["k_star_low"], m["k_star_high"]):
        lines.append(f"  N = {n:>4}: K* = {k:,.0f} [{lo:,.0f}, {hi:,.0f}]")
    return lines


def figure_paths(preset: str, outdir: Path) -> list[Path]:
    """The two PNG files ``--figures`` writes for ``preset``: I_K(∞) vs K, and the c₁(t) curves."""
    return [outdir / f"scaling-{preset}-ik.png", outdir / f"scaling-{preset}-c1.png"]


def _is_our_figure(path: Path) -> bool:
    """True if ``path`` is a PNG whose ``Software`` text chunk is :data:`FIGURE_SOFTWARE`."""
    with path.open("rb") as handle:
        return png_written_by(FIGURE_SOFTWARE)(handle.read(HEAD_BYTES))


def _check_figures_folder(preset: str, folder: str) -> None:
    """Before any computation: ``--figures`` is (or can be made) a folder, and its two files are absent or ours."""
    from icl_verify.cli._params import _nearest_existing, _probe_writable

    outdir = Path(folder)
    if outdir.exists() and not outdir.is_dir():
        raise InputError(f"--figures: {folder!r} is a file, not a folder")
    problem = _probe_writable(_nearest_existing(outdir))
    if problem:
        raise InputError(f"--figures: {problem}")
    for path in figure_paths(preset, outdir):
        if path.exists() and not (path.is_file() and _is_our_figure(path)):
            raise InputError(
                f"--figures: {str(path)!r} exists and was not written by icl-verify scaling; refusing to overwrite it"
            )


def _png(fig: Any) -> bytes:
    """The figure as PNG bytes, marked with :data:`FIGURE_SOFTWARE`."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=120, bbox_inches="tight", metadata={"Software": FIGURE_SOFTWARE})
    return buffer.getvalue()


def write_figures(report: dict[str, Any], runs: Sequence[dict[str, Any]], outdir: Path) -> list[Path]:
    """Log-log I_K(∞) vs K with the fit and its bootstrap band, and the c₁(t) curves (matplotlib, PNG)."""
    import matplotlib
    import matplotlib.ticker
    import numpy as np
    from matplotlib.figure import Figure  # object-oriented: no pyplot, no backend switch

    from icl_verify.experiments.scaling import usable
    from icl_verify.numerics.scaling import fits as scaling
    from icl_verify.output.files import write_files

    k, y, _ = usable(runs, "i_inf")
    nu = report["nu"]
    nus, prefactors = scaling.bootstrap_exponents(k, y, n_boot=nu["n_boot"], rng=np.random.default_rng(report["seed"]))
    grid = np.geomspace(k.min(), k.max(), 100)
    band = np.quantile(prefactors[:, None] * grid[None, :] ** nus[:, None], [0.025, 0.975], axis=0)
    fig = Figure(figsize=(5, 4))
    ax = fig.subplots()
    ax.fill_between(grid, band[0], band[1], alpha=0.3, label="95 % bootstrap band")
    ax.plot(grid, nu["prefactor"] * grid ** nu["exponent"], label=f"fit ν = {nu['exponent']:.3f}")
    ax.scatter(k, y, s=12, color="k", label="runs")
    ax.set(xscale="log", yscale="log", xlabel="K (items)", ylabel=r"$I_K(\infty)=\int c_1\,dt$")
    ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    ax.yaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    ax.set_title(f"memorization scaling, preset {report['preset']}")
    ax.legend()
    paths = figure_paths(report["preset"], outdir)
    images = [_png(fig)]
    fig = Figure(figsize=(5, 4))
    ax = fig.subplots()
    colors = matplotlib.colormaps["viridis"](np.linspace(0, 1, len(set(k))))
    for color, kk in zip(colors, sorted(set(k))):
        for i, run in enumerate(r for r in runs if r["k"] == kk):
            ax.plot(
                run["curves"]["t"], run["curves"]["c1"], color=color, lw=0.8, label=f"K = {int(kk)}" if i == 0 else None
            )
    ax.set(xscale="log", xlabel="t = lr × steps", ylabel=r"$c_1(t)$", title="c₁(t) while memorising")
    ax.legend(fontsize=7)
    images.append(_png(fig))
    write_files(dict(zip(paths, images)))
    return paths


def _with_backend(preset_name: str, backend: str, device: str | None) -> Preset:
    """The preset with its memorization runs on ``backend``/``device``, checked before any computation (exit 2)."""
    from icl_verify.experiments.scaling import PRESETS

    preset = PRESETS[preset_name]
    if backend == "numpy":
        if device not in (None, "cpu"):
            raise InputError(f"--device {device!r} needs --backend torch (the numpy backend runs on the CPU)")
        return preset
    device = device or "cpu"
    from icl_verify.numerics.scaling import torch_backend  # optional: imported only for --backend torch

    try:
        torch_backend.torch_device(device)
    except InvalidArgument as exc:
        raise InputError(f"--backend torch --device {device}: {exc}") from None
    return replace(preset, settings=replace(preset.settings, backend=backend, device=device))


def _check_results_file(path: Path) -> None:
    """Before any computation: ``--out-file`` is writable and, if it exists, a results file (a torn last record repaired)."""
    from icl_verify.numerics.shared import sweep

    if path.exists() and not path.is_file():
        raise InputError(
            f"--out-file: {str(path)!r} is not a regular file (a FIFO, device or socket); refusing to use it"
        )
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", sweep.TornRecord)
            sweep.open_results(path)
    except InvalidArgument as exc:
        raise InputError(f"--out-file: {exc}") from None
    for w in caught:
        click.echo(f"note: {w.message}", err=True)


@click.command("scaling")
@click.option("--preset", type=click.Choice(PRESET_NAMES), default="quick", show_default=True)
@click.option("--executor", "kind", type=click.Choice(["local", "dask"]), default="local", show_default=True)
@click.option(
    "--scheduler",
    default=None,
    help="Dask scheduler address, e.g. tcp://host:8786 (with --executor dask; none: a local cluster of --jobs workers).",
)
@jobs_option("Local worker processes, or a local Dask cluster's  [default: every core].")
@click.option("--workers", "workers", type=count(1, MAX_JOBS), default=None, hidden=True)  # deprecated: --jobs
@click.option(
    "--backend",
    type=click.Choice(["numpy", "torch"]),
    default="numpy",
    show_default=True,
    help="Trainer of the memorization runs: NumPy, or PyTorch (optional extra 'torch').",
)
@click.option("--device", default=None, help="PyTorch device for --backend torch: cpu (default), cuda, cuda:1…")
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True, help="Sweep and bootstrap seed.")
@click.option(
    "--out-file",
    "out",
    type=click.Path(dir_okay=False),
    default=None,
    help="Results file, resumed when rerun  [default: scaling-<preset>.jsonl].",
)
@click.option("--out", "old_out", type=click.Path(dir_okay=False), default=None, hidden=True)  # deprecated
@click.option("--figures", type=click.Path(file_okay=False), default=None, help="Write figures to this directory.")
@click.option("--json", "as_json", is_flag=True, help="Print the JSON report (quiet: no progress bar).")
def command(
    preset: str, kind: str, scheduler: str | None, jobs: int | None, workers: int | None, backend: str,
    device: str | None, seed: int, out: str | None, old_out: str | None, figures: str | None, as_json: bool,
) -> None:  # fmt: skip
    """Measure the memorization exponent ν and predict K*(N).

    ν is the exponent of I_K(∞) ~ K^ν, with its 95 % interval; K*(N) is predicted and measured.

    The report ends with the verdicts of the claims ν = 0.7 ± 0.1 and d log K*/d log N = 1/ν ± 0.2
    at this preset.

    --backend torch --device cuda trains the memorization MLPs with PyTorch on a GPU (the reduced-model
    runs of K* stay on NumPy); the backend and device are part of each job's settings.

    Finished jobs are appended to --out-file as checksummed JSON lines; rerunning resumes. An existing
    --out-file that is not a results file is refused, never overwritten. Ctrl-C stops within seconds,
    keeping every finished job (exit 130). The exit status is 1 when a claim is not as expected.
    """
    from icl_verify.core.claims import check
    from icl_verify.experiments.scaling import report_claims, scaling_report
    from icl_verify.numerics.shared import sweep
    from icl_verify.output import strict_json

    jobs = _renamed("--workers", workers, "--jobs", jobs)
    out = _renamed("--out", old_out, "--out-file", out)
    chosen = _with_backend(preset, backend, device)
    results = Path(out) if out else Path(f"scaling-{preset}.jsonl")
    progress = not as_json and sys.stderr.isatty()
    _check_executor_options(kind, scheduler)
    if figures:
        _check_figures_folder(preset, figures)
    _check_results_file(results)
    with _executor(kind, scheduler, jobs) as ex:
        try:
            report, runs = scaling_report(chosen, seed=seed, results=results, executor=ex, progress=progress)
        except sweep.SweepInterrupted as exc:
            click.echo(str(exc), err=True)
            raise SystemExit(130) from None
    report["results_file"] = str(results)
    checked = [check(c, seed=seed) for c in report_claims(report)]
    report["claims"] = [r.to_dict() for r in checked]
    if figures:
        report["figures"] = [str(p) for p in write_figures(report, runs, Path(figures))]
    click.echo(
        json.dumps(strict_json.versioned(report), indent=2, ensure_ascii=False) if as_json else format_report(report)
    )
    sys.exit(0 if all(r.as_expected for r in checked) else 1)


def _renamed(old: str, old_value: Any, new: str, value: Any) -> Any:
    """The value of option ``new``, or of its deprecated former name ``old`` (one warning line); not both."""
    if old_value is None:
        return value
    if value is not None:
        raise click.UsageError(f"{old} is the former name of {new}; give {new} only")
    click.echo(f"warning: {old} is deprecated; use {new}", err=True)
    return old_value
