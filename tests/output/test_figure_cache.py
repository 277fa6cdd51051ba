"""The figure cache: a warm `icl-verify docs` reuses the drawn figures; any change, or --no-cache, redraws.

A user's file declares one figure whose ``data()`` appends a line to ``calls.txt`` beside it, so a
test sees exactly how often the figure was computed; its drawing is compared byte for byte.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from icl_verify.cli.main import main
from icl_verify.output import figure_cache
from icl_verify.output.figure_cache import DrawnFigure, figure_key
from icl_verify.output.figures import digest, render, render_svg
from icl_verify.running import registry, verdict_cache
from icl_verify.running.verdict_cache import VerdictCache

FIGURE_FILE = textwrap.dedent(
    '''
    """A figure that counts how often its data are computed."""
    from pathlib import Path

    import numpy as np
    import sympy as sp

    import icl_verify as iv

    x = sp.Symbol("x")
    SQUARE = iv.Claim(name="fig-square", source="algebra", statement="x^2 = x x", checks=(iv.Symbolic(lambda: x**2 - x * x),))


    def _data():
        with (Path(__file__).parent / "calls.txt").open("a") as f:
            f.write("computed\\n")
        t = np.linspace(0.0, 1.0, 11)
        return {"t": t, "y": SCALE * t**2}


    SCALE = 1.0
    FIGURES = [iv.Figure("parabola", "The parabola.", data=_data, draw=lambda ax, d: ax.plot(d["t"], d["y"]))]
    '''
)


@pytest.fixture
def figure_file(tmp_path: Path) -> Path:
    path = tmp_path / "claims" / "figs.py"
    path.parent.mkdir()
    path.write_text(FIGURE_FILE)
    return path


def _calls(figure_file: Path) -> int:
    calls = figure_file.parent / "calls.txt"
    return len(calls.read_text().splitlines()) if calls.exists() else 0


def _docs(figure_file: Path, out: Path, *extra: str) -> dict[str, bytes]:
    result = CliRunner().invoke(main, ["docs", str(figure_file), "--out", str(out), "--jobs", "1", *extra])
    assert result.exit_code == 0, result.output
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in out.rglob("*") if p.is_file()}


def test_a_warm_run_reuses_the_drawn_figure_and_writes_the_same_bytes(figure_file, tmp_path):
    cold = _docs(figure_file, tmp_path / "cold")
    assert _calls(figure_file) == 1
    warm = _docs(figure_file, tmp_path / "warm")
    assert _calls(figure_file) == 1  # neither computed nor drawn again
    assert warm == cold and "figures/figs-parabola.svg" in warm
    fresh = _docs(figure_file, tmp_path / "fresh", "--no-cache")
    assert _calls(figure_file) == 2 and fresh == cold  # --no-cache computes again, to the same bytes


def test_docs_check_reads_the_figures_from_the_cache(figure_file, tmp_path):
    _docs(figure_file, tmp_path / "out")
    result = CliRunner().invoke(main, ["docs", str(figure_file), "--out", str(tmp_path / "out"), "--check"])
    assert result.exit_code == 0 and "up to date" in result.output, result.output
    assert _calls(figure_file) == 1


def test_editing_the_file_redraws_the_figure(figure_file, tmp_path):
    before = _docs(figure_file, tmp_path / "before")
    figure_file.write_text(FIGURE_FILE.replace("SCALE = 1.0", "SCALE = 2.0"))
    after = _docs(figure_file, tmp_path / "after")
    assert _calls(figure_file) == 2
    assert after["figures/figs-parabola.svg"] != before["figures/figs-parabola.svg"]
    y = 2.0 * np.linspace(0.0, 1.0, 11) ** 2
    assert f"figure data sha256: {digest({'t': np.linspace(0.0, 1.0, 11), 'y': y})}".encode() in after["figs.md"]


def test_a_change_of_what_the_figure_imports_redraws_it(figure_file, tmp_path, monkeypatch):
    (figure_file.parent / "scale.py").write_text("FACTOR = 1.0\n")
    figure_file.write_text(FIGURE_FILE.replace("SCALE = 1.0", "from scale import FACTOR as SCALE"))
    _docs(figure_file, tmp_path / "one")
    (figure_file.parent / "scale.py").write_text("FACTOR = 3.0\n")  # a helper module the file imports
    _docs(figure_file, tmp_path / "two")
    assert _calls(figure_file) == 2
    (figure_file.parent / "notes.py").write_text("")  # beside it, not imported
    _docs(figure_file, tmp_path / "three")
    assert _calls(figure_file) == 2
    monkeypatch.setattr(figure_cache, "family_sources", lambda family: "another package source")
    _docs(figure_file, tmp_path / "four")
    assert _calls(figure_file) == 3


def test_a_figures_sources_are_its_family_and_the_drawing_code(figure_file):
    fam = registry.load_family(figure_file)
    files = {*figure_cache.sources.files_of(str(figure_file)), *figure_cache.sources.files_of(figure_cache.DRAWING)}
    assert figure_cache.family_sources(fam) == figure_cache.sources.digest(files)
    assert any(p.name == "figures.py" and p.parent.name == "output" for p in files)


def test_a_corrupt_entry_is_ignored_and_rewritten(figure_file, tmp_path, monkeypatch):
    cache_dir = tmp_path / "cache"
    monkeypatch.setenv("ICL_VERIFY_CACHE_DIR", str(cache_dir))
    cold = _docs(figure_file, tmp_path / "cold")
    entries = list(cache_dir.glob("*.figure.pickle"))
    assert len(entries) == 1
    entries[0].write_bytes(entries[0].read_bytes()[:40])  # a truncated entry
    again = _docs(figure_file, tmp_path / "again")
    assert _calls(figure_file) == 2 and again == cold
    _docs(figure_file, tmp_path / "warm")
    assert _calls(figure_file) == 2  # the rewritten entry is read back


def test_drawn_figure_stores_what_it_computed_under_the_key_of_its_inputs(figure_file, tmp_path):
    fam = registry.load_family(figure_file)
    fig = fam.figures[0]
    cache = VerdictCache(tmp_path / "cache")
    drawn = figure_cache.drawn_figure(fam, fig, cache, seed=0, max_examples=100)
    data = {"t": np.linspace(0.0, 1.0, 11), "y": np.linspace(0.0, 1.0, 11) ** 2}
    assert drawn == DrawnFigure(digest(data), render_svg(fig, data), render(fig, data, "pdf"))
    assert figure_cache.drawn_figure(fam, fig, cache, seed=0, max_examples=100) == drawn and _calls(figure_file) == 1
    figure_cache.drawn_figure(fam, fig, cache, seed=1, max_examples=100)  # another document's inputs: its own entry
    assert _calls(figure_file) == 2


def test_figure_key_depends_on_every_input(monkeypatch):
    inputs = {"sources": "p", "seed": 0, "max_examples": 100}
    base = figure_key("fam", "fig", **inputs)
    assert figure_key("fam", "fig", **inputs) == base
    changed = [
        figure_key("fam2", "fig", **inputs),
        figure_key("fam", "fig2", **inputs),
        figure_key("fam", "fig", **{**inputs, "sources": "q"}),
        figure_key("fam", "fig", **{**inputs, "seed": 1}),
        figure_key("fam", "fig", **{**inputs, "max_examples": 99}),
    ]
    assert base not in changed and len(set(changed)) == len(changed)
    real = verdict_cache.version
    monkeypatch.setattr(verdict_cache, "version", lambda name: "0.0" if name == "matplotlib" else real(name))
    assert figure_key("fam", "fig", **inputs) != base  # another Matplotlib draws another SVG


SHARED_FILE = textwrap.dedent(
    '''
    """A measured claim and a figure drawn from the same cached simulation."""
    from pathlib import Path

    import numpy as np
    import sympy as sp

    import icl_verify as iv
    from icl_verify.core.caches import cached

    x = sp.Symbol("x")


    @cached()
    def simulation(seed):
        with (Path(__file__).parent / "runs.txt").open("a") as f:
            f.write(f"{seed}\\n")
        return np.linspace(0.0, 1.0, 11)


    def measure(seed):
        return iv.Estimate(1.0, 0.99, 1.01, predicted=1.0, tolerance=0.1, detail=str(simulation(seed).sum()))


    SQUARE = iv.Claim(name="shared-square", source="algebra", statement="x^2 = x x", checks=(iv.Symbolic(lambda: x**2 - x * x),))
    RUNS = iv.Claim(name="shared-runs", source="s", statement="the runs", checks=(iv.Measured(measure),))
    FIGURES = [iv.Figure("runs", "The runs.", data=lambda: {"t": simulation(0)}, draw=lambda ax, d: ax.plot(d["t"]))]
    '''
)


def test_a_cold_parallel_run_draws_each_figure_where_its_claims_ran(tmp_path):
    path = tmp_path / "claims" / "shared.py"
    path.parent.mkdir()
    path.write_text(SHARED_FILE)
    result = CliRunner().invoke(main, ["docs", str(path), "--out", str(tmp_path / "two"), "--jobs", "2"])
    assert result.exit_code == 0, result.output
    assert (path.parent / "runs.txt").read_text() == "0\n"  # one simulation for the claim and its figure
    serial = _docs(path, tmp_path / "serial", "--no-cache")  # everything in this process, nothing kept
    parallel = {p.relative_to(tmp_path / "two").as_posix(): p.read_bytes() for p in (tmp_path / "two").rglob("*.*")}
    assert parallel == serial and "figures/shared-runs.svg" in parallel
