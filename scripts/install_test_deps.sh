#!/usr/bin/env bash
# System packages the tests need beyond pip: Debian's `chromium`, for the headless screenshot test of
# the HTML review report (tests/test_review_report_browser.py). Idempotent and quick when already
# installed. Without root (and without password-less sudo) it installs nothing and says so; the
# browser test then skips with that reason. It never fails the caller: a failed install shows up as
# a failing browser test with the reason, not as a broken test run.
set -u

# Tesseract for the OCR tests (tests/test_ocr.py); its own script, also run by the README's set-up.
bash "$(dirname "$0")/install_ocr.sh"
# Apertium and the dictionaries for the translation tests (tests/test_apertium.py); also the README's set-up.
bash "$(dirname "$0")/install_dictionaries.sh"

if command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1; then
    exit 0
fi
bash "$(dirname "$0")/apt_install.sh" install_test_deps chromium "the browser screenshot test skips or fails"
