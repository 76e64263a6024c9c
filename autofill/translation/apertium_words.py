"""Single words in English through Apertium's own dictionaries (issue 46), for the words FreeDict lacks:
FreeDict's French-English has 8,511 headwords and lacks "cible", "amont", "biens", "rejet", "acheter",
"portefeuille"; Apertium's French analysers and its bilingual dictionaries know most of them.

A word goes through the first of Apertium's routes into English (translation/apertium.routes: French
through Spanish, fr-es then spa-eng; `ApertiumWords.ROUTES`: the second, through Catalan, was measured and
adds nothing) word by word, with the transducers the route's mode files name, run by `lt-proc` (Debian's
lttoolbox, which apertium depends on):

- the route's analyser (the first pair's `automorf`) gives each of the word's readings, lemma and tags
  ("cibles" -> cible<n><f><pl>, cibler<vblex><pri><p2><sg>);
- each pair's bilingual dictionary (`lt-proc -b` on its `autobil`) takes a reading into the next language
  with all the translations it lists (cible<n><f> -> blanco<n><m>, blanco<n><m> -> target, white);
- the English lemmas at the end are the word's translations, the first reading's first, each once.

A word's first reading also says whether it is a verb's past participle (`analyse`, `is_participle`:
"vendus" -> vendre<vblex><pp><m><pl>), and the route's English generator (its last pair's `autogen`) gives
an English verb's participle (`participle`: "sell" -> "sold"; `lt-proc -g`, a questionnaire's verbs at once:
`prefetch_participles`).

No tagger, no transfer, no lexical selection: the word is alone, so every reading counts (the caller
chooses among them, as it chooses among a dictionary's senses: frameworks/lemmas.py). The words of a
questionnaire are looked up together (`prefetch`): one `lt-proc` process per transducer, for all of them at
once (about 0.2 s), and kept for the process (`words_of`). Nothing is written. Without Apertium, its pairs or lt-proc
there is no route and no word is found. OSError or subprocess.SubprocessError from a failing lt-proc is one
warning, and no word found."""

from __future__ import annotations

import logging
import re
import shlex
import shutil
import subprocess
import threading
from pathlib import Path
from typing import Iterable, Sequence

from autofill.translation.apertium import routes as apertium_routes

log = logging.getLogger(__name__)

TIMEOUT_S = 60
_UNIT = re.compile(r"\^((?:[^$\\]|\\.)*)\$")  # one lexical unit of lt-proc's stream
_TAGS = re.compile(r"<[^>]*>")


def _files(mode_file: Path) -> list[tuple[list[str], str]]:
    """Each `lt-proc` step of a mode file: its flags and transducer."""
    out = []
    for step in mode_file.read_text(encoding="utf-8").split("|"):
        words = shlex.split(step.replace("$1", "").replace("$2", ""))
        if words and words[0] == "lt-proc" and len(words) >= 2:
            out.append((words[1:-1], words[-1]))
    return out


def transducers(data: Path | str, route: Sequence[str]) -> tuple[tuple[list[str], str], list[str]] | None:
    """A route's analyser (lt-proc's flags, file: its first pair's first step) and its pairs' bilingual
    dictionaries (each pair's first `lt-proc -b` step); None when a mode file does not name them."""
    analyser, bilingual = None, []
    for i, mode in enumerate(route):
        path = Path(data) / "modes" / f"{mode}.mode"
        if not path.is_file():
            return None
        steps = _files(path)
        if i == 0 and steps and "-b" not in steps[0][0]:
            analyser = steps[0]
        bil = next((file for flags, file in steps if "-b" in flags and "autobil" in Path(file).name), "")
        if not bil:
            return None
        bilingual.append(bil)
    return (analyser, bilingual) if analyser is not None else None


def generator(data: Path | str, route: Sequence[str]) -> str:
    """The English generator of a route (its last pair's last `lt-proc` step, an `autogen` file), "" when
    its mode file names none."""
    path = Path(data) / "modes" / f"{route[-1]}.mode"
    if not path.is_file():
        return ""
    steps = [file for flags, file in _files(path) if "autogen" in Path(file).name]
    return steps[-1] if steps else ""


