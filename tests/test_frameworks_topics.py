"""The whole catalogue (issue 46, autofill/frameworks/data/topics.toml, esrs_topics.toml, gri_topics.toml,
cdp_water.toml): questions on waste, water, materiality, workforce and business conduct map to their
concepts, questions listing several scopes get every scope, the water / waste topic vetoes the GHG
target, the climate contrasts still hold, and VSME's water / waste / workforce requirements crosswalk to
ESRS and GRI. Questions taken from the questionnaires the issue quotes."""

from __future__ import annotations

import pytest

from autofill.frameworks.catalogue import load_catalogue
from autofill.frameworks.mapping import Mapper


@pytest.fixture(scope="module")
def cat():
    return load_catalogue()


@pytest.fixture(scope="module")
def mapper(cat):
    return Mapper(cat)


@pytest.mark.parametrize("question, concept", [
    ("What short-term actions has the company taken or planned to reduce its waste generation?", "waste.management"),
    ("Describe your strategy on waste management.", "waste.management"),
    ("Total amount of waste generated, split into hazardous and non-hazardous.", "waste.generated"),
    ("How do you engage with downstream partners on water consumption?", "water.management"),
    ("What targets have you set to reduce water use?", "water.management"),
    ("How much water did your sites withdraw last year?", "water.withdrawal"),
    ("Which topics have been assessed to be material?", "general.materiality"),
    ("Describe the process used to identify and assess material impacts, risks and opportunities.",
     "general.materiality-assessment"),
    ("Is your decarbonization trajectory compatible with a 1.5 or 2 degree scenario?", "strat.transition-plan"),
    ("Have you identified significant decarbonization levers?", "actions.decarbonisation"),
    ("What is the company's climate change mitigation objective?", "policy.climate"),
    ("Do you encourage downstream partners to carry out climate-related risk assessments?", "engage.value-chain"),
    ("What are the company's reported Scope 2 CO₂ emissions for the year 2022?", "ghg.scope2-location"),
    ("What is the total amount of CO₂ emissions reported by the company for the year 2024?", "ghg.total"),
    ("What is the combined total of your Scope 1, 2 and 3 emissions?", "ghg.total"),
    ("What was the company's lost-time injury frequency rate?", "workforce.health-safety"),
    ("What percentage of senior managers are women?", "workforce.diversity"),
    ("Percentage of employees covered by collective bargaining agreements.", "workforce.bargaining"),
    ("How many confirmed incidents of corruption or bribery occurred?", "conduct.corruption"),
    ("How do you assess the risk of forced or child labour among your suppliers?", "valuechain.workers"),
    ("How much waste was diverted to recycling or reuse?", "waste.generated"),
    ("Waste disposed of, by mass", "waste.generated"),
    ("Amount of releases to air", "pollution.emissions"),
    ("Employee counting methodology (headcount or full-time equivalent)", "workforce.characteristics"),
    ("Describe the methodology you use.", "ghg.methodology"),  # a bare methodology row, as before
    ("Country of employment contract", "workforce.characteristics"),
    ("Number of male employees at management level", "workforce.diversity"),
    ("Type of human right related to the confirmed incident", "workforce.human-rights"),
    ("Does the company operate in a sector using significant material flows?", "resources.inflows"),
    ("Employees receive pay that is equal or above the minimum wage set by law or through a collective "
     "bargaining agreement", "workforce.pay"),  # the pay asked for; the agreement is how it is set
    ("Revenue derived from gas", "energy.fossil"),  # as "Revenue derived from coal" always was
    ("Revenue derived from oil", "energy.fossil"),
])
def test_a_topical_question_maps_to_its_concept(mapper, question, concept):
    assert mapper.map(question).concepts[:1] == (concept,), mapper.map(question)


@pytest.mark.parametrize("question", [
    "What is the scope 1, 2 and 3 emissions?",
    "How does the company measure, report, and manage its carbon footprint, including Scope 1, 2, and 3 emissions?",
    "What were the company's reported Scope 1, Scope 2 and Scope 3 GHG emissions for the most recent year?",
])
def test_a_question_listing_scopes_gets_every_scope(mapper, question):
    got = set(mapper.map(question).concepts)
    assert {"ghg.scope1", "ghg.scope3"} <= got and got & {"ghg.scope2-location", "ghg.scope2-market"}, got
    assert "ghg.financed" not in got  # a part of Scope 3, not named


