"""The ``icl-verify`` group: every command module of :mod:`icl_verify.cli` is discovered and added.

Errors the user can fix are one line on stderr with exit status 2 and no traceback: click's usage
errors, :class:`~icl_verify.cli.InputError` and :class:`~icl_verify.errors.InvalidArgument` (the
library's answer to bad input, for an input the command line let through). Any other exception
escaping a command is a bug in icl-verify: its traceback, then one line asking for a report, and
exit status 1.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
import traceback

import click

import icl_verify.cli as cli_package
from icl_verify.cli import InputError
from icl_verify.errors import InvalidArgument

#: The request that ends an internal error's line, after its traceback.
REPORT = "please report it with the traceback above"


class _RejectedInput(InputError):
    """An :class:`InputError` or an :class:`InvalidArgument`, with the command it came from."""

    def __init__(self, where: str, message: str) -> None:
        super().__init__(message)
        self.where = where


class _Group(click.Group):
    """A click group whose errors are single lines (see the module docstring)."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except (InvalidArgument, InputError) as exc:
            message = exc.format_message() if isinstance(exc, InputError) else str(exc)
            raise _RejectedInput(" ".join(filter(None, [ctx.command_path, ctx.invoked_subcommand])), message) from None

    def main(self, *args, **kwargs):
        kwargs["standalone_mode"] = False
        try:
            status = super().main(*args, **kwargs)
        except click.exceptions.Abort:
            _fail("icl-verify", "aborted", 1)
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


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="icl-verify")
def main() -> None:
    """icl-verify: check the mathematics of in-context learning."""


def _command_modules() -> list[str]:
    names = (info.name for info in pkgutil.iter_modules(cli_package.__path__))
    return sorted(name for name in names if name != "main" and not name.startswith("_"))


for _name in _command_modules():
    main.add_command(importlib.import_module(f"{cli_package.__name__}.{_name}").command)
