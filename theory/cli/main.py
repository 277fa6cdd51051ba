"""The ``icl-verify`` group: one command per module of :mod:`icl_verify.cli`, imported only when it runs.

The group knows its commands from :data:`COMMANDS` — each name (also its module's name) with its
one-line summary — so ``--help``, ``--version`` and a mistyped command import no command module, and
therefore neither SymPy nor SciPy nor any family; a command's module is imported when that command
is invoked or its own help is asked for (a test holds the table to the modules and their docstrings).

Errors the user can fix are one line on stderr with exit status 2 and no traceback: click's usage
errors, :class:`~icl_verify.cli.InputError` and :class:`~icl_verify.errors.InvalidArgument` (the
library's answer to bad input, for an input the command line let through). Ctrl-C is one line and
exit status 130. Any other exception escaping a command is a bug in icl-verify: its traceback, then
one line asking for a report, and exit status 1. SIGTERM and SIGHUP end a command as Ctrl-C does (its
workers stopped), with one line and exit status 128 + the signal. Output that cannot be written is one line
and exit status 1 (a full disk, a closed stdout); a closed pipe (``| head``) ends quietly with
:data:`CLOSED_PIPE`.
"""

from __future__ import annotations

import errno
import importlib
import itertools
import os
import signal
import sys
import threading
import traceback
from collections.abc import Iterable, Mapping
from typing import Any

import click

from icl_verify.cli import InputError
from icl_verify.cli._output import config_defaults
from icl_verify.errors import InvalidArgument

#: The request that ends an internal error's line, after its traceback.
REPORT = "please report it with the traceback above"

#: Exit status after Ctrl-C (128 + SIGINT, as shells report it).
INTERRUPTED = 130

#: Exit status after a write to a closed pipe, quietly (128 + SIGPIPE, as a tool that signal ended).
CLOSED_PIPE = 141

#: Signals that end a command as Ctrl-C does: every worker stopped, one line, exit status 128 + the signal.
ENDING = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))

#: Every command: its name (the module ``icl_verify.cli.<name>`` defines it as ``command``) and its summary.
COMMANDS = {
    "check": "Check claims and derivations, and report their verdicts.",
    "docs": "Generate the derivation documents, or report which are stale.",
    "kinetics": "Simulate the reduced model and compare its (w, β) trajectory with the ODE.",
    "list": "List the built-in claims, then the built-in derivations, with their family and source.",
    "raw": "Compile a RAW program to transformer weights, run it and compare.",
    "scaling": "Measure the memorization exponent ν and predict K*(N).",
    "train": "Meta-train LSA on linear regression and compare it with GD.",
}


class _RejectedInput(InputError):
    """An :class:`InputError` or an :class:`InvalidArgument`, with the command it came from."""

    def __init__(self, where: str, message: str) -> None:
        super().__init__(message)
        self.where = where


