"""Korean: what autofill knows of it (see autofill/languages/__init__.py for each field)."""

from autofill.languages import Language

LANGUAGE = Language(
    code='ko', name='Korean', order=16,
    stemmer='', stopwords='',
    script=r"[\uac00-\ud7af]", script_rank=2,
)
