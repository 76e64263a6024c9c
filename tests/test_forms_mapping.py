"""forms.mapping: a form's datapoints beside framework requirements. A VSME named range gets its
VSME requirement (frameworks/data/vsme.toml), the most specific requirement of each other framework
that shares its concepts, and the topical requirements the file names; other datapoints are mapped
from their label like a questionnaire row."""

from __future__ import annotations

from autofill.forms.mapping import datapoint_requirements, vsme_index
from autofill.forms.model import Datapoint, DatapointKind, FormCell
from autofill.frameworks.catalogue import load_catalogue
from autofill.frameworks.coverage import mapper_for
from autofill.settings import load_settings


def _dp(key: str, label: str = "", base: str = "") -> Datapoint:
    return Datapoint(key=key, cells=(FormCell("S", "D1"),), label=label, kind=DatapointKind.NUMBER, base=base)


def _reqs(dp: Datapoint) -> list[str]:
    mapper = mapper_for(load_settings(None))
    return datapoint_requirements(mapper.catalogue, mapper, dp)


def test_vsme_named_range_gets_its_requirement_and_the_crosswalk():
    reqs = _reqs(_dp("GrossScope1GreenhouseGasEmissions"))
    assert reqs[0] == "VSME B3 scope 1"
    assert {"ESRS E1-6 44(a)", "IFRS S2 29(a)(i)(1)", "GRI 305-1", "CDP 2024 7.6"} <= set(reqs)


def test_breakdown_member_takes_its_concept_and_topical_requirements_are_named():
    assert _reqs(_dp("EnergyConsumptionFromFuels_RenewableEnergyMember", base="EnergyConsumptionFromFuels"))[0] \
        == "VSME B3 energy"
    reqs = _reqs(_dp("NumberOfPermanentContractEmployees"))
    assert reqs[0] == "VSME B8" and "ESRS S1-6" in reqs and "GRI 2-7" in reqs


def test_other_datapoints_are_mapped_from_their_label():
    assert "ESRS E1-6 44(a)" in _reqs(_dp("Sheet!B9", "Gross Scope 1 GHG emissions (tCO2e)"))
    assert _reqs(_dp("Sheet!B4", "Company name")) == []


def test_every_vsme_datapoint_list_names_requirements_the_catalogue_has():
    cat = load_catalogue(None)
    index = vsme_index()
    assert len(index) > 100
    assert all(f"VSME {code}" in cat.requirements for code, _ in index.values())


def test_a_breakdown_row_is_mapped_with_the_question_that_opens_it(tmp_path):
    from autofill.forms.mapping import form_mapping
    from autofill.forms.reader import read_form
    from tests.form_builders import build_named_form

    form = read_form(build_named_form(tmp_path / "form.xlsx"))
    mapping = form_mapping(load_settings(None), form)
    assert "GRI 305-3" in mapping["Disclosures!D27"]  # "2. Capital goods" alone says nothing of Scope 3
    assert not any(r.startswith("VSME C3") for r in mapping["Disclosures!D27"])  # "Base year" is a column


# The VSME Digital Template's own B2 label in English, German and French (its translation table).
B2_LABELS = {
    "en": "B2 - Practices, policies and future initiatives for transitioning towards a more sustainable economy",
    "de": "B2 – Verfahrensweisen, Richtlinien und künftige Initiativen für den Übergang zu einer nachhaltigeren Wirtschaft",
    "fr": "B2 – Pratiques, politiques et initiatives futures pour la transition vers une économie plus durable",
}


def test_a_german_or_french_form_is_mapped_through_its_english_words():
    from pathlib import Path

    from autofill.forms.mapping import form_mapping
    from autofill.forms.model import Form, FormSource

    def mapped(language: str, translator="settings"):
        dp = Datapoint(key="template_checkbox_b2", cells=(FormCell("S", "D1"),), label=B2_LABELS[language],
                       kind=DatapointKind.BOOLEAN, section="B2")
        form = Form(path=Path("form.xlsx"), source=FormSource.NAMED, datapoints=(dp,), language=language)
        return form_mapping(load_settings(None), form, **({} if translator == "settings" else {"translator": translator}))

    english = mapped("en")["template_checkbox_b2"]
    assert english[0] == "ESRS E1-2"
    for language in ("de", "fr"):
        assert mapped(language).get("template_checkbox_b2", [""])[0] == english[0], language
    # Without a translator only the glossary reads the label: German's holds "Richtlinien" (policies), so the
    # German label is still tagged; French's holds none of the French label's words, so it is not.
    assert mapped("de", translator=None)["template_checkbox_b2"][0] == english[0]
    assert mapped("fr", translator=None) == {}


def test_inspect_of_a_form_in_french_tags_its_datapoints_as_in_english(tmp_path):
    import os

    from tests.form_builders import build_named_form
    from tests.rows_helpers import ROOT, cli, last_json

    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           "ANONYMIZED_TELEMETRY": "False"}
    form = build_named_form(tmp_path / "form.xlsx")
    frameworks = {}
    for language in ("en", "fr"):
        proc = cli(tmp_path, env, "inspect", form, "--json", "--form-language", language)
        assert proc.returncode == 0, proc.stderr
        data = last_json(proc)["form"]
        assert data["language"] == language
        frameworks[language] = {d["key"]: d.get("frameworks") for d in data["datapoints"]}
    assert frameworks["en"]["RenewableShare"]  # "Share of renewable electricity": mapped from its label
    assert frameworks["fr"] == frameworks["en"]  # "Part d'électricité renouvelable" too, through English words
