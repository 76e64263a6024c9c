#!/usr/bin/env bash
# The README's test command: installs what the tests need (idempotent, fast when already there),
# then runs the whole suite, its files spread over one pytest worker per CPU (pytest-xdist).
#
#   bash scripts/test.sh                  everything (what CI runs: .ci/run)
#   bash scripts/test.sh --quick          everything but the tests marked `slow` (-m "not slow"):
#                                         no browser, no Chroma server, no torch, no cold model loads
#   bash scripts/test.sh tests/test_x.py  one file (extra arguments go to pytest)
#   bash scripts/test.sh -n 0             in one process (e.g. to debug with --pdb)
#   AUTOFILL_TEST_WORKERS=4 bash scripts/test.sh   another number of workers (default: one per CPU)
#   AUTOFILL_TEST_COLD=1 bash scripts/test.sh      every CLI command in a cold interpreter (by default the
#                                         tests fork them from one pre-imported process: tests/cli_process.py)
set -euo pipefail
cd "$(dirname "$0")/.."
quick=()
args=()
for arg in "$@"; do
    if [ "$arg" = "--quick" ]; then quick=(-m "not slow"); else args+=("$arg"); fi
done
# Every extra but live (xlwings drives Excel, which Linux lacks): the tests cover the optional torch
# runtime of the local embedder, autofill eval, the Cohere provider and batch --engine ray as well.
python3 -m pip install --quiet --disable-pip-version-check -e '.[test,torch,eval,cohere,rerank,ray]'
if [ -f scripts/install_test_deps.sh ]; then bash scripts/install_test_deps.sh; fi
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 ANONYMIZED_TELEMETRY=False
# Byte-compile the package and the tests once: a shell with PYTHONDONTWRITEBYTECODE=1 (ours; CI's may be too)
# otherwise compiles them again in every fresh interpreter the tests start (Ray workers, parse helpers, cold
# CLI runs: about 0.2 CPU-s each).
python3 -m compileall -q -j 0 autofill tests >/dev/null
# Whole files go to one worker (--dist loadfile): a file's module fixtures (an ingested store, a loaded
# model, the one local Ray of tests/test_ray_engine.py) are built once, not once per worker.
# -p no:benchmark: pytest-benchmark, when installed, warns that xdist disables it; no test uses it.
exec python3 -m pytest -q -p no:benchmark -n "${AUTOFILL_TEST_WORKERS:-auto}" --dist loadfile ${quick[@]+"${quick[@]}"} \
    ${args[@]+"${args[@]}"}
