"""The claims ledger: ``builds_on`` validated, failures propagated to what builds on them, the graph drawn."""

from __future__ import annotations

import itertools
import json
import re
import textwrap

import pytest
from click.testing import CliRunner
from hypothesis import strategies as st

from icl_verify import Claim, NoControl, Numeric, Verdict, check
from icl_verify.cli.main import main
from icl_verify.core import ledger
from icl_verify.core.claims import Result
from icl_verify.output import docs
from icl_verify.output import ledger as drawn
from icl_verify.output.render import claim_markdown
from icl_verify.output.report import check_all
from icl_verify.running import registry

# a → b → c: a is false (1 = 2 for every x) but declared to hold; b and c are true (x = x) and build on it.
CHAIN_FILE = textwrap.dedent(
    """
    from hypothesis import strategies as st
    from icl_verify import Claim, Numeric

    CASES = st.fixed_dictionaries({"x": st.floats(0, 1)})

    a = Claim(name="a", source="test", statement="1 = 2", checks=(Numeric(CASES, lambda c: (1.0, 2.0)),))
    b = Claim(
        name="b",
        source="test",
        statement="x = x",
        checks=(Numeric(CASES, lambda c: (c["x"], c["x"])),),
        assumptions=("x in [0, 1]",),
        builds_on=("a",),
    )
    c = Claim(
        name="c", source="test", statement="x = x", checks=(Numeric(CASES, lambda c: (c["x"], c["x"])),), builds_on=("b",)
    )
    """
)

CASES = st.fixed_dictionaries({"x": st.floats(0, 1)})


def _claim(name: str, builds_on: tuple[str, ...] = (), holds: bool = True) -> Claim:
    return Claim(
        name=name,
        source="test",
        statement="x = x",
        checks=(Numeric(CASES, lambda c: (c["x"], c["x"])),),
        holds=holds,
        builds_on=builds_on,
        corrected=None if holds else NoControl("a test stub, never checked"),
    )


def _result(claim: Claim, verdict: Verdict) -> Result:
    """A result with a chosen verdict, without running the claim's checks."""
    return Result(claim, verdict, (), seed=0, max_examples=1)


@pytest.fixture
def runner():
    return CliRunner()


@pytest.fixture
def chain_file(tmp_path):
    path = tmp_path / "chain.py"
    path.write_text(CHAIN_FILE)
    return path


@pytest.fixture(scope="module")
def chain_results(tmp_path_factory):
    path = tmp_path_factory.mktemp("chain") / "chain_results.py"
    path.write_text(CHAIN_FILE)
    return [check(c, seed=0, max_examples=20) for c in registry.load_file(path)]


def test_the_chain_is_checked_as_stated(chain_results):
    assert [(r.claim.name, r.verdict) for r in chain_results] == [
        ("a", Verdict.REFUTED),
        ("b", Verdict.VERIFIED),
        ("c", Verdict.VERIFIED),
    ]


def test_everything_built_on_a_refuted_claim_is_undermined(chain_results):
    assert ledger.undermined(chain_results) == {"b": ("a",), "c": ("a",)}


def test_check_lists_the_claims_built_on_a_failed_one(runner, chain_file):
    result = runner.invoke(main, ["check", str(chain_file), "--max-examples", "20"])
    assert result.exit_code == 1  # a is not as expected
    lines = result.output.splitlines()
    start = lines.index(f"{drawn.UNDERMINED_LABEL} (its own verdict stands, its argument does not):")
    assert [line.split() for line in lines[start + 1 : start + 3]] == [["b", "←", "a"], ["c", "←", "a"]]


def test_json_report_has_the_ledger(runner, chain_file):
    result = runner.invoke(main, ["check", str(chain_file), "--json", "--max-examples", "20"])
    report = json.loads(result.output)
    assert report["builds_on_failed"] == {"b": ["a"], "c": ["a"]}
    records = {r["name"]: r for r in report["claims"]}
    assert records["b"]["assumptions"] == ["x in [0, 1]"]
    assert records["b"]["builds_on"] == ["a"]
    assert records["a"]["assumptions"] == [] and records["a"]["builds_on"] == []


def test_the_graph_marks_b_and_c_not_a(chain_results):
    plan = drawn.layout({"chain": chain_results})
    nodes = {n.name: n for n in plan.nodes}
    assert [n.name for n in plan.nodes] == ["a", "b", "c"]
    assert sorted(name for name, n in nodes.items() if n.undermined) == ["b", "c"]
    assert sorted(plan.edges) == [("a", "b"), ("b", "c")]
    assert [nodes[x].column for x in "abc"] == [0, 1, 2]  # the longest chain each builds on
    assert {n.band for n in plan.nodes} == {0} and plan.titles == ("chain",) and plan.rows == (1,)


