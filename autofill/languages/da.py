"""Danish: what autofill knows of it (see autofill/languages/__init__.py for each field)."""

from autofill.languages import Language

LANGUAGE = Language(
    code='da', name='Danish', order=7,
    stemmer='danish', stopwords='STOPWORDS_DANISH',
    markers="""
        og i at det er en til af den på med for som har ikke et der vi fra var vores
    """,
    form_words={'ja': 'yes', 'nej': 'no', 'delvis': 'partially', 'ikke oplyst': 'not disclosed'},
    or_word='eller',
)
