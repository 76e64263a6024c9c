"""Palette PNGs for the review report's page images: the encoder writes PNGs that PyMuPDF (MuPDF's own
decoder) reads back pixel for pixel, and the quantizer keeps a rendered page close to the original."""

from __future__ import annotations

import numpy as np
import pymupdf
import pytest

from autofill.review.palette_png import PALETTE_COLORS, encode_indexed_png, pixmap_to_palette_png, quantize


def _decode(png: bytes) -> np.ndarray:
    pix = pymupdf.Pixmap(png)
    assert pix.n == 3 and not pix.alpha
    return np.frombuffer(pix.samples, dtype=np.uint8).reshape(pix.height, pix.width, 3)


@pytest.mark.parametrize("colors, bits", [(2, 1), (3, 2), (16, 4), (17, 8), (256, 8)])
def test_indexed_png_decodes_to_the_exact_pixels(colors, bits):
    # Odd widths: the last byte of each row is only partly used at 1, 2 and 4 bits per pixel.
    rng = np.random.default_rng(colors)
    palette = rng.integers(0, 256, size=(colors, 3), dtype=np.uint8)
    indices = rng.integers(0, colors, size=(9, 13), dtype=np.uint8)
    indices[0, 0], indices[-1, -1] = 0, colors - 1
    png = encode_indexed_png(indices, palette)
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and png[24] == bits and png[25] == 3
    assert np.array_equal(_decode(png), palette[indices])


def test_a_page_with_few_colours_keeps_each_of_them():
    image = np.full((40, 30, 3), 255, dtype=np.uint8)
    image[5:15, :] = (255, 214, 0)  # highlight amber
    image[20:25, 3:20] = (20, 20, 20)  # ink
    image[30:, 10:] = (51, 77, 128)  # a panel
    indices, palette = quantize(image.tobytes(), 30, 40, colors=8)
    assert len(palette) == 4  # one entry per colour, none merged
    assert np.abs(palette[indices].astype(int) - image).max() <= 3  # colours are binned at 6 bits a channel
    assert (palette[indices[0, 0]] == 255).all() and (palette[indices[22, 5]] <= 20).all()  # paper, ink


def test_a_rendered_page_stays_close_and_keeps_its_highlight():
    doc = pymupdf.open()
    page = doc.new_page(width=300, height=200)
    page.draw_rect(pymupdf.Rect(0, 120, 300, 200), color=None, fill=(0.85, 0.9, 0.95))  # a tinted panel
    page.insert_textbox(pymupdf.Rect(10, 10, 290, 110), "Net zero operational emissions by 2050. " * 4, fontsize=10)
    page.insert_textbox(pymupdf.Rect(10, 130, 290, 190), "Scope 3 emissions in a tinted panel. " * 3,
                        fontsize=9, color=(0.1, 0.3, 0.5))
    annot = page.add_highlight_annot(page.search_for("Net zero operational emissions by 2050", quads=True))
    annot.set_colors(stroke=(1.0, 0.84, 0.0))
    annot.update()
    pix = page.get_pixmap(dpi=90, annots=True)
    original = np.frombuffer(pix.samples, dtype=np.uint8).reshape(pix.height, pix.width, 3).astype(int)
    assert len(np.unique(original.reshape(-1, 3), axis=0)) > PALETTE_COLORS  # anti-aliasing: many colours

    png = pixmap_to_palette_png(pix)
    assert png[25] == 3 and int.from_bytes(png[33:37], "big") // 3 <= PALETTE_COLORS
    assert len(png) < len(pix.tobytes("png"))
    decoded = _decode(png).astype(int)
    error = np.abs(decoded - original).max(axis=2)
    assert error.mean() < 3 and (error > 40).mean() < 0.001
    amber = (decoded[..., 0] > 200) & (decoded[..., 1] > 150) & (decoded[..., 2] < 140)
    assert amber.sum() > 0.8 * ((original[..., 0] > 200) & (original[..., 1] > 150) & (original[..., 2] < 140)).sum()
    assert pixmap_to_palette_png(pix) == png  # deterministic: a rebuilt report has the same bytes


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="expected 4x4 RGB"):
        quantize(b"\x00" * 10, 4, 4)
    with pytest.raises(ValueError, match="1 to 256"):
        quantize(b"\x00" * 48, 4, 4, colors=300)
    with pytest.raises(ValueError, match="palette"):
        encode_indexed_png(np.array([[0, 2]]), np.zeros((2, 3)))
    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 4, 4), 1)
    with pytest.raises(ValueError, match="without alpha"):
        pixmap_to_palette_png(pix)
