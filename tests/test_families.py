"""The family-level checks: every built-in family must pass them, each run once per family.

Every test here is parametrized by family, its id the family's name (``FAMILY``), never by claim, so
``python -m pytest tests/test_families.py -k <family>`` runs the checks of the families whose names
contain ``<family>`` (``-k raw`` also those of raw-probe and raw-programs; ``-k "raw and not raw-"``
raw's alone), whatever their claims are called: its claims reach their expected verdicts, its
refutations discriminate (their controls pass), its derivations are as expected, its committed
document is up to date, it is discovered with names no other family uses, and the numerics it
imports name every public function in ``FUZZ`` or ``FUZZ_EXEMPT``. The verdicts and controls of a
simulation family's measured claims (conftest's :func:`simulates`) are the ``<family>-simulated``
cases, and those families' documents need them: these are marked ``slow`` (``-m slow``, as in CI)."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

import icl_verify.numerics
from icl_verify import Claim, NoControl, Verdict
from icl_verify.output import docs
from icl_verify.running import registry, sources
from tests.conftest import simulates
from tests.numerics.test_fuzz import public_functions

COMMITTED = Path(__file__).resolve().parents[1] / "docs" / "derivations"
FAMILIES = registry.families()


def _family_id(fam: registry.Family) -> str:
    return fam.name


def _by_speed(fams: list[registry.Family], keep: Callable[[Claim], bool] = lambda claim: True) -> list:
    """(family, simulated) parameters: each family's claims that ``keep`` selects, the default run's
    apart from those it leaves to ``-m slow`` (conftest's :func:`simulates`), the latter marked slow."""
    params = []
    for fam in fams:
        for simulated in (False, True):
            if any(keep(c) and simulates(c) is simulated for c in fam.claims):
                marks = (pytest.mark.slow,) if simulated else ()
                params.append(
                    pytest.param(fam, simulated, marks=marks, id=fam.name + ("-simulated" if simulated else ""))
                )
    return params


def _claims(fam: registry.Family, simulated: bool) -> list:
    return [c for c in fam.claims if simulates(c) is simulated]


@pytest.mark.parametrize(("fam", "simulated"), _by_speed(FAMILIES))
def test_claims_reach_their_expected_verdicts(fam, simulated, builtin_results):
    wrong = {
        c.name: (builtin_results[c.name].verdict, [e.detail for e in builtin_results[c.name].evidence])
        for c in _claims(fam, simulated)
        if builtin_results[c.name].verdict is not c.expected
    }
    assert not wrong, wrong


@pytest.mark.parametrize(("fam", "simulated"), _by_speed(FAMILIES, keep=lambda c: not c.holds))
def test_refutations_have_passing_controls(fam, simulated, builtin_results):
    """The corrected form passes at the counterexample where the printed one fails (or the claim says why
    there is no corrected form)."""
    for claim in (c for c in _claims(fam, simulated) if not c.holds):
        result = builtin_results[claim.name]
        controls = [e for e in result.evidence if e.kind == "control"]
        assert controls, f"{claim.name}: no control row"
        if isinstance(claim.corrected, NoControl):
            assert [e.status for e in controls] == ["waived"], claim.name
        else:
            assert all(e.status == "passed" for e in controls), [(claim.name, e.status, e.detail) for e in controls]
        assert result.as_expected, (claim.name, result.summary)


@pytest.mark.parametrize("fam", [f for f in FAMILIES if f.derivations], ids=_family_id)
def test_derivations_are_as_expected(fam):
    for derivation in fam.derivations:
        result = derivation.check()
        marks = [m.status for m in result.marks]
        assert result.as_expected, (derivation.name, marks)
        assert result.verdict is (Verdict.PROVED if derivation.holds else Verdict.REFUTED), derivation.name
        assert all(m == "proved" for m in marks) or not derivation.holds, (derivation.name, marks)


@pytest.mark.parametrize(
    "fam",
    [pytest.param(f, marks=(pytest.mark.slow,) if any(map(simulates, f.claims)) else ()) for f in FAMILIES],
    ids=_family_id,
)
def test_committed_document_is_up_to_date(fam, builtin_results, figure_cache):
    """`icl-verify docs --family NAME` would write nothing: the document (with its claims and figures) is committed."""
    results = {c.name: builtin_results[c.name] for c in fam.claims}
    built = docs.build(results, cache=figure_cache, families=[fam.name])
    text = built[f"{fam.name}.md"].decode()
    assert all(f"### `{c.name}`" in text for c in fam.claims)
    assert all(f"figures/{fam.name}-{fig.name}.svg" in built for fig in fam.figures)
    stale = docs.stale_files(built, COMMITTED)
    assert stale == [], f"stale: {stale} (regenerate only once every claim and derivation is as expected)"


@pytest.mark.parametrize("fam", FAMILIES, ids=_family_id)
def test_family_is_discovered_with_names_no_other_family_uses(fam):
    assert fam.module in registry.family_modules()
    assert fam.name == fam.module.FAMILY and fam.module.PAPER and fam.title
    assert fam.claims or fam.derivations, f"family {fam.name} declares no claim or derivation"
    assert all(c.family == fam.name for c in [*fam.claims, *fam.derivations])
    others = [f for f in FAMILIES if f is not fam]
    assert fam.name not in {f.name for f in others}
    for kind in ("claims", "derivations"):
        names = [item.name for item in getattr(fam, kind)]
        elsewhere = {item.name for f in others for item in getattr(f, kind)}
        assert len(names) == len(set(names)) and not set(names) & elsewhere, (kind, set(names) & elsewhere)


def numerics_modules_of(fam: registry.Family) -> list[ModuleType]:
    """The modules of ``icl_verify.numerics`` that the family's module imports, directly or not."""
    root = Path(icl_verify.numerics.__file__).resolve().parent
    names = []
    for path in sources.files_of(fam.module.__name__):
        if path.is_relative_to(root):
            parts = path.relative_to(root).with_suffix("").parts
            names.append(".".join(["icl_verify.numerics", *(parts[:-1] if parts[-1] == "__init__" else parts)]))
    return [importlib.import_module(name) for name in names]


@pytest.mark.parametrize("fam", FAMILIES, ids=_family_id)
def test_numerics_of_the_family_are_in_the_fuzz_table(fam):
    """Every public function of the numerics the family uses is in its module's FUZZ or FUZZ_EXEMPT (with a reason)."""
    for module in numerics_modules_of(fam):
        fuzz, exempt = getattr(module, "FUZZ", {}), getattr(module, "FUZZ_EXEMPT", {})
        missing = set(public_functions(module)) - set(fuzz) - set(exempt)
        assert not missing, f"{module.__name__}: add {sorted(missing)} to FUZZ (or FUZZ_EXEMPT with a reason)"
        assert all(isinstance(reason, str) and reason for reason in exempt.values()), module.__name__
