"""The answer library: approved answers carried over to the next questionnaire and the next year.

store.py (SQLite per company), match.py (calibrated match strength), changes.py (material change),
harvest.py (approved rows of filled workbooks), xlsx.py (export/import), runtime.py (use in `run`),
manage.py and commands.py (`autofill library ...`)."""
