"""The types a value read from a TOML file must have, checked in one place (issue 43): settings files
(autofill.toml, --config: settings.py) and team framework files (`<workspace>/frameworks/*.toml`:
frameworks/catalogue.py) say what a key must be, and a value of another type (`needs = 5`, `final_k =
true`, a table where a list is expected) is refused with one line naming the file, the key, what it must
be and what it is (InputError, exit 2), before anything uses it. Bottom layer: imports only errors. Pure."""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import Any, Callable, Mapping

from autofill.errors import InputError


def _number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


@dataclass(frozen=True)
class Kind:
    """What a value must be: `words` as the refusal says it, `accepts` the test."""

    words: str
    accepts: Callable[[Any], bool]


TEXT = Kind("text in quotes", lambda v: isinstance(v, str))
INTEGER = Kind("a whole number", lambda v: isinstance(v, int) and not isinstance(v, bool))
NUMBER = Kind("a number", _number)
BOOLEAN = Kind("true or false", lambda v: isinstance(v, bool))
TABLE = Kind("a table", lambda v: isinstance(v, Mapping))
TEXT_OR_NUMBER = Kind("text in quotes", lambda v: isinstance(v, str) or (_number(v) and float(v).is_integer()))
TEXTS = Kind("text in quotes or a list of them", lambda v: isinstance(v, str) or (
    isinstance(v, list) and all(isinstance(x, str) for x in v)))
TEXT_LIST = Kind("a list of texts in quotes", lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v))
TABLES = Kind("a list of tables (each written [[name]])", lambda v: isinstance(v, list) and all(
    isinstance(x, Mapping) for x in v))
TEXT_TABLE = Kind("a table of texts in quotes", lambda v: isinstance(v, Mapping) and all(
    isinstance(x, str) for x in v.values()))
PRICE = Kind("[input, output] USD per million tokens", lambda v: isinstance(v, list) and len(v) == 2 and all(
    _number(x) and x >= 0 for x in v))


def shown(value: Any) -> str:
    """A value as a refusal names it: short, on one line, its TOML spelling where it has one."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if _number(value):
        return str(value)
    if isinstance(value, str):
        text = value if len(value) <= 40 else value[:37] + "..."
        return repr(text)
    if isinstance(value, Mapping):
        return "a table"
    if isinstance(value, list):
        inline = "[" + ", ".join(shown(x) for x in value) + "]"
        return inline if len(inline) <= 40 else "a list"
    if isinstance(value, (datetime.date, datetime.time)):
        return f"the date/time {value.isoformat()}"
    return type(value).__name__


def check(value: Any, kind: Kind, where: str, key: str) -> Any:
    """`value` when `kind` accepts it; else InputError "`where`: `key` must be <kind>, not <value>"."""
    if kind.accepts(value):
        return value
    raise InputError(f"{where}: {key} must be {kind.words}, not {shown(value)}")


def check_keys(entry: Mapping[str, Any], kinds: Mapping[str, Kind], where: str, what: str) -> None:
    """Every key of `entry` is one of `kinds` (else the nearest is named) and of its kind."""
    import difflib

    for key, value in entry.items():
        if key not in kinds:
            close = difflib.get_close_matches(str(key), list(kinds), n=1)
            hint = f" (did you mean {close[0]}?)" if close else f" (the keys are {', '.join(kinds)})"
            raise InputError(f"{where}: unknown key {key!r} in {what}{hint}")
        check(value, kinds[key], where, key)
