"""The report's content index moved to frameworks/content_index.py (it reads and rebuilds with the
frameworks' catalogue, and frameworks/coverage.py reads it: in ingest/ it tied the two folders into a
cycle). These names stay importable from here for the tests that still do; new code imports
autofill.frameworks.content_index."""

from autofill.frameworks.content_index import drop_document, load, page_refs, pointed_pages  # noqa: F401
