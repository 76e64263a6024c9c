"""The search chain (issue 44): from a questionnaire row to its candidate passages. Query building
(query.py, terms.py; a row's translation comes from autofill/translation/, below this package), centring
(centring.py), HyDE and multi-query texts (hyde.py, multiquery.py), the first stage's searches fused
(retrieval.py), the content index's pages (index_pages.py) and the second stage (second_stage.py).
It knows nothing of answers, runs or workbooks (tests/test_import_layers.py)."""
