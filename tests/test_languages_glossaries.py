"""Each language's reporting glossary in its own module (autofill/languages/glossaries/): the language's
module reads it as `glossary`, and the registry does not take the subpackage for a language."""

from __future__ import annotations

import sys

import pytest

from autofill.languages import REGISTRY, load
from autofill.languages.glossaries import de as german_glossary, fr as french_glossary

LANGUAGE_FILE = '''
from autofill.languages import Language

LANGUAGE = Language(code="fi", name="Finnish", order=50, markers="ja on ei se", or_word="tai",
                    glossary=GLOSSARY)
'''


def test_each_language_module_reads_its_glossary_module():
    assert dict(REGISTRY["fr"].glossary) == french_glossary.GLOSSARY
    assert dict(REGISTRY["de"].glossary) == german_glossary.GLOSSARY
    assert "glossaries" not in REGISTRY


def test_the_registry_does_not_load_a_subpackage_as_a_language(tmp_path):
    # A glossaries package that defines a language of its own (here: one of its glossary) is still not a
    # language: the registry reads the package's modules, not its subpackages.
    pkg = tmp_path / "glossary_languages_pkg"
    (pkg / "glossaries").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "glossaries" / "__init__.py").write_text(
        "from autofill.languages import Language\nfrom glossary_languages_pkg.glossaries.fi import GLOSSARY\n\n"
        "LANGUAGE = Language(code='fi', name='Finnish glossary', glossary=GLOSSARY)\n", encoding="utf-8")
    (pkg / "glossaries" / "fi.py").write_text("GLOSSARY = {'kasvihuonekaasupäästöt': 'ghg emissions'}\n",
                                              encoding="utf-8")
    (pkg / "fi.py").write_text("from glossary_languages_pkg.glossaries.fi import GLOSSARY\n" + LANGUAGE_FILE,
                               encoding="utf-8")
    sys.path.insert(0, str(tmp_path))
    try:
        got = load("glossary_languages_pkg")
    finally:
        sys.path.remove(str(tmp_path))
        for name in [m for m in sys.modules if m.startswith("glossary_languages_pkg")]:
            del sys.modules[name]
    assert list(got) == ["fi"]
    assert dict(got["fi"].glossary) == {"kasvihuonekaasupäästöt": "ghg emissions"}


@pytest.mark.parametrize("code", ["fr", "de"])
def test_a_glossary_is_lower_case_and_in_english(code):
    glossary = REGISTRY[code].glossary
    assert glossary and all(term == term.lower() and term.strip() == term for term in glossary)
    assert all(english and english == english.strip() for english in glossary.values())