def readings(stream: str, words: Sequence[str]) -> list[list[str]] | None:
    """Each word's readings ("lemma<tags>") from an analyser's output in null-flush mode (one chunk a word,
    each ended by a NUL): none for a word it does not know; None when the chunks are not one a word."""
    if stream.count("\0") < len(words):  # lt-proc ends each chunk with a NUL (and may add one at the end)
        return None
    chunks = stream.split("\0")
    out = []
    for word, chunk in zip(words, chunks):
        units = [u.split("/") for u in _UNIT.findall(chunk)]
        whole = [u for u in units if len(units) == 1 and u[0].lower() == word.lower()]
        out.append([p for p in whole[0][1:] if p and not p.startswith("*") and "+" not in p] if whole else [])
    return out


def translations(stream: str) -> list[list[str]]:
    """Each unit of a bilingual dictionary's output (`lt-proc -b`) as its translations, none where the
    dictionary lacks it ("@...")."""
    out = []
    for unit in _UNIT.findall(stream):
        parts = unit.split("/")
        out.append([p for p in parts[1:] if p and not p.startswith("@")])
    return out


def lemma(reading: str) -> str:
    """A reading's words without its tags ("take<vblex># off" -> "take off")."""
    return " ".join(_TAGS.sub("", reading).replace("#", " ").split())


def _run(flags: list[str], file: str, text: str) -> str:
    return subprocess.run(["lt-proc", *flags, file], input=text, capture_output=True, text=True, check=True,
                          timeout=TIMEOUT_S).stdout


def through_route(words: Sequence[str], analyser: tuple[list[str], str], bilingual: Sequence[str],
                  first: dict[str, str] | None = None) -> dict[str, list[str]]:
    """Each word's English lemmas through one route, its readings' order kept; `first`, where given, gets
    each word's first reading ("" for none)."""
    if not words:
        return {}
    analysed = readings(_run(["-z", *analyser[0]], analyser[1], "".join(f"{w}\0" for w in words)), words)
    if analysed is None:  # the stream did not come back one chunk a word: none trusted
        log.warning("Apertium's analyser %s did not give one answer a word", analyser[1])
        return {}
    if first is not None:
        first.update((w, rs[0] if rs else "") for w, rs in zip(words, analysed))
    step = {r: [r] for r in dict.fromkeys(r for rs in analysed for r in rs)}  # reading -> its forms so far
    for file in bilingual:
        units = list(dict.fromkeys(x for xs in step.values() for x in xs))
        if not units:
            break
        found = translations(_run(["-b"], file, "".join(f"^{u}$\n" for u in units)))
        if len(found) != len(units):
            log.warning("Apertium's dictionary %s gave %d units for %d", file, len(found), len(units))
            return {}
        there = dict(zip(units, found))
        step = {r: list(dict.fromkeys(y for x in xs for y in there[x])) for r, xs in step.items()}
    out = {}
    for word, rs in zip(words, analysed):
        out[word] = list(dict.fromkeys(e for e in (lemma(x) for r in rs for x in step.get(r, ())) if e))
    return out


