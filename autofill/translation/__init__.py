"""Query translation (issues 33 and 44): a questionnaire row's text in its documents' language, by Apertium
where it has a route (apertium.py) and else word by word from a bilingual dictionary (dictionaries.py),
chosen and cached by the translator (translator.py). It sits below both the search chain (search/, which
searches a row as its translation too) and the frameworks (frameworks/crosslingual.py, which maps a row
through its English words), and imports neither (tests/test_import_layers.py)."""
