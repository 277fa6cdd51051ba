"""A verdict never claims more than its evidence: checked where the verdict is received and where it is read back from
the cache, and the evidence of a check class defined outside icl-verify says it is the user's own."""

from __future__ import annotations

import dataclasses
import json

import pytest
from click.testing import CliRunner

from icl_verify import Verdict
from icl_verify.cli.main import main
from icl_verify.running import registry, runner
from icl_verify.running.verdict_cache import OWN_CHECK, Outcome, VerdictCache

OWN = """
import icl_verify as iv
from icl_verify.core import verdicts


class Mine(iv.Check):
    kind = "mine"
    proves = True

    def run(self, seed, max_examples):
        return iv.Found(iv.Evidence(self.kind, iv.Status.PROVED, "lhs − rhs reduces to 0 for symbolic dimensions", 0.0))

    def control_at(self, at, corrected):
        raise NotImplementedError


class LooksBuiltIn(iv.Symbolic):
    pass


def proved_anyway():
    verdicts.combine = lambda statuses, conjunction=False: verdicts.Verdict.PROVED  # the rules, patched in the check
    return 1  # 1 ≠ 0: refuted


OWN_PROOF = iv.Claim("own-proof", "s", "x + 1 = x", (Mine(),))
SUBCLASS = iv.Claim("own-subclass", "s", "0 = 0", (LooksBuiltIn(lambda: 0),))
PATCHED = iv.Claim("patched-rules", "s", "1 = 0", (iv.Symbolic(proved_anyway),))
"""


@pytest.fixture
def own(tmp_path):
    path = tmp_path / "own.py"
    path.write_text(OWN)
    return path


def _details(result):
    return [e.detail for e in result.evidence]


def test_a_check_class_of_the_users_own_is_named_in_its_evidence(own):
    checked = runner.check_claims(registry.load_file(own), files=[str(own)], jobs=1)
    proof, subclass, _ = checked.results
    assert proof.verdict is Verdict.PROVED
    assert _details(proof) == [f"{OWN_CHECK} Mine (own.py): lhs − rhs reduces to 0 for symbolic dimensions"]
    assert subclass.verdict is Verdict.PROVED  # a subclass of a built-in check may change what it does
    assert _details(subclass)[0].startswith(f"{OWN_CHECK} LooksBuiltIn (own.py): ")


def test_a_verdict_its_evidence_contradicts_is_an_error(own):
    checked = runner.check_claims(registry.load_file(own), files=[str(own)], jobs=1)
    patched = checked.results[2]
    assert patched.verdict is Verdict.ERROR and not patched.as_expected
    assert [e.status for e in patched.evidence] == ["refuted", "error"]
    assert _details(patched)[1] == "the verdict PROVED does not follow from the evidence, which supports REFUTED"


def test_the_cache_serves_no_verdict_its_evidence_contradicts(own, tmp_path):
    cache = VerdictCache(tmp_path / "cache")
    claims = registry.load_file(own)[:1]
    runner.check_claims(claims, files=[str(own)], jobs=1, cache=cache)
    (key,) = runner.claim_keys(claims, {"own-proof": str(own)}, 0, 100).values()
    honest = cache.get(key)
    assert honest is not None and honest.verdict is Verdict.PROVED
    refuted = dataclasses.replace(honest.evidence[0], status="refuted")
    cache.put(key, dataclasses.replace(honest, evidence=(refuted,)))  # an entry with this folder's own secret
    assert cache.get(key) is None
    again = runner.check_claims(claims, files=[str(own)], jobs=1, cache=cache)
    assert again.cached == frozenset() and again.results[0].verdict is Verdict.PROVED


def test_the_mark_is_in_the_text_and_the_json_report(own):
    text = CliRunner().invoke(main, ["check", str(own), "--no-cache"])
    assert f"{OWN_CHECK} Mine (own.py)" in text.output
    as_json = CliRunner().invoke(main, ["check", str(own), "--no-cache", "--json"])
    claims = {c["name"]: c for c in json.loads(as_json.output)["claims"]}
    assert claims["own-proof"]["evidence"][0]["detail"].startswith(f"{OWN_CHECK} Mine (own.py): ")


def test_vetting_twice_marks_once(own):
    claim = registry.load_file(own)[0]
    outcome = Outcome.of(claim.check())
    once = outcome.vetted(claim)
    assert once.vetted(claim) == once and once.evidence != outcome.evidence


OWN_CONTROL = """
import icl_verify as iv


class Mine(iv.Check):
    kind = "mine"

    def run(self, seed, max_examples):
        return iv.Found(iv.Evidence(self.kind, iv.Status.REFUTED, "1 ≠ 0 at x = 1", 0.0), at={"x": 1})

    def control_at(self, at, corrected):
        return iv.Evidence("control", "passed", "the corrected form holds at x = 1", 0.0)


class Crashes(Mine):
    kind = "crashes"

    def control_at(self, at, corrected):
        raise NotImplementedError("no control")


FINE = iv.Claim("own-control", "s", "1 = 0", (Mine(),), holds=False, corrected=iv.Corrected("c", mine=lambda: 0))
CRASH = iv.Claim("own-crash", "s", "1 = 0", (Crashes(),), holds=False, corrected=iv.Corrected("c", crashes=lambda: 0))
"""


def test_the_control_rows_of_a_users_own_check_are_marked_as_the_users_too(tmp_path):
    path = tmp_path / "controls.py"
    path.write_text(OWN_CONTROL)
    checked = runner.check_claims(registry.load_file(path), files=[str(path)], jobs=1)
    fine, crash = ([e for e in r.evidence if e.kind == "control"] for r in checked.results)
    assert [e.detail for e in fine] == [f"{OWN_CHECK} Mine (controls.py): mine: the corrected form holds at x = 1"]
    assert [e.detail for e in crash] == [f"{OWN_CHECK} Crashes (controls.py): crashes: NotImplementedError: no control"]
    as_json = json.loads(CliRunner().invoke(main, ["check", str(path), "--no-cache", "--json"]).stdout)
    rows = [e for c in as_json["claims"] for e in c["evidence"] if e["kind"] == "control"]
    assert len(rows) == 2 and all(e["detail"].startswith(OWN_CHECK) for e in rows)
    path.write_text(OWN_CONTROL.rpartition("CRASH =")[0])  # a document is written only when all is as expected
    out = tmp_path / "out"
    done = CliRunner().invoke(main, ["docs", str(path), "--no-cache", "--out", str(out)])
    assert done.exit_code == 0, done.output
    assert f"{OWN_CHECK} Mine (controls.py): mine: the corrected form holds" in (out / "controls.md").read_text()
