"""The review report renders in a real browser: headless Chromium (Debian's `chromium`, installed by
scripts/install_test_deps.sh) takes a screenshot, which must have the window's size, not be blank,
and show the highlighted passage on the cited page image (wide runs of the highlight's amber)."""

from __future__ import annotations

import os
import shutil
import subprocess

import pymupdf
import pytest

from autofill.review.report import write_review_report
from autofill.settings import Settings
from tests.review_fixtures import PDF_NAME, make_output_workbook, make_report_pdf

WIDTH, HEIGHT = 1280, 2000


def _chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found:
        return found
    can_install = shutil.which("apt-get") and (os.geteuid() == 0 or _passwordless_sudo())
    if not can_install:
        pytest.skip("Chromium is not installed and cannot be installed here (not root, no apt-get or sudo); "
                    "run scripts/install_test_deps.sh as root to enable the browser test")
    pytest.fail("Chromium is not installed although it could be: run scripts/install_test_deps.sh "
                "(scripts/test.sh does) before the tests")


def _passwordless_sudo() -> bool:
    if not shutil.which("sudo"):
        return False
    return subprocess.run(["sudo", "-n", "true"], capture_output=True).returncode == 0


def _amber(px) -> bool:
    return px[0] > 200 and px[1] > 150 and px[2] < 140


def _highlight_rows(pix: pymupdf.Pixmap, min_run: int = 80) -> int:
    """Pixel rows holding a horizontal run of at least `min_run` highlight-coloured pixels. Highlighted
    lines of text are tall, wide bands; a border of the page's own styling is one pixel high."""
    rows = 0
    for y in range(pix.height):
        run = best = 0
        for x in range(0, pix.width, 2):
            run = run + 2 if _amber(pix.pixel(x, y)) else 0
            best = max(best, run)
        rows += best >= min_run
    return rows


@pytest.mark.slow
def test_report_renders_in_headless_chromium(tmp_path, workspace):
    browser = _chromium()
    docs = tmp_path / "docs"
    docs.mkdir()
    pdf = make_report_pdf(docs / PDF_NAME)
    out = make_output_workbook(tmp_path / "filled.xlsx")
    report = write_review_report(Settings(workspace=workspace), out, pdf_paths={PDF_NAME: pdf})

    shot = tmp_path / "shot.png"
    profile = tmp_path / "profile"
    cmd = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           "--hide-scrollbars", f"--user-data-dir={profile}", f"--screenshot={shot}",
           f"--window-size={WIDTH},{HEIGHT}", report.resolve().as_uri()]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=180)
    assert shot.is_file(), f"no screenshot (exit {done.returncode}): {done.stderr[-2000:]}"

    pix = pymupdf.Pixmap(str(shot))
    assert (pix.width, pix.height) == (WIDTH, HEIGHT)
    # Not blank: the grey levels of a sample of pixels vary (text, panels, the page image).
    greys = [sum(pix.pixel(x, y)[:3]) / 3 for y in range(0, HEIGHT, 8) for x in range(0, WIDTH, 8)]
    mean = sum(greys) / len(greys)
    variance = sum((g - mean) ** 2 for g in greys) / len(greys)
    assert variance > 50, variance
    assert len({round(g) for g in greys}) > 30
    # The cited page image is displayed with its highlight: wide bands of the highlight colour.
    assert _highlight_rows(pix) >= 8  # 17-19 with the highlight shown, 2 (a panel border) without
