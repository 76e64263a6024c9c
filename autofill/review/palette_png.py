"""Page images as palette PNGs: a rendered report page reduced to a few dozen colours and written as an
indexed PNG, about a third the size of PyMuPDF's full-colour PNG and as legible.

Why not JPEG: cited pages are mostly text, and JPEG at quality 75 saves only ~20% on them while smearing
letter edges; quality 50 saves ~40% with visible ringing. A page of text on a few flat backgrounds
really has few colours (ink, paper, panel tints, the highlight and the anti-aliasing steps between
them), so a small palette keeps edges sharp and deflate compresses the indices well. Photos on a page
band a little, which is acceptable: the passage is what the reviewer reads.

Why not Pillow: PyMuPDF cannot write palette images, and Pillow is not a dependency of ours. numpy,
zlib and a PNG container of four chunks are all it takes."""

from __future__ import annotations

import struct
import zlib

PALETTE_COLORS = 32  # 16 roughens anti-aliased letters on coloured panels; 64 gains nothing visible
_BIN_BITS = 6  # colours are clustered as a 6-bit-per-channel histogram: fast, and finer than the palette
_ITERATIONS = 12
_DEFLATE_LEVEL = 6  # level 9 is slower for ~1% smaller files


def quantize(samples: bytes, width: int, height: int, colors: int = PALETTE_COLORS):
    """(indices, palette) for an RGB image given as `width * height * 3` bytes: indices is a
    height x width uint8 array into palette, a (<= colors) x 3 uint8 array. Deterministic: the same page
    gives the same bytes, so a report rebuilt from the same run differs only where the pages do."""
    import numpy as np

    if not 1 <= colors <= 256:
        raise ValueError("a PNG palette holds 1 to 256 colours")
    rgb = np.frombuffer(samples, dtype=np.uint8)
    if rgb.size != width * height * 3:
        raise ValueError(f"expected {width}x{height} RGB samples, got {rgb.size} bytes")
    rgb = rgb.reshape(-1, 3)
    shift = 8 - _BIN_BITS
    bins = ((rgb[:, 0] >> shift).astype(np.int32) << (2 * _BIN_BITS)
            | (rgb[:, 1] >> shift).astype(np.int32) << _BIN_BITS
            | (rgb[:, 2] >> shift).astype(np.int32))
    counts = np.bincount(bins, minlength=1 << (3 * _BIN_BITS))
    used = np.flatnonzero(counts)
    weight = counts[used].astype(np.float64)
    # Each bin stands for its level scaled back to 0-255 (so paper white stays 255 and ink 0): within
    # 3 of every colour in it. Exact per-bin means cost three weighted passes over the pixels, which
    # took as long as everything else here together, for a difference no one can see.
    levels = (1 << _BIN_BITS) - 1
    points = np.stack([(used >> (2 * _BIN_BITS)) & levels, (used >> _BIN_BITS) & levels, used & levels],
                      axis=1) * (255.0 / levels)
    centres = _weighted_kmeans(points, weight, colors)
    labels = _nearest(points, centres)
    # The palette colour is the pixel-weighted mean of its bins (empty clusters are dropped).
    keep = np.flatnonzero(np.bincount(labels, weights=weight, minlength=len(centres)) > 0)
    remap = np.full(len(centres), -1, dtype=np.int64)
    remap[keep] = np.arange(len(keep))
    labels = remap[labels]
    totals = np.bincount(labels, weights=weight, minlength=len(keep))
    palette = np.stack([np.bincount(labels, weights=weight * points[:, c], minlength=len(keep))
                        for c in range(3)], axis=1)
    palette = np.clip(np.rint(palette / totals[:, None]), 0, 255).astype(np.uint8)
    lut = np.zeros(counts.size, dtype=np.uint8)
    lut[used] = labels
    return lut[bins].reshape(height, width), palette