class Terminated(KeyboardInterrupt):
    """A signal of :data:`ENDING` while a command ran: it unwinds as Ctrl-C does (a ``KeyboardInterrupt``), so
    every worker is stopped on the way out."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _terminate(signum: int, frame: object) -> None:
    raise Terminated(signum)


def status_after(exc: KeyboardInterrupt) -> int:
    """The exit status after ``exc``: 128 + the signal (:data:`INTERRUPTED` after Ctrl-C)."""
    return 128 + exc.signum if isinstance(exc, Terminated) else INTERRUPTED


def what_ended(exc: KeyboardInterrupt) -> str:
    """``interrupted`` after Ctrl-C, else ``terminated by SIGTERM`` (the signal's name)."""
    return f"terminated by {signal.Signals(exc.signum).name}" if isinstance(exc, Terminated) else "interrupted"


def ignore_interruptions() -> None:
    """From now on Ctrl-C and the :data:`ENDING` signals are ignored, to the end of the process (the handlers are
    not restored when the command returns): the command is already ending, and a second one would cut its message
    short or end the process by the signal instead of its status."""
    if threading.current_thread() is threading.main_thread():
        for signum in (signal.SIGINT, *ENDING):
            signal.signal(signum, signal.SIG_IGN)


class _Interrupted(click.ClickException):
    """Ctrl-C (or a signal of :data:`ENDING`) while a command ran: one line, exit status :func:`status_after` it
    (click's own handling would print a blank line first)."""

    def __init__(self, exc: KeyboardInterrupt) -> None:
        super().__init__(what_ended(exc))
        self.exit_code = status_after(exc)


class _ClosedPipe(click.ClickException):
    """stdout is a pipe whose reader has gone (``| head``): the command ends quietly, exit status
    :data:`CLOSED_PIPE` (click's own handling would end it with status 1, which means "not as expected")."""

    exit_code = CLOSED_PIPE


class _Group(click.Group):
    """A click group whose commands are imported when used and whose errors are single lines (see the
    module docstring)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in COMMANDS:
            return None
        return importlib.import_module(f"icl_verify.cli.{cmd_name}").command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command list from :data:`COMMANDS`, without importing any command."""
        with formatter.section("Commands"):
            formatter.write_dl(sorted(COMMANDS.items()))

    def make_context(self, *args, **kwargs) -> click.Context:
        try:
            return super().make_context(*args, **kwargs)
        except BrokenPipeError:  # --help, --version
            raise _ClosedPipe("") from None

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except BrokenPipeError:
            raise _ClosedPipe("") from None
        except (InvalidArgument, InputError) as exc:
            message = exc.format_message() if isinstance(exc, InputError) else str(exc)
            raise _RejectedInput(" ".join(filter(None, [ctx.command_path, ctx.invoked_subcommand])), message) from None
        except KeyboardInterrupt as exc:
            ignore_interruptions()
            raise _Interrupted(exc) from None

    def main(self, *args, **kwargs):
        kwargs["standalone_mode"] = False
        if sys.stdout is None:  # Python found no file descriptor 1
            _fail("icl-verify", "cannot write the output: stdout is closed", 1)
        saved = {signal.SIGINT: signal.getsignal(signal.SIGINT), **_end_on(ENDING)}  # all restored on the way out
        try:
            status = super().main(*args, **kwargs)
            sys.stdout.flush()
        except (click.exceptions.Abort, KeyboardInterrupt) as exc:
            ignore_interruptions()
            cause = exc if isinstance(exc, KeyboardInterrupt) else exc.__cause__
            ended = cause if isinstance(cause, KeyboardInterrupt) else KeyboardInterrupt()
            _fail("icl-verify", what_ended(ended), status_after(ended))
        except _ClosedPipe:
            _stop_writing()
            sys.exit(CLOSED_PIPE)
        except click.ClickException as exc:
            context = getattr(exc, "ctx", None)
            where = context.command_path if context else getattr(exc, "where", "icl-verify")
            _fail(where, exc.format_message(), exc.exit_code)
        except Exception as exc:
            failed = _stdout_failed(exc)
            if failed is None:
                _internal_error(exc)
            _stop_writing()
            if isinstance(failed, BrokenPipeError):
                sys.exit(CLOSED_PIPE)
            _fail("icl-verify", f"cannot write the output: {failed.strerror or failed}", 1)
        finally:
            _end_on({signum: handler for signum, handler in saved.items() if not _ignored(signum)})
        sys.exit(status if isinstance(status, int) else 0)


def _stdout_failed(exc: Exception) -> OSError | None:
    """``exc`` when it is a failure to write the output — a closed pipe, a full disk or device — else None."""
    if isinstance(exc, BrokenPipeError) or (isinstance(exc, OSError) and exc.errno in _FULL):
        return exc
    return None


_FULL = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO}
"""The errors of writing to a device or a disk that cannot take more (``/dev/full``, a full disk, a quota)."""


def _stop_writing() -> None:
    """Send whatever stdout still holds nowhere, so the interpreter's last flush does not fail again."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # no file descriptor (stdout replaced, as by a test)
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 — it lasts as long as the process


def _ignored(signum: int) -> bool:
    """Whether ``signum`` is ignored now (:func:`ignore_interruptions` ran: it stays so)."""
    return signal.getsignal(signum) == signal.SIG_IGN


def _end_on(handlers: Iterable[int] | Mapping[int, Any]) -> dict[int, Any]:
    """Install :func:`_terminate` for each signal of ``handlers`` (or, given a mapping, the handler it names) in the
    main thread; the handlers replaced, by signal."""
    if threading.current_thread() is not threading.main_thread():
        return {}
    # a signal the process was started ignoring (nohup's SIGHUP) stays ignored
    wanted = (
        handlers
        if isinstance(handlers, Mapping)
        else dict.fromkeys(itertools.filterfalse(_ignored, handlers), _terminate)
    )
    return {signum: signal.signal(signum, handler) for signum, handler in wanted.items() if handler is not None}


def _fail(where: str, message: str, status: int) -> None:
    """Print ``where: error: message`` as one line on stderr and exit with ``status``."""
    click.echo(f"{where}: error: {' '.join(message.split())}", err=True)
    sys.exit(status)


def _internal_error(exc: Exception) -> None:
    """Print the traceback of ``exc``, a bug in icl-verify, and one line asking for a report; exit with status 1."""
    traceback.print_exception(exc, file=sys.stderr)
    detail = " ".join(str(exc).split())
    summary = f"{type(exc).__name__}: {detail}" if detail else type(exc).__name__
    click.echo(f"icl-verify: internal error: {summary} — {REPORT}", err=True)
    sys.exit(1)


@click.group(cls=_Group, invoke_without_command=True, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="icl-verify")
@click.pass_context
def main(ctx: click.Context) -> None:
    """icl-verify: check the mathematics of in-context learning.

    Options' defaults may be set in pyproject.toml under [tool.icl-verify] (every command) or
    [tool.icl-verify.COMMAND], with the options' long names: max-examples = 20.
    """
    if ctx.invoked_subcommand is None:
        click.echo(ctx.get_help())
        return
    command = ctx.command.get_command(ctx, ctx.invoked_subcommand)
    defaults = config_defaults(command) if command is not None else {}
    if defaults:
        ctx.default_map = {ctx.invoked_subcommand: defaults}
