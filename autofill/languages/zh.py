"""Chinese: what autofill knows of it (see autofill/languages/__init__.py for each field)."""

from autofill.languages import Language

LANGUAGE = Language(
    code='zh', name='Chinese', order=14,
    stemmer='', stopwords='',
    script=r"[\u4e00-\u9fff]", script_rank=3,
)
