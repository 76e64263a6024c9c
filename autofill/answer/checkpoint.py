"""Run checkpoints: every finished row is appended to a JSONL file (flushed and fsynced), so an
interrupted run (Ctrl-C, crash, lost connection) continues where it stopped and finished rows are
neither repeated nor lost. The file is keyed by company, the questionnaire's content and a
fingerprint of everything that changes answers (models, retrieval settings, prompts, the store's
documents), so a checkpoint is only reused for the same run. It is removed once the output is written.

Records are compact: a row's passages are kept as chunk ids with their scores and ranks, not their text
(which made checkpoints grow ~8 KB a row); on resume the text comes back from the evidence store by id
(`Checkpoint(path, passages=store.get_passages)`). The fingerprint includes the store's documents, so the
ids of a matching checkpoint are still there; a row whose passages cannot all be found is answered again.

Also the (de)serialisation of RowResult and its parts, used here and nowhere else."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, Sequence

from autofill import questions
from autofill.records import Answer, CheckResult, Citation, Passage, QuestionRow, RowResult, StageUsage
from autofill.states import parse_tier
from autofill.store import derived

# 2: passages as {"id", "score", "rank"}; 1 (still read): passages with their text.
FORMAT = 2
READABLE_FORMATS = (1, 2)

# Looks passages up by chunk id (CompanyStore.get_passages): the order asked, missing ids left out.
PassageLookup = Callable[[Sequence[str]], list[Passage]]


# --------------------------------------------------------------------------- records <-> dicts


def row_result_to_dict(r: RowResult) -> dict[str, Any]:
    return {
        "question": dataclasses.asdict(r.question),
        "answer": None if r.answer is None else answer_to_dict(r.answer),
        "passages": [{"id": p.chunk_id, "score": p.score, "rank": p.rank} for p in r.passages],
        "usage": {stage: dataclasses.asdict(u) for stage, u in r.usage.items()},
        "error": r.error,
        "seconds": r.seconds,
        "checks": [c.to_dict() for c in r.checks],
        "tier": r.tier.label if r.tier is not None else "",
    }


def answer_to_dict(a: Answer) -> dict[str, Any]:
    d = dataclasses.asdict(a)
    d["citations"] = [{"file_name": c.file_name, "page": c.page} for c in a.citations]
    return d


def _known(cls, data: dict[str, Any]) -> dict[str, Any]:
    """Only the fields `cls` has: a checkpoint written by an older or newer version still loads."""
    names = {f.name for f in dataclasses.fields(cls)}
    return {k: v for k, v in data.items() if k in names}


def answer_from_dict(d: dict[str, Any]) -> Answer:
    data = _known(Answer, d)
    data["citations"] = [Citation(c["file_name"], int(c["page"]), str(c.get("printed") or "")) for c in d.get("citations", [])]
    return Answer(**data)


class MissingPassages(LookupError):
    """A checkpointed row refers to passages the store no longer holds (or no lookup was given)."""


def passage_ids(d: dict[str, Any]) -> list[str]:
    """Chunk ids a compact record needs from the store."""
    return [p["id"] for p in d.get("passages", []) if "id" in p and "text" not in p]


def _passage(p: dict[str, Any], found: dict[str, Passage]) -> Passage:
    if "text" in p:  # format 1: the whole passage was stored
        return Passage(**_known(Passage, p))
    stored = found.get(p["id"])
    if stored is None:
        raise MissingPassages(p["id"])
    return replace(stored, score=float(p.get("score", 0.0)), rank=int(p.get("rank", 0)))


def row_result_from_dict(d: dict[str, Any], found: dict[str, Passage] | None = None) -> RowResult:
    """A RowResult from its record; `found` maps the chunk ids of a compact record to the store's
    passages. Raises MissingPassages when one is not there."""
    return RowResult(
        question=QuestionRow(**_known(QuestionRow, d["question"])),
        answer=None if d.get("answer") is None else answer_from_dict(d["answer"]),
        passages=[_passage(p, found or {}) for p in d.get("passages", [])],
        usage={stage: StageUsage(**_known(StageUsage, u)) for stage, u in d.get("usage", {}).items()},
        error=d.get("error", ""),
        seconds=float(d.get("seconds", 0.0)),
        checks=[CheckResult.from_dict(c) for c in d.get("checks", [])],
        tier=parse_tier(d.get("tier", "")),
    )


# --------------------------------------------------------------------------- keys




def fingerprint(parts: dict[str, Any]) -> str:
    """A stable hash of plain data (settings, model names, template texts, document hashes)."""
    blob = json.dumps(parts, sort_keys=True, default=str, ensure_ascii=False)
    return hashlib.sha256(blob.encode()).hexdigest()


def question_key(q: QuestionRow) -> str:
    """A row's identity within one questionnaire: its position and its question, form of answer and
    guidance, each by the one rule of autofill/questions.py, so an edited question is answered again even
    in a checkpoint of the same file name, and one only re-spaced, re-cased or re-punctuated is not."""
    parts = "\n".join(questions.question_key(t) for t in (q.question, q.form_of_answer, q.explanation))
    digest = hashlib.sha256(parts.encode()).hexdigest()[:12]
    return f"{q.key}#{digest}"


_SLUG_MAX = 40


def safe_name(text: str) -> str:
    """`text` as a file-name part (the company in output and checkpoint names), unique per name: letters
    of any script are kept (東京電力 stays 東京電力), runs of spaces become one "_", and anything else
    (punctuation, symbols, a name cut to length) adds a short stable hash of the whole name, so
    "AT&T" and "AT T", or two long names sharing their first 40 letters, never share a file. Plain
    names ("Northwind Metals" -> "Northwind_Metals") keep the names earlier versions gave them."""
    import hashlib
    import unicodedata

    name = unicodedata.normalize("NFC", str(text or "")).strip()
    slug = re.sub(r"[^\w.-]+", "_", name).strip("_.")
    lossless = slug and slug[:_SLUG_MAX] == slug and re.fullmatch(r"[\w.-]+(?: [\w.-]+)*", name) is not None \
        and "_" not in name
    if lossless:
        return slug
    digest = hashlib.sha256(name.encode("utf-8")).hexdigest()[:8]
    return f"{slug[:_SLUG_MAX].rstrip('_.') or 'company'}-{digest}"


def checkpoint_path(reports_dir: Path, company: str, questionnaire_sha: str, settings_fp: str) -> Path:

    return derived.checkpoint_folder(reports_dir) / derived.checkpoint_name(safe_name(company), questionnaire_sha,
                                                                          settings_fp)


# --------------------------------------------------------------------------- the file


class Checkpoint:
    """Append-only JSONL of finished rows. Failed rows are not recorded: a re-run retries them.
    `passages` looks passage text up by chunk id on load (the evidence store's get_passages)."""

    def __init__(self, path: Path, passages: PassageLookup | None = None) -> None:
        self.path = path
        self.passages = passages

    def load(self) -> dict[str, RowResult]:
        """Finished rows by question_key. A torn last line (killed mid-write) is ignored, and so is a row
        whose passages are no longer in the store: it is answered again rather than resumed without them."""
        records: list[dict[str, Any]] = []
        try:
            fh = open(self.path, encoding="utf-8")
        except FileNotFoundError:
            return {}
        with fh:
            for line in fh:
                try:
                    record = json.loads(line)
                except ValueError:
                    continue
                if isinstance(record, dict) and record.get("format") in READABLE_FORMATS:
                    records.append(record)
        wanted = [i for r in records if isinstance(r.get("result"), dict) for i in passage_ids(r["result"])]
        found: dict[str, Passage] = {}
        if wanted and self.passages is not None:
            found = {p.chunk_id: p for p in self.passages(list(dict.fromkeys(wanted)))}
        done: dict[str, RowResult] = {}
        for record in records:
            try:
                done[record["key"]] = row_result_from_dict(record["result"], found)
            except (MissingPassages, ValueError, KeyError, TypeError):
                continue
        return done

    def append(self, result: RowResult) -> None:
        if result.failed or result.bad_reply:  # asked again on resume, never replayed (records.RowResult)
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        line = json.dumps({"format": FORMAT, "key": question_key(result.question),
                           "result": row_result_to_dict(result)}, ensure_ascii=False)
        with open(self.path, "a+b") as fh:
            fh.seek(0, os.SEEK_END)
            if fh.tell():
                # A run killed mid-write leaves a torn last line; start on a fresh line so the torn
                # fragment costs only itself.
                fh.seek(-1, os.SEEK_END)
                if fh.read(1) != b"\n":
                    fh.write(b"\n")
            fh.write((line + "\n").encode("utf-8"))
            fh.flush()
            os.fsync(fh.fileno())

    def reset(self) -> None:
        """Start over (--fresh): the old file would otherwise mix with the new rows."""
        self.remove()

    def remove(self) -> None:
        try:
            self.path.unlink()
        except FileNotFoundError:
            pass
