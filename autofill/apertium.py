"""Apertium's rule-based machine translation, as Debian installs it (the `apertium` package and its
language pairs: apertium-eng-spa, apertium-fr-es), for questions searched in English reports' words too
(answer/translation.py). The only module that runs it.

A pair is a mode file in `<data>/modes` ("spa-eng.mode", "fr-es.mode": older pairs name languages by two
letters, newer by three). `route` finds the modes that take a language into another: its own pair, or
two pairs through a language between them (French reaches English through Spanish: fr-es, then spa-eng).
`translate` runs the text through them (`apertium -u`: no marks on unknown words, which stay as they are,
names and figures with them). Nothing is downloaded; without the packages there is no route, and the
dictionary (autofill/dictionaries.py) translates instead."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Sequence

DATA = "/usr/share/apertium"
# Our language codes (autofill/language.py) as Apertium's pairs spell them, three letters first.
CODES = {"en": ("eng", "en"), "es": ("spa", "es"), "fr": ("fra", "fr"), "de": ("deu", "de"), "it": ("ita", "it"),
         "pt": ("por", "pt"), "ca": ("cat", "ca"), "nl": ("nld", "nl"), "da": ("dan", "da"), "sv": ("swe", "sv"),
         "no": ("nob", "no")}
TIMEOUT_S = 60


def _mode(data: Path, source: str, target: str) -> str:
    for a in CODES.get(source, (source,)):
        for b in CODES.get(target, (target,)):
            if (data / "modes" / f"{a}-{b}.mode").is_file():
                return f"{a}-{b}"
    return ""


def route(data: Path | str, source: str, target: str) -> tuple[str, ...]:
    """The modes that translate `source` into `target` (codes as autofill/language.py gives them): one
    pair, else two through a language between them; () when Apertium or the pairs are not installed."""
    data = Path(data)
    if source == target or shutil.which("apertium") is None:
        return ()
    direct = _mode(data, source, target)
    if direct:
        return (direct,)
    for between in CODES:
        if between in (source, target):
            continue
        first, second = _mode(data, source, between), _mode(data, between, target)
        if first and second:
            return (first, second)
    return ()


def translate(text: str, modes: Sequence[str], data: Path | str = DATA) -> str:
    """`text` through each mode in turn; one line, spaces collapsed. OSError or subprocess.SubprocessError
    when Apertium fails (the caller falls back to the dictionary)."""
    for mode in modes:
        done = subprocess.run(["apertium", "-d", str(data), "-u", mode], input=text, capture_output=True,
                              text=True, check=True, timeout=TIMEOUT_S)
        text = done.stdout
    return " ".join(text.split())
