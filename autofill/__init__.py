"""autofill: fill sustainability questionnaires from a company's own reports, with cited evidence."""

__version__ = "0.1.0"
