"""Norwegian: what autofill knows of it (see autofill/languages/__init__.py for each field)."""

from autofill.languages import Language

LANGUAGE = Language(
    code='no', name='Norwegian', order=8,
    stemmer='norwegian', stopwords='STOPWORDS_NORWEGIAN',
    markers="""
        og i er det til en på av som for med at har ikke et den vi fra var vår våre
    """,
    form_words={'ja': 'yes', 'nei': 'no', 'delvis': 'partially', 'ikke oppgitt': 'not disclosed'},
    or_word='eller',
)
