#!/usr/bin/env bash
# System packages the tests need beyond pip: Debian's `chromium`, for the headless screenshot test of
# the HTML review report (tests/test_review_report_browser.py). Idempotent and quick when already
# installed. Without root (and without password-less sudo) it installs nothing and says so; the
# browser test then skips with that reason. It never fails the caller: a failed install shows up as
# a failing browser test with the reason, not as a broken test run.
set -u

# Tesseract for the OCR tests (tests/test_ocr.py); its own script, also run by the README's set-up.
bash "$(dirname "$0")/install_ocr.sh"

if command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1; then
    exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "install_test_deps: apt-get not available; install Chromium yourself for the browser test" >&2
    exit 0
fi
if [ "$(id -u)" -eq 0 ]; then
    SUDO=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    SUDO="sudo -n"
else
    echo "install_test_deps: not root, so Chromium is not installed; the browser screenshot test will skip" >&2
    exit 0
fi
echo "install_test_deps: installing chromium (Debian package) for the review report browser test" >&2
export DEBIAN_FRONTEND=noninteractive
if ! { $SUDO apt-get update -qq && $SUDO apt-get install -y -qq --no-install-recommends chromium; } >/tmp/install_test_deps.log 2>&1; then
    echo "install_test_deps: installing chromium failed (see /tmp/install_test_deps.log); the browser test will fail" >&2
    tail -5 /tmp/install_test_deps.log >&2 || true
fi
exit 0
