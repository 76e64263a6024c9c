"""Greek: what autofill knows of it (see autofill/languages/__init__.py for each field)."""

from autofill.languages import Language

LANGUAGE = Language(
    code='el', name='Greek', order=12,
    stemmer='greek', stopwords='',
    script=r"[\u0370-\u03ff]", script_rank=4,
)
