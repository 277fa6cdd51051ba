"""The package's exceptions.

* :class:`IclVerifyError` — the base of every exception icl-verify raises on purpose;
* :class:`InvalidArgument` — bad input to a public function, a claim declaration or a command
  (also a ``ValueError``, the conventional type for a bad value). The message is one line naming the
  argument and what was expected. On the command line it alone means "your input": exit status 2.

Any other exception escaping a command is a bug in icl-verify: the command line shows its traceback,
asks for a report and exits with status 1.

>>> try:
...     raise InvalidArgument("seed must be a non-negative integer, got -1")
... except ValueError as exc:
...     print(exc)
seed must be a non-negative integer, got -1
"""

from __future__ import annotations


class IclVerifyError(Exception):
    """The base class of the exceptions icl-verify raises on purpose."""


class InvalidArgument(IclVerifyError, ValueError):
    """A bad argument, declaration or file, named in a one-line message."""
