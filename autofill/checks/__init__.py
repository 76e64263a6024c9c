"""The trust layer: every answer checked against its cited passages, as pure functions, and tiered
Ready / Check / Needs work. numbers.py (figure and year parsing), figures.py, periods.py, scope.py,
form.py, tier.py (signals and the tier), verdict.py (reading a model's verification), row.py (all
checks of a finished row)."""

from autofill.checks.row import CheckContext, assess, check_row  # noqa: F401
from autofill.checks.tier import decide_tier, failed_text, tier_counts  # noqa: F401