class ApertiumWords:
    """One language's single words in English through Apertium's routes: `senses(word)` -> [[translations]]
    (one sense: every route's, the first route's first), `in`; `prefetch(words)` looks many up at once."""

    # How many of the routes are read, apertium.routes' first first (French: through Spanish). Both French
    # routes were no closer to English than the first alone (benchmarks/frameworks_languages.py --pivot) and
    # the second's bilingual dictionary (fra-cat) takes lt-proc 100 MB and 0.16 s to load.
    ROUTES: int | None = 1
    THROUGH: tuple[str, ...] | None = None  # only the routes whose second pair starts so (the benchmark's --pivot)

    def __init__(self, data: Path | str, language: str, target: str = "en") -> None:
        self.data, self.language = Path(data), language
        found = apertium_routes(self.data, language, target) if shutil.which("lt-proc") else ()
        if self.THROUGH is not None:
            found = tuple(route for route in found if any(mode.startswith(self.THROUGH) for mode in route[1:]))
        found = found[:self.ROUTES] if self.ROUTES else found
        self.routes = [t for t in (transducers(self.data, route) for route in found) if t is not None]
        self.generator = generator(self.data, found[0]) if found and self.routes else ""
        self._known: dict[str, list[str]] = {}
        self._first: dict[str, str] = {}  # word -> its first reading ("vendre<vblex><pp><m><pl>"), "" for none
        self._participles: dict[str, str] = {}  # English verb -> its past participle, "" for none
        self._lock = threading.Lock()

    def __bool__(self) -> bool:
        return bool(self.routes)

    def prefetch(self, words: Iterable[str]) -> None:
        """Looks up every word not yet looked up, all in one pass per route."""
        with self._lock:
            todo = [w for w in dict.fromkeys(w.lower() for w in words) if w.isalpha() and w not in self._known]
            if not todo:
                return
            got: dict[str, list[str]] = {w: [] for w in todo}
            for i, (analyser, bilingual) in enumerate(self.routes):
                try:  # the first route's analysis is also each word's first reading (`analyse`)
                    per_word = through_route(todo, analyser, bilingual, self._first if i == 0 else None)
                except (OSError, subprocess.SubprocessError) as exc:
                    log.warning("Apertium's dictionaries (lt-proc %s) failed (%s); those words are read without "
                                "them", analyser[1], exc)
                    continue
                for w, english in per_word.items():
                    got[w] += [e for e in english if e not in got[w]]
            self._known.update(got)

    def analyse(self, words: Iterable[str]) -> None:
        """Reads every word not yet read with the first route's analyser, all in one pass: each word's first
        reading (`is_participle`)."""
        with self._lock:
            todo = [w for w in dict.fromkeys(w.lower() for w in words) if w.isalpha() and w not in self._first]
            if not todo or not self.routes:
                return
            (flags, file), _ = self.routes[0]
            try:
                found = readings(_run(["-z", *flags], file, "".join(f"{w}\0" for w in todo)), todo)
            except (OSError, subprocess.SubprocessError) as exc:
                log.warning("Apertium's analyser (lt-proc %s) failed (%s); participles are read as verbs", file, exc)
                found = None
            for w, rs in zip(todo, found or [[] for _ in todo]):
                self._first[w] = rs[0] if rs else ""

    def is_participle(self, word: str) -> bool:
        """Whether the word's first reading is a verb's past participle ("vendus", "achetés"; not "produits",
        first a noun)."""
        word = word.lower()
        if word not in self._first:
            self.analyse([word])
        return "<vblex><pp>" in self._first.get(word, "")

    def prefetch_participles(self, verbs: Iterable[str]) -> None:
        """Has the route's English generator give every English verb not yet asked its past participle, all
        in one pass (`participle`)."""
        verbs = list(verbs)  # read before the lock: the caller's iterable may look words up
        if not self.generator:
            return
        with self._lock:
            todo = [v for v in dict.fromkeys(verbs) if v.isalpha() and v not in self._participles]
            if not todo:
                return
            try:
                lines = _run(["-g"], self.generator, "".join(f"^{v}<vblex><pp>$\n" for v in todo)).split("\n")
            except (OSError, subprocess.SubprocessError) as exc:
                log.warning("Apertium's generator (lt-proc %s) failed (%s)", self.generator, exc)
                lines = []
            if len(lines) < len(todo):
                lines = [""] * len(todo)
            for verb, out in zip(todo, lines):
                out = out.strip()
                self._participles[verb] = out if out.isalpha() else ""

    def participle(self, english: str) -> str:
        """An English verb's past participle by the route's English generator ("sell" -> "sold"), "" where
        it has none (not a verb it knows)."""
        if not self.generator or not english.isalpha():
            return ""
        if english not in self._participles:
            self.prefetch_participles([english])
        return self._participles.get(english, "")

    def translations(self, word: str) -> list[str]:
        word = word.lower()
        if word not in self._known:
            self.prefetch([word])
        return self._known.get(word, [])

    def senses(self, word: str) -> list[list[str]]:
        found = self.translations(word)
        return [found] if found else []

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and bool(self.translations(word))


_lock = threading.Lock()
_open: dict[tuple[str, str, str], ApertiumWords] = {}


def words_of(data: Path | str, language: str, target: str = "en") -> ApertiumWords:
    """`ApertiumWords` once per process (inspect maps its rows twice: each word is looked up once)."""
    key = (str(data), language, target)
    with _lock:
        if key not in _open:
            _open[key] = ApertiumWords(data, language, target)
        return _open[key]
