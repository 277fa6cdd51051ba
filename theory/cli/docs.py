"""``icl-verify docs``: generate the derivation documents, or report which are stale.

Without FILES: one document per built-in result family, an index and figures, in docs/derivations —
a folder that must already hold the documents (the project's checkout) unless ``--out`` names
another, so that running it elsewhere creates nothing unasked. With FILES (users' claim files): one
document per file, in the same format, in ./derivations (``--format latex``: one LaTeX fragment per
file, or per built-in family, with its PDF figures and the preamble iclverify.sty, for a paper;
``--standalone``: whole documents instead). The folder written is printed.
"""

from __future__ import annotations

import contextlib
import sys
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import click

from icl_verify.cli import InputError
from icl_verify.cli._params import MAX_EXAMPLES, OutputDir, count
from icl_verify.cli.check import _prints_to_stderr, chosen_families, open_cache, runner_options, validate_runner
from icl_verify.errors import InvalidArgument

if TYPE_CHECKING:  # the library is imported when the command runs, not to parse its options
    from icl_verify.core.claims import Result
    from icl_verify.core.derivation import DerivationResult
    from icl_verify.running.registry import Family
    from icl_verify.running.verdict_cache import VerdictCache

#: Where the built-in documents go (``output.docs.DEFAULT_OUT``) and a user's (``output.docs.USER_OUT``).
DEFAULT_OUT, USER_OUT = Path("docs") / "derivations", Path("derivations")
FORMATS = ("markdown", "latex")  # output.docs.FORMATS


def _holds_documents(folder: Path) -> bool:
    from icl_verify.output import docs

    return docs.holds_documents(folder)


OUT_DIR = OutputDir("folder of icl-verify documents", _holds_documents)


@click.command("docs")
@click.argument("files", nargs=-1, metavar="[FILE.py]...")
@click.option(
    "--out",
    type=OUT_DIR,
    default=None,
    help=f"Folder to write to  [default: {DEFAULT_OUT}, which must exist, or {USER_OUT} with FILES or --format latex]",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    default="markdown",
    show_default=True,
    help="Markdown documents, or LaTeX for a paper: fragments needing iclverify.sty (written with them).",
)
@click.option("--standalone", is_flag=True, help="With --format latex: whole documents that compile alone.")
@click.option(
    "--family",
    "only",
    multiple=True,
    metavar="NAME",
    help="Only the documents of this family (repeatable); no index or ledger.",
)
@click.option("--check", "check_only", is_flag=True, help="Write nothing; exit 1 if the documents are stale.")
@click.option(
    "--strict",
    is_flag=True,
    help="With --check: compare bytes, measured digits and figures included (same machine only).",
)
@click.option("--seed", default=0, show_default=True, type=click.IntRange(min=0))
@click.option("--max-examples", default=100, show_default=True, type=count(1, MAX_EXAMPLES))
@runner_options
def command(
    files: tuple[str, ...],
    out: str | None,
    fmt: str,
    standalone: bool,
    only: tuple[str, ...],
    check_only: bool,
    strict: bool,
    seed: int,
    max_examples: int,
    jobs: int | None,
    executor: str,
    scheduler: str | None,
    timeout: float,
    no_cache: bool,
    cache_dir: str | None,
) -> None:
    """Generate the derivation documents, or report which are stale.

    One document per built-in result family (with an index and figures), or one per FILE.py of
    your own claims, derivations and FIGURES. The folder written is printed.

    A document is written only when it is missing or what --check compares changed (its figures
    with it), so documents whose measured digits alone differ are left as they are; --family NAME
    regenerates only that family's documents. Nothing is written, and the exit status is 1, when a
    derivation step or a claim is not as expected: the failures are named instead (the derivations
    are checked first, and the claims only when every derivation is as expected).

    --check compares what is deterministic by construction (statements, verdicts, evidence
    outcomes, counterexample sizes, derivation steps); --check --strict compares bytes.
    The claims are checked as by `icl-verify check` (in parallel, verdicts reused from the cache),
    and the figures drawn are kept in the same cache (--no-cache: every figure is drawn again).
    """
    if strict and not check_only:
        raise click.UsageError("--strict is only used with --check")
    if standalone and fmt != "latex":
        raise click.UsageError("--standalone is only used with --format latex")
    validate_runner(jobs, executor, scheduler)
    from icl_verify.output import docs, figure_cache
    from icl_verify.running import registry, runner

    if out is None:  # the default folder is held to the same rules as a given one, before any checking
        default = USER_OUT if files or fmt == "latex" else DEFAULT_OUT
        if default == DEFAULT_OUT and not default.is_dir():
            raise click.UsageError(
                f"the built-in documents go to ./{default}, which does not exist here; "
                "run in the project's checkout or give --out FOLDER"
            )
        ctx = click.get_current_context()
        out = OUT_DIR.convert(str(default), next(p for p in ctx.command.params if p.name == "out"), ctx)
    out_dir = Path(out)
    cache = None if no_cache else open_cache(cache_dir)
    run = {"seed": seed, "max_examples": max_examples, "jobs": jobs, "executor": executor, "scheduler": scheduler}
    run |= {"timeout": timeout}
    try:
        with _prints_to_stderr():  # the user's files and derivations run here: stdout is the report's
            fams = chosen_families(registry.load_files(files) if files else registry.families(), only)
            derived = {d.name: d.check() for fam in fams for d in fam.derivations}  # cheap: first
        _stop_on_failures([], list(derived.values()), check_only)
        claims = [c for fam in fams for c in fam.claims]
        extras = figure_cache.extras(fams, cache, seed=seed, max_examples=max_examples) if cache is not None else []
        checked = runner.check_claims(
            claims, files=list(files), cache=cache, progress=sys.stderr.isatty(), extras=extras, **run
        )
        results = {r.claim.name: r for r in checked.results}
        _stop_on_failures(list(results.values()), [], check_only)
        with _figure_cache(cache) as figures, _prints_to_stderr():  # the user's figures are drawn here
            if fmt == "markdown":
                _draw_figures(fams, figures, seed=seed, max_examples=max_examples)
            common = {"seed": seed, "max_examples": max_examples, "cache": figures, "derived": derived}
            if files or fmt == "latex":
                rendered = docs.user_documents(fams, results, fmt=fmt, standalone=standalone, **common)
            else:
                rendered = docs.build(results, families=[f.name for f in fams] if only else None, **common)
    except InvalidArgument as exc:
        raise InputError(str(exc)) from None
    if check_only:
        stale = docs.stale_files(rendered, out_dir, strict=strict)
        for rel in stale:
            click.echo(f"stale: {out_dir / rel}")
        click.echo(f"{len(stale)} stale of {len(rendered)} files" if stale else f"up to date ({len(rendered)} files)")
        sys.exit(1 if stale else 0)
    changed = docs.changed_files(rendered, out_dir)
    docs.write({rel: rendered[rel] for rel in changed}, out_dir)
    click.echo(f"wrote {len(changed)} of {len(rendered)} files to {out_dir}")


