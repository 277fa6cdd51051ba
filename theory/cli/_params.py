"""Option types and checks shared by the commands: every option is validated before any computation.

A bad value is a one-line usage error naming the option and what is expected (exit status 2):
non-finite or out-of-range numbers (:class:`FiniteFloat`), counts above what the command can do in
reasonable time (:func:`count`), output paths that cannot be written or hold something this command
does not write (:class:`OutputFile`, :class:`OutputDir`), and runs whose memory estimate exceeds
``--max-memory`` (:func:`within_memory`).
"""

from __future__ import annotations

import math
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

import click
from click.core import ParameterSource

GIB = 1 << 30
DEFAULT_MAX_MEMORY_GIB = 4.0
MAX_EXAMPLES = 10_000  # random cases per numeric check: 100× the default


class FiniteFloat(click.FloatRange):
    """A finite real number, optionally in a range: ``nan``, ``inf`` and values beyond the bounds are refused."""

    name = "finite number"

    def convert(self, value, param, ctx):
        try:
            number = float(value)
        except (TypeError, ValueError):
            self.fail(f"expected a finite number, got {value!r}", param, ctx)
        if not math.isfinite(number):
            self.fail(f"expected a finite number, got {value!r}", param, ctx)
        return super().convert(number, param, ctx)


def count(low: int, high: int) -> click.IntRange:
    """A whole number in [low, high]: ``high`` is where the run's time or memory stops being reasonable."""
    return click.IntRange(min=low, max=high)


def _nearest_existing(path: Path) -> Path:
    """``path`` itself or its closest ancestor that exists."""
    path = path.absolute()
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


def _probe_writable(folder: Path) -> str | None:
    """Why nothing can be created in ``folder`` (None if a temporary file can be created and removed there)."""
    if not folder.is_dir():
        return f"{folder} is not a folder"
    try:
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".icl-verify-probe-"):
            pass
    except OSError as exc:
        return f"cannot write in {folder} ({exc.strerror or exc})"
    return None


class OutputFile(click.ParamType):
    """A file this command will (re)write: its folder must exist and be writable, and an existing file must
    be one this command writes (recognised by ``is_ours``, e.g. a PNG signature) — never overwrite another."""

    name = "file"

    def __init__(self, kind: str, is_ours: Callable[[bytes], bool]) -> None:
        self.kind = kind
        self.is_ours = is_ours

    def convert(self, value, param, ctx):
        path = Path(value)
        if path.is_dir() or str(value).endswith(os.sep):
            self.fail(f"expected a {self.kind} file, got the folder {value!r}", param, ctx)
        if not path.parent.absolute().exists():
            self.fail(f"the folder {str(path.parent)!r} does not exist", param, ctx)
        problem = _probe_writable(path.parent.absolute())
        if problem:
            self.fail(problem, param, ctx)
        if path.exists():
            with path.open("rb") as handle:
                head = handle.read(64)
            if not self.is_ours(head):
                self.fail(f"{value!r} exists and is not a {self.kind}; refusing to overwrite it", param, ctx)
        return str(path)


class OutputDir(click.ParamType):
    """A folder this command writes into (created if missing): the closest existing ancestor must be a
    writable folder, and an existing folder must be empty or pass ``is_ours``."""

    name = "folder"

    def __init__(self, kind: str, is_ours: Callable[[Path], bool]) -> None:
        self.kind = kind
        self.is_ours = is_ours

    def convert(self, value, param, ctx):
        path = Path(value)
        if path.exists() and not path.is_dir():
            self.fail(f"expected a folder, got the file {value!r}", param, ctx)
        problem = _probe_writable(_nearest_existing(path))
        if problem:
            self.fail(problem, param, ctx)
        if path.is_dir() and any(path.iterdir()) and not self.is_ours(path):
            self.fail(f"{value!r} is not empty and is not a {self.kind}; refusing to write into it", param, ctx)
        return str(path)


def reject_given(ctx: click.Context, name: str, reason: str) -> None:
    """Refuse the option ``name`` if the user gave it (rather than leaving the default) although it has no effect."""
    if ctx.get_parameter_source(name) not in (ParameterSource.DEFAULT, None):
        raise click.UsageError(f"--{name.replace('_', '-')} {reason}", ctx)


def png_signature(head: bytes) -> bool:
    """True for the first bytes of a PNG file (ISO/IEC 15948, §5.2) — what ``--plot`` writes."""
    return head.startswith(b"\x89PNG\r\n\x1a\n")


def max_memory_option(fn: Callable) -> Callable:
    """``--max-memory GIB``: the memory a run may be estimated to need before it is refused."""
    return click.option(
        "--max-memory",
        default=DEFAULT_MAX_MEMORY_GIB,
        show_default=True,
        type=FiniteFloat(min=0, max=1 << 20, min_open=True),
        help="Refuse runs whose estimated memory exceeds this many GiB (raise it on a large machine).",
    )(fn)


def format_bytes(n: float) -> str:
    """``n`` bytes in binary units (``1.5 GiB``)."""
    units = ("B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB")
    k = 0
    while n >= 1024 and k < len(units) - 1:
        n, k = n / 1024, k + 1
    return f"{n:.3g} {units[k]}"


def within_memory(estimate_bytes: float, max_memory_gib: float, what: str) -> None:
    """Refuse (exit 2) a run estimated to need more than ``--max-memory``, saying the estimate and the limit."""
    if estimate_bytes > max_memory_gib * GIB:
        raise click.UsageError(
            f"{what} needs about {format_bytes(estimate_bytes)} of memory, above the limit "
            f"{format_bytes(max_memory_gib * GIB)}; use smaller sizes or raise --max-memory"
        )
