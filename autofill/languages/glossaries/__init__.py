"""Each language's reporting glossary (`Language.glossary`), one module a language, named by its code: data
the language modules above import, not languages themselves (languages/__init__.py `load` reads only
modules, never this package)."""
