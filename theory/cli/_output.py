"""Output habits shared by the commands, as pytest has them: the report on stdout, progress on stderr.

- A progress bar and one line per claim as it completes go to stderr, and only when stderr is a terminal
  (``--no-progress``: never; ``-v``: the lines even when it is not); ``-q`` prints only what failed and the
  summary. A line is written through tqdm, which clears the bar first, so the two never garble each other.
- Colour on a terminal (``--color auto``), never when ``NO_COLOR`` is set (https://no-color.org), or as
  ``--color always``/``never`` says: the summary line green when all is as expected, red otherwise, as are the
  streamed lines and the ``FAILED`` lines. What is kept (the replayed report, files) is never coloured.
- Defaults from ``[tool.icl-verify]`` in the nearest ``pyproject.toml`` (:func:`config_defaults`).
"""

from __future__ import annotations

import os
import re
import sys
import tomllib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import click

from icl_verify.cli import InputError

if TYPE_CHECKING:
    from icl_verify.core.claims import Result

COLORS = ("auto", "always", "never")
CONFIG_TABLE = "icl-verify"
"""``[tool.icl-verify]`` in pyproject.toml: its keys are option names (``max-examples = 20``), for every command
that has that option; a sub-table ``[tool.icl-verify.<command>]`` sets one command's."""


def output_options(fn: Callable) -> Callable:
    """``-q``/``-v``, ``--no-progress`` and ``--color``: how much is printed, and how (``-q`` and ``-v`` together
    are a usage error, :func:`check_verbosity`)."""
    options = [
        click.option("-q", "--quiet", is_flag=True, help="Print only what is not as expected, and the summary."),
        click.option(
            "-v",
            "--verbose",
            is_flag=True,
            help="Print a line on stderr as each claim completes, even when stderr is not a terminal.",
        ),
        click.option(
            "--no-progress", is_flag=True, help="No progress bar and no line per claim (on a terminal they are shown)."
        ),
        click.option(
            "--color",
            type=click.Choice(COLORS),
            default="auto",
            show_default=True,
            help="Colour the summary: on a terminal unless NO_COLOR is set (auto), always or never.",
        ),
    ]
    for option in reversed(options):
        fn = option(fn)
    return fn


def use_color(choice: str, stream: IO[str]) -> bool:
    """Whether to colour what goes to ``stream``: ``--color always``/``never``, else on a terminal without
    ``NO_COLOR`` (set to anything non-empty)."""
    if choice != "auto":
        return choice == "always"
    return not os.environ.get("NO_COLOR") and stream.isatty()


def progress_shown(quiet: bool, no_progress: bool, stream: IO[str] = sys.stderr) -> bool:
    """Whether the progress bar is shown: on a terminal, unless ``--no-progress`` or ``-q``."""
    return not (no_progress or quiet) and stream.isatty()


def lines_streamed(quiet: bool, verbose: bool, no_progress: bool, stream: IO[str] = sys.stderr) -> bool:
    """Whether a line is printed on stderr as each claim completes: with ``-v``, or with the progress bar."""
    return verbose or progress_shown(quiet, no_progress, stream)


def check_verbosity(quiet: bool, verbose: bool) -> None:
    """A usage error when both ``-q`` and ``-v`` are given."""
    if quiet and verbose:
        raise click.UsageError("-q/--quiet and -v/--verbose say opposite things; give one")


def streamer(color: bool) -> Callable[[Result], None]:
    """What prints one line on stderr as a claim completes: ``PROVED    name  (1.2 s)``, ``!`` before the name
    of one not as expected; through tqdm, so that a progress bar is cleared first and drawn again after."""
    from tqdm import tqdm

    def stream(result: Result) -> None:
        mark = " " if result.as_expected else "!"
        line = f"{result.verdict.value:<9} {mark}{result.claim.name}  ({result.seconds:.1f} s)"
        tqdm.write(click.style(line, fg="green" if result.as_expected else "red") if color else line, file=sys.stderr)
        sys.stderr.flush()  # now, before the report on stdout, even where stderr is buffered

    return stream


_VERDICT_LINE = re.compile(r"^(?:\d+ (?:claims?|derivations?)(?::.*)?|FAILED .*|[ !] \S.*;? .*as expected.*)$")


def colored(report: str, color: bool) -> str:
    """``report`` with its summary and ``FAILED`` lines green when all is as expected, red when not."""
    if not color:
        return report

    def paint(line: str) -> str:
        if not _VERDICT_LINE.match(line):
            return line
        bad = "NOT as expected" in line or line.startswith(("FAILED", "!"))
        return click.style(line, fg="red" if bad else "green", bold=True)

    return "\n".join(paint(line) for line in report.split("\n"))


def config_defaults(command: click.Command, start: Path | None = None) -> dict[str, Any]:
    """The defaults of ``command`` from ``[tool.icl-verify]`` in the nearest pyproject.toml at or above ``start``
    (the working folder): the table's keys that are options of the command, then its sub-table
    ``[tool.icl-verify.<command>]`` over them. Keys are the options' long names (``max-examples = 20``,
    ``no-cache = true``). A file that is not TOML, or a key of a command's sub-table that is none of its
    options, is an :class:`InputError` naming the file."""
    path = next((d / "pyproject.toml" for d in _upwards(start or Path.cwd()) if (d / "pyproject.toml").is_file()), None)
    if path is None:
        return {}
    try:
        table = tomllib.loads(path.read_text(encoding="utf-8")).get("tool", {}).get(CONFIG_TABLE, {})
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, OSError) as exc:
        raise InputError(f"{path}: cannot read [tool.{CONFIG_TABLE}]: {' '.join(str(exc).split())}") from None
    names = {p.name for p in command.params if isinstance(p, click.Option)}
    own = table.get(command.name, {})
    if not isinstance(table, Mapping) or not isinstance(own, Mapping):
        raise InputError(f"{path}: [tool.{CONFIG_TABLE}] must be a table, with a table per command")
    unknown = sorted(k for k in own if _param(k) not in names)
    if unknown:
        raise InputError(
            f"{path}: [tool.{CONFIG_TABLE}.{command.name}] has {unknown[0]!r}, no option of {command.name}"
        )
    shared = {_param(k): v for k, v in table.items() if not isinstance(v, Mapping) and _param(k) in names}
    return {**shared, **{_param(k): v for k, v in own.items()}}


def _upwards(folder: Path) -> list[Path]:
    resolved = folder.resolve()
    return [resolved, *resolved.parents]


def _param(key: str) -> str:
    """An option's name as written in TOML (``max-examples``) as click's parameter name (``max_examples``)."""
    return key.replace("-", "_")