@contextlib.contextmanager
def _figure_cache(cache: VerdictCache | None) -> Iterator[VerdictCache]:
    """Where this run keeps its drawn figures: the verdict cache, or with --no-cache a temporary folder
    removed afterwards (every figure drawn afresh, once)."""
    from icl_verify.running.verdict_cache import VerdictCache

    if cache is not None:
        yield cache
        return
    with tempfile.TemporaryDirectory(prefix="icl-verify-figures-") as folder:
        yield VerdictCache(folder)


def _draw_figures(fams: Sequence[Family], cache: VerdictCache, *, seed: int, max_examples: int) -> None:
    """Draw every figure of ``fams`` into ``cache`` (those it holds are read back at once) under a progress bar
    on stderr naming the figure (shown when stderr is a terminal); the documents then take them from there."""
    from tqdm import tqdm

    from icl_verify.output import figure_cache

    todo = [(fam, fig) for fam in fams for fig in fam.figures]
    quiet = not todo or not sys.stderr.isatty()
    with tqdm(todo, desc="figures", unit="figure", file=sys.stderr, disable=quiet, leave=False) as bar:
        for fam, fig in bar:
            bar.set_postfix_str(f"{fam.name}/{fig.name}")
            figure_cache.drawn_figure(fam, fig, cache, seed=seed, max_examples=max_examples)


def _stop_on_failures(results: Sequence[Result], derived: Sequence[DerivationResult], check_only: bool) -> None:
    """Exit 1, naming each claim and derivation that is not as expected: documents are never written over them."""
    from icl_verify.output import report

    lines = report.failure_lines(results, derived)
    if lines:
        for line in lines:
            click.echo(line)
        done = "the documents were not compared" if check_only else "no document was written"
        click.echo(f"{len(lines)} not as expected; {done} (a document records what is expected, fix the failure)")
        sys.exit(1)
