#!/usr/bin/env bash
# Tesseract OCR (Debian package `tesseract-ocr`, with its English model) for reading image-only pages
# and charts at ingest (autofill/ingest/ocr.py). Idempotent and quick when already installed. Without
# root (and without password-less sudo) or apt-get it installs nothing and says how; autofill then
# ingests without OCR, warning once per ingest. It never fails the caller, so the README's set-up
# command keeps going.
set -u

if command -v tesseract >/dev/null 2>&1; then
    exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "install_ocr: apt-get not available; install Tesseract 5 yourself (brew install tesseract, ...) for OCR" >&2
    exit 0
fi
if [ "$(id -u)" -eq 0 ]; then
    SUDO=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    SUDO="sudo -n"
else
    echo "install_ocr: not root, so Tesseract is not installed; run: sudo apt-get install tesseract-ocr" >&2
    exit 0
fi
echo "install_ocr: installing tesseract-ocr (Debian package) for OCR of image pages" >&2
export DEBIAN_FRONTEND=noninteractive
if ! { $SUDO apt-get update -qq && $SUDO apt-get install -y -qq --no-install-recommends tesseract-ocr; } \
        >/tmp/install_ocr.log 2>&1; then
    echo "install_ocr: installing tesseract-ocr failed (see /tmp/install_ocr.log); ingest runs without OCR" >&2
    tail -5 /tmp/install_ocr.log >&2 || true
fi
exit 0