def _weighted_kmeans(points, weight, k: int):
    """Centres for `points` (n x 3) weighted by pixel count. Seeded greedily, not at random (each next
    seed is the colour with the most weight x squared distance to the seeds so far), so small but
    distinct colours such as the highlight or a coloured heading get a palette entry of their own."""
    import numpy as np

    if len(points) <= k:
        return points.copy()
    centres = [points[int(np.argmax(weight))]]
    dist = ((points - centres[0]) ** 2).sum(axis=1)
    for _ in range(1, k):
        score = weight * dist
        if score.max() <= 0:
            break
        centres.append(points[int(np.argmax(score))])
        dist = np.minimum(dist, ((points - centres[-1]) ** 2).sum(axis=1))
    centres = np.array(centres)
    for _ in range(_ITERATIONS):
        labels = _nearest(points, centres)
        totals = np.bincount(labels, weights=weight, minlength=len(centres))
        moved = np.stack([np.bincount(labels, weights=weight * points[:, c], minlength=len(centres))
                          for c in range(3)], axis=1)
        filled = totals > 0
        centres[filled] = moved[filled] / totals[filled, None]
    return centres


def _nearest(points, centres):
    import numpy as np

    # |p - c|^2 = |p|^2 - 2 p.c + |c|^2, and |p|^2 does not change which centre is nearest; in blocks,
    # since a photo fills tens of thousands of histogram bins.
    out = np.empty(len(points), dtype=np.int64)
    norms = (centres ** 2).sum(axis=1)
    for start in range(0, len(points), 16384):
        block = points[start:start + 16384]
        out[start:start + len(block)] = np.argmin(norms[None, :] - 2 * block @ centres.T, axis=1)
    return out


def _chunk(tag: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)


def encode_indexed_png(indices, palette) -> bytes:
    """An indexed-colour PNG (colour type 3) of `indices` (height x width) into `palette` (n x 3),
    packed at 1, 2, 4 or 8 bits per pixel as the palette's size allows."""
    import numpy as np

    indices = np.asarray(indices, dtype=np.uint8)
    palette = np.asarray(palette, dtype=np.uint8).reshape(-1, 3)
    height, width = indices.shape
    if not 1 <= len(palette) <= 256 or (indices.size and int(indices.max()) >= len(palette)):
        raise ValueError("indices must point into a palette of 1 to 256 colours")
    bits = next(b for b in (1, 2, 4, 8) if len(palette) <= 1 << b)
    per_byte = 8 // bits
    if per_byte > 1:
        padded = np.zeros((height, -(-width // per_byte) * per_byte), dtype=np.uint8)
        padded[:, :width] = indices
        groups = padded.reshape(height, -1, per_byte)
        rows = np.zeros(groups.shape[:2], dtype=np.uint8)
        for i in range(per_byte):  # leftmost pixel in the high bits
            rows |= groups[:, :, i] << (8 - bits * (i + 1))
    else:
        rows = indices
    # Filter type 0 on every row: the PNG specification's advice for palette images.
    raw = np.concatenate([np.zeros((height, 1), dtype=np.uint8), rows], axis=1).tobytes()
    header = struct.pack(">IIBBBBB", width, height, bits, 3, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header) + _chunk(b"PLTE", palette.tobytes())
            + _chunk(b"IDAT", zlib.compress(raw, _DEFLATE_LEVEL)) + _chunk(b"IEND", b""))


def pixmap_to_palette_png(pix, colors: int = PALETTE_COLORS) -> bytes:
    """Palette PNG bytes of a PyMuPDF RGB pixmap without alpha (what page.get_pixmap() returns)."""
    if pix.n != 3 or pix.alpha:
        raise ValueError(f"expected an RGB pixmap without alpha, got {pix.n} channels")
    samples = pix.samples
    if pix.stride != pix.width * 3:  # rows padded: drop the padding
        samples = b"".join(samples[y * pix.stride:y * pix.stride + pix.width * 3] for y in range(pix.height))
    indices, palette = quantize(samples, pix.width, pix.height, colors)
    return encode_indexed_png(indices, palette)