def test_the_ledger_page_lists_what_is_undermined(chain_results):
    page = drawn.document({"chain": chain_results}, note="note")
    assert f"]({drawn.GRAPH_FILE})" in page and "mermaid" not in page
    assert "- `b` builds on `a`\n- `c` builds on `a`\n" in page
    assert "| `b` | VERIFIED | x in [0, 1] | `a` |" in page
    assert "\n| `a` |" not in page  # declares neither assumptions nor dependencies


def test_no_failure_no_fallback_list():
    results = [_result(_claim("p"), Verdict.PROVED), _result(_claim("q", ("p",)), Verdict.VERIFIED)]
    assert ledger.undermined(results) == {}
    assert drawn.report_lines(results) == []
    assert not any(n.undermined for n in drawn.layout({"g": results}).nodes)
    assert drawn.undermined_markdown(results).startswith("No claim builds on")


@pytest.mark.parametrize("verdict", [Verdict.REFUTED, Verdict.UNPROVEN, Verdict.ERROR])
def test_each_failed_verdict_undermines(verdict):
    results = [_result(_claim("p"), verdict), _result(_claim("q", ("p",)), Verdict.PROVED)]
    assert ledger.undermined(results) == {"q": ("p",)}


def test_a_claim_refuted_as_expected_undermines_nothing():
    results = [_result(_claim("p", holds=False), Verdict.REFUTED), _result(_claim("q", ("p",)), Verdict.PROVED)]
    assert ledger.undermined(results) == {}


def test_failures_propagate_through_every_path_and_are_named_once():
    # p, r fail; s builds on both through q and directly; t builds on nothing that failed.
    results = [
        _result(_claim("s", ("q", "r", "p")), Verdict.VERIFIED),  # listed before what it builds on
        _result(_claim("p"), Verdict.ERROR),
        _result(_claim("q", ("p",)), Verdict.PROVED),
        _result(_claim("r", ("q",)), Verdict.UNPROVEN),
        _result(_claim("t"), Verdict.PROVED),
    ]
    assert ledger.undermined(results) == {"s": ("p", "r"), "q": ("p",), "r": ("p",)}


def test_an_unchecked_dependency_is_not_known_to_fail():
    assert ledger.undermined([_result(_claim("q", ("elsewhere",)), Verdict.PROVED)]) == {}


def test_an_unknown_name_is_an_error_naming_the_claim_and_the_name():
    with pytest.raises(ValueError, match=r"claim 'q': builds_on names unknown claim\(s\) 'nope'"):
        ledger.validate([_claim("p"), _claim("q", ("p", "nope"))], known=())


def test_a_user_claim_may_build_on_a_builtin_one():
    registry.validate_ledger([_claim("q", ("prop1-lsa-equals-gd-step",))])  # built-in names are known
    with pytest.raises(ValueError, match="unknown claim"):
        ledger.validate([_claim("q", ("prop1-lsa-equals-gd-step",))])


def test_unknown_name_on_the_command_line_is_a_usage_error(runner, tmp_path):
    path = tmp_path / "unknown.py"
    path.write_text(CHAIN_FILE.replace('builds_on=("b",)', 'builds_on=("no-such-claim",)'))
    result = runner.invoke(main, ["check", str(path)])
    assert result.exit_code == 2
    assert "claim 'c': builds_on names unknown claim(s) 'no-such-claim'" in result.output
    assert "Traceback" not in result.output


def _cycle_edges(message: str) -> list[tuple[str, str]]:
    """The arrows of "… in a cycle: x → y → … (→: builds on)" as (claim, what it builds on) pairs."""
    names = message.split("cycle: ", 1)[1].removesuffix(" (→: builds on)").split(" → ")
    assert names[0] == names[-1], message
    return list(itertools.pairwise(names))


@pytest.mark.parametrize(
    "claims",
    [
        [_claim("p", ("p",))],
        [_claim("p", ("q",)), _claim("q", ("p",))],
        [_claim("s", ("p",)), _claim("p", ("r",)), _claim("q", ("p",)), _claim("r", ("q",))],
    ],
)
def test_a_cycle_is_an_error_naming_the_cycle_in_the_direction_of_builds_on(claims):
    with pytest.raises(ValueError, match="cycle") as info:
        ledger.validate(claims, known=())
    edges = _cycle_edges(str(info.value))
    builds_on = {c.name: c.builds_on for c in claims}
    assert all(dep in builds_on[name] for name, dep in edges)
    assert {name for name, _ in edges} == {c.name for c in claims if c.name != "s"}  # s is outside the cycle


