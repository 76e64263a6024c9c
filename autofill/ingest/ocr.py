"""OCR for what the text layer cannot see: pages without text (scans, pages of outlined text) and
large images on pages that have text (charts, infographics, a scanned assurance statement).

Engine: Tesseract 5 from the Debian package `tesseract-ocr` (scripts/install_ocr.sh), run as its
command-line program on a rendering of the region; its English model ships in the package and
nothing is downloaded. Chosen over RapidOCR (PP-OCRv4 ONNX models inside the `rapidocr-onnxruntime`
wheel) on BHP pages rasterised at 150 dpi, where the text layer is the truth (word recall of the OCR
text against it; seconds per page on the shared 2-core machine under load):

    page                  Tesseract           RapidOCR
    CTAP p. 8 (prose)     0.97 in 15 s        0.57 in 110 s
    CCR p. 25 (table)     0.93 in 42 s        0.47 in 290 s
    CTAP p. 10 (prose)    0.98 in 51 s        0.38 in 159 s

RapidOCR's Chinese-trained recogniser runs English words together ("Whatourreviewcovered"), which
BM25 and the embedder cannot match, and was 3-7x slower. The command line rather than PyMuPDF's
built-in Tesseract (`Pixmap.pdfocr_tobytes`, same engine and accuracy): only the command line takes
a page segmentation mode, and in the default mode Tesseract skips figures printed beside a chart's
bars ("960" above a short bar), which mode 11 (sparse text) reads. Tesseract loads its model on each
call (~0.1 s, small beside the seconds a page takes); the program is looked up once per process.

Where OCR runs (`regions`): the whole page when its text layer holds fewer than `ocr_page_chars`
characters and an image covers most of it or it is drawn in outlines; otherwise each image covering
at least `ocr_image_share` of the page. OCR lines that lie on text the text layer already has (a background
photo under printed text, the page's running footer) are dropped, so nothing is read twice."""

from __future__ import annotations

import functools
import logging
import shutil
import signal
from dataclasses import dataclass

log = logging.getLogger(__name__)

MIN_LINE_CHARS = 2  # shorter OCR lines are specks and logo fragments
MIN_BLOCK_LETTERS = 3  # a block with fewer letters or digits is noise from a photo
MIN_IMAGE_PIXELS = 120  # images smaller than this on both sides carry no readable text
MIN_WORD_CONF = 30.0  # Tesseract's confidence (0-100) below which a "word" is a speck or a bar edge
SCAN_SHARE = 0.6  # an image this large on a page with little text is the page itself (a scan)
# One region may use this much CPU time: a pathological image must not stall an ingest. CPU time, not
# wall-clock time: on a loaded machine (load 8 on 2 cores) a page's wall time grows 4-10x while its CPU
# time does not, and a wall-clock limit then dropped the OCR of ordinary pages (benchmarks/ocr_stress.py).
OCR_CPU_LIMIT_S = 300
OCR_WALL_LIMIT_S = 3600  # a backstop only (a Tesseract stuck without using CPU)
# Tesseract's OpenMP threads spin while they wait for each other: on a busy machine a page took 4x the
# CPU time with the default threads as with one, and twice the wall time (benchmarks/ocr_stress.py).
# One thread per Tesseract: the ingest overlaps OCR with embedding anyway.
TESSERACT_ENV = {"OMP_THREAD_LIMIT": "1"}
_failures: list[str] = []  # why OCR of a region gave up, since the last take_failures()


@dataclass(frozen=True)
class OcrBlock:
    """A block of OCR text in reading order, with its place on the PDF page (points)."""

    lines: tuple[str, ...]
    bbox: tuple[float, float, float, float]


@functools.lru_cache(maxsize=1)
def _binary() -> str:
    return shutil.which("tesseract") or "tesseract"


@functools.lru_cache(maxsize=1)
def available() -> bool:
    """Whether OCR can run here; warns once per process when it cannot."""
    ok = shutil.which("tesseract") is not None
    if not ok:
        log.warning("OCR skipped: Tesseract is not installed (run scripts/install_ocr.sh, or set "
                    "ingest.ocr = false to silence this); pages without a text layer stay unread")
    return ok


def regions(page, text_chars: int, settings) -> tuple[list[tuple], bool]:
    """What of `page` is worth OCR, as (rectangle, image info or None) pairs, and whether that is the
    page as a whole: the whole page when it has little text and an image covering most of it (a scan)
    or only drawings (outlined text); else each image covering at least `ocr_image_share` of the
    page; else nothing."""
    import pymupdf

    area = abs(page.rect)
    images: list[tuple] = []
    for info in page.get_image_info(xrefs=True):
        rect = pymupdf.Rect(info["bbox"]) & page.rect
        if rect.is_empty or (info.get("width", 0) < MIN_IMAGE_PIXELS and info.get("height", 0) < MIN_IMAGE_PIXELS):
            continue
        if any(abs(rect & r) > 0.9 * abs(rect) for r, _ in images):
            continue  # an image stacked on one already taken (a mask, a duplicate layer)
        images.append((rect, info))
    if text_chars < settings.ocr_page_chars:
        if any(abs(r) >= SCAN_SHARE * area for r, _ in images) or (not images and page.get_drawings()):
            return [(page.rect, None)], True
    return [(r, info) for r, info in images if abs(r) >= settings.ocr_image_share * area], False


