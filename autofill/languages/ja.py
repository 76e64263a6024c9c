"""Japanese: what autofill knows of it (see autofill/languages/__init__.py for each field)."""

from autofill.languages import Language

LANGUAGE = Language(
    code='ja', name='Japanese', order=15,
    stemmer='', stopwords='',
    script=r"[\u3040-\u30ff]", script_rank=1,
)
