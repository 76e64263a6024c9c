"""Pure chunking: ParsedDocument -> list[Chunk] of about `chunk_chars` characters.

Rules, in order of preference:
- cut at paragraph boundaries, then at sentence boundaries, then (for a sentence longer than a
  chunk) between words; a paragraph that ends inside a sentence (PyMuPDF splits text at column and
  box edges) is not a boundary: its unfinished sentence starts the next chunk instead;
- a new heading starts a new chunk once the current one has `min_chunk_chars`, and a sibling or
  higher heading does from half that, so a chunk's section path is true for all of it;
- when a chunk already holds half its size and the next block is on a new page, cut there, so that
  most chunks cite one page;
- a table stays whole when it fits; a larger one is split by rows with its header row and separator
  repeated in every piece; a table running over a page break is cut there (the parser has put the
  header back on the second page's piece), so every table piece cites its own page; the table's caption
  (the short lines right above it: "Consolidated Statement of Cash Flows / Years ended December 31")
  opens every piece, on the page it runs on to as well, so each piece says what table it is;
- `chunk_overlap` characters (whole sentences) of a chunk cut inside running text are repeated at the
  start of the next, so a fact that straddles the cut is still found whole;
- chunks never cross documents (one call, one document) and never exceed `chunk_chars`, except a
  single table row longer than that.

Chunk ids are `<first 16 hex of the file's sha256>-<index:05d>`: deterministic, and a changed file
gets new ids.
"""

from __future__ import annotations

import hashlib
import re
from collections import deque
from dataclasses import dataclass, field, replace

from autofill.records import Chunk, PageContent, ParsedDocument
from autofill.settings import IngestSettings

# Part of every document's chunking fingerprint (see ingest.pipeline.chunking_fingerprint): raise it with
# any code change that alters the chunks of an unchanged PDF (chunking here, or parsing, clean-up and
# tables upstream), so the next ingest rebuilds stores made by the old code instead of skipping them.
CHUNKER_VERSION = 3  # 2: OCR text and printed page labels; 3: table captions in every table piece

# A sentence ends at . ! ? (optionally followed by a closing quote or bracket) before a capital,
# a digit or an opening quote/bracket. "e.g. the" and "1.5" are not ends.
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"'\u201d\u2019)\]]?\s+(?=[A-Z0-9\"'\u201c\u2018(\[])")
_ABBREV = re.compile(r"\b(e\.g|i\.e|etc|no|vs|approx|fig|incl|cf|mr|ms|dr|st|co|ltd|inc|jr|sr)\.$", re.IGNORECASE)


@dataclass
class _Unit:
    kind: str  # "heading", "text", "table" or "overlap"
    text: str
    page_start: int
    page_end: int
    section: str
    sep: str = "\n\n"  # what joins it to the unit before it in a chunk (" " inside a paragraph)
    level: int = 0  # heading level
    splittable: bool = False  # a whole paragraph that may still be cut into sentences
    ocr: bool = False  # read by OCR

    @property
    def content(self) -> bool:
        return self.kind in ("text", "table")


def split_sentences(text: str) -> list[str]:
    parts = _SENTENCE_END.split(text)
    out: list[str] = []
    for part in parts:
        if out and _ABBREV.search(out[-1]):
            out[-1] = f"{out[-1]} {part}"
        else:
            out.append(part)
    return [p.strip() for p in out if p.strip()]


def _split_words(text: str, limit: int) -> list[str]:
    pieces, cur = [], ""
    for word in text.split(" "):
        if cur and len(cur) + 1 + len(word) > limit:
            pieces.append(cur)
            cur = word
        else:
            cur = f"{cur} {word}" if cur else word
        while len(cur) > limit:  # a "word" longer than a chunk (a URL, a run of digits)
            pieces.append(cur[:limit])
            cur = cur[limit:]
    if cur:
        pieces.append(cur)
    return pieces


