"""The ``icl-verify`` command line: one module per command, each defining ``command``.

Commands are discovered (:func:`icl_verify.cli.main.main` adds every module's ``command``), so a
new command is a new module here. Exit status: 0 when every checked claim has its expected
verdict, 1 when any does not, 2 for usage or input errors (a one-line message, no traceback), and
1 for an internal error, a bug (its traceback, then a one-line request to report it).
"""

import click


class InputError(click.ClickException):
    """A bad argument or file: printed as one line, exit status 2 (as is an escaping
    :class:`~icl_verify.errors.InvalidArgument`)."""

    exit_code = 2
