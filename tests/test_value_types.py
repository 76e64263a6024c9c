"""Bad value types in settings files and team framework files (value_types.py, issue 43): each is one line
naming the file and the key, and exit code 2, through the real CLI in fresh processes; `needs = 5` in a
framework file used to end in "unexpected error: TypeError" without naming the file, and `final_k = true`
or `model = 5` in autofill.toml were taken silently as 1 and "5"."""

from __future__ import annotations

import pytest

from autofill import value_types as vt
from autofill.errors import InputError
from tests.race_helpers import cli
from tests.workbook_builders import build_questionnaire

CONCEPT = "[[concept]]\nid = 'acme.x'\nlabel = 'X'\nform = 'figure'\ndescription = 'd'\n"
REQUIREMENT = ('[framework]\nid = "ACME"\n\n[[requirement]]\ncode = "ENV-04"\ndescription = "Scope 1."\n'
               'concepts = ["ghg.scope1"]\n')


def test_shown_spells_a_value_on_one_short_line():
    assert [vt.shown(v) for v in (True, 5, 2.5, "x", [1, 2], {"a": 1}, [])] == \
        ["true", "5", "2.5", "'x'", "[1, 2]", "a table", "[]"]
    assert vt.shown("y" * 100).endswith("...'") and len(vt.shown("y" * 100)) < 45
    assert vt.shown(list(range(100))) == "a list"


def test_check_names_the_place_the_key_and_both_types():
    assert vt.check(["a"], vt.TEXTS, "f.toml", "needs") == ["a"]
    with pytest.raises(InputError, match=r"^f\.toml: needs must be text in quotes or a list of them, not 5$"):
        vt.check(5, vt.TEXTS, "f.toml", "needs")
    with pytest.raises(InputError, match=r"did you mean cues\?"):
        vt.check_keys({"cue": True}, {"cues": vt.TEXTS}, "f.toml", "a [[concept]]")


# (file, its text, what the one line must say after the file's name)
SETTINGS_CASES = [
    ("autofill.toml", "[retrieval]\nfinal_k = true\n", "retrieval.final_k must be a whole number, not true"),
    ("autofill.toml", "[retrieval]\nfinal_k = 2.5\n", "retrieval.final_k must be a whole number, not 2.5"),
    ("autofill.toml", "[llm]\nmodel = 5\n", "llm.model must be text in quotes, not 5"),
    ("autofill.toml", "[retrieval]\nmode = { a = 1 }\n", "retrieval.mode must be text in quotes, not a table"),
    ("team.toml", "[library]\nenabled = 1\n", "library.enabled must be true or false, not 1"),
    ("team.toml", "[llm]\ntemperature = [0]\n", "llm.temperature must be a number, not [0]"),
    ("team.toml", "[cost.prices]\nmodel-x = { input = 1 }\n",
     "cost.prices.model-x must be [input, output] USD per million tokens, not a table"),
    ("team.toml", "retrieval = 5\n", "[retrieval] must be a table, not 5"),
]


@pytest.mark.parametrize("name, text, message", SETTINGS_CASES)
def test_a_bad_value_in_a_settings_file_is_one_line_and_exit_2(tmp_path, name, text, message):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / name).write_text(text)
    args = ["--workspace", str(ws), *(["--config", str(ws / name)] if name != "autofill.toml" else []), "config"]
    done = cli(args, timeout=120)
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert done.returncode == 2 and len(lines) == 1, (done.returncode, done.stderr)
    assert name in lines[0] and lines[0].endswith(message), lines[0]


FRAMEWORK_CASES = [
    (CONCEPT + "needs = 5\n", "concept 'acme.x': needs must be text in quotes or a list of them, not 5"),
    (CONCEPT + "cues = true\n", "concept 'acme.x': cues must be text in quotes or a list of them, not true"),
    (CONCEPT + "cue = true\n", "concept 'acme.x': unknown key 'cue' in a [[concept]] (did you mean cues?)"),
    (CONCEPT + "labels = ['scope']\n", "concept 'acme.x': labels must be a table of texts in quotes, not ['scope']"),
    ("[concept]\nid = 'acme.x'\n", "concept must be a list of tables (each written [[name]]), not a table"),
    (REQUIREMENT + "year = true\n", "requirement ACME 'ENV-04': year must be a whole number, not true"),
    (REQUIREMENT.replace('["ghg.scope1"]', '{ id = "ghg.scope1" }'),
     "requirement ACME 'ENV-04': concepts must be a list of texts in quotes, not a table"),
    (REQUIREMENT + "aliases = 5\n",
     "requirement ACME 'ENV-04': aliases must be text in quotes or a list of them, not 5"),
    ('framework = ["ACME"]\n', "framework must be a table, not ['ACME']"),
]


@pytest.mark.parametrize("text, message", FRAMEWORK_CASES)
def test_a_bad_value_in_a_team_framework_file_is_one_line_and_exit_2(tmp_path, text, message):
    ws = tmp_path / "ws"
    (ws / "frameworks").mkdir(parents=True)
    (ws / "frameworks" / "acme.toml").write_text(text)
    q = build_questionnaire(tmp_path / "q.xlsx")
    done = cli(["--workspace", str(ws), "inspect", str(q)], timeout=120)
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert done.returncode == 2 and len(lines) == 1, (done.returncode, done.stderr)
    assert "acme.toml" in lines[0] and lines[0].endswith(message), lines[0]


def test_an_environment_variable_of_the_wrong_type_is_named_as_it_was_set(tmp_path):
    from autofill.settings import load_settings

    with pytest.raises(InputError, match=r"^environment: AUTOFILL_RETRIEVAL__FINAL_K must be a whole number, "
                                         r"not 'six'$"):
        load_settings(tmp_path, environ={"AUTOFILL_RETRIEVAL__FINAL_K": "six"})
    assert load_settings(tmp_path, environ={"AUTOFILL_RETRIEVAL__FINAL_K": "7"}).retrieval.final_k == 7
    # The command line's typed options are converted, not refused (click has checked them).
    assert load_settings(tmp_path, environ={}, overrides={"llm": {"model": 5}}).llm.model == "5"
