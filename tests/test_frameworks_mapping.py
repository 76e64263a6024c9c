"""Mapping questions to framework datapoints (autofill/frameworks/mapping.py, contrast.py, model_map.py):
a quoted code maps by the code, near misses never cross (Scope 1/2/3, location/market, gross/net, a
target against the figure), the development sets never map one scope to another, and the model's
help is parsed from messy replies and overruled by the contrast veto."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from autofill.frameworks.catalogue import load_catalogue
from autofill.frameworks.mapping import Mapper
from autofill.frameworks.model_map import apply_reply, parse_ids

ROOT = Path(__file__).resolve().parents[1]
SCOPE_OF = {"ghg.scope1": "1", "ghg.scope2-location": "2", "ghg.scope2-market": "2", "ghg.scope3": "3",
            "ghg.financed": "3", "ghg.total": "total"}


@pytest.fixture(scope="module")
def mapper():
    return Mapper(load_catalogue())


def top(mapper, question, context=""):
    m = mapper.map(question, context)
    return m.concepts[0] if m.concepts else None


@pytest.mark.parametrize("question, quoted, concept", [
    ("ESRS E1-6 44(a): please report", "ESRS E1-6 44(a)", "ghg.scope1"),
    ("E1-6 paragraph 49(b)", "ESRS E1-6 49(b)", "ghg.scope2-market"),
    ("Per GRI 305-1, what is the figure?", "GRI 305-1", "ghg.scope1"),
    ("GRI 305-2 b", "GRI 305-2-b", "ghg.scope2-market"),
    ("CDP C6.1 response", "CDP 2023 C6.1", "ghg.scope1"),
    ("CDP C6.10", "CDP 2023 C6.10", "ghg.intensity"),  # not C6.1
    ("IFRS S2 29(a)(i)(3)", "IFRS S2 29(a)(i)(3)", "ghg.scope3"),
    ("IFRS S2 para 29(f)", "IFRS S2 29(f)", "carbon-price.internal"),
    ("TCFD Strategy (c)", "TCFD Strategy (c)", "strat.resilience"),
    ("TCFD Risk Management c)", "TCFD Risk Management (c)", "risk.integration"),
    ("CDP 2024 question 7.6", "CDP 2024 7.6", "ghg.scope1"),
    ("E1-8", "ESRS E1-8", "carbon-price.internal"),
])
def test_a_quoted_code_maps_by_the_code(mapper, question, quoted, concept):
    m = mapper.map(question)
    assert m.quoted == (quoted,)
    assert m.matches[0].concept == concept and m.matches[0].how == "quoted" and m.matches[0].strength == 1.0


@pytest.mark.parametrize("question", [
    "Describe item 29(a) of your plan",  # a paragraph number without IFRS S2
    "Strategy (a): what is your strategy?",  # without TCFD
    "Section 7.6 of the contract",  # a CDP 2024 number without CDP
    "Is version 305-10 installed?",
])
def test_a_code_without_its_framework_is_not_quoted(mapper, question):
    assert mapper.map(question).quoted == ()


def test_a_code_in_the_number_column_counts(mapper):
    assert top(mapper, "Please provide the figure.", "305-3") == "ghg.scope3"


def test_a_broad_code_is_narrowed_by_the_wording(mapper):
    assert top(mapper, "E1-6: gross Scope 1 emissions") == "ghg.scope1"
    assert top(mapper, "E1-6: market-based Scope 2") == "ghg.scope2-market"
    assert "ghg.scope1" not in mapper.map("E1-6: market-based Scope 2").concepts


@pytest.mark.parametrize("question, concept, never", [
    ("What were your Scope 1 emissions?", "ghg.scope1", {"ghg.scope2-location", "ghg.scope2-market", "ghg.scope3"}),
    ("What were your Scope 2 emissions?", None, {"ghg.scope1", "ghg.scope3"}),
    ("What were your Scope 3 emissions?", "ghg.scope3", {"ghg.scope1", "ghg.scope2-location", "ghg.scope2-market"}),
    ("Scope 2 emissions, location-based", "ghg.scope2-location", {"ghg.scope2-market"}),
    ("Scope 2 emissions, market-based", "ghg.scope2-market", {"ghg.scope2-location"}),
    ("Gross Scope 1 emissions before offsets", "ghg.scope1", {"ghg.removals-credits"}),
    ("Scope 1 emissions net of carbon credits", "ghg.removals-credits", {"ghg.scope1"}),
    ("Scope 1 emissions intensity per unit of revenue", "ghg.intensity", {"ghg.scope1"}),
    ("What is your Scope 1 reduction target?", "target.ghg", {"ghg.scope1"}),
    ("Process to manage climate risks (not how they are identified)", "risk.manage", {"risk.identify-assess"}),
    # Actions asked for, no target named: the actions, not the target they serve.
    ("What are the most important actions and solutions for the transformation to a climate-neutral company "
     "operation?", "actions.decarbonisation", {"target.net-zero"}),
    ("Is the company committed to becoming climate-neutral?", "target.net-zero", set()),
    ("Which actions support your net-zero target?", None, set()),
])
def test_near_misses_never_cross(mapper, question, concept, never):
    m = mapper.map(question)
    if concept:
        assert m.concepts[0] == concept, m
    assert not never & set(m.concepts), m


@pytest.mark.parametrize("question", [
    "Welche Investitionen hat das Unternehmen in CCUS und DAC getätigt?",  # the acronyms, in any language
    "Quels investissements dans le CCS ?",
    "How many tonnes did BECCS and DACCS projects remove?",
])
def test_removal_technologies_named_by_their_acronyms_are_removals(mapper, question):
    assert top(mapper, question) == "ghg.removals-credits"


def test_an_acronym_inside_a_word_is_not_a_removal(mapper):
    assert "ghg.removals-credits" not in mapper.map("What is the access to success of the daccord scheme?").concepts


def test_a_question_about_nothing_in_the_catalogue_maps_to_none(mapper):
    for q in ("What share of the board is independent?", "What is your credit rating?",
              "Please provide your VAT number and registered address."):
        assert mapper.map(q).matches == (), q


def test_the_development_sets_never_map_one_scope_to_another(mapper):
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from frameworks_mapping import DEVSET, HELDOUT, read_devset

    checked = 0
    for path in (DEVSET, HELDOUT):
        for _, gold, q in read_devset(path):
            wanted = {SCOPE_OF[g] for g in gold if g in SCOPE_OF}
            if not wanted:
                continue
            if "total" in wanted:  # a total is made of the three scopes
                wanted |= {"1", "2", "3"}
            checked += 1
            got = {SCOPE_OF[c] for c in mapper.map(q).concepts if c in SCOPE_OF}
            assert got <= wanted | {"total"}, (q, got)
            methods = {g for g in gold if g.startswith("ghg.scope2-")}
            if len(methods) == 1:
                assert not {"ghg.scope2-location", "ghg.scope2-market"} - methods & set(mapper.map(q).concepts), q
    assert checked >= 30


@pytest.mark.parametrize("reply, ids", [
    ('{"datapoints": ["ghg.scope1"]}', ["ghg.scope1"]),
    ('```json\n{"datapoints": ["ghg.scope1", "ghg.scope3",]}\n```', ["ghg.scope1", "ghg.scope3"]),
    ('Here you go: ["gov.board-oversight", "made.up", "gov.board-oversight"]', ["gov.board-oversight"]),
    ('{"datapoints": []}', []),
    ("I cannot tell.", None),
])
def test_model_replies_are_parsed(reply, ids):
    assert parse_ids(reply, list(load_catalogue().concepts)) == ids


def test_the_model_is_overruled_across_scopes_and_a_quoted_code_stays(mapper):
    cat = mapper.catalogue
    offline = mapper.map("GRI 305-1: Scope 1 emissions")
    m = apply_reply(cat, "GRI 305-1: Scope 1 emissions", offline, ["ghg.scope2-market", "ghg.verification"])
    assert m.concepts == ("ghg.verification", "ghg.scope1")
    assert [x.how for x in m.matches] == ["model", "quoted"]
    assert apply_reply(cat, "x", offline, None) is offline  # unparsed: the offline mapping stays


def test_actions_for_a_named_target_keep_the_target(mapper):
    assert "target.net-zero" in mapper.map("Which actions support your net-zero target?").concepts
    assert "target.net-zero" not in mapper.map("Which actions make the company climate neutral?").concepts