def drop_known(blocks: list[OcrBlock], line_rects: list[list], known: list[tuple[float, float, float, float]]) \
        -> list[OcrBlock]:
    """Blocks without the lines whose centre lies on a text-layer line (pure; for tests)."""
    out = []
    for block, rects in zip(blocks, line_rects):
        kept = [t for t, r in zip(block.lines, rects) if not _on_known(r, known)]
        if sum(c.isalnum() for t in kept for c in t) >= MIN_BLOCK_LETTERS:
            out.append(OcrBlock(tuple(kept), block.bbox))
    return out


def _on_known(rect, known) -> bool:
    cx, cy = (rect[0] + rect[2]) / 2, (rect[1] + rect[3]) / 2
    return any(k[0] <= cx <= k[2] and k[1] <= cy <= k[3] for k in known)


def read_page(page, text_lines: list[tuple[float, float, float, float]], text_chars: int, settings) -> list[OcrBlock]:
    """OCR text of `page` that its text layer lacks, in reading order ([] when OCR is off, not
    installed or not needed). `text_lines` are the bboxes of the text layer's lines."""
    if not settings.ocr:
        return []
    areas, whole = regions(page, text_chars, settings)
    if not areas or not available():
        return []
    out: list[OcrBlock] = []
    for clip, info in areas:
        raw = _ocr_lines(page, clip, info, settings.ocr_dpi, settings.ocr_language, sparse=not whole)
        out.extend(drop_known([b for b, _ in raw], [r for _, r in raw], text_lines))
    return out


def _ocr_lines(page, clip, info: dict | None, dpi: int, language: str, sparse: bool) -> list[tuple[OcrBlock, list]]:
    """OCR blocks of `clip` (the image `info` alone when it can be had, else the rendered page region)
    with the page rectangle of each of their lines."""
    import pymupdf

    pix, box = _image_pixels(page, info, dpi) if info else (None, None)
    if pix is None:
        pix, box = page.get_pixmap(dpi=dpi, clip=clip, alpha=False), clip
    sx, sy = box.width / pix.width, box.height / pix.height
    eff_dpi = max(30, round(72 / sx))
    words = [(x0 * sx + box.x0, y0 * sy + box.y0, x1 * sx + box.x0, y1 * sy + box.y0, w, b, ln)
             for x0, y0, x1, y1, w, b, ln in tesseract_words(pix.tobytes("png"), eff_dpi, language, sparse)]
    words = [w for w in words if clip.contains(pymupdf.Point((w[0] + w[2]) / 2, (w[1] + w[3]) / 2))]
    return [(OcrBlock(tuple(t for t, _ in blk), _union([r for _, r in blk])), [r for _, r in blk])
            for blk in group_lines(split_columns(words), clip.width)]


def _image_pixels(page, info: dict, dpi: int):
    """The image's own pixels (without the text printed over it: a background photo costs little and
    nothing is read twice) and its page rectangle, shrunk towards `dpi`; (None, None) when it is
    inline, rotated, flipped or unreadable (the caller renders the region instead)."""
    import pymupdf

    t = info.get("transform") or (0, 1, 1, 0, 0, 0)
    if not info.get("xref") or abs(t[1]) > 1e-3 or abs(t[2]) > 1e-3 or t[0] <= 0 or t[3] <= 0:
        return None, None
    try:
        pix = pymupdf.Pixmap(page.parent, info["xref"])
        if pix.alpha:
            pix = pymupdf.Pixmap(pix, 0)
        if pix.colorspace is None or pix.colorspace.n not in (1, 3):
            pix = pymupdf.Pixmap(pymupdf.csRGB, pix)
    except Exception:  # noqa: BLE001 - an exotic image: render the region instead
        return None, None
    box = pymupdf.Rect(info["bbox"])
    target = box.width / 72 * dpi
    while pix.width > 2 * target and pix.width > 2 * MIN_IMAGE_PIXELS:
        pix.shrink(1)  # halves each side
    return pix, box


