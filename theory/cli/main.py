"""The ``icl-verify`` group: one command per module of :mod:`icl_verify.cli`, imported only when it runs.

The group knows its commands from :data:`COMMANDS` — each name (also its module's name) with its
one-line summary — so ``--help``, ``--version`` and a mistyped command import no command module, and
therefore neither SymPy nor SciPy nor any family; a command's module is imported when that command
is invoked or its own help is asked for (a test holds the table to the modules and their docstrings).

Errors the user can fix are one line on stderr with exit status 2 and no traceback: click's usage
errors, :class:`~icl_verify.cli.InputError` and :class:`~icl_verify.errors.InvalidArgument` (the
library's answer to bad input, for an input the command line let through). Ctrl-C is one line and
exit status 130. Any other exception escaping a command is a bug in icl-verify: its traceback, then
one line asking for a report, and exit status 1.
"""

from __future__ import annotations

import importlib
import sys
import traceback

import click

from icl_verify.cli import InputError
from icl_verify.cli._output import config_defaults
from icl_verify.errors import InvalidArgument

#: The request that ends an internal error's line, after its traceback.
REPORT = "please report it with the traceback above"

#: Exit status after Ctrl-C (128 + SIGINT, as shells report it).
INTERRUPTED = 130

#: Every command: its name (the module ``icl_verify.cli.<name>`` defines it as ``command``) and its summary.
COMMANDS = {
    "check": "Check claims and derivations, and report their verdicts.",
    "docs": "Generate the derivation documents, or report which are stale.",
    "kinetics": "Simulate the reduced model and compare its (w, β) trajectory with the ODE.",
    "list": "List the built-in claims with their family and source.",
    "raw": "Compile a RAW program to transformer weights, run it and compare.",
    "scaling": "Measure the memorization exponent ν and predict K*(N).",
    "train": "Meta-train LSA on linear regression and compare it with GD.",
}


class _RejectedInput(InputError):
    """An :class:`InputError` or an :class:`InvalidArgument`, with the command it came from."""

    def __init__(self, where: str, message: str) -> None:
        super().__init__(message)
        self.where = where


class _Interrupted(click.ClickException):
    """Ctrl-C while a command ran: one line, exit status :data:`INTERRUPTED` (click's own handling would print
    a blank line first)."""

    exit_code = INTERRUPTED


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

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except (InvalidArgument, InputError) as exc:
            message = exc.format_message() if isinstance(exc, InputError) else str(exc)
            raise _RejectedInput(" ".join(filter(None, [ctx.command_path, ctx.invoked_subcommand])), message) from None
        except KeyboardInterrupt:
            raise _Interrupted("interrupted") from None

    def main(self, *args, **kwargs):
        kwargs["standalone_mode"] = False
        try:
            status = super().main(*args, **kwargs)
        except (click.exceptions.Abort, KeyboardInterrupt):
            _fail("icl-verify", "interrupted", INTERRUPTED)
        except click.ClickException as exc:
            context = getattr(exc, "ctx", None)
            where = context.command_path if context else getattr(exc, "where", "icl-verify")
            _fail(where, exc.format_message(), exc.exit_code)
        except Exception as exc:
            _internal_error(exc)
        sys.exit(status if isinstance(status, int) else 0)


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
