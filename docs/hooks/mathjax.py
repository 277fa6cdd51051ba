"""MkDocs hook: serve MathJax from the site itself, copied from an installed Python package.

The documents write math as ``$$ … $$`` and ``$…$``. pymdownx.arithmatex (``generic: true``)
wraps each formula for MathJax, ``docs/javascripts/mathjax.js`` configures it, and this hook adds
MathJax's single-file SVG bundle to the site as ``assets/mathjax/tex-svg-full.js``, together
with MathJax's licence. That bundle holds every TeX extension and draws glyphs as SVG paths, so
it needs no other file and no font. Nothing is loaded from another host, so the formulas render
offline and from ``file://``.

The files come from the PyPI package django-static-mathjax (MathJax 3, Apache-2.0). It contains
only MathJax's files and does not depend on Django. It is installed by the ``docs`` extra.
"""

from __future__ import annotations

from importlib import metadata
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files

DISTRIBUTION = "django-static-mathjax"
PACKAGE_DIR = "mathjax/static/mathjax"
COPIED = {  # site path (listed in mkdocs.yml's extra_javascript) → path in the package
    "assets/mathjax/tex-svg-full.js": "es5/tex-svg-full.js",
    "assets/mathjax/LICENSE": "LICENSE",
}


def on_files(files: Files, config: MkDocsConfig) -> Files:
    """Add the MathJax bundle and its licence to the site's files."""
    try:
        dist = metadata.distribution(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        raise PluginError(
            f"MathJax is copied from the Python package {DISTRIBUTION}, which is not installed: "
            'run `python -m pip install -e ".[docs]"`'
        ) from None
    for site_path, package_path in COPIED.items():
        source = Path(str(dist.locate_file(f"{PACKAGE_DIR}/{package_path}")))
        if not source.is_file():
            raise PluginError(f"{DISTRIBUTION} {dist.version} has no {PACKAGE_DIR}/{package_path}")
        files.append(File.generated(config, site_path, abs_src_path=str(source)))
    return files
