"""The documentation site: `mkdocs build --strict`, then headless Chromium renders a derivation
page from file://, without network access, and MathJax must have typeset its formulas, drawn at their own size
at 390, 700 and 1280 px wide (:func:`test_display_formulas_keep_their_size_at_every_width`); and every page
renders what it says — no table row left as raw ``|`` text, no raw ``^{``/``_{`` in prose, no Mermaid
source in a code block, no numbered list restarting at 1 (:func:`defects`; each check is shown to fail
on a copy of a page with that defect seeded).

Marked ``docs_site`` and deselected by default. Run with ``python -m pytest -m docs_site`` after
``apt-get install -y chromium`` and ``python -m pip install -e ".[docs]"``. When these tests are
selected, a missing Chromium or MkDocs makes them fail; they never skip.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
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


_HIDDEN = frozenset(
    {"script", "style", "code", "pre", "svg", "mjx-container", "textarea"}
)  # text no reader sees as prose


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


WIDTHS = (390, 700, 1280)  # a phone, a half-screen laptop window (below Material's 720 px breakpoint), a desktop
_MEASURE = """<!doctype html><html><body style="margin:0">
<iframe id="page" src="{page}" style="width:{width}px;height:900px;border:0"></iframe>
<script>
document.getElementById("page").addEventListener("load", () => {{
  const w = document.getElementById("page").contentWindow;
  w.MathJax.startup.promise.then(() => {{
    const formulas = [...w.document.querySelectorAll("div.arithmatex")].map((box) => {{
      const svg = box.querySelector("mjx-container > svg");
      if (!svg) return null;
      const shown = svg.getBoundingClientRect();
      return [shown.width, shown.height, svg.width.baseVal.value, svg.height.baseVal.value];
    }});
    const out = document.createElement("pre");
    out.id = "measured";
    out.textContent = JSON.stringify({{
      viewport: w.innerWidth, page: w.document.documentElement.scrollWidth, formulas,
    }});
    document.body.appendChild(out);
  }});
}});
</script></body></html>"""
"""A page in a frame ``width`` px wide (headless Chromium's window is at least 500 px), and each display formula's
drawn size beside the size MathJax gave it, once MathJax has typeset them all."""


@pytest.mark.parametrize("width", WIDTHS)
def test_display_formulas_keep_their_size_at_every_width(site: Path, chromium: str, tmp_path: Path, width: int):
    frame = tmp_path / "measure.html"
    frame.write_text(_MEASURE.format(page=(site / PAGE).as_uri(), width=width), encoding="utf-8")
    dom = _browse(chromium, tmp_path, frame, "--allow-file-access-from-files", "--dump-dom").stdout
    found = re.search(r'<pre id="measured">(.*?)</pre>', dom)
    assert found, "the page's formulas were not measured (did MathJax load?)"
    measured = json.loads(found[1])
    assert measured["viewport"] == width
    formulas = measured["formulas"]
    assert len(formulas) >= 10 and None not in formulas, f"{formulas.count(None)} display formulas not typeset"
    squeezed = [f for f in formulas if abs(f[0] - f[2]) > 0.5 or abs(f[1] - f[3]) > 0.5 or f[1] < 8]
    assert not squeezed, f"{len(squeezed)} of {len(formulas)} formulas drawn smaller than typeset: {squeezed[:3]}"
    assert measured["page"] <= width, "the page scrolls sideways: a wide formula must scroll in its own box"


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


# ---------------------------------------------------------------------------------------------
# Every page renders what it says

_VOID = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
)
_SCRIPTS = re.compile(r"(?<=\S)[\^_]\{")  # TeX's script braces: e^{−β₀}, R^{Nx×N}, M_{k+1}
_TABLE_ROW = re.compile(r"^\|.*\|$")  # a Markdown table row that did not become a table
_MERMAID = re.compile(r"^\s*(flowchart|graph)\s+(LR|RL|TB|TD|BT)\b|classDef |subgraph ", re.MULTILINE)


class _Rendering(HTMLParser):
    """What a reader sees on a page that is not what it says: each defect by kind, with an excerpt.

    ``raw table row``: a paragraph whose text is ``| … |``; ``raw script braces``: ``^{`` or ``_{`` in text
    outside code and math; ``Mermaid source``: a code block or element classed ``mermaid``, or Mermaid
    syntax in code; ``list restarts at 1``: two numbered lists of one item each under one parent (a list
    whose items were split by unindented content, so every item shows "1.").
    """

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.defects: dict[str, list[str]] = defaultdict(list)
        self.stack: list[tuple[str, int]] = []  # open elements: tag and id
        self.hidden = 0  # inside code, math, scripts
        self.paragraph: list[str] | None = None
        self.code: list[str] | None = None
        self.single_item_lists: dict[int, int] = defaultdict(int)  # parent id → lists of one item under it
        self.items: dict[int, int] = {}  # open <ol> id → its <li> count
        self.ids = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _VOID:
            return
        attr = dict(attrs)
        classes = (attr.get("class") or "").split()
        if "mermaid" in classes or "language-mermaid" in classes:
            self.defects["Mermaid source"].append(f"<{tag} class={attr.get('class')!r}>")
        self.ids += 1
        hides = tag in _HIDDEN or "arithmatex" in classes  # arithmatex: a formula, typeset or not
        self.stack.append((tag, self.ids, hides))
        self.hidden += hides
        if tag == "p" and not self.hidden:
            self.paragraph = []
        if tag in ("code", "pre") and self.code is None:
            self.code = []
        if tag == "ol" and attr.get("start") is None:
            self.items[self.ids] = 0
        if tag == "li" and len(self.stack) > 1 and self.stack[-2][1] in self.items:
            self.items[self.stack[-2][1]] += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in _VOID or not any(t == tag for t, _, _ in self.stack):
            return
        while self.stack:
            open_tag, node, hides = self.stack.pop()
            self.hidden -= hides
            self._close(open_tag, node)
            if open_tag == tag:
                break

    def _close(self, tag: str, node: int) -> None:
        if tag == "p" and self.paragraph is not None:
            text = " ".join("".join(self.paragraph).split())
            if _TABLE_ROW.match(text):
                self.defects["raw table row"].append(text[:80])
            self.paragraph = None
        if tag in ("code", "pre") and self.code is not None and not any(t in ("code", "pre") for t, _, _ in self.stack):
            if _MERMAID.search("".join(self.code)):
                self.defects["Mermaid source"].append("".join(self.code)[:80])
            self.code = None
        if tag == "ol" and node in self.items and self.items.pop(node) == 1 and self.stack:
            parent = self.stack[-1][1]
            self.single_item_lists[parent] += 1
            if self.single_item_lists[parent] == 2:
                self.defects["list restarts at 1"].append(f"two one-item numbered lists under <{self.stack[-1][0]}>")

    def handle_data(self, data: str) -> None:
        if self.code is not None:
            self.code.append(data)
        if self.hidden:
            return
        if self.paragraph is not None:
            self.paragraph.append(data)
        for m in _SCRIPTS.finditer(data):
            self.defects["raw script braces"].append(data[max(0, m.start() - 20) : m.end() + 20].strip())


def defects(html: str) -> dict[str, list[str]]:
    """The defects of a page (:class:`_Rendering`), by kind; empty when it renders what it says."""
    page = _Rendering()
    page.feed(html)
    page.close()
    return dict(page.defects)


def _pages(site: Path) -> list[Path]:
    return sorted(p for p in site.rglob("*.html") if "assets" not in p.relative_to(site).parts)


RENDERED = (
    "index.html",
    "json-report.html",
    "derivations/lsa-gd.html",
    "derivations/kinetics.html",
    "derivations/ledger.html",
)
"""Pages rendered in Chromium (the others are read as built: a DOM dump costs seconds a page): the home page,
and the pages where each defect was once seen."""


def _dom(chromium: str, tmp_path: Path, page: Path) -> str:
    profile = tmp_path / f"profile-{page.stem}"
    run = subprocess.run(
        [chromium, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "--dump-dom", page.as_uri()],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert run.returncode == 0, f"chromium failed on {page} ({run.returncode}):\n{run.stderr[-3000:]}"
    return run.stdout


def test_every_page_renders_what_it_says(site: Path, chromium: str, tmp_path: Path) -> None:
    found = {page.relative_to(site).as_posix(): defects(page.read_text(encoding="utf-8")) for page in _pages(site)}
    with ThreadPoolExecutor(2) as pool:
        doms = pool.map(lambda rel: (rel, _dom(chromium, tmp_path, site / rel)), RENDERED)
        found.update({f"{rel} (in Chromium)": defects(dom) for rel, dom in doms})
    bad = {page: kinds for page, kinds in found.items() if kinds}
    assert not bad, "\n".join(f"{page}: {kinds}" for page, kinds in bad.items())
    assert len(found) > 20


SEEDED = {  # each defect as the site once showed it
    "raw table row": "<p>| `evidence` | list | every check's outcome |\n| `cached` | bool | from the cache |</p>",
    "raw script braces": "<p>κ = c₂ e^{−β₀} separates the two regimes, with X ∈ R^{Nx×N}.</p>",
    "Mermaid source": '<pre class="highlight"><code>flowchart LR\n  c0["a"] --&gt; c1["b"]\n</code></pre>',
    "list restarts at 1": "<ol><li>first step</li></ol><p>$$x$$</p><ol><li>second step</li></ol>",
}


@pytest.mark.parametrize("kind", sorted(SEEDED))
def test_each_check_fails_on_a_seeded_copy(site: Path, chromium: str, tmp_path: Path, kind: str) -> None:
    original = (site / PAGE).read_text(encoding="utf-8")
    assert not defects(original)
    seeded = tmp_path / "site" / PAGE
    seeded.parent.mkdir(parents=True)
    seeded.write_text(original.replace("</article>", SEEDED[kind] + "</article>", 1), encoding="utf-8")
    assert list(defects(seeded.read_text(encoding="utf-8"))) == [kind]
    assert list(defects(_dom(chromium, tmp_path, seeded))) == [kind]  # as Chromium parses and shows it


_EMOJI = re.compile("[\u2705\u274c\u2753-\u2755\u2795-\u2797\ufe0f\U0001f300-\U0001faff]")
"""Characters drawn as emoji (✅ ❌ ❔ ➖, anything with the emoji selector U+FE0F, 💥…): empty boxes without an emoji
font. Text symbols such as ✓ (U+2713) are in common fonts and allowed."""


def _text(html: str) -> str:
    page = _Dom()
    page.feed(html)
    return "".join(page.text)


def test_symbol_stars_sizes_and_step_marks_read_as_written(site: Path) -> None:
    """``K*`` and ``τ*`` keep their stars (two of them were read as emphasis); a counterexample's sizes at the
    end of a table cell are not taken for an attribute list; step marks are words, not emoji (no emoji font
    needed)."""
    home = _text((site / "index.html").read_text(encoding="utf-8"))
    kinetics = (site / "derivations" / "kinetics.html").read_text(encoding="utf-8")
    assert "K*" in home and "τ*" in _text(kinetics)
    cut = []
    for page in _pages(site):
        html = page.read_text(encoding="utf-8")
        cut += [f"{page.name}: …{m[0][-60:]}" for m in re.finditer(r"<td>[^<]*\bat\s*</td>", html)]
        if found := _EMOJI.findall(_text(html)):
            cut.append(f"{page.name}: emoji {sorted(set(found))}")
    assert not cut, "\n".join(cut[:10])


def test_the_ledger_graph_is_an_svg_on_the_page(site: Path) -> None:
    page = (site / "derivations" / "ledger.html").read_text(encoding="utf-8")
    assert re.search(r'<img[^>]+src="figures/ledger\.svg"', page)
    assert (site / "derivations" / "figures" / "ledger.svg").read_bytes().startswith(b"<?xml")


_MEASURE_GRAPH = """<!doctype html><html><body style="margin:0">
<iframe id="page" src="{page}" style="width:{width}px;height:900px;border:0"></iframe>
<script>
document.getElementById("page").addEventListener("load", () => {{
  const w = document.getElementById("page").contentWindow;
  const img = w.document.querySelector(".ledger-graph img");
  const measure = () => {{
    const out = document.createElement("pre");
    out.id = "measured";
    out.textContent = JSON.stringify({{
      found: !!img, shown: img ? img.getBoundingClientRect().width : 0, natural: img ? img.naturalWidth : 0,
      page: w.document.documentElement.scrollWidth,
    }});
    document.body.appendChild(out);
  }};
  if (!img || img.complete) measure(); else img.addEventListener("load", measure);
}});
</script></body></html>"""
"""The ledger page in a frame ``width`` px wide: the graph's drawn width beside its own, and the page's width."""


@pytest.mark.parametrize("width", WIDTHS)
def test_the_ledger_graph_is_shown_at_its_own_size(site: Path, chromium: str, tmp_path: Path, width: int) -> None:
    """The graph is not scaled down to the column (its 8 pt lettering would shrink to about 4 px): it keeps its own
    size and scrolls sideways in its box, and the page itself does not scroll sideways."""
    frame = tmp_path / "measure.html"
    frame.write_text(_MEASURE_GRAPH.format(page=(site / "derivations" / "ledger.html").as_uri(), width=width))
    dom = _browse(chromium, tmp_path, frame, "--allow-file-access-from-files", "--dump-dom").stdout
    found = re.search(r'<pre id="measured">(.*?)</pre>', dom)
    assert found, "the ledger page was not measured"
    measured = json.loads(found[1])
    assert measured["found"] and measured["natural"] > width, measured  # wider than any screen: it must scroll
    assert abs(measured["shown"] - measured["natural"]) <= 1, f"the graph is drawn scaled: {measured}"
    assert measured["page"] <= width, "the page scrolls sideways: the graph must scroll in its own box"
