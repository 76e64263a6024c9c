"""The typed Review log moved to review/review_log.py (the review report reads it too, and review/ sits
below review_app/). These names stay importable from here for the modules and tests that still do; new
code imports autofill.review.review_log."""

from autofill.review.review_log import COLUMNS, LogLine, approval_overrides, lines_of  # noqa: F401
