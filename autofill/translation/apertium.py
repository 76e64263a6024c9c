"""Apertium's rule-based machine translation, as Debian installs it (the `apertium` package and its
language pairs: apertium-eng-spa, apertium-fr-es, apertium-fra-cat, apertium-eng-cat), for questions
searched in English reports' words too (translation/translator.py). The only module that runs it.

A pair is a mode file in `<data>/modes` ("spa-eng.mode", "fr-es.mode": older pairs name languages by two
letters, newer by three). `routes` finds the ways a language goes into another: its own pair, or else
every route of two pairs through a language between them (French reaches English through Spanish, fr-es
then spa-eng, and through Catalan, fra-cat then cat-eng). `translate` runs texts through them, each alone
(`apertium -u`: no marks on unknown words, which stay as they are, names and figures with them), and joins
the routes' translations: each pivot loses other words, and words both keep weigh twice in keyword search
(French rows, MRR@6 0.673 -> 0.733 on three sets; README, "Other languages"). Nothing is downloaded;
without the packages there is no route, and the dictionary (translation/dictionaries.py) translates instead."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
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


Route = tuple[str, ...]  # modes, run in turn


def routes(data: Path | str, source: str, target: str) -> tuple[Route, ...]:
    """The ways Apertium takes `source` into `target` (codes as autofill/language.py gives them): its own
    pair alone where it is installed; else every route of two pairs through a language between them
    (French into English through Spanish and through Catalan), whose translations `translate` joins,
    since each pivot loses other words; () when Apertium or the pairs are not installed."""
    data = Path(data)
    if source == target or shutil.which("apertium") is None:
        return ()
    direct = _mode(data, source, target)
    if direct:
        return ((direct,),)
    found: list[Route] = []
    for between in CODES:
        if between in (source, target):
            continue
        first, second = _mode(data, source, between), _mode(data, between, target)
        if first and second:
            found.append((first, second))
    return tuple(found)


def describe(found: Sequence[Route]) -> str:
    """The routes as run and inspect name them: "fr-es, then spa-eng; fra-cat, then cat-eng"."""
    return "; ".join(", then ".join(route) for route in found)


def translate(texts: Sequence[str], found: Sequence[Route], data: Path | str = DATA) -> list[str]:
    """Each of `texts` through every route of `found`, the routes' translations joined (one line each,
    spaces collapsed). Each text goes through Apertium alone: in one input, a text's words and its
    tagger's choices followed from the text before it (measured: "period" lost to the next row, "How"
    read as "Like"). The texts run side by side, a process each, as many at once as the machine has
    cores. OSError or subprocess.SubprocessError when Apertium fails (the caller falls back to the
    dictionary)."""
    jobs = [(" ".join(text.split()), route) for text in texts for route in found]
    if not jobs:
        return ["" for _ in texts]
    with ThreadPoolExecutor(max_workers=min(len(jobs), os.cpu_count() or 1)) as pool:
        done = list(pool.map(lambda job: _through(job[0], job[1], Path(data)), jobs))
    per_text = len(found)
    return [" ".join(t for t in done[i * per_text:(i + 1) * per_text] if t) for i in range(len(texts))]


# A word a pair does not know, as Apertium marks it ("*Adobe"), and the stand-in that carries it unchanged
# through the next pair of a route (a token no pair knows passes as it is).
_UNKNOWN = re.compile(r"\*(\w[\w'’-]*)")
# Its number is spelt in letters (0 -> a, ..., 9 -> j), which no pair translates or splits off.
_STAND_IN = "zqx{}zqx"
_STAND_INS = re.compile(r"zqx([a-j]+)zqx", re.IGNORECASE)  # a pair may capitalise it
_TO_LETTERS, _TO_DIGITS = str.maketrans("0123456789", "abcdefghij"), str.maketrans("abcdefghij", "0123456789")


def _through(text: str, route: Route, data: Path) -> str:
    """`text` through the route's pairs in turn. A word a pair leaves untranslated (a name, an acronym, a
    word it lacks) is carried past the pairs after it as it is: read in the pivot language it became
    another word ("Adobe", left by fr-es, was read by spa-eng as Spanish "adobe" and came out "Season")."""
    kept: list[str] = []

    def stand_in(match: re.Match) -> str:
        kept.append(match.group(1))
        return _STAND_IN.format(str(len(kept) - 1).translate(_TO_LETTERS))

    for i, mode in enumerate(route):
        last = i == len(route) - 1
        text = subprocess.run(["apertium", "-d", str(data), *(["-u"] if last else []), mode], input=text,
                              capture_output=True, text=True, check=True, timeout=TIMEOUT_S).stdout
        if not last:
            text = _UNKNOWN.sub(stand_in, text)
    if kept:
        text = _STAND_INS.sub(lambda m: kept[int(m.group(1).lower().translate(_TO_DIGITS))], text)
    return " ".join(text.split())
