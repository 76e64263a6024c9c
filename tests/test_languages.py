"""Languages in one place (autofill/languages/, issue 44): each language is one module, the registry loads
them all, and every part of the tool that works per language reads the registry, so adding a language is
adding one file."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from autofill.languages import REGISTRY, Language, load

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "autofill" / "languages"

FINNISH = '''
"""Finnish (a test's language: one file, nothing else touched)."""

from autofill.languages import Language

LANGUAGE = Language(
    code="fi", name="Finnish", order=50, stemmer="finnish",
    markers="ja on ei se että oli olla mutta kun tai joka myös sekä ovat tämä ne",
    instruction_words="vastaus vastaa kysymys kuvaile lyhyesti",
    form_words={"kyllä": "yes", "ei": "no", "osittain": "partially", "ei ilmoitettu": "not disclosed"},
    or_word="tai",
    headers={"question": ("kysymys",), "answer": ("vastaus",), "number": ("nro",)},
    terms={"tuloslaskelma": "income statement", "kasvihuonekaasupäästöt": "ghg"},
)
'''

# Run in a fresh process: the registry is read once, at import, as a user's run reads it. The package's
# search path gets the test's folder too, as if fi.py had been added next to de.py.
PROBE = '''
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("autofill.languages", sys.argv[1] + "/__init__.py",
                                              submodule_search_locations=[sys.argv[1], sys.argv[2]])
module = importlib.util.module_from_spec(spec)
sys.modules["autofill.languages"] = module
spec.loader.exec_module(module)
from autofill import language
from autofill.search import query, terms
from autofill.checks import form
from autofill.store import bm25_index
from autofill.workbook import headers
text = ("Yritys on asettanut tavoitteen, ja se on myös sitoutunut siihen, että päästöt ovat nolla vuoteen "
        "2050 mennessä, mutta se ei ole vielä julkaissut suunnitelmaa.")
print(json.dumps({
    "detect": language.detect(text), "name": language.name("fi"),
    "form_values": form.form_values("Kyllä tai Ei", "fi"),
    "not_disclosed": form.is_not_disclosed("Ei ilmoitettu raportissa"),
    "instruction": sorted(query.instruction_words("fi")),
    "terms": terms.english_keys("Mitkä ovat kasvihuonekaasupäästöt tuloslaskelman mukaan? tuloslaskelma", "fi"),
    "headers": headers.header_roles([(1, "Nro"), (2, "Kysymys"), (3, "Vastaus")]),
    "stem": bm25_index.stemmer("fi").stemWord("päästöjen"),
    "english_stem": bm25_index.stemmer("en").stemWord("päästöjen"),
}))
'''


def _probe(extra: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", PROBE, str(PACKAGE), str(extra)], capture_output=True, text=True,
                         env=env, cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_adding_a_language_is_one_file(tmp_path):
    (tmp_path / "fi.py").write_text(FINNISH, encoding="utf-8")
    got = _probe(tmp_path)
    assert got["detect"] == "fi"
    assert got["name"] == "Finnish"
    assert got["form_values"] == ["Kyllä", "Ei"]
    assert got["not_disclosed"] is True
    assert got["instruction"] == sorted("vastaus vastaa kysymys kuvaile lyhyesti".split())
    assert got["terms"] == ["ghg", "income statement"]
    assert {role: col for role, (col, _) in got["headers"].items()} == {"number": 1, "question": 2, "answer": 3}
    assert got["stem"] != got["english_stem"]  # Finnish words stemmed by the Finnish stemmer


def test_without_the_file_the_language_is_unknown(tmp_path):
    got = _probe(tmp_path)
    assert got["detect"] != "fi" and got["name"] == "fi"
    assert got["form_values"] == [] and got["instruction"] == [] and got["terms"] == []


def test_every_module_of_the_package_is_a_language_named_by_its_code():
    files = sorted(p.stem for p in PACKAGE.glob("*.py") if not p.stem.startswith("_"))
    assert files == sorted(REGISTRY)
    assert {"en", "de", "fr", "es", "it", "pt", "nl"} <= set(REGISTRY)
    for code, lang in REGISTRY.items():
        assert isinstance(lang, Language) and lang.code == code and lang.name
    assert [lang.order for lang in REGISTRY.values()] == sorted(lang.order for lang in REGISTRY.values())


def test_a_module_named_for_another_code_is_refused(tmp_path):
    pkg = tmp_path / "extra_languages_pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "fi.py").write_text(FINNISH.replace('code="fi"', 'code="fn"'), encoding="utf-8")
    sys.path.insert(0, str(tmp_path))
    try:
        with pytest.raises(ValueError, match="name the file fn.py"):
            load("extra_languages_pkg")
    finally:
        sys.path.remove(str(tmp_path))
        for name in [m for m in sys.modules if m.startswith("extra_languages_pkg")]:
            del sys.modules[name]


# Per-language tables left outside autofill/languages/, each with why (translation routes: how Apertium
# and FreeDict spell a code; EFRAG's template names languages in English words).
OUTSIDE = {"autofill/translation/apertium.py", "autofill/translation/dictionaries.py"}
_TABLE_ENTRY = re.compile(r"""["'](?:de|fr|es|it|pt|nl|da|sv|no)["']\s*:""")


def test_no_module_outside_the_package_keeps_a_table_per_language():
    offenders = []
    for path in sorted((ROOT / "autofill").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith("autofill/languages/") or rel in OUTSIDE:
            continue
        if len(_TABLE_ENTRY.findall(path.read_text(encoding="utf-8"))) >= 2:
            offenders.append(rel)
    assert offenders == [], textwrap.shorten(f"per-language tables outside autofill/languages/: {offenders}", 300)


@pytest.mark.parametrize("code, question", [
    ("es", "¿Qué reducciones de emisiones espera la empresa de los contratos de suministro de electricidad "
           "renovable que ha firmado?"),
    ("pt", "As metas de redução de emissões da empresa foram validadas pela Science Based Targets initiative "
           "(SBTi)?"),
    ("tr", "Şirketin Kapsam 1 ve Kapsam 2 emisyonları için bir net sıfır hedefi var mı?"),
])
def test_romance_de_and_da_are_not_turkish(code, question):
    """Turkish's "de"/"da" ("too") are the commonest words of French, Spanish and Portuguese: as Turkish
    function words they read such rows as Turkish (benchmarks/language_detection.py: 16 of its 18 wrong verdicts)."""
    from autofill.language import ROW_MIN_MARKERS, detect
    assert detect(question, ROW_MIN_MARKERS) == code