def split_table(markdown: str, limit: int) -> list[str]:
    """Split a Markdown table into pieces of at most `limit` characters by rows, each repeating the
    header row and separator. A single row longer than the limit becomes its own oversized piece."""
    lines = markdown.split("\n")
    head = "\n".join(lines[:2])
    pieces, rows = [], []
    for row in lines[2:]:
        if rows and len(head) + sum(len(r) + 1 for r in rows) + 1 + len(row) > limit:
            pieces.append("\n".join([head, *rows]))
            rows = []
        rows.append(row)
    if rows or not pieces:
        pieces.append("\n".join([head, *rows]))
    return pieces


# A table's caption: the short lines of text right above it on its page ("3M Company and Subsidiaries /
# Consolidated Statement of Cash Flows / Years ended December 31"). Longer text, or text that ends a
# sentence, is running text, not a caption.
CAPTION_LINE_CHARS = 160
CAPTION_CHARS = 240
_SENTENCE_DONE = re.compile(r"[.!?]['\"\u201d\u2019)]*\s*$")


def _take_caption(units: list[_Unit], page: int) -> str:
    """Pop the caption of a table about to start on `page` off the end of `units` and return it ("" when
    there is none): the trailing headings and text units on that page that are short and end no
    sentence ("CONSOLIDATED BALANCE SHEETS", "(In millions, except par value)"). Headings taken still
    name the section (the heading stack is kept apart from the units)."""
    taken: list[_Unit] = []
    size = 0
    while units and units[-1].kind in ("text", "heading") and units[-1].page_start == page:
        u = units[-1]
        if len(u.text) > CAPTION_LINE_CHARS or _SENTENCE_DONE.search(u.text) or size + len(u.text) > CAPTION_CHARS:
            break
        taken.insert(0, units.pop())
        size += len(u.text) + 1
    return " ".join(u.text for u in taken)


@dataclass
class _UnitState:
    """What _units carries from one batch of pages to the next."""

    stack: list[tuple[int, str]] = field(default_factory=list)  # the headings open so far
    caption: str = ""  # the caption of the last table
    last: _Unit | None = None  # the last unit made


