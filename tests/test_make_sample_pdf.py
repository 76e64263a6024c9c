"""samples/make_sample_pdf.py, the layout engine behind the sample report and every test PDF
(tests/pdf_factory.py): its line wrapping adds up cached character advances instead of asking
Font.text_length for every candidate line, and must wrap exactly as text_length measures; the
bundled sample PDF is what the builder writes, byte for byte."""

from __future__ import annotations

import random
from pathlib import Path

import pymupdf
import pytest

from tests.pdf_factory import sample_builder

ROOT = Path(__file__).resolve().parents[1]


def wrap_by_text_length(text: str, width: float, fontname: str, size: float) -> list[str]:
    """The wrapping as Font.text_length measures each candidate line (the builder's rule before)."""
    font = pymupdf.Font(fontname)
    lines: list[str] = []
    line = ""
    for word in text.split():
        candidate = f"{line} {word}" if line else word
        if line and font.text_length(candidate, fontsize=size) > width:
            lines.append(line)
            line = word
        else:
            line = candidate
    if line:
        lines.append(line)
    return lines


def texts() -> list[str]:
    rng = random.Random(11)
    alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJ0123456789 éüßàçœ€%–—“”’,.;:()[]|/ 中文 Ωж"
    return [" ".join("".join(rng.choice(alphabet) for _ in range(rng.randint(1, 14)))
                     for _ in range(rng.randint(1, 60))) for _ in range(60)]


@pytest.mark.parametrize(("fontname", "size", "width"), [("helv", 10.0, 475.0), ("hebo", 20.0, 475.0),
                                                         ("helv", 9.0, 120.0), ("hebo", 12.5, 30.0)])
def test_lines_wrap_exactly_where_text_length_puts_them(fontname, size, width):
    for text in texts():
        assert sample_builder._wrap(text, width, fontname, size) == wrap_by_text_length(text, width, fontname, size)


def test_the_bundled_sample_is_what_the_builder_writes(tmp_path):
    built = sample_builder.build_sample(tmp_path / "sample.pdf")
    assert built.read_bytes() == (ROOT / "samples" / "northwind_sustainability_2024.pdf").read_bytes()
