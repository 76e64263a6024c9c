"""Bilingual dictionaries in the dictd format (FreeDict, as Debian installs them: `dict-freedict-deu-eng`
puts `freedict-deu-eng.index` and `freedict-deu-eng.dict.dz` in /usr/share/dictd), read without a
dictd server: headword -> its senses, each sense the translations it lists.

Used to search a question in the documents' language as well as its own (translation/translator.py, issue
33). Nothing is downloaded: a dictionary is there (scripts/install_dictionaries.sh installs the Debian
packages) or the question is searched as before. The reader keeps single-word headwords only (a query
is translated word by word) and each sense's first translations. Reading a large dictionary whole takes
seconds (German-English: 95 MB of text); translation/dictionary_cache.py keeps what it reads in a compact
file looked up word by word, and opens each dictionary once per process."""

from __future__ import annotations

import gzip
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

# ISO 639-1 (autofill/language.py) -> ISO 639-3, as FreeDict names its dictionaries.
ISO3 = {"en": "eng", "de": "deu", "fr": "fra", "es": "spa", "it": "ita", "nl": "nld", "pt": "por",
        "da": "dan", "sv": "swe", "fi": "fin", "tr": "tur", "pl": "pol", "ru": "rus", "el": "ell"}
_B64 = {c: i for i, c in enumerate("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")}
# Labels and grammar in a translation line: "[envir.] emission <n>", "decrease (of sth.)".
_MARKUP = re.compile(r"\[[^\]]*\]|<[^>]*>|\([^)]*\)|\{[^}]*\}")
_NUMBERING = re.compile(r"^\s*\d+\.\s*")
# Translations kept per sense: its first ones are its commonest (translation/translator.py reads two).
KEEP = 2
# Lines of an entry that are not its translations.
_NOT_TRANSLATIONS = ("Note:", "Synonym", "see:", '"')


def _number(text: str) -> int:
    """dictd's base-64 offsets and lengths."""
    n = 0
    for c in text:
        n = n * 64 + _B64[c]
    return n


def file_stem(source: str, target: str) -> str:
    """"freedict-deu-eng": the dictionary translating `source` into `target` (ISO 639-1 codes); "" when
    FreeDict names no such pair."""
    if source not in ISO3 or target not in ISO3:
        return ""
    return f"freedict-{ISO3[source]}-{ISO3[target]}"


def package(source: str, target: str) -> str:
    """The Debian package of that dictionary ("dict-freedict-deu-eng")."""
    stem = file_stem(source, target)
    return stem.replace("freedict-", "dict-freedict-", 1) if stem else ""


def text_of(index: Path) -> Path:
    """The entries' file beside an index: `.dict.dz` (dictzip, gzip-readable) as Debian ships it, or `.dict`."""
    data = index.with_suffix(".dict.dz")
    return data if data.is_file() else index.with_suffix(".dict")


def find(folder: Path | str, source: str, target: str) -> Path | None:
    """The index file of the `source` -> `target` dictionary in `folder`, when it is there whole."""
    stem = file_stem(source, target)
    if not stem or not str(folder):
        return None
    index = Path(folder) / f"{stem}.index"
    return index if index.is_file() and text_of(index).is_file() else None


def translation_terms(line: str) -> list[str]:
    """The translations one sense lists, labels and grammar removed: "[envir.] emission <n>, output <n>"
    -> ["emission", "output"]."""
    if line.strip().startswith(_NOT_TRANSLATIONS):
        return []
    terms = (_NUMBERING.sub("", t).strip(" .;") for t in _MARKUP.sub("", line).split(","))
    return [t for t in terms if t and len(t) <= 40]


class Senses(Protocol):
    """word (lower case) -> its senses joined by "\n", a sense's translations by "\t": a dict, or the
    compact file's lookups (translation/dictionary_cache.py)."""

    def get(self, word: str, default: str = "") -> str: ...

    def __contains__(self, word: object) -> bool: ...


def read_senses(index: Path) -> dict[str, str]:
    """The whole dictionary as `Senses`: single-word headwords (lower case) -> each sense's first `KEEP`
    translations (the 95 MB of German-English text are read as a stream, not kept)."""
    entries: list[tuple[int, int, str]] = []
    with open(index, encoding="utf-8", errors="replace") as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) == 3 and " " not in parts[0] and not parts[0].startswith("00database"):
                entries.append((_number(parts[1]), _number(parts[2]), parts[0].lower()))
    entries.sort()
    data = text_of(index)
    found: dict[str, list[str]] = {}
    with (gzip.open(data, "rb") if data.suffix == ".dz" else open(data, "rb")) as f:
        at, last, body = 0, (-1, -1), b""
        for offset, length, word in entries:
            if (offset, length) != last:  # headwords sharing an entry read it once
                if offset < at:
                    continue  # overlapping the entry before: not in FreeDict's
                if offset > at:
                    f.seek(offset)  # forward only: a gzip stream reads up to it
                body, at, last = f.read(length), offset + length, (offset, length)
            lines = body.split(b"\n", 2)
            terms = translation_terms(lines[1].decode("utf-8", "replace")) if len(lines) > 1 else []
            if terms:
                found.setdefault(word, []).append("\t".join(terms[:KEEP]))
    return {word: "\n".join(senses) for word, senses in found.items()}


def read_reverse(index: Path) -> dict[str, str]:
    """A dictionary read the other way, as `Senses`: each single-word translation (lower case) of the
    `target` -> `source` dictionary of `index` -> the single-word headwords that list it among their senses
    (each sense, numbered or not), one sense of up to `REVERSE_KEEP` of them, the entries' order kept:
    FreeDict's English-French gives "acheter" -> buy, acquire, purchase, where its French-English lacks
    "acheter". Read whole: meant for a small dictionary."""
    found: dict[str, list[str]] = {}
    with open(index, encoding="utf-8", errors="replace") as f:
        entries = [(_number(p[1]), _number(p[2]), p[0].lower()) for p in (line.rstrip("\n").split("\t") for line in f)
                   if len(p) == 3 and p[0].isalpha() and not p[0].startswith("00database")]
    data = text_of(index)
    with (gzip.open(data, "rb") if data.suffix == ".dz" else open(data, "rb")) as f:
        body = f.read()
    for offset, length, headword in sorted(entries):
        for line in body[offset:offset + length].decode("utf-8", "replace").split("\n")[1:]:
            for term in translation_terms(line):
                term = term.lower()
                if term.isalpha() and headword not in found.setdefault(term, []):
                    found[term].append(headword)
    return {term: "\t".join(words[:REVERSE_KEEP]) for term, words in found.items()}


REVERSE_KEEP = 6  # headwords kept per word read the other way


@dataclass
class Dictionary:
    """One dictd dictionary: `senses(word)` -> each sense's first `KEEP` translations, in the dictionary's
    order. Held compactly: one string per headword, in memory or in the compact file."""

    path: Path
    _senses: Senses

    @classmethod
    def read(cls, index: Path) -> "Dictionary":
        return cls(index, read_senses(index))

    def __contains__(self, word: str) -> bool:
        return word.lower() in self._senses

    def senses(self, word: str) -> list[list[str]]:
        joined = self._senses.get(word.lower(), "")
        return [sense.split("\t") for sense in joined.split("\n")] if joined else []
