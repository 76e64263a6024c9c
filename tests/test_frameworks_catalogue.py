"""The datapoint catalogue (autofill/frameworks/catalogue.py): ids unique, every concept a requirement
names exists, the crosswalk symmetric and as the standards line up, the frameworks complete, and a
workspace's own framework or customer codes merged in, a bad file refused with one line."""

from __future__ import annotations

import tomllib
from importlib import resources

import pytest

from autofill.errors import InputError
from autofill.frameworks.catalogue import DATA_FILES, FORMS, load_catalogue
from tests.race_helpers import cli


@pytest.fixture(scope="module")
def cat():
    return load_catalogue()


def _raw(name):
    return tomllib.loads((resources.files("autofill.frameworks") / "data" / name).read_text(encoding="utf-8"))


def test_ids_are_unique_in_the_shipped_files():
    concept_ids, req_ids = [], []
    for name in DATA_FILES:
        data = _raw(name)
        concept_ids += [c["id"] for c in data.get("concept", ())]
        req_ids += [f"{data['framework']['id']} {r.get('year', '')} {r['code']}" for r in data.get("requirement", ())]
    assert len(concept_ids) == len(set(concept_ids))
    assert len(req_ids) == len(set(req_ids))


def test_every_concept_is_used_and_well_formed(cat):
    used = {c for r in cat.requirements.values() for c in r.concepts}
    assert used == set(cat.concepts)
    for c in cat.concepts.values():
        assert c.form in FORMS and c.description and c.needs, c.id
        assert len(c.description) < 250, c.id  # short, our own words
    for r in cat.requirements.values():
        assert all(c in cat.concepts for c in r.concepts) and r.description, r.id


def test_no_pattern_holds_a_doubled_backslash(cat):
    """'\\\\b' in a TOML literal string is a backslash and a "b", never a word boundary."""
    for c in cat.concepts.values():
        for p in c.cues + c.needs + c.within:
            assert "\\\\" not in p.pattern, (c.id, p.pattern)


def test_crosswalk_is_symmetric(cat):
    inverse = {"same": "same", "within": "covers", "covers": "within", "overlaps": "overlaps"}
    for rid in cat.requirements:
        for other, rel in cat.crosswalk(rid):
            assert (rid, inverse[rel]) in cat.crosswalk(other), (rid, other, rel)


def test_scope_1_lines_up_across_the_frameworks(cat):
    walk = dict(cat.crosswalk("ESRS E1-6 44(a)"))
    assert walk["GRI 305-1"] == "same"
    assert walk["IFRS S2 29(a)(i)(1)"] == "same"
    assert walk["CDP 2023 C6.1"] == "same"
    assert walk["TCFD Metrics and Targets (b)"] == "covers"  # Scope 1, 2 and 3 together
    assert "GRI 305-2" not in walk and "GRI 305-3" not in walk
    assert dict(cat.crosswalk("ESRS E1-6 49(b)"))["GRI 305-2-b"] == "same"  # market-based
    assert "GRI 305-2-a" not in dict(cat.crosswalk("ESRS E1-6 49(b)"))


def test_the_frameworks_are_complete(cat):
    codes = {fw: {r.code for r in cat.of_framework(fw)} for fw in cat.frameworks}
    assert {f"E1-{i}" for i in range(1, 10)} <= codes["ESRS"]
    assert {"GOV-1", "GOV-2", "GOV-3", "GOV-4", "GOV-5", "SBM-1", "SBM-2", "SBM-3", "IRO-1", "IRO-2"} <= codes["ESRS"]
    assert {f"302-{i}" for i in range(1, 6)} | {f"305-{i}" for i in range(1, 8)} <= codes["GRI"]
    tcfd = {f"{p} ({x})" for p, n in (("Governance", "ab"), ("Strategy", "abc"), ("Risk Management", "abc"),
                                       ("Metrics and Targets", "abc")) for x in n}
    assert codes["TCFD"] == tcfd and len(tcfd) == 11
    assert {"29(a)(i)(1)", "29(a)(i)(2)", "29(a)(i)(3)", "6(a)", "22", "25(a)", "33"} <= codes["IFRS S2"]
    assert all(r.year for r in cat.of_framework("CDP"))
    assert cat.requirements["CDP 2023 C6.1"].concepts == ("ghg.scope1",)


ACME = '''
[framework]
id = "ACME"
name = "ACME Bank supplier questionnaire"

[[requirement]]
code = "ENV-04"
description = "Scope 1 emissions of the supplier."
concepts = ["ghg.scope1"]
'''


def test_a_workspace_adds_its_own_codes(tmp_path):
    (tmp_path / "frameworks").mkdir()
    (tmp_path / "frameworks" / "acme.toml").write_text(ACME)
    cat = load_catalogue(tmp_path)
    assert dict(cat.crosswalk("ACME ENV-04"))["GRI 305-1"] == "same"
    assert "ACME ENV-04" not in load_catalogue().requirements  # the shipped catalogue is untouched


@pytest.mark.parametrize("text, message", [
    (ACME.replace('"ghg.scope1"', '"ghg.scope9"'), "names unknown concept 'ghg.scope9'"),
    (ACME.replace("ENV-04", "305-1").replace('id = "ACME"', 'id = "GRI"'), "'GRI 305-1' is already defined"),
    (ACME + "\n[[concept]]\nid = 'x'\nlabel = 'X'\nform = 'essay'\ndescription = 'd'\n", "form 'essay' is not one of"),
    (ACME + "\n[[concept]]\nid = 'x'\nlabel = 'X'\nform = 'figure'\ndescription = 'd'\nneeds = ['(']\n",
     "is not a valid regular expression"),
    ("[[requirement]\n", "not valid TOML"),
])
def test_a_bad_workspace_file_is_one_clear_line(tmp_path, text, message):
    (tmp_path / "frameworks").mkdir()
    (tmp_path / "frameworks" / "acme.toml").write_text(text)
    with pytest.raises(InputError, match=message.replace("(", r"\(").replace(")", r"\)")):
        load_catalogue(tmp_path)


def test_inspect_refuses_a_bad_workspace_file_with_exit_2(tmp_path):
    from tests.workbook_builders import build_questionnaire

    ws = tmp_path / "ws"
    (ws / "frameworks").mkdir(parents=True)
    (ws / "frameworks" / "acme.toml").write_text(ACME.replace('"ghg.scope1"', '"ghg.scope9"'))
    q = build_questionnaire(tmp_path / "q.xlsx")
    done = cli(["--workspace", str(ws), "inspect", str(q)], timeout=120)
    assert done.returncode == 2
    lines = [l for l in done.stderr.splitlines() if l.strip()]
    assert len(lines) == 1 and "acme.toml" in lines[0] and "ghg.scope9" in lines[0], done.stderr
