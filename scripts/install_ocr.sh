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
bash "$(dirname "$0")/apt_install.sh" install_ocr tesseract-ocr "ingest runs without OCR"
