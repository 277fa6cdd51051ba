"""The documentation site: `mkdocs build --strict`, then headless Chromium renders a derivation
page from file://, without network access, and MathJax must have typeset its formulas.

Marked ``docs_site`` and deselected by default. Run with ``python -m pytest -m docs_site`` after
``apt-get install -y chromium`` and ``python -m pip install -e ".[docs]"``. When these tests are
selected, a missing Chromium or MkDocs makes them fail; they never skip.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest
from matplotlib import image

pytestmark = pytest.mark.docs_site

REPO = Path(__file__).resolve().parents[1]
PAGE = "derivations/lsa-gd.html"  # a derivation document with many display formulas
WINDOW = (1280, 2400)
CHROMIUM = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--host-resolver-rules=MAP * ~NOTFOUND",  # no host resolves: the page has only what the site ships
    "--virtual-time-budget=20000",  # let MathJax finish before the DOM is dumped or the shot taken
]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site built by ``mkdocs build --strict`` into a temporary folder."""
    if importlib.util.find_spec("mkdocs") is None:
        pytest.fail('MkDocs is not installed: run `python -m pip install -e ".[docs]"`', pytrace=False)
    out = tmp_path_factory.mktemp("site")
    build = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(REPO / "mkdocs.yml"), "-d", str(out)],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert build.returncode == 0, f"mkdocs build --strict failed:\n{build.stdout}\n{build.stderr}"
    return out


@pytest.fixture(scope="module")
def chromium() -> str:
    for name in CHROMIUM:
        if path := shutil.which(name):
            return path
    pytest.fail("Chromium is not installed: run `apt-get install -y chromium`", pytrace=False)


def _browse(chromium: str, tmp_path: Path, page: Path, *action: str) -> subprocess.CompletedProcess[str]:
    run = subprocess.run(
        [chromium, *CHROMIUM_FLAGS, f"--user-data-dir={tmp_path / 'profile'}", *action, page.as_uri()],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert run.returncode == 0, f"chromium failed ({run.returncode}):\n{run.stderr[-3000:]}"
    return run


_HIDDEN = frozenset({"script", "style", "code", "pre", "svg", "mjx-container"})  # text no reader sees as prose


class _Dom(HTMLParser):
    """Counts formulas and MathJax's output, and collects the text a reader sees outside code."""

    def __init__(self) -> None:
        super().__init__()
        self.formulas = self.typeset = self.errors = self.hidden = 0
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attr = dict(attrs)
        self.formulas += "arithmatex" in (attr.get("class") or "").split()
        self.typeset += tag == "mjx-container" and attr.get("jax") == "SVG"
        self.errors += attr.get("data-mml-node") == "merror"  # a TeX error, drawn in red
        self.hidden += tag in _HIDDEN

    def handle_endtag(self, tag: str) -> None:
        self.hidden -= tag in _HIDDEN

    def handle_data(self, data: str) -> None:
        if not self.hidden:
            self.text.append(data)


def test_formulas_are_typeset_by_mathjax(site: Path, chromium: str, tmp_path: Path) -> None:
    dom = _Dom()
    dom.feed(_browse(chromium, tmp_path, site / PAGE, "--dump-dom").stdout)
    text = "".join(dom.text)
    dollars = _excerpts(r"\$\$", text)
    assert not dollars, f"raw $$ … $$ in the page (is pymdownx.arithmatex enabled?): {dollars}"
    raw = _excerpts(r"\\[\[(]", text)
    assert not raw, f"formulas left untypeset (is MathJax loaded?): {raw}"
    assert dom.formulas >= 10, f"only {dom.formulas} formulas on {PAGE}"
    assert dom.typeset == dom.formulas, f"MathJax typeset {dom.typeset} of {dom.formulas} formulas"
    assert dom.errors == 0, f"{dom.errors} TeX errors on {PAGE}"


def _excerpts(pattern: str, text: str) -> list[str]:
    """The first few places where ``pattern`` occurs in ``text``, with what follows."""
    return [" ".join(m.split()) for m in re.findall(pattern + r"[\s\S]{0,50}", text)[:3]]


def test_screenshot_shows_the_page(site: Path, chromium: str, tmp_path: Path) -> None:
    shot = tmp_path / "page.png"
    size = f"--window-size={WINDOW[0]},{WINDOW[1]}"
    _browse(chromium, tmp_path, site / PAGE, size, "--hide-scrollbars", f"--screenshot={shot}")
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", "the screenshot is not a PNG"
    pixels = image.imread(shot)[..., :3]
    assert pixels.shape[:2] == (WINDOW[1], WINDOW[0])
    inked = (pixels < 0.9).any(axis=2).mean()  # text, formulas, tables, the header bar
    colours = len(np.unique((pixels * 255).astype(np.uint8).reshape(-1, 3), axis=0))
    assert inked > 0.02 and colours > 50, f"the screenshot looks blank ({inked:.1%} inked, {colours} colours)"


_REMOTE = re.compile(r"^\s*(https?:)?//", re.IGNORECASE)
_CSS_REMOTE = re.compile(r"(url\(\s*['\"]?|@import\s+['\"])(https?:)?//", re.IGNORECASE)


_LOADED = {"script": "src", "link": "href", "img": "src", "iframe": "src", "source": "src", "embed": "src"}


class _Assets(HTMLParser):
    """Collects the URLs a page loads: scripts, styles, fonts, images, frames."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attr = dict(attrs)
        if tag == "link" and (attr.get("rel") or "").lower() in {"canonical", "alternate", "next", "prev"}:
            return  # a link to a page, not a resource the page loads
        if (url := attr.get(_LOADED.get(tag, ""))) is not None:
            self.urls.append(url)


def test_site_loads_nothing_from_other_hosts(site: Path) -> None:
    remote = []
    for page in site.rglob("*.html"):
        assets = _Assets()
        assets.feed(page.read_text(encoding="utf-8"))
        remote += [f"{page.relative_to(site)}: {url}" for url in assets.urls if _REMOTE.match(url)]
    for css in site.rglob("*.css"):
        if _CSS_REMOTE.search(css.read_text(encoding="utf-8")):
            remote.append(f"{css.relative_to(site)} loads a remote url()")
    assert not remote, "assets from other hosts:\n" + "\n".join(remote[:20])
    assert (site / "assets" / "mathjax" / "tex-svg-full.js").is_file()


def test_home_page_is_the_readme_and_every_derivation_is_in_the_nav(site: Path) -> None:
    home = (site / "index.html").read_text(encoding="utf-8")
    title = (REPO / "README.md").read_text(encoding="utf-8").splitlines()[0].lstrip("# ").strip()
    assert re.search(rf"<h1[^>]*>{re.escape(title)}", home), "the home page is not README.md"
    for doc in sorted((REPO / "docs" / "derivations").glob("*.md")):
        assert f'href="derivations/{doc.stem}.html"' in home, f"derivations/{doc.name} is missing from the nav"
