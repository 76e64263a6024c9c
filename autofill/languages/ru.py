"""Russian: what autofill knows of it (see autofill/languages/__init__.py for each field)."""

from autofill.languages import Language

LANGUAGE = Language(
    code='ru', name='Russian', order=10,
    stemmer='russian', stopwords='STOPWORDS_RUSSIAN',
    markers="""
        и в не на что с по это как из к для у о от все же мы наши также
    """,
)
