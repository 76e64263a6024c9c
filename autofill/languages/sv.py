"""Swedish: what autofill knows of it (see autofill/languages/__init__.py for each field)."""

from autofill.languages import Language

LANGUAGE = Language(
    code='sv', name='Swedish', order=9,
    stemmer='swedish', stopwords='STOPWORDS_SWEDISH',
    markers="""
        och i att det är en som på av för med till den har inte ett vi om var vår våra
    """,
    form_words={'ja': 'yes', 'nej': 'no', 'delvis': 'partially', 'ej redovisat': 'not disclosed'},
    or_word='eller',
)
