"""checks/form.py: allowed values, 'Not disclosed' with citations, answers without citations."""

from __future__ import annotations

from autofill.checks.form import allowed_value, check_form
from autofill.records import Severity


def failed(checks):
    return [(c.reason, c.severity) for c in checks if not c.passed]


def test_allowed_values():
    assert allowed_value("Not disclosed.", ["No", "Not disclosed"]) == "Not disclosed"
    assert allowed_value("yes - since 2020", ["Yes", "No"]) == "Yes"
    assert allowed_value("Maybe", ["Yes", "No"]) is None


def test_form_checks():
    assert failed(check_form("Yes. Since 2020.", 1, ["Yes", "No"], "dropdown")) == []
    assert failed(check_form("Partially", 1, ["Yes", "No"], "dropdown")) == [("answer is not one of Yes, No", Severity.HARD)]
    assert failed(check_form("Partially", 1, ["Yes", "No"], "form of answer")) == [("answer is not one of Yes, No", Severity.SOFT)]
    assert failed(check_form("Not disclosed", 2)) == [("'Not disclosed' but cites 2 pages", Severity.SOFT)]
    assert failed(check_form("Not disclosed", 0)) == []
    assert failed(check_form("46% renewable", 0)) == [("no citation", Severity.HARD)]
    assert failed(check_form("", 0)) == [("no answer", Severity.HARD)]


def test_a_closed_form_of_answer_is_read_in_its_rows_language():
    """Issue 43: "Ja/Nein" was not a Yes/No form (no allowed values: neither the prompt nor this check
    knew them)."""
    from autofill.checks.form import form_values

    cases = [("Ja/Nein", "de", ["Ja", "Nein"]),
             ("Ja / Nein / Teilweise und kurze Erläuterung", "de", ["Ja", "Nein", "Teilweise"]),
             ("Ja oder Nein und eine kurze Erklärung", "de", ["Ja", "Nein"]),
             ("Oui/Non et un chiffre", "fr", ["Oui", "Non"]),
             ("Oui ou Non, avec explication", "fr", ["Oui", "Non"]), ("Sí/No y una cifra", "es", ["Sí", "No"]),
             ("Sí, No o Parcialmente", "es", ["Sí", "No", "Parcialmente"]), ("Sì/No", "it", ["Sì", "No"]),
             ("Sim/Não", "pt", ["Sim", "Não"]), ("Ja/Nee", "nl", ["Ja", "Nee"]), ("Ja of nee", "nl", ["Ja", "Nee"]),
             ("Bitte angeben: Ja/Nein", "de", ["Ja", "Nein"]), ("N/A oder Ja", "de", ["N/A", "Ja"]),
             ("Ja/Nein", "", ["Ja", "Nein"]),  # a row of unknown language: every language's words
             # Not closed forms: units, scopes, free text, another language's words.
             ("tCO2e/Jahr", "de", []), ("Scope 1/2", "de", []), ("Kurzer Text", "de", []),
             ("Texto breve y cifras", "es", []), ("Oui, avec explication", "fr", []), ("Ja/Nein", "fr", [])]
    for text, language, values in cases:
        assert form_values(text, language) == values, (text, language)


def test_the_form_check_holds_an_answer_to_its_rows_words_and_knows_not_disclosed_in_them():
    allowed = ["Ja", "Nein"]
    assert failed(check_form("Ja. Seit 2020.", 1, allowed, "form of answer")) == []
    assert failed(check_form("Yes. Since 2020.", 1, allowed, "form of answer")) == \
        [("answer is not one of Ja, Nein", Severity.SOFT)]
    for text in ("Nicht angegeben", "No divulgado.", "Non communiqué", "Non divulgato", "Não divulgado",
                 "Niet bekendgemaakt"):
        assert failed(check_form(text, 0)) == [], text  # not disclosed: no citation needed
        assert failed(check_form(text, 1)) == [("'Not disclosed' but cites 1 page", Severity.SOFT)], text
    assert failed(check_form("Nein", 0, allowed, "form of answer")) == [("no citation", Severity.HARD)]
