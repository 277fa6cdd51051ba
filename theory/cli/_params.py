"""Option types and checks shared by the commands: every option is validated before any computation.

A bad value is a one-line usage error naming the option and what is expected (exit status 2):
non-finite or out-of-range numbers (:class:`FiniteFloat`), counts above what the command can do in
reasonable time (:func:`count`), output paths that cannot be written or hold something this command
does not write (:class:`OutputFile`, :class:`OutputDir`), cache folders that cannot hold a cache
(:func:`cache_folder`), and runs whose memory estimate exceeds ``--max-memory`` (:func:`within_memory`),
itself at most the machine's memory.
"""

from __future__ import annotations

import json
import math
import os
import socket
import tempfile
from collections.abc import Callable
from pathlib import Path

import click
from click.core import ParameterSource

GIB = 1 << 30
MAX_EXAMPLES = 10_000  # random cases per numeric check: 100× the default
MAX_JOBS = 1024  # worker processes: far beyond any one machine's cores, far below what overflows a count
VIRTUAL_ROOTS = (Path("/proc"), Path("/sys"), Path("/dev"))  # kernel file systems: never a cache or an output


def machine_memory_gib() -> float:
    """The machine's physical memory in GiB (POSIX ``sysconf``; 1 TiB where the platform does not say)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / GIB
    except (AttributeError, ValueError, OSError):
        return 1024.0


DEFAULT_MAX_MEMORY_GIB = min(4.0, machine_memory_gib())


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
        if not str(value).strip():
            self.fail("an empty path; name a file", param, ctx)
        path = Path(value)
        if path.is_dir() or str(value).endswith(os.sep):
            self.fail(f"expected a {self.kind} file, got the folder {value!r}", param, ctx)
        if not path.parent.absolute().exists():
            self.fail(f"the folder {str(path.parent)!r} does not exist", param, ctx)
        problem = _probe_writable(path.parent.absolute())
        if problem:
            self.fail(problem, param, ctx)
        if path.exists() and not path.is_file():
            self.fail(
                f"{value!r} is not a regular file (a FIFO, device or socket); refusing to write to it", param, ctx
            )
        if path.exists():
            with path.open("rb") as handle:
                head = handle.read(HEAD_BYTES)
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
        if not str(value).strip():
            self.fail("an empty path; name a folder (. for the working folder)", param, ctx)
        path = Path(value)
        if _virtual(path) is not None:
            self.fail(f"{value!r} is under {_virtual(path)}, a kernel file system", param, ctx)
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
        param = next(p for p in ctx.command.params if p.name == name)
        raise click.UsageError(f"{max(param.opts, key=len)} {reason}", ctx)


HEAD_BYTES = 4096  # what is read of an existing output file to recognise it as one of ours


def png_written_by(software: str) -> Callable[[bytes], bool]:
    """Recognises the first :data:`HEAD_BYTES` of a PNG file (signature, ISO/IEC 15948 §5.2) whose ``Software``
    text chunk is ``software`` — what a command writes with ``savefig(metadata={"Software": software})``
    (matplotlib writes text chunks before the image data, §11.3.4), so another PNG is never overwritten."""
    mark = b"Software\x00" + software.encode()

    def ours(head: bytes) -> bool:
        return head.startswith(b"\x89PNG\r\n\x1a\n") and mark in head

    return ours


def max_memory_option(fn: Callable) -> Callable:
    """``--max-memory GIB``: the memory a run may be estimated to need before it is refused, at most the
    machine's memory (a run above it would end in a ``MemoryError``, not a result). The bound is checked when
    the option is given, so that ``--help`` shows no number of this machine."""
    return click.option(
        "--max-memory",
        default=DEFAULT_MAX_MEMORY_GIB,
        show_default="4 GiB, or the machine's memory if less",
        type=FiniteFloat(min=0, min_open=True),
        callback=_at_most_machine_memory,
        help="Refuse runs whose estimated memory exceeds this many GiB (at most the machine's memory).",
    )(fn)


def _at_most_machine_memory(ctx: click.Context, param: click.Parameter, value: float) -> float:
    memory = machine_memory_gib()
    if value > memory:
        raise click.BadParameter(f"{value:g} GiB is more than this machine's {memory:.3g} GiB", ctx, param)
    return value


def jobs_option(help: str) -> Callable[[Callable], Callable]:
    """``--jobs N`` (``-j``): worker processes, 1 to :data:`MAX_JOBS` — the one name every command uses."""
    return click.option("--jobs", "-j", type=count(1, MAX_JOBS), default=None, help=help)


def _virtual(path: Path) -> Path | None:
    """The kernel file system (``/proc``, ``/sys``, ``/dev``) that ``path`` lies in, if any — as written or once its
    links are resolved (``/proc/self/cwd`` is under /proc, though it leads to the working folder)."""
    named = (Path(os.path.abspath(path)), path.resolve())
    return next((root for root in VIRTUAL_ROOTS for p in named if p == root or root in p.parents), None)


def _foreign_costs(folder: Path) -> bool:
    """True if ``folder`` holds a ``costs.json`` that is not the cache's record of durations (a JSON object of
    numbers), i.e. a file the cache must not replace."""
    costs = folder / "costs.json"
    if not costs.exists():
        return False
    if not costs.is_file():
        return True
    try:
        data = json.loads(costs.read_bytes()[: 1 << 24])
    except (OSError, ValueError):
        return True
    return not isinstance(data, dict) or not all(isinstance(v, (int, float)) for v in data.values())


def cache_folder(value: str | None, origin: str, *, explicit: bool) -> Path | None:
    """The verdict cache's folder ``value`` (given by ``origin``: ``--cache-dir`` or ``$ICL_VERIFY_CACHE_DIR``),
    checked before any computation.

    A folder the user named that cannot hold a cache (an empty path, a file, a FIFO, a symbolic link to nothing, a
    path under ``/proc`` even through a link, a folder that cannot be written, one holding a ``costs.json`` the
    cache did not write) is a usage error naming the path
    and the reason. The default folder (``explicit`` false) that cannot be written gives one warning line and
    None: the run goes on without a cache.
    """
    from icl_verify.running.store import dangling

    if value is None:
        return None
    path = Path(value).expanduser()
    problem = None
    if not value.strip():
        problem = "an empty path (. names the working folder)"
    elif dangling(path) is not None:
        problem = dangling(path)
    elif _virtual(path) is not None:
        problem = f"{str(path)!r} is under {_virtual(path)}, a kernel file system"
    elif path.exists() and not path.is_dir():
        problem = f"{str(path)!r} is a file, not a folder"
    elif path.is_dir() and _foreign_costs(path):
        problem = f"{str(path)!r} holds a costs.json that icl-verify did not write; refusing to replace it"
    else:
        problem = _probe_writable(_nearest_existing(path))
    if problem is None:
        return path
    if explicit:
        raise click.UsageError(f"{origin}: {problem}")
    click.echo(f"warning: {origin} {path}: {problem}; checking without the verdict cache", err=True)
    return None


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


def cache_dir_option(fn: Callable) -> Callable:
    """``--cache-dir DIR``: the verdict cache's folder (checked when the command runs, :func:`cache_folder`)."""
    return click.option(
        "--cache-dir",
        type=click.Path(),
        default=None,
        help="Folder of the verdict cache  [default: $ICL_VERIFY_CACHE_DIR, else the user's cache directory].",
    )(fn)


SCHEDULER_TIMEOUT = 5.0  # seconds to wait for a Dask scheduler to accept a connection


def reachable_scheduler(address: str, timeout: float = SCHEDULER_TIMEOUT) -> None:
    """Refuse (exit 2, one line) a ``tcp://HOST:PORT`` (or ``HOST:PORT``) Dask scheduler that does not accept a
    TCP connection within ``timeout`` seconds — before any work, instead of Dask's ``OSError`` after 30 s.
    Other schemes (``inproc://``, ``ucx://``, ``tls://``) are left to Dask."""
    scheme, _, rest = address.rpartition("://")
    if scheme not in ("", "tcp"):
        return
    host, _, port = rest.rpartition(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise click.UsageError(f"--scheduler {address!r}: expected tcp://HOST:PORT")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=timeout):
            pass
    except OSError as exc:
        reason = "timed out" if isinstance(exc, TimeoutError) else exc.strerror or str(exc)
        raise click.UsageError(f"--scheduler {address}: no Dask scheduler reachable there ({reason})") from None