def tesseract_words(png: bytes, dpi: int, language: str, sparse: bool) -> list[tuple]:
    """Words Tesseract reads in a PNG: (x0, y0, x1, y1, text, block, line) in pixels. Page segmentation
    mode 3 (columns and paragraphs) for whole pages, 11 (sparse text) for images: in mode 3 Tesseract
    skips a figure printed next to a bar of a chart, in mode 11 it finds every label."""
    import os
    import subprocess

    cmd = [_binary(), "stdin", "stdout", "--psm", "11" if sparse else "3", "--dpi", str(dpi), "-l", language, "tsv"]
    env = {**TESSERACT_ENV, **os.environ}  # a user's own OMP_THREAD_LIMIT wins
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    _limit_cpu(proc.pid, OCR_CPU_LIMIT_S)
    try:
        out, err = proc.communicate(png, timeout=OCR_WALL_LIMIT_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        return _failed(f"Tesseract gave up after {OCR_WALL_LIMIT_S} s")
    if proc.returncode != 0:
        if proc.returncode == -getattr(signal, "SIGXCPU", 24):
            return _failed(f"Tesseract used its {OCR_CPU_LIMIT_S} s of CPU time on one image")
        last = err.decode("utf-8", "replace").strip().splitlines()[-1:]
        return _failed(f"Tesseract failed (exit code {proc.returncode}{': ' + last[0] if last else ''})")
    return parse_tsv(out.decode("utf-8", "replace"))


def _limit_cpu(pid: int, seconds: int) -> None:
    """Kill (SIGXCPU) process `pid` once it has used `seconds` of CPU time; where unsupported, only the
    wall-clock backstop applies."""
    try:
        import resource

        resource.prlimit(pid, resource.RLIMIT_CPU, (seconds, seconds + 5))
    except (ImportError, AttributeError, OSError, ValueError):
        pass


def _failed(why: str) -> list:
    log.warning("OCR of one region skipped: %s", why)
    _failures.append(why)
    return []


def failures() -> list[str]:
    """The OCR failures since the last take_failures(), as a document warning ("OCR skipped 3 image
    regions (...)"), or []."""
    if not _failures:
        return []
    n = len(_failures)
    return [f"OCR skipped {n} image region{'s' if n > 1 else ''} ({_failures[0]}); their text is missing: "
            "ingest again with --force"]


def take_failures() -> list[str]:
    """failures(), then forget them (the next document starts afresh)."""
    found = failures()
    _failures.clear()
    return found


def parse_tsv(tsv: str) -> list[tuple]:
    """Tesseract's TSV to confident words (pure; for tests)."""
    out = []
    for row in tsv.splitlines()[1:]:
        cols = row.split("\t")
        if len(cols) < 12 or cols[0] != "5" or not cols[11].strip():
            continue
        try:
            left, top, width, height, conf = int(cols[6]), int(cols[7]), int(cols[8]), int(cols[9]), float(cols[10])
        except ValueError:
            continue
        if conf < MIN_WORD_CONF:
            continue
        out.append((left, top, left + width, top + height, cols[11].strip(), int(cols[2]),
                    (int(cols[2]), int(cols[3]), int(cols[4]))))
    return out


Seg = tuple[str, tuple[float, float, float, float]]


def split_columns(words: list[tuple]) -> list[Seg]:
    """Tesseract's lines as (text, bbox), each cut where a gap wider than twice the line height
    separates two columns that Tesseract read as one line (pure; for tests)."""
    lines: dict[tuple, list[tuple]] = {}
    for w in words:
        lines.setdefault((w[5], w[6]), []).append(w)
    out: list[Seg] = []
    for ws in lines.values():
        ws.sort(key=lambda w: w[0])
        height = max(w[3] - w[1] for w in ws)
        run = [ws[0]]
        for w in ws[1:]:
            if w[0] - run[-1][2] > 2 * height:
                out.append(_seg(run))
                run = []
            run.append(w)
        out.append(_seg(run))
    return [s for s in out if len(s[0]) >= MIN_LINE_CHARS]


def _seg(ws: list[tuple]) -> Seg:
    return " ".join(w[4] for w in ws), _union([w[:4] for w in ws])


def _union(rects) -> tuple[float, float, float, float]:
    return (min(r[0] for r in rects), min(r[1] for r in rects), max(r[2] for r in rects), max(r[3] for r in rects))


def group_lines(segs: list[Seg], width: float) -> list[list[Seg]]:
    """Line segments into paragraphs in reading order: a segment joins the paragraph whose last line
    sits just above it and overlaps it sideways; paragraphs are read column by column between
    full-width ones (pure; for tests)."""
    blocks: list[list[Seg]] = []
    for seg in sorted(segs, key=lambda s: (s[1][1], s[1][0])):
        x0, y0, x1, y1 = seg[1]
        h = y1 - y0
        for blk in blocks:
            lx0, ly0, lx1, ly1 = blk[-1][1]
            overlap = min(x1, lx1) - max(x0, lx0)
            if -0.3 * h <= y0 - ly1 <= 0.8 * h and overlap > 0.3 * min(x1 - x0, lx1 - lx0):
                blk.append(seg)
                break
        else:
            blocks.append([seg])
    ordered: list[list[Seg]] = []
    band: list[list[Seg]] = []
    column = max(width / 3, 1.0)

    def flush() -> None:
        ordered.extend(sorted(band, key=lambda b: (int(_union([r for _, r in b])[0] // column),
                                                  _union([r for _, r in b])[1])))
        band.clear()

    for blk in sorted(blocks, key=lambda b: _union([r for _, r in b])[1]):
        box = _union([r for _, r in blk])
        if box[2] - box[0] > 0.6 * width:  # a full-width heading or paragraph ends a run of columns
            flush()
            ordered.append(blk)
        else:
            band.append(blk)
    flush()
    return ordered
