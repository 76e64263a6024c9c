"""Turkish: what autofill knows of it (see autofill/languages/__init__.py for each field)."""

from autofill.languages import Language

LANGUAGE = Language(
    code='tr', name='Turkish', order=11,
    stemmer='turkish', stopwords='STOPWORDS_TURKISH',
    markers="""
        ve bir bu için ile olarak olan gibi daha çok her ama kadar ya sonra veya biz bizim
    """,
)