def test_a_cycle_on_the_command_line_is_a_usage_error(runner, tmp_path):
    path = tmp_path / "cycle.py"
    path.write_text(CHAIN_FILE.replace('name="a", source="test",', 'name="a", source="test", builds_on=("c",),'))
    result = runner.invoke(main, ["check", str(path)])
    assert result.exit_code == 2
    assert sorted(_cycle_edges(result.output.strip())) == [("a", "c"), ("b", "a"), ("c", "b")]
    assert "Traceback" not in result.output


def test_check_all_validates_too():
    with pytest.raises(ValueError, match="unknown claim"):
        check_all([_claim("q", ("nope",))])


@pytest.mark.parametrize("field", ["assumptions", "builds_on"])
@pytest.mark.parametrize("value", ["a", ["a"], ("a", ""), ("a", 3)])
def test_ledger_fields_must_be_tuples_of_strings(field, value):
    with pytest.raises(ValueError, match=f"claim 'p': {field} must be a tuple of non-empty strings"):
        Claim(name="p", source="t", statement="s", checks=(Numeric(CASES, lambda c: (0, 0)),), **{field: value})


def test_markdown_shows_assumptions_and_dependencies():
    claim = Claim(
        name="p",
        source="t",
        statement="s",
        checks=(Numeric(CASES, lambda c: (0, 0)),),
        assumptions=("W0 = 0", "isotropic inputs"),
        builds_on=("q", "r"),
    )
    text = claim_markdown(claim)
    assert "*Assumes:* W0 = 0; isotropic inputs." in text
    assert "*Builds on:* `q`, `r`." in text


def test_builtin_ledger_is_valid_and_names_only_builtins():
    claims = registry.builtin_claims()
    ledger.validate(claims, known=())
    assert any(c.builds_on for c in claims)


def test_builtin_graph_has_one_node_per_claim_with_its_verdict_and_is_deterministic():
    verdicts = list(Verdict)
    fams = registry.families()
    groups = {
        fam.title: [_result(c, verdicts[len(c.name) % len(verdicts)]) for c in fam.claims] for fam in fams
    }  # verdicts chosen arbitrarily but reproducibly: the drawing, not the checks, is under test
    plan = drawn.layout(groups)
    expected = [(r.claim.name, r.verdict, band) for band, rs in enumerate(groups.values()) for r in rs]
    assert [(n.name, n.verdict, n.band) for n in plan.nodes] == expected
    assert len(plan.titles) == len(fams)
    assert len(plan.edges) == sum(len(r.claim.builds_on) for rs in groups.values() for r in rs)
    column = {n.name: n.column for n in plan.nodes}
    assert all(column[b] > column[a] for a, b in plan.edges)  # every arrow points right
    places = [(n.band, n.column, n.row) for n in plan.nodes]
    assert len(set(places)) == len(places)  # no two boxes on one spot
    assert all(n.row < plan.rows[n.band] for n in plan.nodes)
    svg = drawn.graph_svg(groups)
    assert svg == drawn.graph_svg(dict(groups))
    assert svg.startswith(b"<?xml") and b"<script" not in svg
    ids = re.findall(rb'<g id="claim:([^"]+)"', svg)
    assert [i.decode() for i in ids] == [n.name for n in plan.nodes]
    for verdict in {r.verdict for rs in groups.values() for r in rs}:
        assert drawn.FILLS[verdict][0].encode() in svg


def test_the_index_links_the_ledger_page():
    assert "](ledger.md)" in docs.index_document([], {}, seed=0, max_examples=1)


def test_the_graph_depends_only_on_the_claims_and_their_verdicts(chain_results):
    bare = [Result(r.claim, r.verdict, (), seed=99, max_examples=1, seconds=123.0) for r in chain_results]
    assert drawn.layout({"chain": bare}) == drawn.layout({"chain": chain_results})
    assert drawn.graph_svg({"chain": bare}) == drawn.graph_svg({"chain": chain_results})
    assert chain_results[0].claim.name == "a" and chain_results[0].verdict is Verdict.REFUTED
    errored = [Result(chain_results[0].claim, Verdict.ERROR, (), seed=0, max_examples=1), *chain_results[1:]]
    # a still failed, so the lists and the table are the same: only the graph's digest tells the page to change
    assert drawn.undermined_markdown(errored) == drawn.undermined_markdown(chain_results)
    assert drawn.document({"chain": errored}, "n") != drawn.document({"chain": chain_results}, "n")
    assert drawn.document({"chain": bare}, "n") == drawn.document({"chain": chain_results}, "n")
