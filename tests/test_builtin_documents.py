"""The committed documents of the built-in families together: the index and the ledger are up to date,
regeneration is byte-identical, and a misprint's section shows its printed and corrected forms.

Each family's own document is compared by test_families.py (``-k <family>``). Every result is needed,
the simulation families' included, so the module is ``slow`` (conftest's ``SIMULATION_FAMILIES``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from icl_verify.output import docs
from icl_verify.running import registry

pytestmark = pytest.mark.slow

COMMITTED = Path(__file__).resolve().parents[1] / "docs" / "derivations"


@pytest.fixture(scope="module")
def built(builtin_results, figure_cache):
    """The documents, their figures drawn once and kept between sessions (conftest's ``figure_cache``)."""
    return docs.build(builtin_results, cache=figure_cache)


def test_committed_index_and_ledger_are_up_to_date(built):
    """The documents every family is in (each family's own document is compared in test_families.py)."""
    index = built["index.md"].decode()
    assert all(f"({fam.name}.md)" in index for fam in registry.families())
    stale = docs.stale_files({rel: built[rel] for rel in ("index.md", "ledger.md")}, COMMITTED)
    assert stale == [], f"stale: {stale} (regenerate with `icl-verify docs` once every claim is as expected)"


def test_regeneration_is_byte_identical(built, builtin_results):
    again = docs.build(builtin_results)  # no cache: every figure computed and drawn again
    assert again.keys() == built.keys()
    assert all(again[k] == built[k] for k in built)  # SVG figures included


def test_misprints_show_printed_and_corrected_forms_and_counterexample(built):
    text = built["lsa-gd.md"].decode()
    section = text.split("### `prop1-p-eta-not-eta-over-n`")[1].split("\n### ")[0]
    assert "refuted, as expected" in section
    assert "**Counterexample**" in section
    assert "**Corrected form** (`prop1-lsa-equals-gd-step`)" in section
