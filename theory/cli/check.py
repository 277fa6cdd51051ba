"""``icl-verify check``: check claims and derivations — built-in ones, named ones, or a user's file's — and
report their verdicts.

With no target every built-in claim is checked, then every built-in derivation (each step by
SymPy); a name may be a claim's or a derivation's (checking one derivation alone is cheap). A
user's file contributes its module-level claims and derivations, beside any names given; names must
be unique in a run, built-ins included (:func:`icl_verify.running.registry.unique`). The exit status
is 1 when a claim or a derivation is not as expected, 130 after Ctrl-C.

Claims are checked in worker processes (:mod:`icl_verify.running.workers`): one that exits, dies or
runs past ``--timeout`` is ERROR and the others are still checked. A line is printed as each claim
completes, then the report in the order given. Verdicts are reused from the cache only while every
source file the check loaded hashes the same and every distribution it imported has the same
version (:mod:`icl_verify.running.verdict_cache`). A run whose every verdict is in the cache as it ends
is kept whole: the same command again prints its report without loading the claims
(:mod:`icl_verify.running.replay`).
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, TextIO

import click

from icl_verify.cli import InputError
from icl_verify.cli._output import (
    check_verbosity,
    colored,
    lines_streamed,
    output_options,
    progress_shown,
    streamer,
    use_color,
)
from icl_verify.cli._params import MAX_EXAMPLES, cache_dir_option, cache_folder, count, jobs_option, reachable_scheduler
from icl_verify.errors import InvalidArgument
from icl_verify.running.options import DEFAULT_TIMEOUT, EXECUTORS

if TYPE_CHECKING:  # the library is imported when a command runs, not to parse its options
    from icl_verify.core.claims import Claim, Result
    from icl_verify.core.derivation import Derivation, DerivationResult
    from icl_verify.running.registry import Family
    from icl_verify.running.runner import Checked
    from icl_verify.running.store import Store
    from icl_verify.running.verdict_cache import VerdictCache


def _gather(targets: tuple[str, ...], only: Sequence[str] = ()) -> tuple[list[Claim], list[Derivation], dict[str, str]]:
    """The claims and the derivations to check: those named and those of the user's files among ``targets``,
    else every built-in one — of the families ``only`` when it names any; and the family of each by name."""
    from icl_verify.running import registry

    files = [t for t in targets if t.endswith(".py")]
    names = [t for t in targets if not t.endswith(".py")]
    try:
        user = registry.load_files(files)
        if files and not names:
            fams = chosen_families(user, only)
            claims = [c for fam in fams for c in fam.claims]
            derivations = [d for fam in fams for d in fam.derivations]
        else:  # the names given (or every built-in), then the files' own
            fams = registry.families() + user
            registry.unique(fams)  # a user's claim never silently replaces a built-in one
            claims, derivations = _select(chosen_families(fams, only), names)
            own = [fam for fam in user if not only or fam.name in only]
            claims += [c for fam in own for c in fam.claims if c not in claims]
            derivations += [d for fam in own for d in fam.derivations if d not in derivations]
        registry.validate_ledger(claims)
        owners = {item.name: fam.name for fam in fams for item in [*fam.claims, *fam.derivations]}
        return claims, derivations, owners
    except InvalidArgument as exc:
        raise InputError(str(exc)) from None


@contextlib.contextmanager
def _prints_to_stderr() -> Iterator[None]:
    """While a user's code runs in this process (a file imported, a derivation checked), what it prints goes to
    stderr, from Python and to file descriptor 1 alike: stdout holds only the report (a claim's check prints to
    stderr too: :mod:`icl_verify.running.workers`). The code may close ``sys.stdout`` or file descriptor 1: the
    stream it closes is its own, and the descriptor is put back when it ends."""
    sys.stdout.flush()
    try:
        fds: tuple[int, int] | None = (sys.stdout.fileno(), sys.stderr.fileno())
    except (OSError, ValueError, AttributeError):  # streams without a file descriptor (replaced, as by a test)
        fds = None
    saved = None if fds is None else os.dup(fds[0])
    try:
        if fds is not None:
            os.dup2(fds[1], fds[0])
        with _own_stream(fds) as out, contextlib.redirect_stdout(out):
            yield
    finally:
        sys.stderr.flush()
        if fds is not None and saved is not None:
            os.dup2(saved, fds[0])
            os.close(saved)


@contextlib.contextmanager
def _own_stream(fds: tuple[int, int] | None) -> Iterator[TextIO]:
    """A text stream on file descriptor ``fds[0]`` that closing does not close the descriptor of (``sys.stderr``
    when there are no descriptors)."""
    if fds is None:
        yield sys.stderr
        return
    out = open(fds[0], "w", encoding=sys.stderr.encoding, errors="backslashreplace", closefd=False, buffering=1)  # noqa: SIM115
    try:
        yield out
    finally:
        with contextlib.suppress(OSError, ValueError):  # closed by the code, or its descriptor closed
            out.close()


def chosen_families(fams: list[Family], names: Sequence[str]) -> list[Family]:
    """The families named (all when none is); ``InvalidArgument`` naming an unknown one and the known ones."""
    known = [fam.name for fam in fams]
    unknown = [name for name in names if name not in known]
    if unknown:
        raise InvalidArgument(f"--family: unknown family {unknown[0]!r}; the families are {', '.join(known)}")
    return [fam for fam in fams if not names or fam.name in names]


def _select(fams: list[Family], names: list[str]) -> tuple[list[Claim], list[Derivation]]:
    """The claims and derivations of ``fams`` named (a name may be one of each), in the order given;
    all of them when no name is given. ``ValueError`` naming any unknown name."""
    from icl_verify.running import registry

    claims = [c for fam in fams for c in fam.claims]
    derivations = {d.name: d for fam in fams for d in fam.derivations}
    if not names:
        return claims, list(derivations.values())
    claim_names = {c.name for c in claims}
    unknown = [n for n in names if n not in claim_names and n not in derivations]
    if unknown:
        raise InvalidArgument(f"unknown claim(s) or derivation(s): {', '.join(unknown)} (see `icl-verify list`)")
    chosen = registry.select(claims, [n for n in names if n in claim_names])
    return chosen, [derivations[n] for n in names if n in derivations]


def runner_options(fn):
    """The options of parallel, incremental checking (shared by ``check`` and ``docs``)."""
    options = [
        jobs_option("Worker processes checking claims at once  [default: one for small work, else every core]."),
        click.option(
            "--executor",
            type=click.Choice(EXECUTORS),
            default="local",
            show_default=True,
            help="Local processes, or a Dask cluster (the dask extra): at --scheduler, else a local one of --jobs workers.",
        ),
        click.option(
            "--scheduler",
            default=None,
            help="Address of the Dask scheduler (with --executor dask); none: a local cluster, closed at the end.",
        ),
        click.option(
            "--timeout",
            type=click.FloatRange(min=0, min_open=True, max=7 * 24 * 3600),
            default=DEFAULT_TIMEOUT,
            show_default=True,
            help="Seconds a claim's check may run; past it the claim is ERROR and its worker replaced.",
        ),
        click.option("--no-cache", is_flag=True, help="Check every claim afresh; read and store no verdict."),
        cache_dir_option,
    ]
    for option in reversed(options):
        fn = option(fn)
    return fn


def open_store(cache_dir: str | None) -> Store | None:
    """The cache folder ``cache_dir`` (None: ``$ICL_VERIFY_CACHE_DIR``, else the user's cache folder), validated
    by :func:`~icl_verify.cli._params.cache_folder`; None when the default folder cannot be written, or with one
    warning line when a folder cannot be used safely (:class:`~icl_verify.running.store.UnsafeCache`)."""
    from icl_verify.running.store import ENV_VAR, Store, UnsafeCache, default_dir

    if cache_dir is not None:
        folder = cache_folder(cache_dir, "--cache-dir", explicit=True)
    elif os.environ.get(ENV_VAR):
        folder = cache_folder(os.environ[ENV_VAR], f"${ENV_VAR}", explicit=True)
    else:
        folder = cache_folder(str(default_dir()), "the cache folder", explicit=False)
    if folder is None:
        return None
    try:
        return Store(folder)
    except UnsafeCache as exc:
        click.echo(f"warning: {exc}; checking without a cache", err=True)
        return None
    except InvalidArgument as exc:
        raise InputError(str(exc).replace("cache_dir", "--cache-dir", 1)) from None


def open_cache(cache_dir: str | None) -> VerdictCache | None:
    """The verdict cache in the folder of :func:`open_store`; None when there is none."""
    from icl_verify.running.verdict_cache import VerdictCache

    store = open_store(cache_dir)
    return None if store is None else VerdictCache(store.folder)


def validate_runner(jobs: int | None, executor: str, scheduler: str | None) -> None:
    """Exit 2 with one line when --executor and --scheduler do not go together (:func:`options.validate`)."""
    from icl_verify.running import options

    if scheduler is not None and executor != "dask":
        raise InputError("--scheduler is only used with --executor dask")
    try:
        options.validate(jobs, executor, scheduler)
    except InvalidArgument as exc:
        raise InputError(str(exc)) from None
    if scheduler is not None:
        reachable_scheduler(scheduler)


def family_summary(results: Sequence[Result], steps: Sequence[DerivationResult], owners: dict[str, str]) -> list[str]:
    """One line per family (``owners``: the family of each claim and derivation by name), in order of first
    appearance: its claims' and derivations' tallies (:func:`icl_verify.output.report.summary_line`), a ``!``
    first when one is not as expected."""
    from icl_verify.output import report

    names = list(dict.fromkeys(owners[x.name] for x in [*(r.claim for r in results), *(d.derivation for d in steps)]))
    width = max(map(len, names), default=0)
    lines = []
    for name in names:
        claims = [r for r in results if owners[r.claim.name] == name]
        derived = [d for d in steps if owners[d.derivation.name] == name]
        parts = [report.summary_line(claims)] if claims else []
        parts += [report.derivations_summary_line(derived)] if derived else []
        mark = " " if all(r.as_expected for r in [*claims, *derived]) else "!"
        lines.append(f"{mark} {name:<{width}}  {'; '.join(parts)}")
    return lines


@click.command("check")
@click.argument("targets", nargs=-1)
@click.option("--json", "as_json", is_flag=True, help="Print the JSON report (docs/json-report.md).")
@click.option("--summary", is_flag=True, help="Print one line per family instead of the full table.")
@click.option(
    "--family",
    "only",
    multiple=True,
    metavar="NAME",
    help="Only the claims and derivations of this family (repeatable; see `icl-verify list`).",
)
@click.option("--seed", default=0, show_default=True, type=click.IntRange(min=0), help="Seed for Hypothesis.")
@click.option(
    "--max-examples",
    default=100,
    show_default=True,
    type=count(1, MAX_EXAMPLES),
    help="Random cases per numeric check.",
)
@click.option(
    "-x",
    "--exitfirst",
    is_flag=True,
    help="Stop at the first claim or derivation not as expected: report what ran, and how many were not run.",
)
@click.option(
    "--require-proof",
    is_flag=True,
    help="Exit 1 unless every claim and derivation expected to hold is PROVED (by default VERIFIED is no failure).",
)
@runner_options
@output_options
def command(
    targets: tuple[str, ...],
    as_json: bool,
    summary: bool,
    only: tuple[str, ...],
    seed: int,
    max_examples: int,
    exitfirst: bool,
    require_proof: bool,
    jobs: int | None,
    executor: str,
    scheduler: str | None,
    timeout: float,
    no_cache: bool,
    cache_dir: str | None,
    quiet: bool,
    verbose: bool,
    no_progress: bool,
    color: str,
) -> None:
    """Check claims and derivations, and report their verdicts.

    TARGETS are names of claims or derivations and/or paths to Python files of claims; none means
    every built-in claim, then every built-in derivation. A file checks the claims and derivations
    it defines, with those named beside it. The exit status is 1 when one is not as expected (with
    --require-proof, also when one expected to hold is not PROVED).

    Each claim is checked in a worker process: one that exits, dies or runs past --timeout is
    ERROR and the others are still checked. The report goes to stdout, in the order given; on a
    terminal, a progress bar and a line per claim as it completes go to stderr (-v: those lines
    even when stderr is not a terminal; -q: only what is not as expected, and the summary).
    Ctrl-C stops every worker and exits with status 130.

    Defaults for these options may be set in pyproject.toml, under [tool.icl-verify] (for every
    command) or [tool.icl-verify.check], with the options' long names: max-examples = 20.

    Verdicts are reused from the cache only while every source file the check loaded (the
    claim's file, its helpers wherever they are, the package's modules) hashes the same and
    every distribution it imported has the same version, for the same seed and budget. When
    every verdict of a run is in the cache, the same command again prints its report without
    executing the file. Data files read at run time and environment variables are not tracked:
    --no-cache checks afresh.

    A claim file is Python code, executed with your user's rights when it is loaded, like a
    test file given to pytest: check only files you trust.
    """
    from icl_verify.running import replay

    if summary and as_json:
        raise click.UsageError("--summary and --json are two different reports; give one")
    check_verbosity(quiet, verbose)
    validate_runner(jobs, executor, scheduler)
    paint = use_color(color, sys.stdout) and not as_json
    before = frozenset(sys.modules)
    store = None if no_cache else open_store(cache_dir)
    options = {
        "json": as_json,
        "summary": summary,
        "quiet": quiet,
        "family": list(only),
        "seed": seed,
        "max_examples": max_examples,
    }
    options |= {"require_proof": True} if require_proof else {}
    options |= {"exitfirst": True} if exitfirst else {}
    key = None if store is None else replay.run_key(targets, options)
    if store is not None and key is not None and (kept := replay.served(store, key)) is not None:
        click.echo(colored(kept[0], paint), nl=False, color=paint)
        sys.exit(kept[1])

    from icl_verify.running import runner
    from icl_verify.running.verdict_cache import VerdictCache

    cache = None if store is None else VerdictCache(store.folder)
    with _prints_to_stderr():
        claims, derivations, owners = _gather(targets, only)
    try:
        checked = runner.check_claims(
            claims,
            files=[t for t in targets if t.endswith(".py")],
            seed=seed,
            max_examples=max_examples,
            jobs=jobs,
            executor=executor,
            scheduler=scheduler,
            cache=cache,
            progress=progress_shown(quiet, no_progress),
            timeout=timeout,
            on_result=streamer(use_color(color, sys.stderr)) if lines_streamed(quiet, verbose, no_progress) else None,
            exitfirst=exitfirst,
        )
        with _prints_to_stderr():
            steps = _derivations_checked([] if checked.not_run else derivations, exitfirst)
    except KeyboardInterrupt as exc:
        from icl_verify.cli.main import ignore_interruptions, status_after, what_ended

        ignore_interruptions()
        click.echo(f"{what_ended(exc)}: every worker stopped; verdicts finished so far are kept in the cache", err=True)
        sys.exit(status_after(exc))
    results = checked.results
    not_run = (list(checked.not_run), [d.name for d in derivations[len(steps) :]])

    def render(cached: frozenset[str]) -> str:
        return _report(
            results,
            steps,
            owners,
            cached,
            as_json=as_json,
            summary=summary,
            quiet=quiet,
            seed=seed,
            max_examples=max_examples,
            not_run=not_run,
        )

    printed = render(checked.cached)
    status = 0 if all(r.as_expected for r in [*results, *steps]) else 1
    if require_proof and _unproved(results, steps):
        click.echo("not proved for every size: " + ", ".join(_unproved(results, steps)), err=True)
        status = 1
    if store is not None and key is not None:
        _keep(store, key, checked, steps, before, status, render)
    click.echo(colored(printed, paint), nl=False, color=paint)
    sys.exit(status)


def _derivations_checked(derivations: Sequence[Derivation], exitfirst: bool) -> list[DerivationResult]:
    """Each derivation checked in turn; with ``exitfirst``, none after the first not as expected."""
    steps = []
    for d in derivations:
        steps.append(d.check())
        if exitfirst and not steps[-1].as_expected:
            break
    return steps


def stopped_lines(not_run: tuple[Sequence[str], Sequence[str]]) -> list[str]:
    """The line ending a run stopped early (``-x``): how many claims and derivations (``not_run``) were not run;
    none when every one ran."""
    counts = [(len(not_run[0]), "claim"), (len(not_run[1]), "derivation")]
    parts = [f"{n} {noun}{'s' if n != 1 else ''}" for n, noun in counts if n]
    if not parts:
        return []
    return [f"stopped early (-x) at the first result not as expected: {' and '.join(parts)} not run"]


def _unproved(results: Sequence[Result], steps: Sequence[DerivationResult]) -> list[str]:
    """The claims and derivations expected to hold that are not PROVED (what --require-proof fails on)."""
    from icl_verify.core.verdicts import Verdict

    claims = [r.claim.name for r in results if r.claim.holds and r.verdict is not Verdict.PROVED]
    return claims + [d.derivation.name for d in steps if d.derivation.holds and d.verdict is not Verdict.PROVED]


def _keep(
    store: Store,
    key: str,
    checked: Checked,
    steps: Sequence[DerivationResult],
    before: frozenset[str],
    status: int,
    render: Callable[[frozenset[str]], str],
) -> None:
    """Keep the run (:func:`icl_verify.running.replay.keep`) when every verdict is in the cache (``checked.depends``)
    and no derivation's check crashed: the report as ``render`` prints it with every claim from the cache, and what
    the claims and this process (the modules loaded since ``before``) depend on."""
    from icl_verify.core.verdicts import Verdict
    from icl_verify.running import replay
    from icl_verify.running.depends import Depends, loaded_since

    if checked.depends is None or any(d.verdict is Verdict.ERROR for d in steps):
        return
    depends = Depends.merged([checked.depends, Depends.record(*loaded_since(before))])
    if depends is not None:
        replay.keep(store, key, render(frozenset(r.claim.name for r in checked.results)), status, depends)


def _report(
    results: Sequence[Result],
    steps: Sequence[DerivationResult],
    owners: dict[str, str],
    cached: frozenset[str],
    *,
    as_json: bool,
    summary: bool,
    quiet: bool,
    seed: int,
    max_examples: int,
    not_run: tuple[Sequence[str], Sequence[str]] = ((), ()),
) -> str:
    """What ``check`` prints on stdout: the JSON report, one line per family, the tables (``cached``: the claims
    read from the cache), or with ``quiet`` the ``FAILED`` lines and the summary lines; after a run stopped early,
    a line saying how many claims and derivations were ``not_run`` (in the JSON report, their names)."""
    from icl_verify.output import report, strict_json

    if as_json:
        record = report.to_json(results, seed=seed, max_examples=max_examples, derivations=steps, cached=cached)
        record["not_run"] = {"claims": list(not_run[0]), "derivations": list(not_run[1])}
        return strict_json.dumps(record, indent=2) + "\n"
    if summary:
        return "".join(line + "\n" for line in [*family_summary(results, steps, owners), *stopped_lines(not_run)])
    if quiet:
        tallies = [report.summary_line(results)] if results or not steps else []
        tallies += [report.derivations_summary_line(steps)] if steps else []
        return "".join(
            line + "\n" for line in [*report.failure_lines(results, steps), *tallies, *stopped_lines(not_run)]
        )
    tables = [report.table(results, cached=cached)] if results or not steps else []
    tables += [report.derivations_table(steps)] if steps else []
    return "".join(table + "\n" for table in [*tables, *stopped_lines(not_run)])
