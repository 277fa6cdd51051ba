"""The ``icl-verify`` group: every command module of :mod:`icl_verify.cli` is discovered and added."""

from __future__ import annotations

import importlib
import pkgutil

import click

import icl_verify.cli as cli_package


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="icl-verify")
def main() -> None:
    """icl-verify: check the mathematics of in-context learning."""


def _command_modules() -> list[str]:
    names = (info.name for info in pkgutil.iter_modules(cli_package.__path__))
    return sorted(name for name in names if name != "main" and not name.startswith("_"))


for _name in _command_modules():
    main.add_command(importlib.import_module(f"{cli_package.__name__}.{_name}").command)
