"""Deterministic fakes shared by the tests. Nothing here is imported by `autofill/`."""

from __future__ import annotations

import hashlib
import math
import re
from typing import Sequence

_WORD = re.compile(r"[a-z0-9]+")


class FakeEmbedder:
    """Bag-of-words hashed into `dims` buckets and L2-normalized: texts sharing words get a higher cosine
    similarity, identical texts score 1.0, and the same text always gives the same vector. Fast, no model.

    `fail_after`: raise RuntimeError once this many texts have been embedded (to simulate a crash midway).
    `calls` / `texts_embedded` let tests check that unchanged documents are not embedded again."""

    def __init__(self, dims: int = 64, name: str = "fake:hash-64", fail_after: int | None = None):
        self.dims = dims
        self.name = name
        self.fail_after = fail_after
        self.calls = 0
        self.texts_embedded = 0

    def _vector(self, text: str) -> list[float]:
        vec = [0.0] * self.dims
        for word in _WORD.findall(text.lower()):
            digest = hashlib.blake2b(word.encode(), digest_size=8).digest()
            bucket = int.from_bytes(digest[:4], "little") % self.dims
            sign = 1.0 if digest[4] & 1 else -1.0
            vec[bucket] += sign
        norm = math.sqrt(sum(v * v for v in vec))
        if norm == 0.0:
            vec[0] = 1.0  # an empty text still needs a valid unit vector
            return vec
        return [v / norm for v in vec]

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        self.calls += 1
        out = []
        for text in texts:
            if self.fail_after is not None and self.texts_embedded >= self.fail_after:
                raise RuntimeError("FakeEmbedder: simulated crash")
            self.texts_embedded += 1
            out.append(self._vector(text))
        return out

    def embed_query(self, text: str) -> list[float]:
        return self._vector(text)


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    return sum(x * y for x, y in zip(a, b))


class RecordingReporter:
    """A Reporter (autofill/reporting.py) that keeps what a stage reported: messages, warnings, and
    per bar (label, total, unit, units advanced, closed)."""

    def __init__(self) -> None:
        self.messages: list[str] = []
        self.warnings: list[str] = []
        self.bars: list[tuple] = []

    def message(self, text: str) -> None:
        self.messages.append(text)

    def warning(self, text: str) -> None:
        self.warnings.append(text)

    def bar(self, label: str, total: int, unit: str = ""):
        reporter, index = self, len(self.bars)
        self.bars.append((label, total, unit, 0, False))

        class _Bar:
            def advance(self, n: int = 1) -> None:
                label, total, unit, done, closed = reporter.bars[index]
                reporter.bars[index] = (label, total, unit, done + n, closed)

            def note(self, text: str) -> None:
                pass

            def close(self) -> None:
                reporter.bars[index] = reporter.bars[index][:4] + (True,)

        return _Bar()