def _units(pages: list[PageContent], limit: int, state: _UnitState) -> list[_Unit]:
    """The pages as a list of units (headings, paragraphs, table pieces), after the pages `state` has
    seen (it is updated). Every piece of a table starts with the table's caption (see _take_caption),
    also on the page a table runs on to, so that a piece of a financial statement still says which
    statement it is."""
    units: list[_Unit] = []
    stack = state.stack
    caption = state.caption
    for page in pages:
        for block in page.blocks:
            if block.kind == "heading":
                level = block.level or 1
                stack[:] = [h for h in stack if h[0] < level] + [(level, block.text)]
                units.append(_Unit("heading", block.text, page.page, page.page, _path(stack), level=level))
            elif block.kind == "table":
                own = _take_caption(units, page.page)
                # A table that opens a page right after a table keeps that table's caption (it runs on).
                before = units[-1] if units else state.last
                runs_on = not own and before is not None and before.kind == "table" \
                    and before.page_end == page.page - 1
                caption = own or (caption if runs_on else "")
                prefix = f"{caption}\n" if caption else ""
                for piece in split_table(block.text, max(limit - len(prefix), limit // 2)):
                    units.append(_Unit("table", prefix + piece, page.page, page.page, _path(stack)))
            elif block.text.strip():
                units.append(_Unit("text", block.text.strip(), page.page, page.page, _path(stack), splittable=True,
                                   ocr=block.ocr))
    state.caption = caption
    if units:
        state.last = units[-1]
    return units


def _path(stack: list[tuple[int, str]]) -> str:
    """" > "-joined headings; deeper than three, the chapter and the two innermost headings, since
    the path goes into every embedded context header and the embedder reads only ~256 tokens."""
    texts = [text for _, text in stack]
    if len(texts) > 3:
        texts = [texts[0], texts[-2], texts[-1]]
    return " > ".join(texts)


def _sentence_units(unit: _Unit, limit: int) -> list[_Unit]:
    out: list[_Unit] = []
    for sentence in split_sentences(unit.text):
        for piece in _split_words(sentence, limit) if len(sentence) > limit else [sentence]:
            out.append(replace(unit, text=piece, sep=" " if out else unit.sep, splittable=False))
    return out


def _overlap(units: list[_Unit], budget: int) -> _Unit | None:
    """Whole sentences from the end of the last text unit, at most `budget` characters (or the last
    sentence alone when it is at most twice that)."""
    last = units[-1] if units else None
    if budget <= 0 or last is None or last.kind not in ("text", "overlap"):
        return None
    sentences = split_sentences(last.text)
    tail: list[str] = []
    for sentence in reversed(sentences):
        if len(" ".join([sentence, *tail])) > budget:
            break
        tail.insert(0, sentence)
    if not tail and sentences and len(sentences[-1]) <= 2 * budget:
        tail = [sentences[-1]]
    if not tail:
        return None
    return replace(last, kind="overlap", text=" ".join(tail), sep="\n\n", splittable=False)


_ENDS_SENTENCE = re.compile(r"[.!?:;)\]\"'\u201d\u2019]\s*$")


def _unfinished_tail(cur: list[_Unit], limit: int) -> _Unit | None:
    """When the chunk ends inside a sentence (a paragraph PyMuPDF split at a column or box edge), take
    that unfinished sentence off its end, to start the next chunk with it: chunks end at sentence
    boundaries where they can. None when the chunk ends a sentence, or the piece is long or all it has."""
    last = cur[-1] if cur else None
    if last is None or last.kind != "text" or _ENDS_SENTENCE.search(last.text):
        return None
    sentences = split_sentences(last.text)
    if not sentences or len(sentences[-1]) > limit // 3:
        return None
    if len(sentences) > 1:
        cur[-1] = replace(last, text=" ".join(sentences[:-1]))
    elif sum(1 for x in cur if x.content) > 1:
        cur.pop()
    else:
        return None
    return replace(last, text=sentences[-1], sep="\n\n", splittable=False)


def _join(units: list[_Unit]) -> str:
    text = ""
    for u in units:
        text = f"{text}{u.sep}{u.text}" if text else u.text
    return text


class _Packer:
    """Packs units into chunks, fed in order; the chunks it has closed never change afterwards, except
    that finish() may add trailing headings to the last one."""

    def __init__(self, settings: IngestSettings):
        self.settings = settings
        self.chunks: list[list[_Unit]] = []
        self.cur: list[_Unit] = []
        self.size = 0

    def _flush(self, carry_overlap: bool) -> None:
        cur = self.cur
        trailing: list[_Unit] = []
        while cur and cur[-1].kind == "heading":  # a heading belongs with what follows it
            trailing.insert(0, cur.pop())
        if any(u.content for u in cur):
            self.chunks.append(cur)
            lap = _overlap(cur, self.settings.chunk_overlap) if carry_overlap and not trailing else None
            self.cur = ([lap] if lap else []) + trailing
        else:
            self.cur = cur + trailing
        self.size = len(_join(self.cur))

    def feed(self, units: list[_Unit]) -> None:
        settings = self.settings
        limit, half = settings.chunk_chars, settings.chunk_chars // 2
        queue = deque(units)
        while queue:
            u = queue.popleft()
            cur, size = self.cur, self.size
            has_content = any(x.content for x in cur)
            if u.kind == "heading":
                # Cut before a heading once the chunk has some size, and always before a sibling or
                # higher heading than one the chunk already holds (a new section, however short).
                sibling = size >= settings.min_chunk_chars // 2 and any(h.kind == "heading" and u.level <= h.level for h in cur)
                if has_content and (size >= settings.min_chunk_chars or sibling):
                    self._flush(carry_overlap=False)
            elif has_content and cur[-1].page_end != u.page_start:
                # Cut at a page break when the chunk is half full, and always where a table runs on
                # over the break: each page's piece carries the header, so each cites its own page.
                if size >= half or (u.kind == "table" and cur[-1].kind == "table"):
                    self._flush(carry_overlap=True)
                    has_content = False
            cur, size = self.cur, self.size
            added = len(u.text) + (len(u.sep) if cur else 0)
            if size + added > limit:
                if u.splittable and (not has_content or size < half) and len(u.text) > limit - size - len(u.sep):
                    queue.extendleft(reversed(_sentence_units(u, limit)))
                    continue
                tail = _unfinished_tail(cur, limit) if has_content and u.kind == "text" else None
                if has_content:
                    self._flush(carry_overlap=u.kind == "text" and tail is None)
                    if tail is not None:  # the sentence the chunk would have cut goes whole into the next
                        self.cur = [tail]
                        self.size = len(tail.text)
                        u = replace(u, sep=" ")
                elif cur:  # a run of headings with no text yet fills a chunk: let them stand alone
                    self.chunks.append(cur)
                    self.cur, self.size = [], 0
                while self.cur and self.size + len(u.sep) + len(u.text) > limit and self.cur[0].kind == "overlap":
                    self.cur.pop(0)  # no room for the overlap: the new unit comes first
                    self.size = len(_join(self.cur))
                if u.splittable and self.size + len(u.sep) + len(u.text) > limit:
                    queue.extendleft(reversed(_sentence_units(u, limit)))
                    continue
            self.cur.append(u)
            self.size = len(_join(self.cur))

    def finish(self) -> list[list[_Unit]]:
        chunks, cur = self.chunks, self.cur
        if any(u.content for u in cur):
            chunks.append(cur)
        elif cur and chunks:  # trailing headings with nothing under them: keep them with the last chunk
            if len(_join(chunks[-1] + cur)) <= self.settings.chunk_chars:
                chunks[-1].extend(cur)
        self.cur, self.size = [], 0
        return chunks


def _pack(units: list[_Unit], settings: IngestSettings) -> list[list[_Unit]]:
    packer = _Packer(settings)
    packer.feed(units)
    return packer.finish()


class ChunkStream:
    """chunk_document for a document that arrives a batch of pages at a time (ingest/parse_helper.py
    streams them): feed() returns the chunks that no later page can change, finish() the rest. Together
    they are exactly chunk_document's chunks: one packer runs over the pages in order, and a chunk is
    handed out once a later one has been closed (only the last closed chunk may still grow, at the end)."""

    def __init__(self, sha256: str, file_name: str, company: str, settings: IngestSettings):
        self.sha256, self.file_name, self.company, self.settings = sha256, file_name, company, settings
        self._packer = _Packer(settings)
        self._state = _UnitState()
        self._labels: dict[int, str] = {}
        self._given = 0

    def feed(self, pages: list[PageContent]) -> list[Chunk]:
        self._labels.update((p.page, p.label) for p in pages)
        self._packer.feed(_units(pages, self.settings.chunk_chars, self._state))
        return self._give(len(self._packer.chunks) - 1)

    def finish(self) -> list[Chunk]:
        self._packer.finish()
        return self._give(len(self._packer.chunks))

    def _give(self, upto: int) -> list[Chunk]:
        out = [self._chunk(i, units) for i, units in enumerate(self._packer.chunks[self._given:upto], self._given)]
        self._given = max(self._given, upto)
        return out

    def _chunk(self, index: int, units: list[_Unit]) -> Chunk:
        text = _join(units)
        content = [u for u in units if u.content] or units
        start, end = min(u.page_start for u in units), max(u.page_end for u in units)
        return Chunk(
            id=f"{self.sha256[:16]}-{index:05d}",
            company=self.company,
            file_name=self.file_name,
            doc_sha256=self.sha256,
            page_start=start,
            page_end=end,
            section=content[0].section,
            index=index,
            has_table=any(u.kind == "table" for u in units),
            text=text,
            content_hash=hashlib.sha256(text.encode("utf-8")).hexdigest(),
            ocr=any(u.ocr for u in units),
            page_labels=tuple(self._labels.get(n, "") for n in range(start, end + 1)),
        )


def chunk_document(doc: ParsedDocument, company: str, settings: IngestSettings) -> list[Chunk]:
    """Cut one parsed document into chunks (see the module docstring for the rules)."""
    stream = ChunkStream(doc.sha256, doc.file_name, company, settings)
    return stream.feed(doc.pages) + stream.finish()
