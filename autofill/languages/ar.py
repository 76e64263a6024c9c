"""Arabic: what autofill knows of it (see autofill/languages/__init__.py for each field)."""

from autofill.languages import Language

LANGUAGE = Language(
    code='ar', name='Arabic', order=13,
    stemmer='arabic', stopwords='',
    script=r"[\u0600-\u06ff]", script_rank=5,
)