def test_a_translated_list_of_scopes_without_its_and_gets_every_scope(mapper):
    # "Wie hoch sind die Scope-1-, 2- und 3-Emissionen?" word by word, "und" a stop word: "scope 1 2 3".
    got = set(mapper.map("how high scope 1 2 3 emissions").concepts)
    assert {"ghg.scope1", "ghg.scope3"} <= got and got & {"ghg.scope2-location", "ghg.scope2-market"}, got
    assert set(mapper.map("scope 1 2022 emissions").concepts) & {"ghg.scope1"}  # a year is not a scope
    assert not set(mapper.map("scope 1 2022 emissions").concepts) & {"ghg.scope2-location", "ghg.scope2-market"}


@pytest.mark.parametrize("question, never", [
    ("What targets have you set to reduce water use?", "target.ghg"),
    ("What is your target for reducing waste sent to landfill?", "target.ghg"),
    ("What is your Scope 1 emissions reduction target?", "ghg.scope1"),  # a target is not the figure
    ("Does your climate policy cover adaptation?", "risk.manage"),
    ("5. Waste Generated in Operations - Current Reporting Period", "waste.generated"),  # Scope 3 category 5
    ("Employee counting methodology", "ghg.methodology"),  # how employees are counted, not emissions
    ("Sites located in biodiversity-sensitive areas", "workforce.diversity"),  # "biodiversity" is not "divers"
    ("Revenue from greenhouse gas reduction services", "energy.fossil"),
])
def test_contrasts_hold_on_the_new_topics(mapper, question, never):
    assert never not in mapper.map(question).concepts


@pytest.mark.parametrize("vsme, others", [
    ("VSME B6", {"ESRS E3-4", "GRI 303-3", "GRI 303-5", "CDP 2023 W1.2b"}),
    ("VSME B7", {"ESRS E5-5", "GRI 306-3", "ESRS E5-4"}),
    ("VSME B8", {"ESRS S1-6", "GRI 2-7"}),
    ("VSME B9 41", {"ESRS S1-14", "GRI 403-9"}),
    ("VSME B11", {"ESRS G1-4", "GRI 205-3"}),
])
def test_vsme_topical_requirements_crosswalk_to_esrs_and_gri(cat, vsme, others):
    assert others <= {rid for rid, _ in cat.crosswalk(vsme)}


def test_a_quoted_topical_code_maps_by_the_code(mapper):
    for question, concept in (("GRI 303-3", "water.withdrawal"), ("ESRS E5-5", "waste.generated"),
                              ("S1-14 metrics please", "workforce.health-safety"), ("GRI 3-2", "general.materiality")):
        m = mapper.map(question)
        assert m.concepts[0] == concept and m.matches[0].how == "quoted", (question, m)


def test_inspect_tags_topical_rows_and_every_listed_scope(tmp_path):
    """The way users see it: `autofill inspect` in a fresh process on a customer questionnaire."""
    import json

    from tests.race_helpers import cli
    from tests.workbook_builders import build_questionnaire

    rows = [("Environment", "Describe your strategy on waste management.", "Text", False),
            ("Environment", "How do you engage with downstream partners on water consumption?", "Text", False),
            ("Emissions", "What is the scope 1, 2 and 3 emissions?", "Number with unit", False),
            ("People", "Percentage of employees covered by collective bargaining agreements.", "Number", False)]
    q = build_questionnaire(tmp_path / "q.xlsx", questions=rows)
    done = cli(["--workspace", str(tmp_path / "ws"), "inspect", str(q), "--json"], timeout=120)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)["datapoints"]
    concepts = [[d["concept"] for d in r["datapoints"]] for r in data["rows"]]
    assert concepts[0][0] == "waste.management" and concepts[1][0] == "water.management"
    assert {"ghg.scope1", "ghg.scope2-location", "ghg.scope3"} <= set(concepts[2])
    assert concepts[3][0] == "workforce.bargaining"
    assert "306-2" in data["coverage"]["GRI"]["asked"] and "S1-8" in data["coverage"]["ESRS"]["asked"]
